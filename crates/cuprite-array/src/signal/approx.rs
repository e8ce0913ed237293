//! ArrayFire's `approx1` and `approx2`: an array interpolated at given positions along one or
//! two of its axes, batched over the others, on a uniform grid of sample indices (ArrayFire's
//! `idx_start`, `idx_step`). A NaN position lies off the grid, as an infinite one does: its point
//! takes the off-grid value, so a call is lazy like any other operation (nothing is read back).

use super::approx_call::{Approx, Curve};
use super::frames::norm_axis;
use crate::array::{Array, check_devices};
use crate::dtype::{Element, Scalar};
use crate::error::{Error, Result};
use crate::graph::{Node, Op};
use crate::ops::InterpValue;
use std::sync::Arc;

/// ArrayFire's interpolation methods (`af::interpType`) of [`approx1`] and [`approx2`]. The
/// one-dimensional names and their two-dimensional twins (`Linear` and `Bilinear`, ...) are
/// the same method in [`approx2`]; [`approx1`] takes the one-dimensional names only, as
/// ArrayFire does. Coordinates `c` lie in `[0, n - 1]`; samples past an edge repeat the edge.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum ApproxMethod {
    /// The sample at `round(c)` (halves away from zero; `AF_INTERP_NEAREST`).
    Nearest,
    /// `(1 - t) v[g] + t v[g + 1]` with `g = floor(c)`, `t = c - g` (`AF_INTERP_LINEAR`;
    /// ArrayFire's default).
    #[default]
    Linear,
    /// [`Linear`](Self::Linear) along both axes (`AF_INTERP_BILINEAR`; [`approx2`] only).
    Bilinear,
    /// ArrayFire's cubic `a t^3 + b t^2 + c t + d` through `v[g - 1 .. g + 2]`, with `a = v3 -
    /// v2 - v0 + v1`, `b = v0 - v1 - a`, `c = v2 - v0`, `d = v1` (`AF_INTERP_CUBIC`).
    Cubic,
    /// [`Cubic`](Self::Cubic) along both axes (`AF_INTERP_BICUBIC`; [`approx2`] only).
    Bicubic,
    /// The sample at `floor(c)` (`AF_INTERP_LOWER`).
    Lower,
    /// [`Linear`](Self::Linear) with `t` smoothed to `(1 - cos(pi t)) / 2`
    /// (`AF_INTERP_LINEAR_COSINE`).
    LinearCosine,
    /// [`LinearCosine`](Self::LinearCosine) along both axes (`AF_INTERP_BILINEAR_COSINE`;
    /// [`approx2`] only).
    BilinearCosine,
    /// The Catmull-Rom spline through `v[g - 1 .. g + 2]` (`AF_INTERP_CUBIC_SPLINE`).
    CubicSpline,
    /// [`CubicSpline`](Self::CubicSpline) along both axes (`AF_INTERP_BICUBIC_SPLINE`;
    /// [`approx2`] only).
    BicubicSpline,
}

impl ApproxMethod {
    /// The kernel's curve of this method in `rank` dimensions.
    fn curve(self, rank: usize) -> Result<Curve> {
        use ApproxMethod as M;
        Ok(match self {
            M::Nearest => Curve::Nearest,
            M::Lower => Curve::Lower,
            M::Linear => Curve::Linear,
            M::LinearCosine => Curve::LinearCosine,
            M::Cubic => Curve::Cubic,
            M::CubicSpline => Curve::CubicSpline,
            M::Bilinear | M::BilinearCosine | M::Bicubic | M::BicubicSpline if rank == 1 => {
                return Err(Error::InvalidArgument(format!(
                    "approx1 takes Nearest, Linear, LinearCosine, Cubic, CubicSpline or Lower, \
                     not the two-dimensional method {self:?}"
                )));
            }
            M::Bilinear => Curve::Linear,
            M::BilinearCosine => Curve::LinearCosine,
            M::Bicubic => Curve::Cubic,
            M::BicubicSpline => Curve::CubicSpline,
        })
    }
}

