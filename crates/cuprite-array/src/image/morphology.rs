//! Grey and binary morphology (SciPy's `grey_*`, `binary_*`, `white_tophat`, `black_tophat`,
//! `binary_fill_holes`) and ArrayFire's `dilate`, `erode`, `dilate3`, `erode3`, all through one
//! min/max library call ([`MinMax`]).
//!
//! A structuring element of rank `r` filters the trailing `r` axes of an array; leading axes
//! are a batch of independent images. Dilation reflects the element as SciPy does (an element
//! of extent `m` reads the input at `p - (k - m / 2)` for each set position `k`), erosion
//! reads at `p + (k - m / 2)`, so that both agree with SciPy for odd and even extents.

use super::Boundary;
use super::morphology_box::MinMaxBox;
use super::morphology_call::{MinMax, UNROLL, minmax_dtype, tap_words};
use super::morphology_structure::Structure;
use crate::array::Array;
use crate::dtype::{Element, Numeric, f16};
use crate::error::{Error, Result};
use crate::graph::{Node, Op};
use std::sync::Arc;

mod sealed {
    pub trait Sealed {}
}

/// The element types of grey morphology: `u8`, `u16`, `f16`, `f32`, `f64`.
pub trait MorphElement: Numeric + sealed::Sealed {}
/// The element types of binary morphology: `bool` and `u8` (any non-zero value is set).
pub trait BinaryElement: Element + sealed::Sealed {}

macro_rules! elements {
    ($tr:ident: $($t:ty),*) => {$(
        impl $tr for $t {}
    )*};
}
impl sealed::Sealed for u8 {}
impl sealed::Sealed for u16 {}
impl sealed::Sealed for f16 {}
impl sealed::Sealed for f32 {}
impl sealed::Sealed for f64 {}
impl sealed::Sealed for bool {}
elements!(MorphElement: u8, u16, f16, f32, f64);
elements!(BinaryElement: bool, u8);

/// The neighbourhood of grey morphology: a flat footprint (SciPy's `size` or `footprint`),
/// optionally with heights (SciPy's `structure`: added by dilation, taken by erosion).
///
/// ```
/// use cuprite_array::image::{Footprint, Structure};
/// let a = Footprint::size(&[3, 3])?;
/// let b = Footprint::from(Structure::new(&[1, 3], &[true, false, true])?);
/// let c = Footprint::structure(&[1, 2], &[0.0, 1.0])?;
/// assert_eq!((a.mask().count(), b.mask().count(), c.mask().count()), (9, 2, 2));
/// # Ok::<(), cuprite_array::Error>(())
/// ```
#[derive(Debug, Clone, PartialEq)]
pub struct Footprint {
    mask: Structure,
    heights: Option<Vec<f64>>,
}

impl From<Structure> for Footprint {
    fn from(mask: Structure) -> Footprint {
        Footprint {
            mask,
            heights: None,
        }
    }
}

impl Footprint {
    /// The full box of `shape` (SciPy's `size`).
    pub fn size(shape: &[usize]) -> Result<Footprint> {
        Ok(Structure::ones(shape)?.into())
    }

    /// The full box of `shape` with `heights` (SciPy's `structure` given alone).
    pub fn structure(shape: &[usize], heights: &[f64]) -> Result<Footprint> {
        Footprint::size(shape)?.with_heights(heights)
    }

    /// This footprint with `heights` (one a position of its shape, finite; SciPy's `structure`
    /// given beside `footprint`), or an `Err` naming the lengths or the value.
    pub fn with_heights(self, heights: &[f64]) -> Result<Footprint> {
        if let Some(h) = heights.iter().find(|h| !h.is_finite()) {
            return Err(Error::InvalidArgument(format!(
                "structure heights must be finite, given {h}"
            )));
        }
        if heights.len() != self.mask.mask().len() {
            return Err(Error::InvalidArgument(format!(
                "structure heights: {} values for a footprint of shape {:?}",
                heights.len(),
                self.mask.shape()
            )));
        }
        Ok(Footprint {
            heights: Some(heights.to_vec()),
            ..self
        })
    }

    /// The set positions.
    #[must_use]
    pub fn mask(&self) -> &Structure {
        &self.mask
    }
}

