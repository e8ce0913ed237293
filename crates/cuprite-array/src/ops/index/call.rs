//! The scatter library call: `out = base` with updates `values[u]` written to, added to or
//! max/min-ed into `out[dest(u)]`, on rayon-free sequential CPU loops (the reference order)
//! and on CUDA atomics (see [`super::cuda`] for the kernels, `gpu.rs` for their launches).
//!
//! Updates are laid out as `outer x K x inner` (`m` of them), the destination as
//! `outer x N x inner`: update `(o, j, i)` goes to `(o, t, i)` with `t` the index read at `u`
//! (or at `j` for a 1-D index, `index_add`), normalised by the call's [`IndexMode`]; indices
//! still outside `[0, N)` are skipped (the API validated them in the `Error` mode, so this only
//! guards memory safety, and marks the "no slot" `-1` that compaction uses).

use super::IndexMode;
pub(super) use super::desc::{Reduce, ScatterCall};
use crate::dtype::DType;
use crate::error::{Error, Result};
use crate::exec::CudaLane;
use crate::graph::{CallInput, LibraryCall};
use crate::storage::{DevBuf, HostBuf};
use crate::util::KeyHasher;
use std::hash::{Hash, Hasher};

/// `ceil(log2(c))`, 0 for `c <= 1`.
fn ceil_log2(c: u64) -> i32 {
    if c <= 1 {
        0
    } else {
        64 - (c - 1).leading_zeros() as i32
    }
}

fn pow2(e: i32) -> f64 {
    f64::from_bits(((e + 1023) as u64) << 52)
}

/// The float dtypes of the fixed-point sum, with the exact operations the kernels do.
trait Fx: Copy {
    const INF: u64;
    const F64: bool;
    fn mag(self) -> u64;
    fn bound(m: u64) -> i32;
    fn wide(self) -> f64;
    fn positive(self) -> bool;
    fn plus(self, y: f64) -> Self;
    fn nan() -> Self;
}

impl Fx for f32 {
    const INF: u64 = 0x7f80_0000;
    const F64: bool = false;
    fn mag(self) -> u64 {
        (self.to_bits() & 0x7fff_ffff) as u64
    }
    fn bound(m: u64) -> i32 {
        let ex = (m >> 23) as i32;
        if ex == 0 { -126 } else { ex - 126 }
    }
    fn wide(self) -> f64 {
        self as f64
    }
    fn positive(self) -> bool {
        self > 0.0
    }
    fn plus(self, y: f64) -> f32 {
        self + y as f32
    }
    fn nan() -> f32 {
        f32::from_bits(0x7fc0_0000)
    }
}

impl Fx for f64 {
    const INF: u64 = 0x7ff0_0000_0000_0000;
    const F64: bool = true;
    fn mag(self) -> u64 {
        self.to_bits() & 0x7fff_ffff_ffff_ffff
    }
    fn bound(m: u64) -> i32 {
        let ex = (m >> 52) as i32;
        if ex == 0 { -1022 } else { ex - 1022 }
    }
    fn wide(self) -> f64 {
        self
    }
    fn positive(self) -> bool {
        self > 0.0
    }
    fn plus(self, y: f64) -> f64 {
        self + y
    }
    fn nan() -> f64 {
        f64::from_bits(0x7ff8_0000_0000_0000)
    }
}

