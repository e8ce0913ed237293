//! The sort family: `sort`, `argsort`, `sort_with_indices`, [`sort_by_key`], selection
//! (`topk`, `kthvalue`, `partition`, `median`, `quantile`, `mode`) and the sort-based set
//! operations ([`Array::unique`], [`union1d`], [`intersect1d`], [`setdiff1d`]).
//!
//! This module owns the order (see `keys`): ascending puts NaN last and `-0.0` before `+0.0`;
//! descending is its exact reverse (NaN first, as `topk(largest)`: NaN counts as the largest
//! value); sorts are stable (equal keys keep their input order, in both directions); NaNs come
//! out of a value-producing sort as the dtype's canonical quiet NaN. The CPU backend (rayon)
//! and the CUDA backend (generated NVRTC kernels: an LSD radix sort of 8-bit digits, a
//! one-block-per-row sort in shared memory for rows that fit, radix selection for `topk`,
//! `kthvalue` and quantiles of one long row) give the same results bit for bit.
//!
//! These operations run when called (the input is evaluated first, fused with whatever
//! element-wise work produces it); their results are ordinary arrays. Complex inputs are an
//! `Err` (no order); `bool` sorts as `false < true`.

mod cpu;
mod gpu;
mod kernels;
mod kernels_select;
mod keys;
mod params;
mod select;
mod unique;

pub use select::{QuantileMethod, QuantileOpts};
pub use unique::{Unique, intersect1d, setdiff1d, union1d};

use crate::array::Array;
use crate::device::Device;
use crate::dtype::{DType, Element};
use crate::error::{Error, Result};
use crate::ops::SortOpts;
use crate::shape::{Layout, checked_numel};
use crate::storage::{DevBuf, Storage};
use keys::KeySpec;
use std::sync::Arc;

/// An input laid out as `rows` contiguous rows of `n` along the chosen axis.
pub(crate) struct Rows<T: Element> {
    /// The input with the axis moved last (a view).
    moved: Array<T>,
    /// The permutation back to the input's axis order (`None`: the axis was last already).
    inv: Option<Vec<usize>>,
    rows: usize,
    n: usize,
}

impl<T: Element> Rows<T> {
    /// `a` seen along `axis` (negative counts from the end); `None` flattens it to one row.
    fn new(a: &Array<T>, axis: Option<isize>) -> Result<Rows<T>> {
        let Some(axis) = axis else {
            let flat = a.reshape(&[a.len()])?;
            return Ok(Rows {
                rows: 1,
                n: a.len(),
                moved: flat,
                inv: None,
            });
        };
        let nd = a.ndim();
        if nd == 0 {
            return Err(Error::Axis(format!(
                "axis {axis} is out of range for a 0-dimensional array"
            )));
        }
        let ax = crate::shape::axis(axis, nd)?;
        let total = checked_numel(a.shape())?;
        let n = a.shape()[ax];
        let rows = total.checked_div(n).unwrap_or(0);
        if ax == nd - 1 {
            return Ok(Rows {
                moved: a.clone(),
                inv: None,
                rows,
                n,
            });
        }
        let mut perm: Vec<usize> = (0..nd).filter(|&i| i != ax).collect();
        perm.push(ax);
        let mut inv = vec![0; nd];
        for (i, &p) in perm.iter().enumerate() {
            inv[p] = i;
        }
        Ok(Rows {
            moved: a.permute(&perm)?,
            inv: Some(inv),
            rows,
            n,
        })
    }

    fn device(&self) -> Device {
        self.moved.device()
    }

    /// Runs `host` (the host twin) or `gpu` (the CUDA kernels, given the device's context),
    /// whichever the device's backend runs eager work with ([`crate::backend::eager`]).
    fn eager<R>(
        &self,
        host: impl FnOnce() -> Result<R>,
        gpu: impl FnOnce(gpu::Gpu) -> Result<R>,
    ) -> Result<R> {
        crate::backend::eager(self.device(), host, |ordinal| gpu(gpu::Gpu::new(ordinal)?))
    }

