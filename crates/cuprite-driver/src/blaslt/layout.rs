//! The description of a product: each operand's order, leading dimension and batch stride
//! ([`Layout`]), the shapes and scalars ([`Matmul`]), and their checks against buffer lengths.

use crate::blas::{ComputeType, Element, Scalar, batched_extent, invalid, to_i32};
use crate::error::Result;

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
    pub(super) fn flip(self) -> Order {
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
/// use cuprite_driver::blaslt::{Layout, Order};
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
/// use cuprite_driver::blaslt::{Layout, Matmul, Order};
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
    /// [`BlasLt::matmul`]: super::BlasLt::matmul
    ///
    /// ```
    /// use cuprite_driver::blaslt::Matmul;
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

    pub(super) fn checked<T: Element>(
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

/// Checks one matrix operand of `len` elements: its leading dimension, its length for `batch`
/// matrices, and for an output, that the matrices of a batch do not overlap.
pub(super) fn check_layout(
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
