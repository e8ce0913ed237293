//! Image files: PNG, JPEG and TIFF read into arrays and written from them, through the `image`
//! crate's three codecs (cargo feature `image-files`).
//!
//! An image is an array of `u8` or `u16` samples in HWC layout (`[height, width, channels]`,
//! channels 1 gray, 2 gray and alpha, 3 RGB, 4 RGBA) or, on request, CHW. The sample type is
//! the file's bit depth: an 8-bit file loads as `u8` only, a 16-bit one as `u16` only, so no
//! value is rescaled behind the caller's back.

use crate::array::Array;
use crate::dtype::Element;
use crate::error::{Error, Result};
use image::{DynamicImage, ImageBuffer, ImageFormat, ImageReader};
use std::path::Path;

/// Where the channel axis of an image array stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum ImageLayout {
    /// `[height, width, channels]` (the default; as the files store pixels).
    #[default]
    Hwc,
    /// `[channels, height, width]` (PyTorch's layout).
    Chw,
}

/// Options of [`load_image_with`] and [`save_image_with`].
///
/// ```
/// use cuprite_array::image::{ImageFileOpts, ImageLayout};
/// let o = ImageFileOpts::new().layout(ImageLayout::Chw).quality(95);
/// assert_eq!(o.layout, ImageLayout::Chw);
/// ```
#[must_use]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ImageFileOpts {
    /// The layout of the array (HWC by default).
    pub layout: ImageLayout,
    /// The JPEG quality `1..=100` when saving (90 by default; other formats are lossless).
    pub quality: u8,
}

impl Default for ImageFileOpts {
    fn default() -> Self {
        ImageFileOpts {
            layout: ImageLayout::Hwc,
            quality: 90,
        }
    }
}

impl ImageFileOpts {
    /// The defaults: HWC, JPEG quality 90.
    pub fn new() -> Self {
        Self::default()
    }
    /// The layout of the array.
    pub fn layout(mut self, layout: ImageLayout) -> Self {
        self.layout = layout;
        self
    }
    /// The JPEG quality `1..=100` when saving.
    pub fn quality(mut self, quality: u8) -> Self {
        self.quality = quality;
        self
    }
}

mod sealed {
    pub trait Sealed {}
    impl Sealed for u8 {}
    impl Sealed for u16 {}
}

/// The sample types of image files: `u8` (8-bit files) and `u16` (16-bit files).
pub trait ImageSample: Element + ::bytemuck::Pod + sealed::Sealed {
    /// Bits a sample.
    const BITS: u32;
}
impl ImageSample for u8 {
    const BITS: u32 = 8;
}
impl ImageSample for u16 {
    const BITS: u32 = 16;
}

/// An `Err` about the file `p`.
fn file_err(p: &Path, why: impl std::fmt::Display) -> Error {
    Error::Io(format!("image file {}: {why}", p.display()))
}

/// The samples of a decoded image, its channel count and its bit depth.
enum Samples {
    Eight(Vec<u8>, usize),
    Sixteen(Vec<u16>, usize),
}

fn samples(img: DynamicImage) -> std::result::Result<Samples, String> {
    Ok(match img {
        DynamicImage::ImageLuma8(b) => Samples::Eight(b.into_raw(), 1),
        DynamicImage::ImageLumaA8(b) => Samples::Eight(b.into_raw(), 2),
        DynamicImage::ImageRgb8(b) => Samples::Eight(b.into_raw(), 3),
        DynamicImage::ImageRgba8(b) => Samples::Eight(b.into_raw(), 4),
        DynamicImage::ImageLuma16(b) => Samples::Sixteen(b.into_raw(), 1),
        DynamicImage::ImageLumaA16(b) => Samples::Sixteen(b.into_raw(), 2),
        DynamicImage::ImageRgb16(b) => Samples::Sixteen(b.into_raw(), 3),
        DynamicImage::ImageRgba16(b) => Samples::Sixteen(b.into_raw(), 4),
        other => {
            return Err(format!(
                "unsupported bit depth: {:?} samples (8- and 16-bit integer images only)",
                other.color()
            ));
        }
    })
}

