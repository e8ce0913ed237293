//! Peak finding (SciPy's `find_peaks`, `peak_prominences` and `peak_widths`) on a 1-d signal,
//! read to the host and searched there in `f64`: the search is sequential and data-dependent,
//! and its output's length is known only at the end.
//!
//! A peak is a sample above its left neighbour and above the first sample after it that
//! differs from it (a flat top counts once, at its middle, rounded down). The conditions
//! then filter the peaks in SciPy's order: plateau size, height, threshold, distance,
//! prominence, width. Ranges are inclusive `(min, max)`; `f64::INFINITY` (or `usize::MAX`)
//! leaves one side open.

use crate::array::Array;
use crate::dtype::Float;
use crate::error::{Error, Result};

/// The conditions of [`find_peaks`] (SciPy's keyword arguments): each filters the peaks when
/// set, and its measure is then returned in [`Peaks`].
///
/// ```
/// use cuprite_array::signal::PeakOpts;
/// let o = PeakOpts::new().height(0.5, f64::INFINITY).distance(3.0).prominence(0.2, f64::INFINITY);
/// # let _ = o;
/// ```
#[derive(Clone, Copy, Debug, PartialEq)]
#[must_use]
pub struct PeakOpts {
    height: Option<(f64, f64)>,
    threshold: Option<(f64, f64)>,
    distance: Option<f64>,
    prominence: Option<(f64, f64)>,
    width: Option<(f64, f64)>,
    wlen: Option<f64>,
    rel_height: f64,
    plateau_size: Option<(usize, usize)>,
}

impl Default for PeakOpts {
    fn default() -> Self {
        PeakOpts {
            height: None,
            threshold: None,
            distance: None,
            prominence: None,
            width: None,
            wlen: None,
            rel_height: 0.5,
            plateau_size: None,
        }
    }
}

impl PeakOpts {
    /// No condition; `rel_height` 0.5 for widths.
    pub fn new() -> Self {
        Self::default()
    }
    /// Peaks whose value lies in `[min, max]`.
    pub fn height(self, min: f64, max: f64) -> Self {
        PeakOpts {
            height: Some((min, max)),
            ..self
        }
    }
    /// Peaks rising above both neighbours by an amount in `[min, max]`.
    pub fn threshold(self, min: f64, max: f64) -> Self {
        PeakOpts {
            threshold: Some((min, max)),
            ..self
        }
    }
    /// Peaks at least `d` samples apart (at least 1): the higher kept first.
    pub fn distance(self, d: f64) -> Self {
        PeakOpts {
            distance: Some(d),
            ..self
        }
    }
    /// Peaks whose prominence lies in `[min, max]`.
    pub fn prominence(self, min: f64, max: f64) -> Self {
        PeakOpts {
            prominence: Some((min, max)),
            ..self
        }
    }
    /// Peaks whose width (at `rel_height` of their prominence) lies in `[min, max]`.
    pub fn width(self, min: f64, max: f64) -> Self {
        PeakOpts {
            width: Some((min, max)),
            ..self
        }
    }
    /// The window (samples, above 1) a prominence's bases are searched in, centred on the
    /// peak; the whole signal without it.
    pub fn wlen(self, wlen: f64) -> Self {
        PeakOpts {
            wlen: Some(wlen),
            ..self
        }
    }
    /// Where a width is measured: this fraction of the prominence below the peak (at least
    /// 0).
    pub fn rel_height(self, rel_height: f64) -> Self {
        PeakOpts { rel_height, ..self }
    }
    /// Peaks whose flat top spans `[min, max]` samples.
    pub fn plateau_size(self, min: usize, max: usize) -> Self {
        PeakOpts {
            plateau_size: Some((min, max)),
            ..self
        }
    }
}

/// The peaks [`find_peaks`] found, and the measures of its conditions (each `Some` when its
/// condition was set; prominences and bases also for widths), one entry per peak.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Peaks {
    /// The peaks' indices, increasing.
    pub indices: Vec<usize>,
    /// The flat tops' sizes and first and last samples.
    pub plateau: Option<Vec<(usize, usize, usize)>>,
    /// The peaks' values.
    pub heights: Option<Vec<f64>>,
    /// The rises above the left and right neighbours.
    pub thresholds: Option<Vec<(f64, f64)>>,
    /// The prominences and their left and right bases.
    pub prominences: Option<Vec<(f64, usize, usize)>>,
    /// The widths, the height they are measured at, and the interpolated left and right
    /// positions there.
    pub widths: Option<Vec<(f64, f64, f64, f64)>>,
}

