//! SciPy's geometric transforms (`scipy.ndimage`'s `spline_filter`, `spline_filter1d`,
//! `map_coordinates`, `affine_transform`, `shift`, `zoom`, `rotate`), each one resampler call
//! (after the spline prefilter for orders above 1).

use super::elem::ImageElement;
use super::opts::{
    AffineOpts, GeometricOpts, InterpOpts, RotateOpts, SplineFilter1dOpts, SplineFilterOpts,
    ZoomOpts,
};
use super::sample::{Kind, Map, Sample};
use super::spline::SplineFilter;
use crate::array::Array;
use crate::device::Device;
use crate::dtype::{Element, Scalar};
use crate::error::{Error, Result};
use crate::graph::{LibraryCall, Node, Op};
use crate::image::Boundary;
use crate::ops::PadMode;
use std::sync::Arc;

pub(crate) fn bad(msg: String) -> Error {
    Error::InvalidArgument(msg)
}

/// Elements an output may have (the kernels index in signed 64-bit words).
const MAX_ELEMS: usize = 1 << 56;

/// The element count of `shape`, or an `Err` naming it where it overflows.
pub(crate) fn checked_size(shape: &[usize], what: &str) -> Result<usize> {
    shape
        .iter()
        .try_fold(1usize, |a, &b| a.checked_mul(b))
        .filter(|&n| n <= MAX_ELEMS)
        .ok_or_else(|| {
            bad(format!(
                "{what}: an output of shape {shape:?} has too many elements"
            ))
        })
}

/// The array a library call makes.
fn library<U: Element>(
    call: Arc<dyn LibraryCall>,
    inputs: Vec<Arc<Node>>,
    shape: Vec<usize>,
    device: Device,
) -> Array<U> {
    Array::from_node(Node::new(
        Op::Library(call, inputs),
        U::DTYPE,
        shape,
        device,
    ))
}

/// `x` filtered along each of `axes` in turn by SciPy's spline prefilter.
fn prefilter_axes<T: ImageElement>(
    x: &Array<T>,
    axes: &[usize],
    order: usize,
    mode: Boundary,
) -> Array<T::Real> {
    let shape = x.shape().to_vec();
    let mut cur: Option<Array<T::Real>> = None;
    for &a in axes {
        let (node, input) = match &cur {
            None => (x.node.clone(), T::DTYPE),
            Some(c) => (c.node.clone(), <T::Real as Element>::DTYPE),
        };
        let call = SplineFilter {
            input,
            order,
            outer: shape[..a].iter().product(),
            n: shape[a],
            inner: shape[a + 1..].iter().product(),
            mode,
        };
        cur = Some(library(
            Arc::new(call),
            vec![node],
            shape.clone(),
            x.device(),
        ));
    }
    cur.unwrap_or_else(|| x.cast())
}

fn check_order(order: usize, what: &str) -> Result<()> {
    if order > 5 {
        return Err(bad(format!(
            "{what}: spline order {order} (0 to 5 are taken)"
        )));
    }
    Ok(())
}

/// SciPy's `spline_filter1d`: the B-spline coefficients of `x` along its last axis (order 3,
/// mirror boundary), in the working type (`f64` for `f64`, else `f32`).
///
/// ```
/// use cuprite_array::{Array, Device, image};
/// let x = Array::<f64>::from_slice_on(Device::CPU, &[1.0, 2.0, 3.0, 4.0], &[4])?;
/// let c = image::spline_filter1d(&x)?.to_vec()?;
/// // The cubic B-spline with these coefficients passes through the samples.
/// assert!(((c[0] + 4.0 * c[1] + c[2]) / 6.0 - 2.0).abs() < 1e-12);
/// assert!(((c[1] + 4.0 * c[2] + c[3]) / 6.0 - 3.0).abs() < 1e-12);
/// # Ok::<(), cuprite_array::Error>(())
/// ```
pub fn spline_filter1d<T: ImageElement>(x: &Array<T>) -> Result<Array<T::Real>> {
    spline_filter1d_with(x, SplineFilter1dOpts::new())
}

