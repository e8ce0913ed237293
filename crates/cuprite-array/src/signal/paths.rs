//! How a batched convolution of the `Geom` layout is computed: the methods the [`signal`
//! module docs](crate::signal#methods) describe (the direct library call, FFTs of the whole
//! signal, overlap-add), and the automatic choice between them.

use super::direct::ConvDirect;
use super::elem::RealFn;
use super::geom::Geom;
use crate::array::Array;
use crate::dtype::{Element, Float};
use crate::error::Result;
use crate::graph::{Node, Op};
use crate::ops::fft::{FftElement, FftOpts, FftnOpts};
use crate::shape::SliceArg;
use std::sync::Arc;

/// How a convolution is computed (SciPy's `method`); see the [`signal` module docs](crate::signal#methods).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum ConvMethod {
    /// Chosen from the sizes: direct for short kernels, else overlap-add or FFT.
    #[default]
    Auto,
    /// The direct sum over every tap.
    Direct,
    /// Through FFTs of the whole signal.
    Fft,
    /// Through FFTs of blocks of the signal, added where they overlap.
    OverlapAdd,
}

/// [`ConvMethod::Auto`] sums kernels of at most this many taps directly.
pub const DIRECT_TAPS: usize = 512;

/// The smallest `2^a 3^b 5^c 7^d` at least `n` (lengths the FFT libraries do fastest).
pub(crate) fn smooth_len(n: usize) -> usize {
    let mut k = n.max(1);
    loop {
        let mut r = k;
        for p in [2, 3, 5, 7] {
            while r % p == 0 {
                r /= p;
            }
        }
        if r == 1 {
            return k;
        }
        k += 1;
    }
}

/// The method [`ConvMethod::Auto`] picks for signal extents `n` and kernel extents `m` along the
/// convolved axes: direct for at most [`DIRECT_TAPS`] taps; else overlap-add when the kernel
/// extends along one axis only and the signal there is at least 8 times longer; else FFT.
pub(crate) fn auto_method(n: &[usize], m: &[usize]) -> ConvMethod {
    let taps = m.iter().fold(1usize, |a, &v| a.saturating_mul(v));
    let long: Vec<usize> = (0..m.len()).filter(|&i| m[i] > 1).collect();
    if taps <= DIRECT_TAPS {
        ConvMethod::Direct
    } else if long.len() == 1 && n[long[0]] >= m[long[0]].saturating_mul(8) {
        ConvMethod::OverlapAdd
    } else {
        ConvMethod::Fft
    }
}

/// The method `Auto` resolves to for `g` (others are kept, except overlap-add over a kernel
/// along several axes, which is the FFT method).
fn resolve(method: ConvMethod, g: &Geom) -> ConvMethod {
    let long: Vec<usize> = (0..3).filter(|&i| g.ax[i].m > 1).collect();
    let one_axis = long.len() == 1;
    match method {
        ConvMethod::Auto => auto_method(&g.ax.map(|a| a.n), &g.ax.map(|a| a.m)),
        ConvMethod::OverlapAdd if !one_axis => ConvMethod::Fft,
        m => m,
    }
}

/// A convolution of a batch in the layout of `Geom` (`x` of `x_shape()`, `h` of `h_shape()`).
pub(crate) struct ConvFn {
    pub geom: Geom,
    pub method: ConvMethod,
}

impl RealFn for ConvFn {
    fn f32(&self, p: &[Array<f32>]) -> Result<Array<f32>> {
        run(&p[0], &p[1], &self.geom, self.method)
    }
    fn f64(&self, p: &[Array<f64>]) -> Result<Array<f64>> {
        run(&p[0], &p[1], &self.geom, self.method)
    }
}

fn range(start: usize, len: usize) -> SliceArg {
    SliceArg::Range {
        start: Some(start as isize),
        end: Some((start + len) as isize),
        step: 1,
    }
}

const ALL: SliceArg = SliceArg::Range {
    start: None,
    end: None,
    step: 1,
};

fn run<R: Float + FftElement>(
    x: &Array<R>,
    h: &Array<R>,
    g: &Geom,
    method: ConvMethod,
) -> Result<Array<R>> {
    let x = x.reshape(&g.x_shape())?;
    let h = h.reshape(&g.h_shape())?;
    match resolve(method, g) {
        ConvMethod::Fft => fft_path(&x, &h, g),
        ConvMethod::OverlapAdd => {
            let axis = (0..3).find(|&i| g.ax[i].m > 1);
            match axis {
                Some(a) => oa_path(&x, &h, g, a),
                None => direct(&x, &h, g),
            }
        }
        _ => direct(&x, &h, g),
    }
}

