//! How the image filters become library calls: one pass of the n-d correlation along an axis,
//! a chain of such passes (with the last two axes fused into one kernel where they follow each
//! other), the n-d correlation with an n-d weights array, and the rank filter; plus the checks
//! of axes, origins and sizes that every filter shares.

use super::boundary::Boundary;
use super::filters_corr::{ImgCorrelate, Win, sym_of};
use super::filters_corr1::ImgCorr1;
use super::filters_elem::{ImageElement, wide};
use super::filters_rank::ImgRank;
use super::filters_sep::{ImgSep2, Pass1};
use crate::array::Array;
use crate::error::{Error, Result};
use crate::graph::{Node, Op};
use crate::shape::checked_numel;
use std::sync::Arc;

/// The axes `axes` of an array of `ndim` axes (`None`: every axis), normalised, in the order
/// given; an `Err` naming them when one is out of range or repeated.
pub(crate) fn norm_axes(what: &str, axes: Option<&[isize]>, ndim: usize) -> Result<Vec<usize>> {
    let Some(axes) = axes else {
        return Ok((0..ndim).collect());
    };
    let mut out = Vec::with_capacity(axes.len());
    for &a in axes {
        let u = if a < 0 { a + ndim as isize } else { a };
        if u < 0 || u as usize >= ndim || out.contains(&(u as usize)) {
            return Err(Error::InvalidArgument(format!(
                "{what}: axis {a} is out of range or repeated for {ndim} dimensions (axes {axes:?})"
            )));
        }
        out.push(u as usize);
    }
    Ok(out)
}

/// One value per filtered axis from `v` (empty: `default`; one value: every axis; else one
/// each), or an `Err` naming the counts.
pub(crate) fn per_axis<V: Copy + std::fmt::Debug>(
    what: &str,
    name: &str,
    v: &[V],
    n: usize,
    default: V,
) -> Result<Vec<V>> {
    match v.len() {
        0 => Ok(vec![default; n]),
        1 => Ok(vec![v[0]; n]),
        k if k == n => Ok(v.to_vec()),
        k => Err(Error::InvalidArgument(format!(
            "{what}: {k} values of {name} ({v:?}) for {n} filtered axes (give one, or one per axis)"
        ))),
    }
}

/// The centre of a window of `m` taps shifted by `origin` (SciPy's `m // 2 + origin`), or an
/// `Err` when the origin leaves the window (SciPy's rule `-(m // 2) <= origin <= (m - 1) // 2`).
pub(crate) fn centre(what: &str, m: usize, origin: isize) -> Result<i64> {
    let (lo, hi) = (-((m / 2) as i64), ((m.max(1) - 1) / 2) as i64);
    let o = origin as i64;
    if m == 0 || o < lo || o > hi {
        return Err(Error::InvalidArgument(format!(
            "{what}: origin {origin} is outside the window of {m} taps (it must lie in \
             [{lo}, {hi}])"
        )));
    }
    Ok((m / 2) as i64 + o)
}

/// The weights `w` as an array of the working type of `T`, on `x`'s device.
fn weights<T: ImageElement>(x: &Array<T>, w: &[f64]) -> Result<Arc<Node>> {
    if wide(T::DTYPE) {
        Ok(Array::from_slice_on(x.device(), w, &[w.len()])?.node)
    } else {
        let v: Vec<f32> = w.iter().map(|&a| a as f32).collect();
        Ok(Array::from_slice_on(x.device(), &v, &[v.len()])?.node)
    }
}

fn library<T: ImageElement>(
    call: Arc<dyn crate::graph::LibraryCall>,
    inputs: Vec<Arc<Node>>,
    x: &Array<T>,
) -> Array<T> {
    Array::from_node(Node::new(
        Op::Library(call, inputs),
        T::DTYPE,
        x.shape().to_vec(),
        x.device(),
    ))
}

/// The product of the axes before `a`, `a`'s length, and the product of those after.
fn split(shape: &[usize], a: usize) -> Result<(usize, usize, usize)> {
    Ok((
        checked_numel(&shape[..a])?,
        shape[a],
        checked_numel(&shape[a + 1..])?,
    ))
}

/// One pass of a separable filter along an axis: weights, centre and divisor.
#[derive(Clone, Debug)]
pub(crate) struct Pass {
    pub axis: usize,
    pub w: Vec<f64>,
    pub c: i64,
    pub div: f64,
}