/// SciPy's `spline_filter1d` with its `order`, `axis` and `mode`. Orders 0 and 1 copy the
/// input; a line of one value is copied.
///
/// ```
/// use cuprite_array::{Array, Device, image::{self, Boundary, SplineFilter1dOpts}};
/// let x = Array::<f32>::from_slice_on(Device::CPU, &[0.0, 1.0, 0.0, 0.0], &[2, 2])?;
/// let opts = SplineFilter1dOpts::new().axis(0).mode(Boundary::Reflect);
/// assert_eq!(image::spline_filter1d_with(&x, opts)?.shape(), &[2, 2]);
/// # Ok::<(), cuprite_array::Error>(())
/// ```
pub fn spline_filter1d_with<T: ImageElement>(
    x: &Array<T>,
    opts: SplineFilter1dOpts,
) -> Result<Array<T::Real>> {
    check_order(opts.order, "spline_filter1d")?;
    let nd = x.ndim() as isize;
    let a = if opts.axis < 0 {
        opts.axis + nd
    } else {
        opts.axis
    };
    if !(0..nd.max(1)).contains(&a) || nd == 0 {
        return Err(bad(format!(
            "spline_filter1d: axis {} of an array of {} axes",
            opts.axis, nd
        )));
    }
    if opts.order < 2 {
        return Ok(x.cast());
    }
    Ok(prefilter_axes(x, &[a as usize], opts.order, opts.mode))
}

/// SciPy's `spline_filter`: [`spline_filter1d`] along every axis of `x` (order 3, mirror
/// boundary).
///
/// ```
/// use cuprite_array::{Array, Device, image};
/// let x = Array::<f32>::from_slice_on(Device::CPU, &[2.0; 12], &[3, 4])?;
/// // A constant image is its own set of coefficients.
/// for v in image::spline_filter(&x)?.to_vec()? {
///     assert!((v - 2.0).abs() < 1e-5);
/// }
/// # Ok::<(), cuprite_array::Error>(())
/// ```
pub fn spline_filter<T: ImageElement>(x: &Array<T>) -> Result<Array<T::Real>> {
    spline_filter_with(x, SplineFilterOpts::new())
}

/// SciPy's `spline_filter` with its `order` and `mode`.
///
/// ```
/// use cuprite_array::{Array, Device, image::{self, Boundary, SplineFilterOpts}};
/// let x = Array::<u8>::from_slice_on(Device::CPU, &[0, 10, 20, 30], &[2, 2])?;
/// let c = image::spline_filter_with(&x, SplineFilterOpts::new().order(1))?;
/// assert_eq!(c.to_vec()?, vec![0.0f32, 10.0, 20.0, 30.0]);
/// # Ok::<(), cuprite_array::Error>(())
/// ```
pub fn spline_filter_with<T: ImageElement>(
    x: &Array<T>,
    opts: SplineFilterOpts,
) -> Result<Array<T::Real>> {
    check_order(opts.order, "spline_filter")?;
    if opts.order < 2 {
        return Ok(x.cast());
    }
    let axes: Vec<usize> = (0..x.ndim()).collect();
    Ok(prefilter_axes(x, &axes, opts.order, opts.mode))
}

/// What a resampling does: the transformed trailing axes, the map, the output shape of those
/// axes, and the interpolation.
pub(crate) struct Plan {
    pub rank: usize,
    pub map: Map,
    pub out: Vec<usize>,
    pub kind: Kind,
    pub order: usize,
    pub mode: Boundary,
    pub prefilter: bool,
}

