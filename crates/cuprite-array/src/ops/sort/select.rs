//! Selection: `topk`, `kthvalue`, `partition`, `median`, `quantile`/`percentile` and `mode`,
//! in the order of [`super::keys`] (NaN the largest value), ties by lower index first.
//!
//! On CUDA one long row (at least [`SELECT_MIN`] elements) is not sorted: radix selection
//! finds the element of a rank by the histogram of its top key digit, then of the next digits
//! among the candidates in that bucket, down to a unique (key, index) pair. Many rows are
//! sorted (one block a row) and the wanted elements read off; the CPU always sorts.

use super::gpu::{self, Pick};
use super::keys::KeySpec;
use super::{Rows, cpu, dev, dev_array, empty, host_array, record, sort_moved};
use crate::array::Array;
use crate::dtype::{DType, Element};
use crate::error::{Error, Result};
use crate::ops::{AxisOpts, TopkOpts};
use crate::shape::SliceArg;

/// Rows at least this long are selected, not sorted, on CUDA.
pub(crate) const SELECT_MIN: usize = 1 << 16;

/// How [`Array::quantile`] reads a quantile off the sorted values around the virtual index
/// `h = (n - 1) * q` (NumPy's methods of the same names).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum QuantileMethod {
    /// `a + (b - a) * g` between the elements at `floor(h)` and `floor(h) + 1`, `g` the
    /// fraction of `h` (computed as `b - (b - a) * (1 - g)` for `g >= 0.5`, as NumPy).
    Linear,
    /// The element at `floor(h)`.
    Lower,
    /// The element at `ceil(h)`.
    Higher,
    /// The element at `h` rounded half to even.
    Nearest,
    /// Halfway between the elements at `floor(h)` and `floor(h) + 1` (the element itself when
    /// `h` is whole).
    Midpoint,
}

/// Options of the quantiles (`quantile_with`, `percentile_with`, `quantiles_with`,
/// `percentiles_with`): NumPy's `axis` (default: all elements) and `method` (default
/// [`QuantileMethod::Linear`]).
///
/// ```
/// use cuprite_array::{Array, QuantileMethod, ops::QuantileOpts};
/// let a = Array::from_slice(&[1.0f64, 2.0, 3.0, 4.0, 5.0, 6.0], &[2, 3])?;
/// assert_eq!(a.quantile(0.5)?.item()?, 3.5);
/// let o = QuantileOpts::new().axis(1).method(QuantileMethod::Higher);
/// assert_eq!(a.quantile_with(0.25, o)?.to_vec()?, vec![2.0, 5.0]);
/// # Ok::<(), cuprite_array::Error>(())
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[must_use]
pub struct QuantileOpts {
    axis: Option<isize>,
    method: QuantileMethod,
}

impl Default for QuantileOpts {
    fn default() -> Self {
        QuantileOpts {
            axis: None,
            method: QuantileMethod::Linear,
        }
    }
}

impl QuantileOpts {
    /// NumPy's defaults: over all elements, [`QuantileMethod::Linear`].
    pub fn new() -> Self {
        Self::default()
    }
    /// Along `axis` only (negative counts from the end; `None`: all elements).
    pub fn axis(self, axis: impl Into<Option<isize>>) -> Self {
        QuantileOpts {
            axis: axis.into(),
            ..self
        }
    }
    /// How a quantile between two elements is read off.
    pub fn method(self, method: QuantileMethod) -> Self {
        QuantileOpts { method, ..self }
    }
}

/// The elements and arithmetic of quantile `q` of `n` sorted values.
fn quantile_pick(n: usize, q: f64, m: QuantileMethod) -> Pick {
    let h = (n - 1) as f64 * q;
    let lo = (h.floor() as usize).min(n - 1);
    let hi = (lo + 1).min(n - 1);
    let g = h - h.floor();
    let one = |i: usize| Pick {
        lo: i,
        hi: i,
        t: 0.0,
        method: 1,
    };
    match m {
        QuantileMethod::Lower => one(lo),
        QuantileMethod::Higher => one((h.ceil() as usize).min(n - 1)),
        QuantileMethod::Nearest => one((h.round_ties_even() as usize).min(n - 1)),
        QuantileMethod::Midpoint if g == 0.0 => one(lo),
        QuantileMethod::Midpoint => Pick {
            lo,
            hi,
            t: 0.5,
            method: 0,
        },
        QuantileMethod::Linear => Pick {
            lo,
            hi,
            t: g,
            method: 0,
        },
    }
}