/// `x` correlated with `p.w` along `p.axis` (SciPy's `correlate1d`), divided by `p.div`.
pub(crate) fn pass1<T: ImageElement>(x: &Array<T>, p: &Pass, b: Boundary) -> Result<Array<T>> {
    let (outer, n, inner) = split(x.shape(), p.axis)?;
    let win = Win {
        batch: outer,
        n: [1, n, inner],
        m: [1, p.w.len(), 1],
        c: [0, p.c, 0],
    }
    .checked()?;
    let corr = ImgCorrelate {
        dtype: T::DTYPE,
        win,
        boundary: b,
        div: p.div,
        sym: sym_of(&p.w),
    };
    // At most `SEP_MAX_TAPS` taps travel in the launch's parameters; more come from a buffer.
    match ImgCorr1::of(corr, &p.w) {
        Ok(call) => Ok(library(Arc::new(call), vec![x.node.clone()], x)),
        Err(corr) => Ok(library(
            Arc::new(corr),
            vec![x.node.clone(), weights(x, &p.w)?],
            x,
        )),
    }
}

/// The passes `ps` one after the other, as SciPy runs them (each stores its result in `T`);
/// two passes over the last two axes that follow each other run as one fused kernel.
pub(crate) fn passes<T: ImageElement>(x: &Array<T>, ps: &[Pass], b: Boundary) -> Result<Array<T>> {
    let nd = x.ndim();
    let mut y = x.clone();
    let mut i = 0;
    while i < ps.len() {
        if nd >= 2 && i + 1 < ps.len() {
            let (p, q) = (&ps[i], &ps[i + 1]);
            let pair = [p.axis, q.axis];
            let xfirst = pair == [nd - 1, nd - 2];
            let (py, px) = if xfirst { (q, p) } else { (p, q) };
            if (pair == [nd - 2, nd - 1] || xfirst)
                && ImgSep2::fits(T::DTYPE, py.w.len(), px.w.len(), xfirst)
            {
                y = sep2(&y, py, px, xfirst, b)?;
                i += 2;
                continue;
            }
        }
        y = pass1(&y, &ps[i], b)?;
        i += 1;
    }
    Ok(y)
}

fn sep2<T: ImageElement>(
    x: &Array<T>,
    py: &Pass,
    px: &Pass,
    xfirst: bool,
    b: Boundary,
) -> Result<Array<T>> {
    let nd = x.ndim();
    let (h, w) = (x.shape()[nd - 2], x.shape()[nd - 1]);
    let batch = checked_numel(&x.shape()[..nd - 2])?;
    checked_numel(&[batch, h, w])?;
    let call = Arc::new(ImgSep2 {
        dtype: T::DTYPE,
        batch,
        h,
        w,
        y: Pass1 {
            m: py.w.len(),
            c: py.c,
            div: py.div,
            sym: sym_of(&py.w),
        },
        x: Pass1 {
            m: px.w.len(),
            c: px.c,
            div: px.div,
            sym: sym_of(&px.w),
        },
        wy: py.w.clone(),
        wx: px.w.clone(),
        xfirst,
        boundary: b,
    });
    Ok(library(call, vec![x.node.clone()], x))
}

/// The permutation that puts the axes `keep` last (in that order), the others first in their
/// order; its inverse; and the shape `[batch, n...]` of the permuted array.
fn gather(shape: &[usize], keep: &[usize]) -> Result<(Vec<usize>, Vec<usize>, [usize; 4])> {
    let nd = shape.len();
    let mut perm: Vec<usize> = (0..nd).filter(|a| !keep.contains(a)).collect();
    let batch = checked_numel(&perm.iter().map(|&a| shape[a]).collect::<Vec<_>>())?;
    perm.extend(keep);
    let mut inv = vec![0usize; nd];
    for (i, &p) in perm.iter().enumerate() {
        inv[p] = i;
    }
    let mut n = [1usize; 3];
    for (i, &a) in keep.iter().enumerate() {
        n[3 - keep.len() + i] = shape[a];
    }
    Ok((perm, inv, [batch, n[0], n[1], n[2]]))
}

/// The axes of `axes` along which a window of extents `m` reaches past one value: at most
/// three, or an `Err` naming them.
fn extended(what: &str, axes: &[usize], m: &[usize]) -> Result<Vec<usize>> {
    let ext: Vec<usize> = (0..axes.len()).filter(|&i| m[i] > 1).collect();
    if ext.len() > 3 {
        return Err(Error::InvalidArgument(format!(
            "{what}: a window longer than 1 along {} axes (at most 3; extents {m:?})",
            ext.len()
        )));
    }
    Ok(ext)
}