/// The uniform grid of sample indices along one axis of [`approx2_uniform`]: the samples along
/// `axis` lie at `start, start + step, ...` (ArrayFire's `interp_dim`, `idx_start`,
/// `idx_step`), so that a position `p` is at index `(p - start) / step`.
///
/// ```
/// use cuprite_array::signal::ApproxGrid;
/// let g = ApproxGrid::new(-1, 10.0, 0.5);
/// assert_eq!((g.axis, g.start, g.step), (-1, 10.0, 0.5));
/// ```
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ApproxGrid {
    /// The axis interpolated (negative counts from the end).
    pub axis: isize,
    /// The index value of the first sample.
    pub start: f64,
    /// The spacing of the samples (not 0).
    pub step: f64,
}

impl ApproxGrid {
    /// The grid `start, start + step, ...` along `axis`.
    pub fn new(axis: isize, start: f64, step: f64) -> ApproxGrid {
        ApproxGrid { axis, start, step }
    }
}

/// `input` interpolated along its last axis at the positions `pos` (ArrayFire's
/// `approx1(in, pos, method, off_grid)`: samples at indices `0, 1, ..., n - 1`); see
/// [`approx1_uniform`].
///
/// # Errors
/// As [`approx1_uniform`].
///
/// ```
/// use cuprite_array::{Array, signal::{ApproxMethod, approx1}};
/// let x = Array::from_slice(&[10.0f32, 20.0, 30.0], &[3])?;
/// let pos = Array::from_slice(&[0.0f32, 0.5, 1.0, 1.5, 2.0, 2.5], &[6])?;
/// let y = approx1(&x, &pos, ApproxMethod::Linear, -1.0)?.to_vec()?;
/// assert_eq!(y, [10.0, 15.0, 20.0, 25.0, 30.0, -1.0]);
/// # Ok::<(), cuprite_array::Error>(())
/// ```
pub fn approx1<V: InterpValue>(
    input: &Array<V>,
    pos: &Array<V::Real>,
    method: ApproxMethod,
    off_grid: f64,
) -> Result<Array<V>> {
    approx1_uniform(input, pos, -1, 0.0, 1.0, method, off_grid)
}

/// `input` interpolated along `interp_dim` at the positions `pos`, the samples along that axis
/// lying at `idx_start + k idx_step` (ArrayFire's `approx1(in, pos, interp_dim, idx_start,
/// idx_step, method, off_grid)`): a position `p` is at coordinate `c = (p - idx_start) /
/// idx_step`, computed in the positions' type. A point with `c` outside `[0, n - 1]` or NaN (an
/// infinite or NaN position) takes `off_grid` (rounded to the values' type; its imaginary part
/// 0).
///
/// `pos` is 1-D (`m` positions shared by every signal of the batch) or has `input`'s rank
/// with `m` along `interp_dim` and, along every other axis, `input`'s extent or 1 (positions
/// per signal, broadcast where 1). The result has `input`'s shape with `m` along
/// `interp_dim`. Values `f32`, `f64`, `c32`, `c64`, positions in their real type. Methods:
/// [`ApproxMethod`]'s one-dimensional ones. One kernel reads each position once; the result is
/// lazy, as any operation's (no value is read back, so the call may be part of a compiled
/// program).
///
/// # Errors
/// A two-dimensional method; positions of another shape, an axis out of range, a zero or
/// non-finite `idx_step` or a non-finite `idx_start`, each named.
///
/// ```
/// use cuprite_array::{Array, signal::{ApproxMethod, approx1_uniform}};
/// // Three signals of three samples at 10, 20, 30 (rows), interpolated along axis 1.
/// let x = Array::from_slice(&[1.0f64, 2.0, 3.0, 10.0, 20.0, 30.0, 0.0, 0.0, 6.0], &[3, 3])?;
/// let pos = Array::from_slice(&[15.0f64, 25.0, 30.0], &[3])?;
/// let y = approx1_uniform(&x, &pos, 1, 10.0, 10.0, ApproxMethod::Linear, 0.0)?;
/// assert_eq!(y.to_vec()?, [1.5, 2.5, 3.0, 15.0, 25.0, 30.0, 0.0, 3.0, 6.0]);
/// // A NaN position lies off the grid: every signal takes the off-grid value there.
/// let nan = Array::from_slice(&[f64::NAN, 20.0], &[2])?;
/// let y = approx1_uniform(&x, &nan, 1, 10.0, 10.0, ApproxMethod::Linear, -1.0)?;
/// assert_eq!(y.to_vec()?, [-1.0, 2.0, -1.0, 20.0, -1.0, 0.0]);
/// # Ok::<(), cuprite_array::Error>(())
/// ```
pub fn approx1_uniform<V: InterpValue>(
    input: &Array<V>,
    pos: &Array<V::Real>,
    interp_dim: isize,
    idx_start: f64,
    idx_step: f64,
    method: ApproxMethod,
    off_grid: f64,
) -> Result<Array<V>> {
    let grid = ApproxGrid::new(interp_dim, idx_start, idx_step);
    run("approx1", input, &[pos], &[grid], method, off_grid)
}