/// `x` resampled by `plan` (its trailing `plan.rank` axes; leading axes are a batch), with
/// `coords` (`[rank, ...]`, the output's trailing shape) for a coordinates map.
pub(crate) fn resample<T: ImageElement>(
    x: &Array<T>,
    plan: Plan,
    coords: Option<&Array<f64>>,
    what: &str,
) -> Result<Array<T>> {
    let r = plan.rank;
    let nd = x.ndim();
    if !(1..=3).contains(&r) || r > nd {
        return Err(bad(format!(
            "{what}: {r} transformed axes of an array of shape {:?} (1 to 3, at most its rank)",
            x.shape()
        )));
    }
    check_order(plan.order, what)?;
    if matches!(plan.map, Map::Affine { .. }) && plan.out.len() != r {
        return Err(bad(format!(
            "{what}: an output shape {:?} for {r} transformed axes",
            plan.out
        )));
    }
    let lead = &x.shape()[..nd - r];
    let mut n = [1usize; 3];
    n[..r].copy_from_slice(&x.shape()[nd - r..]);
    let batch: usize = lead.iter().product();
    let mut shape = lead.to_vec();
    shape.extend_from_slice(&plan.out);
    let total = checked_size(&shape, what)?;
    let mut l = [1usize; 3];
    match plan.map {
        Map::Coords => l[r - 1] = plan.out.iter().product(),
        Map::Affine { .. } => l[..r].copy_from_slice(&plan.out),
    }
    if total > 0 && n[..r].contains(&0) {
        return Err(bad(format!(
            "{what}: an empty input of shape {:?} gives no values for an output of shape {shape:?}",
            x.shape()
        )));
    }
    let spline = plan.kind == Kind::Spline && plan.order > 1 && plan.prefilter;
    let axes: Vec<usize> = (nd - r..nd).collect();
    let npad = match plan.mode {
        Boundary::Nearest | Boundary::GridConstant(_) if spline => 12,
        _ => 0,
    };
    let (node, input) = if !spline {
        (x.node.clone(), T::DTYPE)
    } else if npad == 0 {
        let c = prefilter_axes(x, &axes, plan.order, plan.mode);
        (c.node.clone(), <T::Real as Element>::DTYPE)
    } else {
        let mut widths = vec![(0, 0); nd];
        for &a in &axes {
            widths[a] = (npad, npad);
        }
        let xw: Array<T::Real> = x.cast();
        let padded = match plan.mode {
            Boundary::Nearest => xw.pad_mode(&widths, PadMode::Edge)?,
            mode => xw.pad(&widths, T::Real::from_scalar(Scalar::F64(mode.cval())))?,
        };
        let c = prefilter_axes(&padded, &axes, plan.order, plan.mode);
        (c.node.clone(), <T::Real as Element>::DTYPE)
    };
    let mut np = n;
    for v in np.iter_mut().take(r) {
        *v += 2 * npad;
    }
    let call = Sample {
        input,
        output: T::DTYPE,
        rank: r,
        kind: plan.kind,
        order: plan.order,
        batch,
        n: np,
        l,
        mode: plan.mode,
        npad,
        map: plan.map,
    };
    let mut inputs = vec![node];
    if let Some(c) = coords {
        if c.device() != x.device() {
            return Err(bad(format!(
                "{what}: coordinates on {:?} for an image on {:?}",
                c.device(),
                x.device()
            )));
        }
        inputs.push(c.node.clone());
    }
    Ok(library(Arc::new(call), inputs, shape, x.device()))
}

/// SciPy's `geometric_transform`: output point `o` (its indices) takes the input interpolated
/// at `mapping(o)` (one coordinate per axis of `x`, 1 to 3 axes); the input's shape, order 3,
/// mode `constant` (0), prefiltered. `mapping` runs on the host once per output point (as
/// SciPy's Python callable does), and the points are then sampled as by [`map_coordinates`].
///
/// ```
/// use cuprite_array::{Array, Device, image::{self, GeometricOpts}};
/// let a = Array::<f64>::from_slice_on(Device::CPU, &[0.0, 1.0, 2.0, 3.0, 4.0, 5.0], &[2, 3])?;
/// // SciPy's example mapping: (i, j) -> (i - 0.5, j - 0.5) here on a small ramp, order 1,
/// // mode nearest: each output averages the cells up and to the left.
/// let t = image::geometric_transform_with(&a, |o| vec![o[0] as f64 - 0.5, o[1] as f64 - 0.5],
///     GeometricOpts::new().order(1).mode(image::Boundary::Nearest))?;
/// assert_eq!(t.to_vec()?, vec![0.0, 0.5, 1.5, 1.5, 2.0, 3.0]);
/// # Ok::<(), cuprite_array::Error>(())
/// ```
pub fn geometric_transform<T: ImageElement>(
    x: &Array<T>,
    mapping: impl Fn(&[usize]) -> Vec<f64>,
) -> Result<Array<T>> {
    geometric_transform_with(x, mapping, GeometricOpts::new())
}

