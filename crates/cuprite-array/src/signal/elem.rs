//! The element types the signal routines take, and how each is computed: `f32` and `f64` in
//! their own precision, `f16` and `bf16` in `f32` (rounded back once at the end), complex
//! values as their real and imaginary parts.

use crate::array::Array;
use crate::dtype::{DType, Element, Numeric, bf16, c32, c64, f16};
use crate::error::Result;

mod sealed {
    pub trait Sealed {}
}

/// The element types of convolution and filtering: `f16`, `bf16`, `f32`, `f64` and the
/// complex `c32`, `c64`.
pub trait SignalElement: Numeric + sealed::Sealed {}

macro_rules! signal_element {
    ($($t:ty),*) => {$(
        impl sealed::Sealed for $t {}
        impl SignalElement for $t {}
    )*};
}
signal_element!(f16, bf16, f32, f64, c32, c64);

/// A real computation done in `f32` or `f64` (`f64` when [`wide`]).
pub(crate) trait RealFn {
    fn f32(&self, parts: &[Array<f32>]) -> Result<Array<f32>>;
    fn f64(&self, parts: &[Array<f64>]) -> Result<Array<f64>>;
}

/// Whether `d` is computed in `f64`.
pub(crate) fn wide(d: DType) -> bool {
    matches!(d, DType::F64 | DType::C64)
}

/// `f` of real operands `xs`, in the working precision of `T` (`f64` for `f64`/`c64`, else
/// `f32`), cast back to `T`. Complex operands must have been split before.
pub(crate) fn real_apply<T: Element>(xs: &[&Array<T>], f: &dyn RealFn) -> Result<Array<T>> {
    if wide(T::DTYPE) {
        let p: Vec<Array<f64>> = xs.iter().map(|x| x.cast::<f64>()).collect();
        Ok(f.f64(&p)?.cast::<T>())
    } else {
        let p: Vec<Array<f32>> = xs.iter().map(|x| x.cast::<f32>()).collect();
        Ok(f.f32(&p)?.cast::<T>())
    }
}

/// A bilinear real operation `f(x, h)` (a convolution) extended to complex operands: `(xr + i
/// xi) f (hr + i hi)` from four real results. Real operands go through [`real_apply`].
pub(crate) fn bilinear<T: SignalElement>(
    x: &Array<T>,
    h: &Array<T>,
    f: &dyn RealFn,
) -> Result<Array<T>> {
    match T::DTYPE {
        DType::C64 => {
            let (x, h) = (x.cast::<c64>(), h.cast::<c64>());
            let g = |a: &Array<f64>, b: &Array<f64>| f.f64(&[a.clone(), b.clone()]);
            let re = g(&x.real(), &h.real())?.try_sub(&g(&x.imag(), &h.imag())?)?;
            let im = g(&x.real(), &h.imag())?.try_add(&g(&x.imag(), &h.real())?)?;
            Ok(join::<c64, f64>(&re, &im)?.cast::<T>())
        }
        DType::C32 => {
            let (x, h) = (x.cast::<c32>(), h.cast::<c32>());
            let g = |a: &Array<f32>, b: &Array<f32>| f.f32(&[a.clone(), b.clone()]);
            let re = g(&x.real(), &h.real())?.try_sub(&g(&x.imag(), &h.imag())?)?;
            let im = g(&x.real(), &h.imag())?.try_add(&g(&x.imag(), &h.real())?)?;
            Ok(join::<c32, f32>(&re, &im)?.cast::<T>())
        }
        _ => real_apply(&[x, h], f),
    }
}

/// `re + i im`.
fn join<C: Numeric, R: Numeric>(re: &Array<R>, im: &Array<R>) -> Result<Array<C>> {
    let i = C::from_scalar(crate::dtype::Scalar::C64(c64::new(0.0, 1.0)));
    re.cast::<C>().try_add(&im.cast::<C>().try_mul(i)?)
}
