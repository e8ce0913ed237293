//! Choosing among arrays element by element (NumPy's `choose`, `select`, `piecewise`) and
//! writing through patterns (`fill_diagonal`, `putmask`). Each is a chain of fused selects or
//! one scatter; none leaves the device.

use crate::array::Array;
use crate::device::with_device;
use crate::dtype::{Element, Integer};
use crate::error::{Error, Result};
use crate::ops::FillDiagonalOpts;
use crate::ops::TakeOpts;
use crate::ops::index::IndexMode;
use crate::shape::{broadcast_shapes, checked_numel};

/// The common broadcast shape of several shapes (an `Err` naming them when they clash).
fn common_shape(shapes: &[&[usize]], call: &str) -> Result<Vec<usize>> {
    let mut out: Vec<usize> = Vec::new();
    for s in shapes {
        out = broadcast_shapes(&out, s).map_err(|_| {
            Error::Shape(format!(
                "{call}: shapes {shapes:?} cannot be broadcast together"
            ))
        })?;
    }
    Ok(out)
}

/// NumPy's `choose(a, choices, mode)`: `out[i] = choices[a[i]][i]`, with `a` and every choice
/// broadcast together. `mode`: [`IndexMode::Error`] (NumPy's `raise`: an index outside
/// `[0, n)` is an `Err` naming it), [`IndexMode::Wrap`] (modulo `n`) or [`IndexMode::Clamp`]
/// (NumPy's `clip`). A chain of fused selects.
///
/// ```
/// use cuprite_array::{Array, ops::{choose, IndexMode}};
/// let c0 = Array::from_slice(&[0, 1, 2, 3], &[4])?;
/// let c1 = Array::from_slice(&[10, 11, 12, 13], &[4])?;
/// let c2 = Array::scalar(20);
/// let a = Array::from_slice(&[2i64, 0, 1, 4], &[4])?;
/// assert!(choose(&a, &[&c0, &c1, &c2], IndexMode::Error).is_err());
/// assert_eq!(choose(&a, &[&c0, &c1, &c2], IndexMode::Wrap)?.to_vec()?, [20, 1, 12, 13]);
/// assert_eq!(choose(&a, &[&c0, &c1, &c2], IndexMode::Clamp)?.to_vec()?, [20, 1, 12, 20]);
/// # Ok::<(), cuprite_array::Error>(())
/// ```
pub fn choose<I: Integer, T: Element>(
    a: &Array<I>,
    choices: &[&Array<T>],
    mode: IndexMode,
) -> Result<Array<T>> {
    let n = choices.len();
    if n == 0 {
        return Err(Error::InvalidArgument("choose: no choices given".into()));
    }
    let mut shapes: Vec<&[usize]> = vec![a.shape()];
    shapes.extend(choices.iter().map(|c| c.shape()));
    let shape = common_shape(&shapes, "choose")?;
    checked_numel(&shape)?;
    let last = n as i64 - 1;
    // Unsigned indices above i64::MAX are out of range in every mode but Wrap's arithmetic;
    // compare them in u64 first so that the cast below cannot turn them negative.
    let big = if I::DTYPE.is_unsigned_int() {
        Some(a.cast::<u64>().greater(i64::MAX as u64))
    } else {
        None
    };
    let j = a.cast::<i64>();
    let j = match mode {
        IndexMode::Error => {
            let mut bad = j.less(0).or(j.greater(last));
            if let Some(b) = &big {
                bad = bad.or(b);
            }
            if bad.any()?.item()? {
                let pos = bad.flatten()?.argmax()?.item()?;
                let v = a.flatten()?.to_vec()?[pos as usize];
                return Err(Error::Index(format!(
                    "choose: index {v:?} at flat position {pos} is outside [0, {n}) for {n} \
                     choices"
                )));
            }
            j
        }
        IndexMode::Wrap => match &big {
            Some(_) => a.cast::<u64>().rem(n as u64).cast::<i64>(),
            None => j.rem(n as i64),
        },
        IndexMode::Clamp => match &big {
            Some(b) => Array::select(b, last, j.clamp(0, last))?,
            None => j.clamp(0, last),
        },
    };
    let mut acc = choices[n - 1].broadcast_to(&shape)?;
    for k in (0..n - 1).rev() {
        acc = Array::select(&j.try_equal(k as i64)?, choices[k], &acc)?;
    }
    acc.broadcast_to(&shape)
}

