//! Products with dense and sparse operands, sums, transposes and scalings of [`SparseArray`].

use super::csr_product::{self, CsrProduct};
use super::host::Host;
use super::{
    IndexType, SparseArray, SparseFormat, SparseIndices, SparseValue, Transpose, cuda, index_for,
};
use crate::array::Array;
use crate::device::{Backend, with_device};
use crate::dtype::{DType, Float};
use crate::error::{Error, Result};
use crate::graph::{Node, Op};
use crate::shape::SliceArg;
use std::sync::Arc;

/// `Σ a_i·b_i` of two vectors as a 0-d array: one fused reduction of their element-wise
/// product (a lazy node like any other, so its operands need not be realised first).
pub(super) fn dot<T: SparseValue + Float>(a: &Array<T>, b: &Array<T>) -> Result<Array<T>> {
    Ok(a.try_mul(b)?.sum()?.cast::<T>())
}

/// The host form of a transpose flag: `None`, or `Some(conjugate)`.
fn host_op(op: Transpose) -> Option<bool> {
    match op {
        Transpose::None => None,
        Transpose::Trans => Some(false),
        Transpose::ConjTrans => Some(true),
    }
}

impl<T: SparseValue> SparseArray<T> {
    /// The rows and columns of `op(A)`.
    fn op_shape(&self, op: Transpose) -> (usize, usize) {
        let [r, c] = self.shape;
        if op.is_transposed() { (c, r) } else { (r, c) }
    }

    pub(super) fn same_device(&self, what: &str, d: crate::device::Device) -> Result<()> {
        if d != self.device() {
            return Err(Error::DeviceMismatch(format!(
                "{what} is on {d}, the sparse matrix on {}; move one with to_device first",
                self.device()
            )));
        }
        Ok(())
    }

    /// `A · x` for a vector `x` of `cols` elements: a dense vector of `rows` elements.
    ///
    /// ```
    /// use cuprite_array::{Array, Device, with_device};
    /// use cuprite_array::sparse::SparseArray;
    /// with_device(Device::CPU, || -> cuprite_array::Result<()> {
    ///     let a = SparseArray::from_triplets([2, 2], &[0, 1], &[1, 1], &[2.0f32, 3.0])?;
    ///     let x = Array::from_slice(&[1.0, 10.0], &[2])?;
    ///     assert_eq!(a.spmv(&x)?.to_vec()?, [20.0, 30.0]);
    ///     Ok(())
    /// })?;
    /// # Ok::<(), cuprite_array::Error>(())
    /// ```
    pub fn spmv(&self, x: &Array<T>) -> Result<Array<T>> {
        self.spmv_with(Transpose::None, T::one(), x, T::ZERO, None)
    }

    /// `alpha · op(A) · x + beta · y` (`y` taken as zeros when `None`; with `beta == 0` it is
    /// not read, so NaNs in it do not propagate). `x` has `op(A)`'s column count, `y` its row
    /// count. A CSR matrix (or the transpose of a CSC one) of real values runs as cuprite's
    /// kernel on both backends, with the same bits on each; the others through cuSPARSE on the
    /// CUDA backend.
    ///
    /// ```
    /// use cuprite_array::{Array, Device, with_device};
    /// use cuprite_array::sparse::{SparseArray, Transpose};
    /// with_device(Device::CPU, || -> cuprite_array::Result<()> {
    ///     // [[1, 2], [0, 3]]
    ///     let a = SparseArray::from_csr([2, 2], &[0, 2, 3], &[0, 1, 1], &[1.0f64, 2.0, 3.0])?;
    ///     let x = Array::from_slice(&[1.0, 1.0], &[2])?;
    ///     let y = Array::from_slice(&[1.0, 1.0], &[2])?;
    ///     // 2·Aᵀx − y = 2·[1, 5] − 1
    ///     assert_eq!(a.spmv_with(Transpose::Trans, 2.0, &x, -1.0, Some(&y))?.to_vec()?, [1.0, 9.0]);
    ///     Ok(())
    /// })?;
    /// # Ok::<(), cuprite_array::Error>(())
    /// ```
    pub fn spmv_with(
        &self,
        op: Transpose,
        alpha: T,
        x: &Array<T>,
        beta: T,
        y: Option<&Array<T>>,
    ) -> Result<Array<T>> {
        let (m, n) = self.op_shape(op);
        if x.shape() != [n] {
            return Err(Error::Shape(format!(
                "spmv: op(A) is {m} × {n}, x has shape {:?} (expected [{n}])",
                x.shape()
            )));
        }
        if let Some(y) = y
            && y.shape() != [m]
        {
            return Err(Error::Shape(format!(
                "spmv: op(A) is {m} × {n}, y has shape {:?} (expected [{m}])",
                y.shape()
            )));
        }
        self.product(op, alpha, x, 1, beta, y, &[m])
    }

