//! Sort-based set operations on flattened arrays: [`Array::unique`] (with counts, first
//! indices and the inverse), [`union1d`], [`intersect1d`] and [`setdiff1d`]. Equality is
//! numeric: `-0.0` equals `+0.0` (the first in sorted order, `-0.0`, represents both) and all
//! NaNs are one value (NumPy's `equal_nan=True`), shown as the canonical NaN.

use super::gpu;
use super::keys::KeySpec;
use super::{Rows, cpu, dev, dev_array, empty, host_array, record, sort_moved};
use crate::array::Array;
use crate::dtype::Element;
use crate::error::{Error, Result};

/// The result of [`Array::unique`].
#[derive(Clone, Debug)]
pub struct Unique<T: Element> {
    /// The distinct values, ascending.
    pub values: Array<T>,
    /// How often each occurs.
    pub counts: Array<i64>,
    /// The flat index of each value's first occurrence.
    pub first: Array<i64>,
    /// For each input element (flattened), the position of its value in `values`.
    pub inverse: Array<i64>,
}

impl<T: Element> Array<T> {
    /// The distinct elements of the flattened array, sorted (NumPy's `unique` without the
    /// `return_*` options): a sort of the keys alone and a compaction, without the permutation
    /// and the outputs [`unique`](Self::unique) adds. Equality as there; empty input gives an
    /// empty array; complex → `Err`.
    ///
    /// ```
    /// use cuprite_array::{Array, Device};
    /// let a = Array::<f32>::from_slice_on(Device::CPU, &[3.0, -0.0, 1.0, 0.0, 3.0], &[5])?;
    /// assert_eq!(a.unique_values()?.to_vec()?, [-0.0, 1.0, 3.0]);
    /// # Ok::<(), cuprite_array::Error>(())
    /// ```
    pub fn unique_values(&self) -> Result<Array<T>> {
        let spec = KeySpec::of(T::DTYPE, "unique_values")?;
        sorted_compact(self, spec, 0, 0, "unique_values")
    }

    /// The distinct elements of the flattened array, sorted, with their counts, first indices
    /// and the inverse map (NumPy's `unique` with all `return_*` options). The inverse has the
    /// input's shape (NumPy 2): `values` taken at it rebuilds the input. Empty input gives
    /// empty outputs; complex → `Err`.
    ///
    /// ```
    /// use cuprite_array::{Array, Device};
    /// let a = Array::<i32>::from_slice_on(Device::CPU, &[3, 1, 3, 2, 1], &[5])?;
    /// let u = a.unique()?;
    /// assert_eq!(u.values.to_vec()?, [1, 2, 3]);
    /// assert_eq!(u.counts.to_vec()?, [2, 1, 2]);
    /// assert_eq!(u.first.to_vec()?, [1, 3, 0]);
    /// assert_eq!(u.inverse.to_vec()?, [2, 0, 2, 1, 0]);
    /// let m = Array::<i32>::from_slice_on(Device::CPU, &[3, 1, 3, 2], &[2, 2])?;
    /// assert_eq!(m.unique()?.inverse.shape(), &[2, 2]);
    /// # Ok::<(), cuprite_array::Error>(())
    /// ```
    pub fn unique(&self) -> Result<Unique<T>> {
        let mut u = self.unique_flat()?;
        u.inverse = u.inverse.reshape(self.shape())?;
        Ok(u)
    }

    /// [`unique`](Self::unique) with a flat inverse.
    fn unique_flat(&self) -> Result<Unique<T>> {
        let spec = KeySpec::of(T::DTYPE, "unique")?;
        let r = Rows::new(self, None)?;
        let device = r.device();
        let n = r.n;
        if n == 0 {
            return Ok(Unique {
                values: empty(&[0], device)?,
                counts: empty(&[0], device)?,
                first: empty(&[0], device)?,
                inverse: empty(&[0], device)?,
            });
        }
        r.eager(
            || {
                record(spec);
                let (sv, perm) = cpu::sort_rows(spec, &r.host_bytes()?, 1, n, false);
                let (v, f, c, inv) = cpu::unique(spec, &sv, &perm, n);
                Ok(Unique {
                    values: host_array(&v, &[f.len()], device)?,
                    counts: Array::from_slice_on(device, &c, &[c.len()])?,
                    first: Array::from_slice_on(device, &f, &[f.len()])?,
                    inverse: Array::from_slice_on(device, &inv, &[n])?,
                })
            },
            |g| {
                let (sv, perm) = sort_moved(&r, spec, false, true, true)?;
                let (Some(sv), Some(perm)) = (sv, perm) else {
                    return Err(Error::InvalidArgument("unique: no sorted output".into()));
                };
                let (ss, ps) = (sv.contiguous_storage()?, perm.contiguous_storage()?);
                let [v, f, c, inv] = gpu::unique(&g, dev(&ss)?, dev(&ps)?, spec, n)?;
                let nu = f.len();
                Ok(Unique {
                    values: dev_array(v, &[nu], device),
                    counts: dev_array(c, &[nu], device),
                    first: dev_array(f, &[nu], device),
                    inverse: dev_array(inv, &[n], device),
                })
            },
        )
    }
}