/// `input` interpolated along its last two axes (rows, then columns: ArrayFire's dimensions 0
/// and 1) at the points `(pos0, pos1)` (ArrayFire's `approx2(in, pos0, pos1, method,
/// off_grid)`: samples at indices `0, 1, ...` on both axes); see [`approx2_uniform`].
///
/// # Errors
/// As [`approx2_uniform`].
///
/// ```
/// use cuprite_array::{Array, signal::{ApproxMethod, approx2}};
/// // z = 10 r + c on a 3 x 4 grid: bilinear interpolation reproduces it.
/// let z: Vec<f32> = (0..12).map(|i| (10 * (i / 4) + i % 4) as f32).collect();
/// let z = Array::from_slice(&z, &[3, 4])?;
/// let r = Array::from_slice(&[0.5f32, 1.25, 2.0, 3.5], &[2, 2])?;
/// let c = Array::from_slice(&[0.5f32, 2.5, 3.0, 0.0], &[2, 2])?;
/// let y = approx2(&z, &r, &c, ApproxMethod::Bilinear, f32::NAN as f64)?.to_vec()?;
/// assert_eq!(y[..3], [5.5, 15.0, 23.0]);
/// assert!(y[3].is_nan()); // row 3.5 lies past the last row
/// # Ok::<(), cuprite_array::Error>(())
/// ```
pub fn approx2<V: InterpValue>(
    input: &Array<V>,
    pos0: &Array<V::Real>,
    pos1: &Array<V::Real>,
    method: ApproxMethod,
    off_grid: f64,
) -> Result<Array<V>> {
    let g0 = ApproxGrid::new(-2, 0.0, 1.0);
    let g1 = ApproxGrid::new(-1, 0.0, 1.0);
    approx2_uniform(input, pos0, g0, pos1, g1, method, off_grid)
}

