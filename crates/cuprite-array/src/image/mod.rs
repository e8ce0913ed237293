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

mod boundary;

pub use boundary::Boundary;