    /// `A · B` for a dense `cols × n` matrix `B`: a dense `rows × n` matrix.
    ///
    /// ```
    /// use cuprite_array::{Array, Device, with_device};
    /// use cuprite_array::sparse::SparseArray;
    /// with_device(Device::CPU, || -> cuprite_array::Result<()> {
    ///     let a = SparseArray::<f64>::eye_k([2, 2], 1)?; // [[0, 1], [0, 0]]
    ///     let b = Array::from_slice(&[1.0, 2.0, 3.0, 4.0], &[2, 2])?;
    ///     assert_eq!(a.spmm(&b)?.to_vec()?, [3.0, 4.0, 0.0, 0.0]);
    ///     Ok(())
    /// })?;
    /// # Ok::<(), cuprite_array::Error>(())
    /// ```
    pub fn spmm(&self, b: &Array<T>) -> Result<Array<T>> {
        self.spmm_with(Transpose::None, T::one(), b, T::ZERO, None)
    }

    /// `alpha · op(A) · B + beta · C` for dense row-major `B` (`op(A)`'s columns × `n`) and
    /// `C` (`op(A)`'s rows × `n`, zeros when `None`, not read when `beta == 0`). Run as
    /// [`spmv_with`](Self::spmv_with) says: cuprite's kernel for a CSR `op(A)` of real values
    /// (lanes a row sized from `n`), else cuSPARSE on the CUDA backend.
    ///
    /// ```
    /// use cuprite_array::{Array, Device, with_device};
    /// use cuprite_array::sparse::{SparseArray, Transpose};
    /// with_device(Device::CPU, || -> cuprite_array::Result<()> {
    ///     let a = SparseArray::<f64>::eye_k([2, 2], 1)?; // [[0, 1], [0, 0]]
    ///     let b = Array::from_slice(&[1.0, 2.0, 3.0, 4.0], &[2, 2])?;
    ///     assert_eq!(a.spmm_with(Transpose::Trans, 1.0, &b, 0.0, None)?.to_vec()?, [0.0, 0.0, 1.0, 2.0]);
    ///     Ok(())
    /// })?;
    /// # Ok::<(), cuprite_array::Error>(())
    /// ```
    pub fn spmm_with(
        &self,
        op: Transpose,
        alpha: T,
        b: &Array<T>,
        beta: T,
        c: Option<&Array<T>>,
    ) -> Result<Array<T>> {
        let (m, k) = self.op_shape(op);
        let n = match b.shape() {
            &[bk, n] if bk == k => n,
            s => {
                return Err(Error::Shape(format!(
                    "spmm: op(A) is {m} × {k}, B has shape {s:?} (expected [{k}, n])"
                )));
            }
        };
        if let Some(c) = c
            && c.shape() != [m, n]
        {
            return Err(Error::Shape(format!(
                "spmm: the product is {m} × {n}, C has shape {:?}",
                c.shape()
            )));
        }
        self.product(op, alpha, b, n, beta, c, &[m, n])
    }

