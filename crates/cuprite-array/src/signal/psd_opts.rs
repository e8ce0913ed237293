//! The options of the spectral routines, one struct per call with SciPy's defaults for it.

use super::frames::{Extension, WindowSpec};
use super::spectral::Detrend;
use super::windows::Window;

/// How spectra are scaled (SciPy's `scaling`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Scaling {
    /// Power spectral density, units²/Hz: `1 / (fs Σ w²)` (`'density'`; `'psd'` for `stft`).
    #[default]
    Density,
    /// Power spectrum, units²: `1 / (Σ w)²` (`'spectrum'`).
    Spectrum,
}

/// How [`welch`](super::welch) and [`csd`](super::csd) combine the segments' spectra (SciPy's
/// `average`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Average {
    /// Their mean (`'mean'`).
    #[default]
    Mean,
    /// Their median divided by the median's bias for `χ²₂` values (`'median'`); of the real
    /// and imaginary parts separately for a cross spectrum.
    Median,
}

/// What [`spectrogram`](super::spectrogram) returns (SciPy's `mode`; `'complex'` is
/// [`stft`](super::stft) with [`SpectrogramOpts`]' settings).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum SpectrogramMode {
    /// The power of each segment (`'psd'`).
    #[default]
    Psd,
    /// The modulus of each segment's scaled transform (`'magnitude'`).
    Magnitude,
    /// Its argument in `(-π, π]` (`'angle'`).
    Angle,
    /// Its argument unwrapped along the frequencies, NumPy's `unwrap` (`'phase'`).
    Phase,
}

/// The settings every segment-based routine shares.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Common {
    pub fs: f64,
    pub window: WindowSpec,
    pub nperseg: Option<usize>,
    pub noverlap: Option<usize>,
    pub nfft: Option<usize>,
    pub detrend: Option<Detrend>,
    pub onesided: bool,
    pub scaling: Scaling,
    pub axis: isize,
}

impl Common {
    fn new(window: Window, detrend: Option<Detrend>, scaling: Scaling) -> Common {
        Common {
            fs: 1.0,
            window: WindowSpec::Named(window),
            nperseg: None,
            noverlap: None,
            nfft: None,
            detrend,
            onesided: true,
            scaling,
            axis: -1,
        }
    }
}

macro_rules! setters {
    ($ty:ident: $($name:ident)*) => {
        impl $ty { $( setters!(@one $name); )* }
    };
    (@one fs) => {
        /// The sampling frequency (default 1).
        pub fn fs(mut self, fs: f64) -> Self { self.c.fs = fs; self }
    };
    (@one window) => {
        /// The window: a [`Window`] by name, or its values (`Vec<f64>`, `&[f64]`).
        pub fn window(mut self, w: impl Into<WindowSpec>) -> Self { self.c.window = w.into(); self }
    };
    (@one nperseg) => {
        /// The segment length (default 256; cut to the signal's length when longer, as SciPy
        /// does with a warning; a window given by its values sets it).
        pub fn nperseg(mut self, n: impl Into<Option<usize>>) -> Self { self.c.nperseg = n.into(); self }
    };
    (@one noverlap) => {
        /// The overlap of consecutive segments (default: the call's own, below `nperseg`).
        pub fn noverlap(mut self, n: impl Into<Option<usize>>) -> Self { self.c.noverlap = n.into(); self }
    };
    (@one nfft) => {
        /// The transform's length, zero-padding each segment (default: the segment length).
        pub fn nfft(mut self, n: impl Into<Option<usize>>) -> Self { self.c.nfft = n.into(); self }
    };
    (@one detrend) => {
        /// What is removed from each segment before its window (`None`: nothing).
        pub fn detrend(mut self, d: impl Into<Option<Detrend>>) -> Self { self.c.detrend = d.into(); self }
    };
    (@one return_onesided) => {
        /// The non-negative frequencies only (default `true`), or every frequency in
        /// `fftfreq`'s order.
        pub fn return_onesided(mut self, b: bool) -> Self { self.c.onesided = b; self }
    };
    (@one scaling) => {
        /// Density or spectrum scaling.
        pub fn scaling(mut self, s: Scaling) -> Self { self.c.scaling = s; self }
    };
    (@one axis) => {
        /// The axis of the signal (default `-1`).
        pub fn axis(mut self, axis: isize) -> Self { self.c.axis = axis; self }
    };
}

