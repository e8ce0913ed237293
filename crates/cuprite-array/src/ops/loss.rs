//! Classification helpers over the row operations: `one_hot` (lazy, fused) and
//! `cross_entropy` from logits and integer targets (logsumexp per row, the target's logit
//! picked by a one-hot select, reduced as PyTorch's `reduction`, with `ignore_index`). Class
//! indices are checked against the number of classes by reading their range back.

use crate::array::Array;
use crate::dtype::Element;
use crate::error::{Error, Result};

impl<I: crate::dtype::Integer> Array<I> {
    /// Checks that every index lies in `0..classes` (reads the minimum and maximum back: a
    /// synchronisation) and returns the indices as `i64`.
    fn class_indices(&self, what: &str, classes: usize) -> Result<Array<i64>> {
        let idx = self.cast::<i64>();
        if classes == 0 || classes > i64::MAX as usize {
            return Err(Error::InvalidArgument(format!(
                "{what}: the number of classes must be in 1..=i64::MAX, not {classes}"
            )));
        }
        if !idx.is_empty() {
            let (lo, hi) = (idx.min()?.item()?, idx.max()?.item()?);
            if lo < 0 || hi >= classes as i64 {
                let bad = if lo < 0 { lo } else { hi };
                return Err(Error::Index(format!(
                    "{what}: class index {bad} is out of range for {classes} classes"
                )));
            }
        }
        Ok(idx)
    }

    /// The one-hot encoding of integer class indices: shape `[..., classes]`, `1` at each
    /// index and `0` elsewhere, in dtype `U`. An index outside `0..classes` (a negative one, or
    /// an unsigned one above `i64::MAX`) is an `Err`; the check reads the indices' minimum and
    /// maximum back (a synchronisation), the encoding itself stays lazy and fuses.
    ///
    /// ```
    /// use cuprite_array::{Array, Device};
    /// let t = Array::<i32>::from_slice_on(Device::CPU, &[2, 0], &[2])?;
    /// assert_eq!(t.one_hot::<f32>(3)?.to_vec()?, [0.0, 0.0, 1.0, 1.0, 0.0, 0.0]);
    /// assert!(t.one_hot::<f32>(2).is_err());
    /// # Ok::<(), cuprite_array::Error>(())
    /// ```
    pub fn one_hot<U: Element>(&self, classes: usize) -> Result<Array<U>> {
        let idx = self.class_indices("one_hot", classes)?;
        let iota = crate::with_device(self.device(), || Array::<i64>::arange_len(classes))?;
        let iota = iota.broadcast_to(&[self.shape(), &[classes]].concat())?;
        let idx = idx.expand_dims(-1)?.broadcast_to(iota.shape())?;
        Ok(idx.equal(&iota).cast::<U>())
    }
}

/// How [`Array::cross_entropy_with`] reduces the per-row losses (PyTorch's `reduction`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Reduction {
    /// The mean over the rows not ignored (NaN when every row is ignored, as PyTorch).
    Mean,
    /// The sum over the rows.
    Sum,
    /// One loss per row, `0` for ignored rows.
    None,
}

impl<T: crate::dtype::Float> Array<T> {
    /// The mean cross-entropy loss of `self` (logits, shape `[N, C]`) against integer class
    /// `targets` (shape `[N]`): `mean(logsumexp(row) - row[target])`, a 0-d array. PyTorch's
    /// `F.cross_entropy` with `reduction="mean"`. Targets outside `0..C` are an `Err` (checked
    /// by reading their minimum and maximum back: a synchronisation).
    ///
    /// ```
    /// use cuprite_array::{Array, Device};
    /// let z = Array::<f64>::from_slice_on(Device::CPU, &[0.0, 0.0, 5.0, 5.0], &[2, 2])?;
    /// let t = Array::<i64>::from_slice_on(Device::CPU, &[1, 0], &[2])?;
    /// let l = z.cross_entropy(&t)?.item()?;
    /// assert!((l - 2f64.ln()).abs() < 1e-12);
    /// # Ok::<(), cuprite_array::Error>(())
    /// ```
    pub fn cross_entropy<I: crate::dtype::Integer>(&self, targets: &Array<I>) -> Result<Array<T>> {
        let [n, _] = *self.shape() else {
            return Err(Error::Shape(format!(
                "cross_entropy takes logits of shape [N, C], not {:?}",
                self.shape()
            )));
        };
        if n == 0 {
            return Err(Error::Shape(
                "cross_entropy of 0 rows (the mean is undefined)".into(),
            ));
        }
        self.cross_entropy_with(targets, Reduction::Mean, None)
    }

