//! cuBLASLt: matrix products with row- or column-major layouts, batch strides and fused
//! epilogues (bias, ReLU, GELU and their gradients), through a [`BlasLt`] handle bound to a
//! context and a cuprite stream.
//!
//! [`BlasLt::matmul`] computes, for each of `batch` products,
//! `D = epilogue(alpha · A · B + beta · C)` with `A` `m × k`, `B` `k × n` and `C`, `D` `m × n`,
//! each operand described by a [`Layout`] (order, leading dimension, batch stride). Transposed
//! and strided views are layouts too: a row-major `k × m` matrix read as its transpose is the
//! column-major `m × k` layout with the same leading dimension, so no copy is ever needed.
//!
//! The algorithm cuBLASLt's heuristic picks is cached in the handle per problem (shape, element
//! and compute type, layouts, epilogue, pointer alignment), with its descriptors: a warm call
//! checks its arguments, finds its plan, and enqueues. This module owns the translation of
//! row-major problems into cuBLASLt's column-major frame; it must not decide stream order (that
//! is [`Stream::with_access`]'s job).

use crate::blas::{
    Compute, ComputeType, Element, Scalar, ScalarBytes, batched_extent, check_context, check_len,
    invalid, recommended_workspace, to_i32,
};
use crate::error::{Error, Result, check_cublaslt, cublas_error};
use crate::memory::{Access, DeviceBuffer, DeviceRead, DeviceWrite};
use crate::stream::Stream;
use cuprite_sys::cublas::{cublasOperation_t, cublasStatus_t, cudaDataType, libraryPropertyType};
use cuprite_sys::cublaslt::{
    self as sys, cublasLtEpilogue_t as Epi, cublasLtHandle_t, cublasLtMatmulAlgo_t,
    cublasLtMatmulDesc_t, cublasLtMatmulDescAttributes_t as DescAttr,
    cublasLtMatmulHeuristicResult_t, cublasLtMatmulPreference_t,
    cublasLtMatmulPreferenceAttributes_t as PrefAttr, cublasLtMatrixLayout_t,
    cublasLtMatrixLayoutAttribute_t as LayoutAttr,
};
use std::collections::HashMap;
use std::ffi::c_void;
use std::fmt;
use std::sync::{Arc, Mutex};

macro_rules! lt {
    ($name:ident ( $($arg:expr),* $(,)? )) => {
        check_cublaslt(sys::$name($($arg),*), stringify!($name))
    };
}

/// The version of the cuBLASLt library that would be used, as `(major, minor, patch)`. Opens
/// the library; needs no GPU.
///
/// ```
/// match cuprite::blaslt::version() {
///     Ok(v) => println!("cuBLASLt {v:?}"),
///     Err(e) => println!("no cuBLASLt: {e}"),
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
        unsafe { lt!(cublasLtGetProperty(p, &mut v[i])) }?;
    }
    Ok((v[0], v[1], v[2]))
}

/// The memory order of a matrix.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Order {
    /// Element `(i, j)` at `i * ld + j` (C order; `ld` at least the column count).
    #[default]
    RowMajor,
    /// Element `(i, j)` at `i + j * ld` (Fortran order; `ld` at least the row count).
    ColMajor,
}

impl Order {
    fn flip(self) -> Order {
        match self {
            Order::RowMajor => Order::ColMajor,
            Order::ColMajor => Order::RowMajor,
        }
    }
}

/// Where the elements of a (batch of) matrices lie: the order, the leading dimension (elements
/// between consecutive rows for row-major, columns for column-major) and the batch stride
/// (elements between consecutive matrices of a batch; 0 reuses one matrix for every product,
/// which an output may not do).
///
/// ```
/// use cuprite::blaslt::{Layout, Order};
/// let l = Layout::row_major(1024).with_batch_stride(1024 * 512);
/// assert_eq!((l.order, l.ld, l.batch_stride), (Order::RowMajor, 1024, 1024 * 512));
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Layout {
    /// Row- or column-major.
    pub order: Order,
    /// The leading dimension, in elements.
    pub ld: usize,
    /// Elements between consecutive matrices of a batch.
    pub batch_stride: usize,
}

impl Layout {
    /// Row-major with leading dimension `ld`, batch stride 0.
    pub fn row_major(ld: usize) -> Self {
        Layout {
            order: Order::RowMajor,
            ld,
            batch_stride: 0,
        }
    }

    /// Column-major with leading dimension `ld`, batch stride 0.
    pub fn col_major(ld: usize) -> Self {
        Layout {
            order: Order::ColMajor,
            ld,
            batch_stride: 0,
        }
    }

    /// The same with batch stride `stride`.
    pub fn with_batch_stride(self, stride: usize) -> Self {
        Layout {
            batch_stride: stride,
            ..self
        }
    }

    /// The elements one `rows × cols` matrix spans; `Err` when `ld` is too small.
    fn extent(&self, what: &str, rows: usize, cols: usize) -> Result<usize> {
        let (inner, outer) = match self.order {
            Order::RowMajor => (cols, rows),
            Order::ColMajor => (rows, cols),
        };
        if self.ld < inner.max(1) {
            return Err(invalid(format!(
                "matmul: leading dimension of {what} is {}, but a {:?} {rows} × {cols} matrix needs \
                 at least {}",
                self.ld,
                self.order,
                inner.max(1)
            )));
        }
        if rows == 0 || cols == 0 {
            return Ok(0);
        }
        (outer - 1)
            .checked_mul(self.ld)
            .and_then(|x| x.checked_add(inner))
            .ok_or_else(|| invalid(format!("matmul: the size of {what} overflows usize")))
    }
}

