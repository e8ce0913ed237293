//! SciPy's `label` and `find_objects`, and ArrayFire's `regions`: connected components
//! numbered as SciPy numbers them (1, 2, ... in the raster order of each component's first
//! pixel), by union-find and a numbering of the roots in one library call ([`Label`]: CUDA
//! kernels and a CPU twin that give the same labels).

use super::label_call::Label;
use super::morphology::split_batch;
use super::morphology_structure::{Structure, generate_binary_structure};
use crate::array::Array;
use crate::dtype::{DType, Element, Integer};
use crate::error::{Error, Result};
use crate::graph::{Node, Op};
use crate::shape::SliceArg;
use std::ops::Range;
use std::sync::Arc;

/// The neighbour offsets earlier in raster order than the centre, of `s` made symmetric
/// (an offset or its negation set), or an `Err` when `s` is not `3 x ... x 3`.
fn earlier_neighbours(what: &str, s: &Structure) -> Result<Vec<[i64; 3]>> {
    if s.shape().iter().any(|&m| m != 3) {
        return Err(Error::InvalidArgument(format!(
            "{what}: structure dimensions must be equal to 3, given shape {:?}",
            s.shape()
        )));
    }
    let set = s.offsets();
    let mut out: Vec<[i64; 3]> = Vec::new();
    for o in &set {
        for c in [*o, o.map(|v| -v)] {
            if c < [0, 0, 0] && !out.contains(&c) {
                out.push(c);
            }
        }
    }
    out.sort();
    Ok(out)
}

/// The labels (`i32`, 0 for background) of the batch of images `x` (set where non-zero), the
/// structure's rank the image axes, and the count of components of each image (read back: a
/// synchronisation).
fn label_impl<T: Element>(
    what: &str,
    x: &Array<T>,
    s: &Structure,
) -> Result<(Array<i32>, Vec<usize>)> {
    let nb = earlier_neighbours(what, s)?;
    let (batch, n) = split_batch(what, x.shape(), s.rank())?;
    let per: usize = n.iter().product();
    if per > i32::MAX as usize {
        return Err(Error::InvalidArgument(format!(
            "{what}: an image of {per} pixels is over the 2^31 - 1 that i32 labels number"
        )));
    }
    if per == 0 || batch == 0 {
        return Ok((Array::zeros_like(x), vec![0; batch]));
    }
    let dev = x.device();
    // Bytes the call reads as set where non-zero: `bool` and `u8` as they are.
    let m = match T::DTYPE {
        DType::Bool | DType::U8 => x.node.clone(),
        _ => x.not_equal(T::default()).node,
    };
    let call = Label { batch, n, nb };
    let len = call.out_len();
    let out: Array<i32> = Array::from_node(Node::new(
        Op::Library(Arc::new(call), vec![m]),
        DType::I32,
        vec![len],
        dev,
    ));
    let labels = out.slice(&[range(0, batch * per)])?.reshape(x.shape())?;
    let counts = out
        .slice(&[range(batch * per, len)])?
        .to_vec()?
        .into_iter()
        .map(|c| c as usize)
        .collect();
    Ok((labels, counts))
}

/// The slice `start..end` of an axis.
fn range(start: usize, end: usize) -> SliceArg {
    SliceArg::Range {
        start: Some(start as isize),
        end: Some(end as isize),
        step: 1,
    }
}

/// SciPy's `label` with its default structure (the cross of `generate_binary_structure(rank,
/// 1)`): the connected components of the non-zero elements of an array of rank 1 to 3,
/// numbered from 1 in the raster order of their first elements, and their count.
///
/// ```
/// use cuprite_array::{Array, image::label};
/// let x = Array::from_slice(&[0u8, 1, 1, 0, 0, 0, 1, 1, 0, 0, 0, 0, 1, 0, 0,
///                             0, 0, 0, 1, 1, 1, 0, 0, 0, 0], &[5, 5])?;
/// let (l, n) = label(&x)?;
/// assert_eq!(n, 3);
/// assert_eq!(l.to_vec()?, [0, 1, 1, 0, 0, 0, 1, 1, 0, 0, 0, 0, 1, 0, 0,
///                          0, 0, 0, 2, 2, 3, 0, 0, 0, 0]);
/// # Ok::<(), cuprite_array::Error>(())
/// ```
pub fn label<T: Element>(x: &Array<T>) -> Result<(Array<i32>, usize)> {
    let s = generate_binary_structure(x.ndim(), 1).map_err(|_| {
        Error::InvalidArgument(format!("label: rank {} is not 1, 2 or 3", x.ndim()))
    })?;
    label_with(x, &s)
}