/// Runs `make` on `x` with the axes `keep` last (permuted there and back when needed).
fn on_axes<T: ImageElement>(
    x: &Array<T>,
    keep: &[usize],
    make: impl FnOnce(&Array<T>, [usize; 4]) -> Result<Array<T>>,
) -> Result<Array<T>> {
    let (perm, inv, dims) = gather(x.shape(), keep)?;
    let ident = perm.iter().enumerate().all(|(i, &p)| i == p);
    if ident {
        return make(x, dims);
    }
    let xp = x.permute(&perm)?;
    make(&xp, dims)?.permute(&inv)
}

/// `x` correlated with the n-d `w` (one axis for each of `axes`, in that order) with centres
/// `c`, leaving out weights of magnitude at most `f64::EPSILON` as SciPy's `correlate` does.
pub(crate) fn correlate_nd<T: ImageElement>(
    what: &str,
    x: &Array<T>,
    w: &Array<f64>,
    axes: &[usize],
    c: &[i64],
    b: Boundary,
) -> Result<Array<T>> {
    crate::array::check_devices(&[&x.node, &w.node])?;
    let m = w.shape().to_vec();
    let ext = extended(what, axes, &m)?;
    let keep: Vec<usize> = ext.iter().map(|&i| axes[i]).collect();
    let mut wm = [1usize; 3];
    let mut wc = [0i64; 3];
    for (j, &i) in ext.iter().enumerate() {
        wm[3 - ext.len() + j] = m[i];
        wc[3 - ext.len() + j] = c[i];
    }
    let wnode = if wide(T::DTYPE) {
        w.node.clone()
    } else {
        w.cast::<f32>().node
    };
    on_axes(x, &keep, |xp, d| {
        let win = Win {
            batch: d[0],
            n: [d[1], d[2], d[3]],
            m: wm,
            c: wc,
        }
        .checked()?;
        let call = Arc::new(ImgCorrelate {
            dtype: T::DTYPE,
            win,
            boundary: b,
            div: 1.0,
            sym: 0,
        });
        Ok(library(call, vec![xp.node.clone(), wnode], xp))
    })
}

/// A footprint placed on the image: `mask` of extents `m` (one per filtered axis, row-major)
/// with centres `c`.
pub(crate) struct Placed<'a> {
    pub mask: &'a [bool],
    pub m: &'a [usize],
    pub c: &'a [i64],
}

/// The rank filter of `x` over the footprint `fp` along `axes`: the value of rank `rank` among
/// the `true` positions. `cval` of a constant boundary is taken in `T` first, as SciPy does.
pub(crate) fn rank_nd<T: ImageElement>(
    what: &str,
    x: &Array<T>,
    fp: &Placed<'_>,
    axes: &[usize],
    rank: usize,
    b: Boundary,
) -> Result<Array<T>> {
    let (mask, m, c) = (fp.mask, fp.m, fp.c);
    let ext = extended(what, axes, m)?;
    let keep: Vec<usize> = ext.iter().map(|&i| axes[i]).collect();
    // Offsets of the footprint's elements along the kept axes, less the centres.
    let mut offs = Vec::new();
    for (flat, _) in mask.iter().enumerate().filter(|(_, on)| **on) {
        let mut r = flat;
        let mut idx = vec![0usize; m.len()];
        for a in (0..m.len()).rev() {
            idx[a] = r % m[a];
            r /= m[a];
        }
        let mut o = [0i64; 3];
        for (j, &i) in ext.iter().enumerate() {
            o[3 - ext.len() + j] = idx[i] as i64 - c[i];
        }
        offs.push(o);
    }
    let cval = T::store(b.cval()).to_f64();
    on_axes(x, &keep, |xp, d| {
        let flat: Vec<i64> = offs.iter().flatten().copied().collect();
        let on = Array::from_slice_on(xp.device(), &flat, &[flat.len()])?;
        let call = Arc::new(ImgRank {
            dtype: T::DTYPE,
            batch: d[0],
            n: [d[1], d[2], d[3]],
            offs: offs.clone(),
            rank,
            boundary: b,
            cval,
        });
        Ok(library(call, vec![xp.node.clone(), on.node], xp))
    })
}
