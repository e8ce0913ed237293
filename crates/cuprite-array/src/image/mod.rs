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
//! - Morphology: structuring elements ([`Structure`], [`generate_binary_structure`],
//!   [`iterate_structure`], [`Footprint`]); grey [`grey_dilation`], [`grey_erosion`],
//!   [`grey_opening`], [`grey_closing`], [`white_tophat`], [`black_tophat`]; binary
//!   [`binary_dilation`], [`binary_erosion`], [`binary_opening`], [`binary_closing`],
//!   [`binary_fill_holes`], [`binary_hit_or_miss`], [`binary_propagation`];
//!   [`morphological_gradient`], [`morphological_laplace`]; [`distance_transform_edt`] (its
//!   own library call an axis);
//!   ArrayFire's [`dilate`], [`erode`], [`dilate3`], [`erode3`]. One min/max library call
//!   (`morphology.cu`) serves the dilations and erosions; a flat box over the last two axes
//!   runs as one tiled kernel (`morphology_box.cu`).
//! - Labels and measurements: [`label`] (union-find on the device, numbered as SciPy numbers),
//!   [`find_objects`], ArrayFire's [`regions`]; per-label [`sum_labels`], [`mean`],
//!   [`variance`], [`standard_deviation`], [`minimum`], [`maximum`], [`center_of_mass`],
//!   [`histogram`], [`labeled_comprehension`] (a function of the caller, on the host),
//!   [`value_indices`], and the order statistics [`median`], [`minimum_position`],
//!   [`maximum_position`], [`extrema`] (two stable sorts); ArrayFire's [`moments`], [`hist_equal`] and [`confidence_cc`] (region
//!   growing on [`label`]).
//! - Fourier-domain filters of a spectrum: [`fourier_gaussian`], [`fourier_uniform`],
//!   [`fourier_shift`] (separable transfer functions multiplied in one fused pass) and
//!   [`fourier_ellipsoid`] (its factor computed on the host).
//! - Colour ([`rgb2gray`], [`gray2rgb`], [`rgb2hsv`], [`hsv2rgb`], [`rgb2ycbcr`],
//!   [`ycbcr2rgb`], [`color_space`]: ArrayFire's conversions) as fused element-wise expressions
//!   on channels-last arrays.
//! - Vision (ArrayFire's family): [`match_template`] (SAD, SSD, NCC, ZNCC and their
//!   zero-mean and scaled forms), corner detectors [`fast`], [`harris`] and [`susan`] returning
//!   [`Features`], [`orb`] (oriented keypoints with 256-bit descriptors) and [`dog`]; descriptor matching ([`hamming_matcher`],
//!   [`nearest_neighbour`]) and robust [`homography`] (RANSAC, LMedS).
//! - Image files (cargo feature `image-files`): `load_image` / `save_image` for PNG, JPEG
//!   and TIFF, 8- and 16-bit, gray, gray and alpha, RGB and RGBA, HWC or CHW arrays.
//! - Filters (SciPy's names, for `u8`, `u16`, `f16`, `f32`, `f64` images, output in the
//!   input's type as SciPy): linear ([`correlate`], [`convolve`], [`correlate1d`],
//!   [`convolve1d`], [`uniform_filter`], [`gaussian_filter`] with derivative orders), edges
//!   ([`sobel`], [`prewitt`], [`laplace`], [`gaussian_laplace`],
//!   [`gaussian_gradient_magnitude`], and with a derivative of the caller's
//!   [`generic_laplace`], [`generic_gradient_magnitude`]) and order statistics ([`median_filter`],
//!   [`rank_filter`], [`percentile_filter`], [`minimum_filter`], [`maximum_filter`]), with
//!   ArrayFire's [`medfilt`], [`minfilt`], [`maxfilt`], [`sobel_operator`], [`gradient`],
//!   [`bilateral`], [`anisotropic_diffusion`], [`canny`] and [`mean_shift`] beside them;
//!   a function of the caller over every window or line, on the host ([`generic_filter`],
//!   [`generic_filter1d`]).
//!   Separable filters of the last two axes run as one kernel with the image tile in shared
//!   memory; the others as one kernel per pass or one n-d kernel.
//! - Geometric transforms: SciPy's [`map_coordinates`], [`geometric_transform`],
//!   [`affine_transform`], [`shift`],
//!   [`zoom`], [`rotate`] with their spline prefilter ([`spline_filter`],
//!   [`spline_filter1d`]); ArrayFire's in [`af`] (`resize`, `transform`, `rotate`,
//!   `translate`, `scale`, `skew`, `transform_coords`); [`sat`], [`unwrap`], [`wrap`].

mod boundary;
mod label;
mod label_call;
mod measure;
mod measure_af;
mod measure_host;
mod measure_order;
mod morphology;
mod morphology_binary;
mod morphology_box;
mod morphology_call;
mod morphology_edt;
mod morphology_more;
mod morphology_structure;

