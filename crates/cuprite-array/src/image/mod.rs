//! Images and vision (SciPy's `scipy.ndimage`, ArrayFire's image and vision families) on both
//! backends.
//!
//! Every routine takes arrays of any rank: the axes it filters or transforms are the trailing
//! ones it names (two for an image, three for a volume), and leading axes are a batch. Images
//! are stored row-major, height before width, with channels last (HWC) where a routine takes
//! colour.
//!
//! - [`Boundary`]: how values outside an image are taken (SciPy's `mode` and `cval`), shared by
//!   filters, morphology and geometric transforms, with one index mapping in Rust
//!   ([`Boundary::map`]) and its C twin (`boundary.cu`) for kernels.
//! - Geometric transforms: SciPy's [`map_coordinates`], [`geometric_transform`],
//!   [`affine_transform`], [`shift`],
//!   [`zoom`], [`rotate`] with their spline prefilter ([`spline_filter`],
//!   [`spline_filter1d`]); ArrayFire's in [`af`] (`resize`, `transform`, `rotate`,
//!   `translate`, `scale`, `skew`, `transform_coords`); [`sat`], [`unwrap`], [`wrap`].

mod boundary;
mod transform;

pub use boundary::Boundary;
pub use transform::{
    AffineOpts, GeometricOpts, ImageElement, InterpOpts, RotateOpts, SplineFilter1dOpts,
    SplineFilterOpts, WrapOpts, ZoomOpts, af, affine_transform, affine_transform_with,
    geometric_transform, geometric_transform_with, map_coordinates, map_coordinates_with, rotate,
    rotate_with, sat, shift, shift_with, spline_filter, spline_filter_with, spline_filter1d,
    spline_filter1d_with, unwrap, unwrap_with, wrap, wrap_with, zoom, zoom_with,
};
