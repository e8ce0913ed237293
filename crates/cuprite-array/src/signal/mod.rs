//! Signal processing (SciPy's `scipy.signal`, ArrayFire's signal family) on both backends.
//!
//! - Convolution and correlation over one to three axes of N-d arrays, batched over the
//!   others, in SciPy's modes, by a direct kernel, FFTs or overlap-add ([`convolve`],
//!   [`correlate`], [`fftconvolve`], [`oaconvolve`], [`convolve_axes`], ArrayFire's
//!   [`convolve1`], [`convolve2`], [`convolve3`], [`convolve2_sep`], [`fir`]); SciPy's 2-D
//!   [`convolve2d`] and [`correlate2d`] with their boundaries ([`ConvBoundary`]),
//!   [`correlation_lags`], [`choose_conv_method`], [`sepfir2d`], [`order_filter`].
//! - Linear filters: [`lfilter`] (IIR, with initial conditions; on CUDA a blocked parallel scan
//!   of the filter's state recurrence), [`lfilter_zi`], [`filtfilt`] and [`filtfilt_with`]
//!   (SciPy's `padtype`), [`sosfilt`], [`sosfiltfilt`], [`sosfiltfilt_with`], [`sosfilt_zi`],
//!   [`lfiltic`], [`deconvolve`]; the symmetric IIR
//!   filters [`symiirorder1`], [`symiirorder2`] and the B-splines built on them
//!   ([`cspline1d`], [`qspline1d`], [`cspline2d`], [`qspline2d`], [`cspline1d_eval`],
//!   [`qspline1d_eval`], [`spline_filter`], [`gauss_spline`]); IIR design [`butter`], [`cheby1`], [`cheby2`], [`ellip`], [`bessel`]
//!   (low-pass, high-pass, band-pass and band-stop, as `(b, a)` or second-order sections:
//!   [`butter_sos`], [`cheby1_sos`], [`cheby2_sos`], [`ellip_sos`], [`bessel_sos`]), order
//!   selection ([`buttord`], [`cheb1ord`], [`cheb2ord`], [`ellipord`]) and the notch and peak
//!   filters [`iirnotch`], [`iirpeak`]; FIR design by the window method ([`firwin`],
//!   [`firwin_bands`] for high-pass, band-pass, band-stop and several bands, and Kaiser's
//!   formulas [`kaiserord`], [`kaiser_beta`], [`kaiser_atten`]), by frequency sampling
//!   ([`firwin2`], [`firwin2_with`]), by least squares
//!   ([`firls`]) and equiripple ([`remez`], [`remez_with`]); responses on the host:
//!   [`freqz`], [`sosfreqz`], [`group_delay`]; analog designs of every family
//!   ([`iir_analog`]) and their responses ([`freqs`]); conversions between a filter's forms
//!   ([`tf2zpk`], [`zpk2tf`], [`sos2tf`], [`sos2zpk`], [`normalize`], [`zpk2sos`] and
//!   [`tf2sos`] with SciPy's [`SosPairing`]); the analog prototypes ([`buttap`], [`cheb1ap`],
//!   [`cheb2ap`], [`ellipap`], [`besselap`]) and the transforms ([`lp2lp`], [`lp2hp`],
//!   [`lp2bp`], [`lp2bs`], [`bilinear`] and their `_zpk` forms); linear systems in
//!   state-space form ([`StateSpace`], [`tf2ss`], [`ss2tf`], [`zpk2ss`], [`ss2zpk`],
//!   [`abcd_normalize`]), their discretisation ([`cont2discrete`], [`cont2discrete_tf`],
//!   [`Discretization`]) and pole placement ([`place_poles`], [`place_poles_with`]);
//!   partial fractions ([`residue`], [`residuez`], [`invres`], [`invresz`],
//!   [`unique_roots`]); zero-pole responses ([`freqs_zpk`], [`freqz_zpk`], [`findfreqs`],
//!   [`findfreqs_zpk`]); comb and gammatone filters ([`iircomb`], [`gammatone`]);
//!   minimum-phase FIR filters ([`minimum_phase`]); responses of linear systems ([`lsim`],
//!   [`impulse`], [`step`], [`freqresp`], [`bode`], [`dlsim`], [`dimpulse`], [`dstep`],
//!   [`dfreqresp`], [`dbode`]); a system as one value, continuous or discrete, in any of
//!   the three forms ([`Lti`], [`SystemForm`], [`TransferFunction`]: SciPy's `lti` and
//!   `dlti`); the general designers [`iirfilter`] (any family, digital or analog) and
//!   [`iirdesign`] (least order for a specification, [`IirDesignType`]), and the band-stop
//!   order objective [`band_stop_obj`]; [`freqz_sos`] (SciPy's newer name of `sosfreqz`);
//!   SciPy's `BadCoefficients` warning as a value ([`bad_coefficients`], [`BadCoefficients`]).
//! - Waveforms: [`sawtooth`], [`square`], [`chirp`], [`sweep_poly`], [`gausspulse`],
//!   [`unit_impulse`], [`max_len_seq`]; wavelets [`ricker`], [`morlet`], [`morlet2`],
//!   [`qmf`] and the continuous wavelet transform [`cwt`].
//! - Peak finding on the host: [`find_peaks`], [`peak_prominences`], [`peak_widths`];
//!   relative extrema on the device: [`argrelmin`], [`argrelmax`], [`argrelextrema`].
//! - [`get_window`], [`general_cosine`], the Slepian windows [`dpss`] ([`dpss_with`],
//!   [`dpss_ratios`]), [`detrend`], [`detrend_breakpoints`], [`hilbert`], [`hilbert2`];
//!   Savitzky-Golay smoothing and differentiation ([`savgol_coeffs`], [`savgol_filter`]:
//!   SciPy's `interp` edges or a boundary).
//! - ArrayFire's interpolation [`approx1`], [`approx2`] and their uniform-grid forms
//!   [`approx1_uniform`], [`approx2_uniform`] (nearest, lower, linear, cosine, cubic and
//!   cubic-spline, batched over the other axes, `f32`/`f64` and complex values; one kernel
//!   whose weights are the geometric transforms' ArrayFire weights). NumPy's `interp` is
//!   [`crate::ops::interp`].
//! - Spectral analysis with SciPy's defaults, one options struct per call: [`periodogram`],
//!   [`welch`], [`csd`], [`coherence`], [`spectrogram`], [`stft`], [`istft`] (segments cut by
//!   a strided view, detrended, windowed and transformed by the FFT, batched over the other
//!   axes; frequencies and times returned as host `Vec<f64>`), [`check_cola`],
//!   [`check_nola`]; the chirp z-transform ([`czt`], [`zoom_fft`], [`czt_points`], and
//!   [`Czt`] fixed for a size, SciPy's `CZT` and `ZoomFFT`); the
//!   Lomb-Scargle periodogram of uneven samples ([`lombscargle`], [`lombscargle_with`],
//!   [`lombscargle_amplitude`]) and the [`vectorstrength`] of event times.
//! - Resampling: [`resample`] (Fourier; [`resample_with`] with a spectral window), [`upfirdn`] (and [`upfirdn_with`], SciPy's extension
//!   modes [`UpfirdnMode`]), [`resample_poly`] (polyphase, filters
//!   designed by [`firwin`] with the Kaiser window `β = 5`), [`decimate`] (SciPy's default
//!   Chebyshev I IIR filter, or its FIR form).
//! - SciPy's [`medfilt`], [`medfilt2d`] (zeros beyond the edges) and [`wiener`].
//! - The neural-network convolution and pooling (PyTorch's): [`conv1d`], [`conv2d`],
//!   [`conv3d`] and their `_with` forms ([`ConvOpts`]: stride, padding, dilation, groups,
//!   channels first or last, a fused bias and ReLU), the gradients [`conv_backward_input`],
//!   [`conv_backward_weight`], [`conv_backward_bias`] (2-d names [`conv2d_backward_input`],
//!   [`conv2d_backward_weight`]), [`max_pool2d`], [`avg_pool2d`] ([`PoolOpts`]) and their
//!   gradients, and ArrayFire's [`convolve2_nn`], [`convolve2_gradient_nn`]. On CUDA the
//!   convolution is lowered to patches multiplied by cuBLASLt (see the `nn` module's notes).
//!
//! Element types: `f32` and `f64` in their own precision; `f16` and `bf16` computed in `f32`;
//! complex `c32`/`c64` convolved as their real and imaginary parts.
//!
//! # Methods
//!
//! - [`ConvMethod::Direct`]: every output summed over every tap in one kernel, in the data's
//!   precision: planes convolved over two axes with a kernel of at most 16 x 16 taps by
//!   `tiled.cu` (a 2-D input tile and its halo staged once in shared memory, a block of
//!   outputs in each thread's registers), everything else by `direct.cu` (one output line a
//!   tile, the signal and the taps staged in shared memory). Both sum in the CPU twin's
//!   order. Exact products, rounding `O(m ε Σ|x h|)`.
//! - [`ConvMethod::Fft`]: real FFTs of both operands over the convolved axes, zero-padded to
//!   smooth lengths (`2^a 3^b 5^c 7^d`, at least `n + m - 1`), multiplied and transformed back.
//!   Rounding `O(ε log(N) Σ|x| Σ|h|)` spread over every output, so small outputs next to large
//!   ones carry the large ones' absolute error.
//! - [`ConvMethod::OverlapAdd`]: the signal cut into blocks of `L = nfft - m + 1` values along
//!   the kernel's axis, each block convolved by FFTs of `nfft` points (the power of two at
//!   least `4 m`), and the block results added where they overlap: the FFT method's rounding
//!   on transforms of `nfft` points instead of the whole signal. Taken along the one axis where the kernel is
//!   longer than 1; a kernel extended along several axes goes through [`ConvMethod::Fft`].
//! - [`ConvMethod::Auto`]: direct when the kernel has at most [`DIRECT_TAPS`] taps; else
//!   overlap-add when the kernel lies along one axis and the signal there is at least 8 times
//!   longer; else FFT.
//!
//! The methods agree within the FFT's bound above (the tests check `1e-10 Σ|x| max|h|` in `f64`
//! and `1e-5 Σ|x| max|h|` in `f32`). Integers are not taken (SciPy sums them exactly).

