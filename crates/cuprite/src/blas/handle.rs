//! The cuBLAS handle [`Blas`]: bound to one context and one cuprite [`Stream`], with its
//! workspace taken from the stream-ordered pool, and the level-1/2/3 calls on it (`gemm`,
//! strided-batched `gemm`, `gemv`, `dot`, `axpy`, `nrm2`).
//!
//! Every call checks its dimensions against the buffers (checked arithmetic, 32-bit limits)
//! before cuBLAS sees them, and declares each operand's access to the stream tracker
//! ([`Stream::with_access`]), as a kernel launch does: work on other streams is waited for
//! exactly as it must be.

use super::types::{
    Compute, ComputeType, Element, Scalar, ScalarBytes, Transpose, check_context, check_extent,
    check_len, check_matrix, invalid, to_i32, to_i64, vector_extent,
};
use crate::error::{Result, check_cublas};
use crate::memory::{Access, DeviceBuffer, DeviceRead, DeviceWrite};
use crate::stream::Stream;
use cuprite_sys::cublas::{
    self as sys, cublasGemmAlgo_t, cublasHandle_t, cublasPointerMode_t, cudaDataType,
    libraryPropertyType,
};
use std::ffi::c_void;
use std::fmt;
use std::sync::{Arc, Mutex, MutexGuard};

macro_rules! cublas {
    ($name:ident ( $($arg:expr),* $(,)? )) => {
        check_cublas(sys::$name($($arg),*), stringify!($name))
    };
}

/// The version of the cuBLAS library that would be used, as `(major, minor, patch)`. Opens the
/// library; needs no GPU. Without it, an `Err` listing every place it was looked for.
///
/// ```
/// match cuprite::blas::version() {
///     Ok((major, minor, patch)) => println!("cuBLAS {major}.{minor}.{patch}"),
///     Err(e) => println!("no cuBLAS: {e}"),
/// }
/// ```
pub fn version() -> Result<(i32, i32, i32)> {
    let mut v = [0i32; 3];
    for (i, p) in [
        libraryPropertyType::MAJOR_VERSION,
        libraryPropertyType::MINOR_VERSION,
        libraryPropertyType::PATCH_LEVEL,
    ]
    .into_iter()
    .enumerate()
    {
        // SAFETY: a valid out-pointer; no other precondition.
        unsafe { cublas!(cublasGetProperty(p, &mut v[i])) }?;
    }
    Ok((v[0], v[1], v[2]))
}

/// The workspace cuBLAS recommends for the device: 32 MiB from Hopper on, 4 MiB before.
pub(crate) fn recommended_workspace(stream: &Stream) -> Result<usize> {
    let (major, _) = stream.context().device().compute_capability()?;
    Ok(if major >= 9 { 32 << 20 } else { 4 << 20 })
}

/// The parameters of a (batched) matrix product `C = alpha · op(A) · op(B) + beta · C`, BLAS
/// style: column-major, `op(A)` is `m × k`, `op(B)` is `k × n`, `C` is `m × n`.
///
/// [`Gemm::new`] gives packed, untransposed operands (`lda = m`, `ldb = k`, `ldc = m`),
/// `alpha = 1`, `beta = 0` and the default compute type; adjust the fields from there.
///
/// ```
/// use cuprite::blas::{Gemm, Transpose};
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
    /// use cuprite::blas::Gemm;
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
/// let b = cuprite::blas::StridedBatch { batch: 8, stride_a: 64 * 32, stride_b: 0, stride_c: 64 * 16 };
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