/// SciPy's `geometric_transform` with its `output_shape`, `order`, `mode` (with `cval`) and
/// `prefilter`. A mapping that returns another count of coordinates than `x` has axes is an
/// `Err` naming the point.
///
/// ```
/// use cuprite_array::{Array, Device, image::{self, GeometricOpts}};
/// let a = Array::<f32>::from_slice_on(Device::CPU, &[1.0, 2.0, 3.0], &[3])?;
/// let opts = GeometricOpts::new().output_shape(&[2]).order(0);
/// let t = image::geometric_transform_with(&a, |o| vec![2.0 - o[0] as f64], opts)?;
/// assert_eq!(t.to_vec()?, vec![3.0, 2.0]);
/// # Ok::<(), cuprite_array::Error>(())
/// ```
pub fn geometric_transform_with<T: ImageElement>(
    x: &Array<T>,
    mapping: impl Fn(&[usize]) -> Vec<f64>,
    opts: GeometricOpts,
) -> Result<Array<T>> {
    let what = "geometric_transform";
    let r = x.ndim();
    let out = opts
        .output_shape
        .clone()
        .unwrap_or_else(|| x.shape().to_vec());
    let points = checked_size(&out, what)?;
    let mut coords = vec![0.0; r * points];
    let mut o = vec![0usize; out.len()];
    for p in 0..points {
        let mut rest = p;
        for a in (0..out.len()).rev() {
            o[a] = rest % out[a];
            rest /= out[a];
        }
        let c = mapping(&o);
        if c.len() != r {
            return Err(bad(format!(
                "{what}: the mapping gave {} coordinates at {o:?} for an input of shape {:?}",
                c.len(),
                x.shape()
            )));
        }
        for (a, v) in c.into_iter().enumerate() {
            coords[a * points + p] = v;
        }
    }
    let mut shape = vec![r];
    shape.extend_from_slice(&out);
    let c = Array::from_slice_on(x.device(), &coords, &shape)?;
    map_coordinates_with(x, &c, opts.interp)
}

/// The affine map `c = m o + offset` of `r` axes.
fn affine(r: usize, m: &[Vec<f64>], offset: &[f64]) -> Map {
    let mut mm = [[0.0; 4]; 3];
    for a in 0..r {
        mm[a][..r].copy_from_slice(&m[a][..r]);
        mm[a][3] = offset[a];
    }
    Map::Affine { m: mm, p: None }
}

fn finite(v: &[f64], name: &str, what: &str) -> Result<()> {
    if v.iter().any(|x| !x.is_finite()) {
        return Err(bad(format!("{what}: {name} {v:?} is not finite")));
    }
    Ok(())
}

/// SciPy's `map_coordinates`: the input interpolated at the points `coordinates` (an `f64`
/// array `[r, ...]`: row `a` holds axis `a`'s coordinate of each output point) over the
/// trailing `r` axes of `x` (1 to 3), the leading axes a batch; order 3, mode `constant` (0),
/// prefiltered. The output's shape is the batch's followed by `coordinates.shape()[1..]`.
///
/// ```
/// use cuprite_array::{Array, Device, image::{self, InterpOpts}};
/// // SciPy's example: a 4 x 3 ramp at (0.5, 0.5) and (2, 1), order 1.
/// let a = Array::<f64>::from_slice_on(Device::CPU, &(0..12).map(f64::from).collect::<Vec<_>>(), &[4, 3])?;
/// let c = Array::<f64>::from_slice_on(Device::CPU, &[0.5, 2.0, 0.5, 1.0], &[2, 2])?;
/// let v = image::map_coordinates_with(&a, &c, InterpOpts::new().order(1))?.to_vec()?;
/// assert_eq!(v, vec![2.0, 7.0]);
/// # Ok::<(), cuprite_array::Error>(())
/// ```
pub fn map_coordinates<T: ImageElement>(
    x: &Array<T>,
    coordinates: &Array<f64>,
) -> Result<Array<T>> {
    map_coordinates_with(x, coordinates, InterpOpts::new())
}

