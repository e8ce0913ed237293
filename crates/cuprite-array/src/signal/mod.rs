//! Signal processing (SciPy's `scipy.signal`, ArrayFire's signal family) on both backends.
//!
//! - Convolution and correlation over one to three axes of N-d arrays, batched over the
//!   others, in SciPy's modes, by a direct kernel, FFTs or overlap-add ([`convolve`],
//!   [`correlate`], [`fftconvolve`], [`oaconvolve`], [`convolve_axes`], ArrayFire's
//!   [`convolve1`], [`convolve2`], [`convolve3`], [`convolve2_sep`], [`fir`]).
//! - Linear filters: [`lfilter`] (IIR, with initial conditions; on CUDA a blocked parallel scan
//!   of the filter's state recurrence), [`lfilter_zi`], [`filtfilt`], [`sosfilt`].
//! - [`get_window`], [`detrend`], [`hilbert`].
//!
//! Element types: `f32` and `f64` in their own precision; `f16` and `bf16` computed in `f32`;
//! complex `c32`/`c64` convolved as their real and imaginary parts.

mod conv;
mod direct;
mod elem;
mod filters;
mod geom;
mod iir;
mod spectral;
mod windows;

pub use crate::ops::ConvMode;
pub use conv::{
    ConvMethod, DIRECT_TAPS, convolve, convolve_axes, convolve1, convolve2, convolve2_sep,
    convolve3, correlate, correlate_axes, fftconvolve, fir, oaconvolve,
};
pub use elem::SignalElement;
pub use filters::{filtfilt, lfilter, lfilter_zi, sosfilt};
pub use spectral::{Detrend, detrend, hilbert};
pub use windows::{Window, get_window};
