//! The options of calls that NumPy gives keyword arguments with defaults.
//!
//! One rule holds across the crate: the short form of a call takes only what NumPy requires
//! (`a.sum_axes(&[1])`, `a.sort(-1)`, `a.fft()`), and a `*_with` form beside it takes the
//! same required arguments and then one options value (`a.sum_axes_with(&[1],
//! ReduceOpts::new().keepdims(true))`). An options value starts from NumPy's defaults
//! (`new()` and `Default` agree) and has one setter per NumPy keyword, named after it and
//! taking its value, so a call reads as NumPy's `keepdims=True` does.

/// Options of the reductions along axes (`sum_axes_with`, `max_axes_with`,
/// `argmax_axis_with`, ...): NumPy's `keepdims` (default `false`).
///
/// ```
/// use cuprite_array::{Array, ops::ReduceOpts};
/// let a = Array::from_slice(&[1.0f32, 2.0, 3.0, 4.0, 5.0, 6.0], &[2, 3])?;
/// let s = a.sum_axes_with(&[1], ReduceOpts::new().keepdims(true))?;
/// assert_eq!(s.shape(), &[2, 1]);
/// assert_eq!(s.to_vec()?, vec![6.0, 15.0]);
/// # Ok::<(), cuprite_array::Error>(())
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
#[must_use]
pub struct ReduceOpts {
    pub(crate) keepdims: bool,
}

impl ReduceOpts {
    /// NumPy's defaults (`keepdims=False`).
    pub fn new() -> Self {
        Self::default()
    }
    /// Keep each reduced axis with extent 1, so the result broadcasts against the input.
    pub fn keepdims(self, keepdims: bool) -> Self {
        ReduceOpts { keepdims }
    }
}

/// Options of the variance and standard deviation (`var_with`, `std_axes_with`,
/// `nanvar_axes_with`, ...): NumPy's `ddof` (default 0, the population variance) and
/// `keepdims` (default `false`).
///
/// ```
/// use cuprite_array::{Array, ops::VarOpts};
/// let a = Array::from_slice(&[1.0f64, 2.0, 3.0, 4.0], &[4])?;
/// assert_eq!(a.var()?.item()?, 1.25);
/// assert_eq!(a.var_with(VarOpts::new().ddof(1))?.item()?, 5.0 / 3.0);
/// # Ok::<(), cuprite_array::Error>(())
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
#[must_use]
pub struct VarOpts {
    pub(crate) ddof: usize,
    pub(crate) keepdims: bool,
}

impl VarOpts {
    /// NumPy's defaults (`ddof=0`, `keepdims=False`).
    pub fn new() -> Self {
        Self::default()
    }
    /// Divide by `N - ddof` (1 gives the sample variance).
    pub fn ddof(self, ddof: usize) -> Self {
        VarOpts { ddof, ..self }
    }
    /// Keep each reduced axis with extent 1.
    pub fn keepdims(self, keepdims: bool) -> Self {
        VarOpts { keepdims, ..self }
    }
}

/// Options of the sorts (`sort_with`, `argsort_with`, `sort_with_indices_with`,
/// `sort_by_key_with`): the order, ascending by default as NumPy's.
///
/// ```
/// use cuprite_array::{Array, ops::SortOpts};
/// let a = Array::from_slice(&[3i32, 1, 2], &[3])?;
/// assert_eq!(a.sort(-1)?.to_vec()?, vec![1, 2, 3]);
/// assert_eq!(a.sort_with(-1, SortOpts::new().descending(true))?.to_vec()?, vec![3, 2, 1]);
/// # Ok::<(), cuprite_array::Error>(())
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
#[must_use]
pub struct SortOpts {
    pub(crate) descending: bool,
}

impl SortOpts {
    /// Ascending order (NumPy's only order).
    pub fn new() -> Self {
        Self::default()
    }
    /// Sort largest first (equal keys keep their relative order).
    pub fn descending(self, descending: bool) -> Self {
        SortOpts { descending }
    }
}