/// SciPy's `map_coordinates` with its `order`, `mode` (with `cval`) and `prefilter`.
///
/// ```
/// use cuprite_array::{Array, Device, image::{self, Boundary, InterpOpts}};
/// let a = Array::<f32>::from_slice_on(Device::CPU, &[1.0, 2.0, 3.0], &[3])?;
/// let c = Array::<f64>::from_slice_on(Device::CPU, &[-1.0, 3.5], &[1, 2])?;
/// let opts = InterpOpts::new().order(0).mode(Boundary::Constant(9.0));
/// assert_eq!(image::map_coordinates_with(&a, &c, opts)?.to_vec()?, vec![9.0, 9.0]);
/// # Ok::<(), cuprite_array::Error>(())
/// ```
pub fn map_coordinates_with<T: ImageElement>(
    x: &Array<T>,
    coordinates: &Array<f64>,
    opts: InterpOpts,
) -> Result<Array<T>> {
    let what = "map_coordinates";
    let cs = coordinates.shape();
    let Some(&r) = cs.first() else {
        return Err(bad(format!(
            "{what}: coordinates of shape {cs:?} (expected [rank, ...])"
        )));
    };
    let plan = Plan {
        rank: r,
        map: Map::Coords,
        out: cs[1..].to_vec(),
        kind: Kind::Spline,
        order: opts.order,
        mode: opts.mode,
        prefilter: opts.prefilter,
    };
    resample(x, plan, Some(coordinates), what)
}

/// SciPy's `affine_transform`: output point `o` takes the input at `matrix o + offset`. The
/// matrix is `r x r`, `r x (r + 1)` (its last column the offset) or, when `x` has `r` axes,
/// the homogeneous `(r + 1) x (r + 1)` (last row `0 .. 0 1`); it transforms the trailing `r`
/// axes of `x` (1 to 3), the leading axes a batch. Order 3, mode `constant` (0), prefiltered,
/// the input's shape.
///
/// ```
/// use cuprite_array::{Array, Device, image::{self, AffineOpts}};
/// let a = Array::<f32>::from_slice_on(Device::CPU, &[0.0, 1.0, 2.0, 3.0, 4.0, 5.0], &[2, 3])?;
/// // The transpose: output (i, j) takes input (j, i).
/// let t = image::affine_transform_with(&a, &[[0.0, 1.0], [1.0, 0.0]],
///     AffineOpts::new().output_shape(&[3, 2]).order(0))?;
/// assert_eq!(t.to_vec()?, vec![0.0, 3.0, 1.0, 4.0, 2.0, 5.0]);
/// # Ok::<(), cuprite_array::Error>(())
/// ```
pub fn affine_transform<T: ImageElement, const C: usize>(
    x: &Array<T>,
    matrix: &[[f64; C]],
) -> Result<Array<T>> {
    affine_transform_with(x, matrix, AffineOpts::new())
}

/// SciPy's `affine_transform` with its `offset`, `output_shape`, `order`, `mode` (with `cval`)
/// and `prefilter`.
///
/// ```
/// use cuprite_array::{Array, Device, image::{self, AffineOpts}};
/// let a = Array::<f64>::from_slice_on(Device::CPU, &[0.0, 10.0, 20.0, 30.0], &[4])?;
/// let t = image::affine_transform_with(&a, &[[0.5]], AffineOpts::new().offset(&[1.0]).order(1))?;
/// assert_eq!(t.to_vec()?, vec![10.0, 15.0, 20.0, 25.0]);
/// # Ok::<(), cuprite_array::Error>(())
/// ```
pub fn affine_transform_with<T: ImageElement, const C: usize>(
    x: &Array<T>,
    matrix: &[[f64; C]],
    opts: AffineOpts,
) -> Result<Array<T>> {
    let what = "affine_transform";
    let rows = matrix.len();
    let flat: Vec<f64> = matrix.iter().flatten().copied().collect();
    finite(&flat, "the matrix", what)?;
    finite(&opts.offset, "the offset", what)?;
    let m: Vec<Vec<f64>> = matrix.iter().map(|r| r.to_vec()).collect();
    let homogeneous = C == rows && rows >= 2 && rows == x.ndim() + 1;
    let (r, own_offset) = if C == rows + 1 {
        (rows, true)
    } else if homogeneous {
        let last = &matrix[rows - 1];
        if last[..C - 1].iter().any(|&v| v != 0.0) || last[C - 1] != 1.0 {
            return Err(bad(format!(
                "{what}: a homogeneous matrix's last row is {last:?} (expected 0 .. 0 1)"
            )));
        }
        (rows - 1, true)
    } else if C == rows {
        (rows, false)
    } else {
        return Err(bad(format!(
            "{what}: a matrix of {rows} x {C} (expected r x r, r x (r + 1) or (r + 1) x (r + 1))"
        )));
    };
    let offset: Vec<f64> = if own_offset {
        m.iter().take(r).map(|row| row[r]).collect()
    } else if opts.offset.len() == 1 {
        vec![opts.offset[0]; r]
    } else if opts.offset.len() == r {
        opts.offset.clone()
    } else {
        return Err(bad(format!(
            "{what}: an offset of {} values for {r} axes",
            opts.offset.len()
        )));
    };
    if r == 0 || r > x.ndim() {
        return Err(bad(format!(
            "{what}: a {rows} x {C} matrix for an array of shape {:?}",
            x.shape()
        )));
    }
    let out = match &opts.output_shape {
        Some(s) if s.len() != r => {
            return Err(bad(format!(
                "{what}: output_shape {s:?} for {r} transformed axes"
            )));
        }
        Some(s) => s.clone(),
        None => x.shape()[x.ndim() - r..].to_vec(),
    };
    let i = opts.interp;
    let plan = Plan {
        rank: r,
        map: affine(r, &m, &offset),
        out,
        kind: Kind::Spline,
        order: i.order,
        mode: i.mode,
        prefilter: i.prefilter,
    };
    resample(x, plan, None, what)
}