fn direct<R: Float>(x: &Array<R>, h: &Array<R>, g: &Geom) -> Result<Array<R>> {
    let call = Arc::new(ConvDirect {
        dtype: R::DTYPE,
        geom: *g,
    });
    Ok(Array::from_node(Node::new(
        Op::Library(call, vec![x.node.clone(), h.node.clone()]),
        R::DTYPE,
        g.y_shape().to_vec(),
        x.device(),
    )))
}

/// The window `[s, s + l)` of each convolved axis of a full result `[batch, full0, full1,
/// full2]` (or longer).
fn window<R: Element>(full: &Array<R>, g: &Geom) -> Result<Array<R>> {
    let mut args = vec![ALL];
    args.extend(g.ax.iter().map(|a| range(a.s, a.l)));
    full.slice(&args)
}

fn fft_path<R: Float + FftElement>(x: &Array<R>, h: &Array<R>, g: &Geom) -> Result<Array<R>> {
    let axes: Vec<usize> = (0..3).filter(|&i| g.ax[i].full() > 1).collect();
    if axes.is_empty() {
        return direct(x, h, g);
    }
    let s: Vec<usize> = axes.iter().map(|&i| smooth_len(g.ax[i].full())).collect();
    let ax: Vec<isize> = axes.iter().map(|&i| i as isize + 1).collect();
    let opts = FftnOpts::new().s(&s).axes(&ax);
    let hb = h.reshape(&[1, g.ax[0].m, g.ax[1].m, g.ax[2].m])?;
    let fx = x.rfftn_with(opts.clone())?;
    let fh = hb.rfftn_with(opts.clone())?;
    let full = fx.try_mul(&fh)?.irfftn_with(opts)?.cast::<R>();
    window(&full, g)
}

/// Overlap-add along axis `a` (of the three), the only one where the kernel is longer than 1.
fn oa_path<R: Float + FftElement>(
    x: &Array<R>,
    h: &Array<R>,
    g: &Geom,
    a: usize,
) -> Result<Array<R>> {
    let w = g.ax[a];
    // A power of two (the transforms cuFFT does in the fewest passes), a block at least
    // three times the kernel's length.
    let nfft = (4 * w.m).next_power_of_two().max(64);
    if w.full() <= nfft {
        return fft_path(x, h, g);
    }
    let step = nfft - w.m + 1;
    let blocks = w.n.div_ceil(step);
    // The convolved axis last: [batch, o, o', n], the other two axes of length 1 in h.
    let mut perm = vec![0usize, 1, 2, 3];
    perm.remove(a + 1);
    perm.push(a + 1);
    let xp = x.permute(&perm)?;
    let lead: Vec<usize> = xp.shape()[..3].to_vec();
    let rows: usize = lead.iter().product();
    let xb = xp
        .reshape(&[rows, w.n])?
        .pad(&[(0, 0), (0, blocks * step - w.n)], R::default())?
        .reshape(&[rows, blocks, step])?;
    let opts = FftOpts::new().n(nfft);
    let fh = h.reshape(&[w.m])?.rfft_with(opts.axis(0))?;
    let seg = xb
        .rfft_with(opts)?
        .try_mul(&fh)?
        .irfft_with(opts)?
        .cast::<R>();
    // Block p's first `step` values start at p * step; its last m - 1 spill into block p + 1.
    let head = seg
        .slice(&[ALL, ALL, range(0, step)])?
        .pad(&[(0, 0), (0, 1), (0, 0)], R::default())?;
    let tail = seg
        .slice(&[ALL, ALL, range(step, w.m - 1)])?
        .pad(&[(0, 0), (1, 0), (0, step - (w.m - 1))], R::default())?;
    let full = head
        .try_add(&tail)?
        .reshape(&[rows, (blocks + 1) * step])?
        .slice(&[ALL, range(w.s, w.l)])?;
    let mut shape = lead.clone();
    shape.push(w.l);
    let mut inv = [0usize; 4];
    for (i, &p) in perm.iter().enumerate() {
        inv[p] = i;
    }
    let y = full.reshape(&shape)?.permute(&inv)?;
    // The other axes' windows (their kernels have one tap).
    let mut args = vec![ALL];
    for (i, ai) in g.ax.iter().enumerate() {
        args.push(if i == a { ALL } else { range(ai.s, ai.l) });
    }
    y.slice(&args)
}