/// Options of [`welch`](super::welch_with), [`csd`](super::csd_with) and
/// [`coherence`](super::coherence_with), with SciPy's defaults: `fs = 1`, the Hann window,
/// `nperseg = 256` (or the signal's length), `noverlap = nperseg / 2`, `nfft = nperseg`, the
/// mean removed from each segment, one-sided, density scaling, the last axis, the mean of the
/// segments.
///
/// ```
/// use cuprite_array::signal::{Average, Scaling, Window, WelchOpts};
/// let o = WelchOpts::new().fs(100.0).window(Window::Hamming).nperseg(64).average(Average::Median);
/// let o = o.scaling(Scaling::Spectrum).axis(0);
/// # let _ = o;
/// ```
#[derive(Clone, Debug, PartialEq)]
#[must_use]
pub struct WelchOpts {
    pub(crate) c: Common,
    pub(crate) average: Average,
}

impl Default for WelchOpts {
    fn default() -> Self {
        WelchOpts {
            c: Common::new(Window::Hann, Some(Detrend::Constant), Scaling::Density),
            average: Average::Mean,
        }
    }
}

impl WelchOpts {
    /// SciPy's defaults.
    pub fn new() -> Self {
        Self::default()
    }
    /// How the segments are combined.
    pub fn average(mut self, a: Average) -> Self {
        self.average = a;
        self
    }
}
setters!(WelchOpts: fs window nperseg noverlap nfft detrend return_onesided scaling axis);

/// Options of [`periodogram`](super::periodogram_with), with SciPy's defaults: `fs = 1`, the
/// boxcar window, `nfft` the signal's length (a shorter `nfft` truncates the signal, a longer
/// one zero-pads it), the mean removed, one-sided, density scaling, the last axis.
///
/// ```
/// use cuprite_array::signal::{PeriodogramOpts, Window};
/// let o = PeriodogramOpts::new().window(Window::Hann).nfft(512).detrend(None);
/// # let _ = o;
/// ```
#[derive(Clone, Debug, PartialEq)]
#[must_use]
pub struct PeriodogramOpts {
    pub(crate) c: Common,
}

impl Default for PeriodogramOpts {
    fn default() -> Self {
        PeriodogramOpts {
            c: Common::new(Window::Boxcar, Some(Detrend::Constant), Scaling::Density),
        }
    }
}

impl PeriodogramOpts {
    /// SciPy's defaults.
    pub fn new() -> Self {
        Self::default()
    }
}
setters!(PeriodogramOpts: fs window nfft detrend return_onesided scaling axis);

/// Options of [`spectrogram`](super::spectrogram_with), with SciPy's defaults: `fs = 1`, the
/// Tukey window with `α = 0.25`, `nperseg = 256` (or the signal's length), `noverlap =
/// nperseg / 8`, `nfft = nperseg`, the mean removed from each segment, one-sided, density
/// scaling, the last axis, the power of each segment.
///
/// ```
/// use cuprite_array::signal::{SpectrogramMode, SpectrogramOpts};
/// let o = SpectrogramOpts::new().nperseg(128).mode(SpectrogramMode::Magnitude);
/// # let _ = o;
/// ```
#[derive(Clone, Debug, PartialEq)]
#[must_use]
pub struct SpectrogramOpts {
    pub(crate) c: Common,
    pub(crate) mode: SpectrogramMode,
}

impl Default for SpectrogramOpts {
    fn default() -> Self {
        SpectrogramOpts {
            c: Common::new(
                Window::Tukey(0.25),
                Some(Detrend::Constant),
                Scaling::Density,
            ),
            mode: SpectrogramMode::Psd,
        }
    }
}

