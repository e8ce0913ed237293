//! ArrayFire's `sat` (summed-area table) and `unwrap`/`wrap` (im2col and col2im), composed of
//! the crate's scans, pads, strided slices and stacks (fused element-wise work on either
//! backend).

use super::elem::ImageElement;
use super::scipy::{bad, checked_size};
use crate::array::Array;
use crate::dtype::{Element, Numeric};
use crate::error::Result;
use crate::shape::SliceArg;

/// Options of [`unwrap_with`] and [`wrap_with`]: ArrayFire's padding `px`, `py` (default 0:
/// zeros added before and after the rows and the columns) and `is_column` (default `true`:
/// one patch a column).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[must_use]
pub struct WrapOpts {
    pub(crate) px: usize,
    pub(crate) py: usize,
    pub(crate) is_column: bool,
}

impl Default for WrapOpts {
    fn default() -> Self {
        Self::new()
    }
}

impl WrapOpts {
    /// ArrayFire's defaults: no padding, patches as columns.
    pub fn new() -> Self {
        WrapOpts {
            px: 0,
            py: 0,
            is_column: true,
        }
    }
    /// Zeros added before and after the rows (`px`) and the columns (`py`).
    pub fn padding(self, px: usize, py: usize) -> Self {
        WrapOpts { px, py, ..self }
    }
    /// Whether each patch is a column (`true`) or a row of the result.
    pub fn is_column(self, is_column: bool) -> Self {
        WrapOpts { is_column, ..self }
    }
}

/// ArrayFire's `sat`: the summed-area table of the trailing two axes (each value the sum of
/// the values above and left of it, itself included), in `u32` for `u8`/`u16` (wrapping as
/// ArrayFire's), `f32` for `f16` and `f32`, `f64` for `f64`.
///
/// ```
/// use cuprite_array::{Array, Device, image};
/// let a = Array::<u8>::from_slice_on(Device::CPU, &[1, 2, 3, 4], &[2, 2])?;
/// assert_eq!(image::sat(&a)?.to_vec()?, vec![1u32, 3, 4, 10]);
/// # Ok::<(), cuprite_array::Error>(())
/// ```
pub fn sat<T: ImageElement>(x: &Array<T>) -> Result<Array<T::Sum>> {
    if x.ndim() < 2 {
        return Err(bad(format!(
            "sat: an array of shape {:?} (at least 2 axes)",
            x.shape()
        )));
    }
    let s: Array<T::Sum> = x.cast();
    Ok(s.cumsum(-2)?.cast::<T::Sum>().cumsum(-1)?.cast())
}

fn range(start: usize, len: usize, step: usize) -> SliceArg {
    SliceArg::Range {
        start: Some(start as isize),
        end: Some((start + (len.max(1) - 1) * step + 1) as isize),
        step: step as isize,
    }
}

const ALL: SliceArg = SliceArg::Range {
    start: None,
    end: None,
    step: 1,
};

/// `a b`, or an `Err` naming both where the product overflows.
fn product(a: usize, b: usize, what: &str) -> Result<usize> {
    a.checked_mul(b)
        .ok_or_else(|| bad(format!("{what}: {a} x {b} overflows the address space")))
}

/// The count of windows of `w` cells, `s` apart, along an axis of `n` padded by `p` each side.
fn windows(n: usize, w: usize, s: usize, p: usize, what: &str) -> Result<usize> {
    let span = p
        .checked_mul(2)
        .and_then(|d| d.checked_add(n))
        .ok_or_else(|| {
            bad(format!(
                "{what}: {n} cells padded by {p} each side overflow the address space"
            ))
        })?;
    if w == 0 || s == 0 || w > span {
        return Err(bad(format!(
            "{what}: a window of {w} cells, stride {s}, over {n} cells padded by {p} (window \
             and stride above 0, window within the padded axis)"
        )));
    }
    Ok((span - w) / s + 1)
}