/// Options of [`topk_with`](crate::Array::topk_with): whether the `k` largest (the default,
/// as PyTorch's `topk`) or the `k` smallest are taken.
///
/// ```
/// use cuprite_array::{Array, ops::TopkOpts};
/// let a = Array::from_slice(&[3i32, 1, 4, 1, 5], &[5])?;
/// assert_eq!(a.topk(2, -1)?.0.to_vec()?, vec![5, 4]);
/// let (v, _) = a.topk_with(2, -1, TopkOpts::new().largest(false))?;
/// assert_eq!(v.to_vec()?, vec![1, 1]);
/// # Ok::<(), cuprite_array::Error>(())
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[must_use]
pub struct TopkOpts {
    pub(crate) largest: bool,
}

impl Default for TopkOpts {
    fn default() -> Self {
        TopkOpts { largest: true }
    }
}

impl TopkOpts {
    /// The `k` largest.
    pub fn new() -> Self {
        Self::default()
    }
    /// `true`: the `k` largest, largest first; `false`: the `k` smallest, smallest first.
    pub fn largest(self, largest: bool) -> Self {
        TopkOpts { largest }
    }
}

/// Options of [`isclose_with`](crate::Array::isclose_with) and
/// [`allclose_with`](crate::Array::allclose_with): NumPy's `rtol` (default `1e-5`), `atol`
/// (default `1e-8`) and `equal_nan` (default `false`).
///
/// ```
/// use cuprite_array::{Array, ops::CloseOpts};
/// let a = Array::from_slice(&[1.0f64, f64::NAN], &[2])?;
/// let b = Array::from_slice(&[1.0f64 + 1e-9, f64::NAN], &[2])?;
/// assert!(!a.allclose(&b)?);
/// assert!(a.allclose_with(&b, CloseOpts::new().equal_nan(true))?);
/// # Ok::<(), cuprite_array::Error>(())
/// ```
#[derive(Clone, Copy, Debug, PartialEq)]
#[must_use]
pub struct CloseOpts {
    pub(crate) rtol: f64,
    pub(crate) atol: f64,
    pub(crate) equal_nan: bool,
}

impl Default for CloseOpts {
    fn default() -> Self {
        CloseOpts {
            rtol: 1e-5,
            atol: 1e-8,
            equal_nan: false,
        }
    }
}

impl CloseOpts {
    /// NumPy's defaults.
    pub fn new() -> Self {
        Self::default()
    }
    /// The relative tolerance.
    pub fn rtol(self, rtol: f64) -> Self {
        CloseOpts { rtol, ..self }
    }
    /// The absolute tolerance.
    pub fn atol(self, atol: f64) -> Self {
        CloseOpts { atol, ..self }
    }
    /// Whether two NaNs compare equal.
    pub fn equal_nan(self, equal_nan: bool) -> Self {
        CloseOpts { equal_nan, ..self }
    }
}

/// Options of the reductions that NumPy runs over the flattened array unless given an `axis`
/// (`median_with`, `nanmedian_with`, `mode_with`).
///
/// ```
/// use cuprite_array::{Array, ops::AxisOpts};
/// let a = Array::from_slice(&[1.0f64, 5.0, 2.0, 3.0, 4.0, 9.0], &[2, 3])?;
/// assert_eq!(a.median()?.item()?, 3.5);
/// assert_eq!(a.median_with(AxisOpts::new().axis(1))?.to_vec()?, vec![2.0, 4.0]);
/// # Ok::<(), cuprite_array::Error>(())
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
#[must_use]
pub struct AxisOpts {
    pub(crate) axis: Option<isize>,
}

impl AxisOpts {
    /// NumPy's default: over all elements.
    pub fn new() -> Self {
        Self::default()
    }
    /// Reduce along `axis` only (negative counts from the end; `None`: all elements).
    pub fn axis(self, axis: impl Into<Option<isize>>) -> Self {
        AxisOpts { axis: axis.into() }
    }
}

/// Options of [`digitize_with`](crate::Array::digitize_with): NumPy's `right` (default
/// `false`: `bins[i-1] <= x < bins[i]`).
///
/// ```
/// use cuprite_array::{Array, ops::DigitizeOpts};
/// let x = Array::from_slice(&[1.0f64, 2.5], &[2])?;
/// let bins = Array::from_slice(&[1.0f64, 2.5, 4.0], &[3])?;
/// assert_eq!(x.digitize(&bins)?.to_vec()?, vec![1, 2]);
/// assert_eq!(x.digitize_with(&bins, DigitizeOpts::new().right(true))?.to_vec()?, vec![0, 1]);
/// # Ok::<(), cuprite_array::Error>(())
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
#[must_use]
pub struct DigitizeOpts {
    pub(crate) right: bool,
}

