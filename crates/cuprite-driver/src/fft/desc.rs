//! What a cuFFT plan computes and where its data lie: [`PlanDesc`] (kind, precision, sizes,
//! batch and cuFFT's advanced data layout of each side), and the checks that every number in
//! it is sound — with checked arithmetic, before cuFFT sees any of it.
//!
//! This module needs no GPU and no library: it only describes and checks. It must not call
//! cuFFT or touch memory.

use crate::error::{Error, Result};
use std::fmt;

/// What a transform maps: complex to complex, real to complex (forward, keeping the
/// `n/2 + 1` non-redundant outputs of the last dimension), or complex to real (inverse).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum FftKind {
    /// Complex to complex, forward or inverse.
    C2C,
    /// Real to complex (forward); the last dimension of the output is `n/2 + 1` long.
    R2C,
    /// Complex to real (inverse); the last dimension of the input is `n/2 + 1` long.
    C2R,
}

/// The floating-point precision a transform computes in.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Precision {
    /// IEEE half (`half::f16`); cuFFT computes it for power-of-two sizes only.
    F16,
    /// bfloat16 (`half::bf16`); power-of-two sizes only, compute capability 8.0 or newer.
    BF16,
    /// `f32`.
    F32,
    /// `f64`.
    F64,
}

impl Precision {
    /// The real element type's name, as messages show it.
    pub fn name(self) -> &'static str {
        match self {
            Precision::F16 => "f16",
            Precision::BF16 => "bf16",
            Precision::F32 => "f32",
            Precision::F64 => "f64",
        }
    }

    /// Bytes of one real element (a complex one is twice as many).
    pub fn real_bytes(self) -> usize {
        match self {
            Precision::F16 | Precision::BF16 => 2,
            Precision::F32 => 4,
            Precision::F64 => 8,
        }
    }

    /// Whether cuFFT computes this precision for power-of-two sizes only.
    pub fn is_half(self) -> bool {
        matches!(self, Precision::F16 | Precision::BF16)
    }
}

impl fmt::Display for Precision {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// The sign of the exponent: forward (`e^{-2πi jk/n}`) or inverse (`e^{+2πi jk/n}`, not
/// normalised: a forward then inverse transform multiplies by the number of elements).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Direction {
    /// Exponent sign −1.
    Forward,
    /// Exponent sign +1, unnormalised.
    Inverse,
}

mod sealed {
    pub trait Sealed {}
    impl Sealed for f32 {}
    impl Sealed for f64 {}
    impl Sealed for half::f16 {}
    impl Sealed for half::bf16 {}
}

/// A real element type cuFFT computes in: `f32`, `f64`, `half::f16`, `half::bf16`. The complex
/// side of a transform is `num_complex::Complex<T>` (interleaved, as cuFFT stores it).
pub trait FftFloat: sealed::Sealed + crate::memory::DeviceCopy {
    /// Its precision.
    const PRECISION: Precision;
}

impl FftFloat for f32 {
    const PRECISION: Precision = Precision::F32;
}
impl FftFloat for f64 {
    const PRECISION: Precision = Precision::F64;
}
impl FftFloat for half::f16 {
    const PRECISION: Precision = Precision::F16;
}
impl FftFloat for half::bf16 {
    const PRECISION: Precision = Precision::BF16;
}

/// Up to three sizes, keeping how many were given (so a wrong count is reported, not cut).
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
struct Dims {
    given: usize,
    d: [usize; 3],
}

impl Dims {
    fn from_slice(s: &[usize]) -> Dims {
        let mut d = [0; 3];
        for (o, &v) in d.iter_mut().zip(s) {
            *o = v;
        }
        Dims { given: s.len(), d }
    }

    fn as_slice(&self) -> &[usize] {
        &self.d[..self.given.min(3)]
    }
}

impl fmt::Debug for Dims {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:?}", self.as_slice())?;
        if self.given > 3 {
            write!(f, " (and {} more)", self.given - 3)?;
        }
        Ok(())
    }
}