/// A range of a condition, checked: not NaN, `min <= max`.
fn range(what: &str, r: (f64, f64)) -> Result<(f64, f64)> {
    if r.0.is_nan() || r.1.is_nan() || r.0 > r.1 {
        return Err(Error::InvalidArgument(format!(
            "find_peaks: the {what} range {r:?} must have min <= max, neither NaN"
        )));
    }
    Ok(r)
}

/// The peaks of the 1-d signal `x` that meet the conditions of `opts` (SciPy's
/// `find_peaks`), with the conditions' measures. The signal is read to the host.
///
/// Choice: where `distance` weighs peaks of equal height, the later one is kept (SciPy's
/// order between equal heights follows its sort and is not specified).
///
/// # Errors
/// `x` not 1-d; a range with `min > max` or NaN; `distance` below 1; `wlen` not above 1;
/// `rel_height` negative. Each named.
///
/// ```
/// use cuprite_array::{Array, signal::{PeakOpts, find_peaks}};
/// let x = Array::from_slice(&[0.0f64, 2.0, 1.0, 3.0, 3.0, 0.0, 1.0, 0.5], &[8])?;
/// assert_eq!(find_peaks(&x, PeakOpts::new())?.indices, [1, 3, 6]);
/// let tall = find_peaks(&x, PeakOpts::new().height(1.5, f64::INFINITY))?;
/// assert_eq!((tall.indices, tall.heights), (vec![1, 3], Some(vec![2.0, 3.0])));
/// # Ok::<(), cuprite_array::Error>(())
/// ```
pub fn find_peaks<T: Float>(x: &Array<T>, opts: PeakOpts) -> Result<Peaks> {
    let v = signal_of("find_peaks", x)?;
    let (mid, left, right) = local_maxima(&v);
    let mut keep: Vec<usize> = (0..mid.len()).collect();
    let mut out = Peaks::default();
    if let Some(r) = opts.plateau_size {
        if r.0 > r.1 {
            return Err(Error::InvalidArgument(format!(
                "find_peaks: the plateau_size range {r:?} must have min <= max"
            )));
        }
        keep.retain(|&i| (r.0..=r.1).contains(&(right[i] - left[i] + 1)));
        out.plateau = Some(
            keep.iter()
                .map(|&i| (right[i] - left[i] + 1, left[i], right[i]))
                .collect(),
        );
    }
    let mut peaks: Vec<usize> = keep.iter().map(|&i| mid[i]).collect();
    // Each later filter narrows `peaks` and the measures kept so far alike.
    let narrow = |out: &mut Peaks, peaks: &mut Vec<usize>, pass: &[bool]| {
        retain_by(&mut out.plateau, pass);
        retain_by(&mut out.heights, pass);
        retain_by(&mut out.thresholds, pass);
        retain_by(&mut out.prominences, pass);
        retain_by(&mut out.widths, pass);
        let mut it = pass.iter();
        peaks.retain(|_| *it.next().unwrap_or(&false));
    };
    if let Some(r) = opts.height {
        let (lo, hi) = range("height", r)?;
        let h: Vec<f64> = peaks.iter().map(|&p| v[p]).collect();
        let pass: Vec<bool> = h.iter().map(|&h| h >= lo && h <= hi).collect();
        out.heights = Some(h);
        narrow(&mut out, &mut peaks, &pass);
    }
    if let Some(r) = opts.threshold {
        let (lo, hi) = range("threshold", r)?;
        let t: Vec<(f64, f64)> = peaks
            .iter()
            .map(|&p| (v[p] - v[p - 1], v[p] - v[p + 1]))
            .collect();
        let pass: Vec<bool> = t
            .iter()
            .map(|&(a, b)| a.min(b) >= lo && a.max(b) <= hi)
            .collect();
        out.thresholds = Some(t);
        narrow(&mut out, &mut peaks, &pass);
    }
    if let Some(d) = opts.distance {
        if d.is_nan() || d < 1.0 {
            return Err(Error::InvalidArgument(format!(
                "find_peaks: distance {d} must be at least 1"
            )));
        }
        let pass = by_distance(&peaks, &v, d.ceil() as usize);
        narrow(&mut out, &mut peaks, &pass);
    }
    if opts.prominence.is_some() || opts.width.is_some() {
        let pr = prominences_of(&v, &peaks, opts.wlen)?;
        if let Some(r) = opts.prominence {
            let (lo, hi) = range("prominence", r)?;
            let pass: Vec<bool> = pr.iter().map(|p| p.0 >= lo && p.0 <= hi).collect();
            out.prominences = Some(pr);
            narrow(&mut out, &mut peaks, &pass);
        } else {
            out.prominences = Some(pr);
        }
    }
    if let Some(r) = opts.width {
        let (lo, hi) = range("width", r)?;
        let pr = out.prominences.clone().unwrap_or_default();
        let w = widths_of(&v, &peaks, &pr, opts.rel_height)?;
        let pass: Vec<bool> = w.iter().map(|w| w.0 >= lo && w.0 <= hi).collect();
        out.widths = Some(w);
        narrow(&mut out, &mut peaks, &pass);
    }
    out.indices = peaks;
    Ok(out)
}