impl DigitizeOpts {
    /// NumPy's default (`right=False`).
    pub fn new() -> Self {
        Self::default()
    }
    /// Whether each bin holds its right edge (`bins[i-1] < x <= bins[i]`) instead of its left.
    pub fn right(self, right: bool) -> Self {
        DigitizeOpts { right }
    }
}

/// Options of [`fill_diagonal_with`](crate::Array::fill_diagonal_with): NumPy's `wrap`
/// (default `false`).
///
/// ```
/// use cuprite_array::{Array, ops::FillDiagonalOpts};
/// let mut a = Array::<i32>::zeros(&[3, 1]);
/// a.fill_diagonal_with(&Array::scalar(5), FillDiagonalOpts::new().wrap(true))?;
/// assert_eq!(a.to_vec()?, [5, 0, 5]);
/// # Ok::<(), cuprite_array::Error>(())
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
#[must_use]
pub struct FillDiagonalOpts {
    pub(crate) wrap: bool,
}

impl FillDiagonalOpts {
    /// NumPy's default (`wrap=False`).
    pub fn new() -> Self {
        Self::default()
    }
    /// Whether the diagonal of a tall matrix restarts every `ncols + 1` rows.
    pub fn wrap(self, wrap: bool) -> Self {
        FillDiagonalOpts { wrap }
    }
}

/// Options of [`poly::polyval_with`](crate::ops::poly::polyval_with) and
/// [`poly::polyvalfromroots_with`](crate::ops::poly::polyvalfromroots_with): NumPy's `tensor`
/// (default `true`).
///
/// ```
/// use cuprite_array::{Array, ops::{PolyvalOpts, poly}};
/// let c = Array::from_slice(&[1i64, 0, -1, 1], &[2, 2])?; // columns 1 − x and x
/// let x = Array::from_slice(&[2i64, 3], &[2])?;
/// let o = PolyvalOpts::new().tensor(false);
/// assert_eq!(poly::polyval_with(&x, &c, o)?.to_vec()?, [-1, 3]);
/// # Ok::<(), cuprite_array::Error>(())
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[must_use]
pub struct PolyvalOpts {
    pub(crate) tensor: bool,
}

impl Default for PolyvalOpts {
    fn default() -> Self {
        PolyvalOpts { tensor: true }
    }
}

impl PolyvalOpts {
    /// NumPy's default (`tensor=True`).
    pub fn new() -> Self {
        Self::default()
    }
    /// `true`: every series at every `x`; `false`: the series broadcast against `x`.
    pub fn tensor(self, tensor: bool) -> Self {
        PolyvalOpts { tensor }
    }
}

/// Options of [`poly::as_series_with`](crate::ops::poly::as_series_with): NumPy's `trim`
/// (default `true`).
///
/// ```
/// use cuprite_array::{Array, ops::{SeriesOpts, poly}};
/// let a = Array::from_slice(&[1.0f64, 0.0], &[2])?;
/// assert_eq!(poly::as_series(&[&a])?[0].to_vec()?, vec![1.0]);
/// let s = poly::as_series_with(&[&a], SeriesOpts::new().trim(false))?;
/// assert_eq!(s[0].to_vec()?, vec![1.0, 0.0]);
/// # Ok::<(), cuprite_array::Error>(())
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[must_use]
pub struct SeriesOpts {
    pub(crate) trim: bool,
}

impl Default for SeriesOpts {
    fn default() -> Self {
        SeriesOpts { trim: true }
    }
}

impl SeriesOpts {
    /// NumPy's default (`trim=True`).
    pub fn new() -> Self {
        Self::default()
    }
    /// Whether trailing zeros are dropped (at least one coefficient is kept).
    pub fn trim(self, trim: bool) -> Self {
        SeriesOpts { trim }
    }
}