/// NumPy's median of `n` sorted values: the middle one, or the mean of the two middle ones.
fn median_pick(n: usize) -> Pick {
    if n % 2 == 1 {
        Pick {
            lo: n / 2,
            hi: n / 2,
            t: 0.0,
            method: 1,
        }
    } else {
        Pick {
            lo: n / 2 - 1,
            hi: n / 2,
            t: 0.0,
            method: 2,
        }
    }
}

/// Takes `[..k]` (or index `k`, `one`) of the last axis of a moved-layout result.
fn take_last<U: Element>(a: &Array<U>, k: usize, one: bool) -> Result<Array<U>> {
    let mut args: Vec<SliceArg> = a.shape()[..a.ndim() - 1]
        .iter()
        .map(|_| SliceArg::Range {
            start: None,
            end: None,
            step: 1,
        })
        .collect();
    args.push(if one {
        SliceArg::Index(k as isize)
    } else {
        SliceArg::Range {
            start: Some(0),
            end: Some(k as isize),
            step: 1,
        }
    });
    let s = a.slice(&args)?;
    if one {
        let mut shape = a.shape().to_vec();
        shape.pop();
        s.reshape(&shape)
    } else {
        Ok(s)
    }
}

/// Quantile-like reductions along `axis` (`None`: the whole array) with `pick` per row.
fn reduce_sorted<T: Element>(
    a: &Array<T>,
    axis: Option<isize>,
    call: &str,
    pick: impl Fn(usize) -> Pick,
) -> Result<Array<T::Mean>> {
    let spec = KeySpec::of(T::DTYPE, call)?;
    let r = Rows::new(a, axis)?;
    let shape = r.shape_with(None);
    let device = r.device();
    if r.n == 0 {
        return Err(Error::InvalidArgument(format!(
            "{call} of an empty axis (shape {:?})",
            a.shape()
        )));
    }
    if r.rows == 0 {
        return empty::<T::Mean>(&shape, device);
    }
    let out = <T::Mean as Element>::DTYPE;
    let p = pick(r.n);
    r.eager(
        || {
            record(spec);
            let (sv, _) = cpu::sort_rows(spec, &r.host_bytes()?, r.rows, r.n, false);
            host_array(&cpu::pick(spec, &sv, out, r.rows, r.n, p), &shape, device)
        },
        |g| {
            if r.rows == 1 && r.n >= SELECT_MIN {
                let s = r.device_storage()?;
                let x = dev(&s)?;
                let pseudo = g.alloc(T::DTYPE, 3)?;
                let lo = gpu::select(&g, x, spec, r.n, false, p.lo)?;
                gpu::write_selected(&g, &lo, spec, &pseudo, None, 0, Some(2))?;
                let hi = if p.hi == p.lo {
                    lo
                } else {
                    gpu::select(&g, x, spec, r.n, false, p.hi)?
                };
                gpu::write_selected(&g, &hi, spec, &pseudo, None, 1, None)?;
                let q = Pick { lo: 0, hi: 1, ..p };
                let o = gpu::pick(&g, &pseudo, spec, out, 1, 3, q)?;
                return Ok(dev_array(o, &shape, device));
            }
            let (sv, _) = sort_moved(&r, spec, false, true, false)?;
            let sv =
                sv.ok_or_else(|| Error::InvalidArgument(format!("{call}: no sorted values")))?;
            let s = sv.contiguous_storage()?;
            let o = gpu::pick(&g, dev(&s)?, spec, out, r.rows, r.n, p)?;
            Ok(dev_array(o, &shape, device))
        },
    )
}

fn check_q(q: f64, what: &str, hi: f64) -> Result<()> {
    if !(0.0..=hi).contains(&q) {
        return Err(Error::InvalidArgument(format!(
            "{what} {q} is outside [0, {hi}]"
        )));
    }
    Ok(())
}

