//! SciPy's binary morphology (`binary_dilation`, `binary_erosion`, `binary_opening`,
//! `binary_closing`, `binary_fill_holes`) and ArrayFire's `dilate`, `erode`, `dilate3`,
//! `erode3`, on the min/max call of grey morphology: a binary image is a `u8` image of 0 and
//! 1, and the border is the constant `border_value`.

use super::Boundary;
use super::label::label_batch;
use super::morphology::{BinaryElement, Footprint, MorphElement, minmax};
use super::morphology_structure::{Structure, generate_binary_structure};
use crate::array::Array;
use crate::error::{Error, Result};

/// The keyword arguments of binary morphology: SciPy's `structure` (default: the cross of the
/// image's rank), `iterations` (default 1; 0 repeats until nothing changes, as SciPy's values
/// below 1), `mask` (default none), `border_value` (default `false`) and `origin` (default 0).
#[derive(Debug, Clone)]
pub struct BinaryOpts {
    /// The structuring element; its rank names the image axes (the trailing ones).
    pub structure: Option<Structure>,
    /// How many times the operation repeats (0: until the result stops changing).
    pub iterations: usize,
    /// Where set, the elements each iteration may change (the others keep their values); of
    /// the image's shape.
    pub mask: Option<Array<bool>>,
    /// The value past the edges.
    pub border_value: bool,
    /// The shift of the structure's centre along each of its axes (as [`MorphOpts::origin`]).
    ///
    /// [`MorphOpts::origin`]: super::MorphOpts::origin
    pub origin: [isize; 3],
}

impl Default for BinaryOpts {
    fn default() -> BinaryOpts {
        BinaryOpts {
            structure: None,
            iterations: 1,
            mask: None,
            border_value: false,
            origin: [0; 3],
        }
    }
}

impl BinaryOpts {
    /// SciPy's defaults.
    #[must_use]
    pub fn new() -> BinaryOpts {
        BinaryOpts::default()
    }
    /// SciPy's `structure`.
    #[must_use]
    pub fn structure(self, s: Structure) -> BinaryOpts {
        BinaryOpts {
            structure: Some(s),
            ..self
        }
    }
    /// SciPy's `iterations` (0 for SciPy's values below 1: until the result stops changing).
    #[must_use]
    pub fn iterations(self, n: usize) -> BinaryOpts {
        BinaryOpts {
            iterations: n,
            ..self
        }
    }
    /// SciPy's `border_value`.
    #[must_use]
    pub fn border_value(self, v: bool) -> BinaryOpts {
        BinaryOpts {
            border_value: v,
            ..self
        }
    }
    /// SciPy's `mask`.
    #[must_use]
    pub fn mask(self, m: &Array<bool>) -> BinaryOpts {
        BinaryOpts {
            mask: Some(m.clone()),
            ..self
        }
    }
    /// SciPy's `origin`, one shift an axis of the structure (at most three).
    #[must_use]
    pub fn origin(self, o: &[isize]) -> BinaryOpts {
        let mut origin = [0; 3];
        for (d, s) in origin.iter_mut().zip(o) {
            *d = *s;
        }
        BinaryOpts { origin, ..self }
    }
}

/// The structure of `opts`, or the cross of `x`'s rank.
fn structure_of(what: &str, rank: usize, opts: &BinaryOpts) -> Result<Structure> {
    match &opts.structure {
        Some(s) => Ok(s.clone()),
        None => generate_binary_structure(rank, 1).map_err(|_| {
            Error::InvalidArgument(format!(
                "{what}: an array of rank {rank} needs a structure of rank 1 to 3"
            ))
        }),
    }
}

/// `x` as 0/1 bytes.
fn bits<T: BinaryElement>(x: &Array<T>) -> Array<u8> {
    x.not_equal(T::default()).cast::<u8>()
}

/// `opts.iterations` dilations (`max`) or erosions of the 0/1 image `u`.
fn repeat(
    what: &str,
    u: Array<u8>,
    s: &Structure,
    max: bool,
    opts: &BinaryOpts,
) -> Result<Array<u8>> {
    let fp = Footprint::from(s.clone());
    let border = Boundary::Constant(f64::from(u8::from(opts.border_value)));
    let mask = match &opts.mask {
        Some(m) if m.shape() != u.shape() => {
            return Err(Error::InvalidArgument(format!(
                "{what}: a mask of shape {:?} for an image of shape {:?}",
                m.shape(),
                u.shape()
            )));
        }
        m => m.clone(),
    };
    let step = |a: &Array<u8>| -> Result<Array<u8>> {
        let next = minmax(what, a, &fp, max, max, border, opts.origin)?;
        match &mask {
            Some(m) => Array::select(m, &next, a),
            None => Ok(next),
        }
    };
    let mut cur = u;
    if opts.iterations == 0 {
        loop {
            let next = step(&cur)?;
            if next.array_equal(&cur)? {
                return Ok(next);
            }
            cur = next;
        }
    }
    for _ in 0..opts.iterations {
        cur = step(&cur)?;
    }
    Ok(cur)
}