/// Reads an image file (PNG, JPEG or TIFF, recognised by its content, else by its extension)
/// into a `[height, width, channels]` array on the current device, with `T` the file's
/// sample type (`u8` for 8-bit files, `u16` for 16-bit ones).
///
/// Returns an `Err` naming the file and the reason: it cannot be read, its format is not one
/// of the three, its data is truncated or corrupt, or its bit depth is not `T`'s.
///
/// ```
/// # fn main() -> cuprite_array::Result<()> {
/// use cuprite_array::{Array, image::{load_image, save_image}};
/// let p = std::env::temp_dir().join(format!("cuprite-doc-load-{}.png", std::process::id()));
/// let img = Array::<u8>::from_vec((0..24).collect(), &[2, 4, 3])?;
/// save_image(&img, &p)?;
/// let back = load_image::<u8>(&p)?;
/// assert_eq!(back.shape(), &[2, 4, 3]);
/// assert_eq!(back.to_vec()?, img.to_vec()?);
/// # std::fs::remove_file(&p).ok();
/// # Ok(()) }
/// ```
pub fn load_image<T: ImageSample>(path: impl AsRef<Path>) -> Result<Array<T>> {
    load_image_with(path, ImageFileOpts::new())
}

/// [`load_image`] with options (the layout: `[channels, height, width]` with
/// [`ImageLayout::Chw`]).
///
/// ```
/// # fn main() -> cuprite_array::Result<()> {
/// use cuprite_array::{Array, image::{ImageFileOpts, ImageLayout, load_image_with, save_image}};
/// let p = std::env::temp_dir().join(format!("cuprite-doc-chw-{}.tif", std::process::id()));
/// save_image(&Array::<u16>::from_vec(vec![0, 1000, 65535, 7, 8, 9], &[1, 2, 3])?, &p)?;
/// let chw = load_image_with::<u16>(&p, ImageFileOpts::new().layout(ImageLayout::Chw))?;
/// assert_eq!(chw.shape(), &[3, 1, 2]);
/// assert_eq!(chw.to_vec()?, [0, 7, 1000, 8, 65535, 9]);
/// # std::fs::remove_file(&p).ok();
/// # Ok(()) }
/// ```
pub fn load_image_with<T: ImageSample>(
    path: impl AsRef<Path>,
    opts: ImageFileOpts,
) -> Result<Array<T>> {
    let p = path.as_ref();
    let mut reader = ImageReader::open(p).map_err(|e| file_err(p, format!("cannot open: {e}")))?;
    reader = reader
        .with_guessed_format()
        .map_err(|e| file_err(p, format!("cannot read: {e}")))?;
    if reader.format().is_none() {
        if let Ok(f) = ImageFormat::from_path(p) {
            reader.set_format(f);
        }
    }
    match reader.format() {
        Some(ImageFormat::Png | ImageFormat::Jpeg | ImageFormat::Tiff) => {}
        Some(f) => {
            return Err(file_err(
                p,
                format!("unknown format: {f:?} (PNG, JPEG and TIFF only)"),
            ));
        }
        None => {
            return Err(file_err(
                p,
                "unknown format: neither the content nor the extension names PNG, JPEG or TIFF",
            ));
        }
    }
    let img = reader
        .decode()
        .map_err(|e| file_err(p, format!("truncated or corrupt data: {e}")))?;
    let (h, w) = (img.height() as usize, img.width() as usize);
    let s = samples(img).map_err(|why| file_err(p, why))?;
    let (data, c): (Vec<T>, usize) = match s {
        Samples::Eight(v, c) if T::BITS == 8 => (same(v)?, c),
        Samples::Sixteen(v, c) if T::BITS == 16 => (same(v)?, c),
        Samples::Eight(..) | Samples::Sixteen(..) => {
            let bits = if matches!(s, Samples::Eight(..)) {
                8
            } else {
                16
            };
            return Err(file_err(
                p,
                format!(
                    "unsupported bit depth: the file holds {bits}-bit samples, asked for {}-bit \
                     ({})",
                    T::BITS,
                    T::DTYPE
                ),
            ));
        }
    };
    let a = Array::from_vec(data, &[h, w, c])?;
    Ok(match opts.layout {
        ImageLayout::Hwc => a,
        ImageLayout::Chw => a.permute(&[2, 0, 1])?,
    })
}

