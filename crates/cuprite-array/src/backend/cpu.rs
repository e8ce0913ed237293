//! The CPU backend: host buffers, and a fused evaluator of [`Program`]s.
//!
//! A program is executed in chunks of [`CHUNK`] elements, in parallel over chunks with rayon:
//! every instruction of the fused graph runs over one chunk (which stays in cache) before the
//! next chunk is started, so the whole expression is one pass over memory, not one per
//! operation. This module is also the reference the GPU backend is checked against.

use crate::dtype::{Class, DType, Scalar, c32, c64};
use crate::graph::{Dist, Input, Kind, Program};
use crate::ops::{BinaryOp, ReduceOp, UnaryOp, special};
use crate::random;
use crate::shape::{Layout, numel};
use half::{bf16, f16};
use rayon::prelude::*;

/// Elements per chunk of the fused evaluator.
pub(crate) const CHUNK: usize = 2048;

/// A host buffer of `len` elements of `dtype`, 8-byte aligned.
pub(crate) struct HostBuf {
    words: Vec<u64>,
    len: usize,
    dtype: DType,
    pub(crate) locked: std::sync::atomic::AtomicBool,
}

impl Drop for HostBuf {
    fn drop(&mut self) {
        let bytes = self.len * self.dtype.size();
        crate::memory::on_free(crate::Device::CPU, bytes);
        if self.locked.load(std::sync::atomic::Ordering::Acquire) {
            // Locked memory is the user's: never freed or reused by the library.
            std::mem::forget(std::mem::take(&mut self.words));
            crate::memory::on_unlock(crate::Device::CPU, bytes);
        }
    }
}

impl HostBuf {
    pub fn zeroed(dtype: DType, len: usize) -> HostBuf {
        crate::memory::on_alloc(crate::Device::CPU, len * dtype.size());
        HostBuf {
            words: vec![0u64; (len * dtype.size()).div_ceil(8)],
            len,
            dtype,
            locked: std::sync::atomic::AtomicBool::new(false),
        }
    }

    pub fn from_bytes(dtype: DType, len: usize, bytes: &[u8]) -> HostBuf {
        let mut b = HostBuf::zeroed(dtype, len);
        b.bytes_mut().copy_from_slice(bytes);
        b
    }

    pub fn len(&self) -> usize {
        self.len
    }

    pub fn dtype(&self) -> DType {
        self.dtype
    }

    pub fn bytes(&self) -> &[u8] {
        &bytemuck::cast_slice::<u64, u8>(&self.words)[..self.len * self.dtype.size()]
    }

    pub fn bytes_mut(&mut self) -> &mut [u8] {
        let n = self.len * self.dtype.size();
        &mut bytemuck::cast_slice_mut::<u64, u8>(&mut self.words)[..n]
    }
}

/// A chunk of values in their compute class.
#[derive(Clone, Debug)]
pub(crate) enum Vals {
    F32(Vec<f32>),
    F64(Vec<f64>),
    I64(Vec<i64>),
    U64(Vec<u64>),
    C32(Vec<c32>),
    C64(Vec<c64>),
}

impl Vals {
    fn len(&self) -> usize {
        match self {
            Vals::F32(v) => v.len(),
            Vals::F64(v) => v.len(),
            Vals::I64(v) => v.len(),
            Vals::U64(v) => v.len(),
            Vals::C32(v) => v.len(),
            Vals::C64(v) => v.len(),
        }
    }

    fn splat(s: Scalar, n: usize) -> Vals {
        match s {
            Scalar::F32(x) => Vals::F32(vec![x; n]),
            Scalar::F64(x) => Vals::F64(vec![x; n]),
            Scalar::I64(x) => Vals::I64(vec![x; n]),
            Scalar::U64(x) => Vals::U64(vec![x; n]),
            Scalar::C32(x) => Vals::C32(vec![x; n]),
            Scalar::C64(x) => Vals::C64(vec![x; n]),
        }
    }

    pub(crate) fn get(&self, i: usize) -> Scalar {
        match self {
            Vals::F32(v) => Scalar::F32(v[i]),
            Vals::F64(v) => Scalar::F64(v[i]),
            Vals::I64(v) => Scalar::I64(v[i]),
            Vals::U64(v) => Scalar::U64(v[i]),
            Vals::C32(v) => Scalar::C32(v[i]),
            Vals::C64(v) => Scalar::C64(v[i]),
        }
    }

    /// Collects scalars that all have the class of `d` (the evaluator only produces those).
    fn from_scalars(d: DType, it: impl Iterator<Item = Scalar>) -> Vals {
        macro_rules! collect {
            ($($class:ident),*) => {
                match d.class() {
                    $(Class::$class => Vals::$class(
                        it.map(|s| match s {
                            Scalar::$class(x) => x,
                            other => unreachable!("a {other:?} in a {d:?} column"),
                        })
                        .collect(),
                    ),)*
                }
            };
        }
        collect!(F32, F64, I64, U64, C32, C64)
    }

    /// Wraps integers to the width of `d` and rounds half floats.
    fn normalize(&mut self, d: DType) {
        match (self, d) {
            (Vals::F32(v), DType::F16) => {
                v.iter_mut().for_each(|x| *x = f16::from_f32(*x).to_f32())
            }
            (Vals::F32(v), DType::BF16) => {
                v.iter_mut().for_each(|x| *x = bf16::from_f32(*x).to_f32())
            }
            (Vals::I64(v), DType::I8) => v.iter_mut().for_each(|x| *x = *x as i8 as i64),
            (Vals::I64(v), DType::I16) => v.iter_mut().for_each(|x| *x = *x as i16 as i64),
            (Vals::I64(v), DType::I32) => v.iter_mut().for_each(|x| *x = *x as i32 as i64),
            (Vals::U64(v), DType::U8) => v.iter_mut().for_each(|x| *x = *x as u8 as u64),
            (Vals::U64(v), DType::U16) => v.iter_mut().for_each(|x| *x = *x as u16 as u64),
            (Vals::U64(v), DType::U32) => v.iter_mut().for_each(|x| *x = *x as u32 as u64),
            (Vals::U64(v), DType::Bool) => v.iter_mut().for_each(|x| *x = (*x != 0) as u64),
            _ => {}
        }
    }
}

