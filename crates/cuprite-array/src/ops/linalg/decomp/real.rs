//! The element types of the decompositions: [`Scalar`] (`f32`, `f64`, `c32`, `c64`) and its
//! real subset [`Real`] (`f32`, `f64`, the type of singular values and of the eigenvalues of a
//! Hermitian matrix), with their conversions through `f64` and `Complex<f64>`.

use crate::array::Array;
use crate::dtype::{Element, Float, c32, c64};
use num_complex::Complex;

/// The four element types, closed to other crates. The CPU backend's library bounds (faer's
/// field traits, with the `faer` feature) are supertraits of these private traits, so that the
/// public traits below read the same with and without the feature.
mod sealed {
    #[cfg(feature = "faer")]
    pub trait Sealed: faer::traits::ComplexField {}
    #[cfg(not(feature = "faer"))]
    pub trait Sealed {}
    #[cfg(feature = "faer")]
    pub trait SealedReal: Sealed + faer::traits::RealField {}
    #[cfg(not(feature = "faer"))]
    pub trait SealedReal: Sealed {}
    impl Sealed for f32 {}
    impl Sealed for f64 {}
    impl Sealed for super::c32 {}
    impl Sealed for super::c64 {}
    impl SealedReal for f32 {}
    impl SealedReal for f64 {}
}

/// The real type that goes with a decomposition element: `f32` for `f32` and `c32`, `f64` for
/// `f64` and `c64` (the type of [`svd`](super::svd)'s singular values and of
/// [`eigh`](super::eigh)'s eigenvalues).
pub type RealOf<T> = <T as cuprite_driver::blas::Element>::Real;

/// The real type of a decomposition element (`f32`, `f64`): what [`RealOf`] is.
pub trait RealPart:
    Float + bytemuck::Pod + cuprite_driver::solver::SolverElement<Real = Self> + sealed::SealedReal
{
}
impl RealPart for f32 {}
impl RealPart for f64 {}

/// The real element types of the decompositions: `f32` and `f64` ([`Scalar`]s whose
/// determinant is an `f64`).
pub trait Real: Scalar<Wide = f64> + RealPart {}
impl Real for f32 {}
impl Real for f64 {}

/// What a decomposition element needs besides the library bounds: conversions through
/// `Complex<f64>`, and the array operations that differ between real and complex matrices.
pub trait ScalarOps: Element + Sized {
    /// Machine epsilon of the real part.
    const EPS: f64;
    /// The type of [`det`](super::det) and of [`slogdet`](super::slogdet)'s sign: `f64` for
    /// real matrices, [`c64`] for complex ones (NumPy's rule: the sign of a complex
    /// determinant is a complex number of modulus 1).
    type Wide: Copy + PartialEq + std::fmt::Debug + Send + Sync + 'static;
    /// The value as a complex `f64`.
    fn to_c64(self) -> Complex<f64>;
    /// The element nearest `z` (the imaginary part dropped for real types).
    fn from_c64(z: Complex<f64>) -> Self;
    /// `z` as [`Self::Wide`] (the imaginary part dropped for real types).
    fn wide(z: Complex<f64>) -> Self::Wide;
    /// The complex conjugate of every element (the array itself for real types).
    fn conj_array(a: &Array<Self>) -> Array<Self>;
    /// `|x|` of every element, in `f64`.
    fn abs_f64(a: &Array<Self>) -> Array<f64>;
    /// The complex type of the same precision ([`c32`] for `f32` and `c32`, [`c64`] for `f64`
    /// and `c64`): the type of [`eig`](super::eig)'s eigenvalues and eigenvectors.
    type Cplx: Scalar + crate::dtype::ComplexElement;
}

/// The element types of the decompositions: `f32`, `f64`, [`c32`] and [`c64`]. Complex
/// matrices follow NumPy: `cholesky` gives `L` with `a = L·Lᴴ`, `svd` gives `Vᴴ`, `eigh` reads a
/// Hermitian matrix and returns real eigenvalues, `qr`'s `Q` has orthonormal columns under the
/// Hermitian product.
///
/// ```
/// use cuprite_array::{Array, Device, c64, linalg};
/// let z = |re, im| c64::new(re, im);
/// let a = Array::from_slice_on(Device::CPU, &[z(2.0, 0.0), z(0.0, 1.0), z(0.0, -1.0), z(2.0, 0.0)], &[2, 2])?;
/// let (w, _v) = linalg::eigh(&a)?; // Hermitian: real eigenvalues 1 and 3
/// let w: Vec<f64> = w.to_vec()?;
/// assert!((w[0] - 1.0).abs() < 1e-12 && (w[1] - 3.0).abs() < 1e-12);
/// assert!((linalg::det(&a)? - z(3.0, 0.0)).norm() < 1e-12);
/// # Ok::<(), cuprite_array::Error>(())
/// ```
pub trait Scalar:
    ScalarOps
    + bytemuck::Pod
    + crate::dtype::Numeric
    + cuprite_driver::solver::SolverElement<Real: RealPart>
    + sealed::Sealed
{
}

macro_rules! real_scalar {
    ($($t:ty, $c:ty);*) => {$(
        impl ScalarOps for $t {
            const EPS: f64 = <$t>::EPSILON as f64;
            type Wide = f64;
            type Cplx = $c;
            fn to_c64(self) -> Complex<f64> {
                Complex::new(self as f64, 0.0)
            }
            fn from_c64(z: Complex<f64>) -> Self {
                z.re as $t
            }
            fn wide(z: Complex<f64>) -> f64 {
                z.re
            }
            fn conj_array(a: &Array<Self>) -> Array<Self> {
                a.clone()
            }
            fn abs_f64(a: &Array<Self>) -> Array<f64> {
                a.cast::<f64>().abs()
            }
        }
        impl Scalar for $t {}
    )*};
}
real_scalar!(f32, c32; f64, c64);

macro_rules! complex_scalar {
    ($($t:ty, $r:ty);*) => {$(
        impl ScalarOps for $t {
            const EPS: f64 = <$r>::EPSILON as f64;
            type Wide = c64;
            type Cplx = $t;
            fn to_c64(self) -> Complex<f64> {
                Complex::new(self.re as f64, self.im as f64)
            }
            fn from_c64(z: Complex<f64>) -> Self {
                Complex::new(z.re as $r, z.im as $r)
            }
            fn wide(z: Complex<f64>) -> c64 {
                z
            }
            fn conj_array(a: &Array<Self>) -> Array<Self> {
                a.conj()
            }
            fn abs_f64(a: &Array<Self>) -> Array<f64> {
                a.cast::<c64>().norm()
            }
        }
        impl Scalar for $t {}
    )*};
}
complex_scalar!(c32, f32; c64, f64);

pub(super) fn to_f64<T: RealPart>(x: T) -> f64 {
    if std::mem::size_of::<T>() == 4 {
        bytemuck::cast::<T, f32>(x) as f64
    } else {
        bytemuck::cast::<T, f64>(x)
    }
}

pub(super) fn from_f64<T: RealPart>(x: f64) -> T {
    if std::mem::size_of::<T>() == 4 {
        bytemuck::cast::<f32, T>(x as f32)
    } else {
        bytemuck::cast::<f64, T>(x)
    }
}

/// The real array `s` as an array of `T` (imaginary parts zero).
pub(super) fn widen<T: Scalar>(s: &Array<RealOf<T>>) -> Array<T> {
    s.cast::<T>()
}

/// The real parts of `a` (an array of real values held as `T`).
pub(super) fn narrow<T: Scalar>(a: &Array<T>) -> Array<RealOf<T>> {
    a.cast::<RealOf<T>>()
}