/// Flags mode of a set operation over `concat(a, b)` sorted (see `kernels_select::run_flags`).
fn set_op<T: Element>(a: &Array<T>, b: &Array<T>, mode: u64, call: &str) -> Result<Array<T>> {
    let spec = KeySpec::of(T::DTYPE, call)?;
    if a.device() != b.device() {
        return Err(Error::DeviceMismatch(format!(
            "{call}: arrays on {:?} and {:?}",
            a.device(),
            b.device()
        )));
    }
    let (a, b) = if mode == 0 {
        (a.reshape(&[a.len()])?, b.reshape(&[b.len()])?)
    } else {
        (a.unique_values()?, b.unique_values()?)
    };
    let na = a.len();
    sorted_compact(&Array::concat(&[&a, &b], 0)?, spec, mode, na, call)
}

/// Sorts the flattened `c` and keeps the elements its run flags of `mode` select (see
/// `kernels_select::run_flags`; `na`: the length of the first array of a set operation).
/// Only mode 2 reads the sort's permutation: the others sort keys alone.
fn sorted_compact<T: Element>(
    c: &Array<T>,
    spec: KeySpec,
    mode: u64,
    na: usize,
    call: &str,
) -> Result<Array<T>> {
    let r = Rows::new(c, None)?;
    let device = r.device();
    let n = r.n;
    if n == 0 {
        return empty(&[0], device);
    }
    r.eager(
        || {
            record(spec);
            let (sv, perm) = cpu::sort_rows(spec, &r.host_bytes()?, 1, n, false);
            let out = cpu::compact(spec, &sv, &perm, n, mode, na);
            let m = out.len() / T::DTYPE.size();
            host_array(&out, &[m], device)
        },
        |g| {
            let (sv, perm) = sort_moved(&r, spec, false, true, mode == 2)?;
            let Some(sv) = sv else {
                return Err(Error::InvalidArgument(format!("{call}: no sorted output")));
            };
            let ss = sv.contiguous_storage()?;
            let ps = perm.map(|p| p.contiguous_storage()).transpose()?;
            let pd = ps.as_ref().map(|p| dev(p)).transpose()?;
            let (out, m) = gpu::compact(&g, dev(&ss)?, pd, spec, n, mode, na)?;
            Ok(dev_array(out, &[m], device))
        },
    )
}

/// The sorted distinct values found in `a` or `b` (flattened; NumPy's `union1d`).
///
/// ```
/// use cuprite_array::{Array, Device, union1d};
/// let a = Array::<i32>::from_slice_on(Device::CPU, &[3, 1], &[2])?;
/// let b = Array::<i32>::from_slice_on(Device::CPU, &[2, 3], &[2])?;
/// assert_eq!(union1d(&a, &b)?.to_vec()?, [1, 2, 3]);
/// # Ok::<(), cuprite_array::Error>(())
/// ```
pub fn union1d<T: Element>(a: &Array<T>, b: &Array<T>) -> Result<Array<T>> {
    set_op(a, b, 0, "union1d")
}

/// The sorted distinct values found in both `a` and `b` (NumPy's `intersect1d`).
///
/// ```
/// use cuprite_array::{Array, Device, intersect1d};
/// let a = Array::<i32>::from_slice_on(Device::CPU, &[3, 1, 3], &[3])?;
/// let b = Array::<i32>::from_slice_on(Device::CPU, &[2, 3], &[2])?;
/// assert_eq!(intersect1d(&a, &b)?.to_vec()?, [3]);
/// # Ok::<(), cuprite_array::Error>(())
/// ```
pub fn intersect1d<T: Element>(a: &Array<T>, b: &Array<T>) -> Result<Array<T>> {
    set_op(a, b, 1, "intersect1d")
}

/// The sorted distinct values of `a` that are not in `b` (NumPy's `setdiff1d`).
///
/// ```
/// use cuprite_array::{Array, Device, setdiff1d};
/// let a = Array::<i32>::from_slice_on(Device::CPU, &[3, 1, 4, 1], &[4])?;
/// let b = Array::<i32>::from_slice_on(Device::CPU, &[2, 3], &[2])?;
/// assert_eq!(setdiff1d(&a, &b)?.to_vec()?, [1, 4]);
/// # Ok::<(), cuprite_array::Error>(())
/// ```
pub fn setdiff1d<T: Element>(a: &Array<T>, b: &Array<T>) -> Result<Array<T>> {
    set_op(a, b, 2, "setdiff1d")
}
