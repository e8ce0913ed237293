//! The CPU side of the convolution passes: direct loops on rayon over the working type (`f32`
//! for `f16`, `bf16` and `f32`; `f64` for `f64`), one task per output plane (forward), input
//! plane (input gradient) or filter slice (weight gradient), so that every value is summed by
//! one task in one order. Also the conversions between stored elements and the working type.

use super::geom::ConvGeom;
use crate::dtype::DType;
use crate::storage::HostBuf;
use rayon::prelude::*;
use std::ops::Range;

/// The working type of the CPU loops.
pub(crate) trait Acc:
    Copy
    + Send
    + Sync
    + PartialOrd
    + 'static
    + std::ops::Add<Output = Self>
    + std::ops::AddAssign
    + std::ops::Mul<Output = Self>
    + std::ops::Div<Output = Self>
{
    const ZERO: Self;
    const NEG_INF: Self;
    fn of_f64(v: f64) -> Self;
    fn is_nan(self) -> bool;
}
impl Acc for f32 {
    const ZERO: f32 = 0.0;
    const NEG_INF: f32 = f32::NEG_INFINITY;
    fn of_f64(v: f64) -> f32 {
        v as f32
    }
    fn is_nan(self) -> bool {
        f32::is_nan(self)
    }
}
impl Acc for f64 {
    const ZERO: f64 = 0.0;
    const NEG_INF: f64 = f64::NEG_INFINITY;
    fn of_f64(v: f64) -> f64 {
        v
    }
    fn is_nan(self) -> bool {
        f64::is_nan(self)
    }
}

/// The stored elements of `d` (`f16`, `bf16`, `f32`, `f64`) from `offset`, `len` of them, in
/// the working type (exact: each half value is an `f32` value).
pub(crate) fn widen<A: Acc>(d: DType, buf: &HostBuf, offset: usize, len: usize) -> Vec<A> {
    let b = buf.bytes();
    match d {
        DType::F16 => bytemuck::cast_slice::<u8, half::f16>(b)[offset..offset + len]
            .iter()
            .map(|v| A::of_f64(v.to_f64()))
            .collect(),
        DType::BF16 => bytemuck::cast_slice::<u8, half::bf16>(b)[offset..offset + len]
            .iter()
            .map(|v| A::of_f64(v.to_f64()))
            .collect(),
        DType::F32 => bytemuck::cast_slice::<u8, f32>(b)[offset..offset + len]
            .iter()
            .map(|&v| A::of_f64(f64::from(v)))
            .collect(),
        _ => bytemuck::cast_slice::<u8, f64>(b)[offset..offset + len]
            .iter()
            .map(|&v| A::of_f64(v))
            .collect(),
    }
}

/// Stores `v` into the first `v.len()` elements of `out` as `d`, each rounded once.
pub(crate) fn narrow<A: Acc + Into<f64>>(d: DType, v: &[A], out: &mut HostBuf) {
    let b = out.bytes_mut();
    match d {
        DType::F16 => bytemuck::cast_slice_mut::<u8, half::f16>(b)
            .iter_mut()
            .zip(v)
            .for_each(|(o, &x)| *o = half::f16::from_f64(x.into())),
        DType::BF16 => bytemuck::cast_slice_mut::<u8, half::bf16>(b)
            .iter_mut()
            .zip(v)
            .for_each(|(o, &x)| *o = half::bf16::from_f64(x.into())),
        DType::F32 => bytemuck::cast_slice_mut::<u8, f32>(b)
            .iter_mut()
            .zip(v)
            .for_each(|(o, &x)| *o = x.into() as f32),
        _ => bytemuck::cast_slice_mut::<u8, f64>(b)
            .iter_mut()
            .zip(v)
            .for_each(|(o, &x)| *o = x.into()),
    }
}

/// The output positions `q` along one axis whose tap `j` reads inside the input: `q s + j d -
/// p` in `[0, i)`, intersected with `[0, o)`.
fn taps_inside(g: &ConvGeom, a: usize, j: usize) -> Range<usize> {
    let (s, off) = (g.stride[a], j * g.dil[a]);
    // q s >= p - off
    let lo = g.pad[a].saturating_sub(off).div_ceil(s);
    // q s <= i - 1 + p - off
    let hi = match (g.i[a] + g.pad[a]).checked_sub(off + 1) {
        Some(top) => (top / s + 1).min(g.o[a]),
        None => 0,
    };
    lo..hi.max(lo)
}