/// The deterministic float sum (the same arithmetic as the CUDA passes, so the same bits):
/// per destination, every finite update is rounded to a multiple of `2^-s`, where `s` leaves
/// `62 - h` bits for the largest magnitude and `h = ceil(log2(count))` bits of headroom (f64:
/// the destination's count; f32: the total update count), and the integers are summed exactly.
fn fixed_sum<F: Fx>(out: &mut [F], dests: &[Option<usize>], vals: &[F]) {
    let n = out.len();
    let (mut mx, mut cnt, mut acc, mut fl) =
        (vec![0u64; n], vec![0u64; n], vec![0u64; n], vec![0u64; n]);
    let hglob = ceil_log2(vals.len() as u64);
    for (d, &x) in dests.iter().zip(vals) {
        let Some(d) = *d else { continue };
        let a = x.mag();
        if a != 0 {
            mx[d] = mx[d].max(a);
        }
        if F::F64 {
            cnt[d] += 1;
        }
    }
    let h = |d: usize| if F::F64 { ceil_log2(cnt[d]) } else { hglob };
    for (d, &x) in dests.iter().zip(vals) {
        let Some(d) = *d else { continue };
        let (a, m) = (x.mag(), mx[d]);
        if m > F::INF {
            continue;
        }
        if a == F::INF {
            fl[d] |= if x.positive() { 1 } else { 2 };
            continue;
        }
        if m == F::INF || a == 0 {
            continue;
        }
        let s = 62 - h(d) - F::bound(m);
        let (s1, s2) = (s / 2, s - s / 2);
        let q = (x.wide() * pow2(s1)) * pow2(s2);
        acc[d] = acc[d].wrapping_add(q.round_ties_even() as i64 as u64);
    }
    for d in 0..n {
        let m = mx[d];
        if m > F::INF {
            out[d] = F::nan();
        } else if m == F::INF {
            match fl[d] {
                3 => out[d] = F::nan(),
                1 => out[d] = out[d].plus(f64::INFINITY),
                2 => out[d] = out[d].plus(f64::NEG_INFINITY),
                _ => {}
            }
        } else if acc[d] != 0 {
            let s = 62 - h(d) - F::bound(m);
            let (s1, s2) = (s / 2, s - s / 2);
            let y = ((acc[d] as i64 as f64) * pow2(-s1)) * pow2(-s2);
            out[d] = out[d].plus(y);
        }
    }
}

/// The binned `f32` sum (see [`ScatterCall::bins`]; the same arithmetic as the CUDA passes,
/// so the same bits): each bin's integer sum is exact, the bins are added in `f64`, lowest
/// first, and the result is rounded once to `f32` and added to the base.
fn binned_sum(out: &mut [f32], dests: &[Option<usize>], vals: &[f32], w: u32, bins: usize) {
    let n = out.len();
    let (mut acc, mut fl) = (vec![0u64; bins * n], vec![0u64; n]);
    for (d, &x) in dests.iter().zip(vals) {
        let Some(d) = *d else { continue };
        let bits = x.to_bits();
        let (neg, a) = (bits >> 31 == 1, bits & 0x7fff_ffff);
        if a >= 0x7f80_0000 {
            fl[d] |= if a > 0x7f80_0000 {
                4
            } else if neg {
                2
            } else {
                1
            };
            continue;
        }
        if a == 0 {
            continue;
        }
        let ex = a >> 23;
        let (sig, e) = if ex == 0 {
            (a as u64, 0)
        } else {
            (((a & 0x7f_ffff) | 0x80_0000) as u64, ex - 1)
        };
        let b = e / w;
        let q = (sig << (e - b * w)) as i64;
        let at = b as usize * n + d;
        acc[at] = acc[at].wrapping_add((if neg { -q } else { q }) as u64);
    }
    for d in 0..n {
        match fl[d] {
            f if f & 4 != 0 || f == 3 => out[d] = f32::from_bits(0x7fc0_0000),
            1 => out[d] += f32::INFINITY,
            2 => out[d] += f32::NEG_INFINITY,
            _ => {
                let mut y = 0.0f64;
                for b in 0..bins {
                    let a = acc[b * n + d] as i64;
                    if a != 0 {
                        y += (a as f64) * pow2((b as u32 * w) as i32 - 149);
                    }
                }
                if y != 0.0 {
                    out[d] += y as f32;
                }
            }
        }
    }
}

/// The ordered key of float bits (`-0 < +0`), as the kernels compare them.
fn key32(b: u32) -> u32 {
    if b >> 31 == 1 { !b } else { b | 0x8000_0000 }
}
fn key64(b: u64) -> u64 {
    if b >> 63 == 1 { !b } else { b | (1 << 63) }
}

impl ScatterCall {
    pub(super) fn m(&self) -> usize {
        self.outer * self.k * self.inner
    }
    pub(super) fn n_out(&self) -> usize {
        self.outer * self.n * self.inner
    }
    pub(super) fn hglob(&self) -> u64 {
        ceil_log2(self.m() as u64) as u64
    }

    /// Where update `u` goes, given its raw index.
    fn dest(&self, u: usize, raw: i64) -> Option<usize> {
        let n = self.n as i64;
        let t = match self.mode {
            IndexMode::Wrap => raw.rem_euclid(n.max(1)),
            IndexMode::Clamp => raw.clamp(0, (n - 1).max(0)),
            IndexMode::Error => {
                if raw < 0 {
                    raw + n
                } else {
                    raw
                }
            }
        };
        if t < 0 || t >= n {
            return None;
        }
        let ki = self.k * self.inner;
        let (o, r) = (u / ki, u % ki);
        let i = r % self.inner;
        Some((o * self.n + t as usize) * self.inner + i)
    }