/// cuFFT's advanced data layout of one side of a transform (`inembed`/`istride`/`idist`, or
/// the output's): element `(x0, x1, x2)` of signal `b` of the batch lies at
///
/// ```text
/// b * dist + ((x0 * embed[1] + x1) * embed[2] + x2) * stride
/// ```
///
/// (for rank 1: `b * dist + x0 * stride`; rank 2: `b * dist + (x0 * embed[1] + x1) * stride`),
/// counted in elements of that side's type (real or complex). `embed` has one entry per
/// dimension and each is at least that side's size there; `embed[0]` takes part in no address
/// but is checked all the same.
///
/// ```
/// use cuprite_driver::fft::{Layout, PlanDesc, Precision};
/// // 64 signals of 100 complex points, each a column of a 100 × 64 row-major matrix.
/// let desc = PlanDesc::c2c(Precision::F32, &[100])
///     .with_batch(64)
///     .with_input_layout(Layout::new(&[100], 64, 1))
///     .with_output_layout(Layout::new(&[100], 64, 1));
/// let ext = desc.check()?;
/// assert_eq!((ext.input, ext.output), (6400, 6400));
/// # Ok::<(), cuprite_driver::Error>(())
/// ```
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct Layout {
    embed: Dims,
    stride: usize,
    dist: usize,
}

impl fmt::Debug for Layout {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "embed {:?}, stride {}, dist {}",
            self.embed, self.stride, self.dist
        )
    }
}

impl Layout {
    /// A layout with these storage sizes (one per dimension), stride between consecutive
    /// elements of the last dimension, and distance between the first elements of
    /// consecutive signals. Checked when the plan description is ([`PlanDesc::check`]).
    pub fn new(embed: &[usize], stride: usize, dist: usize) -> Layout {
        Layout {
            embed: Dims::from_slice(embed),
            stride,
            dist,
        }
    }

    /// The dense layout of signals of `dims`: `embed = dims`, stride 1, `dist` = their product
    /// (saturating; an overflow is reported by the check).
    pub fn contiguous(dims: &[usize]) -> Layout {
        let n = dims.iter().fold(1usize, |a, &d| a.saturating_mul(d));
        Layout::new(dims, 1, n)
    }

    /// The storage sizes, one per dimension.
    pub fn embed(&self) -> &[usize] {
        self.embed.as_slice()
    }

    /// Elements between consecutive elements of the last dimension.
    pub fn stride(&self) -> usize {
        self.stride
    }

    /// Elements between the starts of consecutive signals of the batch.
    pub fn dist(&self) -> usize {
        self.dist
    }
}

/// How many elements each buffer of a transform must hold: one more than the largest offset
/// its layout reaches (in elements of that side's type: real or complex).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Extents {
    /// Elements of the input buffer.
    pub input: usize,
    /// Elements of the output buffer.
    pub output: usize,
}

/// A description of an FFT plan: kind, precision, sizes (rank 1 to 3), batch, and optionally
/// an advanced [`Layout`] per side (otherwise dense). Cheap to copy, hashable: the key of
/// [`PlanCache`](super::PlanCache).
///
/// The sizes are the transform's logical sizes `n`: for R2C and C2R those of the real side;
/// the complex side then has `n_last / 2 + 1` elements in its last dimension.
///
/// Nothing is checked when it is built; [`check`](Self::check) (which
/// [`Plan::new`](super::Plan::new) calls first) checks everything and returns how many
/// elements each buffer must hold.
///
/// ```
/// use cuprite_driver::fft::{PlanDesc, Precision};
/// // 1024 real signals of 4096 points each, as one batched R2C plan.
/// let desc = PlanDesc::r2c(Precision::F32, &[4096]).with_batch(1024);
/// let ext = desc.check()?;
/// assert_eq!(ext.input, 1024 * 4096);        // f32
/// assert_eq!(ext.output, 1024 * (4096 / 2 + 1)); // Complex<f32>
/// assert!(PlanDesc::c2c(Precision::F64, &[0]).check().is_err());
/// # Ok::<(), cuprite_driver::Error>(())
/// ```
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct PlanDesc {
    kind: FftKind,
    precision: Precision,
    shape: Dims,
    batch: usize,
    input: Option<Layout>,
    output: Option<Layout>,
}