/// A cuBLAS handle bound to a context and a cuprite [`Stream`]: everything it does is enqueued
/// on that stream, with the workspace cuBLAS asks for taken from the stream-ordered pool
/// (not allocated by cuBLAS itself). Destroyed on drop. `Send + Sync`: calls from several
/// threads take turns (cuBLAS forbids concurrent use of one handle).
///
/// Matrices are column-major (BLAS convention); for row-major data, compute `Cᵀ = Bᵀ · Aᵀ`, or
/// use [`BlasLt`](crate::blaslt::BlasLt), which takes row-major layouts directly.
///
/// ```no_run
/// use cuprite::blas::{Blas, Gemm};
/// # fn main() -> cuprite::Result<()> {
/// let ctx = cuprite::Context::new(0)?;
/// let stream = ctx.default_stream();
/// let blas = Blas::new(&stream)?;
/// // 2 × 2 column-major: A = [[1, 2], [3, 4]], B = I.
/// let a = stream.clone_htod(&[1.0f32, 3.0, 2.0, 4.0])?;
/// let b = stream.clone_htod(&[1.0f32, 0.0, 0.0, 1.0])?;
/// let mut c = stream.alloc_zeros::<f32>(4)?;
/// blas.gemm(&Gemm::new(2, 2, 2), &a, &b, &mut c)?;
/// assert_eq!(stream.clone_dtoh(&c)?, [1.0, 3.0, 2.0, 4.0]);
/// # Ok(()) }
/// ```
pub struct Blas {
    raw: cublasHandle_t,
    stream: Arc<Stream>,
    /// Serialises calls: one handle must not be used by two threads at once.
    lock: Mutex<()>,
    /// Handed to cuBLAS with `cublasSetWorkspace`; used only on `stream`, so stream order
    /// alone keeps it safe, and freed (stream-ordered) after the handle is destroyed.
    workspace: DeviceBuffer<u8>,
}

// SAFETY: the handle is used only under `lock`, with its context bound to the calling thread;
// cuBLAS handles may move between threads.
unsafe impl Send for Blas {}
// SAFETY: as above: every use of `raw` takes `lock`.
unsafe impl Sync for Blas {}

impl fmt::Debug for Blas {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Blas")
            .field("raw", &self.raw)
            .field("stream", &self.stream)
            .field("workspace_bytes", &self.workspace.len())
            .finish()
    }
}

impl Blas {
    /// A new handle whose work goes on `stream`, with the workspace cuBLAS recommends for the
    /// device (32 MiB on Hopper, 4 MiB before) from the stream-ordered pool.
    pub fn new(stream: &Arc<Stream>) -> Result<Blas> {
        let bytes = recommended_workspace(stream)?;
        Self::with_workspace(stream, bytes)
    }

    /// Like [`new`](Self::new), with `bytes` of workspace (0: none; cuBLAS then runs the
    /// kernels that need none).
    pub fn with_workspace(stream: &Arc<Stream>, bytes: usize) -> Result<Blas> {
        let ctx = stream.context();
        ctx.bind_to_thread()?;
        // SAFETY: the workspace is handed to cuBLAS before any kernel can read it, and cuBLAS
        // only uses it as scratch space.
        let workspace = unsafe { stream.alloc::<u8>(bytes) }?;
        let mut raw: cublasHandle_t = std::ptr::null_mut();
        // SAFETY: a valid out-pointer; the context is current.
        unsafe { cublas!(cublasCreate_v2(&mut raw)) }?;
        let blas = Blas {
            raw,
            stream: stream.clone(),
            lock: Mutex::new(()),
            workspace,
        };
        // SAFETY: a live handle and a live stream of the current context.
        unsafe { cublas!(cublasSetStream_v2(raw, stream.raw())) }?;
        let ws = blas.workspace.device_ptr() as *mut c_void;
        // SAFETY: `ws` is `bytes` bytes of device memory of this context, kept alive by the
        // handle, used only on the handle's stream.
        unsafe { cublas!(cublasSetWorkspace_v2(raw, ws, bytes)) }?;
        // SAFETY: a live handle.
        unsafe {
            cublas!(cublasSetPointerMode_v2(
                raw,
                cublasPointerMode_t::CUBLAS_POINTER_MODE_HOST
            ))
        }?;
        Ok(blas)
    }

    /// The stream everything is enqueued on.
    pub fn stream(&self) -> &Arc<Stream> {
        &self.stream
    }

    /// The raw handle, for calls cuprite does not wrap. Declare their accesses with
    /// [`Stream::begin_access`] / [`Stream::end_access`] and keep the handle's stream and
    /// pointer mode (host) as they are.
    pub fn raw(&self) -> cublasHandle_t {
        self.raw
    }

