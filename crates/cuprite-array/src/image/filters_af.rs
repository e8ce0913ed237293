//! ArrayFire's names for the image filters: `medfilt`, `minfilt`, `maxfilt` (over the last two
//! axes, with ArrayFire's two paddings), `sobel_operator` (both derivatives at once) and
//! `gradient` (central differences along both image axes).

use super::boundary::Boundary;
use super::filters::FilterOpts;
use super::filters_edges::sobel_with;
use super::filters_elem::ImageElement;
use super::filters_order::{
    FilterWindow, maximum_filter_with, median_filter_with, minimum_filter_with,
};
use crate::array::Array;
use crate::dtype::Float;
use crate::error::{Error, Result};

/// ArrayFire's border padding of its neighbourhood filters (`af_border_type`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Pad {
    /// Zeros past the edges (`AF_PAD_ZERO`, the default).
    #[default]
    Zero,
    /// The image mirrored about its edge, edge values repeated (`AF_PAD_SYM`: SciPy's
    /// `reflect`).
    Symmetric,
}

impl Pad {
    fn boundary(self) -> Boundary {
        match self {
            Pad::Zero => Boundary::Constant(0.0),
            Pad::Symmetric => Boundary::Reflect,
        }
    }
}

/// The options of a neighbourhood filter over the last two axes with ArrayFire's padding.
fn af_opts<T: ImageElement>(what: &str, x: &Array<T>, pad: Pad) -> Result<FilterOpts> {
    if x.ndim() < 2 {
        return Err(Error::Shape(format!(
            "{what} filters images of at least two axes, not shape {:?}",
            x.shape()
        )));
    }
    Ok(FilterOpts::new().boundary(pad.boundary()).axes(&[-2, -1]))
}

/// ArrayFire's `medfilt2`: the median of each `wind_length x wind_width` window (rows by
/// columns) of the last two axes, leading axes a batch.
///
/// ```
/// use cuprite_array::{Array, image::{Pad, medfilt}};
/// let x = Array::from_slice(&[0.0f32, 0.0, 0.0, 0.0, 9.0, 0.0, 0.0, 0.0, 0.0], &[3, 3])?;
/// // The lone bright pixel is removed.
/// assert_eq!(medfilt(&x, 3, 3, Pad::Zero)?.to_vec()?, vec![0.0; 9]);
/// # Ok::<(), cuprite_array::Error>(())
/// ```
pub fn medfilt<T: ImageElement>(
    x: &Array<T>,
    wind_length: usize,
    wind_width: usize,
    pad: Pad,
) -> Result<Array<T>> {
    let o = af_opts("medfilt", x, pad)?;
    median_filter_with(x, &FilterWindow::size(&[wind_length, wind_width]), o)
}

/// ArrayFire's `minfilt`: the minimum of each `wind_length x wind_width` window.
///
/// ```
/// use cuprite_array::{Array, image::{Pad, minfilt}};
/// let x = Array::from_slice(&[5u8, 6, 7, 8], &[2, 2])?;
/// assert_eq!(minfilt(&x, 3, 3, Pad::Symmetric)?.to_vec()?, [5, 5, 5, 5]);
/// assert_eq!(minfilt(&x, 3, 3, Pad::Zero)?.to_vec()?, [0, 0, 0, 0]);
/// # Ok::<(), cuprite_array::Error>(())
/// ```
pub fn minfilt<T: ImageElement>(
    x: &Array<T>,
    wind_length: usize,
    wind_width: usize,
    pad: Pad,
) -> Result<Array<T>> {
    let o = af_opts("minfilt", x, pad)?;
    minimum_filter_with(x, &FilterWindow::size(&[wind_length, wind_width]), o)
}

/// ArrayFire's `maxfilt`: the maximum of each `wind_length x wind_width` window.
///
/// ```
/// use cuprite_array::{Array, image::{Pad, maxfilt}};
/// let x = Array::from_slice(&[5u8, 6, 7, 8], &[2, 2])?;
/// assert_eq!(maxfilt(&x, 3, 3, Pad::Zero)?.to_vec()?, [8, 8, 8, 8]);
/// # Ok::<(), cuprite_array::Error>(())
/// ```
pub fn maxfilt<T: ImageElement>(
    x: &Array<T>,
    wind_length: usize,
    wind_width: usize,
    pad: Pad,
) -> Result<Array<T>> {
    let o = af_opts("maxfilt", x, pad)?;
    maximum_filter_with(x, &FilterWindow::size(&[wind_length, wind_width]), o)
}

/// ArrayFire's `sobel` (`af_sobel_operator`, kernel size 3): the pair `(dx, dy)` of Sobel
/// derivatives of the last two axes with zeros past the edges, `dx` across the columns (the
/// last axis) and `dy` down the rows; leading axes a batch. Each equals SciPy's [`sobel`] of
/// that axis with `Boundary::Constant(0.0)`.
///
/// [`sobel`]: super::sobel
///
/// ```
/// use cuprite_array::{Array, image::sobel_operator};
/// let x = Array::from_slice(&[0.0f32, 1.0, 2.0, 0.0, 1.0, 2.0, 0.0, 1.0, 2.0], &[3, 3])?;
/// let (dx, dy) = sobel_operator(&x)?;
/// assert_eq!(dx.to_vec()?[4], 8.0);
/// assert_eq!(dy.to_vec()?[4], 0.0);
/// # Ok::<(), cuprite_array::Error>(())
/// ```
pub fn sobel_operator<T: ImageElement>(x: &Array<T>) -> Result<(Array<T>, Array<T>)> {
    let o = af_opts("sobel_operator", x, Pad::Zero)?;
    Ok((sobel_with(x, -1, o.clone())?, sobel_with(x, -2, o)?))
}

/// ArrayFire's `gradient`: the pair `(dx, dy)` of the derivatives of the last two axes by
/// central differences inside and one-sided differences at the edges (NumPy's `gradient`),
/// `dx` down the rows (ArrayFire's first dimension, axis -2 here) and `dy` across the columns
/// (axis -1). Each axis needs at least two samples.
///
/// ```
/// use cuprite_array::{Array, image::gradient};
/// let x = Array::from_slice(&[0.0f64, 1.0, 4.0, 10.0, 11.0, 14.0], &[2, 3])?;
/// let (dx, dy) = gradient(&x)?;
/// assert_eq!(dx.to_vec()?, [10.0; 6]);
/// assert_eq!(dy.to_vec()?, [1.0, 2.0, 3.0, 1.0, 2.0, 3.0]);
/// # Ok::<(), cuprite_array::Error>(())
/// ```
pub fn gradient<T: Float>(x: &Array<T>) -> Result<(Array<T>, Array<T>)> {
    if x.ndim() < 2 {
        return Err(Error::Shape(format!(
            "gradient takes images of at least two axes, not shape {:?}",
            x.shape()
        )));
    }
    Ok((x.gradient(1.0, -2)?, x.gradient(1.0, -1)?))
}
