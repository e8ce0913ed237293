//! SciPy's signal extension modes of `upfirdn` (and of `resample_poly`'s `padtype`): what a
//! signal of `n` values holds at the positions before its first value and after its last.
//!
//! Each extended value is a linear form in at most three of the signal's values plus a
//! constant ([`Lin`]), found on the host from the position alone; the extension of a whole
//! array is then three gathers along the axis, weighted and summed. The forms follow SciPy's
//! definitions position by position, the repeated reflections of an extension longer than
//! the signal included.

use super::frames::{along, slice_axis};
use super::psd::Work;
use crate::array::Array;
use crate::error::{Error, Result};

/// How [`upfirdn_with`](super::upfirdn_with) extends the signal beyond its ends (SciPy's
/// `mode`). For `x = [1, 2, 3]`, the values before it read outwards from its first value:
///
/// | mode | before `x` | after `x` |
/// |---|---|---|
/// | `Constant` | `cval`, `cval` | `cval`, `cval` |
/// | `Symmetric` | 1, 2 | 3, 2 |
/// | `Reflect` | 2, 3 | 2, 1 |
/// | `Edge` | 1, 1 | 3, 3 |
/// | `Wrap` | 3, 2 | 1, 2 |
/// | `Smooth` | 0, -1 (the first difference continued) | 4, 5 |
/// | `Antisymmetric` | -1, -2 | -3, -2 |
/// | `Antireflect` | 0, -1 | 4, 5 |
/// | `Line` | 0, -1 (the line through the first and last values) | 4, 5 |
///
/// `Reflect`, `Smooth`, `Antireflect` and `Line` need at least two values.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum UpfirdnMode {
    /// A constant, `cval` (`'constant'`; zeros by default).
    #[default]
    Constant,
    /// Mirrored about the edge, the edge value repeated (`'symmetric'`).
    Symmetric,
    /// Mirrored about the edge value, which is not repeated (`'reflect'`).
    Reflect,
    /// The edge value repeated (`'edge'`).
    Edge,
    /// Periodic (`'wrap'`).
    Wrap,
    /// The edge's first difference continued as a line (`'smooth'`).
    Smooth,
    /// Mirrored and negated, the edge repeated (`'antisymmetric'`).
    Antisymmetric,
    /// Mirrored through the edge point (`2 x[0] - x[k]`), continued past the signal's length
    /// (`'antireflect'`).
    Antireflect,
    /// The line through the first and last values continued (`'line'`).
    Line,
}

impl UpfirdnMode {
    /// The mode SciPy names `name` (`"constant"`, `"symmetric"`, `"reflect"`, `"edge"`,
    /// `"wrap"`, `"smooth"`, `"antisymmetric"`, `"antireflect"`, `"line"`); `Err` naming an
    /// unknown name.
    ///
    /// ```
    /// use cuprite_array::signal::UpfirdnMode;
    /// assert_eq!(UpfirdnMode::from_name("wrap")?, UpfirdnMode::Wrap);
    /// assert!(UpfirdnMode::from_name("mirror").is_err());
    /// # Ok::<(), cuprite_array::Error>(())
    /// ```
    pub fn from_name(name: &str) -> Result<UpfirdnMode> {
        Ok(match name {
            "constant" => UpfirdnMode::Constant,
            "symmetric" => UpfirdnMode::Symmetric,
            "reflect" => UpfirdnMode::Reflect,
            "edge" => UpfirdnMode::Edge,
            "wrap" => UpfirdnMode::Wrap,
            "smooth" => UpfirdnMode::Smooth,
            "antisymmetric" => UpfirdnMode::Antisymmetric,
            "antireflect" => UpfirdnMode::Antireflect,
            "line" => UpfirdnMode::Line,
            _ => {
                return Err(Error::InvalidArgument(format!(
                    "upfirdn: unknown mode {name:?} (constant, symmetric, reflect, edge, wrap, \
                     smooth, antisymmetric, antireflect or line)"
                )));
            }
        })
    }

    /// Whether the mode reads two distinct values of the signal (a difference or a period of
    /// `2 (n - 1)`), so that a signal of one value cannot be extended.
    fn needs_two(self) -> bool {
        matches!(
            self,
            UpfirdnMode::Reflect
                | UpfirdnMode::Smooth
                | UpfirdnMode::Antireflect
                | UpfirdnMode::Line
        )
    }
}

/// One extended value: `Σ terms[k].1 · x[terms[k].0] + c0` over the first `len` terms.
#[derive(Clone, Copy, Debug, PartialEq)]
struct Lin {
    terms: [(usize, f64); 3],
    len: usize,
    c0: f64,
}

impl Lin {
    fn constant(c0: f64) -> Lin {
        Lin {
            terms: [(0, 0.0); 3],
            len: 0,
            c0,
        }
    }

    fn of(terms: &[(usize, f64)]) -> Lin {
        let mut l = Lin::constant(0.0);
        l.terms[..terms.len()].copy_from_slice(terms);
        l.len = terms.len();
        l
    }