/// `v` as a vector of `B`, where `A` and `B` are the same type (a sample type by the seal).
fn same<A: ::bytemuck::Pod, B: ::bytemuck::Pod>(v: Vec<A>) -> Result<Vec<B>> {
    ::bytemuck::try_cast_vec(v)
        .map_err(|(e, _)| Error::InvalidArgument(format!("image samples: {e}")))
}

/// The file format of a path's extension, for saving.
fn format_of(p: &Path) -> Result<ImageFormat> {
    let ext = p
        .extension()
        .and_then(|e| e.to_str())
        .map(str::to_ascii_lowercase);
    match ext.as_deref() {
        Some("png") => Ok(ImageFormat::Png),
        Some("jpg" | "jpeg") => Ok(ImageFormat::Jpeg),
        Some("tif" | "tiff") => Ok(ImageFormat::Tiff),
        _ => Err(file_err(
            p,
            format!(
                "unknown format: extension {:?} (png, jpg, jpeg, tif, tiff)",
                ext.unwrap_or_default()
            ),
        )),
    }
}

/// Writes `img` (`[height, width]` gray or `[height, width, channels]` with 1 to 4 channels)
/// to `path` in the format its extension names (`.png`, `.jpg`/`.jpeg`, `.tif`/`.tiff`), 8-bit
/// for `u8` and 16-bit for `u16` samples.
///
/// Returns an `Err` naming the file and the reason: an unknown extension, a shape that is not
/// an image, a combination the format cannot store (JPEG holds only 8-bit gray or RGB; TIFF
/// holds no gray-and-alpha), or a failed write.
///
/// ```
/// # fn main() -> cuprite_array::Result<()> {
/// use cuprite_array::{Array, image::{load_image, save_image}};
/// let p = std::env::temp_dir().join(format!("cuprite-doc-save-{}.png", std::process::id()));
/// let gray = Array::<u16>::from_vec(vec![0, 256, 65535, 3], &[2, 2])?;
/// save_image(&gray, &p)?;
/// assert_eq!(load_image::<u16>(&p)?.to_vec()?, [0, 256, 65535, 3]);
/// # std::fs::remove_file(&p).ok();
/// # Ok(()) }
/// ```
pub fn save_image<T: ImageSample>(img: &Array<T>, path: impl AsRef<Path>) -> Result<()> {
    save_image_with(img, path, ImageFileOpts::new())
}

