//! Geometric transforms: SciPy's spline interpolation family (`spline_filter`,
//! `spline_filter1d`, `map_coordinates`, `geometric_transform`, `affine_transform`, `shift`,
//! `zoom`, `rotate`),
//! ArrayFire's ([`af`]: `resize`, `transform`, `rotate`, `translate`, `scale`, `skew`,
//! `transform_coords`), and ArrayFire's `sat`, `unwrap` and `wrap`.
//!
//! Every interpolating routine is one resampler (`sample.cu` and its CPU twin): the output's
//! points map to input coordinates (an affine or projective map, or a coordinates array), and
//! the value there is interpolated over the transformed trailing axes (1 to 3) of each image
//! of the batch. SciPy's orders above 1 first filter the input into B-spline coefficients
//! (`spline.cu`), with SciPy's boundary rules and its pre-padding by 12 cells for the
//! `nearest` and `grid-constant` modes.
//!
//! Element types: `u8`, `u16`, `f16`, `f32`, `f64` ([`ImageElement`](super::ImageElement)); `f64` is computed in
//! `f64`, the others in `f32` (SciPy computes in `f64`), with coordinates in `f64`. Integer
//! outputs are stored as SciPy stores them: rounded half up, negative values and NaN to 0,
//! values past the type's maximum to the maximum.

pub mod af;
pub(crate) mod af_weights;
mod elem;
mod opts;
mod patches;
mod sample;
mod scipy;
mod spline;

pub use opts::{
    AffineOpts, GeometricOpts, InterpOpts, RotateOpts, SplineFilter1dOpts, SplineFilterOpts,
    ZoomOpts,
};
pub use patches::{WrapOpts, sat, unwrap, unwrap_with, wrap, wrap_with};
pub use scipy::{
    affine_transform, affine_transform_with, geometric_transform, geometric_transform_with,
    map_coordinates, map_coordinates_with, rotate, rotate_with, shift, shift_with, spline_filter,
    spline_filter_with, spline_filter1d, spline_filter1d_with, zoom, zoom_with,
};
