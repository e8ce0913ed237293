//! SciPy's measurements that group an image's elements on the host: `value_indices` (the
//! positions of each distinct value) and `labeled_comprehension` (a function of the caller
//! applied to each label's values). Both read the arrays back once and group by one pass over
//! them; `value_indices` places each group's index arrays back on the image's device.

use crate::array::Array;
use crate::dtype::{Integer, Numeric, Scalar};
use crate::error::{Error, Result};
use std::collections::BTreeMap;

/// An integer element as `i128` (every integer type fits).
fn wide<L: Integer>(v: L) -> i128 {
    match v.to_scalar() {
        Scalar::I64(x) => i128::from(x),
        Scalar::U64(x) => i128::from(x),
        Scalar::F32(x) => x as i128,
        Scalar::F64(x) => x as i128,
        Scalar::C32(z) => z.re as i128,
        Scalar::C64(z) => z.re as i128,
    }
}

/// What [`value_indices`] gives for one value: the value and the index of each of its
/// elements, one array an axis (as [`Array::nonzero`] gives them).
pub type ValueIndices<L> = (L, Vec<Array<i64>>);

/// SciPy's `value_indices`: for each distinct value of the integer array `x` (in increasing
/// order, `ignore` left out), the indices of its elements in row-major order, one `i64` array
/// an axis, on `x`'s device. Grouped on the host.
///
/// # Errors
/// A 0-dimensional array, or a failed read or upload, named.
///
/// ```
/// use cuprite_array::{Array, image::value_indices};
/// let x = Array::from_slice(&[0u8, 2, 2, 0, 1, 2], &[2, 3])?;
/// let v = value_indices(&x, Some(0))?;
/// assert_eq!(v.len(), 2);
/// assert_eq!((v[0].0, v[0].1[0].to_vec()?, v[0].1[1].to_vec()?), (1, vec![1], vec![1]));
/// assert_eq!((v[1].1[0].to_vec()?, v[1].1[1].to_vec()?), (vec![0, 0, 1], vec![1, 2, 2]));
/// # Ok::<(), cuprite_array::Error>(())
/// ```
pub fn value_indices<L: Integer>(
    x: &Array<L>,
    ignore: Option<i64>,
) -> Result<Vec<ValueIndices<L>>> {
    let nd = x.ndim();
    if nd == 0 {
        return Err(Error::Shape(
            "value_indices: a 0-dimensional array has no indices".into(),
        ));
    }
    let vals = x.to_vec()?;
    let mut groups: BTreeMap<i128, (L, Vec<usize>)> = BTreeMap::new();
    let skip = ignore.map(i128::from);
    for (flat, &v) in vals.iter().enumerate() {
        let k = wide(v);
        if Some(k) == skip {
            continue;
        }
        groups
            .entry(k)
            .or_insert_with(|| (v, Vec::new()))
            .1
            .push(flat);
    }
    let shape = x.shape().to_vec();
    groups
        .into_values()
        .map(|(v, flats)| {
            let mut per: Vec<Vec<i64>> = vec![Vec::with_capacity(flats.len()); nd];
            for f in flats {
                let mut rest = f;
                for a in (0..nd).rev() {
                    per[a].push((rest % shape[a]) as i64);
                    rest /= shape[a];
                }
            }
            let arrays = per
                .iter()
                .map(|ix| Array::from_slice_on(x.device(), ix, &[ix.len()]))
                .collect::<Result<Vec<_>>>()?;
            Ok((v, arrays))
        })
        .collect()
}

/// SciPy's `labeled_comprehension`: `func` of the values of `x` (as `f64`, row-major) whose
/// label is each of `index`, or `default` for a label with no element. `labels` broadcasts to
/// `x`'s shape. Run on the host.
///
/// # Errors
/// Labels that do not broadcast to `x`'s shape, arrays on different devices, or a failed
/// read, named.
///
/// ```
/// use cuprite_array::{Array, image::labeled_comprehension};
/// let x = Array::from_slice(&[1.0f32, 5.0, 2.0, 8.0], &[4])?;
/// let l = Array::from_slice(&[1i32, 2, 1, 2], &[4])?;
/// let range = |v: &[f64]| v.iter().cloned().fold(f64::MIN, f64::max) - v.iter().cloned().fold(f64::MAX, f64::min);
/// assert_eq!(labeled_comprehension(&x, &l, &[1, 2, 3], &range, -1.0)?, [1.0, 3.0, -1.0]);
/// # Ok::<(), cuprite_array::Error>(())
/// ```
pub fn labeled_comprehension<T: Numeric, L: Integer>(
    x: &Array<T>,
    labels: &Array<L>,
    index: &[i64],
    func: &dyn Fn(&[f64]) -> f64,
    default: f64,
) -> Result<Vec<f64>> {
    crate::array::check_devices(&[&x.node, &labels.node])?;
    let l = labels.broadcast_to(x.shape()).map_err(|_| {
        Error::InvalidArgument(format!(
            "labeled_comprehension: labels of shape {:?} do not broadcast to the input's {:?}",
            labels.shape(),
            x.shape()
        ))
    })?;
    let xs = x.cast::<f64>().to_vec()?;
    let ls = l.to_vec()?;
    let mut groups: BTreeMap<i128, Vec<f64>> =
        index.iter().map(|&i| (i128::from(i), Vec::new())).collect();
    for (v, lab) in xs.into_iter().zip(ls) {
        if let Some(g) = groups.get_mut(&wide(lab)) {
            g.push(v);
        }
    }
    Ok(index
        .iter()
        .map(|&i| match groups.get(&i128::from(i)) {
            Some(g) if !g.is_empty() => func(g),
            _ => default,
        })
        .collect())
}