impl fmt::Debug for PlanDesc {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{:?} {} {:?} × batch {}",
            self.kind, self.precision, self.shape, self.batch
        )?;
        if let Some(l) = &self.input {
            write!(f, ", input layout ({l:?})")?;
        }
        if let Some(l) = &self.output {
            write!(f, ", output layout ({l:?})")?;
        }
        Ok(())
    }
}

/// The largest value cuFFT's 64-bit interface takes (`long long`).
const MAX_I64: usize = i64::MAX as usize;

fn invalid(desc: &PlanDesc, msg: impl fmt::Display) -> Error {
    Error::InvalidArgument(format!("FFT plan {desc:?}: {msg}"))
}

impl PlanDesc {
    /// A transform of `kind` in `precision` over `shape` (1 to 3 sizes, slowest first), batch 1,
    /// dense layouts.
    pub fn new(kind: FftKind, precision: Precision, shape: &[usize]) -> PlanDesc {
        PlanDesc {
            kind,
            precision,
            shape: Dims::from_slice(shape),
            batch: 1,
            input: None,
            output: None,
        }
    }

    /// A complex-to-complex transform over `shape`.
    pub fn c2c(precision: Precision, shape: &[usize]) -> PlanDesc {
        PlanDesc::new(FftKind::C2C, precision, shape)
    }

    /// A real-to-complex (forward) transform over `shape` (the real side's sizes).
    pub fn r2c(precision: Precision, shape: &[usize]) -> PlanDesc {
        PlanDesc::new(FftKind::R2C, precision, shape)
    }

    /// A complex-to-real (inverse) transform over `shape` (the real side's sizes).
    pub fn c2r(precision: Precision, shape: &[usize]) -> PlanDesc {
        PlanDesc::new(FftKind::C2R, precision, shape)
    }

    /// The same, over `batch` signals.
    pub fn with_batch(mut self, batch: usize) -> PlanDesc {
        self.batch = batch;
        self
    }

    /// The same, reading its input as `layout` says.
    pub fn with_input_layout(mut self, layout: Layout) -> PlanDesc {
        self.input = Some(layout);
        self
    }

    /// The same, writing its output as `layout` says.
    pub fn with_output_layout(mut self, layout: Layout) -> PlanDesc {
        self.output = Some(layout);
        self
    }

    /// The kind of transform.
    pub fn kind(&self) -> FftKind {
        self.kind
    }

    /// The precision.
    pub fn precision(&self) -> Precision {
        self.precision
    }

    /// The logical sizes `n` (the real side's for R2C/C2R).
    pub fn shape(&self) -> &[usize] {
        self.shape.as_slice()
    }

    /// The number of dimensions given.
    pub fn rank(&self) -> usize {
        self.shape.given
    }

    /// The number of signals.
    pub fn batch(&self) -> usize {
        self.batch
    }

    /// The sizes of one input signal: `shape`, or for C2R the complex side's
    /// (`n_last / 2 + 1` last).
    pub fn input_dims(&self) -> Vec<usize> {
        self.side_dims(self.kind == FftKind::C2R)
            .as_slice()
            .to_vec()
    }

    /// The sizes of one output signal: `shape`, or for R2C the complex side's.
    pub fn output_dims(&self) -> Vec<usize> {
        self.side_dims(self.kind == FftKind::R2C)
            .as_slice()
            .to_vec()
    }

    fn side_dims(&self, halved: bool) -> Dims {
        let mut d = self.shape;
        let r = d.given.min(3);
        if halved && r > 0 {
            d.d[r - 1] = d.d[r - 1] / 2 + 1;
        }
        d
    }

    /// The input layout given, if any (`None`: dense).
    pub fn input_layout(&self) -> Option<Layout> {
        self.input
    }

    /// The output layout given, if any (`None`: dense).
    pub fn output_layout(&self) -> Option<Layout> {
        self.output
    }

