//! SciPy's morphology built from the others: `morphological_gradient` and
//! `morphological_laplace` (grey dilation and erosion combined element-wise),
//! `binary_hit_or_miss` (two binary erosions, of the image and of its complement) and
//! `binary_propagation` (a binary dilation repeated until it stops changing).

use super::morphology::{
    BinaryElement, Footprint, MorphElement, MorphOpts, grey_dilation_with, grey_erosion_with,
};
use super::morphology_binary::{BinaryOpts, binary_dilation_with, binary_erosion_with};
use super::morphology_structure::Structure;
use crate::array::Array;
use crate::dtype::Scalar;
use crate::error::{Error, Result};

/// SciPy's `morphological_gradient` (default `mode`): the grey dilation minus the grey
/// erosion over the footprint `fp`.
///
/// # Errors
/// As [`grey_dilation_with`].
///
/// ```
/// use cuprite_array::{Array, image::{Footprint, morphological_gradient}};
/// let x = Array::from_slice(&[0u8, 0, 5, 5, 5, 0], &[6])?;
/// assert_eq!(morphological_gradient(&x, &Footprint::size(&[3])?)?.to_vec()?, [0, 5, 5, 0, 5, 5]);
/// # Ok::<(), cuprite_array::Error>(())
/// ```
pub fn morphological_gradient<T: MorphElement>(x: &Array<T>, fp: &Footprint) -> Result<Array<T>> {
    morphological_gradient_with(x, fp, MorphOpts::default())
}

/// [`morphological_gradient`] with SciPy's keyword arguments.
///
/// # Errors
/// As [`grey_dilation_with`].
///
/// ```
/// use cuprite_array::{Array, image::{Boundary, Footprint, MorphOpts, morphological_gradient_with}};
/// let x = Array::from_slice(&[1.0f32, 2.0, 4.0], &[3])?;
/// let o = MorphOpts::new().mode(Boundary::Constant(0.0));
/// assert_eq!(morphological_gradient_with(&x, &Footprint::size(&[3])?, o)?.to_vec()?, [2.0, 3.0, 4.0]);
/// # Ok::<(), cuprite_array::Error>(())
/// ```
pub fn morphological_gradient_with<T: MorphElement>(
    x: &Array<T>,
    fp: &Footprint,
    opts: MorphOpts,
) -> Result<Array<T>> {
    grey_dilation_with(x, fp, opts)?.try_sub(&grey_erosion_with(x, fp, opts)?)
}

/// SciPy's `morphological_laplace` (default `mode`): the grey dilation plus the grey erosion
/// minus twice the image, in the image's type (integers wrap, as NumPy's do).
///
/// # Errors
/// As [`grey_dilation_with`].
///
/// ```
/// use cuprite_array::{Array, image::{Footprint, morphological_laplace}};
/// let x = Array::from_slice(&[0.0f64, 0.0, 4.0, 0.0, 0.0], &[5])?;
/// assert_eq!(morphological_laplace(&x, &Footprint::size(&[3])?)?.to_vec()?, [0.0, 4.0, -4.0, 4.0, 0.0]);
/// # Ok::<(), cuprite_array::Error>(())
/// ```
pub fn morphological_laplace<T: MorphElement>(x: &Array<T>, fp: &Footprint) -> Result<Array<T>> {
    morphological_laplace_with(x, fp, MorphOpts::default())
}