/// Byte offsets (in elements) of the chunk `[start, start + len)` of `shape` through `layout`.
fn offsets(shape: &[usize], layout: &Layout, start: usize, len: usize, out: &mut Vec<usize>) {
    out.clear();
    let nd = shape.len();
    if nd == 0 {
        out.resize(len, layout.offset);
        return;
    }
    let mut idx = vec![0usize; nd];
    let mut rem = start;
    for d in (0..nd).rev() {
        idx[d] = rem % shape[d];
        rem /= shape[d];
    }
    let mut off = layout.offset as isize
        + idx
            .iter()
            .zip(&layout.strides)
            .map(|(i, s)| *i as isize * s)
            .sum::<isize>();
    let last = nd - 1;
    let (ext, st) = (shape[last], layout.strides[last]);
    while out.len() < len {
        // Run along the last axis.
        let run = (ext - idx[last]).min(len - out.len());
        for k in 0..run {
            out.push((off + k as isize * st) as usize);
        }
        off += run as isize * st;
        idx[last] += run;
        // Carry.
        let mut d = last;
        while idx[d] == shape[d] && d > 0 {
            off -= shape[d] as isize * layout.strides[d];
            idx[d] = 0;
            d -= 1;
            idx[d] += 1;
            off += layout.strides[d];
        }
    }
}

macro_rules! dispatch_load {
    ($bytes:expr, $dtype:expr, $it:expr) => {{
        let b: &[u8] = $bytes;
        match $dtype {
            DType::Bool => {
                let s: &[u8] = b;
                Vals::U64($it.map(|o| (s[o] != 0) as u64).collect())
            }
            DType::U8 => {
                let s: &[u8] = b;
                Vals::U64($it.map(|o| s[o] as u64).collect())
            }
            DType::U16 => {
                let s: &[u16] = bytemuck::cast_slice(b);
                Vals::U64($it.map(|o| s[o] as u64).collect())
            }
            DType::U32 => {
                let s: &[u32] = bytemuck::cast_slice(b);
                Vals::U64($it.map(|o| s[o] as u64).collect())
            }
            DType::U64 => {
                let s: &[u64] = bytemuck::cast_slice(b);
                Vals::U64($it.map(|o| s[o]).collect())
            }
            DType::I8 => {
                let s: &[i8] = bytemuck::cast_slice(b);
                Vals::I64($it.map(|o| s[o] as i64).collect())
            }
            DType::I16 => {
                let s: &[i16] = bytemuck::cast_slice(b);
                Vals::I64($it.map(|o| s[o] as i64).collect())
            }
            DType::I32 => {
                let s: &[i32] = bytemuck::cast_slice(b);
                Vals::I64($it.map(|o| s[o] as i64).collect())
            }
            DType::I64 => {
                let s: &[i64] = bytemuck::cast_slice(b);
                Vals::I64($it.map(|o| s[o]).collect())
            }
            DType::F16 => {
                let s: &[f16] = bytemuck::cast_slice(b);
                Vals::F32($it.map(|o| s[o].to_f32()).collect())
            }
            DType::BF16 => {
                let s: &[bf16] = bytemuck::cast_slice(b);
                Vals::F32($it.map(|o| s[o].to_f32()).collect())
            }
            DType::F32 => {
                let s: &[f32] = bytemuck::cast_slice(b);
                Vals::F32($it.map(|o| s[o]).collect())
            }
            DType::F64 => {
                let s: &[f64] = bytemuck::cast_slice(b);
                Vals::F64($it.map(|o| s[o]).collect())
            }
            DType::C32 => {
                let s: &[c32] = bytemuck::cast_slice(b);
                Vals::C32($it.map(|o| s[o]).collect())
            }
            DType::C64 => {
                let s: &[c64] = bytemuck::cast_slice(b);
                Vals::C64($it.map(|o| s[o]).collect())
            }
        }
    }};
}

fn load(
    input: &Input,
    shape: &[usize],
    start: usize,
    len: usize,
    scratch: &mut Vec<usize>,
) -> Vals {
    let crate::backend::Storage::Host(h) = &*input.storage else {
        unreachable!("CPU program with a device input")
    };
    if input.layout.is_contiguous(shape) {
        let base = input.layout.offset + start;
        dispatch_load!(h.bytes(), input.dtype, (base..base + len))
    } else {
        offsets(shape, &input.layout, start, len, scratch);
        dispatch_load!(h.bytes(), input.dtype, scratch.iter().copied())
    }
}

fn gather(input: &Input, idx: &Vals) -> Vals {
    let crate::backend::Storage::Host(h) = &*input.storage else {
        unreachable!("CPU program with a device input")
    };
    let n = input.gather_len.unwrap_or(1).max(1);
    let ids: Vec<usize> = match idx {
        Vals::I64(v) => v
            .iter()
            .map(|&i| i.clamp(0, n as i64 - 1) as usize)
            .collect(),
        Vals::U64(v) => v.iter().map(|&i| i.min(n as u64 - 1) as usize).collect(),
        _ => unreachable!("gather index must be an integer"),
    };
    let base = input.layout.offset;
    dispatch_load!(h.bytes(), input.dtype, ids.iter().map(|i| base + i))
}