/// The shape, layouts, scalars and compute type of a (batched) product
/// `D = epilogue(alpha · A · B + beta · C)`: `A` is `m × k`, `B` is `k × n`, `C` and `D` are
/// `m × n`, all as *logical* matrices, each stored as its [`Layout`] says.
///
/// ```
/// use cuprite::blaslt::{Layout, Matmul, Order};
/// // Row-major y = x · wᵀ with w stored row-major as n × k (a linear layer):
/// let (m, n, k) = (32, 4096, 1024);
/// let mut mm = Matmul::<f32>::row_major(m, n, k);
/// mm.b = Layout::col_major(k); // wᵀ: the k × n transpose of a row-major n × k matrix
/// assert_eq!((mm.d.order, mm.d.ld), (Order::RowMajor, n));
/// ```
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Matmul<S> {
    /// Rows of A and D.
    pub m: usize,
    /// Columns of B and D.
    pub n: usize,
    /// Columns of A, rows of B (at least 1).
    pub k: usize,
    /// The number of products (1: a single product).
    pub batch: usize,
    /// Where A lies.
    pub a: Layout,
    /// Where B lies.
    pub b: Layout,
    /// Where D lies (C too, when C is D).
    pub d: Layout,
    /// The factor of the product.
    pub alpha: S,
    /// The factor of C (0: C is not read).
    pub beta: S,
    /// The accumulation precision.
    pub compute: ComputeType,
}

impl<S: Scalar> Matmul<S> {
    /// `D = A · B` with packed row-major operands (`lda = k`, `ldb = n`, `ldd = n`), batch 1,
    /// batch strides set for packed batches (`m·k`, `k·n`, `m·n`).
    pub fn row_major(m: usize, n: usize, k: usize) -> Self {
        Self::packed(Order::RowMajor, m, n, k)
    }

    /// `D = A · B` with packed column-major operands (`lda = m`, `ldb = k`, `ldd = m`).
    pub fn col_major(m: usize, n: usize, k: usize) -> Self {
        Self::packed(Order::ColMajor, m, n, k)
    }

    fn packed(order: Order, m: usize, n: usize, k: usize) -> Self {
        let ld = |rows: usize, cols: usize| match order {
            Order::RowMajor => cols.max(1),
            Order::ColMajor => rows.max(1),
        };
        let l = |rows: usize, cols: usize| Layout {
            order,
            ld: ld(rows, cols),
            batch_stride: rows.saturating_mul(cols),
        };
        Matmul {
            m,
            n,
            k,
            batch: 1,
            a: l(m, k),
            b: l(k, n),
            d: l(m, n),
            alpha: S::ONE,
            beta: S::ZERO,
            compute: ComputeType::Default,
        }
    }

    /// The same with `batch` products.
    pub fn with_batch(self, batch: usize) -> Self {
        Matmul { batch, ..self }
    }

    /// Checks this product for element type `T` against buffers of `a_len`, `b_len`, `d_len`
    /// elements (and C's length and layout when C is not D), exactly as [`BlasLt::matmul`]
    /// does before cuBLASLt sees it: the compute type suits `T`, `k ≥ 1`, each leading
    /// dimension covers its matrix's contiguous size, each buffer holds every element the
    /// dimensions, leading dimensions and batch strides reach (checked arithmetic), D's batch
    /// does not overlap, C has D's order, and every value fits cuBLASLt's argument types
    /// (`batch` 32-bit). The epilogue's buffers are checked by `matmul`. Needs no GPU.
    ///
    /// ```
    /// use cuprite::blaslt::Matmul;
    /// let mm = Matmul::<f32>::row_major(8, 4, 2);
    /// assert!(mm.validate::<f32>(16, 8, None, 32).is_ok());
    /// assert!(mm.validate::<f32>(16, 8, None, 31).is_err()); // D is one element short
    /// ```
    pub fn validate<T: Element<Scalar = S>>(
        &self,
        a_len: usize,
        b_len: usize,
        c: Option<(usize, Layout)>,
        d_len: usize,
    ) -> Result<()> {
        self.checked::<T>(a_len, b_len, c, d_len)
    }

    fn checked<T: Element>(
        &self,
        a_len: usize,
        b_len: usize,
        c: Option<(usize, Layout)>,
        d_len: usize,
    ) -> Result<()> {
        const CALL: &str = "matmul";
        self.compute.resolve::<T>()?;
        let (m, n, k, batch) = (self.m, self.n, self.k, self.batch);
        if k == 0 {
            return Err(invalid(format!(
                "{CALL}: k = 0 (an empty inner dimension) is not supported by cuBLASLt; the \
                 product of {m} × 0 and 0 × {n} matrices is zero"
            )));
        }
        check_layout("A", a_len, &self.a, m, k, batch, false)?;
        check_layout("B", b_len, &self.b, k, n, batch, false)?;
        check_layout("D", d_len, &self.d, m, n, batch, true)?;
        if let Some((c_len, cl)) = &c {
            if cl.order != self.d.order {
                return Err(invalid(format!(
                    "{CALL}: C is {:?} but D is {:?}: cuBLASLt needs them in the same order",
                    cl.order, self.d.order
                )));
            }
            check_layout("C", *c_len, cl, m, n, batch, false)?;
        }
        to_i32(CALL, "batch", batch)?;
        Ok(())
    }
}