/// SciPy's `binary_dilation` with its defaults (the cross, one iteration, border 0): set where
/// the reflected structure centred there meets a set element.
///
/// ```
/// use cuprite_array::{Array, image::binary_dilation};
/// let x = Array::from_slice(&[false, false, true, false, false], &[5])?;
/// assert_eq!(binary_dilation(&x)?.to_vec()?, [false, true, true, true, false]);
/// # Ok::<(), cuprite_array::Error>(())
/// ```
pub fn binary_dilation<T: BinaryElement>(x: &Array<T>) -> Result<Array<bool>> {
    binary_dilation_with(x, BinaryOpts::default())
}

/// [`binary_dilation`] with SciPy's keyword arguments.
///
/// ```
/// use cuprite_array::{Array, image::{BinaryOpts, binary_dilation_with}};
/// let x = Array::from_slice(&[0u8, 0, 0, 0, 7], &[5])?;
/// let y = binary_dilation_with(&x, BinaryOpts::new().iterations(2))?;
/// assert_eq!(y.to_vec()?, [false, false, true, true, true]);
/// # Ok::<(), cuprite_array::Error>(())
/// ```
pub fn binary_dilation_with<T: BinaryElement>(
    x: &Array<T>,
    opts: BinaryOpts,
) -> Result<Array<bool>> {
    let s = structure_of("binary_dilation", x.ndim(), &opts)?;
    Ok(repeat("binary_dilation", bits(x), &s, true, &opts)?.not_equal(0u8))
}

/// SciPy's `binary_erosion` with its defaults: set where the structure centred there lies
/// wholly on set elements (border 0).
///
/// ```
/// use cuprite_array::{Array, image::binary_erosion};
/// let x = Array::from_slice(&[true, true, true, true, false], &[5])?;
/// assert_eq!(binary_erosion(&x)?.to_vec()?, [false, true, true, false, false]);
/// # Ok::<(), cuprite_array::Error>(())
/// ```
pub fn binary_erosion<T: BinaryElement>(x: &Array<T>) -> Result<Array<bool>> {
    binary_erosion_with(x, BinaryOpts::default())
}

/// [`binary_erosion`] with SciPy's keyword arguments.
///
/// ```
/// use cuprite_array::{Array, image::{BinaryOpts, binary_erosion_with}};
/// let x = Array::from_slice(&[true, true, true, true, false], &[5])?;
/// let y = binary_erosion_with(&x, BinaryOpts::new().border_value(true))?;
/// assert_eq!(y.to_vec()?, [true, true, true, false, false]);
/// # Ok::<(), cuprite_array::Error>(())
/// ```
pub fn binary_erosion_with<T: BinaryElement>(
    x: &Array<T>,
    opts: BinaryOpts,
) -> Result<Array<bool>> {
    let s = structure_of("binary_erosion", x.ndim(), &opts)?;
    Ok(repeat("binary_erosion", bits(x), &s, false, &opts)?.not_equal(0u8))
}

/// SciPy's `binary_opening` with its defaults: the dilation of the erosion.
///
/// ```
/// use cuprite_array::{Array, image::binary_opening};
/// let x = Array::from_slice(&[false, true, false, true, true, true, false], &[7])?;
/// assert_eq!(binary_opening(&x)?.to_vec()?, [false, false, false, true, true, true, false]);
/// # Ok::<(), cuprite_array::Error>(())
/// ```
pub fn binary_opening<T: BinaryElement>(x: &Array<T>) -> Result<Array<bool>> {
    binary_opening_with(x, BinaryOpts::default())
}