/// [`save_image`] with options (the array's layout, the JPEG quality).
///
/// ```
/// # fn main() -> cuprite_array::Result<()> {
/// use cuprite_array::{Array, image::{ImageFileOpts, ImageLayout, save_image_with, load_image}};
/// let p = std::env::temp_dir().join(format!("cuprite-doc-savechw-{}.png", std::process::id()));
/// let chw = Array::<u8>::from_vec(vec![1, 2, 3, 4, 5, 6], &[3, 1, 2])?;
/// save_image_with(&chw, &p, ImageFileOpts::new().layout(ImageLayout::Chw))?;
/// assert_eq!(load_image::<u8>(&p)?.to_vec()?, [1, 3, 5, 2, 4, 6]);
/// # std::fs::remove_file(&p).ok();
/// # Ok(()) }
/// ```
pub fn save_image_with<T: ImageSample>(
    img: &Array<T>,
    path: impl AsRef<Path>,
    opts: ImageFileOpts,
) -> Result<()> {
    let p = path.as_ref();
    let format = format_of(p)?;
    let s = img.shape().to_vec();
    let (h, w, c) = match (s.len(), opts.layout) {
        (2, _) => (s[0], s[1], 1),
        (3, ImageLayout::Hwc) => (s[0], s[1], s[2]),
        (3, ImageLayout::Chw) => (s[1], s[2], s[0]),
        _ => {
            return Err(file_err(
                p,
                format!(
                    "shape {s:?} is not an image ([h, w] or [h, w, c] in {:?})",
                    opts.layout
                ),
            ));
        }
    };
    if !(1..=4).contains(&c) || h == 0 || w == 0 {
        return Err(file_err(
            p,
            format!(
                "shape {s:?}: {c} channels of {h}x{w} pixels (1 to 4 channels, no empty image)"
            ),
        ));
    }
    let (Ok(w32), Ok(h32)) = (u32::try_from(w), u32::try_from(h)) else {
        return Err(file_err(
            p,
            format!("{h}x{w} pixels is over the formats' limit"),
        ));
    };
    if format == ImageFormat::Jpeg && (T::BITS != 8 || !matches!(c, 1 | 3)) {
        return Err(file_err(
            p,
            format!(
                "JPEG stores 8-bit gray or RGB only, not {c} channels of {}-bit samples",
                T::BITS
            ),
        ));
    }
    if format == ImageFormat::Tiff && c == 2 {
        return Err(file_err(
            p,
            "TIFF (through this codec) stores no gray-and-alpha image",
        ));
    }
    if !(1..=100).contains(&opts.quality) {
        return Err(file_err(
            p,
            format!("JPEG quality {} is outside 1..=100", opts.quality),
        ));
    }
    let hwc = match (s.len(), opts.layout) {
        (3, ImageLayout::Chw) => img.permute(&[1, 2, 0])?,
        _ => img.clone(),
    };
    let data = hwc.to_vec()?;
    let dynimg = dynamic(data, w32, h32, c).ok_or_else(|| file_err(p, "buffer size mismatch"))?;
    let res = if format == ImageFormat::Jpeg {
        std::fs::File::create(p)
            .map_err(image::ImageError::IoError)
            .and_then(|f| {
                let mut out = std::io::BufWriter::new(f);
                let enc =
                    image::codecs::jpeg::JpegEncoder::new_with_quality(&mut out, opts.quality);
                dynimg.write_with_encoder(enc)
            })
    } else {
        dynimg.save_with_format(p, format)
    };
    res.map_err(|e| file_err(p, format!("cannot write: {e}")))
}

/// The `image` crate's picture of `c`-channel samples (`T` is `u8` or `u16` by the seal).
fn dynamic<T: ImageSample>(data: Vec<T>, w: u32, h: u32, c: usize) -> Option<DynamicImage> {
    if T::BITS == 8 {
        let v: Vec<u8> = ::bytemuck::try_cast_vec(data).ok()?;
        Some(match c {
            1 => DynamicImage::ImageLuma8(ImageBuffer::from_raw(w, h, v)?),
            2 => DynamicImage::ImageLumaA8(ImageBuffer::from_raw(w, h, v)?),
            3 => DynamicImage::ImageRgb8(ImageBuffer::from_raw(w, h, v)?),
            _ => DynamicImage::ImageRgba8(ImageBuffer::from_raw(w, h, v)?),
        })
    } else {
        let v: Vec<u16> = ::bytemuck::try_cast_vec(data).ok()?;
        Some(match c {
            1 => DynamicImage::ImageLuma16(ImageBuffer::from_raw(w, h, v)?),
            2 => DynamicImage::ImageLumaA16(ImageBuffer::from_raw(w, h, v)?),
            3 => DynamicImage::ImageRgb16(ImageBuffer::from_raw(w, h, v)?),
            _ => DynamicImage::ImageRgba16(ImageBuffer::from_raw(w, h, v)?),
        })
    }
}