    #[allow(clippy::too_many_arguments)]
    fn product(
        &self,
        op: Transpose,
        alpha: T,
        b: &Array<T>,
        n: usize,
        beta: T,
        c: Option<&Array<T>>,
        out_shape: &[usize],
    ) -> Result<Array<T>> {
        self.same_device("the dense operand", b.device())?;
        let c = if beta == T::ZERO { None } else { c };
        if let Some(c) = c {
            self.same_device("the accumulated operand", c.device())?;
        }
        let out_len = crate::shape::checked_numel(out_shape)?;
        if self.nnz() == 0 || out_len == 0 {
            // Nothing stored (or nothing to compute): beta · C, or zeros.
            return match c {
                Some(c) => c.try_mul(beta),
                None => Ok(with_device(self.device(), || Array::zeros(out_shape))),
            };
        }
        let dense_n = (out_shape.len() == 2).then_some(n);
        if let Some(p) = self.csr_product(op, alpha, b, dense_n, beta, c, out_shape, false) {
            return Ok(p);
        }
        // Complex products on CUDA take the host path below: the driver refuses complex
        // values in cuSPARSE's SpMV and SpMM (see `cuprite_driver::sparse`).
        if self.device().backend == Backend::Cuda && !T::DTYPE.is_complex() {
            return cuda::product(self, op, alpha, b, n, beta, c, out_shape);
        }
        let h = self.host()?;
        let bv = b.to_vec()?;
        let cv = c.map(|c| c.to_vec()).transpose()?;
        let out = h.product(host_op(op), alpha, &bv, n, beta, cv.as_deref());
        Array::from_slice_on(self.device(), &out, out_shape)
    }

    /// The product as a [`CsrProduct`] call (lazy, on either backend) where `op(A)` is a CSR
    /// matrix in storage (CSR untransposed, or the transpose of a CSC matrix) of real values;
    /// `None` for the others. `n`: the dense operand's columns for SpMM, `None` for SpMV.
    /// `dot`: the call's `dot` (its caller checked [`CsrProduct::dot_fits`], and `out_shape`
    /// holds the extra element).
    #[allow(clippy::too_many_arguments)]
    fn csr_product(
        &self,
        op: Transpose,
        alpha: T,
        b: &Array<T>,
        n: Option<usize>,
        beta: T,
        c: Option<&Array<T>>,
        out_shape: &[usize],
        dot: bool,
    ) -> Option<Array<T>> {
        let cusparse = self.device().backend == Backend::Cuda && !csr_product::kernels_on_cuda();
        if cusparse || !matches!(T::DTYPE, DType::F32 | DType::F64) {
            return None;
        }
        let [r, k] = self.shape;
        let (rows, k) = match (self.format, op) {
            (SparseFormat::Csr, Transpose::None) => (r, k),
            (SparseFormat::Csc, Transpose::Trans | Transpose::ConjTrans) => (k, r),
            _ => return None,
        };
        let (index, major, minor) = match (&self.major, &self.minor) {
            (SparseIndices::I32(o), SparseIndices::I32(i)) => {
                (DType::I32, o.node.clone(), i.node.clone())
            }
            (SparseIndices::I64(o), SparseIndices::I64(i)) => {
                (DType::I64, o.node.clone(), i.node.clone())
            }
            _ => return None,
        };
        let call = CsrProduct {
            dtype: T::DTYPE,
            index,
            rows,
            k,
            nnz: self.nnz(),
            n,
            alpha: alpha.to_c64().re,
            beta: beta.to_c64().re,
            accumulate: c.is_some(),
            dot,
        };
        let mut inputs = vec![major, minor, self.values.node.clone(), b.node.clone()];
        inputs.extend(c.map(|c| c.node.clone()));
        Some(Array::from_node(Node::new(
            Op::Library(Arc::new(call), inputs),
            T::DTYPE,
            out_shape.to_vec(),
            self.device(),
        )))
    }

