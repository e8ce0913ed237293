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
//! - Filters (SciPy's names, for `u8`, `u16`, `f16`, `f32`, `f64` images, output in the
//!   input's type as SciPy): linear ([`correlate`], [`convolve`], [`correlate1d`],
//!   [`convolve1d`], [`uniform_filter`], [`gaussian_filter`] with derivative orders), edges
//!   ([`sobel`], [`prewitt`], [`laplace`], [`gaussian_laplace`],
//!   [`gaussian_gradient_magnitude`]) and order statistics ([`median_filter`],
//!   [`rank_filter`], [`percentile_filter`], [`minimum_filter`], [`maximum_filter`]), with
//!   ArrayFire's [`medfilt`], [`minfilt`], [`maxfilt`], [`sobel_operator`], [`gradient`],
//!   [`bilateral`], [`anisotropic_diffusion`], [`canny`] and [`mean_shift`] beside them.
//!   Separable filters of the last two axes run as one kernel with the image tile in shared
//!   memory; the others as one kernel per pass or one n-d kernel.

mod boundary;
mod filters;
mod filters_af;
mod filters_bilateral;
mod filters_canny;
mod filters_corr;
mod filters_diffusion;
mod filters_edges;
mod filters_elem;
mod filters_meanshift;
mod filters_order;
mod filters_plan;
mod filters_rank;
mod filters_sep;

pub use boundary::Boundary;
pub use filters::{
    FilterOpts, GaussianOpts, convolve, convolve_with, convolve1d, convolve1d_with, correlate,
    correlate_with, correlate1d, correlate1d_with, gaussian_filter, gaussian_filter_with,
    gaussian_filter1d, gaussian_filter1d_with, uniform_filter, uniform_filter_with,
    uniform_filter1d, uniform_filter1d_with,
};
pub use filters_af::{Pad, gradient, maxfilt, medfilt, minfilt, sobel_operator};
pub use filters_bilateral::bilateral;
pub use filters_canny::canny;
pub use filters_diffusion::{Flux, anisotropic_diffusion};
pub use filters_edges::{
    gaussian_gradient_magnitude, gaussian_gradient_magnitude_with, gaussian_laplace,
    gaussian_laplace_with, laplace, laplace_with, prewitt, prewitt_with, sobel, sobel_with,
};
pub use filters_elem::ImageElement;
pub use filters_meanshift::mean_shift;
pub use filters_order::{
    Footprint, maximum_filter, maximum_filter_with, maximum_filter1d, maximum_filter1d_with,
    median_filter, median_filter_with, minimum_filter, minimum_filter_with, minimum_filter1d,
    minimum_filter1d_with, percentile_filter, percentile_filter_with, rank_filter,
    rank_filter_with,
};