/// What is applied to `alpha · A · B + beta · C` before it is stored in D, with the buffers each
/// epilogue reads or writes.
///
/// **Bias vectors** have one element per index of D's *contiguous* dimension: one per column
/// for a row-major D (NumPy's `a @ b + bias`), one per row for a column-major D. They are
/// shared by every product of a batch. **GELU** is the tanh approximation
/// `0.5·x·(1 + tanh(√(2/π)·(x + 0.044715·x³)))`, as cuBLASLt computes it.
///
/// The gradient epilogues serve a backward pass: [`GeluAux`](Self::GeluAux) stores the GELU
/// input (the pre-activation) beside the output, [`DGelu`](Self::DGelu) multiplies the product
/// by GELU's derivative at that stored input (and can reduce the result into a bias gradient),
/// [`BiasGradA`](Self::BiasGradA) / [`BiasGradB`](Self::BiasGradB) reduce an input over `k`.
/// They are for single products (`batch = 1`); cuBLASLt supports them for some element types
/// only, and answers `CUBLAS_STATUS_NOT_SUPPORTED` for the others.
#[non_exhaustive]
pub enum Epilogue<'a, T> {
    /// `D = x`.
    None,
    /// `D = max(x, 0)`.
    Relu,
    /// `D = gelu(x)`.
    Gelu,
    /// `D = x + bias`.
    Bias(&'a dyn DeviceRead<T>),
    /// `D = max(x + bias, 0)`.
    BiasRelu(&'a dyn DeviceRead<T>),
    /// `D = gelu(x + bias)`.
    BiasGelu(&'a dyn DeviceRead<T>),
    /// `D = gelu(x + bias)` (bias optional), and `aux = x + bias`, stored in D's order with
    /// leading dimension `ld` (a multiple of 8, at least D's contiguous size).
    GeluAux {
        /// The optional bias.
        bias: Option<&'a dyn DeviceRead<T>>,
        /// Where the GELU input goes.
        aux: &'a mut dyn DeviceWrite<T>,
        /// Its leading dimension.
        ld: usize,
    },
    /// `D = x · gelu'(aux)` with `aux` as [`GeluAux`](Self::GeluAux) stored it; with
    /// `bias_grad`, also the sum of the result over D's non-contiguous dimension (one element
    /// per index of D's contiguous dimension).
    DGelu {
        /// The GELU input of the forward pass.
        aux: &'a dyn DeviceRead<T>,
        /// Its leading dimension (a multiple of 8).
        ld: usize,
        /// Where the bias gradient goes, if wanted.
        bias_grad: Option<&'a mut dyn DeviceWrite<T>>,
    },
    /// `D = x`, and `bias_grad[i] = Σ_k A[i, k]` (`m` elements). A must be column-major
    /// (cuBLASLt reduces it only so).
    BiasGradA(&'a mut dyn DeviceWrite<T>),
    /// `D = x`, and `bias_grad[j] = Σ_k B[k, j]` (`n` elements). B must be row-major (cuBLASLt
    /// reduces it only so).
    BiasGradB(&'a mut dyn DeviceWrite<T>),
}

impl<T> fmt::Debug for Epilogue<'_, T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let name = match self {
            Epilogue::None => "None",
            Epilogue::Relu => "Relu",
            Epilogue::Gelu => "Gelu",
            Epilogue::Bias(_) => "Bias",
            Epilogue::BiasRelu(_) => "BiasRelu",
            Epilogue::BiasGelu(_) => "BiasGelu",
            Epilogue::GeluAux { bias: None, .. } => "GeluAux",
            Epilogue::GeluAux { bias: Some(_), .. } => "BiasGeluAux",
            Epilogue::DGelu {
                bias_grad: None, ..
            } => "DGelu",
            Epilogue::DGelu {
                bias_grad: Some(_), ..
            } => "DGeluBiasGrad",
            Epilogue::BiasGradA(_) => "BiasGradA",
            Epilogue::BiasGradB(_) => "BiasGradB",
        };
        f.write_str(name)
    }
}

/// One operand in cuBLASLt's column-major frame.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
struct LtMatrix {
    rows: u64,
    cols: u64,
    ld: i64,
    stride: i64,
}

/// Everything the descriptors and the heuristic depend on: the plan cache's key.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
struct PlanKey {
    dtype: i32,
    compute: i32,
    half_scalars: bool,
    batch: i32,
    trans_a: bool,
    trans_b: bool,
    a: LtMatrix,
    b: LtMatrix,
    c: Option<LtMatrix>,
    d: LtMatrix,
    epilogue: u32,
    aux_ld: i64,
    /// log2 of the alignment (capped at 256 bytes) of A, B, C, D, bias, aux.
    align: [u8; 6],
}

/// Cached descriptors and the chosen algorithm of one problem.
struct Plan {
    desc: cublasLtMatmulDesc_t,
    a: cublasLtMatrixLayout_t,
    b: cublasLtMatrixLayout_t,
    c: Option<cublasLtMatrixLayout_t>,
    d: cublasLtMatrixLayout_t,
    algo: cublasLtMatmulAlgo_t,
    workspace: usize,
}

impl Plan {
    fn destroy(&mut self) {
        // SAFETY: each descriptor was created by this plan and is destroyed once (then nulled).
        unsafe {
            if !self.desc.is_null() {
                let _ = sys::cublasLtMatmulDescDestroy(self.desc);
            }
            for l in [Some(self.a), Some(self.b), self.c, Some(self.d)]
                .into_iter()
                .flatten()
            {
                if !l.is_null() {
                    let _ = sys::cublasLtMatrixLayoutDestroy(l);
                }
            }
        }
        self.desc = std::ptr::null_mut();
        self.a = std::ptr::null_mut();
        self.b = std::ptr::null_mut();
        self.c = None;
        self.d = std::ptr::null_mut();
    }
}

#[derive(Default)]
struct Plans {
    list: Vec<Plan>,
    index: HashMap<PlanKey, usize>,
    /// The last plan used: a repeated call skips the hash.
    last: Option<(PlanKey, usize)>,
}

/// A cuBLASLt handle bound to a context and a cuprite [`Stream`], with a workspace from the
/// stream-ordered pool and a cache of planned problems. Destroyed on drop (with its plans).
/// `Send + Sync`; calls from several threads take turns.
///
/// ```no_run
/// use cuprite::blaslt::{BlasLt, Epilogue, Matmul};
/// # fn main() -> cuprite::Result<()> {
/// let ctx = cuprite::Context::new(0)?;
/// let s = ctx.default_stream();
/// let lt = BlasLt::new(&s)?;
/// // Row-major 2 × 2: relu([[1, -2], [3, -4]] · I + [0.5, 0.5]).
/// let a = s.clone_htod(&[1.0f32, -2.0, 3.0, -4.0])?;
/// let b = s.clone_htod(&[1.0f32, 0.0, 0.0, 1.0])?;
/// let bias = s.clone_htod(&[0.5f32, 0.5])?;
/// let mut d = s.alloc_zeros::<f32>(4)?;
/// lt.matmul(&Matmul::row_major(2, 2, 2), &a, &b, None, &mut d, Epilogue::BiasRelu(&bias))?;
/// assert_eq!(s.clone_dtoh(&d)?, [1.5, 0.0, 3.5, 0.0]);
/// # Ok(()) }
/// ```
pub struct BlasLt {
    raw: cublasLtHandle_t,
    stream: Arc<Stream>,
    plans: Mutex<Plans>,
    /// Passed to every matmul; used only on `stream`, freed stream-ordered after the handle.
    workspace: DeviceBuffer<u8>,
}

// SAFETY: the handle and the plans' descriptors are used only under `plans`' lock, with the
// context bound to the calling thread; cuBLASLt objects may move between threads.
unsafe impl Send for BlasLt {}
// SAFETY: as above.
unsafe impl Sync for BlasLt {}

impl fmt::Debug for BlasLt {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("BlasLt")
            .field("raw", &self.raw)
            .field("stream", &self.stream)
            .field("workspace_bytes", &self.workspace.len())
            .field("cached_plans", &self.cached_plans())
            .finish()
    }
}