/// `input` interpolated along the axes of `grid0` and `grid1` at the points `(pos0, pos1)`
/// (ArrayFire's `approx2(in, pos0, interp_dim0, idx_start_dim0, idx_step_dim0, pos1,
/// interp_dim1, ..., method, off_grid)`): as [`approx1_uniform`] on each axis, a point off
/// the grid on either axis taking `off_grid`. The two-dimensional methods interpolate along
/// `grid1`'s axis first (each row of taps), then along `grid0`'s.
///
/// `pos0` and `pos1` have one shape: 2-D `[m0, m1]` (points shared by every image of the
/// batch), or `input`'s rank with `m0` along `grid0.axis`, `m1` along `grid1.axis` and, along
/// every other axis, `input`'s extent or 1. The result has `input`'s shape with `m0` and `m1`
/// along the two axes. Every [`ApproxMethod`] is taken. A NaN position on either axis puts its
/// point off the grid (`off_grid`).
///
/// # Errors
/// Positions of different or unfitting shapes, equal or out-of-range axes, a zero or
/// non-finite step or a non-finite start, each named.
///
/// ```
/// use cuprite_array::{Array, signal::{ApproxGrid, ApproxMethod, approx2_uniform}};
/// // Two images of 2 x 2 samples at (0 or 2) x (100 or 110), batched along axis 0.
/// let z = Array::from_slice(&[0.0f64, 1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0], &[2, 2, 2])?;
/// let r = Array::from_slice(&[1.0f64], &[1, 1])?;
/// let c = Array::from_slice(&[105.0f64], &[1, 1])?;
/// let y = approx2_uniform(&z, &r, ApproxGrid::new(1, 0.0, 2.0), &c,
///     ApproxGrid::new(2, 100.0, 10.0), ApproxMethod::Bilinear, 0.0)?;
/// assert_eq!((y.shape(), y.to_vec()?), (&[2usize, 1, 1][..], vec![1.5, 5.5]));
/// # Ok::<(), cuprite_array::Error>(())
/// ```
pub fn approx2_uniform<V: InterpValue>(
    input: &Array<V>,
    pos0: &Array<V::Real>,
    grid0: ApproxGrid,
    pos1: &Array<V::Real>,
    grid1: ApproxGrid,
    method: ApproxMethod,
    off_grid: f64,
) -> Result<Array<V>> {
    if pos0.shape() != pos1.shape() {
        return Err(Error::Shape(format!(
            "approx2: pos0 {:?} and pos1 {:?} must have one shape",
            pos0.shape(),
            pos1.shape()
        )));
    }
    run(
        "approx2",
        input,
        &[pos0, pos1],
        &[grid0, grid1],
        method,
        off_grid,
    )
}

/// How the positions of one call are laid out.
struct PosLayout {
    /// The interpolated axes of `input`.
    axes: Vec<usize>,
    /// Points along each interpolated axis.
    m: Vec<usize>,
    /// Whether the positions are shared by every signal of the batch.
    shared: bool,
    /// Whether per-signal positions have an axis of extent 1 to broadcast.
    broadcast: bool,
}

/// The axes of `grids` in `input`'s rank `nd` and the shape of the positions `ps`, checked.
fn layout(
    what: &str,
    nd: usize,
    shape: &[usize],
    ps: &[usize],
    grids: &[ApproxGrid],
) -> Result<PosLayout> {
    let rank = grids.len();
    if nd < rank {
        return Err(Error::Shape(format!(
            "{what} interpolates along {rank} axes of an array of shape {shape:?}"
        )));
    }
    let axes: Vec<usize> = grids
        .iter()
        .map(|g| norm_axis(what, g.axis, nd))
        .collect::<Result<_>>()?;
    if rank == 2 && axes[0] == axes[1] {
        return Err(Error::InvalidArgument(format!(
            "{what}: both grids are along axis {} (they must differ)",
            axes[0]
        )));
    }
    if ps.len() == rank {
        return Ok(PosLayout {
            axes,
            m: ps.to_vec(),
            shared: true,
            broadcast: false,
        });
    }
    let fits =
        ps.len() == nd && (0..nd).all(|i| axes.contains(&i) || ps[i] == 1 || ps[i] == shape[i]);
    if !fits {
        return Err(Error::Shape(format!(
            "{what}: positions of shape {ps:?} do not fit an array of shape {shape:?} \
             interpolated along axes {axes:?} (they must be {rank}-D, or of its rank with its \
             extent or 1 along every other axis)"
        )));
    }
    let m = axes.iter().map(|&a| ps[a]).collect();
    let others: Vec<usize> = (0..nd).filter(|i| !axes.contains(i)).collect();
    let shared = others.iter().all(|&i| ps[i] == 1);
    let broadcast = !shared && others.iter().any(|&i| ps[i] != shape[i]);
    Ok(PosLayout {
        axes,
        m,
        shared,
        broadcast,
    })
}

