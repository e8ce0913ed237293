//! Matrix products (`cublasGemmEx`, `cublasGemmStridedBatchedEx`): the parameters
//! ([`Gemm`], [`StridedBatch`]), their checks against the buffers, and the calls.

use super::handle::Blas;
use super::types::{
    Compute, ComputeType, Element, Scalar, ScalarBytes, Transpose, check_context, check_extent,
    invalid, to_i32, to_i64,
};
use crate::error::{Result, check_cublas};
use crate::memory::{Access, DeviceRead, DeviceWrite};
use cuprite_sys::cublas::{self as sys, cublasGemmAlgo_t};
use std::ffi::c_void;

/// The parameters of a (batched) matrix product `C = alpha · op(A) · op(B) + beta · C`, BLAS
/// style: column-major, `op(A)` is `m × k`, `op(B)` is `k × n`, `C` is `m × n`.
///
/// [`Gemm::new`] gives packed, untransposed operands (`lda = m`, `ldb = k`, `ldc = m`),
/// `alpha = 1`, `beta = 0` and the default compute type; adjust the fields from there.
///
/// ```
/// use cuprite_driver::blas::{Gemm, Transpose};
/// let mut g = Gemm::<f32>::new(128, 64, 32);
/// g.transa = Transpose::Trans; // A is stored as 32 × 128
/// g.lda = 32;
/// assert_eq!((g.m, g.n, g.k, g.ldb, g.ldc), (128, 64, 32, 32, 128));
/// ```
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Gemm<S> {
    /// How A enters the product.
    pub transa: Transpose,
    /// How B enters the product.
    pub transb: Transpose,
    /// Rows of `op(A)` and of C.
    pub m: usize,
    /// Columns of `op(B)` and of C.
    pub n: usize,
    /// Columns of `op(A)`, rows of `op(B)`.
    pub k: usize,
    /// The factor of the product.
    pub alpha: S,
    /// Leading dimension of A as stored (at least its stored row count).
    pub lda: usize,
    /// Leading dimension of B as stored.
    pub ldb: usize,
    /// The factor of C's old value (0: C is not read).
    pub beta: S,
    /// Leading dimension of C (at least `m`).
    pub ldc: usize,
    /// The accumulation precision.
    pub compute: ComputeType,
}

impl<S: Scalar> Gemm<S> {
    /// `C = A · B` with packed column-major `A` (`m × k`), `B` (`k × n`), `C` (`m × n`).
    pub fn new(m: usize, n: usize, k: usize) -> Self {
        Gemm {
            transa: Transpose::None,
            transb: Transpose::None,
            m,
            n,
            k,
            alpha: S::ONE,
            lda: m.max(1),
            ldb: k.max(1),
            beta: S::ZERO,
            ldc: m.max(1),
            compute: ComputeType::Default,
        }
    }
}

/// A [`Gemm`] checked against its buffers, in cuBLAS's argument types.
struct GemmArgs {
    compute: Compute,
    m: i32,
    n: i32,
    k: i32,
    lda: i32,
    ldb: i32,
    ldc: i32,
    batch: i32,
    strides: [i64; 3],
}

impl<S: Scalar> Gemm<S> {
    /// Checks this product for element type `T` against buffers of `a_len`, `b_len` and
    /// `c_len` elements (`batch`: the strided batch; `None` for one product), exactly as
    /// [`Blas::gemm`] does before cuBLAS sees it: the compute type suits `T`, each leading
    /// dimension is at least its matrix's row count, each buffer holds every element the
    /// dimensions reach (checked arithmetic), the outputs of a batch do not overlap, and every
    /// value fits cuBLAS's 32-bit arguments. Needs no GPU.
    ///
    /// ```
    /// use cuprite_driver::blas::Gemm;
    /// let g = Gemm::<f32>::new(4, 4, 4);
    /// assert!(g.validate::<f32>(None, 16, 16, 16).is_ok());
    /// assert!(g.validate::<f32>(None, 16, 15, 16).is_err()); // B is one element short
    /// ```
    pub fn validate<T: Element<Scalar = S>>(
        &self,
        batch: Option<&StridedBatch>,
        a_len: usize,
        b_len: usize,
        c_len: usize,
    ) -> Result<()> {
        let one = StridedBatch {
            batch: 1,
            ..StridedBatch::default()
        };
        self.checked::<T>("gemm", batch.unwrap_or(&one), a_len, b_len, c_len)
            .map(|_| ())
    }