    /// The moved shape with the last extent replaced by `last` (`None`: removed).
    fn shape_with(&self, last: Option<usize>) -> Vec<usize> {
        let mut s = self.moved.shape().to_vec();
        s.pop();
        s.extend(last);
        s
    }

    /// Puts a result laid out like `moved` (last extent possibly changed) back in the input's
    /// axis order.
    fn back<U: Element>(&self, r: Array<U>) -> Result<Array<U>> {
        match &self.inv {
            Some(inv) => r.permute(inv),
            None => Ok(r),
        }
    }

    /// The input's elements as host bytes (CPU backend).
    fn host_bytes(&self) -> Result<Vec<u8>> {
        Ok(T::slice_bytes(&self.moved.to_vec()?).to_vec())
    }

    /// The input's device storage (CUDA backend).
    fn device_storage(&self) -> Result<Arc<Storage>> {
        self.moved.contiguous_storage()
    }
}

/// The device buffer of CUDA storage.
pub(crate) fn dev(s: &Storage) -> Result<&DevBuf> {
    match s {
        Storage::Cuda(d) => Ok(d),
        Storage::Host(_) => Err(Error::DeviceMismatch(
            "a device buffer was expected on the CUDA backend".into(),
        )),
    }
}

/// An array of `shape` from host bytes of `U`.
pub(crate) fn host_array<U: Element>(
    bytes: &[u8],
    shape: &[usize],
    device: Device,
) -> Result<Array<U>> {
    Array::from_slice_on(device, &U::from_bytes(bytes), shape)
}

/// An array of `shape` over device buffer `d`.
pub(crate) fn dev_array<U: Element>(d: DevBuf, shape: &[usize], device: Device) -> Array<U> {
    Array::from_storage(
        Arc::new(Storage::Cuda(d)),
        Layout::contiguous(shape),
        shape,
        device,
    )
}

/// An empty array of `shape` (which has a zero extent) of `U`.
pub(crate) fn empty<U: Element>(shape: &[usize], device: Device) -> Result<Array<U>> {
    Array::from_slice_on(device, &[], shape)
}

/// The dtype quantiles of `d` are computed in (`T::Mean`).
pub(crate) fn mean_dtype(d: DType) -> DType {
    if d.is_float() { d } else { DType::F64 }
}

/// On the CPU backend while kernel sources are recorded: records every kernel the CUDA
/// backend would build for `spec`, so that the compile-only check covers them.
pub(crate) fn record(spec: KeySpec) {
    if crate::jit::recording() {
        for s in gpu::all_sources(spec, mean_dtype(spec.dtype)) {
            crate::jit::record(&s.source);
        }
    }
}

/// Sorted values and/or indices (each when asked for).
type Sorted<T> = (Option<Array<T>>, Option<Array<i64>>);

/// Sorted values and/or indices of `r`'s rows, in the moved layout.
fn sort_moved<T: Element>(
    r: &Rows<T>,
    spec: KeySpec,
    desc: bool,
    want_v: bool,
    want_i: bool,
) -> Result<Sorted<T>> {
    let shape = r.moved.shape().to_vec();
    let device = r.device();
    if r.rows * r.n == 0 {
        return Ok((
            want_v.then(|| empty::<T>(&shape, device)).transpose()?,
            want_i.then(|| empty::<i64>(&shape, device)).transpose()?,
        ));
    }
    r.eager(
        || {
            record(spec);
            let (v, i) = cpu::sort_rows(spec, &r.host_bytes()?, r.rows, r.n, desc);
            Ok((
                want_v
                    .then(|| host_array::<T>(&v, &shape, device))
                    .transpose()?,
                want_i
                    .then(|| Array::from_slice_on(device, &i, &shape))
                    .transpose()?,
            ))
        },
        |g| {
            let s = r.device_storage()?;
            let (v, i) = gpu::sort_rows(&g, dev(&s)?, spec, r.rows, r.n, desc, want_v, want_i)?;
            Ok((
                v.map(|v| dev_array::<T>(v, &shape, device)),
                i.map(|i| dev_array::<i64>(i, &shape, device)),
            ))
        },
    )
}