pub use boundary::Boundary;
pub use label::{find_objects, label, label_batch, label_with, regions};
pub use measure::{
    center_of_mass, histogram, maximum, mean, minimum, standard_deviation, sum_labels, variance,
};
pub use measure_af::{Moment, confidence_cc, hist_equal, moments};
pub use measure_host::{ValueIndices, labeled_comprehension, value_indices};
pub use measure_order::{Extrema, extrema, maximum_position, median, minimum_position};
pub use morphology::{
    BinaryElement, Footprint, MorphElement, MorphOpts, black_tophat, black_tophat_with,
    grey_closing, grey_closing_with, grey_dilation, grey_dilation_with, grey_erosion,
    grey_erosion_with, grey_opening, grey_opening_with, white_tophat, white_tophat_with,
};
pub use morphology_binary::{
    BinaryOpts, binary_closing, binary_closing_with, binary_dilation, binary_dilation_with,
    binary_erosion, binary_erosion_with, binary_fill_holes, binary_opening, binary_opening_with,
    dilate, dilate3, erode, erode3,
};
pub use morphology_edt::{EdtOpts, distance_transform_edt, distance_transform_edt_with};
pub use morphology_more::{
    binary_hit_or_miss, binary_propagation, morphological_gradient, morphological_gradient_with,
    morphological_laplace, morphological_laplace_with,
};
pub use morphology_structure::{Structure, generate_binary_structure, iterate_structure};
mod colour;
mod fourier;
#[cfg(feature = "image-files")]
mod io;
mod vision;
mod vision_homography;
mod vision_kernels;
mod vision_matchers;
mod vision_orb;

pub use colour::{
    ColorSpace, GrayOpts, YccOpts, YccStd, color_space, color_space_with, gray2rgb, gray2rgb_with,
    hsv2rgb, rgb2gray, rgb2gray_with, rgb2hsv, rgb2ycbcr, rgb2ycbcr_with, ycbcr2rgb,
    ycbcr2rgb_with,
};
pub use fourier::{fourier_ellipsoid, fourier_gaussian, fourier_shift, fourier_uniform};
#[cfg(feature = "image-files")]
pub use io::{
    ImageFileOpts, ImageLayout, ImageSample, load_image, load_image_with, save_image,
    save_image_with,
};
pub use vision::{
    FastOpts, Features, HarrisOpts, MatchOpts, MatchType, SusanOpts, dog, fast, fast_with, harris,
    harris_with, match_template, match_template_with, susan, susan_with,
};
pub use vision_homography::{HomographyMethod, HomographyOpts, homography, homography_with};
pub use vision_matchers::{
    MatcherOpts, NnDist, hamming_matcher, hamming_matcher_with, nearest_neighbour,
    nearest_neighbour_with,
};
pub use vision_orb::{OrbOpts, orb, orb_with};
mod filters;
mod filters_af;
mod filters_afwindow;
mod filters_bilateral;
mod filters_canny;
mod filters_corr;
mod filters_corr1;
mod filters_diffusion;
mod filters_edges;
mod filters_elem;
mod filters_generic;
mod filters_launch;
mod filters_meanshift;
mod filters_order;
mod filters_plan;
mod filters_rank;
mod filters_sep;
pub(crate) mod filters_strip;

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
    AxisDerivative, gaussian_gradient_magnitude, gaussian_gradient_magnitude_with,
    gaussian_laplace, gaussian_laplace_with, generic_gradient_magnitude, generic_laplace, laplace,
    laplace_with, prewitt, prewitt_with, sobel, sobel_with,
};
pub use filters_elem::ImageElement;
pub use filters_generic::{generic_filter, generic_filter1d};
pub use filters_meanshift::mean_shift;
pub use filters_order::{
    FilterWindow, maximum_filter, maximum_filter_with, maximum_filter1d, maximum_filter1d_with,
    median_filter, median_filter_with, minimum_filter, minimum_filter_with, minimum_filter1d,
    minimum_filter1d_with, percentile_filter, percentile_filter_with, rank_filter,
    rank_filter_with,
};
mod transform;

pub(crate) use transform::af_weights;

pub use transform::{
    AffineOpts, GeometricOpts, InterpOpts, RotateOpts, SplineFilter1dOpts, SplineFilterOpts,
    WrapOpts, ZoomOpts, af, affine_transform, affine_transform_with, geometric_transform,
    geometric_transform_with, map_coordinates, map_coordinates_with, rotate, rotate_with, sat,
    shift, shift_with, spline_filter, spline_filter_with, spline_filter1d, spline_filter1d_with,
    unwrap, unwrap_with, wrap, wrap_with, zoom, zoom_with,
};
