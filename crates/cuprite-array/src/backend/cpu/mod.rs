//! The CPU backend: host buffers, and a fused evaluator of [`Program`]s.
//!
//! A program is executed in chunks of [`CHUNK`] elements, in parallel over chunks with rayon:
//! every instruction of the fused graph runs over one chunk (which stays in cache) before the
//! next chunk is started, so the whole expression is one pass over memory, not one per
//! operation. This module is also the reference the GPU backend is checked against.

use super::contract::{Executor, FlagWord, LibraryInput};
use crate::device::Device;
use crate::dtype::{Class, DType, Scalar, c32, c64};
use crate::error::{Error, Result};
use crate::graph::{CallInput, FusedCall, LibraryCall};
use crate::graph::{Dist, Input, Program, Step};
use crate::op::ReduceOp;
use crate::random;
use crate::storage::{HostBuf, Storage};
use std::sync::Arc;

mod elementwise;
mod mathx;
mod reduce;
mod values;

pub(crate) use values::Vals;

use crate::shape::{Layout, numel};
pub(crate) use elementwise::{binary, unary};
use elementwise::{cast, select};
use half::{bf16, f16};
use rayon::prelude::*;
pub(crate) use reduce::reduce;

/// The CPU backend.
pub(crate) struct Cpu;

impl Executor for Cpu {
    fn upload(&self, _: Device, dtype: DType, len: usize, bytes: &[u8]) -> Result<Arc<Storage>> {
        Ok(Arc::new(Storage::Host(HostBuf::from_bytes(
            dtype, len, bytes,
        )?)))
    }

    fn flag_word(&self, device: Device) -> Result<FlagWord> {
        let storage = self.upload(device, DType::U32, 1, &[0; 4])?;
        if let Storage::Host(h) = &*storage {
            // A record left by an earlier flag at the same address.
            flags::take(h);
        }
        Ok(FlagWord {
            storage,
            mapped: None,
        })
    }

    fn flag_raised(&self, flag: &FlagWord) -> Result<bool> {
        match &*flag.storage {
            Storage::Host(h) => Ok(flags::take(h)),
            Storage::Cuda(_) => Err(Error::DeviceMismatch(
                "the CPU backend was asked to read a flag in CUDA memory".into(),
            )),
        }
    }

    fn download(&self, s: &Storage) -> Result<Vec<u8>> {
        match s {
            Storage::Host(h) => Ok(h.bytes().to_vec()),
            Storage::Cuda(_) => Err(Error::DeviceMismatch(
                "the CPU backend was asked to read CUDA memory".into(),
            )),
        }
    }

    fn eval(&self, _: Device, prog: &Program) -> Result<Vec<Arc<Storage>>> {
        Ok(eval(prog)?
            .into_iter()
            .map(|b| Arc::new(Storage::Host(b)))
            .collect())
    }

    fn eval_one(&self, device: Device, prog: &Program) -> Result<Arc<Storage>> {
        self.eval(device, prog)?
            .pop()
            .ok_or_else(|| Error::InvalidArgument("a program without output".into()))
    }

    fn eval_into_views(
        &self,
        _: Device,
        dtype: DType,
        len: usize,
        pieces: &[(Program, Layout)],
    ) -> Result<Arc<Storage>> {
        let mut buf = HostBuf::zeroed(dtype, len)?;
        for (p, l) in pieces {
            eval_into_view(p, &mut buf, l)?;
        }
        Ok(Arc::new(Storage::Host(buf)))
    }

    fn reduce(
        &self,
        _: Device,
        prog: &Program,
        op: ReduceOp,
        outer: usize,
        inner: usize,
        out: DType,
    ) -> Result<Arc<Storage>> {
        crate::stats::note_reduction_pass();
        Ok(Arc::new(Storage::Host(reduce(
            prog, op, outer, inner, out,
        )?)))
    }