/// Sort along `axis`: values and/or indices in the input's axis order.
fn sort_axis<T: Element>(
    a: &Array<T>,
    axis: isize,
    desc: bool,
    want_v: bool,
    want_i: bool,
    call: &str,
) -> Result<Sorted<T>> {
    let spec = KeySpec::of(T::DTYPE, call)?;
    let r = Rows::new(a, Some(axis))?;
    let (v, i) = sort_moved(&r, spec, desc, want_v, want_i)?;
    Ok((
        v.map(|v| r.back(v)).transpose()?,
        i.map(|i| r.back(i).map(|i| i.known_in(0, r.n as i64 - 1)))
            .transpose()?,
    ))
}

impl<T: Element> Array<T> {
    /// The elements sorted along `axis` (negative counts from the end), ascending (or
    /// descending with [`sort_with`](Self::sort_with)). Ascending puts NaN last and `-0.0` before `+0.0`; descending is the
    /// exact reverse (NaN first). NaNs come out as the canonical quiet NaN. Complex → `Err`.
    ///
    /// ```
    /// use cuprite_array::{Array, Device};
    /// use cuprite_array::ops::SortOpts;
    /// let a = Array::<f32>::from_slice_on(Device::CPU, &[3.0, f32::NAN, -1.0, 2.0], &[2, 2])?;
    /// assert_eq!(a.sort(-1)?.to_vec()?[2..], [-1.0, 2.0]);
    /// assert!(a.sort_with(0, SortOpts::new().descending(true))?.to_vec()?[1].is_nan());
    /// # Ok::<(), cuprite_array::Error>(())
    /// ```
    pub fn sort(&self, axis: isize) -> Result<Array<T>> {
        self.sort_with(axis, SortOpts::new())
    }
    /// [`sort`](Self::sort) with the order of [`SortOpts`].
    pub fn sort_with(&self, axis: isize, opts: SortOpts) -> Result<Array<T>> {
        let (v, _) = sort_axis(self, axis, opts.descending, true, false, "sort")?;
        v.ok_or_else(|| Error::InvalidArgument("sort produced no values".into()))
    }

    /// The stable sorting permutation along `axis`: `i64` positions within the axis such that
    /// gathering them gives [`sort`](Self::sort); equal elements keep their input order (in
    /// both directions).
    ///
    /// ```
    /// use cuprite_array::{Array, Device};
    /// use cuprite_array::ops::SortOpts;
    /// let a = Array::<i32>::from_slice_on(Device::CPU, &[2, 1, 2, 1], &[4])?;
    /// assert_eq!(a.argsort(0)?.to_vec()?, [1, 3, 0, 2]);
    /// assert_eq!(a.argsort_with(0, SortOpts::new().descending(true))?.to_vec()?, [0, 2, 1, 3]);
    /// # Ok::<(), cuprite_array::Error>(())
    /// ```
    pub fn argsort(&self, axis: isize) -> Result<Array<i64>> {
        self.argsort_with(axis, SortOpts::new())
    }
    /// [`argsort`](Self::argsort) with the order of [`SortOpts`].
    pub fn argsort_with(&self, axis: isize, opts: SortOpts) -> Result<Array<i64>> {
        let (_, i) = sort_axis(self, axis, opts.descending, false, true, "argsort")?;
        i.ok_or_else(|| Error::InvalidArgument("argsort produced no indices".into()))
    }

    /// [`sort`](Self::sort) and [`argsort`](Self::argsort) at once (one sort).
    ///
    /// ```
    /// use cuprite_array::{Array, Device};
    /// let a = Array::<u8>::from_slice_on(Device::CPU, &[5, 3, 9], &[3])?;
    /// let (v, i) = a.sort_with_indices(0)?;
    /// assert_eq!((v.to_vec()?, i.to_vec()?), (vec![3, 5, 9], vec![1, 0, 2]));
    /// # Ok::<(), cuprite_array::Error>(())
    /// ```
    pub fn sort_with_indices(&self, axis: isize) -> Result<(Array<T>, Array<i64>)> {
        self.sort_with_indices_with(axis, SortOpts::new())
    }
    /// [`sort_with_indices`](Self::sort_with_indices) with the order of [`SortOpts`].
    pub fn sort_with_indices_with(
        &self,
        axis: isize,
        opts: SortOpts,
    ) -> Result<(Array<T>, Array<i64>)> {
        let (v, i) = sort_axis(self, axis, opts.descending, true, true, "sort")?;
        match (v, i) {
            (Some(v), Some(i)) => Ok((v, i)),
            _ => Err(Error::InvalidArgument("sort produced no output".into())),
        }
    }
}