/// SciPy's `shift`: the trailing `shift.len()` axes of `x` (1 to 3) shifted by `shift`
/// (output `o` takes the input at `o - shift`), the leading axes a batch; order 3, mode
/// `constant` (0), prefiltered.
///
/// ```
/// use cuprite_array::{Array, Device, image::{self, Boundary, InterpOpts}};
/// let a = Array::<u8>::from_slice_on(Device::CPU, &[1, 2, 3, 4], &[4])?;
/// let s = image::shift_with(&a, &[1.0], InterpOpts::new().mode(Boundary::GridWrap))?;
/// assert_eq!(s.to_vec()?, vec![4, 1, 2, 3]);
/// # Ok::<(), cuprite_array::Error>(())
/// ```
pub fn shift<T: ImageElement>(x: &Array<T>, shift: &[f64]) -> Result<Array<T>> {
    shift_with(x, shift, InterpOpts::new())
}

/// SciPy's `shift` with its `order`, `mode` (with `cval`) and `prefilter`.
///
/// ```
/// use cuprite_array::{Array, Device, image::{self, InterpOpts}};
/// let a = Array::<f32>::from_slice_on(Device::CPU, &[0.0, 2.0, 4.0], &[3])?;
/// let s = image::shift_with(&a, &[0.5], InterpOpts::new().order(1))?;
/// assert_eq!(s.to_vec()?, vec![0.0, 1.0, 3.0]);
/// # Ok::<(), cuprite_array::Error>(())
/// ```
pub fn shift_with<T: ImageElement>(
    x: &Array<T>,
    shift: &[f64],
    opts: InterpOpts,
) -> Result<Array<T>> {
    let what = "shift";
    finite(shift, "the shift", what)?;
    let r = shift.len();
    let eye: Vec<Vec<f64>> = (0..r)
        .map(|a| (0..r).map(|j| f64::from(u8::from(a == j))).collect())
        .collect();
    let neg: Vec<f64> = shift.iter().map(|s| -s).collect();
    let out = if r <= x.ndim() {
        x.shape()[x.ndim() - r..].to_vec()
    } else {
        vec![]
    };
    let plan = Plan {
        rank: r,
        map: affine(r.min(3), &eye, &neg),
        out,
        kind: Kind::Spline,
        order: opts.order,
        mode: opts.mode,
        prefilter: opts.prefilter,
    };
    resample(x, plan, None, what)
}

