//! Scans and compactions on the CPU backend, reading their input through the fused program
//! chunk by chunk (no intermediate array): a rayon parallel prefix in three phases (block
//! aggregates, a serial scan of the aggregates, each block rescanned from its carry).
//!
//! Values are scanned in their compute class (`f32` for `f16`/`bf16`/`f32`, `f64`, `i64` for
//! signed integers, `u64` for unsigned integers and `bool`) with the operators the CUDA kernels
//! use, so integer results are the same bit for bit on both backends; float sums and products
//! differ only by association.

use crate::backend::cpu::{Vals, run_chunk};
use crate::codegen::ScanKind;
use crate::dtype::DType;
use crate::graph::Program;
use half::{bf16, f16};
use rayon::prelude::*;

/// Rows of a line per parallel block: about this many elements per block.
const BLOCK_ELEMS: usize = 1 << 16;

/// A compute class the CPU scans in.
pub(super) trait Acc: Copy + Send + Sync + PartialEq + PartialOrd + 'static {
    /// The values of a chunk of this class.
    fn take(v: Vals) -> Vec<Self>;
    fn op(k: ScanKind, a: Self, b: Self) -> Self;
    /// The identity of `k` on the dtype `d` (its extreme values for max and min).
    fn identity(k: ScanKind, d: DType) -> Self;
    /// Writes `src` as elements of `d` into `dst`.
    fn store(d: DType, src: &[Self], dst: &mut [u8]);
}

/// Max and min keep the first NaN, then the earlier operand on ties (`pick_b`: `b` wins).
fn first_nan<T: PartialOrd + Copy>(a: T, b: T, pick_b: bool) -> T {
    let nan = |x: T| x.partial_cmp(&x).is_none();
    if nan(a) {
        a
    } else if nan(b) || pick_b {
        b
    } else {
        a
    }
}

macro_rules! float_acc {
    ($t:ty, $v:ident) => {
        impl Acc for $t {
            fn take(v: Vals) -> Vec<Self> {
                match v {
                    Vals::$v(x) => x,
                    _ => unreachable!("a chunk of another class read as {}", stringify!($t)),
                }
            }
            fn op(k: ScanKind, a: Self, b: Self) -> Self {
                match k {
                    ScanKind::Sum => a + b,
                    ScanKind::Prod => a * b,
                    ScanKind::Max => first_nan(a, b, b > a || (b == a && b.is_sign_positive())),
                    ScanKind::Min => first_nan(a, b, b < a || (b == a && b.is_sign_negative())),
                }
            }
            fn identity(k: ScanKind, _: DType) -> Self {
                match k {
                    ScanKind::Sum => 0.0,
                    ScanKind::Prod => 1.0,
                    ScanKind::Max => <$t>::NEG_INFINITY,
                    ScanKind::Min => <$t>::INFINITY,
                }
            }
            fn store(d: DType, src: &[Self], dst: &mut [u8]) {
                store_float(d, src.iter().map(|&x| x as f64), src.len(), dst)
            }
        }
    };
}
float_acc!(f32, F32);
float_acc!(f64, F64);

fn store_float(d: DType, it: impl Iterator<Item = f64>, n: usize, dst: &mut [u8]) {
    match d {
        DType::F32 => {
            let o: &mut [f32] = bytemuck::cast_slice_mut(&mut dst[..n * 4]);
            o.iter_mut().zip(it).for_each(|(o, x)| *o = x as f32);
        }
        DType::F64 => {
            let o: &mut [f64] = bytemuck::cast_slice_mut(&mut dst[..n * 8]);
            o.iter_mut().zip(it).for_each(|(o, x)| *o = x);
        }
        DType::F16 => {
            let o: &mut [f16] = bytemuck::cast_slice_mut(&mut dst[..n * 2]);
            o.iter_mut()
                .zip(it)
                .for_each(|(o, x)| *o = f16::from_f32(x as f32));
        }
        DType::BF16 => {
            let o: &mut [bf16] = bytemuck::cast_slice_mut(&mut dst[..n * 2]);
            o.iter_mut()
                .zip(it)
                .for_each(|(o, x)| *o = bf16::from_f32(x as f32));
        }
        d => unreachable!("float values stored as {d}"),
    }
}

macro_rules! store_ints {
    ($d:expr, $src:expr, $dst:expr, $($dt:ident => $t:ty),*) => {
        match $d {
            $(DType::$dt => {
                let n = $src.len();
                let o: &mut [$t] = bytemuck::cast_slice_mut(&mut $dst[..n * std::mem::size_of::<$t>()]);
                o.iter_mut().zip($src).for_each(|(o, &x)| *o = x as $t);
            })*
            DType::Bool => {
                $dst[..$src.len()].iter_mut().zip($src).for_each(|(o, &x)| *o = (x != 0) as u8);
            }
            d => unreachable!("integer values stored as {d}"),
        }
    };
}