/// The keyword arguments of grey morphology besides the neighbourhood: SciPy's `mode` and
/// `cval` (as one [`Boundary`]; default `reflect`) and `origin` (default 0).
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct MorphOpts {
    /// How values past the edges are taken.
    pub mode: Boundary,
    /// The shift of the footprint's centre along each of its axes, in order (entries past its
    /// rank unused): SciPy's `origin`, each within `-(m / 2) ..= (m - 1) / 2` for extent `m`.
    pub origin: [isize; 3],
}

impl MorphOpts {
    /// SciPy's defaults.
    #[must_use]
    pub fn new() -> MorphOpts {
        MorphOpts::default()
    }
    /// SciPy's `mode` (and `cval`).
    #[must_use]
    pub fn mode(self, mode: Boundary) -> MorphOpts {
        MorphOpts { mode, ..self }
    }
    /// SciPy's scalar `origin`: the same shift along every axis.
    #[must_use]
    pub fn origin(self, o: isize) -> MorphOpts {
        MorphOpts {
            origin: [o; 3],
            ..self
        }
    }
    /// SciPy's `origin` as a sequence: one shift an axis of the footprint (at most three).
    #[must_use]
    pub fn origin_axes(self, o: &[isize]) -> MorphOpts {
        let mut origin = [0; 3];
        for (d, s) in origin.iter_mut().zip(o) {
            *d = *s;
        }
        MorphOpts { origin, ..self }
    }
}

/// The batch and the three padded extents of the trailing `rank` axes of `shape`, or an `Err`
/// naming `what` and the shapes.
pub(crate) fn split_batch(what: &str, shape: &[usize], rank: usize) -> Result<(usize, [usize; 3])> {
    if rank == 0 || rank > 3 || shape.len() < rank {
        return Err(Error::InvalidArgument(format!(
            "{what}: an element of rank {rank} does not fit an array of shape {shape:?} (rank 1 to 3, at most the array's)"
        )));
    }
    let k = shape.len() - rank;
    let mut n = [1usize; 3];
    n[3 - rank..].copy_from_slice(&shape[k..]);
    Ok((shape[..k].iter().product(), n))
}

/// The min (erosion) or max (dilation) of `x` over `fp` (its offsets negated when `reflect`).
/// A flat full box extending along several axes is taken one axis at a time: the extreme over
/// a box of the extended image is the extreme along one axis of the extremes along the
/// others, for every mode (a constant-mode tap outside along any axis reads `cval` both ways).
/// The passes along the last two axes run as one call ([`MinMaxBox`]) when both are long.
pub(crate) fn minmax<T: Element>(
    what: &str,
    x: &Array<T>,
    fp: &Footprint,
    max: bool,
    reflect: bool,
    mode: Boundary,
    origin: [isize; 3],
) -> Result<Array<T>> {
    let sh = fp.mask.shape();
    for (a, &m) in sh.iter().enumerate() {
        let o = origin[a];
        if o < -((m / 2) as isize) || o > ((m - 1) / 2) as isize {
            return Err(Error::InvalidArgument(format!(
                "{what}: invalid origin {o} along axis {a} of a footprint of shape {sh:?} (within -(m / 2) ..= (m - 1) / 2)"
            )));
        }
    }
    let long = sh.iter().filter(|&&m| m > 1).count();
    let full = fp.mask.count() == fp.mask.mask().len();
    if fp.heights.is_none() && full && long > 1 && x.ndim() >= sh.len() {
        let r = sh.len();
        let sign = if reflect { -1 } else { 1 };
        // The taps of the one-axis pass along footprint axis `a`, in the order of
        // `minmax_direct`: offsets `k - m / 2` less the origin, negated when reflected.
        let taps = |a: usize| -> Vec<i64> {
            let m = sh[a] as i64;
            (0..m)
                .map(|k| sign * (k - m / 2 - origin[a] as i64))
                .collect()
        };
        // The last two axes' passes run as one kernel when both are long.
        let fuse = r >= 2
            && sh[r - 2] > 1
            && sh[r - 1] > 1
            && MinMaxBox::fits(T::DTYPE, &taps(r - 2), &taps(r - 1));
        let mut cur = x.clone();
        for (a, &m) in sh.iter().enumerate().filter(|(_, m)| **m > 1) {
            if fuse && a >= r - 2 {
                continue;
            }
            let mut one = vec![1usize; sh.len()];
            one[a] = m;
            let mut o = [0isize; 3];
            o[a] = origin[a];
            cur = minmax_direct(what, &cur, &Footprint::size(&one)?, max, reflect, mode, o)?;
        }
        if fuse {
            let s = cur.shape();
            let nd = s.len();
            let call = Arc::new(MinMaxBox {
                dtype: T::DTYPE,
                max,
                planes: s[..nd - 2].iter().product(),
                h: s[nd - 2],
                w: s[nd - 1],
                rows: taps(r - 2),
                cols: taps(r - 1),
                boundary: mode,
            });
            cur = Array::from_node(Node::new(
                Op::Library(call, vec![cur.node.clone()]),
                T::DTYPE,
                s.to_vec(),
                cur.device(),
            ));
        }
        return Ok(cur);
    }
    minmax_direct(what, x, fp, max, reflect, mode, origin)
}