impl SpectrogramOpts {
    /// SciPy's defaults.
    pub fn new() -> Self {
        Self::default()
    }
    /// What is returned.
    pub fn mode(mut self, m: SpectrogramMode) -> Self {
        self.mode = m;
        self
    }
}
setters!(SpectrogramOpts: fs window nperseg noverlap nfft detrend return_onesided scaling axis);

/// Options of [`stft`](super::stft_with), with SciPy's defaults: `fs = 1`, the Hann window,
/// `nperseg = 256` (or the signal's length), `noverlap = nperseg / 2`, `nfft = nperseg`, no
/// detrending, one-sided, the signal extended by `nperseg / 2` zeros at each end and then
/// zero-padded to a whole number of segments, spectrum scaling (each segment's transform
/// divided by `Σ w`), the last axis.
///
/// ```
/// use cuprite_array::signal::{Extension, StftOpts};
/// let o = StftOpts::new().nperseg(64).noverlap(48).boundary(Extension::Even).padded(false);
/// # let _ = o;
/// ```
#[derive(Clone, Debug, PartialEq)]
#[must_use]
pub struct StftOpts {
    pub(crate) c: Common,
    pub(crate) boundary: Option<Extension>,
    pub(crate) padded: bool,
}

impl Default for StftOpts {
    fn default() -> Self {
        StftOpts {
            c: Common::new(Window::Hann, None, Scaling::Spectrum),
            boundary: Some(Extension::Zeros),
            padded: true,
        }
    }
}

impl StftOpts {
    /// SciPy's defaults.
    pub fn new() -> Self {
        Self::default()
    }
    /// The extension at each end (`None`: none).
    pub fn boundary(mut self, b: impl Into<Option<Extension>>) -> Self {
        self.boundary = b.into();
        self
    }
    /// Whether the signal is zero-padded at its end to a whole number of segments.
    pub fn padded(mut self, p: bool) -> Self {
        self.padded = p;
        self
    }
}
setters!(StftOpts: fs window nperseg noverlap nfft detrend return_onesided scaling axis);

/// Options of [`istft`](super::istft_with), with SciPy's defaults: `fs = 1`, the Hann window,
/// `nperseg` from the number of frequencies (`2 (nfreq - 1)` for a one-sided input),
/// `noverlap = nperseg / 2`, `nfft = nperseg`, a one-sided input, the boundary extension
/// removed, frequencies along axis `-2` and segments along `-1`, spectrum scaling.
///
/// ```
/// use cuprite_array::signal::{IstftOpts, Window};
/// let o = IstftOpts::new().window(Window::Hamming).nperseg(64).noverlap(48);
/// # let _ = o;
/// ```
#[derive(Clone, Debug, PartialEq)]
#[must_use]
pub struct IstftOpts {
    pub(crate) c: Common,
    pub(crate) boundary: bool,
    pub(crate) time_axis: isize,
    pub(crate) freq_axis: isize,
}

impl Default for IstftOpts {
    fn default() -> Self {
        IstftOpts {
            c: Common::new(Window::Hann, None, Scaling::Spectrum),
            boundary: true,
            time_axis: -1,
            freq_axis: -2,
        }
    }
}

impl IstftOpts {
    /// SciPy's defaults.
    pub fn new() -> Self {
        Self::default()
    }
    /// Whether the forward transform extended the signal (its `nperseg / 2` values at each
    /// end are then removed).
    pub fn boundary(mut self, b: bool) -> Self {
        self.boundary = b;
        self
    }
    /// Whether the input holds the non-negative frequencies only (default `true`; otherwise
    /// every frequency, and the result is the inverse transforms' real part).
    pub fn input_onesided(mut self, b: bool) -> Self {
        self.c.onesided = b;
        self
    }
    /// The axis of the segments.
    pub fn time_axis(mut self, a: isize) -> Self {
        self.time_axis = a;
        self
    }
    /// The axis of the frequencies.
    pub fn freq_axis(mut self, a: isize) -> Self {
        self.freq_axis = a;
        self
    }
}
setters!(IstftOpts: fs window nperseg noverlap nfft scaling);