    /// The input layout in force: the one given, or the dense one.
    pub fn effective_input_layout(&self) -> Layout {
        self.input.unwrap_or_else(|| {
            Layout::contiguous(self.side_dims(self.kind == FftKind::C2R).as_slice())
        })
    }

    /// The output layout in force: the one given, or the dense one.
    pub fn effective_output_layout(&self) -> Layout {
        self.output.unwrap_or_else(|| {
            Layout::contiguous(self.side_dims(self.kind == FftKind::R2C).as_slice())
        })
    }

    /// Whether the input side is complex.
    pub fn input_is_complex(&self) -> bool {
        self.kind != FftKind::R2C
    }

    /// Whether the output side is complex.
    pub fn output_is_complex(&self) -> bool {
        self.kind != FftKind::C2R
    }

    /// Checks every number: rank 1 to 3, every size and the batch at least 1, power-of-two
    /// sizes in half precision, each layout's `embed` (one per dimension, none smaller than the
    /// side's size), stride and dist (at least 1), and that the largest offset each side
    /// reaches, and its size in bytes, fit in cuFFT's 64-bit interface and in memory — every
    /// product and sum checked for overflow. Returns the elements each buffer must hold.
    pub fn check(&self) -> Result<Extents> {
        let rank = self.shape.given;
        if !(1..=3).contains(&rank) {
            return Err(invalid(
                self,
                format_args!(
                    "rank {rank}: cuFFT transforms have 1, 2 or 3 dimensions (batch the rest)"
                ),
            ));
        }
        for (i, &n) in self.shape().iter().enumerate() {
            if n == 0 {
                return Err(invalid(
                    self,
                    format_args!("size 0 in dimension {i}: every size must be at least 1"),
                ));
            }
            if n > MAX_I64 {
                return Err(invalid(
                    self,
                    format_args!("size {n} in dimension {i} is above cuFFT's limit of {MAX_I64}"),
                ));
            }
            if self.precision.is_half() && !n.is_power_of_two() {
                return Err(invalid(
                    self,
                    format_args!(
                        "size {n} in dimension {i}: cuFFT computes in {} only for power-of-two sizes",
                        self.precision
                    ),
                ));
            }
        }
        if self.batch == 0 {
            return Err(invalid(self, "batch 0: the batch must be at least 1"));
        }
        if self.batch > MAX_I64 {
            return Err(invalid(
                self,
                format_args!("batch {} is above cuFFT's limit of {MAX_I64}", self.batch),
            ));
        }
        let real = self.precision.real_bytes();
        let input = self.side_extent(
            "input",
            self.side_dims(self.kind == FftKind::C2R).as_slice(),
            self.input,
            if self.input_is_complex() {
                2 * real
            } else {
                real
            },
        )?;
        let output = self.side_extent(
            "output",
            self.side_dims(self.kind == FftKind::R2C).as_slice(),
            self.output,
            if self.output_is_complex() {
                2 * real
            } else {
                real
            },
        )?;
        Ok(Extents { input, output })
    }