    fn checked<T: Element>(
        &self,
        call: &'static str,
        sb: &StridedBatch,
        a_len: usize,
        b_len: usize,
        c_len: usize,
    ) -> Result<GemmArgs> {
        let compute = self.compute.resolve::<T>()?;
        let (m, n, k) = (self.m, self.n, self.k);
        let (ar, ac) = if self.transa.is_transposed() {
            (k, m)
        } else {
            (m, k)
        };
        let (br, bc) = if self.transb.is_transposed() {
            (n, k)
        } else {
            (k, n)
        };
        check_extent(call, "A", a_len, ar, ac, self.lda, sb.batch, sb.stride_a)?;
        check_extent(call, "B", b_len, br, bc, self.ldb, sb.batch, sb.stride_b)?;
        let c_extent = check_extent(call, "C", c_len, m, n, self.ldc, sb.batch, sb.stride_c)?;
        if sb.batch > 1 && sb.stride_c < c_extent {
            return Err(invalid(format!(
                "{call}: stride_c = {} is smaller than one C matrix ({c_extent} elements): the \
                 outputs of the batch would overlap",
                sb.stride_c
            )));
        }
        Ok(GemmArgs {
            compute,
            m: to_i32(call, "m", m)?,
            n: to_i32(call, "n", n)?,
            k: to_i32(call, "k", k)?,
            lda: to_i32(call, "lda", self.lda)?,
            ldb: to_i32(call, "ldb", self.ldb)?,
            ldc: to_i32(call, "ldc", self.ldc)?,
            batch: to_i32(call, "batch", sb.batch)?,
            strides: [
                to_i64(call, "stride_a", sb.stride_a)?,
                to_i64(call, "stride_b", sb.stride_b)?,
                to_i64(call, "stride_c", sb.stride_c)?,
            ],
        })
    }
}

/// How the matrices of a strided-batched product lie: `batch` products, the `i`-th reading A at
/// `i * stride_a` elements (likewise B and C). A stride of 0 reuses one A (or B) for every
/// product; C's stride must keep the outputs apart.
///
/// ```
/// let b = cuprite_driver::blas::StridedBatch { batch: 8, stride_a: 64 * 32, stride_b: 0, stride_c: 64 * 16 };
/// assert_eq!(b.batch, 8);
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct StridedBatch {
    /// The number of products.
    pub batch: usize,
    /// Elements between consecutive A matrices.
    pub stride_a: usize,
    /// Elements between consecutive B matrices.
    pub stride_b: usize,
    /// Elements between consecutive C matrices.
    pub stride_c: usize,
}

impl Blas {
    /// `C = alpha · op(A) · op(B) + beta · C` (`cublasGemmEx`), for every [`Element`] type with
    /// the compute type of `cfg`. A, B and C are column-major with the leading dimensions of
    /// `cfg`; the buffers must be long enough for them, and every dimension must fit cuBLAS's
    /// 32-bit arguments: otherwise an `Err` before anything is enqueued.
    pub fn gemm<T: Element>(
        &self,
        cfg: &Gemm<T::Scalar>,
        a: &dyn DeviceRead<T>,
        b: &dyn DeviceRead<T>,
        c: &mut dyn DeviceWrite<T>,
    ) -> Result<()> {
        let one = StridedBatch {
            batch: 1,
            ..StridedBatch::default()
        };
        self.gemm_impl("gemm", false, cfg, &one, a, b, c)
    }