    fn one(i: usize, c: f64) -> Lin {
        Lin::of(&[(i, c)])
    }
}

/// The value at position `-j` (`j >= 1`) before a signal of `n` values (`n >= 2` for the
/// modes that need two).
fn left(j: usize, n: usize, mode: UpfirdnMode, cval: f64) -> Lin {
    let jf = j as f64;
    match mode {
        UpfirdnMode::Constant => Lin::constant(cval),
        UpfirdnMode::Edge => Lin::one(0, 1.0),
        UpfirdnMode::Symmetric | UpfirdnMode::Antisymmetric => {
            let s = if mode == UpfirdnMode::Symmetric {
                1.0
            } else {
                -1.0
            };
            if j < n {
                Lin::one(j - 1, s)
            } else {
                let m = (j - 1) % (2 * n);
                if m < n {
                    Lin::one(m, s)
                } else {
                    // The second reflection: positive in both modes.
                    Lin::one(2 * n - 1 - m, 1.0)
                }
            }
        }
        UpfirdnMode::Reflect => {
            if j < n - 1 {
                Lin::one(j, 1.0)
            } else {
                let m = (j - 1) % (2 * (n - 1));
                if m < n - 1 {
                    Lin::one(m + 1, 1.0)
                } else {
                    Lin::one(2 * n - 3 - m, 1.0)
                }
            }
        }
        UpfirdnMode::Wrap => Lin::one(n - 1 - (j - 1) % n, 1.0),
        // x[0] - j (x[1] - x[0])
        UpfirdnMode::Smooth => Lin::of(&[(0, 1.0 + jf), (1, -jf)]),
        // x[0] - j (x[n-1] - x[0]) / (n - 1)
        UpfirdnMode::Line => {
            let s = jf / (n - 1) as f64;
            Lin::of(&[(0, 1.0 + s), (n - 1, -s)])
        }
        UpfirdnMode::Antireflect => {
            if j < n {
                Lin::of(&[(0, 2.0), (j, -1.0)])
            } else {
                // le = x[0] + (x[0] - x[n-1]) q, then le - (x[m+1] - x[0]) or
                // le - (x[n-1] - x[2n-3-m]).
                let q = ((j - 1) / (n - 1)) as f64;
                let m = (j - 1) % (2 * (n - 1));
                if m < n - 1 {
                    Lin::of(&[(0, 2.0 + q), (n - 1, -q), (m + 1, -1.0)])
                } else {
                    Lin::of(&[(0, 1.0 + q), (n - 1, -q - 1.0), (2 * n - 3 - m, 1.0)])
                }
            }
        }
    }
}

/// The value at position `i >= n` after a signal of `n` values.
fn right(i: usize, n: usize, mode: UpfirdnMode, cval: f64) -> Lin {
    let k = (i - n + 1) as f64;
    match mode {
        UpfirdnMode::Constant => Lin::constant(cval),
        UpfirdnMode::Edge => Lin::one(n - 1, 1.0),
        UpfirdnMode::Symmetric | UpfirdnMode::Antisymmetric => {
            let s = if mode == UpfirdnMode::Symmetric {
                1.0
            } else {
                -1.0
            };
            if i < 2 * n {
                Lin::one(2 * n - 1 - i, s)
            } else {
                let m = i % (2 * n);
                if m < n {
                    Lin::one(m, 1.0)
                } else {
                    Lin::one(2 * n - 1 - m, s)
                }
            }
        }
        UpfirdnMode::Reflect => {
            if i < 2 * n - 1 {
                Lin::one(2 * n - 2 - i, 1.0)
            } else {
                let m = i % (2 * (n - 1));
                if m < n - 1 {
                    Lin::one(m, 1.0)
                } else {
                    Lin::one(2 * n - 2 - m, 1.0)
                }
            }
        }
        UpfirdnMode::Wrap => Lin::one(i % n, 1.0),
        // x[n-1] + k (x[n-1] - x[n-2])
        UpfirdnMode::Smooth => Lin::of(&[(n - 1, 1.0 + k), (n - 2, -k)]),
        // x[n-1] + k (x[n-1] - x[0]) / (n - 1)
        UpfirdnMode::Line => {
            let s = k / (n - 1) as f64;
            Lin::of(&[(n - 1, 1.0 + s), (0, -s)])
        }
        UpfirdnMode::Antireflect => {
            if i < 2 * n - 1 {
                Lin::of(&[(n - 1, 2.0), (2 * n - 2 - i, -1.0)])
            } else {
                // re = x[n-1] + (x[n-1] - x[0]) q, then re + (x[m] - x[0]) or
                // re + (x[n-1] - x[2n-2-m]).
                let q = (i / (n - 1) - 1) as f64;
                let m = i % (2 * (n - 1));
                if m < n - 1 {
                    Lin::of(&[(n - 1, 1.0 + q), (0, -q - 1.0), (m, 1.0)])
                } else {
                    Lin::of(&[(n - 1, 2.0 + q), (0, -q), (2 * n - 2 - m, -1.0)])
                }
            }
        }
    }
}