/// [`minmax`] as one library call over every tap: an erosion reads at `p + (k - m / 2) -
/// origin`, a dilation at `p - (k - m / 2) + origin` (SciPy's reflection and shift).
fn minmax_direct<T: Element>(
    what: &str,
    x: &Array<T>,
    fp: &Footprint,
    max: bool,
    reflect: bool,
    mode: Boundary,
    origin: [isize; 3],
) -> Result<Array<T>> {
    if !minmax_dtype(T::DTYPE) {
        return Err(Error::InvalidArgument(format!(
            "{what}: {} images are not taken (u8, u16, f16, f32, f64)",
            T::DTYPE
        )));
    }
    let (batch, n) = split_batch(what, x.shape(), fp.mask.rank())?;
    let sign = if reflect { -1 } else { 1 };
    let idx: Vec<usize> = (0..fp.mask.mask().len())
        .filter(|&f| fp.mask.mask()[f])
        .collect();
    if idx.is_empty() {
        return Err(Error::InvalidArgument(format!(
            "{what}: the footprint of shape {:?} selects no element",
            fp.mask.shape()
        )));
    }
    // The origin of footprint axis `a` shifts padded axis `3 - rank + a`.
    let r = fp.mask.rank();
    let mut shift = [0i64; 3];
    for a in 0..r {
        shift[3 - r + a] = origin[a] as i64;
    }
    let taps: Vec<[i64; 3]> = fp
        .mask
        .offsets()
        .iter()
        .map(|o| [0, 1, 2].map(|a| sign * (o[a] - shift[a])))
        .collect();
    let heights = fp
        .heights
        .as_ref()
        .map(|h| idx.iter().map(|&f| h[f]).collect::<Vec<f64>>());
    let dev = x.device();
    let mut inputs = vec![x.node.clone()];
    if taps.len() > UNROLL {
        let words = tap_words(&taps, n);
        let hv = heights.clone().unwrap_or_else(|| vec![0.0; taps.len()]);
        inputs.push(Array::<i64>::from_slice_on(dev, &words, &[words.len()])?.node);
        inputs.push(Array::<f64>::from_slice_on(dev, &hv, &[hv.len()])?.node);
    }
    let call = Arc::new(MinMax {
        dtype: T::DTYPE,
        max,
        batch,
        n,
        taps,
        heights,
        boundary: mode,
    });
    Ok(Array::from_node(Node::new(
        Op::Library(call, inputs),
        T::DTYPE,
        x.shape().to_vec(),
        dev,
    )))
}

/// SciPy's `grey_dilation` with its default `mode` (reflect): the maximum over the
/// footprint's positions of the values (plus the heights), the footprint reflected.
///
/// ```
/// use cuprite_array::{Array, image::{Footprint, grey_dilation}};
/// let x = Array::from_slice(&[0.0f32, 0.0, 5.0, 0.0, 0.0, 1.0], &[1, 6])?;
/// let y = grey_dilation(&x, &Footprint::size(&[1, 3])?)?;
/// assert_eq!(y.to_vec()?, [0.0, 5.0, 5.0, 5.0, 1.0, 1.0]);
/// # Ok::<(), cuprite_array::Error>(())
/// ```
pub fn grey_dilation<T: MorphElement>(x: &Array<T>, fp: &Footprint) -> Result<Array<T>> {
    grey_dilation_with(x, fp, MorphOpts::default())
}