    /// `batch` products `C_i = alpha · op(A_i) · op(B_i) + beta · C_i`, the matrices `stride`
    /// elements apart (`cublasGemmStridedBatchedEx`). See [`StridedBatch`].
    ///
    /// ```no_run
    /// use cuprite_driver::blas::{Blas, Gemm, StridedBatch};
    /// # fn main() -> cuprite_driver::Result<()> {
    /// let ctx = cuprite_driver::Context::new(0)?;
    /// let s = ctx.default_stream();
    /// let blas = Blas::new(&s)?;
    /// let (m, n, k, batch) = (4, 3, 2, 5);
    /// let a = s.clone_htod(&vec![1.0f64; m * k * batch])?;
    /// let b = s.clone_htod(&vec![2.0f64; k * n])?; // one B for every product
    /// let mut c = s.alloc_zeros::<f64>(m * n * batch)?;
    /// let strides = StridedBatch { batch, stride_a: m * k, stride_b: 0, stride_c: m * n };
    /// blas.gemm_strided_batched(&Gemm::new(m, n, k), &strides, &a, &b, &mut c)?;
    /// assert!(s.clone_dtoh(&c)?.iter().all(|&x| x == 4.0));
    /// # Ok(()) }
    /// ```
    pub fn gemm_strided_batched<T: Element>(
        &self,
        cfg: &Gemm<T::Scalar>,
        batch: &StridedBatch,
        a: &dyn DeviceRead<T>,
        b: &dyn DeviceRead<T>,
        c: &mut dyn DeviceWrite<T>,
    ) -> Result<()> {
        self.gemm_impl("gemm_strided_batched", true, cfg, batch, a, b, c)
    }

    #[allow(clippy::too_many_arguments)]
    fn gemm_impl<T: Element>(
        &self,
        call: &'static str,
        batched: bool,
        cfg: &Gemm<T::Scalar>,
        sb: &StridedBatch,
        a: &dyn DeviceRead<T>,
        b: &dyn DeviceRead<T>,
        c: &mut dyn DeviceWrite<T>,
    ) -> Result<()> {
        let s = &*self.stream;
        check_context(call, "A", s, a)?;
        check_context(call, "B", s, b)?;
        check_context(call, "C", s, c)?;
        let g = cfg.checked::<T>(call, sb, a.len(), b.len(), c.len())?;
        let (compute, mi, ni, ki, lda, ldb, ldc, batch, strides) = (
            g.compute, g.m, g.n, g.k, g.lda, g.ldb, g.ldc, g.batch, g.strides,
        );
        if mi == 0 || ni == 0 || batch == 0 {
            return Ok(());
        }
        let alpha = ScalarBytes::new(cfg.alpha, compute);
        let beta = ScalarBytes::new(cfg.beta, compute);
        let dt = T::DATA_TYPE;
        let (pa, pb, pc) = (a.device_ptr(), b.device_ptr(), c.device_ptr_mut());
        let _g = self.enter()?;
        let acc = [
            Access::read(a),
            Access::read(b),
            Access::write(c),
            self.workspace_access(),
        ];
        self.stream.with_access(&acc, || {
            // SAFETY: every matrix was checked to lie inside its buffer for these dimensions,
            // leading dimensions and strides; the scalars match the compute type; the handle
            // is bound to this stream and the context is current.
            unsafe {
                if !batched {
                    cublas!(cublasGemmEx(
                        self.raw,
                        cfg.transa.raw(),
                        cfg.transb.raw(),
                        mi,
                        ni,
                        ki,
                        alpha.ptr(),
                        pa as *const c_void,
                        dt,
                        lda,
                        pb as *const c_void,
                        dt,
                        ldb,
                        beta.ptr(),
                        pc as *mut c_void,
                        dt,
                        ldc,
                        compute.raw,
                        cublasGemmAlgo_t::CUBLAS_GEMM_DEFAULT
                    ))
                } else {
                    cublas!(cublasGemmStridedBatchedEx(
                        self.raw,
                        cfg.transa.raw(),
                        cfg.transb.raw(),
                        mi,
                        ni,
                        ki,
                        alpha.ptr(),
                        pa as *const c_void,
                        dt,
                        lda,
                        strides[0],
                        pb as *const c_void,
                        dt,
                        ldb,
                        strides[1],
                        beta.ptr(),
                        pc as *mut c_void,
                        dt,
                        ldc,
                        strides[2],
                        batch,
                        compute.raw,
                        cublasGemmAlgo_t::CUBLAS_GEMM_DEFAULT
                    ))
                }
            }
        })
    }
}