/// [`binary_opening`] with SciPy's keyword arguments (the same ones for both steps).
///
/// ```
/// use cuprite_array::{Array, image::{BinaryOpts, binary_opening_with}};
/// let x = Array::from_slice(&[1u8, 1, 1, 0, 1], &[5])?;
/// assert_eq!(binary_opening_with(&x, BinaryOpts::new())?.to_vec()?, [true, true, true, false, false]);
/// # Ok::<(), cuprite_array::Error>(())
/// ```
pub fn binary_opening_with<T: BinaryElement>(
    x: &Array<T>,
    opts: BinaryOpts,
) -> Result<Array<bool>> {
    let s = structure_of("binary_opening", x.ndim(), &opts)?;
    let e = repeat("binary_opening", bits(x), &s, false, &opts)?;
    Ok(repeat("binary_opening", e, &s, true, &opts)?.not_equal(0u8))
}

/// SciPy's `binary_closing` with its defaults: the erosion of the dilation.
///
/// ```
/// use cuprite_array::{Array, image::binary_closing};
/// let x = Array::from_slice(&[false, true, false, true, false], &[5])?;
/// assert_eq!(binary_closing(&x)?.to_vec()?, [false, true, true, true, false]);
/// # Ok::<(), cuprite_array::Error>(())
/// ```
pub fn binary_closing<T: BinaryElement>(x: &Array<T>) -> Result<Array<bool>> {
    binary_closing_with(x, BinaryOpts::default())
}

/// [`binary_closing`] with SciPy's keyword arguments.
///
/// ```
/// use cuprite_array::{Array, image::{BinaryOpts, binary_closing_with}};
/// let x = Array::from_slice(&[1u8, 0, 1], &[3])?;
/// let y = binary_closing_with(&x, BinaryOpts::new().border_value(true))?;
/// assert_eq!(y.to_vec()?, [true, true, true]);
/// # Ok::<(), cuprite_array::Error>(())
/// ```
pub fn binary_closing_with<T: BinaryElement>(
    x: &Array<T>,
    opts: BinaryOpts,
) -> Result<Array<bool>> {
    let s = structure_of("binary_closing", x.ndim(), &opts)?;
    let d = repeat("binary_closing", bits(x), &s, true, &opts)?;
    Ok(repeat("binary_closing", d, &s, false, &opts)?.not_equal(0u8))
}

/// SciPy's `binary_fill_holes`: the set elements and every background component that does not
/// reach the border, components connected as `structure` says (default the cross; every
/// extent 3, treated as symmetric). Its rank names the image axes; leading axes are a batch.
///
/// ```
/// use cuprite_array::{Array, image::binary_fill_holes};
/// let x = Array::from_slice(&[1u8, 1, 1, 1, 1,
///                             1, 0, 0, 1, 0,
///                             1, 1, 1, 1, 0], &[3, 5])?;
/// let y = binary_fill_holes(&x, None)?;
/// assert_eq!(y.cast::<u8>().to_vec()?, [1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 1, 1, 1, 1, 0]);
/// # Ok::<(), cuprite_array::Error>(())
/// ```
pub fn binary_fill_holes<T: BinaryElement>(
    x: &Array<T>,
    structure: Option<&Structure>,
) -> Result<Array<bool>> {
    let s = match structure {
        Some(s) => s.clone(),
        None => structure_of("binary_fill_holes", x.ndim(), &BinaryOpts::default())?,
    };
    let set = x.not_equal(T::default());
    let (lab, counts) = label_batch(&!&set, &s)?;
    let shape = x.shape().to_vec();
    let k = shape.len() - s.rank();
    let batch: usize = shape[..k].iter().product();
    let per: usize = shape[k..].iter().product();
    if batch * per == 0 {
        return Ok(set);
    }
    let lab = lab.reshape(&[batch, per])?.cast::<i64>();
    // The positions on the border of an image.
    let edge_idx: Vec<i64> = (0..per)
        .filter(|&f| {
            let mut rem = f;
            (k..shape.len()).rev().any(|a| {
                let i = rem % shape[a];
                rem /= shape[a];
                i == 0 || i + 1 == shape[a]
            })
        })
        .map(|f| f as i64)
        .collect();
    let top = counts.iter().copied().max().unwrap_or(0);
    let dev = x.device();
    let ei = Array::<i64>::from_slice_on(dev, &edge_idx, &[1, edge_idx.len()])?
        .broadcast_to(&[batch, edge_idx.len()])?;
    let edge_labels = lab.take_along_axis(&ei, 1)?;
    // A flag per label of each image: 1 where its component reaches the border.
    let flags = crate::with_device(dev, || Array::<i64>::zeros(&[batch, top + 1]));
    let ones = Array::<i64>::ones_like(&edge_labels);
    let flags = flags.scatter_max(1, &edge_labels, &ones, Default::default())?;
    let reach = flags.take_along_axis(&lab, 1)?;
    // Set pixels have label 0; a background pixel is filled when its component stays inside.
    lab.equal(0i64).try_or(reach.equal(0i64))?.reshape(&shape)
}

