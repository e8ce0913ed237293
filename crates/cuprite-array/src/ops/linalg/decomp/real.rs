//! The element types of the decompositions (`f32`, `f64`) and their conversions to `f64`.

use crate::dtype::Float;

mod sealed {
    pub trait Sealed {}
    impl Sealed for f32 {}
    impl Sealed for f64 {}
}

/// The element types of the decompositions: `f32` and `f64`.
#[cfg(feature = "faer")]
pub trait Real:
    Float
    + bytemuck::Pod
    + cuprite::solver::SolverElement<Real = Self>
    + faer::traits::RealField
    + sealed::Sealed
{
    /// Machine epsilon.
    const EPS: f64;
}
/// The element types of the decompositions: `f32` and `f64`.
#[cfg(not(feature = "faer"))]
pub trait Real:
    Float + bytemuck::Pod + cuprite::solver::SolverElement<Real = Self> + sealed::Sealed
{
    /// Machine epsilon.
    const EPS: f64;
}
impl Real for f32 {
    const EPS: f64 = f32::EPSILON as f64;
}
impl Real for f64 {
    const EPS: f64 = f64::EPSILON;
}
pub(super) fn to_f64<T: Real>(x: T) -> f64 {
    if std::mem::size_of::<T>() == 4 {
        bytemuck::cast::<T, f32>(x) as f64
    } else {
        bytemuck::cast::<T, f64>(x)
    }
}

pub(super) fn from_f64<T: Real>(x: f64) -> T {
    if std::mem::size_of::<T>() == 4 {
        bytemuck::cast::<f32, T>(x as f32)
    } else {
        bytemuck::cast::<f64, T>(x)
    }
}
