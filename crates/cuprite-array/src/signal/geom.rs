//! The geometry of a batched convolution over up to three axes: what the direct kernel, its
//! CPU twin and the FFT paths all compute, `y[b, k] = sum_j h[j] x[b, k + s - j]` (`x` zero
//! outside its extent), for output indices `k` in `[0, l)` along each axis.

use crate::error::{Error, Result};
use crate::ops::ConvMode;
use crate::shape::checked_numel;

/// One convolved axis: signal length `n`, kernel length `m`, output window start `s` (in the
/// full convolution's indices) and length `l`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(crate) struct AxisWin {
    pub n: usize,
    pub m: usize,
    pub s: usize,
    pub l: usize,
}

impl AxisWin {
    /// The window of `mode` (SciPy's: `same` keeps `n` values starting at `(m - 1) / 2` of the
    /// full result; `valid` needs `m <= n`). `n` and `m` are at least 1.
    pub(crate) fn of_mode(what: &str, n: usize, m: usize, mode: ConvMode) -> Result<AxisWin> {
        if n == 0 || m == 0 {
            return Err(Error::InvalidArgument(format!(
                "{what} of an empty array (signal length {n}, kernel length {m})"
            )));
        }
        let full = n.checked_add(m - 1).ok_or_else(|| {
            Error::InvalidArgument(format!("{what}: length {n} + {m} - 1 overflows"))
        })?;
        Ok(match mode {
            ConvMode::Full => AxisWin {
                n,
                m,
                s: 0,
                l: full,
            },
            ConvMode::Same => AxisWin {
                n,
                m,
                s: (m - 1) / 2,
                l: n,
            },
            ConvMode::Valid => {
                if m > n {
                    return Err(Error::InvalidArgument(format!(
                        "{what} in valid mode needs a kernel no longer than the signal along \
                         each axis (kernel {m} > signal {n})"
                    )));
                }
                AxisWin {
                    n,
                    m,
                    s: m - 1,
                    l: n - m + 1,
                }
            }
        })
    }

    /// A length-1 axis (no convolution along it).
    pub(crate) const ONE: AxisWin = AxisWin {
        n: 1,
        m: 1,
        s: 0,
        l: 1,
    };

    /// The full convolution's length `n + m - 1`.
    pub(crate) fn full(&self) -> usize {
        self.n + self.m - 1
    }
}

/// A batch of `batch` signals convolved over three axes (leading axes of length 1 where fewer
/// are convolved).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(crate) struct Geom {
    pub batch: usize,
    pub ax: [AxisWin; 3],
}

impl Geom {
    /// `batch` signals over `wins` (one to three axes, outermost first). Checks that every
    /// size product fits.
    pub(crate) fn new(batch: usize, wins: &[AxisWin]) -> Result<Geom> {
        if wins.is_empty() || wins.len() > 3 {
            return Err(Error::InvalidArgument(format!(
                "the direct convolution takes one to three axes, not {}",
                wins.len()
            )));
        }
        let mut ax = [AxisWin::ONE; 3];
        ax[3 - wins.len()..].copy_from_slice(wins);
        let g = Geom { batch, ax };
        checked_numel(&g.x_shape())?;
        checked_numel(&g.y_shape())?;
        checked_numel(&g.h_shape())?;
        // The output's work: every output times every tap.
        checked_numel(&[checked_numel(&g.y_shape())?, checked_numel(&g.h_shape())?])?;
        Ok(g)
    }

    pub(crate) fn x_shape(&self) -> [usize; 4] {
        [self.batch, self.ax[0].n, self.ax[1].n, self.ax[2].n]
    }
    pub(crate) fn h_shape(&self) -> [usize; 3] {
        [self.ax[0].m, self.ax[1].m, self.ax[2].m]
    }
    pub(crate) fn y_shape(&self) -> [usize; 4] {
        [self.batch, self.ax[0].l, self.ax[1].l, self.ax[2].l]
    }
}