/// [`morphological_laplace`] with SciPy's keyword arguments.
///
/// # Errors
/// As [`grey_dilation_with`].
///
/// ```
/// use cuprite_array::{Array, image::{Footprint, MorphOpts, morphological_laplace_with}};
/// let x = Array::from_slice(&[3u8, 1, 3], &[3])?;
/// // At the ends 3 + 1 - 6 wraps to 254; in the middle 3 + 1 - 2.
/// let y = morphological_laplace_with(&x, &Footprint::size(&[3])?, MorphOpts::new())?;
/// assert_eq!(y.to_vec()?, [254, 2, 254]);
/// # Ok::<(), cuprite_array::Error>(())
/// ```
pub fn morphological_laplace_with<T: MorphElement>(
    x: &Array<T>,
    fp: &Footprint,
    opts: MorphOpts,
) -> Result<Array<T>> {
    let two = T::from_scalar(Scalar::F64(2.0));
    grey_dilation_with(x, fp, opts)?
        .try_add(&grey_erosion_with(x, fp, opts)?)?
        .try_sub(&x.try_mul(two)?)
}

/// SciPy's `binary_hit_or_miss`: set where `s1` (default the cross of the image's rank) fits
/// the set elements and `s2` (default the complement of `s1`) fits the clear ones, each
/// centred at the element shifted by its origin (`origin2` defaults to `origin1`). The image
/// counts as clear beyond its edges.
///
/// # Errors
/// An image of rank 0 or above 3 without structures, structures of another rank than the
/// trailing axes they filter, or origins outside their structures, named.
///
/// ```
/// use cuprite_array::{Array, image::{Structure, binary_hit_or_miss}};
/// // Isolated set points: the centre set, its two neighbours clear.
/// let x = Array::from_slice(&[false, true, false, true, true, false, true], &[7])?;
/// let s1 = Structure::new(&[3], &[false, true, false])?;
/// let s2 = Structure::new(&[3], &[true, false, true])?;
/// let y = binary_hit_or_miss(&x, Some(s1), Some(s2), &[0], None)?;
/// assert_eq!(y.to_vec()?, [false, true, false, false, false, false, true]);
/// # Ok::<(), cuprite_array::Error>(())
/// ```
pub fn binary_hit_or_miss<T: BinaryElement>(
    x: &Array<T>,
    s1: Option<Structure>,
    s2: Option<Structure>,
    origin1: &[isize],
    origin2: Option<&[isize]>,
) -> Result<Array<bool>> {
    let s1 = match s1 {
        Some(s) => s,
        None => {
            super::morphology_structure::generate_binary_structure(x.ndim(), 1).map_err(|_| {
                Error::InvalidArgument(format!(
                    "binary_hit_or_miss: an image of rank {} needs structures of rank 1 to 3",
                    x.ndim()
                ))
            })?
        }
    };
    let s2 = match s2 {
        Some(s) => s,
        None => {
            let inv: Vec<bool> = s1.mask().iter().map(|b| !b).collect();
            Structure::new(s1.shape(), &inv)?
        }
    };
    let set = x.not_equal(T::default());
    let fits = binary_erosion_with(&set, BinaryOpts::new().structure(s1).origin(origin1))?;
    let clear = binary_erosion_with(
        &!&set,
        BinaryOpts::new()
            .structure(s2)
            .origin(origin2.unwrap_or(origin1))
            .border_value(true),
    )?;
    fits.try_and(&clear)
}

/// SciPy's `binary_propagation`: the binary dilation of `x` repeated until it stops changing
/// (within `opts.mask` where set, so that set seeds fill the connected parts of the mask).
/// `opts.iterations` is not used.
///
/// # Errors
/// As [`binary_dilation_with`].
///
/// ```
/// use cuprite_array::{Array, image::{BinaryOpts, binary_propagation}};
/// let seed = Array::from_slice(&[false, true, false, false, false, false], &[6])?;
/// let mask = Array::from_slice(&[true, true, true, false, true, true], &[6])?;
/// let y = binary_propagation(&seed, BinaryOpts::new().mask(&mask))?;
/// assert_eq!(y.to_vec()?, [true, true, true, false, false, false]);
/// # Ok::<(), cuprite_array::Error>(())
/// ```
pub fn binary_propagation<T: BinaryElement>(x: &Array<T>, opts: BinaryOpts) -> Result<Array<bool>> {
    binary_dilation_with(x, opts.iterations(0))
}