impl Acc for i64 {
    fn take(v: Vals) -> Vec<Self> {
        match v {
            Vals::I64(x) => x,
            _ => unreachable!("a chunk of another class read as i64"),
        }
    }
    fn op(k: ScanKind, a: Self, b: Self) -> Self {
        match k {
            ScanKind::Sum => a.wrapping_add(b),
            ScanKind::Prod => a.wrapping_mul(b),
            ScanKind::Max => {
                if b > a {
                    b
                } else {
                    a
                }
            }
            ScanKind::Min => {
                if b < a {
                    b
                } else {
                    a
                }
            }
        }
    }
    fn identity(k: ScanKind, d: DType) -> Self {
        let bits = d.bits();
        match k {
            ScanKind::Sum => 0,
            ScanKind::Prod => 1,
            ScanKind::Max => i64::MIN >> (64 - bits),
            ScanKind::Min => i64::MAX >> (64 - bits),
        }
    }
    fn store(d: DType, src: &[Self], dst: &mut [u8]) {
        store_ints!(d, src, dst, I8 => i8, I16 => i16, I32 => i32, I64 => i64)
    }
}

impl Acc for u64 {
    fn take(v: Vals) -> Vec<Self> {
        match v {
            Vals::U64(x) => x,
            _ => unreachable!("a chunk of another class read as u64"),
        }
    }
    fn op(k: ScanKind, a: Self, b: Self) -> Self {
        match k {
            ScanKind::Sum => a.wrapping_add(b),
            ScanKind::Prod => a.wrapping_mul(b),
            ScanKind::Max => a.max(b),
            ScanKind::Min => a.min(b),
        }
    }
    fn identity(k: ScanKind, d: DType) -> Self {
        match k {
            ScanKind::Sum | ScanKind::Max => 0,
            ScanKind::Prod => 1,
            ScanKind::Min if d == DType::Bool => 1,
            ScanKind::Min => u64::MAX >> (64 - d.bits()),
        }
    }
    fn store(d: DType, src: &[Self], dst: &mut [u8]) {
        store_ints!(d, src, dst, U8 => u8, U16 => u16, U32 => u32, U64 => u64)
    }
}

/// Whether each key starts a segment: `keys[r * inner + j] != keys[(r - 1) * inner + j]`,
/// for rows `r` from 1 (row 0 of `keys` is the row before the first one asked for).
fn key_changes(keys: &Vals, inner: usize) -> Vec<bool> {
    macro_rules! changes {
        ($k:expr) => {{
            let k = $k;
            (inner..k.len()).map(|i| k[i] != k[i - inner]).collect()
        }};
    }
    match keys {
        Vals::F32(k) => changes!(k),
        Vals::F64(k) => changes!(k),
        Vals::I64(k) => changes!(k),
        Vals::U64(k) => changes!(k),
        Vals::C32(k) => changes!(k),
        Vals::C64(k) => changes!(k),
    }
}

/// One unit of parallel work: rows `r0..r1` of plane `o`.
#[derive(Clone, Copy)]
struct Unit {
    o: usize,
    r0: usize,
    r1: usize,
}