    /// `A · B` for sparse `B` (SpGEMM), in CSR with sorted column indices. Through cuSPARSE on
    /// the CUDA backend (both operands converted to CSR first).
    ///
    /// ```
    /// use cuprite_array::{Device, with_device};
    /// use cuprite_array::sparse::SparseArray;
    /// with_device(Device::CPU, || -> cuprite_array::Result<()> {
    ///     let s = SparseArray::<f64>::eye_k([3, 3], 1)?; // shift up
    ///     assert_eq!(s.matmul(&s)?.to_dense()?.to_vec()?, SparseArray::eye_k([3, 3], 2)?.to_dense()?.to_vec()?);
    ///     Ok(())
    /// })?;
    /// # Ok::<(), cuprite_array::Error>(())
    /// ```
    pub fn matmul(&self, other: &SparseArray<T>) -> Result<SparseArray<T>> {
        self.same_device("the other sparse matrix", other.device())?;
        if self.shape[1] != other.shape[0] {
            return Err(Error::Shape(format!(
                "sparse matmul: {:?} times {:?}: inner sizes differ",
                self.shape, other.shape
            )));
        }
        let trivial = self.nnz() == 0 || other.nnz() == 0;
        if self.device().backend == Backend::Cuda && !trivial {
            // 32-bit indices where the operands fit them (what every cuSPARSE version's
            // SpGEMM takes); the product then takes this matrix's index type.
            let [m, k] = self.shape;
            let n = other.shape[1];
            let fits = index_for(m, k, self.nnz()) == IndexType::I32
                && index_for(k, n, other.nnz()) == IndexType::I32;
            let ty = if fits { IndexType::I32 } else { IndexType::I64 };
            let a = self.to_csr()?.with_index_type(ty)?;
            let b = other.to_csr()?.with_index_type(ty)?;
            let c = cuda::spgemm(&a, &b)?;
            return match (c.index_type(), self.index) {
                (IndexType::I32, IndexType::I64) => c.with_index_type(IndexType::I64),
                _ => Ok(c),
            };
        }
        let (a, b) = (self.host()?, other.host()?);
        a.check_matmul(&b)?;
        self.like(a.matmul(&b))
    }

    /// `A + B` for sparse `B` of the same shape, in `A`'s format (values at a position both
    /// store are summed; nothing is dropped, even where the sum is zero).
    ///
    /// ```
    /// use cuprite_array::{Device, with_device};
    /// use cuprite_array::sparse::SparseArray;
    /// with_device(Device::CPU, || -> cuprite_array::Result<()> {
    ///     let i = SparseArray::<f32>::eye(2)?;
    ///     assert_eq!(i.add(&i)?.to_dense()?.to_vec()?, [2.0, 0.0, 0.0, 2.0]);
    ///     Ok(())
    /// })?;
    /// # Ok::<(), cuprite_array::Error>(())
    /// ```
    pub fn add(&self, other: &SparseArray<T>) -> Result<SparseArray<T>> {
        self.same_device("the other sparse matrix", other.device())?;
        if self.shape != other.shape {
            return Err(Error::Shape(format!(
                "sparse add: shapes {:?} and {:?} differ",
                self.shape, other.shape
            )));
        }
        let h = self.host()?.add(&other.host()?)?;
        self.like(h)
    }

