//! `pad` in NumPy's other modes: `edge`, `reflect`, `symmetric`, `wrap` (a gather along each
//! padded axis by a host-built index list, one per axis) and `linear_ramp` (fused ramps
//! joined by one concatenation). The constant mode is [`Array::pad`].

use crate::array::Array;
use crate::dtype::{Element, Float};
use crate::error::{Error, Result};
use crate::ops::TakeOpts;
use crate::ops::stacking::along;

/// How [`Array::pad_mode`] fills the padding.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PadMode {
    /// The edge value repeated.
    Edge,
    /// Mirrored about the edge element, which is not repeated (`3 2 | 1 2 3 | 2 1`).
    Reflect,
    /// Mirrored about the edge, which is repeated (`2 1 | 1 2 3 | 3 2`).
    Symmetric,
    /// Taken from the other end, periodically (`2 3 | 1 2 3 | 1 2`).
    Wrap,
}

/// The source index of padded position `p` (in `-before..n+after` shifted to start at 0)
/// of an axis of extent `n >= 1`.
fn source(p: i64, n: i64, mode: PadMode) -> i64 {
    match mode {
        PadMode::Edge => p.clamp(0, n - 1),
        PadMode::Wrap => p.rem_euclid(n),
        PadMode::Reflect => {
            if n == 1 {
                return 0;
            }
            let period = 2 * (n - 1);
            let r = p.rem_euclid(period);
            if r < n { r } else { period - r }
        }
        PadMode::Symmetric => {
            let period = 2 * n;
            let r = p.rem_euclid(period);
            if r < n { r } else { period - 1 - r }
        }
    }
}

impl<T: Element> Array<T> {
    /// Pads each axis by `widths[i] = (before, after)` in `mode` (NumPy's `pad` with `mode`
    /// `edge`, `reflect`, `symmetric` or `wrap`; widths past the extent repeat the pattern as
    /// NumPy does). Padding an empty axis is an `Err`.
    ///
    /// ```
    /// use cuprite_array::{Array, ops::PadMode};
    /// let a = Array::from_slice(&[1i32, 2, 3], &[3])?;
    /// assert_eq!(a.pad_mode(&[(2, 2)], PadMode::Reflect)?.to_vec()?, vec![3, 2, 1, 2, 3, 2, 1]);
    /// assert_eq!(a.pad_mode(&[(2, 2)], PadMode::Symmetric)?.to_vec()?, vec![2, 1, 1, 2, 3, 3, 2]);
    /// assert_eq!(a.pad_mode(&[(2, 2)], PadMode::Wrap)?.to_vec()?, vec![2, 3, 1, 2, 3, 1, 2]);
    /// assert_eq!(a.pad_mode(&[(1, 1)], PadMode::Edge)?.to_vec()?, vec![1, 1, 2, 3, 3]);
    /// # Ok::<(), cuprite_array::Error>(())
    /// ```
    pub fn pad_mode(&self, widths: &[(usize, usize)], mode: PadMode) -> Result<Array<T>> {
        self.check_widths(widths)?;
        let mut x = self.clone();
        for (ax, &(b, a)) in widths.iter().enumerate() {
            if b == 0 && a == 0 {
                continue;
            }
            let n = self.shape()[ax];
            if n == 0 {
                return Err(Error::Shape(format!(
                    "pad_mode {mode:?}: axis {ax} is empty, there is nothing to repeat"
                )));
            }
            let len = n
                .checked_add(b)
                .and_then(|v| v.checked_add(a))
                .ok_or_else(|| Error::Shape(format!("pad widths {widths:?} overflow")))?;
            let idx: Vec<i64> = (0..len as i64)
                .map(|p| source(p - b as i64, n as i64, mode))
                .collect();
            let idx = Array::from_slice_on(self.device(), &idx, &[len])?;
            x = x.take_with(&idx, TakeOpts::new().axis(ax as isize))?;
        }
        Ok(x)
    }

    fn check_widths(&self, widths: &[(usize, usize)]) -> Result<()> {
        if widths.len() != self.ndim() {
            return Err(Error::Shape(format!(
                "pad needs one (before, after) pair per axis: {} for shape {:?}",
                widths.len(),
                self.shape()
            )));
        }
        Ok(())
    }
}

impl<T: Float> Array<T> {
    /// Pads each axis with linear ramps from `end.0` (before) and `end.1` (after), at the
    /// outer edges, to the edge values (NumPy's `pad(mode='linear_ramp', end_values=end)`).
    ///
    /// ```
    /// use cuprite_array::Array;
    /// let a = Array::from_slice(&[4.0f64, 5.0], &[2])?;
    /// assert_eq!(a.pad_linear_ramp(&[(2, 1)], (0.0, 1.0))?.to_vec()?, vec![0.0, 2.0, 4.0, 5.0, 1.0]);
    /// # Ok::<(), cuprite_array::Error>(())
    /// ```
    pub fn pad_linear_ramp(&self, widths: &[(usize, usize)], end: (T, T)) -> Result<Array<T>> {
        self.check_widths(widths)?;
        let mut x = self.clone();
        for (ax, &(b, a)) in widths.iter().enumerate() {
            if b == 0 && a == 0 {
                continue;
            }
            let nd = x.ndim();
            let n = x.shape()[ax];
            if n == 0 {
                return Err(Error::Shape(format!(
                    "pad_linear_ramp: axis {ax} is empty, it has no edge value"
                )));
            }
            let first = x.slice(&along(nd, ax, 0, 1))?;
            let last = x.slice(&along(nd, ax, n - 1, n))?;
            let left = ramp(&first, end.0, b, ax, false)?;
            let right = ramp(&last, end.1, a, ax, true)?;
            x = Array::concat(&[&left, &x, &right], ax as isize)?;
        }
        Ok(x)
    }
}

/// `w` values along `ax` going from `end` to `edge` (exclusive; `toward_end`: from `edge`
/// exclusive to `end`), `edge` of extent 1 along `ax`.
fn ramp<T: Float>(
    edge: &Array<T>,
    end: T,
    w: usize,
    ax: usize,
    toward_end: bool,
) -> Result<Array<T>> {
    let mut shape = edge.shape().to_vec();
    shape[ax] = w;
    if w == 0 {
        return Array::zeros(&shape).to_device(edge.device());
    }
    let mut tshape = vec![1; shape.len()];
    tshape[ax] = w;
    let i: Array<f64> = Array::arange_len(w)?.cast();
    // The fraction of the way from `end` to the edge: `i / w` on the left; on the right
    // `(w - 1 - i) / w`, so that the ramp leaves the edge first.
    let t = if toward_end {
        (Array::full(&[], w as f64) - &i - 1.0) / w as f64
    } else {
        &i / w as f64
    };
    let t = t.cast::<T>().reshape(&tshape)?.to_device(edge.device())?;
    let e = Array::full(&[], end).to_device(edge.device())?;
    let r = e.try_add(&edge.try_sub(&e)?.try_mul(&t)?)?;
    r.broadcast_to(&shape)?.contiguous()
}