/// NumPy's `select(condlist, choicelist, default)`: where the first true condition is `k`,
/// `choicelist[k]`; where none is true, `default`. Conditions and choices broadcast together.
///
/// ```
/// use cuprite_array::{Array, ops::select};
/// let x = Array::from_slice(&[0i32, 1, 2, 3, 4, 5], &[6])?;
/// let (lo, hi) = (x.less(3), x.greater(1));
/// let out = select(&[&lo, &hi], &[&x, &(&x * &x)], 42)?;
/// assert_eq!(out.to_vec()?, [0, 1, 2, 9, 16, 25]);
/// # Ok::<(), cuprite_array::Error>(())
/// ```
pub fn select<T: Element>(
    condlist: &[&Array<bool>],
    choicelist: &[&Array<T>],
    default: T,
) -> Result<Array<T>> {
    if condlist.len() != choicelist.len() {
        return Err(Error::InvalidArgument(format!(
            "select: {} conditions and {} choices; they must be as many",
            condlist.len(),
            choicelist.len()
        )));
    }
    let Some(first) = condlist.first() else {
        return Err(Error::InvalidArgument(
            "select: an empty condition list".into(),
        ));
    };
    let mut shapes: Vec<&[usize]> = condlist.iter().map(|c| c.shape()).collect();
    shapes.extend(choicelist.iter().map(|c| c.shape()));
    let shape = common_shape(&shapes, "select")?;
    checked_numel(&shape)?;
    let mut acc = with_device(first.device(), || Array::full(&shape, default));
    for k in (0..condlist.len()).rev() {
        acc = Array::select(condlist[k], choicelist[k], &acc)?;
    }
    Ok(acc)
}

/// One function of [`piecewise`]: applied to the whole input, its result kept where its
/// condition holds (so it must be element-wise, as NumPy's are in practice).
pub type PieceFn<'a, T> = &'a dyn Fn(&Array<T>) -> Result<Array<T>>;

