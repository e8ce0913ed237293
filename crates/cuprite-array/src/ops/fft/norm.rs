//! How a transform pair is scaled ([`FftNorm`], NumPy's `norm`).

/// How a transform pair is scaled (NumPy's `norm`). `n` is the number of points of the
/// transform (the product of the logical lengths over its axes).
///
/// ```
/// use cuprite_array::{Array, Device, FftNorm};
/// use cuprite_array::ops::fft::FftOpts;
/// let x = Array::<f32>::from_slice_on(Device::CPU, &[1.0; 4], &[4])?;
/// let dc = |norm| -> cuprite_array::Result<f32> { Ok(x.fft_with(FftOpts::new().axis(0).norm(norm))?.to_vec()?[0].re) };
/// assert_eq!(dc(FftNorm::Backward)?, 4.0); // unscaled forward
/// assert_eq!(dc(FftNorm::Ortho)?, 2.0);    // 1/sqrt(4)
/// assert_eq!(dc(FftNorm::Forward)?, 1.0);  // 1/4
/// # Ok::<(), cuprite_array::Error>(())
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum FftNorm {
    /// The forward transform is unscaled, the inverse scaled by `1/n` (NumPy's default).
    #[default]
    Backward,
    /// Both scaled by `1/sqrt(n)` (the transforms are unitary).
    Ortho,
    /// The forward transform is scaled by `1/n`, the inverse unscaled.
    Forward,
}

impl FftNorm {
    /// The factor applied to the output of a transform of `points` points.
    pub(super) fn factor(self, points: usize, inverse: bool) -> Option<f64> {
        let n = points as f64;
        match (self, inverse) {
            (FftNorm::Backward, false) | (FftNorm::Forward, true) => None,
            (FftNorm::Ortho, _) => Some(1.0 / n.sqrt()),
            (FftNorm::Backward, true) | (FftNorm::Forward, false) => Some(1.0 / n),
        }
    }
}