macro_rules! store_typed {
    ($ptr:expr, $offs:expr, $vals:expr, $T:ty, $Var:ident, $conv:expr) => {{
        let Vals::$Var(v) = $vals else { unreachable!() };
        let p = $ptr as *mut $T;
        for (o, x) in $offs.zip(v.iter()) {
            // SAFETY: `o` is inside the output buffer (the caller's layout is in bounds), and
            // chunks write disjoint elements, so no two threads write the same place.
            unsafe { p.add(o).write($conv(*x)) };
        }
    }};
}

/// Writes `vals` (of dtype `d`) at element offsets `offs` of the buffer at `ptr`.
///
/// # Safety
/// `ptr` must point to a buffer of dtype `d` containing every offset, with no other writer of
/// those elements concurrently.
unsafe fn store(ptr: *mut u8, d: DType, offs: impl Iterator<Item = usize>, vals: &Vals) {
    match d {
        DType::Bool => store_typed!(ptr, offs, vals, u8, U64, |x: u64| (x != 0) as u8),
        DType::U8 => store_typed!(ptr, offs, vals, u8, U64, |x: u64| x as u8),
        DType::U16 => store_typed!(ptr, offs, vals, u16, U64, |x: u64| x as u16),
        DType::U32 => store_typed!(ptr, offs, vals, u32, U64, |x: u64| x as u32),
        DType::U64 => store_typed!(ptr, offs, vals, u64, U64, |x: u64| x),
        DType::I8 => store_typed!(ptr, offs, vals, i8, I64, |x: i64| x as i8),
        DType::I16 => store_typed!(ptr, offs, vals, i16, I64, |x: i64| x as i16),
        DType::I32 => store_typed!(ptr, offs, vals, i32, I64, |x: i64| x as i32),
        DType::I64 => store_typed!(ptr, offs, vals, i64, I64, |x: i64| x),
        DType::F16 => store_typed!(ptr, offs, vals, f16, F32, f16::from_f32),
        DType::BF16 => store_typed!(ptr, offs, vals, bf16, F32, bf16::from_f32),
        DType::F32 => store_typed!(ptr, offs, vals, f32, F32, |x: f32| x),
        DType::F64 => store_typed!(ptr, offs, vals, f64, F64, |x: f64| x),
        DType::C32 => store_typed!(ptr, offs, vals, c32, C32, |x: c32| x),
        DType::C64 => store_typed!(ptr, offs, vals, c64, C64, |x: c64| x),
    }
}

#[derive(Clone, Copy)]
struct SendPtr(*mut u8);
// SAFETY: the pointer is only used for disjoint writes (see `store`), coordinated by the
// chunking of the evaluator.
unsafe impl Send for SendPtr {}
// SAFETY: as above.
unsafe impl Sync for SendPtr {}

/// Evaluates every instruction of `prog` over the chunk `[start, start + len)`; returns the
/// values of the outputs.
pub(crate) fn run_chunk(prog: &Program, start: usize, len: usize) -> Vec<Vals> {
    let mut vals: Vec<Option<Vals>> = Vec::with_capacity(prog.instrs.len());
    let mut scratch = Vec::new();
    // Last use of each instruction, to free chunk buffers early.
    for ins in &prog.instrs {
        let get = |k: usize| vals[k].as_ref().expect("operand evaluated");
        let mut v = match ins.kind {
            Kind::Load(i) => load(&prog.inputs[i], &prog.shape, start, len, &mut scratch),
            Kind::Const(c) => Vals::splat(prog.consts[c], len),
            Kind::Unary(op, a) => unary(op, prog.instrs[a].dtype, get(a)),
            Kind::Binary(op, a, b) => binary(op, prog.instrs[a].dtype, get(a), get(b)),
            Kind::Select(c, a, b) => select(get(c), get(a), get(b)),
            Kind::Cast(a) => cast(get(a), ins.dtype),
            Kind::Gather(i, idx) => gather(&prog.inputs[i], get(idx)),
            Kind::Iota(axis) => iota(&prog.shape, axis, start, len),
            Kind::Rand(key, dist) => {
                let Scalar::U64(k) = prog.consts[key] else {
                    unreachable!()
                };
                rand(k, dist, ins.dtype, start, len)
            }
        };
        v.normalize(ins.dtype);
        vals.push(Some(v));
    }
    prog.outputs
        .iter()
        .map(|&o| vals[o].clone().expect("output evaluated"))
        .collect()
}

fn iota(shape: &[usize], axis: usize, start: usize, len: usize) -> Vals {
    let inner: usize = shape[axis + 1..].iter().product();
    let n = shape[axis];
    Vals::I64(
        (start..start + len)
            .map(|i| ((i / inner.max(1)) % n.max(1)) as i64)
            .collect(),
    )
}

fn rand(key: u64, dist: Dist, d: DType, start: usize, len: usize) -> Vals {
    match d.class() {
        Class::F64 => Vals::F64(
            (start..start + len)
                .map(|i| random::sample_f64(key, i as u64, dist))
                .collect(),
        ),
        _ => Vals::F32(
            (start..start + len)
                .map(|i| random::sample_f32(key, i as u64, dist))
                .collect(),
        ),
    }
}

/// Evaluates `prog` into fresh contiguous host buffers, one per output.
pub(crate) fn eval(prog: &Program) -> Vec<HostBuf> {
    let n = numel(&prog.shape);
    let mut outs: Vec<HostBuf> = prog
        .outputs
        .iter()
        .map(|&o| HostBuf::zeroed(prog.instrs[o].dtype, n))
        .collect();
    let layouts: Vec<Layout> = outs
        .iter()
        .map(|_| Layout::contiguous(&prog.shape))
        .collect();
    let ptrs: Vec<SendPtr> = outs
        .iter_mut()
        .map(|b| SendPtr(b.bytes_mut().as_mut_ptr()))
        .collect();
    // SAFETY: each output buffer holds `n` elements and the layouts are contiguous.
    unsafe { eval_into(prog, &ptrs, &layouts) };
    outs
}