/// ArrayFire's `unwrap` (im2col): the `wx x wy` windows of the trailing two axes, `sx`, `sy`
/// apart, each flattened into a column of the result `[..., wx wy, windows]`. Patches and
/// windows are listed in row-major order (as PyTorch's `unfold`; ArrayFire, column-major,
/// lists them with the first index fastest).
///
/// ```
/// use cuprite_array::{Array, Device, image};
/// let a = Array::<f32>::from_slice_on(Device::CPU, &[1.0, 2.0, 3.0, 4.0, 5.0, 6.0], &[2, 3])?;
/// let u = image::unwrap(&a, 2, 2, 1, 1)?;
/// assert_eq!(u.shape(), &[4, 2]);
/// assert_eq!(u.to_vec()?, vec![1.0, 2.0, 2.0, 3.0, 4.0, 5.0, 5.0, 6.0]);
/// # Ok::<(), cuprite_array::Error>(())
/// ```
pub fn unwrap<T: Element>(
    x: &Array<T>,
    wx: usize,
    wy: usize,
    sx: usize,
    sy: usize,
) -> Result<Array<T>> {
    unwrap_with(x, wx, wy, sx, sy, WrapOpts::new())
}

/// ArrayFire's `unwrap` with its padding (`px < wx`, `py < wy`) and `is_column`.
///
/// ```
/// use cuprite_array::{Array, Device, image::{self, WrapOpts}};
/// let a = Array::<u8>::from_slice_on(Device::CPU, &[1, 2, 3, 4], &[2, 2])?;
/// let u = image::unwrap_with(&a, 2, 2, 2, 2, WrapOpts::new().padding(1, 0).is_column(false))?;
/// assert_eq!(u.to_vec()?, vec![0, 0, 1, 2, 3, 4, 0, 0]);
/// # Ok::<(), cuprite_array::Error>(())
/// ```
pub fn unwrap_with<T: Element>(
    x: &Array<T>,
    wx: usize,
    wy: usize,
    sx: usize,
    sy: usize,
    opts: WrapOpts,
) -> Result<Array<T>> {
    let what = "unwrap";
    let nd = x.ndim();
    if nd < 2 {
        return Err(bad(format!(
            "{what}: an array of shape {:?} (at least 2 axes)",
            x.shape()
        )));
    }
    if opts.px >= wx.max(1) || opts.py >= wy.max(1) {
        return Err(bad(format!(
            "{what}: padding {}, {} for a {wx} x {wy} window (each below the window)",
            opts.px, opts.py
        )));
    }
    let (n0, n1) = (x.shape()[nd - 2], x.shape()[nd - 1]);
    let nx = windows(n0, wx, sx, opts.px, what)?;
    let ny = windows(n1, wy, sy, opts.py, what)?;
    let lead = &x.shape()[..nd - 2];
    let (cells, places) = (product(wx, wy, what)?, product(nx, ny, what)?);
    let mut shape = lead.to_vec();
    shape.extend([cells, places]);
    checked_size(&shape, what)?;
    let mut widths = vec![(0, 0); nd];
    widths[nd - 2] = (opts.px, opts.px);
    widths[nd - 1] = (opts.py, opts.py);
    let xp = x.pad(&widths, T::default())?;
    let mut flat = lead.to_vec();
    flat.push(places);
    let mut parts = Vec::with_capacity(cells);
    for i in 0..wx {
        for j in 0..wy {
            let mut args = vec![ALL; nd - 2];
            args.extend([range(i, nx, sx), range(j, ny, sy)]);
            parts.push(xp.slice(&args)?.reshape(&flat)?);
        }
    }
    let refs: Vec<&Array<T>> = parts.iter().collect();
    let cols = Array::stack(&refs, -2)?;
    if opts.is_column {
        Ok(cols)
    } else {
        cols.swapaxes(-1, -2)
    }
}

/// ArrayFire's `wrap` (col2im): the inverse arrangement of [`unwrap`], the patches of `x`
/// (`[..., wx wy, windows]`) added into an `ox x oy` image where they overlap.
///
/// ```
/// use cuprite_array::{Array, Device, image};
/// let a = Array::<f32>::from_slice_on(Device::CPU, &[1.0, 2.0, 3.0, 4.0, 5.0, 6.0], &[2, 3])?;
/// let u = image::unwrap(&a, 2, 2, 1, 1)?;
/// // The middle column lies in both windows.
/// let w = image::wrap(&u, 2, 3, 2, 2, 1, 1)?;
/// assert_eq!(w.to_vec()?, vec![1.0, 4.0, 3.0, 4.0, 10.0, 6.0]);
/// # Ok::<(), cuprite_array::Error>(())
/// ```
pub fn wrap<T: Numeric>(
    x: &Array<T>,
    ox: usize,
    oy: usize,
    wx: usize,
    wy: usize,
    sx: usize,
    sy: usize,
) -> Result<Array<T>> {
    wrap_with(x, ox, oy, wx, wy, sx, sy, WrapOpts::new())
}