/// [`grey_dilation`] with SciPy's keyword arguments.
///
/// ```
/// use cuprite_array::{Array, image::{Boundary, Footprint, MorphOpts, grey_dilation_with}};
/// let x = Array::from_slice(&[1u8, 2, 3], &[3])?;
/// let o = MorphOpts::new().mode(Boundary::Constant(9.0));
/// assert_eq!(grey_dilation_with(&x, &Footprint::size(&[3])?, o)?.to_vec()?, [9, 3, 9]);
/// # Ok::<(), cuprite_array::Error>(())
/// ```
pub fn grey_dilation_with<T: MorphElement>(
    x: &Array<T>,
    fp: &Footprint,
    opts: MorphOpts,
) -> Result<Array<T>> {
    minmax("grey_dilation", x, fp, true, true, opts.mode, opts.origin)
}

/// SciPy's `grey_erosion` (default `mode`): the minimum over the footprint's positions of the
/// values (minus the heights).
///
/// ```
/// use cuprite_array::{Array, image::{Footprint, grey_erosion}};
/// let x = Array::from_slice(&[3.0f64, 1.0, 4.0, 1.0, 5.0], &[5])?;
/// assert_eq!(grey_erosion(&x, &Footprint::size(&[3])?)?.to_vec()?, [1.0, 1.0, 1.0, 1.0, 1.0]);
/// # Ok::<(), cuprite_array::Error>(())
/// ```
pub fn grey_erosion<T: MorphElement>(x: &Array<T>, fp: &Footprint) -> Result<Array<T>> {
    grey_erosion_with(x, fp, MorphOpts::default())
}

/// [`grey_erosion`] with SciPy's keyword arguments.
///
/// ```
/// use cuprite_array::{Array, image::{Boundary, Footprint, MorphOpts, grey_erosion_with}};
/// let x = Array::from_slice(&[4u16, 5, 6], &[3])?;
/// let o = MorphOpts::new().mode(Boundary::Constant(0.0));
/// assert_eq!(grey_erosion_with(&x, &Footprint::size(&[2])?, o)?.to_vec()?, [0, 4, 5]);
/// # Ok::<(), cuprite_array::Error>(())
/// ```
pub fn grey_erosion_with<T: MorphElement>(
    x: &Array<T>,
    fp: &Footprint,
    opts: MorphOpts,
) -> Result<Array<T>> {
    minmax("grey_erosion", x, fp, false, false, opts.mode, opts.origin)
}

/// SciPy's `grey_opening`: the dilation of the erosion.
///
/// ```
/// use cuprite_array::{Array, image::{Footprint, grey_opening}};
/// let x = Array::from_slice(&[0.0f32, 9.0, 0.0, 4.0, 4.0, 4.0], &[6])?;
/// assert_eq!(grey_opening(&x, &Footprint::size(&[3])?)?.to_vec()?, [0.0, 0.0, 0.0, 4.0, 4.0, 4.0]);
/// # Ok::<(), cuprite_array::Error>(())
/// ```
pub fn grey_opening<T: MorphElement>(x: &Array<T>, fp: &Footprint) -> Result<Array<T>> {
    grey_opening_with(x, fp, MorphOpts::default())
}

/// [`grey_opening`] with SciPy's keyword arguments.
///
/// ```
/// use cuprite_array::{Array, image::{Footprint, MorphOpts, grey_opening_with}};
/// let x = Array::from_slice(&[1u8, 7, 1], &[3])?;
/// assert_eq!(grey_opening_with(&x, &Footprint::size(&[2])?, MorphOpts::new())?.to_vec()?, [1, 1, 1]);
/// # Ok::<(), cuprite_array::Error>(())
/// ```
pub fn grey_opening_with<T: MorphElement>(
    x: &Array<T>,
    fp: &Footprint,
    opts: MorphOpts,
) -> Result<Array<T>> {
    grey_dilation_with(&grey_erosion_with(x, fp, opts)?, fp, opts)
}