impl<T: Element> Array<T> {
    /// The `k` largest elements along `axis` (the smallest with
    /// [`topk_with`](Self::topk_with)), in order (largest first; smallest first for the smallest), with their `i64` positions; ties by lower index first. NaN counts as the
    /// largest value. `k` larger than the axis → `Err`.
    ///
    /// ```
    /// use cuprite_array::{Array, Device};
    /// let a = Array::<f32>::from_slice_on(Device::CPU, &[1.0, 5.0, 3.0, 5.0], &[4])?;
    /// let (v, i) = a.topk(2, 0)?;
    /// assert_eq!((v.to_vec()?, i.to_vec()?), (vec![5.0, 5.0], vec![1, 3]));
    /// # Ok::<(), cuprite_array::Error>(())
    /// ```
    pub fn topk(&self, k: usize, axis: isize) -> Result<(Array<T>, Array<i64>)> {
        self.topk_with(k, axis, TopkOpts::new())
    }
    /// [`topk`](Self::topk), the `k` largest or smallest as [`TopkOpts`] says.
    pub fn topk_with(
        &self,
        k: usize,
        axis: isize,
        opts: TopkOpts,
    ) -> Result<(Array<T>, Array<i64>)> {
        let largest = opts.largest;
        let spec = KeySpec::of(T::DTYPE, "topk")?;
        let r = Rows::new(self, Some(axis))?;
        if k > r.n {
            return Err(Error::InvalidArgument(format!(
                "topk: k = {k} is larger than the axis of length {}",
                r.n
            )));
        }
        let shape = r.shape_with(Some(k));
        let device = r.device();
        if k == 0 || r.rows == 0 {
            return Ok((
                r.back(empty(&shape, device)?)?,
                r.back(empty(&shape, device)?)?,
            ));
        }
        // Through a sort: the host twin, and the CUDA path outside the selection's range.
        let sorted = || {
            let (v, i) = sort_moved(&r, spec, largest, true, true)?;
            let (Some(v), Some(i)) = (v, i) else {
                return Err(Error::InvalidArgument("topk: no sorted output".into()));
            };
            Ok((
                r.back(take_last(&v, k, false)?)?,
                r.back(take_last(&i, k, false)?)?
                    .known_in(0, r.n as i64 - 1),
            ))
        };
        r.eager(sorted, |g| {
            if !(r.rows == 1 && r.n >= SELECT_MIN && k <= gpu::TOPK_MAX) {
                return sorted();
            }
            let s = r.device_storage()?;
            let (v, i) = gpu::topk(&g, dev(&s)?, spec, r.n, k, largest)?;
            let i = dev_array::<i64>(i, &shape, device).known_in(0, r.n as i64 - 1);
            Ok((dev_array(v, &shape, device), i))
        })
    }

    /// The `k`-th smallest element along `axis` (`k` from 1, as PyTorch) and its position;
    /// the axis is removed. Ties by lower index first; NaN is the largest value.
    ///
    /// ```
    /// use cuprite_array::{Array, Device};
    /// let a = Array::<i64>::from_slice_on(Device::CPU, &[4, 1, 3, 2], &[4])?;
    /// let (v, i) = a.kthvalue(2, 0)?;
    /// assert_eq!((v.item()?, i.item()?), (2, 3));
    /// # Ok::<(), cuprite_array::Error>(())
    /// ```
    pub fn kthvalue(&self, k: usize, axis: isize) -> Result<(Array<T>, Array<i64>)> {
        let spec = KeySpec::of(T::DTYPE, "kthvalue")?;
        let r = Rows::new(self, Some(axis))?;
        if k == 0 || k > r.n {
            return Err(Error::InvalidArgument(format!(
                "kthvalue: k = {k} is outside 1..={} (the axis length)",
                r.n
            )));
        }
        let shape = r.shape_with(None);
        let device = r.device();
        if r.rows == 0 {
            return Ok((empty(&shape, device)?, empty(&shape, device)?));
        }
        // Through a sort: the host twin, and the CUDA path outside the selection's range.
        let sorted = || {
            let (v, i) = sort_moved(&r, spec, false, true, true)?;
            let (Some(v), Some(i)) = (v, i) else {
                return Err(Error::InvalidArgument("kthvalue: no sorted output".into()));
            };
            Ok((take_last(&v, k - 1, true)?, take_last(&i, k - 1, true)?))
        };
        r.eager(sorted, |g| {
            if !(r.rows == 1 && r.n >= SELECT_MIN) {
                return sorted();
            }
            let s = r.device_storage()?;
            let st = gpu::select(&g, dev(&s)?, spec, r.n, false, k - 1)?;
            let v = g.alloc(T::DTYPE, 1)?;
            let i = g.alloc(DType::I64, 1)?;
            gpu::write_selected(&g, &st, spec, &v, Some(&i), 0, None)?;
            Ok((dev_array(v, &shape, device), dev_array(i, &shape, device)))
        })
    }