    /// The elements one side's buffer must hold, after checking its layout.
    fn side_extent(
        &self,
        side: &str,
        dims: &[usize],
        layout: Option<Layout>,
        elem_bytes: usize,
    ) -> Result<usize> {
        let overflow = |what: &str| {
            invalid(
                self,
                format_args!("the {side} {what} overflows: the layout reaches beyond any buffer"),
            )
        };
        let layout = match layout {
            Some(l) => l,
            None => {
                // Dense: the product of the sizes per signal, times the batch.
                let per = dims
                    .iter()
                    .try_fold(1usize, |a, &d| a.checked_mul(d))
                    .ok_or_else(|| overflow("signal size"))?;
                Layout::new(dims, 1, per)
            }
        };
        let embed = layout.embed.as_slice();
        if layout.embed.given != dims.len() {
            return Err(invalid(
                self,
                format_args!(
                    "the {side} layout has {} embed size(s) for a rank-{} transform: give one per dimension",
                    layout.embed.given,
                    dims.len()
                ),
            ));
        }
        for (i, (&e, &d)) in embed.iter().zip(dims).enumerate() {
            if e < d {
                return Err(invalid(
                    self,
                    format_args!(
                        "{side} embed[{i}] = {e} is smaller than the {side} size {d} of that dimension"
                    ),
                ));
            }
            if e > MAX_I64 {
                return Err(invalid(
                    self,
                    format_args!("{side} embed[{i}] = {e} is above cuFFT's limit of {MAX_I64}"),
                ));
            }
        }
        if layout.stride == 0 || layout.stride > MAX_I64 {
            return Err(invalid(
                self,
                format_args!(
                    "{side} stride {}: it must be between 1 and {MAX_I64}",
                    layout.stride
                ),
            ));
        }
        if layout.dist == 0 || layout.dist > MAX_I64 {
            return Err(invalid(
                self,
                format_args!(
                    "{side} dist {}: it must be between 1 and {MAX_I64}",
                    layout.dist
                ),
            ));
        }
        // The offset of the last element of one signal: ((x0 * e1 + x1) * e2 + x2) * stride
        // with every x at its largest.
        let mut last = dims[0] - 1;
        for i in 1..dims.len() {
            last = last
                .checked_mul(embed[i])
                .and_then(|v| v.checked_add(dims[i] - 1))
                .ok_or_else(|| overflow("offset of a signal's last element"))?;
        }
        let last = last
            .checked_mul(layout.stride)
            .ok_or_else(|| overflow("offset of a signal's last element"))?;
        let extent = (self.batch - 1)
            .checked_mul(layout.dist)
            .and_then(|v| v.checked_add(last))
            .and_then(|v| v.checked_add(1))
            .ok_or_else(|| overflow("extent over the batch"))?;
        if extent > MAX_I64
            || extent
                .checked_mul(elem_bytes)
                .is_none_or(|b| b > isize::MAX as usize)
        {
            return Err(invalid(
                self,
                format_args!(
                    "the {side} reaches {extent} elements of {elem_bytes} bytes, more than any buffer can hold"
                ),
            ));
        }
        Ok(extent)
    }

    /// Checks buffers of `input_len` and `output_len` elements (of each side's type) against
    /// this description: each must hold at least its [`Extents`]. The message names the lengths,
    /// the extents and the layouts.
    pub fn check_buffers(&self, input_len: usize, output_len: usize) -> Result<Extents> {
        let ext = self.check()?;
        check_len(self, "input", input_len, ext.input)?;
        check_len(self, "output", output_len, ext.output)?;
        Ok(ext)
    }

    /// Checks one buffer of `len` elements used as both input and output (an in-place C2C
    /// transform): both layouts must be the same ([`check_same_layouts`](Self::check_same_layouts)),
    /// and the buffer must hold their extent.
    pub fn check_in_place(&self, len: usize) -> Result<Extents> {
        let ext = self.check()?;
        self.check_same_layouts()?;
        check_len(self, "in-place", len, ext.input.max(ext.output))?;
        Ok(ext)
    }

    /// `Err` unless this is a C2C transform whose input and output layouts are the same, as
    /// running in place needs.
    pub fn check_same_layouts(&self) -> Result<()> {
        if self.kind != FftKind::C2C {
            return Err(invalid(
                self,
                "in place: only C2C transforms run in place here",
            ));
        }
        let (i, o) = (
            self.effective_input_layout(),
            self.effective_output_layout(),
        );
        if i != o {
            return Err(invalid(
                self,
                format_args!(
                    "in place: the input layout ({i:?}) and the output layout ({o:?}) must be the same"
                ),
            ));
        }
        Ok(())
    }
}

/// `Err` naming the values when `len < need`.
pub(crate) fn check_len(desc: &PlanDesc, side: &str, len: usize, need: usize) -> Result<()> {
    if len < need {
        return Err(invalid(
            desc,
            format_args!(
                "the {side} buffer holds {len} elements, but the plan's {side} layout reaches element {}: it needs at least {need}",
                need - 1
            ),
        ));
    }
    Ok(())
}