/// The prominence of each of `peaks` in the 1-d signal `x`, with its left and right bases
/// (SciPy's `peak_prominences(x, peaks, wlen)`): the peak's height above the higher of the
/// lowest points on either side before the signal rises above the peak (within `wlen`
/// samples centred on the peak, when given).
///
/// # Errors
/// `x` not 1-d; a peak index outside `x`; `wlen` not above 1. Each named.
///
/// ```
/// use cuprite_array::{Array, signal::peak_prominences};
/// let x = Array::from_slice(&[0.0f64, 3.0, 1.0, 2.0, 0.5], &[5])?;
/// assert_eq!(peak_prominences(&x, &[1, 3], None)?, [(2.5, 0, 4), (1.0, 2, 4)]);
/// # Ok::<(), cuprite_array::Error>(())
/// ```
pub fn peak_prominences<T: Float>(
    x: &Array<T>,
    peaks: &[usize],
    wlen: Option<f64>,
) -> Result<Vec<(f64, usize, usize)>> {
    let v = signal_of("peak_prominences", x)?;
    prominences_of(&v, peaks, wlen)
}

/// The width of each of `peaks` in the 1-d signal `x` at `rel_height` of its prominence
/// below it (SciPy's `peak_widths(x, peaks, rel_height)`), as `(width, height, left, right)`:
/// the positions where the signal crosses that height, linearly interpolated, searched
/// between the prominence's bases ([`peak_prominences`] with the whole signal).
///
/// # Errors
/// `x` not 1-d; a peak index outside `x`; `rel_height` negative or NaN. Each named.
///
/// ```
/// use cuprite_array::{Array, signal::peak_widths};
/// let x = Array::from_slice(&[0.0f64, 1.0, 2.0, 1.0, 0.0], &[5])?;
/// let w = peak_widths(&x, &[2], 0.5)?;
/// assert_eq!(w, [(2.0, 1.0, 1.0, 3.0)]);
/// # Ok::<(), cuprite_array::Error>(())
/// ```
pub fn peak_widths<T: Float>(
    x: &Array<T>,
    peaks: &[usize],
    rel_height: f64,
) -> Result<Vec<(f64, f64, f64, f64)>> {
    let v = signal_of("peak_widths", x)?;
    let pr = prominences_of(&v, peaks, None)?;
    widths_of(&v, peaks, &pr, rel_height)
}

/// Keeps the entries of `v` (when measured) whose `pass` is true.
fn retain_by<V>(v: &mut Option<Vec<V>>, pass: &[bool]) {
    if let Some(v) = v.as_mut() {
        let mut it = pass.iter();
        v.retain(|_| *it.next().unwrap_or(&false));
    }
}

/// The 1-d signal `x` on the host in `f64`, checked.
fn signal_of<T: Float>(what: &str, x: &Array<T>) -> Result<Vec<f64>> {
    if x.ndim() != 1 {
        return Err(Error::Shape(format!(
            "{what}: the signal has shape {:?}; it must be 1-d",
            x.shape()
        )));
    }
    x.cast::<f64>().to_vec()
}