/// ArrayFire's dilation of the trailing axes of `x` by a `rank`-d mask, `max` or not.
fn af_morph<T: MorphElement>(
    what: &str,
    x: &Array<T>,
    mask: &Structure,
    rank: usize,
    max: bool,
) -> Result<Array<T>> {
    let limit = if rank == 2 { 19 } else { 7 };
    if mask.rank() != rank || mask.shape().iter().any(|&m| m > limit) {
        return Err(Error::InvalidArgument(format!(
            "{what}: the mask must be {rank}-d with extents of at most {limit}, given shape {:?}",
            mask.shape()
        )));
    }
    // ArrayFire pads with zeros for dilation and repeats the edge for erosion.
    let mode = if max {
        Boundary::Constant(0.0)
    } else {
        Boundary::Nearest
    };
    minmax(
        what,
        x,
        &Footprint::from(mask.clone()),
        max,
        false,
        mode,
        [0; 3],
    )
}

/// ArrayFire's `dilate`: the maximum over the set positions of a 2-d mask (at most 19 x 19)
/// centred at each pixel of the trailing two axes (zero past the edges).
///
/// ```
/// use cuprite_array::{Array, image::{Structure, dilate}};
/// let x = Array::from_slice(&[0.0f32, 0.0, 0.0, 0.0, 2.0, 0.0, 0.0, 0.0, 0.0], &[3, 3])?;
/// let y = dilate(&x, &Structure::new(&[1, 2], &[true, true])?)?;
/// assert_eq!(y.to_vec()?, [0.0, 0.0, 0.0, 0.0, 2.0, 2.0, 0.0, 0.0, 0.0]);
/// # Ok::<(), cuprite_array::Error>(())
/// ```
pub fn dilate<T: MorphElement>(x: &Array<T>, mask: &Structure) -> Result<Array<T>> {
    af_morph("dilate", x, mask, 2, true)
}

/// ArrayFire's `erode`: the minimum over a 2-d mask (the edge repeated past the edges).
///
/// ```
/// use cuprite_array::{Array, image::{Structure, erode}};
/// let x = Array::from_slice(&[5u8, 5, 5, 5, 1, 5, 5, 5, 5], &[3, 3])?;
/// let y = erode(&x, &Structure::ones(&[3, 3])?)?;
/// assert_eq!(y.to_vec()?, [1; 9]);
/// # Ok::<(), cuprite_array::Error>(())
/// ```
pub fn erode<T: MorphElement>(x: &Array<T>, mask: &Structure) -> Result<Array<T>> {
    af_morph("erode", x, mask, 2, false)
}

/// ArrayFire's `dilate3`: [`dilate`] over the trailing three axes (mask at most 7 x 7 x 7).
///
/// ```
/// use cuprite_array::{Array, image::{Structure, dilate3}};
/// let mut v = vec![0.0f64; 27];
/// v[13] = 1.0;
/// let y = dilate3(&Array::from_slice(&v, &[3, 3, 3])?, &Structure::ones(&[3, 3, 3])?)?;
/// assert_eq!(y.to_vec()?, [1.0; 27]);
/// # Ok::<(), cuprite_array::Error>(())
/// ```
pub fn dilate3<T: MorphElement>(x: &Array<T>, mask: &Structure) -> Result<Array<T>> {
    af_morph("dilate3", x, mask, 3, true)
}

/// ArrayFire's `erode3`: [`erode`] over the trailing three axes.
///
/// ```
/// use cuprite_array::{Array, image::{Structure, erode3}};
/// let mut v = vec![1.0f32; 27];
/// v[0] = 0.0;
/// let y = erode3(&Array::from_slice(&v, &[3, 3, 3])?, &Structure::ones(&[1, 1, 2])?)?;
/// assert_eq!(y.to_vec()?[..3], [0.0, 0.0, 1.0]);
/// # Ok::<(), cuprite_array::Error>(())
/// ```
pub fn erode3<T: MorphElement>(x: &Array<T>, mask: &Structure) -> Result<Array<T>> {
    af_morph("erode3", x, mask, 3, false)
}