/// Options of the calls that NumPy applies to every axis unless given `axes`
/// (`squeeze_with`, `fftshift_with`, `ifftshift_with`).
///
/// ```
/// use cuprite_array::{Array, ops::AxesOpts};
/// let a = Array::<f32>::zeros(&[1, 3, 1]);
/// assert_eq!(a.squeeze()?.shape(), &[3]);
/// assert_eq!(a.squeeze_with(AxesOpts::new().axes(&[0]))?.shape(), &[3, 1]);
/// # Ok::<(), cuprite_array::Error>(())
/// ```
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
#[must_use]
pub struct AxesOpts {
    axes: Option<Vec<isize>>,
}

impl AxesOpts {
    /// NumPy's default: every axis.
    pub fn new() -> Self {
        Self::default()
    }
    /// Only these axes (negative counts from the end).
    pub fn axes(self, axes: &[isize]) -> Self {
        AxesOpts {
            axes: Some(axes.to_vec()),
        }
    }
    /// The axes as the calls take them (`None`: every axis).
    pub(crate) fn get(&self) -> Option<&[isize]> {
        self.axes.as_deref()
    }
}

/// Options of [`average_with`](crate::Array::average_with): NumPy's `axis` (default: all
/// elements) and `weights` (default: none, the plain mean).
///
/// ```
/// use cuprite_array::{Array, Device, ops::AverageOpts};
/// let a = Array::<f64>::from_slice_on(Device::CPU, &[1.0, 2.0, 3.0, 4.0], &[2, 2])?;
/// let w = Array::<f64>::from_slice_on(Device::CPU, &[3.0, 1.0], &[2])?;
/// let r = a.average_with(AverageOpts::new().axis(1).weights(&w))?;
/// assert_eq!(r.to_vec()?, [1.25, 3.25]);
/// # Ok::<(), cuprite_array::Error>(())
/// ```
#[derive(Clone, Copy, Debug)]
#[must_use]
pub struct AverageOpts<'w, T: crate::dtype::Element> {
    pub(crate) axis: Option<isize>,
    pub(crate) weights: Option<&'w crate::array::Array<T>>,
}

impl<T: crate::dtype::Element> Default for AverageOpts<'_, T> {
    fn default() -> Self {
        AverageOpts {
            axis: None,
            weights: None,
        }
    }
}

impl<'w, T: crate::dtype::Element> AverageOpts<'w, T> {
    /// NumPy's defaults: over all elements, no weights.
    pub fn new() -> Self {
        Self::default()
    }
    /// Average along `axis` only (negative counts from the end; `None`: all elements).
    pub fn axis(self, axis: impl Into<Option<isize>>) -> Self {
        AverageOpts {
            axis: axis.into(),
            ..self
        }
    }
    /// Weigh the values by `weights`: the values' shape, or with an axis the shape `[n]` of
    /// that axis.
    pub fn weights(self, weights: &'w crate::array::Array<T>) -> Self {
        AverageOpts {
            weights: Some(weights),
            ..self
        }
    }
}

/// Options of [`nan_to_num_with`](crate::Array::nan_to_num_with): NumPy's `nan` (default 0),
/// `posinf` and `neginf` (default: the largest and the most negative finite value of the
/// dtype).
///
/// ```
/// use cuprite_array::{Array, ops::NanToNumOpts};
/// let a = Array::from_slice(&[f32::NAN, f32::INFINITY, -f32::INFINITY, 1.0], &[4])?;
/// let r = a.nan_to_num_with(NanToNumOpts::new().nan(9.0).neginf(-1.0))?;
/// assert_eq!(r.to_vec()?, vec![9.0, f32::MAX, -1.0, 1.0]);
/// # Ok::<(), cuprite_array::Error>(())
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq)]
#[must_use]
pub struct NanToNumOpts<T> {
    pub(crate) nan: Option<T>,
    pub(crate) posinf: Option<T>,
    pub(crate) neginf: Option<T>,
}

impl<T> NanToNumOpts<T> {
    /// NumPy's defaults.
    pub fn new() -> Self {
        NanToNumOpts {
            nan: None,
            posinf: None,
            neginf: None,
        }
    }
    /// The value NaNs become.
    pub fn nan(self, v: T) -> Self {
        NanToNumOpts {
            nan: Some(v),
            ..self
        }
    }
    /// The value `+∞` becomes.
    pub fn posinf(self, v: T) -> Self {
        NanToNumOpts {
            posinf: Some(v),
            ..self
        }
    }
    /// The value `-∞` becomes.
    pub fn neginf(self, v: T) -> Self {
        NanToNumOpts {
            neginf: Some(v),
            ..self
        }
    }
}