    /// The transpose. A CSR matrix becomes the CSC matrix of the same component arrays and
    /// the other way round (no copy, as SciPy does); a COO matrix is re-sorted.
    ///
    /// ```
    /// use cuprite_array::{Device, with_device};
    /// use cuprite_array::sparse::{SparseArray, SparseFormat};
    /// let a = with_device(Device::CPU, || SparseArray::from_triplets([1, 2], &[0], &[1], &[7.0f64]))?;
    /// let t = a.transpose()?;
    /// assert_eq!((t.shape(), t.format()), ([2, 1], SparseFormat::Csc));
    /// assert_eq!(t.to_dense()?.to_vec()?, [0.0, 7.0]);
    /// # Ok::<(), cuprite_array::Error>(())
    /// ```
    pub fn transpose(&self) -> Result<SparseArray<T>> {
        let flipped = |format| SparseArray {
            format,
            shape: [self.shape[1], self.shape[0]],
            ..self.clone()
        };
        match self.format {
            SparseFormat::Csr => Ok(flipped(SparseFormat::Csc)),
            SparseFormat::Csc => Ok(flipped(SparseFormat::Csr)),
            SparseFormat::Coo => self.like(self.host()?.transpose()),
        }
    }

    /// `alpha · A`: the stored values scaled (lazily, so that it fuses with later work on
    /// the values).
    ///
    /// ```
    /// use cuprite_array::{Device, with_device};
    /// use cuprite_array::sparse::SparseArray;
    /// let a = with_device(Device::CPU, || SparseArray::<f64>::eye(2))?.scale(3.0)?;
    /// assert_eq!(a.values().to_vec()?, [3.0, 3.0]);
    /// # Ok::<(), cuprite_array::Error>(())
    /// ```
    pub fn scale(&self, alpha: T) -> Result<SparseArray<T>> {
        self.with_values(self.values.try_mul(alpha)?)
    }

    /// The same pattern with other values (one per stored element, in storage order, on the
    /// same device): the way to apply element-wise array work to the stored values.
    ///
    /// ```
    /// use cuprite_array::{Device, with_device};
    /// use cuprite_array::sparse::SparseArray;
    /// let a = with_device(Device::CPU, || SparseArray::<f64>::eye(2))?;
    /// let b = a.with_values(a.values().try_add(1.0)?)?;
    /// assert_eq!(b.to_dense()?.to_vec()?, [2.0, 0.0, 0.0, 2.0]);
    /// # Ok::<(), cuprite_array::Error>(())
    /// ```
    pub fn with_values(&self, values: Array<T>) -> Result<SparseArray<T>> {
        if values.shape() != [self.nnz()] {
            return Err(Error::Shape(format!(
                "with_values: {} stored elements, values of shape {:?}",
                self.nnz(),
                values.shape()
            )));
        }
        self.same_device("the values", values.device())?;
        Ok(SparseArray {
            values,
            ..self.clone()
        })
    }

    /// Row `i` scaled by `d[i]` (`diag(d) · A`), `d` of `rows` elements.
    ///
    /// ```
    /// use cuprite_array::{Array, Device, with_device};
    /// use cuprite_array::sparse::SparseArray;
    /// with_device(Device::CPU, || -> cuprite_array::Result<()> {
    ///     let a = SparseArray::from_triplets([2, 2], &[0, 1], &[1, 0], &[1.0f32, 1.0])?;
    ///     let d = Array::from_slice(&[2.0, 3.0], &[2])?;
    ///     assert_eq!(a.scale_rows(&d)?.to_dense()?.to_vec()?, [0.0, 2.0, 3.0, 0.0]);
    ///     Ok(())
    /// })?;
    /// # Ok::<(), cuprite_array::Error>(())
    /// ```
    pub fn scale_rows(&self, d: &Array<T>) -> Result<SparseArray<T>> {
        self.scale_by(d, true)
    }