/// Sorts `keys` along `axis` (stable, ascending; descending with [`sort_by_key_with`]) and reorders `values` (same
/// shape, any dtype) with them: ArrayFire's `sortByKey`.
///
/// ```
/// use cuprite_array::{Array, Device, sort_by_key};
/// let k = Array::<i32>::from_slice_on(Device::CPU, &[3, 1, 2], &[3])?;
/// let v = Array::<f64>::from_slice_on(Device::CPU, &[30.0, 10.0, 20.0], &[3])?;
/// let (k, v) = sort_by_key(&k, &v, 0)?;
/// assert_eq!((k.to_vec()?, v.to_vec()?), (vec![1, 2, 3], vec![10.0, 20.0, 30.0]));
/// # Ok::<(), cuprite_array::Error>(())
/// ```
pub fn sort_by_key<K: Element, V: Element>(
    keys: &Array<K>,
    values: &Array<V>,
    axis: isize,
) -> Result<(Array<K>, Array<V>)> {
    sort_by_key_with(keys, values, axis, SortOpts::new())
}

/// [`sort_by_key`] with the order of [`SortOpts`].
///
/// ```
/// use cuprite_array::{Array, Device, ops::SortOpts, sort_by_key_with};
/// let k = Array::<i32>::from_slice_on(Device::CPU, &[3, 1, 2], &[3])?;
/// let v = Array::<u8>::from_slice_on(Device::CPU, &[30, 10, 20], &[3])?;
/// let (k, v) = sort_by_key_with(&k, &v, 0, SortOpts::new().descending(true))?;
/// assert_eq!((k.to_vec()?, v.to_vec()?), (vec![3, 2, 1], vec![30, 20, 10]));
/// # Ok::<(), cuprite_array::Error>(())
/// ```
pub fn sort_by_key_with<K: Element, V: Element>(
    keys: &Array<K>,
    values: &Array<V>,
    axis: isize,
    opts: SortOpts,
) -> Result<(Array<K>, Array<V>)> {
    let descending = opts.descending;
    if keys.shape() != values.shape() {
        return Err(Error::Shape(format!(
            "sort_by_key: keys of shape {:?} and values of shape {:?} differ",
            keys.shape(),
            values.shape()
        )));
    }
    if keys.device() != values.device() {
        return Err(Error::DeviceMismatch(format!(
            "sort_by_key: keys on {:?}, values on {:?}",
            keys.device(),
            values.device()
        )));
    }
    let spec = KeySpec::of(K::DTYPE, "sort_by_key")?;
    let rk = Rows::new(keys, Some(axis))?;
    let rv = Rows::new(values, Some(axis))?;
    let (sk, perm) = sort_moved(&rk, spec, descending, true, true)?;
    let (Some(sk), Some(perm)) = (sk, perm) else {
        return Err(Error::InvalidArgument(
            "sort_by_key produced no output".into(),
        ));
    };
    let shape = rv.moved.shape().to_vec();
    let device = rv.device();
    let total = rv.rows * rv.n;
    let sv = if total == 0 {
        empty::<V>(&shape, device)?
    } else {
        rv.eager(
            || {
                let p = perm.to_vec()?;
                let out = cpu::gather(&rv.host_bytes()?, &p, V::DTYPE.size(), rv.n);
                host_array::<V>(&out, &shape, device)
            },
            |g| {
                let vs = rv.device_storage()?;
                let ps = perm.contiguous_storage()?;
                let out = gpu::gather(&g, dev(&vs)?, dev(&ps)?, V::DTYPE, total, rv.n)?;
                Ok(dev_array::<V>(out, &shape, device))
            },
        )?
    };
    Ok((rk.back(sk)?, rv.back(sv)?))
}