/// The operands of one call, in cuBLASLt's frame.
struct Resolved {
    key: PlanKey,
    epilogue: Epi,
    /// A and B as cuBLASLt sees them (swapped for a row-major D).
    ptr_a: u64,
    ptr_b: u64,
    ptr_c: u64,
    ptr_d: u64,
    bias: u64,
    aux: u64,
}

fn align_log2(p: u64) -> u8 {
    if p == 0 {
        8
    } else {
        (p.trailing_zeros() as u8).min(8)
    }
}

impl BlasLt {
    /// A new handle whose work goes on `stream`, with the workspace cuBLAS recommends for the
    /// device (32 MiB on Hopper, 4 MiB before) from the stream-ordered pool.
    pub fn new(stream: &Arc<Stream>) -> Result<BlasLt> {
        let bytes = recommended_workspace(stream)?;
        Self::with_workspace(stream, bytes)
    }

    /// Like [`new`](Self::new), with `bytes` of workspace (0: only algorithms that need none).
    pub fn with_workspace(stream: &Arc<Stream>, bytes: usize) -> Result<BlasLt> {
        stream.context().bind_to_thread()?;
        // SAFETY: only ever passed to cuBLASLt as scratch space.
        let workspace = unsafe { stream.alloc::<u8>(bytes) }?;
        let mut raw: cublasLtHandle_t = std::ptr::null_mut();
        // SAFETY: a valid out-pointer; the context is current.
        unsafe { lt!(cublasLtCreate(&mut raw)) }?;
        Ok(BlasLt {
            raw,
            stream: stream.clone(),
            plans: Mutex::new(Plans::default()),
            workspace,
        })
    }

    /// The stream everything is enqueued on.
    pub fn stream(&self) -> &Arc<Stream> {
        &self.stream
    }

    /// The raw handle, for calls cuprite does not wrap.
    pub fn raw(&self) -> cublasLtHandle_t {
        self.raw
    }

    /// The workspace size in bytes.
    pub fn workspace_bytes(&self) -> usize {
        self.workspace.len()
    }

    /// How many problems have a cached plan (one heuristic query each).
    pub fn cached_plans(&self) -> usize {
        self.plans.lock().map(|p| p.list.len()).unwrap_or(0)
    }