    /// Column `j` scaled by `d[j]` (`A · diag(d)`), `d` of `cols` elements.
    ///
    /// ```
    /// use cuprite_array::{Array, Device, with_device};
    /// use cuprite_array::sparse::SparseArray;
    /// with_device(Device::CPU, || -> cuprite_array::Result<()> {
    ///     let a = SparseArray::from_triplets([2, 2], &[0, 1], &[1, 0], &[1.0f32, 1.0])?;
    ///     let d = Array::from_slice(&[2.0, 3.0], &[2])?;
    ///     assert_eq!(a.scale_cols(&d)?.to_dense()?.to_vec()?, [0.0, 3.0, 2.0, 0.0]);
    ///     Ok(())
    /// })?;
    /// # Ok::<(), cuprite_array::Error>(())
    /// ```
    pub fn scale_cols(&self, d: &Array<T>) -> Result<SparseArray<T>> {
        self.scale_by(d, false)
    }

    fn scale_by(&self, d: &Array<T>, rows: bool) -> Result<SparseArray<T>> {
        let n = self.shape[if rows { 0 } else { 1 }];
        if d.shape() != [n] {
            return Err(Error::Shape(format!(
                "scale_{}: {n} {} need a scale of shape [{n}], not {:?}",
                if rows { "rows" } else { "cols" },
                if rows { "rows" } else { "columns" },
                d.shape()
            )));
        }
        self.same_device("the scale", d.device())?;
        let dv = d.to_vec()?;
        let h: Host<T> = self.host()?;
        let scaled = h.map(|i, j, v| dv[if rows { i } else { j }] * v);
        self.like(scaled)
    }
}

impl<T: SparseValue + Float> SparseArray<T> {
    /// `A · x` and `xᵀ · A · x` (the sum of `x[r] · (A · x)[r]`, a 0-d array) for a square
    /// real `A`: the product and the inner product a conjugate-gradient step needs. Where
    /// `A` is a CSR matrix with short rows (fewer than 16 entries on average), run as
    /// [`spmv`](Self::spmv) would be, both come from one pass (on CUDA one kernel: each
    /// block sums its rows' products, and the last block to finish adds the blocks' sums),
    /// with the same bits on both backends; otherwise as `spmv` and a fused reduction.
    ///
    /// ```
    /// use cuprite_array::{Array, Device, with_device};
    /// use cuprite_array::sparse::SparseArray;
    /// with_device(Device::CPU, || -> cuprite_array::Result<()> {
    ///     // [[2, 1], [1, 3]]
    ///     let a = SparseArray::from_csr([2, 2], &[0, 2, 4], &[0, 1, 0, 1], &[2.0f64, 1.0, 1.0, 3.0])?;
    ///     let x = Array::from_slice(&[1.0, 2.0], &[2])?;
    ///     let (ax, xax) = a.spmv_dot(&x)?;
    ///     assert_eq!(ax.to_vec()?, [4.0, 7.0]);
    ///     assert_eq!(xax.item()?, 18.0); // 1·4 + 2·7
    ///     Ok(())
    /// })?;
    /// # Ok::<(), cuprite_array::Error>(())
    /// ```
    pub fn spmv_dot(&self, x: &Array<T>) -> Result<(Array<T>, Array<T>)> {
        let [rows, cols] = self.shape;
        if rows != cols || x.shape() != [cols] {
            return Err(Error::Shape(format!(
                "spmv_dot: A is {rows} × {cols} (it must be square), x has shape {:?} \
                 (expected [{cols}])",
                x.shape()
            )));
        }
        self.same_device("the dense operand", x.device())?;
        let fits = self.format == SparseFormat::Csr && CsrProduct::dot_fits(rows, cols, self.nnz());
        let fused = if fits {
            let (one, zero) = (T::one(), T::ZERO);
            self.csr_product(Transpose::None, one, x, None, zero, None, &[rows + 1], true)
        } else {
            None
        };
        if let Some(both) = fused {
            let y = both.slice(&[SliceArg::Range {
                start: None,
                end: Some(rows as isize),
                step: 1,
            }])?;
            let d = both.slice(&[SliceArg::Index(rows as isize)])?;
            return Ok((y, d));
        }
        let y = self.spmv(x)?;
        let d = dot(x, &y)?;
        Ok((y, d))
    }
}
