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
//! - Colour ([`rgb2gray`], [`gray2rgb`], [`rgb2hsv`], [`hsv2rgb`], [`rgb2ycbcr`],
//!   [`ycbcr2rgb`], [`color_space`]: ArrayFire's conversions) as fused element-wise expressions
//!   on channels-last arrays.
//! - Vision (ArrayFire's family): [`match_template`] (SAD, SSD, NCC, ZNCC and their
//!   zero-mean and scaled forms), corner detectors [`fast`], [`harris`] and [`susan`] returning
//!   [`Features`], [`orb`] (oriented keypoints with 256-bit descriptors) and [`dog`]; descriptor matching ([`hamming_matcher`],
//!   [`nearest_neighbour`]) and robust [`homography`] (RANSAC, LMedS).
//! - Image files (cargo feature `image-files`): [`load_image`] / [`save_image`] for PNG, JPEG
//!   and TIFF, 8- and 16-bit, gray, gray and alpha, RGB and RGBA, HWC or CHW arrays.

mod boundary;
mod colour;
#[cfg(feature = "image-files")]
mod io;
mod vision;
mod vision_homography;
mod vision_kernels;
mod vision_matchers;
mod vision_orb;

pub use boundary::Boundary;
pub use colour::{
    ColorSpace, GrayOpts, YccOpts, YccStd, color_space, color_space_with, gray2rgb, gray2rgb_with,
    hsv2rgb, rgb2gray, rgb2gray_with, rgb2hsv, rgb2ycbcr, rgb2ycbcr_with, ycbcr2rgb,
    ycbcr2rgb_with,
};
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