    /// `D = epilogue(alpha · A · B + beta · C)` for `cfg.batch` products (`cublasLtMatmul`).
    ///
    /// `c` is C with its own layout (same order as D), or `None` for C = D (in place; D is
    /// read when `beta ≠ 0`). Every dimension, leading dimension and batch stride is checked
    /// against the buffers first (checked arithmetic; values beyond cuBLASLt's argument types
    /// are refused), as are the epilogue's buffers; `k = 0` is refused. The first call of a
    /// problem asks cuBLASLt's heuristic for an algorithm and caches it with its descriptors;
    /// later calls of the same problem only enqueue.
    pub fn matmul<T: Element>(
        &self,
        cfg: &Matmul<T::Scalar>,
        a: &dyn DeviceRead<T>,
        b: &dyn DeviceRead<T>,
        c: Option<(&dyn DeviceRead<T>, Layout)>,
        d: &mut dyn DeviceWrite<T>,
        epilogue: Epilogue<'_, T>,
    ) -> Result<()> {
        let compute = cfg.compute.resolve::<T>()?;
        let r = self.resolve::<T>(cfg, compute, a, b, c, &*d, &epilogue)?;
        if cfg.m == 0 || cfg.n == 0 || cfg.batch == 0 {
            return Ok(());
        }
        let alpha = ScalarBytes::new(cfg.alpha, compute);
        let beta = ScalarBytes::new(cfg.beta, compute);

        // The tracked accesses: A, B (and C) read, D written, then the epilogue's buffers.
        let ra = Access::read(a);
        let mut acc = [ra; 7];
        let mut n = 0;
        macro_rules! push {
            ($x:expr) => {{
                acc[n] = $x;
                n += 1;
            }};
        }
        push!(ra);
        push!(Access::read(b));
        if let Some((c, _)) = c {
            push!(Access::read(c));
        }
        push!(Access::write(&*d));
        match &epilogue {
            Epilogue::Bias(x) | Epilogue::BiasRelu(x) | Epilogue::BiasGelu(x) => {
                push!(Access::read(*x))
            }
            Epilogue::GeluAux { bias, aux, .. } => {
                if let Some(x) = bias {
                    push!(Access::read(*x));
                }
                push!(Access::write(&**aux));
            }
            Epilogue::DGelu { aux, bias_grad, .. } => {
                push!(Access::read(*aux));
                if let Some(g) = bias_grad {
                    push!(Access::write(&**g));
                }
            }
            Epilogue::BiasGradA(g) | Epilogue::BiasGradB(g) => push!(Access::write(&**g)),
            Epilogue::None | Epilogue::Relu | Epilogue::Gelu => {}
        }
        let acc = &acc[..n];

        let mut plans = self
            .plans
            .lock()
            .map_err(|_| invalid("cuBLASLt plan cache lock poisoned".into()))?;
        self.stream.context().bind_to_thread()?;
        let idx = match plans.last {
            Some((k, i)) if k == r.key => i,
            _ => {
                let i = match plans.index.get(&r.key) {
                    Some(&i) => i,
                    None => {
                        let plan = self.plan::<T>(&r, compute)?;
                        plans.list.push(plan);
                        let i = plans.list.len() - 1;
                        plans.index.insert(r.key, i);
                        i
                    }
                };
                plans.last = Some((r.key, i));
                i
            }
        };
        let plan = &plans.list[idx];
        if r.bias != 0 {
            set_desc(
                plan.desc,
                DescAttr::CUBLASLT_MATMUL_DESC_BIAS_POINTER,
                &r.bias,
            )?;
        }
        if r.aux != 0 {
            set_desc(
                plan.desc,
                DescAttr::CUBLASLT_MATMUL_DESC_EPILOGUE_AUX_POINTER,
                &r.aux,
            )?;
        }
        let (c_ptr, c_desc) = match plan.c {
            Some(cd) => (r.ptr_c, cd),
            None => (r.ptr_d, plan.d),
        };
        self.stream.with_access(acc, || {
            // SAFETY: every operand was checked to lie inside its buffer for the dimensions,
            // leading dimensions and strides the descriptors hold; the epilogue's pointers
            // were checked likewise and set just above; the workspace is the handle's, at
            // least as large as the plan's algorithm needs; the scalars match the scale type.
            unsafe {
                lt!(cublasLtMatmul(
                    self.raw,
                    plan.desc,
                    alpha.ptr(),
                    r.ptr_a as *const c_void,
                    plan.a,
                    r.ptr_b as *const c_void,
                    plan.b,
                    beta.ptr(),
                    c_ptr as *const c_void,
                    c_desc,
                    r.ptr_d as *mut c_void,
                    plan.d,
                    &plan.algo,
                    self.workspace.device_ptr() as *mut c_void,
                    plan.workspace,
                    self.stream.raw()
                ))
            }
        })
    }