    fn check<B>(&self, inputs: &[CallInput<'_, B>]) -> Result<()> {
        let (three, flag) = inputs.split_at(inputs.len().min(3));
        let flag_ok = match flag {
            [] => !self.checked,
            [f] => self.checked && f.dtype == DType::U32 && f.shape.iter().product::<usize>() == 1,
            _ => false,
        };
        let ([base, idx, vals], true) = (three, flag_ok) else {
            return Err(Error::InvalidArgument(format!(
                "scatter takes a base, an index and values{}, was given {} inputs",
                if self.checked { " and a flag" } else { "" },
                inputs.len()
            )));
        };
        let want_idx = if self.idx1d { self.k } else { self.m() };
        let ok = base.dtype == self.dtype
            && vals.dtype == self.dtype
            && idx.dtype == self.idx_dtype
            && base.shape.iter().product::<usize>() == self.n_out()
            && vals.shape.iter().product::<usize>() == self.m()
            && idx.shape.iter().product::<usize>() == want_idx;
        if !ok {
            return Err(Error::InvalidArgument(format!(
                "scatter made for {} of {} updates into {} was given {:?}/{:?}/{:?} of {}/{}/{}",
                self.dtype,
                self.m(),
                self.n_out(),
                base.shape,
                idx.shape,
                vals.shape,
                base.dtype,
                idx.dtype,
                vals.dtype
            )));
        }
        Ok(())
    }

    /// Destinations of all updates (CPU).
    fn dests(&self, idx: &CallInput<'_, HostBuf>) -> Vec<Option<usize>> {
        let b = &idx.buf.bytes()[idx.layout.offset * self.idx_dtype.size()..];
        let raw: Vec<i64> = if self.idx_dtype == DType::I32 {
            bytemuck::cast_slice::<u8, i32>(&b[..self.len_idx() * 4])
                .iter()
                .map(|&v| v as i64)
                .collect()
        } else {
            bytemuck::cast_slice::<u8, i64>(&b[..self.len_idx() * 8]).to_vec()
        };
        let ki = self.k * self.inner;
        (0..self.m())
            .map(|u| {
                let at = if self.idx1d { (u % ki) / self.inner } else { u };
                self.dest(u, raw[at])
            })
            .collect()
    }

    pub(super) fn len_idx(&self) -> usize {
        if self.idx1d { self.k } else { self.m() }
    }

    pub(super) fn key(name: &str) -> u64 {
        let mut h = KeyHasher(0x1dec_5ca7);
        "cuprite-index".hash(&mut h);
        name.hash(&mut h);
        h.finish()
    }
}

/// The values of `x` (realised, contiguous) from its layout offset.
fn host_slice<'a, T: bytemuck::Pod>(x: &'a CallInput<'_, HostBuf>, len: usize) -> &'a [T] {
    let size = std::mem::size_of::<T>();
    let b = &x.buf.bytes()[x.layout.offset * size..];
    bytemuck::cast_slice(&b[..len * size])
}

/// Applies `f(out, value)` at each destination, in update order.
fn apply<T: bytemuck::Pod>(
    out: &mut HostBuf,
    dests: &[Option<usize>],
    vals: &[T],
    f: impl Fn(T, T) -> T,
) {
    let o: &mut [T] = bytemuck::cast_slice_mut(out.bytes_mut());
    for (d, &v) in dests.iter().zip(vals) {
        if let Some(d) = *d {
            o[d] = f(o[d], v);
        }
    }
}

/// NaN-propagating max/min by the ordered key (as the kernels).
fn float_pick<B: Copy + PartialOrd, F: Copy>(
    old: F,
    x: F,
    max: bool,
    nan: F,
    is_nan: impl Fn(F) -> bool,
    key: impl Fn(F) -> B,
) -> F {
    if is_nan(x) {
        return nan;
    }
    if is_nan(old) {
        return old;
    }
    let (ko, kx) = (key(old), key(x));
    if (max && kx > ko) || (!max && kx < ko) {
        x
    } else {
        old
    }
}

/// A float accumulation dtype as the CPU updates use it: NaN test and the ordered key of its
/// bits (`-0 < +0`, as the kernels compare).
trait FloatKey: Fx + bytemuck::Pod + std::ops::Add<Output = Self> {
    fn nan_(self) -> bool;
    fn key(self) -> u64;
}

impl FloatKey for f32 {
    fn nan_(self) -> bool {
        self.is_nan()
    }
    fn key(self) -> u64 {
        key32(self.to_bits()) as u64
    }
}

impl FloatKey for f64 {
    fn nan_(self) -> bool {
        self.is_nan()
    }
    fn key(self) -> u64 {
        key64(self.to_bits())
    }
}

impl ScatterCall {
    /// Applies the float updates `v` at `dests` (in update order; deterministic sums by the
    /// kernels' arithmetic).
    fn float_updates<F: FloatKey>(&self, out: &mut HostBuf, dests: &[Option<usize>], v: &[F]) {
        match self.op {
            Reduce::Add if self.det => {
                let o: &mut [F] = bytemuck::cast_slice_mut(out.bytes_mut());
                match self.bins() {
                    // `bins` is `Some` only for `f32` (so `F` is `f32` there).
                    Some((w, bins)) => binned_sum(
                        bytemuck::cast_slice_mut(o),
                        dests,
                        bytemuck::cast_slice(v),
                        w,
                        bins,
                    ),
                    None => fixed_sum(o, dests, v),
                }
            }
            Reduce::Add => apply(out, dests, v, |a: F, b: F| a + b),
            op => {
                let max = op == Reduce::Max;
                apply(out, dests, v, |a: F, b: F| {
                    float_pick(a, b, max, F::nan(), F::nan_, F::key)
                })
            }
        }
    }