    /// A partition along `axis` around position `kth`: the element there is the one a sort
    /// would put there, none before it is larger and none after it smaller (NumPy's
    /// `partition`; this implementation returns the sorted order, which is one such
    /// partition). `kth` beyond the axis → `Err`.
    ///
    /// ```
    /// use cuprite_array::{Array, Device};
    /// let a = Array::<i32>::from_slice_on(Device::CPU, &[5, 1, 4, 2, 3], &[5])?;
    /// assert_eq!(a.partition(2, 0)?.to_vec()?[2], 3);
    /// # Ok::<(), cuprite_array::Error>(())
    /// ```
    pub fn partition(&self, kth: usize, axis: isize) -> Result<Array<T>> {
        let r = Rows::new(self, Some(axis))?;
        if kth >= r.n && !(r.n == 0 && kth == 0) {
            return Err(Error::InvalidArgument(format!(
                "partition: kth = {kth} is outside the axis of length {}",
                r.n
            )));
        }
        self.sort(axis)
    }

    /// The median of all elements (along one axis with [`median_with`](Self::median_with)): the middle element, or the mean of
    /// the two middle ones (NumPy), in the mean dtype (`f64` for integers); NaN when the
    /// values include a NaN. An empty axis gives NaN, as NumPy (which also warns).
    ///
    /// ```
    /// use cuprite_array::{Array, Device};
    /// use cuprite_array::ops::AxisOpts;
    /// let a = Array::<i32>::from_slice_on(Device::CPU, &[4, 1, 3, 2], &[4])?;
    /// assert_eq!(a.median()?.item()?, 2.5);
    /// let e = Array::<f32>::from_slice_on(Device::CPU, &[], &[2, 0])?;
    /// assert!(e.median()?.item()?.is_nan());
    /// assert_eq!(e.median_with(AxisOpts::new().axis(1))?.shape(), &[2]);
    /// # Ok::<(), cuprite_array::Error>(())
    /// ```
    pub fn median(&self) -> Result<Array<T::Mean>> {
        self.median_with(AxisOpts::new())
    }
    /// [`median`](Self::median) with NumPy's `axis` ([`AxisOpts`]).
    pub fn median_with(&self, opts: AxisOpts) -> Result<Array<T::Mean>> {
        let axis = opts.axis;
        KeySpec::of(T::DTYPE, "median")?;
        let r = Rows::new(self, axis)?;
        if r.n == 0 {
            let nan = <T::Mean as Element>::from_scalar(f64::NAN.to_scalar());
            let shape = r.shape_with(None);
            return Ok(crate::device::with_device(r.device(), || {
                Array::full(&shape, nan)
            }));
        }
        reduce_sorted(self, axis, "median", median_pick)
    }