/// Evaluates `prog` writing output `k` through `layouts[k]` into the buffer at `ptrs[k]`.
///
/// # Safety
/// Each buffer must contain every element its layout addresses for the program's shape, and
/// the layouts must not address one element twice.
unsafe fn eval_into(prog: &Program, ptrs: &[SendPtr], layouts: &[Layout]) {
    let n = numel(&prog.shape);
    let chunks = n.div_ceil(CHUNK);
    let dtypes: Vec<DType> = prog.outputs.iter().map(|&o| prog.instrs[o].dtype).collect();
    let body = |c: usize| {
        let start = c * CHUNK;
        let len = CHUNK.min(n - start);
        let vals = run_chunk(prog, start, len);
        let mut scratch = Vec::new();
        for (k, v) in vals.iter().enumerate() {
            let l = &layouts[k];
            let p = ptrs[k];
            if l.is_contiguous(&prog.shape) {
                // SAFETY: the caller guarantees the buffer holds the layout's elements; chunks
                // are disjoint.
                unsafe { store(p.0, dtypes[k], l.offset + start..l.offset + start + len, v) };
            } else {
                offsets(&prog.shape, l, start, len, &mut scratch);
                // SAFETY: as above.
                unsafe { store(p.0, dtypes[k], scratch.iter().copied(), v) };
            }
        }
    };
    if chunks <= 1 {
        (0..chunks).for_each(body);
    } else {
        (0..chunks).into_par_iter().for_each(body);
    }
}

/// Evaluates a one-output program into an existing buffer through `layout` (used by concat,
/// pad and friends).
pub(crate) fn eval_into_view(prog: &Program, dst: &mut HostBuf, layout: &Layout) {
    let (lo, hi) = layout.extent(&prog.shape);
    assert!(lo >= 0 && (hi as usize) < dst.len().max(1) || numel(&prog.shape) == 0);
    let p = SendPtr(dst.bytes_mut().as_mut_ptr());
    // SAFETY: the extent was checked against the buffer; views made by the array layer are
    // non-overlapping (slices of a fresh buffer).
    unsafe { eval_into(prog, &[p], std::slice::from_ref(layout)) };
}

macro_rules! map1 {
    ($v:expr, $Var:ident, $f:expr) => {
        Vals::$Var($v.iter().map(|&x| $f(x)).collect())
    };
}
macro_rules! map2 {
    ($a:expr, $b:expr, $Var:ident, $f:expr) => {
        Vals::$Var($a.iter().zip($b.iter()).map(|(&x, &y)| $f(x, y)).collect())
    };
}

macro_rules! float_unary {
    ($op:expr, $v:expr, $T:ident, $Var:ident) => {{
        use UnaryOp::*;
        let v = $v;
        match $op {
            Neg => map1!(v, $Var, |x: $T| -x),
            Abs => map1!(v, $Var, |x: $T| x.abs()),
            Sign => map1!(v, $Var, |x: $T| if x.is_nan() || x == 0.0 {
                x
            } else {
                x.signum()
            }),
            Floor => map1!(v, $Var, |x: $T| x.floor()),
            Ceil => map1!(v, $Var, |x: $T| x.ceil()),
            Round => map1!(v, $Var, |x: $T| x.round()),
            Trunc => map1!(v, $Var, |x: $T| x.trunc()),
            Sqrt => map1!(v, $Var, |x: $T| x.sqrt()),
            Rsqrt => map1!(v, $Var, |x: $T| 1.0 / x.sqrt()),
            Cbrt => map1!(v, $Var, |x: $T| x.cbrt()),
            Exp => map1!(v, $Var, |x: $T| x.exp()),
            Exp2 => map1!(v, $Var, |x: $T| x.exp2()),
            Expm1 => map1!(v, $Var, |x: $T| x.exp_m1()),
            Log => map1!(v, $Var, |x: $T| x.ln()),
            Log2 => map1!(v, $Var, |x: $T| x.log2()),
            Log10 => map1!(v, $Var, |x: $T| x.log10()),
            Log1p => map1!(v, $Var, |x: $T| x.ln_1p()),
            Sin => map1!(v, $Var, |x: $T| x.sin()),
            Cos => map1!(v, $Var, |x: $T| x.cos()),
            Tan => map1!(v, $Var, |x: $T| x.tan()),
            Asin => map1!(v, $Var, |x: $T| x.asin()),
            Acos => map1!(v, $Var, |x: $T| x.acos()),
            Atan => map1!(v, $Var, |x: $T| x.atan()),
            Sinh => map1!(v, $Var, |x: $T| x.sinh()),
            Cosh => map1!(v, $Var, |x: $T| x.cosh()),
            Tanh => map1!(v, $Var, |x: $T| x.tanh()),
            Asinh => map1!(v, $Var, |x: $T| x.asinh()),
            Acosh => map1!(v, $Var, |x: $T| x.acosh()),
            Atanh => map1!(v, $Var, |x: $T| x.atanh()),
            Erf => map1!(v, $Var, |x: $T| special::erf(x as f64) as $T),
            Erfc => map1!(v, $Var, |x: $T| special::erfc(x as f64) as $T),
            Lgamma => map1!(v, $Var, |x: $T| special::lgamma(x as f64) as $T),
            Tgamma => map1!(v, $Var, |x: $T| special::tgamma(x as f64) as $T),
            Sigmoid => map1!(v, $Var, |x: $T| 1.0 / (1.0 + (-x).exp())),
            IsNan => Vals::U64(v.iter().map(|x| x.is_nan() as u64).collect()),
            IsInf => Vals::U64(v.iter().map(|x| x.is_infinite() as u64).collect()),
            IsFinite => Vals::U64(v.iter().map(|x| x.is_finite() as u64).collect()),
            o => unreachable!("{o:?} on a float"),
        }
    }};
}