/// SciPy's `zoom`: the trailing `zoom.len()` axes of `x` (1 to 3) scaled by `zoom` (each
/// output extent `round(n * zoom)`, ties to even as Python's `round`), the leading axes a
/// batch; order 3, mode `constant` (0), prefiltered, the first and last pixel centres mapped
/// onto each other.
///
/// ```
/// use cuprite_array::{Array, Device, image::{self, ZoomOpts}};
/// let a = Array::<f64>::from_slice_on(Device::CPU, &[0.0, 4.0], &[2])?;
/// let z = image::zoom_with(&a, &[2.5], ZoomOpts::new().order(1))?;
/// assert_eq!(z.to_vec()?, vec![0.0, 1.0, 2.0, 3.0, 4.0]);
/// # Ok::<(), cuprite_array::Error>(())
/// ```
pub fn zoom<T: ImageElement>(x: &Array<T>, zoom: &[f64]) -> Result<Array<T>> {
    zoom_with(x, zoom, ZoomOpts::new())
}

/// SciPy's `zoom` with its `order`, `mode` (with `cval`), `prefilter` and `grid_mode`.
///
/// ```
/// use cuprite_array::{Array, Device, image::{self, Boundary, ZoomOpts}};
/// let a = Array::<f32>::from_slice_on(Device::CPU, &[1.0, 2.0], &[2])?;
/// let opts = ZoomOpts::new().order(0).grid_mode(true).mode(Boundary::GridConstant(0.0));
/// assert_eq!(image::zoom_with(&a, &[2.0], opts)?.to_vec()?, vec![1.0, 1.0, 2.0, 2.0]);
/// # Ok::<(), cuprite_array::Error>(())
/// ```
pub fn zoom_with<T: ImageElement>(x: &Array<T>, zoom: &[f64], opts: ZoomOpts) -> Result<Array<T>> {
    let what = "zoom";
    if zoom.iter().any(|z| !(z.is_finite() && *z > 0.0)) {
        return Err(bad(format!(
            "{what}: factors {zoom:?} (each finite and above 0)"
        )));
    }
    let r = zoom.len();
    if !(1..=3).contains(&r) || r > x.ndim() {
        return Err(bad(format!(
            "{what}: {r} factors for an array of shape {:?} (1 to 3, at most its rank)",
            x.shape()
        )));
    }
    let n = &x.shape()[x.ndim() - r..];
    let mut out = Vec::with_capacity(r);
    for (&ni, &z) in n.iter().zip(zoom) {
        let v = (ni as f64 * z).round_ties_even();
        if v >= MAX_ELEMS as f64 {
            return Err(bad(format!(
                "{what}: factor {z:?} makes an axis of {ni} into {v:?} values"
            )));
        }
        out.push(v as usize);
    }
    if zoom.iter().all(|&z| z == 1.0) && opts.interp.prefilter {
        return Ok(x.clone());
    }
    let mut m = vec![vec![0.0; r]; r];
    let mut offset = vec![0.0; r];
    for a in 0..r {
        let (num, div) = if opts.grid_mode {
            (n[a] as f64, out[a] as f64)
        } else {
            (n[a] as f64 - 1.0, out[a] as f64 - 1.0)
        };
        let f = if div != 0.0 { num / div } else { 1.0 };
        m[a][a] = f;
        if opts.grid_mode {
            offset[a] = 0.5 * f - 0.5;
        }
    }
    let i = opts.interp;
    let plan = Plan {
        rank: r,
        map: affine(r, &m, &offset),
        out,
        kind: Kind::Spline,
        order: i.order,
        mode: i.mode,
        prefilter: i.prefilter,
    };
    resample(x, plan, None, what)
}

/// `(cos, sin)` of `deg` degrees, exact at multiples of 90 (as SciPy's `cosdg`, `sindg`).
pub(crate) fn cos_sin_deg(deg: f64) -> (f64, f64) {
    let a = deg.rem_euclid(360.0);
    match a {
        0.0 => (1.0, 0.0),
        90.0 => (0.0, 1.0),
        180.0 => (-1.0, 0.0),
        270.0 => (0.0, -1.0),
        _ => {
            let r = deg.to_radians();
            (r.cos(), r.sin())
        }
    }
}