    fn library(
        &self,
        _: Device,
        call: &dyn LibraryCall,
        inputs: &[LibraryInput],
        out: DType,
        len: usize,
    ) -> Result<Arc<Storage>> {
        let mut ins = Vec::with_capacity(inputs.len());
        for i in inputs {
            let Storage::Host(buf) = &*i.storage else {
                return Err(Error::DeviceMismatch(format!(
                    "an input of {} lives on CUDA, the call runs on the CPU",
                    call.name()
                )));
            };
            ins.push(CallInput {
                buf,
                layout: &i.layout,
                shape: &i.shape,
                dtype: i.dtype,
            });
        }
        let mut buf = HostBuf::zeroed(out, len)?;
        call.run_cpu(&ins, &mut buf)?;
        Ok(Arc::new(Storage::Host(buf)))
    }

    fn library_fused(
        &self,
        _: Device,
        call: &dyn FusedCall,
        prog: &Program,
        rest: &[LibraryInput],
        out: DType,
        len: usize,
    ) -> Result<Arc<Storage>> {
        let mut ins = Vec::with_capacity(rest.len());
        for i in rest {
            let Storage::Host(buf) = &*i.storage else {
                return Err(Error::DeviceMismatch(format!(
                    "an input of {} lives on CUDA, the call runs on the CPU",
                    call.name()
                )));
            };
            ins.push(CallInput {
                buf,
                layout: &i.layout,
                shape: &i.shape,
                dtype: i.dtype,
            });
        }
        if prog
            .inputs
            .iter()
            .any(|i| !matches!(&*i.storage, Storage::Host(_)))
        {
            return Err(Error::DeviceMismatch(format!(
                "an input of {} lives on CUDA, the call runs on the CPU",
                call.name()
            )));
        }
        let mut buf = HostBuf::zeroed(out, len)?;
        call.run_cpu_fused(prog, &ins, &mut buf)?;
        Ok(Arc::new(Storage::Host(buf)))
    }

    fn sync(&self, _: Device) -> Result<()> {
        Ok(())
    }

    fn mem_info(&self, _: Device) -> Result<(usize, usize)> {
        Ok((0, 0))
    }

    fn gc(&self, _: Device) -> Result<()> {
        crate::storage::release_kept_host();
        Ok(())
    }
}