mod approx;
mod approx_call;
mod argrel;
mod bounded;
mod bspline;
mod cola;
mod conv;
mod czt;
mod design;
mod direct;
mod dpss;
mod elem;
mod filters;
mod frames;
mod geom;
mod gust;
mod iir;
mod istft;
mod lomb;
mod nd_filters;
pub(crate) mod nn;
mod paths;
mod peaks;
mod psd;
mod psd_opts;
mod resample;
mod savgol;
mod spectral;
mod symiir;
mod upfirdn_modes;
mod waveforms;
mod wavelets;
mod windows;

pub use crate::ops::ConvMode;
pub use approx::{ApproxGrid, ApproxMethod, approx1, approx1_uniform, approx2, approx2_uniform};
pub use argrel::{Comparator, EdgeMode, argrelextrema, argrelmax, argrelmin};
pub use bounded::{ConvBoundary, convolve2d, correlate2d};
pub use bspline::{
    cspline1d, cspline1d_eval, cspline2d, gauss_spline, qspline1d, qspline1d_eval, qspline2d,
    sepfir2d, spline_filter,
};
pub use cola::{check_cola, check_nola};
pub use conv::{
    choose_conv_method, convolve, convolve_axes, convolve1, convolve2, convolve2_sep, convolve3,
    correlate, correlate_axes, correlation_lags, fftconvolve, fir, oaconvolve,
};
pub use czt::{CZT_MAX_POINTS, Czt, czt, czt_points, zoom_fft};
pub use design::{
    BadCoefficients, IirDesignType, LTI_DEFAULT_POINTS, Lti, MatrixIn, PlacePolesOpts, PlacedPoles,
    PoleMethod, SystemForm, TransferFunction, abcd_normalize, bad_coefficients, band_stop_obj,
    freqz_sos, iirdesign, iirfilter, place_poles, place_poles_with,
};
pub use design::{
    BandType, BesselNorm, Cutoff, FIRLS_MAX_TAPS, FIRWIN_MAX_CUTOFFS, FIRWIN_MAX_TAPS,
    FIRWIN2_MAX_TAPS, FilterOrder, Firwin2Opts, IIR_MAX_ORDER, IirFamily, LTI_MAX_ORDER,
    REMEZ_MAX_TAPS, RESPONSE_MAX_POINTS, RemezKind, RemezOpts, ZerosPolesGain, bessel, bessel_sos,
    butter, butter_sos, buttord, cheb1ord, cheb2ord, cheby1, cheby1_sos, cheby2, cheby2_sos, ellip,
    ellip_sos, ellipord, firls, firwin, firwin_bands, firwin2, firwin2_with, freqs, freqz,
    group_delay, iir_analog, iirnotch, iirpeak, kaiser_atten, kaiser_beta, kaiserord, remez,
    remez_with, sos2tf, sos2zpk, sosfreqz, tf2zpk, zpk2tf,
};
pub use design::{
    COMB_MAX_ORDER, CombType, Discretization, GammatoneType, MinPhaseMethod, PartialFractions,
    RootType, SosPairing, StateSpace, besselap, bilinear, bilinear_zpk, buttap, cheb1ap, cheb2ap,
    cont2discrete, cont2discrete_tf, ellipap, findfreqs, findfreqs_zpk, freqs_zpk, freqz_zpk,
    gammatone, iircomb, invres, invresz, lp2bp, lp2bp_zpk, lp2bs, lp2bs_zpk, lp2hp, lp2hp_zpk,
    lp2lp, lp2lp_zpk, minimum_phase, normalize, residue, residuez, ss2tf, ss2zpk, tf2sos, tf2ss,
    unique_roots, zpk2sos, zpk2ss,
};
pub use design::{
    Response, SIM_MAX_STEPS, bode, dbode, dfreqresp, dimpulse, dlsim, dstep, freqresp, impulse,
    lsim, step,
};
pub use dpss::{DpssNorm, DpssOpts, dpss, dpss_ratios, dpss_with};
pub use elem::SignalElement;
pub use filters::{
    FiltfiltMethod, FiltfiltOpts, deconvolve, filtfilt, filtfilt_with, lfilter, lfilter_complex,
    lfilter_zi, lfiltic, sosfilt, sosfilt_zi, sosfiltfilt, sosfiltfilt_with,
};
pub use frames::{Extension, WindowSpec};
pub use istft::{istft, istft_with};
pub use lomb::{
    LombNorm, LombOpts, StrengthPhase, lombscargle, lombscargle_amplitude, lombscargle_with,
    vectorstrength,
};
pub use nd_filters::{medfilt, medfilt2d, order_filter, wiener};
pub use nn::{
    Conv1dOpts, Conv2dOpts, Conv3dOpts, ConvActivation, ConvGradient, ConvLayout, ConvOpts,
    Padding, PerAxis, Pool2dOpts, PoolOpts, avg_pool2d, avg_pool2d_backward, avg_pool2d_with,
    conv_backward_bias, conv_backward_input, conv_backward_weight, conv_workspace_bytes, conv1d,
    conv1d_with, conv2d, conv2d_backward_input, conv2d_backward_weight, conv2d_with, conv3d,
    conv3d_with, convolve2_gradient_nn, convolve2_nn, max_pool2d, max_pool2d_backward,
    max_pool2d_with, set_conv_workspace_bytes,
};
pub use paths::{ConvMethod, DIRECT_TAPS};
pub use peaks::{PeakOpts, Peaks, find_peaks, peak_prominences, peak_widths};
pub use psd::{
    TimeFrequency, coherence, coherence_with, csd, csd_with, periodogram, periodogram_with,
    spectrogram, spectrogram_with, stft, stft_with, welch, welch_with,
};
pub use psd_opts::{
    Average, IstftOpts, PeriodogramOpts, Scaling, SpectrogramMode, SpectrogramOpts, StftOpts,
    WelchOpts,
};
pub use resample::{
    DecimateFilter, DecimateOpts, PolyPad, ResampleOpts, ResamplePolyOpts, UpfirdnOpts, decimate,
    decimate_with, resample, resample_poly, resample_poly_with, resample_with, upfirdn,
    upfirdn_with,
};
pub use savgol::{SAVGOL_MAX_WINDOW, SavgolEdges, SavgolOpts, savgol_coeffs, savgol_filter};
pub use spectral::{Detrend, detrend, detrend_breakpoints, hilbert, hilbert2};
pub use symiir::{symiirorder1, symiirorder2};
pub use upfirdn_modes::UpfirdnMode;
pub use waveforms::{
    ChirpMethod, MLS_MAX_LENGTH, chirp, gausspulse, max_len_seq, sawtooth, square, sweep_poly,
    unit_impulse,
};
pub use wavelets::{WAVELET_MAX_POINTS, cwt, morlet, morlet2, qmf, ricker};
pub use windows::{Window, general_cosine, get_window};