    /// Checks every operand and translates the problem into cuBLASLt's column-major frame.
    #[allow(clippy::too_many_arguments)]
    fn resolve<T: Element>(
        &self,
        cfg: &Matmul<T::Scalar>,
        compute: Compute,
        a: &dyn DeviceRead<T>,
        b: &dyn DeviceRead<T>,
        c: Option<(&dyn DeviceRead<T>, Layout)>,
        d: &dyn DeviceWrite<T>,
        epilogue: &Epilogue<'_, T>,
    ) -> Result<Resolved> {
        const CALL: &str = "matmul";
        let s = &*self.stream;
        let (m, n, k, batch) = (cfg.m, cfg.n, cfg.k, cfg.batch);
        check_context(CALL, "A", s, a)?;
        check_context(CALL, "B", s, b)?;
        check_context(CALL, "D", s, d)?;
        if let Some((cb, _)) = &c {
            check_context(CALL, "C", s, *cb)?;
        }
        cfg.checked::<T>(a.len(), b.len(), c.map(|(cb, l)| (cb.len(), l)), d.len())?;
        // The contiguous dimension of D: what bias vectors and aux leading dimensions follow.
        let swap = cfg.d.order == Order::RowMajor;
        let inner = if swap { n } else { m };
        let single = |what: &str| -> Result<()> {
            if batch > 1 {
                return Err(invalid(format!(
                    "{CALL}: the {what} epilogue is for single products (batch = 1), not {batch}"
                )));
            }
            Ok(())
        };
        let aux_layout = |ld: usize| -> Result<Layout> {
            if ld % 8 != 0 || ld < inner {
                return Err(invalid(format!(
                    "{CALL}: the aux leading dimension is {ld}; cuBLASLt needs a multiple of 8 \
                     that is at least D's contiguous size {inner}"
                )));
            }
            Ok(Layout {
                order: cfg.d.order,
                ld,
                batch_stride: 0,
            })
        };
        let (mut bias, mut aux, mut aux_ld) = (0u64, 0u64, 0usize);
        let epi = match epilogue {
            Epilogue::None => Epi::CUBLASLT_EPILOGUE_DEFAULT,
            Epilogue::Relu => Epi::CUBLASLT_EPILOGUE_RELU,
            Epilogue::Gelu => Epi::CUBLASLT_EPILOGUE_GELU,
            Epilogue::Bias(x) => {
                bias = check_vector(s, "bias", *x, inner)?;
                Epi::CUBLASLT_EPILOGUE_BIAS
            }
            Epilogue::BiasRelu(x) => {
                bias = check_vector(s, "bias", *x, inner)?;
                Epi::CUBLASLT_EPILOGUE_RELU_BIAS
            }
            Epilogue::BiasGelu(x) => {
                bias = check_vector(s, "bias", *x, inner)?;
                Epi::CUBLASLT_EPILOGUE_GELU_BIAS
            }
            Epilogue::GeluAux {
                bias: bv,
                aux: x,
                ld,
            } => {
                single("GeluAux")?;
                check_context(CALL, "aux", s, &**x)?;
                check_layout("aux", x.len(), &aux_layout(*ld)?, m, n, 1, false)?;
                aux = x.device_ptr();
                aux_ld = *ld;
                match bv {
                    Some(bv) => {
                        bias = check_vector(s, "bias", *bv, inner)?;
                        Epi::CUBLASLT_EPILOGUE_GELU_AUX_BIAS
                    }
                    None => Epi::CUBLASLT_EPILOGUE_GELU_AUX,
                }
            }
            Epilogue::DGelu {
                aux: x,
                ld,
                bias_grad,
            } => {
                single("DGelu")?;
                check_context(CALL, "aux", s, *x)?;
                check_layout("aux", x.len(), &aux_layout(*ld)?, m, n, 1, false)?;
                aux = x.device_ptr();
                aux_ld = *ld;
                match bias_grad {
                    Some(g) => {
                        bias = check_vector(s, "bias_grad", &**g, inner)?;
                        Epi::CUBLASLT_EPILOGUE_DGELU_BGRAD
                    }
                    None => Epi::CUBLASLT_EPILOGUE_DGELU,
                }
            }
            Epilogue::BiasGradA(g) => {
                single("BiasGradA")?;
                if cfg.a.order != Order::ColMajor {
                    return Err(invalid(format!(
                        "{CALL}: the BiasGradA epilogue needs A column-major (cuBLASLt has no \
                         kernel reducing a row-major A over k)"
                    )));
                }
                bias = check_vector(s, "bias_grad", &**g, m)?;
                if swap {
                    Epi::CUBLASLT_EPILOGUE_BGRADB
                } else {
                    Epi::CUBLASLT_EPILOGUE_BGRADA
                }
            }
            Epilogue::BiasGradB(g) => {
                single("BiasGradB")?;
                if cfg.b.order != Order::RowMajor {
                    return Err(invalid(format!(
                        "{CALL}: the BiasGradB epilogue needs B row-major (cuBLASLt has no \
                         kernel reducing a column-major B over k)"
                    )));
                }
                bias = check_vector(s, "bias_grad", &**g, n)?;
                if swap {
                    Epi::CUBLASLT_EPILOGUE_BGRADA
                } else {
                    Epi::CUBLASLT_EPILOGUE_BGRADB
                }
            }
        };

        // cuBLASLt's frame: column-major D' = A' · B'. For a row-major D, D' = Dᵀ = Bᵀ · Aᵀ.
        let (la, lb, pa, pb, lm, ln) = if swap {
            let ta = Layout {
                order: cfg.b.order.flip(),
                ..cfg.b
            };
            let tb = Layout {
                order: cfg.a.order.flip(),
                ..cfg.a
            };
            (ta, tb, b.device_ptr(), a.device_ptr(), n, m)
        } else {
            (cfg.a, cfg.b, a.device_ptr(), b.device_ptr(), m, n)
        };
        // A logical r × c operand: column-major as is (N), row-major as the column-major c × r
        // matrix it is in memory, transposed (T).
        let lt_matrix = |l: &Layout, r: usize, c: usize| -> (LtMatrix, bool) {
            let (rows, cols, t) = match l.order {
                Order::ColMajor => (r, c, false),
                Order::RowMajor => (c, r, true),
            };
            let m = LtMatrix {
                rows: rows as u64,
                cols: cols as u64,
                // Both fit i64: `Matmul::checked` refused the layouts where they do not.
                ld: l.ld as i64,
                stride: l.batch_stride as i64,
            };
            (m, t)
        };
        let (ma, ta) = lt_matrix(&la, lm, k);
        let (mb, tb) = lt_matrix(&lb, k, ln);
        let d_lt = LtMatrix {
            rows: lm as u64,
            cols: ln as u64,
            ld: cfg.d.ld as i64,
            stride: cfg.d.batch_stride as i64,
        };
        let (c_lt, ptr_c) = match &c {
            Some((cb, cl)) => (
                Some(LtMatrix {
                    rows: lm as u64,
                    cols: ln as u64,
                    ld: cl.ld as i64,
                    stride: cl.batch_stride as i64,
                }),
                cb.device_ptr(),
            ),
            None => (None, 0),
        };
        let ptr_d = d.device_ptr();
        let key = PlanKey {
            dtype: T::DATA_TYPE.0,
            compute: compute.raw.0,
            half_scalars: compute.half_scalars,
            batch: batch as i32,
            trans_a: ta,
            trans_b: tb,
            a: ma,
            b: mb,
            c: c_lt,
            d: d_lt,
            epilogue: epi.0,
            aux_ld: aux_ld as i64,
            align: [
                align_log2(pa),
                align_log2(pb),
                align_log2(if c.is_some() { ptr_c } else { ptr_d }),
                align_log2(ptr_d),
                align_log2(bias),
                align_log2(aux),
            ],
        };
        Ok(Resolved {
            key,
            epilogue: epi,
            ptr_a: pa,
            ptr_b: pb,
            ptr_c,
            ptr_d,
            bias,
            aux,
        })
    }