/// Elements per chunk of the fused evaluator.
pub(crate) const CHUNK: usize = 2048;

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
    let crate::storage::Storage::Host(h) = &*input.storage else {
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
    let crate::storage::Storage::Host(h) = &*input.storage else {
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

/// The checked indices of `idx` into an axis of `n[0]` elements (see `Op::CheckIndex`); any
/// index out of range reads as 0 and raises the program's flag (`flags`).
fn check_index(flag: &Input, idx: &Vals, n: &Vals, signed: bool) -> Vals {
    let (Vals::I64(v), Vals::I64(nv)) = (idx, n) else {
        unreachable!("checked indices and their extent are i64")
    };
    let n = nv.first().copied().unwrap_or(0);
    let mut bad = false;
    let out = v
        .iter()
        .map(|&x| {
            let w = if signed && x < 0 { x + n } else { x };
            if (0..n).contains(&w) {
                w
            } else {
                bad = true;
                0
            }
        })
        .collect();
    if bad {
        if let crate::storage::Storage::Host(h) = &*flag.storage {
            flags::raise(h);
        }
    }
    Vals::I64(out)
}

/// The index-check flags of host programs: host buffers are immutable once shared, so a
/// program or call raising a flag (`Step::Check`, a checked scatter) records the flag's buffer
/// here instead of writing it, and the caller takes the record after realising.
pub(crate) mod flags {
    use crate::storage::HostBuf;
    use std::sync::Mutex;

    static RAISED: Mutex<Vec<usize>> = Mutex::new(Vec::new());

    fn key(s: &HostBuf) -> usize {
        s as *const HostBuf as usize
    }

    /// Records that a program raised the flag `s`.
    pub(crate) fn raise(s: &HostBuf) {
        let mut g = RAISED.lock().unwrap_or_else(|e| e.into_inner());
        if !g.contains(&key(s)) {
            g.push(key(s));
        }
    }

    /// Whether `s` was raised since the last call (the record is cleared). Called once on a
    /// new flag too, so that a record left by a dropped flag at the same address is gone.
    pub(crate) fn take(s: &HostBuf) -> bool {
        let mut g = RAISED.lock().unwrap_or_else(|e| e.into_inner());
        match g.iter().position(|&k| k == key(s)) {
            Some(i) => {
                g.swap_remove(i);
                true
            }
            None => false,
        }
    }
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
            Step::Load(i) => load(&prog.inputs[i], &prog.shape, start, len, &mut scratch),
            Step::Const(c) => Vals::splat(prog.consts[c], len),
            Step::Unary(op, a) => unary(op, prog.instrs[a].dtype, get(a)),
            Step::Binary(op, a, b) => binary(op, prog.instrs[a].dtype, get(a), get(b)),
            Step::Select(c, a, b) => select(get(c), get(a), get(b)),
            Step::Cast(a) => cast(get(a), ins.dtype),
            Step::Gather(i, idx) => gather(&prog.inputs[i], get(idx)),
            Step::Check(f, idx, n, signed) => {
                check_index(&prog.inputs[f], get(idx), get(n), signed)
            }
            Step::Iota(axis) => iota(&prog.shape, axis, start, len),
            Step::Rand(key, dist) => {
                let Scalar::U64(k) = prog.consts[key] else {
                    unreachable!()
                };
                rand(k, dist, ins.dtype, start, len)
            }
            Step::RandKeyed(key, dist) => rand_keyed(get(key), dist, ins.dtype, start),
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

/// Random numbers at indices `start..` keyed per index by `keys` (u64 values; the key of each
/// index as the CUDA kernel reads it).
fn rand_keyed(keys: &Vals, dist: Dist, d: DType, start: usize) -> Vals {
    let keys: Vec<u64> = match keys {
        Vals::U64(k) => k.clone(),
        Vals::I64(k) => k.iter().map(|&x| x as u64).collect(),
        other => (0..other.len()).map(|_| 0).collect(),
    };
    let at = |j: usize| (start + j) as u64;
    match d.class() {
        Class::F64 => Vals::F64(
            keys.iter()
                .enumerate()
                .map(|(j, &k)| random::sample_f64(k, at(j), dist))
                .collect(),
        ),
        _ => Vals::F32(
            keys.iter()
                .enumerate()
                .map(|(j, &k)| random::sample_f32(k, at(j), dist))
                .collect(),
        ),
    }
}

/// Evaluates `prog` into fresh contiguous host buffers, one per output.
pub(crate) fn eval(prog: &Program) -> Result<Vec<HostBuf>> {
    let n = numel(&prog.shape);
    let mut outs: Vec<HostBuf> = prog
        .outputs
        .iter()
        .map(|&o| HostBuf::zeroed(prog.instrs[o].dtype, n))
        .collect::<Result<_>>()?;
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
    Ok(outs)
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
pub(crate) fn eval_into_view(prog: &Program, dst: &mut HostBuf, layout: &Layout) -> Result<()> {
    if numel(&prog.shape) == 0 {
        return Ok(());
    }
    let (lo, hi) = layout.extent(&prog.shape);
    if lo < 0 || hi as usize >= dst.len() {
        return Err(Error::InvalidArgument(format!(
            "a view reaching elements {lo}..={hi} of a buffer of {}",
            dst.len()
        )));
    }
    let p = SendPtr(dst.bytes_mut().as_mut_ptr());
    // SAFETY: the extent was checked against the buffer; views made by the array layer are
    // non-overlapping (slices of a fresh buffer).
    unsafe { eval_into(prog, &[p], std::slice::from_ref(layout)) };
    Ok(())
}