macro_rules! complex_unary {
    ($op:expr, $v:expr, $T:ident, $C:ident, $Var:ident, $RVar:ident) => {{
        use UnaryOp::*;
        let v = $v;
        match $op {
            Neg => map1!(v, $Var, |z: $C| -z),
            Conj => map1!(v, $Var, |z: $C| $C::new(z.re, -z.im)),
            Real => map1!(v, $RVar, |z: $C| z.re),
            Imag => map1!(v, $RVar, |z: $C| z.im),
            Abs => map1!(v, $RVar, |z: $C| z.re.hypot(z.im)),
            Arg => map1!(v, $RVar, |z: $C| z.im.atan2(z.re)),
            Exp => map1!(v, $Var, |z: $C| {
                let e = z.re.exp();
                $C::new(e * z.im.cos(), e * z.im.sin())
            }),
            Log => map1!(v, $Var, |z: $C| $C::new(
                z.re.hypot(z.im).ln(),
                z.im.atan2(z.re)
            )),
            Sqrt => map1!(v, $Var, |z: $C| {
                let r = z.re.hypot(z.im);
                if r == 0.0 {
                    $C::new(0.0, z.im)
                } else if z.re >= 0.0 {
                    let t = ((r + z.re) * 0.5).sqrt();
                    $C::new(t, z.im / (2.0 * t))
                } else {
                    let t = ((r - z.re) * 0.5).sqrt();
                    $C::new(z.im.abs() / (2.0 * t), t.copysign(z.im))
                }
            }),
            o => unreachable!("{o:?} on a complex"),
        }
    }};
}

pub(crate) fn unary(op: UnaryOp, d: DType, v: &Vals) -> Vals {
    use UnaryOp::*;
    match v {
        Vals::F32(v) => float_unary!(op, v, f32, F32),
        Vals::F64(v) => float_unary!(op, v, f64, F64),
        Vals::C32(v) => complex_unary!(op, v, f32, c32, C32, F32),
        Vals::C64(v) => complex_unary!(op, v, f64, c64, C64, F64),
        Vals::I64(v) => match op {
            Neg => map1!(v, I64, |x: i64| x.wrapping_neg()),
            Abs => map1!(v, I64, |x: i64| x.wrapping_abs()),
            Sign => map1!(v, I64, |x: i64| x.signum()),
            BitNot => map1!(v, I64, |x: i64| !x),
            o => unreachable!("{o:?} on {d}"),
        },
        Vals::U64(v) => match op {
            Neg => map1!(v, U64, |x: u64| x.wrapping_neg()),
            Abs => map1!(v, U64, |x: u64| x),
            Sign => map1!(v, U64, |x: u64| (x != 0) as u64),
            BitNot => map1!(v, U64, |x: u64| !x),
            Not => map1!(v, U64, |x: u64| (x == 0) as u64),
            o => unreachable!("{o:?} on {d}"),
        },
    }
}

fn fmin<T: PartialOrd + Copy>(x: T, y: T, nan: impl Fn(T) -> bool) -> T {
    if nan(x) {
        x
    } else if nan(y) || y < x {
        y
    } else {
        x
    }
}
fn fmax<T: PartialOrd + Copy>(x: T, y: T, nan: impl Fn(T) -> bool) -> T {
    if nan(x) {
        x
    } else if nan(y) || y > x {
        y
    } else {
        x
    }
}

macro_rules! float_binary {
    ($op:expr, $a:expr, $b:expr, $T:ident, $Var:ident) => {{
        use BinaryOp::*;
        let (a, b) = ($a, $b);
        match $op {
            Add => map2!(a, b, $Var, |x: $T, y: $T| x + y),
            Sub => map2!(a, b, $Var, |x: $T, y: $T| x - y),
            Mul => map2!(a, b, $Var, |x: $T, y: $T| x * y),
            Div => map2!(a, b, $Var, |x: $T, y: $T| x / y),
            Rem => map2!(a, b, $Var, |x: $T, y: $T| x % y),
            Pow => map2!(a, b, $Var, |x: $T, y: $T| x.powf(y)),
            Min => map2!(a, b, $Var, |x: $T, y: $T| fmin(x, y, |v: $T| v.is_nan())),
            Max => map2!(a, b, $Var, |x: $T, y: $T| fmax(x, y, |v: $T| v.is_nan())),
            Atan2 => map2!(a, b, $Var, |x: $T, y: $T| x.atan2(y)),
            Hypot => map2!(a, b, $Var, |x: $T, y: $T| x.hypot(y)),
            Eq => map2!(a, b, U64, |x: $T, y: $T| (x == y) as u64),
            Ne => map2!(a, b, U64, |x: $T, y: $T| (x != y) as u64),
            Lt => map2!(a, b, U64, |x: $T, y: $T| (x < y) as u64),
            Le => map2!(a, b, U64, |x: $T, y: $T| (x <= y) as u64),
            Gt => map2!(a, b, U64, |x: $T, y: $T| (x > y) as u64),
            Ge => map2!(a, b, U64, |x: $T, y: $T| (x >= y) as u64),
            o => unreachable!("{o:?} on a float"),
        }
    }};
}