    /// The workspace size in bytes.
    pub fn workspace_bytes(&self) -> usize {
        self.workspace.len()
    }

    fn enter(&self) -> Result<MutexGuard<'_, ()>> {
        let g = self
            .lock
            .lock()
            .map_err(|_| invalid("cuBLAS handle lock poisoned".into()))?;
        self.stream.context().bind_to_thread()?;
        Ok(g)
    }

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
    /// use cuprite::blas::{Blas, Gemm, StridedBatch};
    /// # fn main() -> cuprite::Result<()> {
    /// let ctx = cuprite::Context::new(0)?;
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
        let acc = [Access::read(a), Access::read(b), Access::write(c)];
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

    /// `y = alpha · op(A) · x + beta · y`, A column-major `m × n` with leading dimension `lda`,
    /// `x` and `y` strided by `incx`/`incy` (at least 1). `f16` and `bf16` accumulate in `f32`.
    ///
    /// ```no_run
    /// use cuprite::blas::{Blas, Transpose};
    /// # fn main() -> cuprite::Result<()> {
    /// let ctx = cuprite::Context::new(0)?;
    /// let s = ctx.default_stream();
    /// let blas = Blas::new(&s)?;
    /// let a = s.clone_htod(&[1.0f32, 3.0, 2.0, 4.0])?; // [[1, 2], [3, 4]]
    /// let x = s.clone_htod(&[1.0f32, 1.0])?;
    /// let mut y = s.alloc_zeros::<f32>(2)?;
    /// blas.gemv(Transpose::None, 2, 2, 1.0, &a, 2, &x, 1, 0.0, &mut y, 1)?;
    /// assert_eq!(s.clone_dtoh(&y)?, [3.0, 7.0]);
    /// # Ok(()) }
    /// ```
    #[allow(clippy::too_many_arguments)]
    pub fn gemv<T: Element>(
        &self,
        trans: Transpose,
        m: usize,
        n: usize,
        alpha: T::Scalar,
        a: &dyn DeviceRead<T>,
        lda: usize,
        x: &dyn DeviceRead<T>,
        incx: usize,
        beta: T::Scalar,
        y: &mut dyn DeviceWrite<T>,
        incy: usize,
    ) -> Result<()> {
        const CALL: &str = "gemv";
        let s = &*self.stream;
        check_matrix(CALL, "A", s, a, m, n, lda, 1, 0)?;
        let (xn, yn) = if trans.is_transposed() {
            (m, n)
        } else {
            (n, m)
        };
        check_context(CALL, "x", s, x)?;
        check_context(CALL, "y", s, y)?;
        check_len(CALL, "x", x, vector_extent(CALL, "x", xn, incx)?)?;
        check_len(CALL, "y", y, vector_extent(CALL, "y", yn, incy)?)?;
        let (mi, ni, ldai) = (
            to_i32(CALL, "m", m)?,
            to_i32(CALL, "n", n)?,
            to_i32(CALL, "lda", lda)?,
        );
        let (incxi, incyi) = (to_i32(CALL, "incx", incx)?, to_i32(CALL, "incy", incy)?);
        if m == 0 || n == 0 {
            return Ok(());
        }
        let (pa, px, py) = (a.device_ptr(), x.device_ptr(), y.device_ptr_mut());
        let (alpha, beta) = (ScalarBytes::plain(alpha), ScalarBytes::plain(beta));
        let (al, be) = (alpha.ptr(), beta.ptr());
        let op = trans.raw();
        let h = self.raw;
        let _g = self.enter()?;
        let acc = [Access::read(a), Access::read(x), Access::write(y)];
        self.stream.with_access(&acc, || {
            // SAFETY: A, x and y were checked to hold the elements these dimensions and
            // increments reach; each typed entry point is called with its own element type
            // (T::DATA_TYPE picks it) and that type's scalar type.
            unsafe {
                match T::DATA_TYPE {
                    cudaDataType::CUDA_R_32F => cublas!(cublasSgemv_v2(
                        h,
                        op,
                        mi,
                        ni,
                        al.cast(),
                        pa as *const f32,
                        ldai,
                        px as *const f32,
                        incxi,
                        be.cast(),
                        py as *mut f32,
                        incyi
                    )),
                    cudaDataType::CUDA_R_64F => cublas!(cublasDgemv_v2(
                        h,
                        op,
                        mi,
                        ni,
                        al.cast(),
                        pa as *const f64,
                        ldai,
                        px as *const f64,
                        incxi,
                        be.cast(),
                        py as *mut f64,
                        incyi
                    )),
                    cudaDataType::CUDA_C_32F => cublas!(cublasCgemv_v2(
                        h,
                        op,
                        mi,
                        ni,
                        al.cast(),
                        pa as *const sys::cuComplex,
                        ldai,
                        px as *const sys::cuComplex,
                        incxi,
                        be.cast(),
                        py as *mut sys::cuComplex,
                        incyi
                    )),
                    cudaDataType::CUDA_C_64F => cublas!(cublasZgemv_v2(
                        h,
                        op,
                        mi,
                        ni,
                        al.cast(),
                        pa as *const sys::cuDoubleComplex,
                        ldai,
                        px as *const sys::cuDoubleComplex,
                        incxi,
                        be.cast(),
                        py as *mut sys::cuDoubleComplex,
                        incyi
                    )),
                    cudaDataType::CUDA_R_16F => cublas!(cublasHSHgemvStridedBatched(
                        h,
                        op,
                        mi,
                        ni,
                        al.cast(),
                        pa as *const u16,
                        ldai,
                        0,
                        px as *const u16,
                        incxi,
                        0,
                        be.cast(),
                        py as *mut u16,
                        incyi,
                        0,
                        1
                    )),
                    cudaDataType::CUDA_R_16BF => cublas!(cublasTSTgemvStridedBatched(
                        h,
                        op,
                        mi,
                        ni,
                        al.cast(),
                        pa as *const u16,
                        ldai,
                        0,
                        px as *const u16,
                        incxi,
                        0,
                        be.cast(),
                        py as *mut u16,
                        incyi,
                        0,
                        1
                    )),
                    other => Err(invalid(format!("gemv: unsupported data type {other:?}"))),
                }
            }
        })
    }

    /// `result[0] = Σ x_i · y_i` (no conjugation), written on the device: no host wait.
    /// `f16`/`bf16` accumulate in `f32`. See [`dotc`](Self::dotc) for `Σ conj(x_i) · y_i`.
    ///
    /// ```no_run
    /// use cuprite::blas::Blas;
    /// # fn main() -> cuprite::Result<()> {
    /// let ctx = cuprite::Context::new(0)?;
    /// let s = ctx.default_stream();
    /// let blas = Blas::new(&s)?;
    /// let x = s.clone_htod(&[1.0f64, 2.0, 3.0])?;
    /// let mut r = s.alloc_zeros::<f64>(1)?;
    /// blas.dot(3, &x, 1, &x, 1, &mut r)?;
    /// assert_eq!(s.clone_dtoh(&r)?, [14.0]);
    /// # Ok(()) }
    /// ```
    pub fn dot<T: Element>(
        &self,
        n: usize,
        x: &dyn DeviceRead<T>,
        incx: usize,
        y: &dyn DeviceRead<T>,
        incy: usize,
        result: &mut dyn DeviceWrite<T>,
    ) -> Result<()> {
        self.dot_impl(false, n, x, incx, y, incy, result)
    }

    /// `result[0] = Σ conj(x_i) · y_i` (the same as [`dot`](Self::dot) for real types).
    pub fn dotc<T: Element>(
        &self,
        n: usize,
        x: &dyn DeviceRead<T>,
        incx: usize,
        y: &dyn DeviceRead<T>,
        incy: usize,
        result: &mut dyn DeviceWrite<T>,
    ) -> Result<()> {
        self.dot_impl(T::IS_COMPLEX, n, x, incx, y, incy, result)
    }

    #[allow(clippy::too_many_arguments)]
    fn dot_impl<T: Element>(
        &self,
        conj: bool,
        n: usize,
        x: &dyn DeviceRead<T>,
        incx: usize,
        y: &dyn DeviceRead<T>,
        incy: usize,
        result: &mut dyn DeviceWrite<T>,
    ) -> Result<()> {
        const CALL: &str = "dot";
        let s = &*self.stream;
        for (what, v, inc) in [("x", x, incx), ("y", y, incy)] {
            check_context(CALL, what, s, v)?;
            check_len(CALL, what, v, vector_extent(CALL, what, n, inc)?)?;
        }
        check_context(CALL, "result", s, result)?;
        check_len(CALL, "result", result, 1)?;
        let ni = to_i32(CALL, "n", n)?;
        let (incxi, incyi) = (to_i32(CALL, "incx", incx)?, to_i32(CALL, "incy", incy)?);
        let dt = T::DATA_TYPE;
        let exec = exec_type(dt);
        let (px, py, pr) = (x.device_ptr(), y.device_ptr(), result.device_ptr_mut());
        let _g = self.enter()?;
        let _mode = DevicePointerMode::set(self.raw)?;
        let acc = [Access::read(x), Access::read(y), Access::write(result)];
        self.stream.with_access(&acc, || {
            // SAFETY: x and y hold the elements n and the increments reach, result holds one
            // element of T; the pointer mode is device for the result, restored after.
            unsafe {
                if conj {
                    cublas!(cublasDotcEx(
                        self.raw,
                        ni,
                        px as *const c_void,
                        dt,
                        incxi,
                        py as *const c_void,
                        dt,
                        incyi,
                        pr as *mut c_void,
                        dt,
                        exec
                    ))
                } else {
                    cublas!(cublasDotEx(
                        self.raw,
                        ni,
                        px as *const c_void,
                        dt,
                        incxi,
                        py as *const c_void,
                        dt,
                        incyi,
                        pr as *mut c_void,
                        dt,
                        exec
                    ))
                }
            }
        })
    }

    /// `y = alpha · x + y` over `n` elements strided by `incx`/`incy`. `f16`/`bf16` compute in
    /// `f32` (`alpha` is `f32`).
    ///
    /// ```no_run
    /// use cuprite::blas::Blas;
    /// # fn main() -> cuprite::Result<()> {
    /// let ctx = cuprite::Context::new(0)?;
    /// let s = ctx.default_stream();
    /// let blas = Blas::new(&s)?;
    /// let x = s.clone_htod(&[1.0f32, 2.0])?;
    /// let mut y = s.clone_htod(&[10.0f32, 20.0])?;
    /// blas.axpy(2, 3.0, &x, 1, &mut y, 1)?;
    /// assert_eq!(s.clone_dtoh(&y)?, [13.0, 26.0]);
    /// # Ok(()) }
    /// ```
    pub fn axpy<T: Element>(
        &self,
        n: usize,
        alpha: T::Scalar,
        x: &dyn DeviceRead<T>,
        incx: usize,
        y: &mut dyn DeviceWrite<T>,
        incy: usize,
    ) -> Result<()> {
        const CALL: &str = "axpy";
        let s = &*self.stream;
        check_context(CALL, "x", s, x)?;
        check_context(CALL, "y", s, y)?;
        check_len(CALL, "x", x, vector_extent(CALL, "x", n, incx)?)?;
        check_len(CALL, "y", y, vector_extent(CALL, "y", n, incy)?)?;
        let ni = to_i32(CALL, "n", n)?;
        let (incxi, incyi) = (to_i32(CALL, "incx", incx)?, to_i32(CALL, "incy", incy)?);
        let dt = T::DATA_TYPE;
        let exec = exec_type(dt);
        let (px, py) = (x.device_ptr(), y.device_ptr_mut());
        let alpha = ScalarBytes::plain(alpha);
        let al = alpha.ptr();
        let _g = self.enter()?;
        let acc = [Access::read(x), Access::write(y)];
        self.stream.with_access(&acc, || {
            // SAFETY: x and y hold the elements n and the increments reach; alpha is a host
            // scalar of its declared type.
            unsafe {
                cublas!(cublasAxpyEx(
                    self.raw,
                    ni,
                    al.cast(),
                    <T::Scalar as Scalar>::DATA_TYPE,
                    px as *const c_void,
                    dt,
                    incxi,
                    py as *mut c_void,
                    dt,
                    incyi,
                    exec
                ))
            }
        })
    }

    /// `result[0] = ‖x‖₂` over `n` elements strided by `incx`, written on the device (as
    /// `T::Real`: `f32` for `Complex<f32>`, the type itself for real types).
    ///
    /// ```no_run
    /// use cuprite::blas::Blas;
    /// # fn main() -> cuprite::Result<()> {
    /// let ctx = cuprite::Context::new(0)?;
    /// let s = ctx.default_stream();
    /// let blas = Blas::new(&s)?;
    /// let x = s.clone_htod(&[3.0f32, 4.0])?;
    /// let mut r = s.alloc_zeros::<f32>(1)?;
    /// blas.nrm2(2, &x, 1, &mut r)?;
    /// assert_eq!(s.clone_dtoh(&r)?, [5.0]);
    /// # Ok(()) }
    /// ```
    pub fn nrm2<T: Element>(
        &self,
        n: usize,
        x: &dyn DeviceRead<T>,
        incx: usize,
        result: &mut dyn DeviceWrite<T::Real>,
    ) -> Result<()> {
        const CALL: &str = "nrm2";
        let s = &*self.stream;
        check_context(CALL, "x", s, x)?;
        check_len(CALL, "x", x, vector_extent(CALL, "x", n, incx)?)?;
        check_context(CALL, "result", s, result)?;
        check_len(CALL, "result", result, 1)?;
        let ni = to_i32(CALL, "n", n)?;
        let incxi = to_i32(CALL, "incx", incx)?;
        let rt = <T::Real as Element>::DATA_TYPE;
        let exec = exec_type(rt);
        let (px, pr) = (x.device_ptr(), result.device_ptr_mut());
        let _g = self.enter()?;
        let _mode = DevicePointerMode::set(self.raw)?;
        let acc = [Access::read(x), Access::write(result)];
        self.stream.with_access(&acc, || {
            // SAFETY: x holds the elements n and incx reach, result one element of T::Real;
            // the pointer mode is device for the result, restored after.
            unsafe {
                cublas!(cublasNrm2Ex(
                    self.raw,
                    ni,
                    px as *const c_void,
                    T::DATA_TYPE,
                    incxi,
                    pr as *mut c_void,
                    rt,
                    exec
                ))
            }
        })
    }
}