/// SciPy's `grey_closing`: the erosion of the dilation.
///
/// ```
/// use cuprite_array::{Array, image::{Footprint, grey_closing}};
/// let x = Array::from_slice(&[5.0f32, 0.0, 5.0, 5.0], &[4])?;
/// assert_eq!(grey_closing(&x, &Footprint::size(&[3])?)?.to_vec()?, [5.0, 5.0, 5.0, 5.0]);
/// # Ok::<(), cuprite_array::Error>(())
/// ```
pub fn grey_closing<T: MorphElement>(x: &Array<T>, fp: &Footprint) -> Result<Array<T>> {
    grey_closing_with(x, fp, MorphOpts::default())
}

/// [`grey_closing`] with SciPy's keyword arguments.
///
/// ```
/// use cuprite_array::{Array, image::{Footprint, MorphOpts, grey_closing_with}};
/// let x = Array::from_slice(&[7u8, 1, 7], &[3])?;
/// assert_eq!(grey_closing_with(&x, &Footprint::size(&[3])?, MorphOpts::new())?.to_vec()?, [7, 7, 7]);
/// # Ok::<(), cuprite_array::Error>(())
/// ```
pub fn grey_closing_with<T: MorphElement>(
    x: &Array<T>,
    fp: &Footprint,
    opts: MorphOpts,
) -> Result<Array<T>> {
    grey_erosion_with(&grey_dilation_with(x, fp, opts)?, fp, opts)
}

/// SciPy's `white_tophat`: the image minus its opening (integers wrap as NumPy's do).
///
/// ```
/// use cuprite_array::{Array, image::{Footprint, white_tophat}};
/// let x = Array::from_slice(&[1.0f32, 6.0, 1.0, 1.0], &[4])?;
/// assert_eq!(white_tophat(&x, &Footprint::size(&[3])?)?.to_vec()?, [0.0, 5.0, 0.0, 0.0]);
/// # Ok::<(), cuprite_array::Error>(())
/// ```
pub fn white_tophat<T: MorphElement>(x: &Array<T>, fp: &Footprint) -> Result<Array<T>> {
    white_tophat_with(x, fp, MorphOpts::default())
}

/// [`white_tophat`] with SciPy's keyword arguments.
///
/// ```
/// use cuprite_array::{Array, image::{Footprint, MorphOpts, white_tophat_with}};
/// let x = Array::from_slice(&[2u8, 9, 2], &[3])?;
/// assert_eq!(white_tophat_with(&x, &Footprint::size(&[3])?, MorphOpts::new())?.to_vec()?, [0, 7, 0]);
/// # Ok::<(), cuprite_array::Error>(())
/// ```
pub fn white_tophat_with<T: MorphElement>(
    x: &Array<T>,
    fp: &Footprint,
    opts: MorphOpts,
) -> Result<Array<T>> {
    x.try_sub(&grey_opening_with(x, fp, opts)?)
}

/// SciPy's `black_tophat`: the closing minus the image.
///
/// ```
/// use cuprite_array::{Array, image::{Footprint, black_tophat}};
/// let x = Array::from_slice(&[5.0f32, 1.0, 5.0, 5.0], &[4])?;
/// assert_eq!(black_tophat(&x, &Footprint::size(&[3])?)?.to_vec()?, [0.0, 4.0, 0.0, 0.0]);
/// # Ok::<(), cuprite_array::Error>(())
/// ```
pub fn black_tophat<T: MorphElement>(x: &Array<T>, fp: &Footprint) -> Result<Array<T>> {
    black_tophat_with(x, fp, MorphOpts::default())
}

/// [`black_tophat`] with SciPy's keyword arguments.
///
/// ```
/// use cuprite_array::{Array, image::{Footprint, MorphOpts, black_tophat_with}};
/// let x = Array::from_slice(&[9u8, 2, 9], &[3])?;
/// assert_eq!(black_tophat_with(&x, &Footprint::size(&[3])?, MorphOpts::new())?.to_vec()?, [0, 7, 0]);
/// # Ok::<(), cuprite_array::Error>(())
/// ```
pub fn black_tophat_with<T: MorphElement>(
    x: &Array<T>,
    fp: &Footprint,
    opts: MorphOpts,
) -> Result<Array<T>> {
    grey_closing_with(x, fp, opts)?.try_sub(x)
}
