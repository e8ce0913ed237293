//! One strided-batched product on realised device buffers, for library calls that build their
//! own operands (a convolution's lowered patches): `D[b] = A[b] · B[b] (+ D[b])`, each operand
//! a matrix of a buffer at an element offset, an order, a leading dimension and a batch stride,
//! all checked against the buffers by cuBLASLt's own layout checks before anything runs.

use super::cuda::handle;
use super::tf32::allow_tf32;
use crate::dtype::DType;
use crate::error::{Error, Result};
use crate::exec::CudaLane;
use crate::ops::linalg::span::{Span, SpanNew as _};
use crate::storage::DevBuf;
use cuprite_driver::blas::{ComputeType, Element, Scalar};
use cuprite_driver::blaslt::{self, Layout, Matmul, Order};

/// Where one operand's matrices lie in a realised buffer (elements of the product's dtype).
#[derive(Clone, Copy)]
pub(crate) struct MatIn<'a> {
    /// The buffer.
    pub buf: &'a DevBuf,
    /// The first matrix's first element.
    pub offset: usize,
    /// Row- or column-major.
    pub order: Order,
    /// The leading dimension.
    pub ld: usize,
    /// Elements between consecutive matrices of the batch (0: one matrix for every product).
    pub batch_stride: usize,
}

/// `D[b] = A[b] · B[b]` for `batch` products of `m × k` by `k × n`, in `dtype` (`f16`/`bf16`
/// accumulate in `f32`; `f32` in full precision unless TF32 is allowed), adding to what `D`
/// holds when `accumulate` is set.
pub(crate) struct StridedProduct<'a> {
    pub dtype: DType,
    pub m: usize,
    pub n: usize,
    pub k: usize,
    pub batch: usize,
    pub a: MatIn<'a>,
    pub b: MatIn<'a>,
    pub d: MatIn<'a>,
    pub accumulate: bool,
}

impl StridedProduct<'_> {
    /// Enqueues the product on the lane's stream. `k` must be at least 1; `D`'s matrices must
    /// not overlap (cuBLASLt's checks refuse them otherwise).
    pub(crate) fn run(&self, lane: &CudaLane<'_>) -> Result<()> {
        if self.m == 0 || self.n == 0 || self.batch == 0 {
            return Ok(());
        }
        match self.dtype {
            DType::F32 => self.typed::<f32>(lane),
            DType::F64 => self.typed::<f64>(lane),
            DType::F16 => self.typed::<half::f16>(lane),
            DType::BF16 => self.typed::<half::bf16>(lane),
            d => Err(Error::InvalidArgument(format!(
                "a strided product of {d} is not supported (f16, bf16, f32, f64)"
            ))),
        }
    }

    /// [`run`](Self::run) for `f16`/`bf16` operands into an `f32` `D` (`D`'s buffer, offset,
    /// leading dimension and batch stride in `f32` elements): the sums rounded once, to
    /// `f32`. Other dtypes are refused.
    pub(crate) fn run_wide(&self, lane: &CudaLane<'_>) -> Result<()> {
        if self.m == 0 || self.n == 0 || self.batch == 0 {
            return Ok(());
        }
        match self.dtype {
            DType::F16 => self.typed_wide::<half::f16>(lane),
            DType::BF16 => self.typed_wide::<half::bf16>(lane),
            d => Err(Error::InvalidArgument(format!(
                "a strided product of {d} into f32 is not supported (f16, bf16)"
            ))),
        }
    }

    /// The problem's configuration for element type `T`.
    fn config<T: Element>(&self) -> Matmul<T::Scalar> {
        let mut cfg = Matmul::<T::Scalar>::row_major(self.m, self.n, self.k).with_batch(self.batch);
        let layout = |x: &MatIn<'_>| Layout {
            order: x.order,
            ld: x.ld,
            batch_stride: x.batch_stride,
        };
        cfg.a = layout(&self.a);
        cfg.b = layout(&self.b);
        cfg.d = layout(&self.d);
        cfg.alpha = T::Scalar::ONE;
        cfg.beta = if self.accumulate {
            T::Scalar::ONE
        } else {
            T::Scalar::ZERO
        };
        cfg
    }

    fn typed_wide<T: Element>(&self, lane: &CudaLane<'_>) -> Result<()> {
        let lt = handle(lane.st, lane.stream)?;
        let cfg = self.config::<T>();
        let (a, b) = (span::<T>(&self.a)?, span::<T>(&self.b)?);
        let mut d = span::<f32>(&self.d)?;
        lt.matmul_wide(&cfg, &a, &b, &mut d)?;
        Ok(())
    }

    fn typed<T: Element>(&self, lane: &CudaLane<'_>) -> Result<()> {
        let lt = handle(lane.st, lane.stream)?;
        let mut cfg = self.config::<T>();
        cfg.compute = if self.dtype == DType::F32 && allow_tf32() {
            ComputeType::Tf32
        } else {
            ComputeType::Default
        };
        let (a, b) = (span::<T>(&self.a)?, span::<T>(&self.b)?);
        let mut d = span::<T>(&self.d)?;
        lt.matmul(&cfg, &a, &b, None, &mut d, blaslt::Epilogue::None)?;
        Ok(())
    }
}

/// The elements of `x`'s buffer from its offset to the end, as `T`.
fn span<'a, T>(x: &MatIn<'a>) -> Result<Span<'a, T>> {
    let buf = x.buf.buffer()?;
    let len = buf.len() / std::mem::size_of::<T>();
    Span::new(buf, x.offset, len.saturating_sub(x.offset))
}