/// Options of [`linspace_with`](crate::Array::linspace_with) and
/// [`linspace_between_with`](crate::Array::linspace_between_with): NumPy's `endpoint`
/// (default `true`) and, for array bounds, `axis` (default 0: the samples along the first
/// axis of the result). NumPy's `retstep` is the step these calls return beside the values.
///
/// ```
/// use cuprite_array::{Array, ops::LinspaceOpts};
/// let (a, step) = Array::<f64>::linspace_with(0.0, 1.0, 4, LinspaceOpts::new().endpoint(false))?;
/// assert_eq!((a.to_vec()?, step), (vec![0.0, 0.25, 0.5, 0.75], 0.25));
/// # Ok::<(), cuprite_array::Error>(())
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[must_use]
pub struct LinspaceOpts {
    pub(crate) endpoint: bool,
    pub(crate) axis: isize,
}

impl Default for LinspaceOpts {
    fn default() -> Self {
        LinspaceOpts {
            endpoint: true,
            axis: 0,
        }
    }
}

impl LinspaceOpts {
    /// NumPy's defaults (`endpoint=True`, `axis=0`).
    pub fn new() -> Self {
        Self::default()
    }
    /// Whether `stop` is the last sample (`false`: left out, the step `(stop - start) / num`).
    pub fn endpoint(self, endpoint: bool) -> Self {
        LinspaceOpts { endpoint, ..self }
    }
    /// The axis of the result the samples lie along, for array bounds (negative counts from
    /// the end of the result's axes).
    pub fn axis(self, axis: isize) -> Self {
        LinspaceOpts { axis, ..self }
    }
}

/// Options of [`histogram_with`](crate::Array::histogram_with): NumPy's `range` (default: the
/// data's min and max), `weights` (default: each value counts 1) and `density` (default
/// `false`: counts or weight sums; `true`: divided by the total and the bin width, so the
/// histogram integrates to 1 over the range).
///
/// ```
/// use cuprite_array::{Array, ops::HistogramOpts};
/// let a = Array::from_slice(&[0.1f64, 0.2, 0.9, 3.0], &[4])?;
/// let w = Array::from_slice(&[1.0f64, 2.0, 4.0, 8.0], &[4])?;
/// let o = HistogramOpts::new().range(0.0, 1.0).weights(&w);
/// assert_eq!(a.histogram_with(2, o)?.0.to_vec()?, [3.0, 4.0]);
/// // Density: [2, 1] counts over bins of width 0.5, total 3.
/// let (d, _) = a.histogram_with(2, HistogramOpts::new().range(0.0, 1.0).density(true))?;
/// assert_eq!(d.to_vec()?, [4.0 / 3.0, 2.0 / 3.0]);
/// # Ok::<(), cuprite_array::Error>(())
/// ```
#[derive(Clone, Copy, Debug, Default)]
#[must_use]
pub struct HistogramOpts<'w> {
    pub(crate) range: Option<(f64, f64)>,
    pub(crate) weights: Option<&'w crate::array::Array<f64>>,
    pub(crate) density: bool,
}

impl<'w> HistogramOpts<'w> {
    /// NumPy's defaults (`range=None`, `weights=None`, `density=False`).
    pub fn new() -> Self {
        Self::default()
    }
    /// Bin `[lo, hi]` (finite, `lo < hi`) instead of the data's min and max; values outside
    /// it are not counted.
    pub fn range(self, lo: f64, hi: f64) -> Self {
        HistogramOpts {
            range: Some((lo, hi)),
            ..self
        }
    }
    /// Sum `weights` (the values' shape) instead of counting.
    pub fn weights(self, weights: &'w crate::array::Array<f64>) -> Self {
        HistogramOpts {
            weights: Some(weights),
            ..self
        }
    }
    /// Divide each bin by the total (of counts or weights, inside the range) times its width.
    pub fn density(self, density: bool) -> Self {
        HistogramOpts { density, ..self }
    }
}