/// ArrayFire's `wrap` with its padding and `is_column`.
///
/// ```
/// use cuprite_array::{Array, Device, image::{self, WrapOpts}};
/// let a = Array::<u8>::from_slice_on(Device::CPU, &[1, 2, 3, 4], &[2, 2])?;
/// let o = WrapOpts::new().padding(1, 0).is_column(false);
/// let u = image::unwrap_with(&a, 2, 2, 2, 2, o)?;
/// assert_eq!(image::wrap_with(&u, 2, 2, 2, 2, 2, 2, o)?.to_vec()?, vec![1, 2, 3, 4]);
/// # Ok::<(), cuprite_array::Error>(())
/// ```
#[allow(clippy::too_many_arguments)]
pub fn wrap_with<T: Numeric>(
    x: &Array<T>,
    ox: usize,
    oy: usize,
    wx: usize,
    wy: usize,
    sx: usize,
    sy: usize,
    opts: WrapOpts,
) -> Result<Array<T>> {
    let what = "wrap";
    let nd = x.ndim();
    if nd < 2 {
        return Err(bad(format!(
            "{what}: an array of shape {:?} (at least 2 axes)",
            x.shape()
        )));
    }
    let nx = windows(ox, wx, sx, opts.px, what)?;
    let ny = windows(oy, wy, sy, opts.py, what)?;
    let cols = if opts.is_column {
        x.clone()
    } else {
        x.swapaxes(-1, -2)?
    };
    let (p, l) = (cols.shape()[nd - 2], cols.shape()[nd - 1]);
    let (cells, places) = (product(wx, wy, what)?, product(nx, ny, what)?);
    if p != cells || l != places {
        return Err(bad(format!(
            "{what}: patches of shape {:?} for {wx} x {wy} windows at {nx} x {ny} places \
             (expected [..., {cells}, {places}] with is_column)",
            x.shape(),
        )));
    }
    let lead = &x.shape()[..nd - 2];
    // `windows` checked `o + 2 p` on both axes.
    let (p0, p1) = (ox + 2 * opts.px, oy + 2 * opts.py);
    let mut shape = lead.to_vec();
    shape.extend([p0, p1]);
    checked_size(&shape, what)?;
    let (e0, e1) = (sx * (nx - 1) + 1, sy * (ny - 1) + 1);
    let with = |tail: &[usize]| -> Vec<usize> { lead.iter().chain(tail).copied().collect() };
    let mut widths = vec![(0, 0); lead.len()];
    widths.extend([(0, 0), (0, sx - 1), (0, 0), (0, sy - 1)]);
    let mut total: Option<Array<T>> = None;
    for i in 0..wx {
        for j in 0..wy {
            let mut args = vec![ALL; nd - 2];
            args.extend([SliceArg::Index((i * wy + j) as isize), ALL]);
            // Window (a, b)'s value lands at (i + a sx, j + b sy) of the padded image.
            let spread = cols
                .slice(&args)?
                .reshape(&with(&[nx, 1, ny, 1]))?
                .pad(&widths, T::default())?
                .reshape(&with(&[nx * sx, ny * sy]))?;
            let mut cut = vec![ALL; nd - 2];
            cut.extend([range(0, e0, 1), range(0, e1, 1)]);
            let mut place = vec![(0, 0); nd - 2];
            place.extend([(i, p0 - i - e0), (j, p1 - j - e1)]);
            let part = spread.slice(&cut)?.pad(&place, T::default())?;
            total = Some(match total {
                None => part,
                Some(t) => t.try_add(&part)?,
            });
        }
    }
    let Some(total) = total else {
        return Err(bad(format!("{what}: an empty window")));
    };
    let mut crop = vec![ALL; nd - 2];
    crop.extend([range(opts.px, ox, 1), range(opts.py, oy, 1)]);
    total.slice(&crop)
}