macro_rules! complex_binary {
    ($op:expr, $a:expr, $b:expr, $C:ident, $Var:ident) => {{
        use BinaryOp::*;
        let (a, b) = ($a, $b);
        match $op {
            Add => map2!(a, b, $Var, |x: $C, y: $C| $C::new(x.re + y.re, x.im + y.im)),
            Sub => map2!(a, b, $Var, |x: $C, y: $C| $C::new(x.re - y.re, x.im - y.im)),
            Mul => map2!(a, b, $Var, |x: $C, y: $C| $C::new(
                x.re * y.re - x.im * y.im,
                x.re * y.im + x.im * y.re
            )),
            Div => map2!(a, b, $Var, |x: $C, y: $C| {
                let d = y.re * y.re + y.im * y.im;
                $C::new(
                    (x.re * y.re + x.im * y.im) / d,
                    (x.im * y.re - x.re * y.im) / d,
                )
            }),
            Eq => map2!(a, b, U64, |x: $C, y: $C| (x.re == y.re && x.im == y.im)
                as u64),
            Ne => map2!(a, b, U64, |x: $C, y: $C| (x.re != y.re || x.im != y.im)
                as u64),
            o => unreachable!("{o:?} on a complex"),
        }
    }};
}

fn ipow_i(mut b: i64, e: i64) -> i64 {
    if e < 0 {
        return match b {
            1 => 1,
            -1 => {
                if e % 2 == 0 {
                    1
                } else {
                    -1
                }
            }
            _ => 0,
        };
    }
    let mut e = e as u64;
    let mut r: i64 = 1;
    while e > 0 {
        if e & 1 == 1 {
            r = r.wrapping_mul(b);
        }
        b = b.wrapping_mul(b);
        e >>= 1;
    }
    r
}

fn ipow_u(mut b: u64, mut e: u64) -> u64 {
    let mut r: u64 = 1;
    while e > 0 {
        if e & 1 == 1 {
            r = r.wrapping_mul(b);
        }
        b = b.wrapping_mul(b);
        e >>= 1;
    }
    r
}

macro_rules! int_binary {
    ($op:expr, $a:expr, $b:expr, $T:ident, $Var:ident, $bits:expr, $pow:expr) => {{
        use BinaryOp::*;
        let (a, b) = ($a, $b);
        let mask = ($bits - 1) as u32;
        match $op {
            Add => map2!(a, b, $Var, |x: $T, y: $T| x.wrapping_add(y)),
            Sub => map2!(a, b, $Var, |x: $T, y: $T| x.wrapping_sub(y)),
            Mul => map2!(a, b, $Var, |x: $T, y: $T| x.wrapping_mul(y)),
            Div => map2!(a, b, $Var, |x: $T, y: $T| if y == 0 {
                0
            } else {
                x.wrapping_div(y)
            }),
            Rem => map2!(a, b, $Var, |x: $T, y: $T| if y == 0 {
                0
            } else {
                x.wrapping_rem(y)
            }),
            Pow => map2!(a, b, $Var, $pow),
            Min => map2!(a, b, $Var, |x: $T, y: $T| x.min(y)),
            Max => map2!(a, b, $Var, |x: $T, y: $T| x.max(y)),
            Eq => map2!(a, b, U64, |x: $T, y: $T| (x == y) as u64),
            Ne => map2!(a, b, U64, |x: $T, y: $T| (x != y) as u64),
            Lt => map2!(a, b, U64, |x: $T, y: $T| (x < y) as u64),
            Le => map2!(a, b, U64, |x: $T, y: $T| (x <= y) as u64),
            Gt => map2!(a, b, U64, |x: $T, y: $T| (x > y) as u64),
            Ge => map2!(a, b, U64, |x: $T, y: $T| (x >= y) as u64),
            And => map2!(a, b, $Var, |x: $T, y: $T| ((x != 0) && (y != 0)) as $T),
            Or => map2!(a, b, $Var, |x: $T, y: $T| ((x != 0) || (y != 0)) as $T),
            Xor => map2!(a, b, $Var, |x: $T, y: $T| ((x != 0) != (y != 0)) as $T),
            BitAnd => map2!(a, b, $Var, |x: $T, y: $T| x & y),
            BitOr => map2!(a, b, $Var, |x: $T, y: $T| x | y),
            BitXor => map2!(a, b, $Var, |x: $T, y: $T| x ^ y),
            Shl => map2!(a, b, $Var, |x: $T, y: $T| x.wrapping_shl((y as u32) & mask)),
            Shr => map2!(a, b, $Var, |x: $T, y: $T| x.wrapping_shr((y as u32) & mask)),
            o => unreachable!("{o:?} on an integer"),
        }
    }};
}

pub(crate) fn binary(op: BinaryOp, d: DType, a: &Vals, b: &Vals) -> Vals {
    match (a, b) {
        (Vals::F32(a), Vals::F32(b)) => float_binary!(op, a, b, f32, F32),
        (Vals::F64(a), Vals::F64(b)) => float_binary!(op, a, b, f64, F64),
        (Vals::C32(a), Vals::C32(b)) => complex_binary!(op, a, b, c32, C32),
        (Vals::C64(a), Vals::C64(b)) => complex_binary!(op, a, b, c64, C64),
        (Vals::I64(a), Vals::I64(b)) => {
            int_binary!(op, a, b, i64, I64, d.bits(), |x: i64, y: i64| ipow_i(x, y))
        }
        (Vals::U64(a), Vals::U64(b)) => {
            int_binary!(op, a, b, u64, U64, d.bits(), |x: u64, y: u64| ipow_u(x, y))
        }
        _ => unreachable!("binary {op:?} on mismatched classes"),
    }
}