/// Options of [`layer_norm_with`](crate::Array::layer_norm_with) and
/// [`rms_norm_with`](crate::Array::rms_norm_with), PyTorch's: `eps` (default `1e-5` for
/// `layer_norm`, the dtype's machine epsilon for `rms_norm`), `weight` and `bias` (default
/// none; the shape `[n]` of the normalised axis; `rms_norm` takes no bias).
///
/// ```
/// use cuprite_array::{Array, ops::NormOpts};
/// let a = Array::<f64>::from_slice(&[1.0, 3.0], &[1, 2])?;
/// let w = Array::<f64>::from_slice(&[2.0, 2.0], &[2])?;
/// let b = Array::<f64>::from_slice(&[0.0, 1.0], &[2])?;
/// let y = a.layer_norm_with(-1, NormOpts::new().eps(0.0).weight(&w).bias(&b))?;
/// assert_eq!(y.to_vec()?, [-2.0, 3.0]);
/// # Ok::<(), cuprite_array::Error>(())
/// ```
#[derive(Clone, Copy, Debug)]
#[must_use]
pub struct NormOpts<'w, T: crate::dtype::Element> {
    pub(crate) eps: Option<f64>,
    pub(crate) weight: Option<&'w crate::array::Array<T>>,
    pub(crate) bias: Option<&'w crate::array::Array<T>>,
}

impl<T: crate::dtype::Element> Default for NormOpts<'_, T> {
    fn default() -> Self {
        NormOpts {
            eps: None,
            weight: None,
            bias: None,
        }
    }
}

impl<'w, T: crate::dtype::Element> NormOpts<'w, T> {
    /// PyTorch's defaults (no weight, no bias, the call's default `eps`).
    pub fn new() -> Self {
        Self::default()
    }
    /// The `eps` added to the variance (mean square) under the square root (finite, `>= 0`).
    pub fn eps(self, eps: f64) -> Self {
        NormOpts {
            eps: Some(eps),
            ..self
        }
    }
    /// Scale the result by `weight` (PyTorch's `weight`, `elementwise_affine`).
    pub fn weight(self, weight: &'w crate::array::Array<T>) -> Self {
        NormOpts {
            weight: Some(weight),
            ..self
        }
    }
    /// Add `bias` after the weight (`layer_norm` only; `rms_norm` refuses it).
    pub fn bias(self, bias: &'w crate::array::Array<T>) -> Self {
        NormOpts {
            bias: Some(bias),
            ..self
        }
    }
}

/// Options of [`Array::choice_with`](crate::Array::choice_with) and
/// [`Generator::choice_with`](crate::random::Generator::choice_with): NumPy's `replace`
/// (default `true`) and `p` (default: uniform).
///
/// ```
/// use cuprite_array::{Array, ops::ChoiceOpts};
/// let c = Array::choice_with(4, 4, 9, ChoiceOpts::new().replace(false))?;
/// let mut v = c.to_vec()?;
/// v.sort();
/// assert_eq!(v, [0, 1, 2, 3]);
/// let only2 = ChoiceOpts::new().p(&[0.0, 0.0, 1.0]);
/// assert_eq!(Array::choice_with(3, 5, 9, only2)?.to_vec()?, [2; 5]);
/// # Ok::<(), cuprite_array::Error>(())
/// ```
#[derive(Clone, Copy, Debug, PartialEq)]
#[must_use]
pub struct ChoiceOpts<'p> {
    pub(crate) replace: bool,
    pub(crate) p: Option<&'p [f64]>,
}

impl Default for ChoiceOpts<'_> {
    fn default() -> Self {
        ChoiceOpts {
            replace: true,
            p: None,
        }
    }
}

impl<'p> ChoiceOpts<'p> {
    /// NumPy's defaults (`replace=True`, `p=None`).
    pub fn new() -> Self {
        Self::default()
    }
    /// Whether an item may be drawn more than once (`false`: at most `n` draws).
    pub fn replace(self, replace: bool) -> Self {
        ChoiceOpts { replace, ..self }
    }
    /// The probability of each item: `n` finite non-negative entries summing to 1.
    pub fn p(self, p: &'p [f64]) -> Self {
        ChoiceOpts { p: Some(p), ..self }
    }
}