/// The execution type of the `*Ex` level-1 calls: `f32` for the half types, else the type.
fn exec_type(dt: cudaDataType) -> cudaDataType {
    if dt == cudaDataType::CUDA_R_16F || dt == cudaDataType::CUDA_R_16BF {
        cudaDataType::CUDA_R_32F
    } else {
        dt
    }
}

/// Device pointer mode for the life of the guard (results written to device memory), host mode
/// again on drop. Only made while the handle's lock is held.
struct DevicePointerMode(cublasHandle_t);

impl DevicePointerMode {
    fn set(h: cublasHandle_t) -> Result<Self> {
        // SAFETY: a live handle, used under its lock.
        unsafe {
            cublas!(cublasSetPointerMode_v2(
                h,
                cublasPointerMode_t::CUBLAS_POINTER_MODE_DEVICE
            ))
        }?;
        Ok(DevicePointerMode(h))
    }
}

impl Drop for DevicePointerMode {
    fn drop(&mut self) {
        // SAFETY: as in `set`. Setting a mode cannot fail on a live handle.
        let _ = unsafe {
            sys::cublasSetPointerMode_v2(self.0, cublasPointerMode_t::CUBLAS_POINTER_MODE_HOST)
        };
    }
}

impl Drop for Blas {
    fn drop(&mut self) {
        let ctx = self.stream.context();
        let r = ctx.bind_to_thread_no_deferred().and_then(|()| {
            // SAFETY: this object created the handle and is its only owner; work already
            // enqueued completes, and the workspace is freed stream-ordered after it.
            unsafe { cublas!(cublasDestroy_v2(self.raw)) }
        });
        if let Err(e) = r {
            ctx.defer("cublasDestroy of a Blas handle", e);
        }
    }
}