    /// Quantile `q` (in `[0, 1]`) of all elements, linearly interpolated ([`QuantileOpts`]: another
    /// `axis` and `method`), in the
    /// mean dtype (computed in `f64`, rounded once); NaN when the values include a NaN.
    /// `q` outside `[0, 1]` or an empty axis → `Err`.
    ///
    /// ```
    /// use cuprite_array::{Array, Device, QuantileMethod};
    /// use cuprite_array::ops::QuantileOpts;
    /// let a = Array::<f64>::from_slice_on(Device::CPU, &[1.0, 2.0, 3.0, 4.0], &[4])?;
    /// assert_eq!(a.quantile(0.5)?.item()?, 2.5);
    /// assert_eq!(a.quantile_with(0.5, QuantileOpts::new().method(QuantileMethod::Lower))?.item()?, 2.0);
    /// assert!(a.quantile(1.5).is_err());
    /// # Ok::<(), cuprite_array::Error>(())
    /// ```
    pub fn quantile(&self, q: f64) -> Result<Array<T::Mean>> {
        self.quantile_with(q, QuantileOpts::new())
    }
    /// [`quantile`](Self::quantile) with NumPy's `axis` and `method` ([`QuantileOpts`]).
    pub fn quantile_with(&self, q: f64, opts: QuantileOpts) -> Result<Array<T::Mean>> {
        let QuantileOpts { axis, method } = opts;
        check_q(q, "quantile", 1.0)?;
        reduce_sorted(self, axis, "quantile", |n| quantile_pick(n, q, method))
    }

    /// Percentile `p` (in `[0, 100]`): [`quantile`](Self::quantile) of `p / 100`.
    ///
    /// ```
    /// use cuprite_array::{Array, Device, QuantileMethod};
    /// let a = Array::<f32>::from_slice_on(Device::CPU, &[0.0, 10.0], &[2])?;
    /// assert_eq!(a.percentile(25.0)?.item()?, 2.5);
    /// # Ok::<(), cuprite_array::Error>(())
    /// ```
    pub fn percentile(&self, p: f64) -> Result<Array<T::Mean>> {
        self.percentile_with(p, QuantileOpts::new())
    }
    /// [`percentile`](Self::percentile) with NumPy's `axis` and `method` ([`QuantileOpts`]).
    pub fn percentile_with(&self, p: f64, opts: QuantileOpts) -> Result<Array<T::Mean>> {
        check_q(p, "percentile", 100.0)?;
        self.quantile_with(p / 100.0, opts)
    }

    /// The most frequent value of all elements (along one axis with [`mode_with`](Self::mode_with); the smallest among
    /// equally frequent ones) and how often it occurs. `-0.0` and `+0.0` count as equal, and
    /// so do all NaNs. An empty axis → `Err`.
    ///
    /// ```
    /// use cuprite_array::{Array, Device};
    /// let a = Array::<i32>::from_slice_on(Device::CPU, &[3, 1, 3, 1, 2], &[5])?;
    /// let (v, c) = a.mode()?;
    /// assert_eq!((v.item()?, c.item()?), (1, 2));
    /// # Ok::<(), cuprite_array::Error>(())
    /// ```
    pub fn mode(&self) -> Result<(Array<T>, Array<i64>)> {
        self.mode_with(AxisOpts::new())
    }
    /// [`mode`](Self::mode) with NumPy's `axis` ([`AxisOpts`]).
    pub fn mode_with(&self, opts: AxisOpts) -> Result<(Array<T>, Array<i64>)> {
        let axis = opts.axis;
        let spec = KeySpec::of(T::DTYPE, "mode")?;
        let r = Rows::new(self, axis)?;
        let shape = r.shape_with(None);
        let device = r.device();
        if r.n == 0 {
            return Err(Error::InvalidArgument(format!(
                "mode of an empty axis (shape {:?})",
                self.shape()
            )));
        }
        if r.rows == 0 {
            return Ok((empty(&shape, device)?, empty(&shape, device)?));
        }
        r.eager(
            || {
                record(spec);
                let (sv, _) = cpu::sort_rows(spec, &r.host_bytes()?, r.rows, r.n, false);
                let (v, c) = cpu::mode(spec, &sv, r.rows, r.n);
                Ok((
                    host_array(&v, &shape, device)?,
                    Array::from_slice_on(device, &c, &shape)?,
                ))
            },
            |g| {
                let (sv, _) = sort_moved(&r, spec, false, true, false)?;
                let sv =
                    sv.ok_or_else(|| Error::InvalidArgument("mode: no sorted values".into()))?;
                let s = sv.contiguous_storage()?;
                let (v, c) = gpu::mode(&g, dev(&s)?, spec, r.rows, r.n)?;
                Ok((dev_array(v, &shape, device), dev_array(c, &shape, device)))
            },
        )
    }
}
