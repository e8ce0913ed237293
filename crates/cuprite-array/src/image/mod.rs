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
//! - Image files (cargo feature `image-files`): [`load_image`] / [`save_image`] for PNG, JPEG
//!   and TIFF, 8- and 16-bit, gray, gray and alpha, RGB and RGBA, HWC or CHW arrays.

mod boundary;
#[cfg(feature = "image-files")]
mod io;

pub use boundary::Boundary;
#[cfg(feature = "image-files")]
pub use io::{
    ImageFileOpts, ImageLayout, ImageSample, load_image, load_image_with, save_image,
    save_image_with,
};