/// SciPy's `label` with a `structure` (every extent 3, the array's rank; treated as symmetric:
/// an offset or its negation connects).
///
/// ```
/// use cuprite_array::{Array, image::{generate_binary_structure, label_with}};
/// let x = Array::from_slice(&[1u8, 0, 0, 1], &[2, 2])?;
/// let (l, n) = label_with(&x, &generate_binary_structure(2, 2)?)?;
/// assert_eq!((l.to_vec()?, n), (vec![1, 0, 0, 1], 1));
/// # Ok::<(), cuprite_array::Error>(())
/// ```
pub fn label_with<T: Element>(x: &Array<T>, structure: &Structure) -> Result<(Array<i32>, usize)> {
    if structure.rank() != x.ndim() {
        return Err(Error::InvalidArgument(format!(
            "label: structure and input must have equal rank, given {} and {}",
            structure.rank(),
            x.ndim()
        )));
    }
    let (l, c) = label_impl("label", x, structure)?;
    Ok((l, c.first().copied().unwrap_or(0)))
}

/// [`label_with`] for a batch: the structure's rank names the image axes (the trailing ones),
/// each image of the leading axes is numbered from 1, and the counts come per image.
///
/// ```
/// use cuprite_array::{Array, image::{generate_binary_structure, label_batch}};
/// let x = Array::from_slice(&[1u8, 0, 1, 0, 1, 1], &[2, 3])?;
/// let (l, n) = label_batch(&x, &generate_binary_structure(1, 1)?)?;
/// assert_eq!((l.to_vec()?, n), (vec![1, 0, 2, 0, 1, 1], vec![2, 1]));
/// # Ok::<(), cuprite_array::Error>(())
/// ```
pub fn label_batch<T: Element>(
    x: &Array<T>,
    structure: &Structure,
) -> Result<(Array<i32>, Vec<usize>)> {
    label_impl("label_batch", x, structure)
}

/// ArrayFire's `regions`: [`label_batch`] of the trailing two axes with 4-connectivity
/// (`connectivity` 1) or 8-connectivity (`connectivity` 2). ArrayFire numbers components in
/// its own order; this one numbers them as SciPy does.
///
/// ```
/// use cuprite_array::{Array, image::regions};
/// let x = Array::from_slice(&[true, false, false, true], &[2, 2])?;
/// assert_eq!(regions(&x, 2)?.to_vec()?, [1, 0, 0, 1]);
/// assert_eq!(regions(&x, 1)?.to_vec()?, [1, 0, 0, 2]);
/// # Ok::<(), cuprite_array::Error>(())
/// ```
pub fn regions<T: Element>(x: &Array<T>, connectivity: usize) -> Result<Array<i32>> {
    if !(1..=2).contains(&connectivity) {
        return Err(Error::InvalidArgument(format!(
            "regions: connectivity {connectivity} is not 1 (4-connected) or 2 (8-connected)"
        )));
    }
    Ok(label_impl("regions", x, &generate_binary_structure(2, connectivity)?)?.0)
}

/// The most objects [`find_objects`] lists beyond the element count of the labels.
const FIND_OBJECTS_MIN_LIMIT: usize = 1 << 24;

/// SciPy's `find_objects`: for each label `1..=max_label` (every label up to the largest when
/// `max_label` is 0), the bounding box of its elements as one range an axis, `None` for a
/// label with no element. Reads the labels back (a synchronisation).
///
/// # Errors
/// A list longer than both the element count of `labels` and `2^24` (a `max_label`, or a
/// largest label, that large: at most as many labels as elements are present, so that the
/// rest of such a list is `None`), or one the host cannot hold.
///
/// ```
/// use cuprite_array::{Array, image::find_objects};
/// let l = Array::from_slice(&[0i32, 1, 1, 0, 0, 0, 3, 3, 0], &[3, 3])?;
/// let o = find_objects(&l, 0)?;
/// assert_eq!(o, [Some(vec![0..1, 1..3]), None, Some(vec![2..3, 0..2])]);
/// # Ok::<(), cuprite_array::Error>(())
/// ```
pub fn find_objects<T: Integer>(
    labels: &Array<T>,
    max_label: usize,
) -> Result<Vec<Option<Vec<Range<usize>>>>> {
    let shape = labels.shape().to_vec();
    let v = labels.cast::<i64>().to_vec()?;
    let largest = v.iter().copied().max().unwrap_or(0).max(0);
    let top = if max_label == 0 {
        usize::try_from(largest).unwrap_or(usize::MAX)
    } else {
        max_label
    };
    let limit = v.len().max(FIND_OBJECTS_MIN_LIMIT);
    if top > limit {
        return Err(Error::InvalidArgument(format!(
            "find_objects: {top} objects (max_label {max_label}, largest label {largest}) are \
             more than {limit}, the larger of the {} labels and 2^24",
            v.len()
        )));
    }
    let mut boxes: Vec<Option<Vec<Range<usize>>>> = crate::util::host_vec(top, "find_objects")?;
    boxes.resize(top, None);
    let nd = shape.len();
    let mut idx = vec![0usize; nd];
    for &l in &v {
        if l >= 1 && (l as usize) <= top {
            let b = boxes[l as usize - 1]
                .get_or_insert_with(|| idx.iter().map(|&i| i..i + 1).collect());
            for (r, &i) in b.iter_mut().zip(&idx) {
                r.start = r.start.min(i);
                r.end = r.end.max(i + 1);
            }
        }
        for a in (0..nd).rev() {
            idx[a] += 1;
            if idx[a] < shape[a] {
                break;
            }
            idx[a] = 0;
        }
    }
    Ok(boxes)
}
