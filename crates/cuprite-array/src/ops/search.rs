//! Index arithmetic and membership (NumPy's `unravel_index`, `ravel_multi_index`,
//! `digitize`, `lexsort`, `isin`): fused element-wise index arithmetic, or sorts and binary
//! searches (library calls) followed by fused compares.

use crate::array::Array;
use crate::dtype::Ordered;
use crate::error::{Error, Result};
use crate::ops::DigitizeOpts;
use crate::ops::TakeOpts;
use crate::ops::scan::Side;

/// `Err` naming `what` when any of `idx` lies outside `[0, n)`.
fn check_range(idx: &Array<i64>, n: usize, what: &str) -> Result<()> {
    if idx.is_empty() {
        return Ok(());
    }
    let bad = idx
        .less(0i64)
        .or(idx.greater_equal(n as i64))
        .any()?
        .item()?;
    if bad {
        return Err(Error::Index(format!(
            "{what}: an index is outside [0, {n})"
        )));
    }
    Ok(())
}

/// The coordinates in `shape` (row-major) of each flat index (NumPy's `unravel_index`): one
/// array per axis, each of the indices' shape. An index outside the shape is an `Err`.
///
/// ```
/// use cuprite_array::{Array, ops::unravel_index};
/// let i = Array::from_slice(&[5i64, 7], &[2])?;
/// let c = unravel_index(&i, &[2, 4])?;
/// assert_eq!((c[0].to_vec()?, c[1].to_vec()?), (vec![1, 1], vec![1, 3]));
/// # Ok::<(), cuprite_array::Error>(())
/// ```
pub fn unravel_index(indices: &Array<i64>, shape: &[usize]) -> Result<Vec<Array<i64>>> {
    let n = crate::shape::checked_numel(shape)?;
    check_range(indices, n, "unravel_index")?;
    let mut out = Vec::with_capacity(shape.len());
    let mut rest = indices.clone();
    for &s in shape.iter().rev() {
        let s = s.max(1) as i64;
        out.push(&rest % s);
        rest = &rest / s;
    }
    out.reverse();
    Ok(out)
}

/// The flat row-major index in `shape` of coordinate arrays (NumPy's `ravel_multi_index`,
/// `mode='raise'`): a coordinate outside its axis is an `Err`.
///
/// ```
/// use cuprite_array::{Array, ops::ravel_multi_index};
/// let r = Array::from_slice(&[1i64, 0], &[2])?;
/// let c = Array::from_slice(&[3i64, 2], &[2])?;
/// assert_eq!(ravel_multi_index(&[&r, &c], &[2, 4])?.to_vec()?, vec![7, 2]);
/// # Ok::<(), cuprite_array::Error>(())
/// ```
pub fn ravel_multi_index(coords: &[&Array<i64>], shape: &[usize]) -> Result<Array<i64>> {
    if coords.len() != shape.len() || coords.is_empty() {
        return Err(Error::Shape(format!(
            "ravel_multi_index: {} coordinate arrays for shape {shape:?}",
            coords.len()
        )));
    }
    crate::shape::checked_numel(shape)?;
    let mut flat = coords[0].clone();
    check_range(coords[0], shape[0], "ravel_multi_index")?;
    for (c, &s) in coords.iter().zip(shape).skip(1) {
        check_range(c, s, "ravel_multi_index")?;
        flat = (&flat * s as i64).try_add(*c)?;
    }
    Ok(flat)
}

/// The indices of the stable sort by several keys, the last key primary (NumPy's `lexsort`
/// of 1-D keys of one length): one stable sort per key, least significant first.
///
/// ```
/// use cuprite_array::{Array, ops::lexsort};
/// let first = Array::from_slice(&[1i32, 1, 0], &[3])?;
/// let second = Array::from_slice(&[3i32, 2, 1], &[3])?;
/// assert_eq!(lexsort(&[&second, &first])?.to_vec()?, vec![2, 1, 0]);
/// # Ok::<(), cuprite_array::Error>(())
/// ```
pub fn lexsort<T: Ordered>(keys: &[&Array<T>]) -> Result<Array<i64>> {
    let first = keys
        .first()
        .ok_or_else(|| Error::InvalidArgument("lexsort of no keys".into()))?;
    if let Some(k) = keys
        .iter()
        .find(|k| k.ndim() != 1 || k.len() != first.len())
    {
        return Err(Error::Shape(format!(
            "lexsort needs 1-D keys of one length: {:?} and {:?}",
            first.shape(),
            k.shape()
        )));
    }
    let mut perm = first.argsort(0)?;
    for k in &keys[1..] {
        let p = k.take_with(&perm, TakeOpts::new().axis(0))?.argsort(0)?;
        perm = perm.take_with(&p, TakeOpts::new().axis(0))?;
    }
    Ok(perm)
}

