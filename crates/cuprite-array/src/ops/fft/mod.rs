//! Discrete Fourier transforms of arrays, with NumPy's semantics (`numpy.fft`): `fft`, `ifft`,
//! `rfft`, `irfft` along one axis, their 2-D and N-D forms over chosen axes, the sample
//! frequencies (`fftfreq`, `rfftfreq`) and the spectrum shifts (`fftshift`, `ifftshift`).
//!
//! This module owns the user-facing catalogue: argument checks, the resizing of the input to
//! `n` (zero padding or cropping, as NumPy does), output shapes and dtypes, and normalisation.
//! Each transform is **one library call** (see `graph::LibraryCall`, in `call`): cuFFT
//! on the CUDA backend (`cuda`), `rustfft`/`realfft` on rayon on the CPU backend (`cpu`). The
//! scaling of [`FftNorm`] is an element-wise multiply on the call's lazy output, so it fuses
//! with whatever consumes the spectrum (no extra pass).
//!
//! # Semantics
//!
//! - Forward transforms use the exponent sign −1, inverse ones +1; [`FftNorm`] says which
//!   direction is scaled (NumPy's `norm`).
//! - `n` (or `s` for the multi-axis forms) is the length of each transformed axis *of the
//!   transform*: the input is cropped or padded with zeros along that axis first. For `irfft`
//!   it is the length of the real output (default `2 (m − 1)` for an input of `m` points); the
//!   input then needs `n / 2 + 1` points and is cropped or padded to that.
//! - `rfft` along an axis of `n` points gives `n / 2 + 1`; the real axis of `rfftn`/`irfftn`
//!   is the *last* axis of `axes` (as NumPy), the others are complex transforms.
//! - Element types: `f32`/`c32` compute in single precision, `f64`/`c64` in double. A real
//!   input to `fft`/`ifft`/`fftn` is promoted to the complex type; **integer inputs are promoted
//!   to `f64`** (hence `c64`), and `f16`/`bf16` to `f32`, as NumPy promotes them (see
//!   [`FftElement`]). `rfft` of a complex array is an `Err` (NumPy drops the imaginary part with a warning);
//!   `irfft` of a real array takes it as complex with zero imaginary parts, as NumPy does.
//! - `irfft` ignores the imaginary parts of the zero-frequency point and (for even `n`) of
//!   the Nyquist point, as NumPy does, on both backends. `irfftn`/`irfft2` of a spectrum that
//!   is not the half spectrum of real data (not Hermitian along the complex axes) may differ
//!   between backends: the CPU backend follows NumPy (those parts ignored after the complex
//!   inverse transforms), the CUDA backend follows cuFFT's multi-dimensional complex-to-real
//!   transform. The half spectra of real data give the same result on both.
//! - Bad input is an `Err` naming the values: an axis out of range or given twice, `n = 0`, an
//!   axis of length 0 without `n`, `s` and `axes` of different lengths. An array that is empty
//!   along a non-transformed axis gives an empty result.
//!
//! ```
//! use cuprite_array::{Array, Device, FftNorm, c64};
//! let x = Array::<f64>::from_slice_on(Device::CPU, &[1.0, 2.0, 3.0, 4.0], &[4])?;
//! let y = x.fft()?;
//! let v = y.to_vec()?;
//! assert!((v[0] - c64::new(10.0, 0.0)).norm() < 1e-12);
//! assert!((v[1] - c64::new(-2.0, 2.0)).norm() < 1e-12);
//! let back = y.ifft()?.real().to_vec()?;
//! assert!((back[3] - 4.0).abs() < 1e-12);
//! # Ok::<(), cuprite_array::Error>(())
//! ```

mod build;
mod call;
mod cpu;
mod cuda;
mod desc;
mod element;
mod freq;
mod hermitian;
mod norm;
mod options;
mod shift;
mod transforms;

#[cfg(feature = "capture")]
pub(crate) use cuda::GraphPlans;
pub use cuda::plan_cache_stats;
pub use element::FftElement;
pub use norm::FftNorm;
pub use options::{FftOpts, FftnOpts};