/// A grid's `(start, step)`, checked finite with a step that is not 0 in the positions' type.
fn grid_words<R: Element>(what: &str, g: &ApproxGrid) -> Result<(f64, f64)> {
    let step_r = R::from_scalar(Scalar::F64(g.step))
        .to_scalar()
        .to_f64_lossy();
    if !g.start.is_finite() || !g.step.is_finite() || step_r == 0.0 || !step_r.is_finite() {
        return Err(Error::InvalidArgument(format!(
            "{what}: the grid along axis {} needs a finite start and a finite step that is not \
             0 in {}, not start {} and step {}",
            g.axis,
            R::DTYPE,
            g.start,
            g.step
        )));
    }
    Ok((g.start, g.step))
}

fn run<V: InterpValue>(
    what: &str,
    input: &Array<V>,
    pos: &[&Array<V::Real>],
    grids: &[ApproxGrid],
    method: ApproxMethod,
    off_grid: f64,
) -> Result<Array<V>> {
    let mut nodes = vec![&input.node];
    nodes.extend(pos.iter().map(|p| &p.node));
    check_devices(&nodes)?;
    let rank = grids.len();
    let curve = method.curve(rank)?;
    let shape = input.shape().to_vec();
    let nd = shape.len();
    let lay = layout(what, nd, &shape, pos[0].shape(), grids)?;
    let words = grids
        .iter()
        .map(|g| grid_words::<V::Real>(what, g))
        .collect::<Result<Vec<_>>>()?;
    let mut out_shape = shape.clone();
    for (&a, &m) in lay.axes.iter().zip(&lay.m) {
        out_shape[a] = m;
    }
    crate::shape::checked_numel(&out_shape)?;
    // The batch axes first, then the interpolated axes in the grids' order.
    let mut perm: Vec<usize> = (0..nd).filter(|i| !lay.axes.contains(i)).collect();
    let batch: usize = perm.iter().map(|&i| shape[i]).product();
    let lead: Vec<usize> = perm.iter().map(|&i| out_shape[i]).collect();
    perm.extend(&lay.axes);
    let identity = perm.iter().enumerate().all(|(i, &p)| i == p);
    let to_canon = |a: &Array<V::Real>| -> Result<Array<V::Real>> {
        if identity {
            Ok(a.clone())
        } else {
            a.permute(&perm)
        }
    };
    let n: Vec<usize> = lay.axes.iter().map(|&a| shape[a]).collect();
    let plane: usize = lay.m.iter().product();
    let xs = if identity {
        input.clone()
    } else {
        input.permute(&perm)?
    };
    let xs = xs.reshape(&[batch * n.iter().product::<usize>()])?;
    let ps: Vec<Array<V::Real>> = pos
        .iter()
        .map(|p| {
            if lay.shared {
                p.reshape(&[plane])
            } else {
                let full = if lay.broadcast {
                    p.broadcast_to(&out_shape)?
                } else {
                    (*p).clone()
                };
                to_canon(&full)?.reshape(&[batch * plane])
            }
        })
        .collect::<Result<_>>()?;
    let dev = input.device();
    let call = Approx {
        real: <V::Real as Element>::DTYPE,
        complex: V::DTYPE.is_complex(),
        rank,
        curve,
        batch,
        n: [n[0], if rank == 2 { n[1] } else { 1 }],
        plane,
        cols: lay.m[rank - 1],
        shared: lay.shared,
        grid: [words[0], if rank == 2 { words[1] } else { (0.0, 1.0) }],
        off: (off_grid, 0.0),
    };
    let mut inputs = vec![xs.node.clone()];
    inputs.extend(ps.iter().map(|p| p.node.clone()));
    let flat: Array<V> = Array::from_node(Node::new(
        Op::Library(Arc::new(call), inputs),
        V::DTYPE,
        vec![batch * plane],
        dev,
    ));
    let mut canon = lead;
    canon.extend(&lay.m);
    let y = flat.reshape(&canon)?;
    if identity {
        return Ok(y);
    }
    let mut inv = vec![0; nd];
    for (i, &p) in perm.iter().enumerate() {
        inv[p] = i;
    }
    y.permute(&inv)
}