impl<T: Ordered> Array<T> {
    /// Whether each element occurs in `test` (NumPy's `isin`; NaN is in nothing): `test` is
    /// sorted once and searched.
    ///
    /// ```
    /// use cuprite_array::Array;
    /// let a = Array::from_slice(&[1i32, 5, 3, 7], &[2, 2])?;
    /// let t = Array::from_slice(&[3i32, 1], &[2])?;
    /// assert_eq!(a.isin(&t)?.to_vec()?, vec![true, false, true, false]);
    /// # Ok::<(), cuprite_array::Error>(())
    /// ```
    pub fn isin(&self, test: &Array<T>) -> Result<Array<bool>> {
        crate::array::check_devices(&[&self.node, &test.node])?;
        if test.is_empty() || self.is_empty() {
            return Array::full(self.shape(), false).to_device(self.device());
        }
        let s = test.flatten()?.sort(0)?;
        let flat = self.flatten()?;
        let i = s
            .searchsorted(&flat, Side::Left)?
            .clamp(0i64, test.len() as i64 - 1);
        let found = s.take_with(&i, TakeOpts::new().axis(0))?.equal(&flat);
        found.reshape(self.shape())
    }
}

impl<T: Ordered> Array<T> {
    /// The index of the bin of each element (NumPy's `digitize`): for increasing `bins`, `i`
    /// with `bins[i-1] <= x < bins[i]` (with [`DigitizeOpts::right`]: `bins[i-1] < x <= bins[i]`); decreasing
    /// `bins` are searched reversed. Unsorted `bins` are an `Err`.
    ///
    /// ```
    /// use cuprite_array::Array;
    /// let x = Array::from_slice(&[0.2f64, 6.4, 3.0, 1.6], &[4])?;
    /// let bins = Array::from_slice(&[0.0f64, 1.0, 2.5, 4.0, 10.0], &[5])?;
    /// assert_eq!(x.digitize(&bins)?.to_vec()?, vec![1, 4, 3, 2]);
    /// # Ok::<(), cuprite_array::Error>(())
    /// ```
    pub fn digitize(&self, bins: &Array<T>) -> Result<Array<i64>> {
        self.digitize_with(bins, DigitizeOpts::new())
    }
    /// [`digitize`](Self::digitize) with NumPy's `right` ([`DigitizeOpts`]).
    pub fn digitize_with(&self, bins: &Array<T>, opts: DigitizeOpts) -> Result<Array<i64>> {
        let right = opts.right;
        if bins.ndim() != 1 {
            return Err(Error::Shape(format!(
                "digitize needs 1-D bins, got shape {:?}",
                bins.shape()
            )));
        }
        let side = if right { Side::Left } else { Side::Right };
        if bins.len() < 2 {
            return self.flatten()?.digitize_sorted(bins, side, self.shape());
        }
        let d = bins.slice(&crate::ops::stacking::along(1, 0, 1, bins.len()))?;
        let e = bins.slice(&crate::ops::stacking::along(1, 0, 0, bins.len() - 1))?;
        if d.greater_equal(&e).all()?.item()? {
            return self.flatten()?.digitize_sorted(bins, side, self.shape());
        }
        if d.less_equal(&e).all()?.item()? {
            // Decreasing: n - searchsorted(reversed, x, the other side).
            let other = if right { Side::Right } else { Side::Left };
            let r = bins.flip(&[0])?.searchsorted(&self.flatten()?, other)?;
            return (Array::full_like(&r, bins.len() as i64).try_sub(&r)?).reshape(self.shape());
        }
        Err(Error::InvalidArgument(
            "digitize: bins must be monotonically increasing or decreasing".into(),
        ))
    }

    fn digitize_sorted(&self, bins: &Array<T>, side: Side, shape: &[usize]) -> Result<Array<i64>> {
        bins.searchsorted(self, side)?.reshape(shape)
    }
}