    /// Creates the descriptors of `r`'s problem and asks the heuristic for its algorithm.
    fn plan<T: Element>(&self, r: &Resolved, compute: Compute) -> Result<Plan> {
        let key = &r.key;
        let scale = if compute.half_scalars {
            cudaDataType::CUDA_R_16F
        } else {
            <T::Scalar as Scalar>::DATA_TYPE
        };
        let mut plan = Plan {
            desc: std::ptr::null_mut(),
            a: std::ptr::null_mut(),
            b: std::ptr::null_mut(),
            c: None,
            d: std::ptr::null_mut(),
            algo: cublasLtMatmulAlgo_t::default(),
            workspace: 0,
        };
        let r2 = (|| -> Result<()> {
            // SAFETY: valid out-pointers and plain values; each descriptor is destroyed by
            // `Plan::destroy` on failure or with the handle.
            unsafe { lt!(cublasLtMatmulDescCreate(&mut plan.desc, compute.raw, scale)) }?;
            let op = |t: bool| {
                if t {
                    cublasOperation_t::CUBLAS_OP_T
                } else {
                    cublasOperation_t::CUBLAS_OP_N
                }
                .0
            };
            set_desc(
                plan.desc,
                DescAttr::CUBLASLT_MATMUL_DESC_TRANSA,
                &op(key.trans_a),
            )?;
            set_desc(
                plan.desc,
                DescAttr::CUBLASLT_MATMUL_DESC_TRANSB,
                &op(key.trans_b),
            )?;
            set_desc(
                plan.desc,
                DescAttr::CUBLASLT_MATMUL_DESC_EPILOGUE,
                &r.epilogue.0,
            )?;
            if r.bias != 0 {
                set_desc(
                    plan.desc,
                    DescAttr::CUBLASLT_MATMUL_DESC_BIAS_POINTER,
                    &r.bias,
                )?;
                let bt = T::DATA_TYPE.0;
                set_desc(
                    plan.desc,
                    DescAttr::CUBLASLT_MATMUL_DESC_BIAS_DATA_TYPE,
                    &bt,
                )?;
            }
            if r.aux != 0 {
                set_desc(
                    plan.desc,
                    DescAttr::CUBLASLT_MATMUL_DESC_EPILOGUE_AUX_POINTER,
                    &r.aux,
                )?;
                set_desc(
                    plan.desc,
                    DescAttr::CUBLASLT_MATMUL_DESC_EPILOGUE_AUX_LD,
                    &key.aux_ld,
                )?;
            }
            plan.a = layout(T::DATA_TYPE, &key.a, key.batch)?;
            plan.b = layout(T::DATA_TYPE, &key.b, key.batch)?;
            plan.d = layout(T::DATA_TYPE, &key.d, key.batch)?;
            if let Some(c) = &key.c {
                plan.c = Some(layout(T::DATA_TYPE, c, key.batch)?);
            }
            let mut pref: cublasLtMatmulPreference_t = std::ptr::null_mut();
            // SAFETY: a valid out-pointer.
            unsafe { lt!(cublasLtMatmulPreferenceCreate(&mut pref)) }?;
            let found = (|| -> Result<cublasLtMatmulHeuristicResult_t> {
                let ws = self.workspace.len() as u64;
                set_pref(
                    pref,
                    PrefAttr::CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES,
                    &ws,
                )?;
                for (attr, lg) in [
                    (
                        PrefAttr::CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_A_BYTES,
                        key.align[0],
                    ),
                    (
                        PrefAttr::CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_B_BYTES,
                        key.align[1],
                    ),
                    (
                        PrefAttr::CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_C_BYTES,
                        key.align[2],
                    ),
                    (
                        PrefAttr::CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_D_BYTES,
                        key.align[3],
                    ),
                ] {
                    set_pref(pref, attr, &(1u32 << lg))?;
                }
                // Split-k partial sums in the compute type first (the precision the compute
                // type promises); an output-type reduction only when nothing else exists.
                let mut result = cublasLtMatmulHeuristicResult_t::default();
                let mut count = 0;
                for mask in [
                    sys::CUBLASLT_REDUCTION_SCHEME_INPLACE
                        | sys::CUBLASLT_REDUCTION_SCHEME_COMPUTE_TYPE,
                    sys::CUBLASLT_REDUCTION_SCHEME_INPLACE
                        | sys::CUBLASLT_REDUCTION_SCHEME_COMPUTE_TYPE
                        | sys::CUBLASLT_REDUCTION_SCHEME_OUTPUT_TYPE,
                ] {
                    set_pref(
                        pref,
                        PrefAttr::CUBLASLT_MATMUL_PREF_REDUCTION_SCHEME_MASK,
                        &mask,
                    )?;
                    count = 0;
                    // SAFETY: live descriptors; room for one result.
                    let r = unsafe {
                        lt!(cublasLtMatmulAlgoGetHeuristic(
                            self.raw,
                            plan.desc,
                            plan.a,
                            plan.b,
                            plan.c.unwrap_or(plan.d),
                            plan.d,
                            pref,
                            1,
                            &mut result,
                            &mut count
                        ))
                    };
                    if r.is_ok() && count >= 1 && result.state.is_success() {
                        break;
                    }
                }
                if count < 1 || !result.state.is_success() {
                    let mut e = cublas_error(
                        "libcublasLt",
                        cublasStatus_t::CUBLAS_STATUS_NOT_SUPPORTED,
                        "cublasLtMatmulAlgoGetHeuristic",
                    );
                    if let Error::Library { description, .. } = &mut e {
                        *description = format!(
                            "no algorithm for a {} product {} × {} × {} (batch {}) with the {:?} \
                             epilogue and compute type {:?}",
                            T::NAME,
                            key.d.rows,
                            key.d.cols,
                            if key.trans_a { key.a.rows } else { key.a.cols },
                            key.batch,
                            r.epilogue,
                            compute.raw
                        );
                    }
                    return Err(e);
                }
                Ok(result)
            })();
            // SAFETY: created above, destroyed once.
            unsafe {
                let _ = sys::cublasLtMatmulPreferenceDestroy(pref);
            }
            let result = found?;
            plan.algo = result.algo;
            plan.workspace = result.workspaceSize;
            Ok(())
        })();
        match r2 {
            Ok(()) => Ok(plan),
            Err(e) => {
                plan.destroy();
                Err(e)
            }
        }
    }
}