/// The input index along axis `a` that output `q` reads with tap `j` (inside by
/// [`taps_inside`]).
fn at(g: &ConvGeom, a: usize, q: usize, j: usize) -> usize {
    q * g.stride[a] + j * g.dil[a] - g.pad[a]
}

/// Calls `f(j, input offset, output offset)` for every tap `j` (row-major) and output position
/// whose input lies inside, taps outermost.
fn for_each_tap(g: &ConvGeom, mut f: impl FnMut(usize, usize, usize)) {
    let [_, i1, i2] = g.i;
    let [_, o1, o2] = g.o;
    let [_, r1, r2] = g.r;
    for j0 in 0..g.r[0] {
        let q0s = taps_inside(g, 0, j0);
        for j1 in 0..r1 {
            let q1s = taps_inside(g, 1, j1);
            for j2 in 0..r2 {
                let q2s = taps_inside(g, 2, j2);
                let j = (j0 * r1 + j1) * r2 + j2;
                for q0 in q0s.clone() {
                    let a0 = at(g, 0, q0, j0);
                    for q1 in q1s.clone() {
                        let a1 = at(g, 1, q1, j1);
                        let (xrow, yrow) = ((a0 * i1 + a1) * i2, (q0 * o1 + q1) * o2);
                        for q2 in q2s.clone() {
                            f(j, xrow + at(g, 2, q2, j2), yrow + q2);
                        }
                    }
                }
            }
        }
    }
}

/// `y = act(conv(x, w) + bias)`, `[n, k, P]`.
pub(crate) fn forward<A: Acc>(
    g: &ConvGeom,
    x: &[A],
    w: &[A],
    bias: Option<&[A]>,
    relu: bool,
) -> Vec<A> {
    let (ip, p, rs, cg, kg) = (g.ip(), g.p(), g.rs(), g.cg(), g.kg());
    let mut y = vec![A::ZERO; g.n * g.k * p];
    y.par_chunks_mut(p.max(1))
        .enumerate()
        .for_each(|(plane, out)| {
            let (n, k) = (plane / g.k, plane % g.k);
            let grp = k / kg;
            for cl in 0..cg {
                let xp = &x[(n * g.c + grp * cg + cl) * ip..][..ip];
                let wk = &w[(k * cg + cl) * rs..][..rs];
                for_each_tap(g, |j, xi, yi| out[yi] += wk[j] * xp[xi]);
            }
            if let Some(b) = bias {
                out.iter_mut().for_each(|v| *v += b[k]);
            }
            if relu {
                out.iter_mut().for_each(|v| {
                    if *v < A::ZERO {
                        *v = A::ZERO
                    }
                });
            }
        });
    y
}

/// The gradient with respect to the input, `[n, c, ip]`, of `dy` (`[n, k, P]`).
pub(crate) fn backward_input<A: Acc>(g: &ConvGeom, dy: &[A], w: &[A]) -> Vec<A> {
    let (ip, p, rs, cg, kg) = (g.ip(), g.p(), g.rs(), g.cg(), g.kg());
    let mut dx = vec![A::ZERO; g.n * g.c * ip];
    dx.par_chunks_mut(ip.max(1))
        .enumerate()
        .for_each(|(plane, out)| {
            let (n, ch) = (plane / g.c, plane % g.c);
            let (grp, cl) = (ch / cg, ch % cg);
            for kl in 0..kg {
                let k = grp * kg + kl;
                let dyp = &dy[(n * g.k + k) * p..][..p];
                let wk = &w[(k * cg + cl) * rs..][..rs];
                for_each_tap(g, |j, xi, yi| out[xi] += wk[j] * dyp[yi]);
            }
        });
    dx
}

/// The gradient with respect to the weights, `[k, cg, rs]`, of `dy` (`[n, k, P]`) for input
/// `x`.
pub(crate) fn backward_weight<A: Acc>(g: &ConvGeom, x: &[A], dy: &[A]) -> Vec<A> {
    let (ip, p, rs, cg, kg) = (g.ip(), g.p(), g.rs(), g.cg(), g.kg());
    let mut dw = vec![A::ZERO; g.k * cg * rs];
    dw.par_chunks_mut(rs).enumerate().for_each(|(slice, out)| {
        let (k, cl) = (slice / cg, slice % cg);
        let ch = (k / kg) * cg + cl;
        for n in 0..g.n {
            let xp = &x[(n * g.c + ch) * ip..][..ip];
            let dyp = &dy[(n * g.k + k) * p..][..p];
            for_each_tap(g, |j, xi, yi| out[j] += dyp[yi] * xp[xi]);
        }
    });
    dw
}