fn select(c: &Vals, a: &Vals, b: &Vals) -> Vals {
    let Vals::U64(c) = c else {
        unreachable!("select condition must be bool")
    };
    macro_rules! sel {
        ($x:expr, $y:expr, $Var:ident) => {
            Vals::$Var(
                c.iter()
                    .zip($x.iter().zip($y.iter()))
                    .map(|(&k, (&x, &y))| if k != 0 { x } else { y })
                    .collect(),
            )
        };
    }
    match (a, b) {
        (Vals::F32(x), Vals::F32(y)) => sel!(x, y, F32),
        (Vals::F64(x), Vals::F64(y)) => sel!(x, y, F64),
        (Vals::I64(x), Vals::I64(y)) => sel!(x, y, I64),
        (Vals::U64(x), Vals::U64(y)) => sel!(x, y, U64),
        (Vals::C32(x), Vals::C32(y)) => sel!(x, y, C32),
        (Vals::C64(x), Vals::C64(y)) => sel!(x, y, C64),
        _ => unreachable!("select branches of different classes"),
    }
}

fn cast(v: &Vals, to: DType) -> Vals {
    match (v, to.class()) {
        (Vals::F32(x), Class::F32) => Vals::F32(x.clone()),
        (Vals::F32(x), Class::F64) => map1!(x, F64, |x: f32| x as f64),
        (Vals::F64(x), Class::F32) => map1!(x, F32, |x: f64| x as f32),
        (Vals::I64(x), Class::F32) => map1!(x, F32, |x: i64| x as f32),
        (Vals::U64(x), Class::F32) => map1!(x, F32, |x: u64| x as f32),
        _ => Vals::from_scalars(to, (0..v.len()).map(|i| v.get(i).cast(to))),
    }
}

/// An accumulator of one reduction.
#[derive(Clone, Copy, Debug)]
enum Acc {
    F(f64),
    I(i64),
    U(u64),
    C(c64),
    /// Best value so far (as a scalar) and its index.
    Arg(Option<(Scalar, usize)>),
}

fn acc_init(op: ReduceOp, class: Class) -> Acc {
    use ReduceOp::*;
    match (op, class) {
        (ArgMin | ArgMax, _) => Acc::Arg(None),
        (Any, _) => Acc::U(0),
        (All, _) => Acc::U(1),
        (Sum, Class::F32 | Class::F64) => Acc::F(0.0),
        (Prod, Class::F32 | Class::F64) => Acc::F(1.0),
        (Min, Class::F32 | Class::F64) => Acc::F(f64::INFINITY),
        (Max, Class::F32 | Class::F64) => Acc::F(f64::NEG_INFINITY),
        (Sum, Class::C32 | Class::C64) => Acc::C(c64::new(0.0, 0.0)),
        (Prod, Class::C32 | Class::C64) => Acc::C(c64::new(1.0, 0.0)),
        (Sum, Class::I64) => Acc::I(0),
        (Prod, Class::I64) => Acc::I(1),
        (Min, Class::I64) => Acc::I(i64::MAX),
        (Max, Class::I64) => Acc::I(i64::MIN),
        (Sum, Class::U64) => Acc::U(0),
        (Prod, Class::U64) => Acc::U(1),
        (Min, Class::U64) => Acc::U(u64::MAX),
        (Max, Class::U64) => Acc::U(0),
        (o, c) => unreachable!("{o:?} on {c:?}"),
    }
}

fn scalar_lt(a: Scalar, b: Scalar) -> bool {
    match (a, b) {
        (Scalar::F32(x), Scalar::F32(y)) => x < y,
        (Scalar::F64(x), Scalar::F64(y)) => x < y,
        (Scalar::I64(x), Scalar::I64(y)) => x < y,
        (Scalar::U64(x), Scalar::U64(y)) => x < y,
        _ => false,
    }
}

fn scalar_nan(a: Scalar) -> bool {
    match a {
        Scalar::F32(x) => x.is_nan(),
        Scalar::F64(x) => x.is_nan(),
        _ => false,
    }
}

/// Whether candidate `(v, i)` beats the current best `(b, j)` for argmin (`min`) / argmax.
fn arg_better(min: bool, v: Scalar, i: usize, b: Scalar, j: usize) -> bool {
    let (vn, bn) = (scalar_nan(v), scalar_nan(b));
    if bn {
        return vn && i < j;
    }
    if vn {
        return true;
    }
    let better = if min {
        scalar_lt(v, b)
    } else {
        scalar_lt(b, v)
    };
    better || (!scalar_lt(v, b) && !scalar_lt(b, v) && i < j)
}

fn combine(op: ReduceOp, a: Acc, b: Acc) -> Acc {
    use ReduceOp::*;
    match (op, a, b) {
        (Sum, Acc::F(x), Acc::F(y)) => Acc::F(x + y),
        (Prod, Acc::F(x), Acc::F(y)) => Acc::F(x * y),
        (Min, Acc::F(x), Acc::F(y)) => Acc::F(fmin(x, y, f64::is_nan)),
        (Max, Acc::F(x), Acc::F(y)) => Acc::F(fmax(x, y, f64::is_nan)),
        (Sum, Acc::C(x), Acc::C(y)) => Acc::C(x + y),
        (Prod, Acc::C(x), Acc::C(y)) => Acc::C(c64::new(
            x.re * y.re - x.im * y.im,
            x.re * y.im + x.im * y.re,
        )),
        (Sum, Acc::I(x), Acc::I(y)) => Acc::I(x.wrapping_add(y)),
        (Prod, Acc::I(x), Acc::I(y)) => Acc::I(x.wrapping_mul(y)),
        (Min, Acc::I(x), Acc::I(y)) => Acc::I(x.min(y)),
        (Max, Acc::I(x), Acc::I(y)) => Acc::I(x.max(y)),
        (Sum, Acc::U(x), Acc::U(y)) => Acc::U(x.wrapping_add(y)),
        (Prod, Acc::U(x), Acc::U(y)) => Acc::U(x.wrapping_mul(y)),
        (Min, Acc::U(x), Acc::U(y)) => Acc::U(x.min(y)),
        (Max, Acc::U(x), Acc::U(y)) => Acc::U(x.max(y)),
        (Any, Acc::U(x), Acc::U(y)) => Acc::U(((x | y) != 0) as u64),
        (All, Acc::U(x), Acc::U(y)) => Acc::U(((x != 0) && (y != 0)) as u64),
        (ArgMin | ArgMax, Acc::Arg(x), Acc::Arg(y)) => match (x, y) {
            (None, y) => Acc::Arg(y),
            (x, None) => Acc::Arg(x),
            (Some((v, i)), Some((w, j))) => {
                if arg_better(op == ArgMin, w, j, v, i) {
                    Acc::Arg(Some((w, j)))
                } else {
                    Acc::Arg(Some((v, i)))
                }
            }
        },
        (o, a, b) => unreachable!("combine {o:?} {a:?} {b:?}"),
    }
}