/// Checks one matrix operand of `len` elements: its leading dimension, its length for `batch`
/// matrices, and for an output, that the matrices of a batch do not overlap.
fn check_layout(
    what: &str,
    len: usize,
    l: &Layout,
    rows: usize,
    cols: usize,
    batch: usize,
    output: bool,
) -> Result<()> {
    const CALL: &str = "matmul";
    let extent = l.extent(what, rows, cols)?;
    let need = batched_extent(CALL, what, extent, batch, l.batch_stride)?;
    if len < need {
        return Err(invalid(format!(
            "{CALL}: {what} has {len} elements, but the given dimensions need {need}"
        )));
    }
    if output && batch > 1 && l.batch_stride < extent {
        return Err(invalid(format!(
            "{CALL}: the batch stride of {what} is {}, smaller than one {what} matrix \
             ({extent} elements): the outputs of the batch would overlap",
            l.batch_stride
        )));
    }
    if i64::try_from(l.ld).is_err() || i64::try_from(l.batch_stride).is_err() {
        return Err(invalid(format!(
            "{CALL}: the leading dimension ({}) or batch stride ({}) of {what} exceeds the \
             64-bit limit of cuBLASLt's arguments",
            l.ld, l.batch_stride
        )));
    }
    Ok(())
}

/// Checks a vector operand of `len` elements; returns its address.
fn check_vector<T, B: DeviceRead<T> + ?Sized>(
    s: &Stream,
    what: &str,
    buf: &B,
    len: usize,
) -> Result<u64> {
    check_context("matmul", what, s, buf)?;
    check_len("matmul", what, buf, len)?;
    Ok(buf.device_ptr())
}

fn set_desc<V>(desc: cublasLtMatmulDesc_t, attr: DescAttr, v: &V) -> Result<()> {
    // SAFETY: `v` is a live value of the size the attribute takes (the callers pass the C type
    // each attribute is documented with).
    unsafe {
        lt!(cublasLtMatmulDescSetAttribute(
            desc,
            attr,
            (v as *const V).cast(),
            std::mem::size_of::<V>()
        ))
    }
}

fn set_pref<V>(pref: cublasLtMatmulPreference_t, attr: PrefAttr, v: &V) -> Result<()> {
    // SAFETY: as for `set_desc`.
    unsafe {
        lt!(cublasLtMatmulPreferenceSetAttribute(
            pref,
            attr,
            (v as *const V).cast(),
            std::mem::size_of::<V>()
        ))
    }
}

/// A column-major layout descriptor for `m`, batched when `batch > 1`.
fn layout(dt: cudaDataType, m: &LtMatrix, batch: i32) -> Result<cublasLtMatrixLayout_t> {
    let mut l: cublasLtMatrixLayout_t = std::ptr::null_mut();
    // SAFETY: a valid out-pointer and plain values.
    unsafe { lt!(cublasLtMatrixLayoutCreate(&mut l, dt, m.rows, m.cols, m.ld)) }?;
    if batch > 1 {
        let set = |attr: LayoutAttr, p: *const c_void, size: usize| {
            // SAFETY: a live layout; `p` points at `size` bytes of the attribute's type.
            unsafe { lt!(cublasLtMatrixLayoutSetAttribute(l, attr, p, size)) }
        };
        let r = set(
            LayoutAttr::CUBLASLT_MATRIX_LAYOUT_BATCH_COUNT,
            (&batch as *const i32).cast(),
            4,
        )
        .and_then(|()| {
            set(
                LayoutAttr::CUBLASLT_MATRIX_LAYOUT_STRIDED_BATCH_OFFSET,
                (&m.stride as *const i64).cast(),
                8,
            )
        });
        if let Err(e) = r {
            // SAFETY: created above, destroyed once.
            unsafe {
                let _ = sys::cublasLtMatrixLayoutDestroy(l);
            }
            return Err(e);
        }
    }
    Ok(l)
}

impl Drop for BlasLt {
    fn drop(&mut self) {
        let ctx = self.stream.context();
        let r = ctx.bind_to_thread_no_deferred().and_then(|()| {
            if let Ok(p) = self.plans.get_mut() {
                for plan in &mut p.list {
                    plan.destroy();
                }
            }
            // SAFETY: this object created the handle and is its only owner; enqueued work
            // completes, and the workspace is freed stream-ordered after it.
            unsafe { lt!(cublasLtDestroy(self.raw)) }
        });
        if let Err(e) = r {
            ctx.defer("cublasLtDestroy of a BlasLt handle", e);
        }
    }
}