/// `x` extended along axis `ax` by `before` values in front and `after` values behind, as
/// `mode` (with `cval` for [`UpfirdnMode::Constant`]) defines them. `Err` when the mode needs
/// two values and the axis has one.
pub(crate) fn extend<R: Work>(
    x: &Array<R>,
    ax: usize,
    before: usize,
    after: usize,
    mode: UpfirdnMode,
    cval: f64,
) -> Result<Array<R>> {
    let n = x.shape()[ax];
    if before == 0 && after == 0 {
        return Ok(x.clone());
    }
    if n < 2 && mode.needs_two() {
        return Err(Error::InvalidArgument(format!(
            "upfirdn: the {mode:?} extension needs at least 2 values along axis {ax}, the \
             signal has {n}"
        )));
    }
    let forms: Vec<Lin> = (1..=before)
        .rev()
        .map(|j| left(j, n, mode, cval))
        .chain((n..n + after).map(|i| right(i, n, mode, cval)))
        .collect();
    let width = forms.iter().map(|f| f.len).max().unwrap_or(0);
    let mut part = along::<R>(x, ax, &forms.iter().map(|f| f.c0).collect::<Vec<_>>())?;
    for t in 0..width {
        let idx: Vec<i64> = forms.iter().map(|f| f.terms[t].0 as i64).collect();
        let coef: Vec<f64> = forms.iter().map(|f| f.terms[t].1).collect();
        let idx = Array::from_slice_on(x.device(), &idx, &[idx.len()])?;
        let term = x
            .index_select(ax as isize, &idx)?
            .try_mul(&along::<R>(x, ax, &coef)?)?;
        part = part.try_add(&term)?;
    }
    // Constant forms broadcast over the other axes only once a term has joined them.
    if width == 0 {
        let mut shape = x.shape().to_vec();
        shape[ax] = forms.len();
        part = part.broadcast_to(&shape)?;
    }
    let front = slice_axis(&part, ax, 0, before, 1)?;
    let back = slice_axis(&part, ax, before, before + after, 1)?;
    Array::concat(&[&front, x, &back], ax as isize)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The forms evaluated on `x` at positions `-before .. n + after`.
    fn ext(x: &[f64], before: usize, after: usize, mode: UpfirdnMode) -> Vec<f64> {
        let n = x.len();
        let eval = |l: Lin| l.terms[..l.len].iter().map(|&(i, c)| c * x[i]).sum::<f64>() + l.c0;
        let mut v: Vec<f64> = (1..=before)
            .rev()
            .map(|j| eval(left(j, n, mode, 7.0)))
            .collect();
        v.extend_from_slice(x);
        v.extend((n..n + after).map(|i| eval(right(i, n, mode, 7.0))));
        v
    }

    #[test]
    fn one_reflection_each_mode() {
        let x = [1.0, 2.0, 4.0];
        let cases = [
            (UpfirdnMode::Constant, [7.0, 7.0, 7.0, 7.0]),
            (UpfirdnMode::Symmetric, [2.0, 1.0, 4.0, 2.0]),
            (UpfirdnMode::Reflect, [4.0, 2.0, 2.0, 1.0]),
            (UpfirdnMode::Edge, [1.0, 1.0, 4.0, 4.0]),
            (UpfirdnMode::Wrap, [2.0, 4.0, 1.0, 2.0]),
            (UpfirdnMode::Smooth, [-1.0, 0.0, 6.0, 8.0]),
            (UpfirdnMode::Antisymmetric, [-2.0, -1.0, -4.0, -2.0]),
            (UpfirdnMode::Antireflect, [-2.0, 0.0, 6.0, 7.0]),
            (UpfirdnMode::Line, [-2.0, -0.5, 5.5, 7.0]),
        ];
        for (mode, want) in cases {
            let v = ext(&x, 2, 2, mode);
            assert_eq!([v[0], v[1], v[5], v[6]], want, "{mode:?}: {v:?}");
        }
    }

    #[test]
    fn repeated_reflections_are_periodic() {
        let x = [1.0, 3.0, 2.0];
        // Symmetric: period 2n; reflect: period 2 (n - 1); wrap: period n.
        for (mode, p) in [
            (UpfirdnMode::Symmetric, 6usize),
            (UpfirdnMode::Reflect, 4),
            (UpfirdnMode::Wrap, 3),
            (UpfirdnMode::Antisymmetric, 6),
        ] {
            let v = ext(&x, 20, 20, mode);
            for i in 0..v.len() - p {
                assert_eq!(v[i], v[i + p], "{mode:?} at {i}: {v:?}");
            }
        }
        // Antireflect: each period of 2 (n - 1) shifts by twice the end-to-end rise.
        let v = ext(&x, 20, 20, UpfirdnMode::Antireflect);
        for i in 0..v.len() - 4 {
            assert!(
                (v[i + 4] - v[i] - 2.0).abs() < 1e-12,
                "antireflect at {i}: {v:?}"
            );
        }
    }
}