/// The local maxima of `x`: their middles (rounded down), and their flat tops' first and last
/// samples. Neither end of the signal is a peak.
fn local_maxima(x: &[f64]) -> (Vec<usize>, Vec<usize>, Vec<usize>) {
    let (mut mid, mut left, mut right) = (Vec::new(), Vec::new(), Vec::new());
    let last = x.len().saturating_sub(1);
    let mut i = 1;
    while i < last {
        if x[i - 1] < x[i] {
            let mut ahead = i + 1;
            while ahead < last && x[ahead] == x[i] {
                ahead += 1;
            }
            if x[ahead] < x[i] {
                left.push(i);
                right.push(ahead - 1);
                mid.push((i + ahead - 1) / 2);
                i = ahead;
            }
        }
        i += 1;
    }
    (mid, left, right)
}

/// Which of `peaks` survive the distance `d`: from the highest down (equal heights: the later
/// first), each kept peak removes the others within `d - 1` samples of it.
fn by_distance(peaks: &[usize], x: &[f64], d: usize) -> Vec<bool> {
    let n = peaks.len();
    let mut keep = vec![true; n];
    let mut order: Vec<usize> = (0..n).collect();
    order.sort_by(|&a, &b| x[peaks[a]].total_cmp(&x[peaks[b]]));
    for &j in order.iter().rev() {
        if !keep[j] {
            continue;
        }
        for k in (0..j).rev() {
            if peaks[j] - peaks[k] >= d {
                break;
            }
            keep[k] = false;
        }
        for k in j + 1..n {
            if peaks[k] - peaks[j] >= d {
                break;
            }
            keep[k] = false;
        }
    }
    keep
}

/// [`peak_prominences`] on the host signal `x`.
fn prominences_of(
    x: &[f64],
    peaks: &[usize],
    wlen: Option<f64>,
) -> Result<Vec<(f64, usize, usize)>> {
    let half = match wlen {
        None => None,
        Some(w) if w > 1.0 => Some(w.ceil() as usize / 2),
        Some(w) => {
            return Err(Error::InvalidArgument(format!(
                "peak_prominences: wlen {w} must be above 1"
            )));
        }
    };
    let n = x.len();
    peaks
        .iter()
        .map(|&p| {
            if p >= n {
                return Err(Error::InvalidArgument(format!(
                    "peak_prominences: the peak index {p} is outside the signal of {n} samples"
                )));
            }
            let (lo, hi) = match half {
                Some(h) => (p.saturating_sub(h), (p + h).min(n - 1)),
                None => (0, n - 1),
            };
            let (mut left_min, mut left_base) = (x[p], p);
            let mut i = p;
            loop {
                if x[i] > x[p] {
                    break;
                }
                if x[i] < left_min {
                    left_min = x[i];
                    left_base = i;
                }
                if i == lo {
                    break;
                }
                i -= 1;
            }
            let (mut right_min, mut right_base) = (x[p], p);
            for (i, &xi) in x.iter().enumerate().take(hi + 1).skip(p) {
                if xi > x[p] {
                    break;
                }
                if xi < right_min {
                    right_min = xi;
                    right_base = i;
                }
            }
            Ok((x[p] - left_min.max(right_min), left_base, right_base))
        })
        .collect()
}

/// [`peak_widths`] on the host signal `x` with the prominences `pr` of `peaks`.
fn widths_of(
    x: &[f64],
    peaks: &[usize],
    pr: &[(f64, usize, usize)],
    rel_height: f64,
) -> Result<Vec<(f64, f64, f64, f64)>> {
    if rel_height.is_nan() || rel_height < 0.0 {
        return Err(Error::InvalidArgument(format!(
            "peak_widths: rel_height {rel_height} must be at least 0"
        )));
    }
    peaks
        .iter()
        .zip(pr)
        .map(|(&p, &(prom, lo, hi))| {
            let h = x[p] - prom * rel_height;
            let mut i = p;
            while lo < i && h < x[i] {
                i -= 1;
            }
            let mut left = i as f64;
            if x[i] < h {
                left += (h - x[i]) / (x[i + 1] - x[i]);
            }
            let mut i = p;
            while i < hi && h < x[i] {
                i += 1;
            }
            let mut right = i as f64;
            if x[i] < h {
                right -= (h - x[i]) / (x[i - 1] - x[i]);
            }
            Ok((right - left, h, left, right))
        })
        .collect()
}