    /// The cross-entropy loss of logits `[N, C]` against integer `targets` `[N]`, reduced by
    /// `reduction` (a 0-d array, or `[N]` for [`Reduction::None`]); rows whose target equals
    /// `ignore_index` count for nothing (PyTorch's `ignore_index`, its default is `-100`).
    /// Other targets outside `0..C` are an `Err` (read back: a synchronisation).
    ///
    /// ```
    /// use cuprite_array::{Array, Device, Reduction};
    /// let z = Array::<f64>::from_slice_on(Device::CPU, &[0.0, 0.0, 5.0, 1.0], &[2, 2])?;
    /// let t = Array::<i64>::from_slice_on(Device::CPU, &[1, -100], &[2])?;
    /// let l = z.cross_entropy_with(&t, Reduction::None, Some(-100))?.to_vec()?;
    /// assert!((l[0] - 2f64.ln()).abs() < 1e-12 && l[1] == 0.0);
    /// let s = z.cross_entropy_with(&t, Reduction::Sum, Some(-100))?.item()?;
    /// assert!((s - 2f64.ln()).abs() < 1e-12);
    /// # Ok::<(), cuprite_array::Error>(())
    /// ```
    pub fn cross_entropy_with<I: crate::dtype::Integer>(
        &self,
        targets: &Array<I>,
        reduction: Reduction,
        ignore_index: Option<i64>,
    ) -> Result<Array<T>> {
        let [n, c] = *self.shape() else {
            return Err(Error::Shape(format!(
                "cross_entropy takes logits of shape [N, C], not {:?}",
                self.shape()
            )));
        };
        if targets.shape() != [n] {
            return Err(Error::Shape(format!(
                "cross_entropy: targets of shape {:?} for logits of shape {:?} (expected [{n}])",
                targets.shape(),
                self.shape()
            )));
        }
        if targets.device() != self.device() {
            return Err(Error::DeviceMismatch(format!(
                "cross_entropy: targets on {:?}, logits on {:?}",
                targets.device(),
                self.device()
            )));
        }
        let t = targets.cast::<i64>();
        let keep = match ignore_index {
            Some(ig) => t.not_equal(ig),
            None => crate::with_device(self.device(), || Array::<bool>::full(&[n], true)),
        };
        let t = Array::select(&keep, &t, 0i64)?;
        let hot = t.class_indices("cross_entropy", c)?.one_hot::<bool>(c)?;
        let lse = self.logsumexp(-1)?;
        // Realised here: a library call below a reduction's element-wise producer (lse - picked
        // under the mean) is not realised first by the scheduler yet.
        lse.eval()?;
        let zero = crate::with_device(self.device(), || Array::<T>::zeros(&[n, c]));
        let picked = Array::select(&hot, self, &zero)?
            .sum_axes(&[-1])?
            .cast::<T>();
        let zero_n = crate::with_device(self.device(), || Array::<T>::zeros(&[n]));
        let loss = Array::select(&keep, &lse.try_sub(&picked)?, &zero_n)?;
        Ok(match reduction {
            Reduction::None => loss,
            Reduction::Sum => loss.sum()?.cast::<T>(),
            Reduction::Mean => {
                let kept = keep.count()?.cast::<f64>();
                loss.sum()?.cast::<f64>().try_div(&kept)?.cast::<T>()
            }
        })
    }
}