/// The scan of program output 0 (values of class `A`, dtype `out`) along lines of `n`
/// elements `inner` apart (the program's shape viewed as `outer x n x inner`), into `dst`.
/// With `keyed`, output 1 holds keys and a segment restarts where the key changes.
#[allow(clippy::too_many_arguments)]
pub(super) fn scan<A: Acc>(
    prog: &Program,
    k: ScanKind,
    exclusive: bool,
    keyed: bool,
    out: DType,
    (outer, n, inner): (usize, usize, usize),
    dst: &mut [u8],
) {
    if outer == 0 || n == 0 || inner == 0 {
        return;
    }
    let rows = (BLOCK_ELEMS / inner).max(1);
    let units: Vec<Unit> = (0..outer)
        .flat_map(|o| {
            (0..n.div_ceil(rows)).map(move |b| Unit {
                o,
                r0: b * rows,
                r1: ((b + 1) * rows).min(n),
            })
        })
        .collect();
    let ident = A::identity(k, out);
    // Values of a unit (and segment starts when keyed).
    let fetch = |u: Unit| -> (Vec<A>, Vec<bool>) {
        let start = (u.o * n + u.r0) * inner;
        let len = (u.r1 - u.r0) * inner;
        if !keyed {
            let v = run_chunk(prog, start, len).swap_remove(0);
            let mut fl = vec![false; 0];
            if u.r0 == 0 {
                fl = vec![false; len];
                fl[..inner].iter_mut().for_each(|f| *f = true);
            }
            return (A::take(v), fl);
        }
        let back = if u.r0 == 0 { 0 } else { inner };
        let mut outs = run_chunk(prog, start - back, len + back);
        let keys = outs.pop().expect("keys");
        let vals = A::take(outs.swap_remove(0));
        let mut fl = if back == 0 {
            let mut f = vec![true; inner];
            f.extend(key_changes(&keys, inner));
            f
        } else {
            key_changes(&keys, inner)
        };
        fl.truncate(len);
        (vals[back..].to_vec(), fl)
    };
    // Phase 1: per unit and column, (segment started, aggregate).
    let aggs: Vec<Vec<(bool, A)>> = units
        .par_iter()
        .map(|&u| {
            let (v, fl) = fetch(u);
            let mut agg = vec![(false, ident); inner];
            for (i, x) in v.iter().enumerate() {
                let a = &mut agg[i % inner];
                if fl.get(i).copied().unwrap_or(false) {
                    *a = (true, *x);
                } else {
                    a.1 = A::op(k, a.1, *x);
                }
            }
            agg
        })
        .collect();
    // Phase 2: the carry into each unit (serial over the units of a plane).
    let mut carries: Vec<Vec<A>> = Vec::with_capacity(units.len());
    let mut run = vec![ident; inner];
    for (u, agg) in units.iter().zip(&aggs) {
        if u.r0 == 0 {
            run.iter_mut().for_each(|r| *r = ident);
        }
        carries.push(run.clone());
        for (r, &(started, a)) in run.iter_mut().zip(agg) {
            *r = if started { a } else { A::op(k, *r, a) };
        }
    }
    // Phase 3: each unit rescanned from its carry, written into its own slice of `dst`.
    let size = out.size();
    let mut slices: Vec<&mut [u8]> = Vec::with_capacity(units.len());
    let mut rest = dst;
    for u in &units {
        let (head, tail) = rest.split_at_mut((u.r1 - u.r0) * inner * size);
        slices.push(head);
        rest = tail;
    }
    units
        .par_iter()
        .zip(carries.par_iter())
        .zip(slices.into_par_iter())
        .for_each(|((&u, carry), dst)| {
            let (v, fl) = fetch(u);
            let mut acc = carry.clone();
            let mut res = Vec::with_capacity(v.len());
            for (i, x) in v.iter().enumerate() {
                let a = &mut acc[i % inner];
                let start = fl.get(i).copied().unwrap_or(false);
                let before = if start { ident } else { *a };
                *a = if start { *x } else { A::op(k, *a, *x) };
                res.push(if exclusive { before } else { *a });
            }
            A::store(out, &res, dst);
        });
}

/// Flags (program output 0, nonzero) of `[start, start + len)`.
fn flags(v: &Vals) -> Vec<bool> {
    match v {
        Vals::F32(x) => x.iter().map(|&x| x != 0.0).collect(),
        Vals::F64(x) => x.iter().map(|&x| x != 0.0).collect(),
        Vals::I64(x) => x.iter().map(|&x| x != 0).collect(),
        Vals::U64(x) => x.iter().map(|&x| x != 0).collect(),
        Vals::C32(x) => x.iter().map(|&x| x.re != 0.0 || x.im != 0.0).collect(),
        Vals::C64(x) => x.iter().map(|&x| x.re != 0.0 || x.im != 0.0).collect(),
    }
}

/// Compaction of the `numel` elements of `prog`: where output 0 is set, writes output 1 (of
/// class `A`, dtype `out`) when `values`, else the element's coordinates (`i64`, one row per
/// element), in order. `dst` holds exactly the kept elements' rows.
pub(super) fn compact<A: Acc>(prog: &Program, values: bool, out: DType, dst: &mut [u8]) {
    let total = crate::shape::numel(&prog.shape);
    let shape = prog.shape.clone();
    let nd = shape.len();
    let blocks = total.div_ceil(BLOCK_ELEMS);
    let counts: Vec<usize> = (0..blocks)
        .into_par_iter()
        .map(|b| {
            let len = BLOCK_ELEMS.min(total - b * BLOCK_ELEMS);
            let o = run_chunk(prog, b * BLOCK_ELEMS, len);
            flags(&o[0]).iter().filter(|&&f| f).count()
        })
        .collect();
    let row = if values { out.size() } else { 8 * nd };
    let mut slices: Vec<&mut [u8]> = Vec::with_capacity(blocks);
    let mut rest = dst;
    for &c in &counts {
        let (head, tail) = rest.split_at_mut(c * row);
        slices.push(head);
        rest = tail;
    }
    slices.into_par_iter().enumerate().for_each(|(b, dst)| {
        let start = b * BLOCK_ELEMS;
        let len = BLOCK_ELEMS.min(total - start);
        let mut o = run_chunk(prog, start, len);
        let f = flags(&o[0]);
        if values {
            let v = A::take(o.swap_remove(1));
            let kept: Vec<A> = v
                .into_iter()
                .zip(&f)
                .filter_map(|(x, &f)| f.then_some(x))
                .collect();
            A::store(out, &kept, dst);
        } else {
            let coords: &mut [i64] = bytemuck::cast_slice_mut(dst);
            let mut at = 0;
            for (i, &f) in f.iter().enumerate() {
                if !f {
                    continue;
                }
                let mut rem = start + i;
                for d in (0..nd).rev() {
                    coords[at + d] = (rem % shape[d]) as i64;
                    rem /= shape[d];
                }
                at += nd;
            }
        }
    });
}