/// Folds a chunk of values (whose first element has reduction index `base`) into `acc`.
fn fold(op: ReduceOp, mut acc: Acc, v: &Vals, base: usize) -> Acc {
    use ReduceOp::*;
    match (op, &mut acc) {
        (ArgMin | ArgMax, _) => {
            for i in 0..v.len() {
                acc = combine(op, acc, Acc::Arg(Some((v.get(i), base + i))));
            }
            acc
        }
        (Any | All, _) => {
            let f = |s: Scalar| Acc::U(!s.is_zero() as u64);
            for i in 0..v.len() {
                acc = combine(op, acc, f(v.get(i)));
            }
            acc
        }
        (_, Acc::F(a)) => {
            let mut x = *a;
            match (op, v) {
                (Sum, Vals::F32(v)) => x += v.iter().map(|&y| y as f64).sum::<f64>(),
                (Sum, Vals::F64(v)) => x += v.iter().sum::<f64>(),
                (Prod, Vals::F32(v)) => v.iter().for_each(|&y| x *= y as f64),
                (Prod, Vals::F64(v)) => v.iter().for_each(|&y| x *= y),
                (Min, Vals::F32(v)) => v.iter().for_each(|&y| x = fmin(x, y as f64, f64::is_nan)),
                (Min, Vals::F64(v)) => v.iter().for_each(|&y| x = fmin(x, y, f64::is_nan)),
                (Max, Vals::F32(v)) => v.iter().for_each(|&y| x = fmax(x, y as f64, f64::is_nan)),
                (Max, Vals::F64(v)) => v.iter().for_each(|&y| x = fmax(x, y, f64::is_nan)),
                _ => unreachable!(),
            }
            Acc::F(x)
        }
        (_, _) => {
            for i in 0..v.len() {
                let e = match (v.get(i), acc) {
                    (Scalar::I64(y), Acc::I(_)) => Acc::I(y),
                    (Scalar::U64(y), Acc::U(_)) => Acc::U(y),
                    (Scalar::C32(y), Acc::C(_)) => Acc::C(c64::new(y.re as f64, y.im as f64)),
                    (Scalar::C64(y), Acc::C(_)) => Acc::C(y),
                    (s, a) => unreachable!("fold {s:?} into {a:?}"),
                };
                acc = combine(op, acc, e);
            }
            acc
        }
    }
}

fn acc_scalar(op: ReduceOp, acc: Acc, src: DType, out: DType) -> Scalar {
    let s = match acc {
        Acc::F(x) => {
            if src.class() == Class::F32 {
                Scalar::F32(x as f32)
            } else {
                Scalar::F64(x)
            }
        }
        Acc::I(x) => Scalar::I64(x),
        Acc::U(x) => Scalar::U64(x),
        Acc::C(z) => {
            if src == DType::C32 {
                Scalar::C32(c32::new(z.re as f32, z.im as f32))
            } else {
                Scalar::C64(z)
            }
        }
        Acc::Arg(a) => Scalar::I64(a.map(|(_, i)| i as i64).unwrap_or(0)),
    };
    let _ = op;
    s.cast(out)
}

/// Reduces the one output of `prog` (shape `[outer.., inner..]` flattened as `outer x inner`)
/// along its last `inner` elements per row, giving `outer` values of `out`.
pub(crate) fn reduce(
    prog: &Program,
    op: ReduceOp,
    outer: usize,
    inner: usize,
    out: DType,
) -> HostBuf {
    let src = prog.instrs[prog.outputs[0]].dtype;
    let class = src.class();
    let row = |o: usize, lo: usize, hi: usize| -> Acc {
        let mut acc = acc_init(op, class);
        let mut i = lo;
        while i < hi {
            let len = CHUNK.min(hi - i);
            let v = run_chunk(prog, o * inner + i, len);
            acc = fold(op, acc, &v[0], i);
            i += len;
        }
        acc
    };
    let accs: Vec<Acc> = if outer >= rayon::current_num_threads() * 2 || inner <= CHUNK {
        (0..outer)
            .into_par_iter()
            .map(|o| row(o, 0, inner))
            .collect()
    } else {
        (0..outer)
            .map(|o| {
                let parts: Vec<Acc> = (0..inner.div_ceil(CHUNK * 4))
                    .into_par_iter()
                    .map(|c| row(o, c * CHUNK * 4, ((c + 1) * CHUNK * 4).min(inner)))
                    .collect();
                parts
                    .into_iter()
                    .fold(acc_init(op, class), |a, b| combine(op, a, b))
            })
            .collect()
    };
    let vals = Vals::from_scalars(out, accs.iter().map(|a| acc_scalar(op, *a, src, out)));
    let mut buf = HostBuf::zeroed(out, outer);
    let p = buf.bytes_mut().as_mut_ptr();
    // SAFETY: the buffer holds `outer` elements of `out`, written once each, on this thread.
    unsafe { store(p, out, 0..outer, &vals) };
    buf
}