/// NumPy's `piecewise(x, condlist, funclist)`: zeros, then for each condition in order the
/// value of its function where it holds (a later condition wins). One more function than
/// conditions is the "otherwise" piece, used where no condition holds. A constant piece is a
/// closure returning [`Array::scalar`]. Conditions must have `x`'s shape.
///
/// ```
/// use cuprite_array::{Array, ops::piecewise};
/// let x = Array::from_slice(&[-2.0f64, -1.0, 0.0, 1.0, 2.0], &[5])?;
/// let neg = |v: &Array<f64>| Ok(-v);
/// let one = |_: &Array<f64>| Ok(Array::scalar(1.0));
/// let y = piecewise(&x, &[&x.less(0.0)], &[&neg, &one])?;
/// assert_eq!(y.to_vec()?, [2.0, 1.0, 1.0, 1.0, 1.0]);
/// # Ok::<(), cuprite_array::Error>(())
/// ```
pub fn piecewise<T: Element>(
    x: &Array<T>,
    condlist: &[&Array<bool>],
    funclist: &[PieceFn<'_, T>],
) -> Result<Array<T>> {
    let n = condlist.len();
    if funclist.len() != n && funclist.len() != n + 1 {
        return Err(Error::InvalidArgument(format!(
            "piecewise: {n} conditions need {n} or {} functions, got {}",
            n + 1,
            funclist.len()
        )));
    }
    if let Some(c) = condlist.iter().find(|c| c.shape() != x.shape()) {
        return Err(Error::Shape(format!(
            "piecewise: a condition of shape {:?} for an input of shape {:?}",
            c.shape(),
            x.shape()
        )));
    }
    let mut y = with_device(x.device(), || Array::zeros(x.shape()));
    for (c, f) in condlist.iter().zip(funclist) {
        y = Array::select(c, &f(x)?, &y)?.broadcast_to(x.shape())?;
    }
    if funclist.len() == n + 1 {
        let mut any = with_device(x.device(), || Array::<bool>::zeros(x.shape()));
        for c in condlist {
            any = any.try_or(*c)?;
        }
        y = Array::select(&any, &y, &funclist[n](x)?)?.broadcast_to(x.shape())?;
    }
    Ok(y)
}

impl<T: Element> Array<T> {
    /// `values` flattened and repeated (NumPy's cycling) to `n` elements.
    fn cycled(values: &Array<T>, n: usize, call: &str) -> Result<Array<T>> {
        if values.is_empty() {
            return Err(Error::Shape(format!("{call}: empty values for {n} places")));
        }
        let i = with_device(values.device(), || Array::arange_len(n))?;
        values
            .flatten()?
            .take_with(&i, TakeOpts::new().mode(IndexMode::Wrap))
    }

    /// NumPy's `fill_diagonal(a, val)`: writes `val` (flattened, repeated as needed) along
    /// the main diagonal. For 2-D arrays the flat stride is `ncols + 1`; a tall matrix with
    /// [`FillDiagonalOpts::wrap`] restarts the diagonal every `ncols + 1` rows, as NumPy's does. More than 2 axes
    /// must all have one extent; fewer than 2 is an `Err`.
    ///
    /// ```
    /// use cuprite_array::Array;
    /// use cuprite_array::ops::FillDiagonalOpts;
    /// let mut a = Array::<i32>::zeros(&[5, 2]);
    /// a.fill_diagonal_with(&Array::from_slice(&[1, 2], &[2])?, FillDiagonalOpts::new().wrap(true))?;
    /// assert_eq!(a.to_vec()?, [1, 0, 0, 2, 0, 0, 1, 0, 0, 2]);
    /// let mut b = Array::<i32>::zeros(&[5, 2]);
    /// b.fill_diagonal(&Array::scalar(7))?;
    /// assert_eq!(b.to_vec()?, [7, 0, 0, 7, 0, 0, 0, 0, 0, 0]);
    /// # Ok::<(), cuprite_array::Error>(())
    /// ```
    pub fn fill_diagonal(&mut self, val: &Array<T>) -> Result<()> {
        self.fill_diagonal_with(val, FillDiagonalOpts::new())
    }
    /// [`fill_diagonal`](Self::fill_diagonal) with NumPy's `wrap` ([`FillDiagonalOpts`]).
    pub fn fill_diagonal_with(&mut self, val: &Array<T>, opts: FillDiagonalOpts) -> Result<()> {
        let wrap = opts.wrap;
        let s = self.shape().to_vec();
        let len = self.len();
        let (step, end) = match s.len() {
            0 | 1 => {
                return Err(Error::Shape(format!(
                    "fill_diagonal needs at least 2 axes, got shape {s:?}"
                )));
            }
            2 => (
                s[1] + 1,
                if wrap {
                    len
                } else {
                    s[1].saturating_mul(s[1]).min(len)
                },
            ),
            _ => {
                if s.iter().any(|&d| d != s[0]) {
                    return Err(Error::Shape(format!(
                        "fill_diagonal: all extents must be equal for more than 2 axes, got \
                         shape {s:?}"
                    )));
                }
                let mut acc = 1usize;
                let mut step = 1usize;
                for &d in &s[..s.len() - 1] {
                    acc *= d;
                    step += acc;
                }
                (step, len)
            }
        };
        let count = end.div_ceil(step);
        if count == 0 {
            return Ok(());
        }
        let pos = with_device(self.device(), || {
            Array::arange(0i64, end as i64, step as i64)
        })?;
        let v = Array::cycled(val, count, "fill_diagonal")?;
        self.put(&pos, &v)
    }

    /// NumPy's `putmask(a, mask, values)`: where `mask` is true, element `i` (row-major) takes
    /// `values.flat[i % values.len()]`; the cycling follows the position in the array, not
    /// the count of true elements (unlike [`masked_assign`](Self::masked_assign)). The mask
    /// must have the array's shape; empty `values` leave the array unchanged, as in NumPy.
    /// Lazy: one fused select.
    ///
    /// ```
    /// use cuprite_array::Array;
    /// let mut a = Array::from_slice(&[0, 1, 2, 3, 4, 5], &[2, 3])?;
    /// let m = a.greater(1);
    /// a.putmask(&m, &Array::from_slice(&[-1, -2], &[2])?)?;
    /// assert_eq!(a.to_vec()?, [0, 1, -1, -2, -1, -2]);
    /// # Ok::<(), cuprite_array::Error>(())
    /// ```
    pub fn putmask(&mut self, mask: &Array<bool>, values: &Array<T>) -> Result<()> {
        if mask.shape() != self.shape() {
            return Err(Error::Shape(format!(
                "putmask: a mask of shape {:?} for an array of shape {:?}: they must be equal",
                mask.shape(),
                self.shape()
            )));
        }
        if values.is_empty() || self.is_empty() {
            return Ok(());
        }
        let v = Array::cycled(values, self.len(), "putmask")?.reshape(self.shape())?;
        *self = Array::select(mask, &v, &*self)?;
        Ok(())
    }
}
