//! The element types the geometric transforms read and write (`u8`, `u16`, `f16`, `f32`,
//! `f64`), the working type they compute in (`f64` for `f64`, else `f32`), and how a working
//! value is stored in each: integers as SciPy stores them (rounded half up, negative values and
//! NaN to 0, clamped to the type's maximum), `f16` rounded to nearest.

use crate::codegen::{Helpers, KernelSource, MARKER};
use crate::dtype::{DType, f16};

pub(crate) use super::super::filters_elem::ImageElement;

/// The kernels' element code of `d` (`GEO_IN`, `SPL_IN`): 0 u8, 1 u16, 2 f16, 3 f32, 4 f64.
pub(crate) fn code(d: DType) -> Option<u8> {
    Some(match d {
        DType::U8 => 0,
        DType::U16 => 1,
        DType::F16 => 2,
        DType::F32 => 3,
        DType::F64 => 4,
        _ => return None,
    })
}

/// Whether images of `d` are computed in `f64`.
pub(crate) fn wide(d: DType) -> bool {
    d == DType::F64
}

/// The working type of `d` (`f64` or `f32`).
pub(crate) fn work(d: DType) -> DType {
    if wide(d) { DType::F64 } else { DType::F32 }
}

/// The CPU twins' working values (`f32`, `f64`), with the operations the kernels use.
pub(crate) trait Work:
    Copy
    + Send
    + Sync
    + PartialEq
    + PartialOrd
    + bytemuck::Pod
    + std::ops::Add<Output = Self>
    + std::ops::Sub<Output = Self>
    + std::ops::Mul<Output = Self>
    + std::ops::Div<Output = Self>
    + std::ops::Neg<Output = Self>
{
    fn from_f64(v: f64) -> Self;
    fn to_f64(self) -> f64;
}

impl Work for f32 {
    fn from_f64(v: f64) -> f32 {
        v as f32
    }
    fn to_f64(self) -> f64 {
        self as f64
    }
}

impl Work for f64 {
    fn from_f64(v: f64) -> f64 {
        v
    }
    fn to_f64(self) -> f64 {
        self
    }
}

/// The stored element types, converted to and from a working value as the kernels do.
pub(crate) trait Px: Copy + Send + Sync + bytemuck::Pod {
    fn load<W: Work>(self) -> W;
    fn store<W: Work>(v: W) -> Self;
}

/// SciPy's store of `v` into an unsigned integer of maximum `max`.
fn round_unsigned(v: f64, max: f64) -> f64 {
    if v > 0.0 {
        (v + 0.5).min(max).trunc()
    } else {
        0.0
    }
}

impl Px for u8 {
    fn load<W: Work>(self) -> W {
        W::from_f64(self as f64)
    }
    fn store<W: Work>(v: W) -> u8 {
        round_unsigned(v.to_f64(), 255.0) as u8
    }
}

impl Px for u16 {
    fn load<W: Work>(self) -> W {
        W::from_f64(self as f64)
    }
    fn store<W: Work>(v: W) -> u16 {
        round_unsigned(v.to_f64(), 65535.0) as u16
    }
}

impl Px for f16 {
    fn load<W: Work>(self) -> W {
        W::from_f64(self.to_f64())
    }
    fn store<W: Work>(v: W) -> f16 {
        f16::from_f32(v.to_f64() as f32)
    }
}

impl Px for f32 {
    fn load<W: Work>(self) -> W {
        W::from_f64(self as f64)
    }
    fn store<W: Work>(v: W) -> f32 {
        v.to_f64() as f32
    }
}

impl Px for f64 {
    fn load<W: Work>(self) -> W {
        W::from_f64(self)
    }
    fn store<W: Work>(v: W) -> f64 {
        v.to_f64()
    }
}

/// A kernel of this family: the prelude with the half helpers, the typed `header`, the
/// family's `body` (its `.cu` text), then the marker and the `entry` point. Everything but the
/// entry precedes the marker, so that kernels of different headers never share a translation
/// unit.
pub(crate) fn kernel(name: String, header: &str, body: &str, entry: &str) -> KernelSource {
    let helpers = Helpers {
        half: true,
        ..Helpers::default()
    };
    let pre = KernelSource::generated(String::new(), "", helpers).source;
    let pre = pre.strip_suffix(MARKER).unwrap_or(&pre);
    KernelSource::new(name, format!("{pre}{header}{body}{MARKER}{entry}"))
}