/// SciPy's `rotate`: `x` rotated by `angle` degrees in the plane of its first two axes
/// (SciPy's default `axes = (1, 0)`; `RotateOpts::axes(-2, -1)` rotates each image of a
/// batch), about the plane's centre, the output enlarged to hold the whole input; order 3,
/// mode `constant` (0), prefiltered. Planes along the other axes are rotated alike.
///
/// ```
/// use cuprite_array::{Array, Device, image::{self, RotateOpts}};
/// let a = Array::<f32>::from_slice_on(Device::CPU, &[1.0, 2.0, 3.0, 4.0, 5.0, 6.0], &[2, 3])?;
/// // A quarter turn is a permutation of the pixels.
/// let r = image::rotate_with(&a, 90.0, RotateOpts::new().order(1))?;
/// assert_eq!(r.shape(), &[3, 2]);
/// assert_eq!(r.to_vec()?, vec![3.0, 6.0, 2.0, 5.0, 1.0, 4.0]);
/// # Ok::<(), cuprite_array::Error>(())
/// ```
pub fn rotate<T: ImageElement>(x: &Array<T>, angle: f64) -> Result<Array<T>> {
    rotate_with(x, angle, RotateOpts::new())
}

/// SciPy's `rotate` with its `axes`, `reshape`, `order`, `mode` (with `cval`) and
/// `prefilter`.
///
/// ```
/// use cuprite_array::{Array, Device, image::{self, RotateOpts}};
/// let a = Array::<u8>::from_slice_on(Device::CPU, &[1, 2, 3, 4, 5, 6, 7, 8], &[2, 2, 2])?;
/// let r = image::rotate_with(&a, 180.0, RotateOpts::new().axes(-2, -1).order(0))?;
/// assert_eq!(r.to_vec()?, vec![4, 3, 2, 1, 8, 7, 6, 5]);
/// # Ok::<(), cuprite_array::Error>(())
/// ```
pub fn rotate_with<T: ImageElement>(
    x: &Array<T>,
    angle: f64,
    opts: RotateOpts,
) -> Result<Array<T>> {
    let what = "rotate";
    let nd = x.ndim() as isize;
    if nd < 2 {
        return Err(bad(format!(
            "{what}: an array of shape {:?} (at least 2 axes)",
            x.shape()
        )));
    }
    if !angle.is_finite() {
        return Err(bad(format!("{what}: angle {angle} is not finite")));
    }
    let norm = |a: isize| if a < 0 { a + nd } else { a };
    let (a0, a1) = (norm(opts.axes.0), norm(opts.axes.1));
    if !(0..nd).contains(&a0) || !(0..nd).contains(&a1) || a0 == a1 {
        return Err(bad(format!(
            "{what}: axes {:?} of an array of {nd} axes (two different axes)",
            opts.axes
        )));
    }
    let (a0, a1) = (a0.min(a1) as usize, a0.max(a1) as usize);
    let (c, s) = cos_sin_deg(angle);
    let (iy, ix) = (x.shape()[a0] as f64, x.shape()[a1] as f64);
    let out = if opts.reshape {
        let ptp = |v: [f64; 4]| {
            let (lo, hi) = v
                .iter()
                .fold((f64::INFINITY, f64::NEG_INFINITY), |(l, h), &e| {
                    (l.min(e), h.max(e))
                });
            (hi - lo + 0.5) as usize
        };
        [
            ptp([0.0, s * ix, c * iy, c * iy + s * ix]),
            ptp([0.0, c * ix, -s * iy, -s * iy + c * ix]),
        ]
    } else {
        [x.shape()[a0], x.shape()[a1]]
    };
    let (oy, ox) = ((out[0] as f64 - 1.0) / 2.0, (out[1] as f64 - 1.0) / 2.0);
    let offset = [
        (iy - 1.0) / 2.0 - (c * oy + s * ox),
        (ix - 1.0) / 2.0 - (-s * oy + c * ox),
    ];
    let m = vec![vec![c, s], vec![-s, c]];
    // The plane's axes last (the others kept in order), rotated, then put back.
    let mut perm: Vec<usize> = (0..x.ndim()).filter(|&a| a != a0 && a != a1).collect();
    perm.extend([a0, a1]);
    let mut inv = vec![0; perm.len()];
    for (i, &p) in perm.iter().enumerate() {
        inv[p] = i;
    }
    let xp = x.permute(&perm)?;
    let i = opts.interp;
    let plan = Plan {
        rank: 2,
        map: affine(2, &m, &offset),
        out: out.to_vec(),
        kind: Kind::Spline,
        order: i.order,
        mode: i.mode,
        prefilter: i.prefilter,
    };
    resample(&xp, plan, None, what)?.permute(&inv)
}