    /// Applies the integer updates `v` at `dests` (`add` wraps).
    fn int_updates<T: bytemuck::Pod + Ord>(
        &self,
        out: &mut HostBuf,
        dests: &[Option<usize>],
        v: &[T],
        add: fn(T, T) -> T,
    ) {
        match self.op {
            Reduce::Add => apply(out, dests, v, add),
            Reduce::Max => apply(out, dests, v, |a: T, b: T| a.max(b)),
            _ => apply(out, dests, v, |a: T, b: T| a.min(b)),
        }
    }
}

impl LibraryCall for ScatterCall {
    fn name(&self) -> &str {
        "scatter"
    }

    fn run_cpu(&self, inputs: &[CallInput<'_, HostBuf>], out: &mut HostBuf) -> Result<()> {
        self.check(inputs)?;
        let (base, idx, vals) = (&inputs[0], &inputs[1], &inputs[2]);
        let size = self.dtype.size();
        let n_out = self.n_out();
        let src = &base.buf.bytes()[base.layout.offset * size..][..n_out * size];
        out.bytes_mut()[..n_out * size].copy_from_slice(src);
        let dests = self.dests(idx);
        if self.checked && dests.iter().any(|d| d.is_none()) {
            crate::backend::cpu::flags::raise(inputs[3].buf);
        }
        let m = self.m();
        if self.op == Reduce::Set {
            let v = &vals.buf.bytes()[vals.layout.offset * size..][..m * size];
            let o = out.bytes_mut();
            for (u, d) in dests.iter().enumerate() {
                if let Some(d) = *d {
                    o[d * size..(d + 1) * size].copy_from_slice(&v[u * size..(u + 1) * size]);
                }
            }
            return Ok(());
        }
        match self.dtype {
            DType::F32 => self.float_updates::<f32>(out, &dests, host_slice(vals, m)),
            DType::F64 => self.float_updates::<f64>(out, &dests, host_slice(vals, m)),
            DType::I32 => self.int_updates(out, &dests, host_slice(vals, m), i32::wrapping_add),
            DType::U32 => self.int_updates(out, &dests, host_slice(vals, m), u32::wrapping_add),
            DType::I64 => self.int_updates(out, &dests, host_slice(vals, m), i64::wrapping_add),
            DType::U64 => self.int_updates(out, &dests, host_slice(vals, m), u64::wrapping_add),
            d => {
                return Err(Error::InvalidArgument(format!(
                    "scatter {} accumulates in f32, f64 or a 32/64-bit integer, not {d}",
                    self.op.name()
                )));
            }
        }
        Ok(())
    }

    fn run_cuda(
        &self,
        lane: &CudaLane<'_>,
        inputs: &[CallInput<'_, DevBuf>],
        out: &mut DevBuf,
    ) -> Result<()> {
        let CudaLane { st, stream } = *lane;
        self.check(inputs)?;
        self.launch_cuda(st, stream, inputs, out)
    }

    fn cuda_sources(&self, _inputs: &[(DType, Vec<usize>)]) -> Vec<String> {
        super::cuda::Plan::new(self)
            .sources()
            .into_iter()
            .map(|k| k.source)
            .collect()
    }
}
