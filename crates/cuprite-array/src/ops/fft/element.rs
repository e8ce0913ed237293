//! The element types the transforms take, and the real and complex types each computes in.

use crate::dtype::{ComplexElement, Float, Numeric, bf16, c32, c64, f16};

mod sealed {
    pub trait Sealed {}
}

/// Element types the transforms take: `f32`, `f64`, [`c32`], [`c64`], and — promoted as NumPy
/// promotes them — the integers (to `f64`/`c64`) and `f16`/`bf16` (to `f32`/`c32`).
///
/// `Real` is the real type a transform computes in, `Complex` its complex type.
///
/// ```
/// use cuprite_array::{Array, Device, FftNorm};
/// use cuprite_array::ops::fft::FftOpts;
/// let x = Array::<i32>::from_slice_on(Device::CPU, &[1, 0, 0, 0], &[4])?;
/// let y = x.fft_with(FftOpts::new().axis(0))?; // Array<c64>
/// assert!(y.to_vec()?.iter().all(|v| (v.re - 1.0).abs() < 1e-15 && v.im == 0.0));
/// # Ok::<(), cuprite_array::Error>(())
/// ```
pub trait FftElement: Numeric + sealed::Sealed {
    /// The real type the transform computes in (`f32` or `f64`).
    type Real: FftElement + Float;
    /// The complex type of its spectrum ([`c32`] or [`c64`]).
    type Complex: FftElement + ComplexElement<Real = Self::Real>;
}

macro_rules! fft_element {
    ($($t:ty => $r:ty, $c:ty;)*) => {$(
        impl sealed::Sealed for $t {}
        impl FftElement for $t {
            type Real = $r;
            type Complex = $c;
        }
    )*};
}

fft_element! {
    f32 => f32, c32;
    f64 => f64, c64;
    c32 => f32, c32;
    c64 => f64, c64;
    f16 => f32, c32;
    bf16 => f32, c32;
    i8 => f64, c64;
    i16 => f64, c64;
    i32 => f64, c64;
    i64 => f64, c64;
    u8 => f64, c64;
    u16 => f64, c64;
    u32 => f64, c64;
    u64 => f64, c64;
}
