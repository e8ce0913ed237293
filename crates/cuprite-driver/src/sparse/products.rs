//! The products: sparse × dense vector (SpMV), sparse × dense matrix (SpMM) and sparse ×
//! sparse (SpGEMM).

use super::matrix::{DnDescr, DnVec, SpDescr, check_dense};
use super::{Format, SpMat, Sparse, SparseElement, SparseIndex, op_of};
use crate::blas::{Transpose, check_context, invalid, to_i64};
use crate::error::Result;
use crate::memory::{Access, DeviceBuffer, DeviceRead, DeviceWrite};
use cuprite_sys::cusparse::{
    self as sys, cusparseIndexBase_t, cusparseOperation_t, cusparseSpGEMMAlg_t,
    cusparseSpGEMMDescr_t, cusparseSpMMAlg_t, cusparseSpMVAlg_t,
};
use std::ffi::c_void;

/// A CSR matrix in device buffers of its own: what [`Sparse::spgemm`] returns.
#[derive(Debug)]
pub struct CsrBuffers<T: SparseElement, I: SparseIndex> {
    /// The number of rows.
    pub rows: usize,
    /// The number of columns.
    pub cols: usize,
    /// `rows + 1` row offsets.
    pub offsets: DeviceBuffer<I>,
    /// The column index of each stored element.
    pub indices: DeviceBuffer<I>,
    /// The stored elements.
    pub values: DeviceBuffer<T>,
}

/// An SpGEMM descriptor, destroyed on drop.
struct GemmDescr(cusparseSpGEMMDescr_t);

impl Drop for GemmDescr {
    fn drop(&mut self) {
        // SAFETY: made by one `cusparseSpGEMM_createDescr` call and destroyed only here.
        let _ = unsafe { sys::cusparseSpGEMM_destroyDescr(self.0) };
    }
}

/// The rows and columns of `op(a)`.
fn op_shape<T, I>(op: Transpose, a: &SpMat<'_, T, I>) -> (usize, usize) {
    if op.is_transposed() {
        (a.cols, a.rows)
    } else {
        (a.rows, a.cols)
    }
}

impl Sparse {
    /// `y = alpha · op(A) · x + beta · y` (`cusparseSpMV`), with `x` of `op(A)`'s column count
    /// and `y` of its row count (the buffers may be longer; only that many elements are used).
    /// With `beta == 0`, `y` is not read. Only enqueues.
    #[allow(clippy::too_many_arguments)]
    pub fn spmv<T: SparseElement, I: SparseIndex>(
        &self,
        op: Transpose,
        alpha: T,
        a: &SpMat<'_, T, I>,
        x: &dyn DeviceRead<T>,
        beta: T,
        y: &mut dyn DeviceWrite<T>,
    ) -> Result<()> {
        const CALL: &str = "cusparseSpMV";
        refuse_complex::<T>(CALL)?;
        let s = &*self.stream;
        a.check_context(CALL, "A", s)?;
        check_context(CALL, "x", s, x)?;
        check_context(CALL, "y", s, &*y)?;
        let (m, n) = op_shape(op, a);
        if x.len() < n || y.len() < m {
            return Err(invalid(format!(
                "{CALL}: op(A) is {m} × {n}; x holds {} element(s), y holds {}",
                x.len(),
                y.len()
            )));
        }
        let _turn = self.begin()?;
        let da = a.descriptor()?;
        let dx = DnVec::new::<T>(x.device_ptr(), n)?;
        let dy = DnVec::new::<T>(y.device_ptr_mut(), m)?;
        let (h, opr, alg) = (
            self.raw,
            op_of::<T>(op),
            cusparseSpMVAlg_t::CUSPARSE_SPMV_ALG_DEFAULT,
        );
        let (pa, pb) = (scalar_ptr(&alpha), scalar_ptr(&beta));
        let mut bytes = 0usize;
        // SAFETY: live handle and descriptors; the scalars are host values of the data type.
        unsafe {
            cusparse!(cusparseSpMV_bufferSize(
                h,
                opr,
                pa,
                da.0,
                dx.0,
                pb,
                dy.0,
                T::DATA_TYPE,
                alg,
                &mut bytes
            ))
        }?;
        let ws = self.workspace(bytes)?;
        let [r0, r1, r2] = a.reads();
        let acc = [
            r0,
            r1,
            r2,
            Access::read(x),
            Access::write(&*y),
            Access::write(&ws),
        ];
        s.with_access(&acc, || {
            // SAFETY: as above; the work buffer holds the bytes cuSPARSE asked for and is freed
            // stream-ordered after this work.
            unsafe {
                cusparse!(cusparseSpMV(
                    h,
                    opr,
                    pa,
                    da.0,
                    dx.0,
                    pb,
                    dy.0,
                    T::DATA_TYPE,
                    alg,
                    ws.device_ptr() as *mut c_void
                ))
            }
        })
    }

    /// `C = alpha · op(A) · B + beta · C` (`cusparseSpMM`) with row-major dense `B` (`op(A)`'s
    /// column count × `n`, leading dimension `ldb`) and `C` (`op(A)`'s row count × `n`,
    /// leading dimension `ldc`). With `beta == 0`, `C` is not read. Only enqueues.
    #[allow(clippy::too_many_arguments)]
    pub fn spmm<T: SparseElement, I: SparseIndex>(
        &self,
        op: Transpose,
        alpha: T,
        a: &SpMat<'_, T, I>,
        b: &dyn DeviceRead<T>,
        n: usize,
        ldb: usize,
        beta: T,
        c: &mut dyn DeviceWrite<T>,
        ldc: usize,
    ) -> Result<()> {
        const CALL: &str = "cusparseSpMM";
        refuse_complex::<T>(CALL)?;
        let s = &*self.stream;
        a.check_context(CALL, "A", s)?;
        check_context(CALL, "B", s, b)?;
        check_context(CALL, "C", s, &*c)?;
        let (m, k) = op_shape(op, a);
        check_dense(CALL, "B", k, n, ldb, b.len())?;
        check_dense(CALL, "C", m, n, ldc, c.len())?;
        let _turn = self.begin()?;
        let da = a.descriptor()?;
        let db = DnDescr::new::<T>(b.device_ptr(), k, n, ldb)?;
        let dc = DnDescr::new::<T>(c.device_ptr_mut(), m, n, ldc)?;
        let (h, opa, opb) = (
            self.raw,
            op_of::<T>(op),
            cusparseOperation_t::CUSPARSE_OPERATION_NON_TRANSPOSE,
        );
        // Row-major dense operands: CSR_ALG2 is cuSPARSE's algorithm for that layout (the
        // default suits column-major ones); where this library version refuses it for these
        // operands, the default.
        let default = cusparseSpMMAlg_t::CUSPARSE_SPMM_ALG_DEFAULT;
        let algs = if a.format == Format::Csr && !op.is_transposed() {
            vec![cusparseSpMMAlg_t::CUSPARSE_SPMM_CSR_ALG2, default]
        } else {
            vec![default]
        };
        let (pa, pb) = (scalar_ptr(&alpha), scalar_ptr(&beta));
        let mut chosen = None;
        for (i, &alg) in algs.iter().enumerate() {
            let mut bytes = 0usize;
            // SAFETY: live handle and descriptors; the scalars are host values of the data
            // type.
            let r = unsafe {
                cusparse!(cusparseSpMM_bufferSize(
                    h,
                    opa,
                    opb,
                    pa,
                    da.0,
                    db.0,
                    pb,
                    dc.0,
                    T::DATA_TYPE,
                    alg,
                    &mut bytes
                ))
            };
            match r {
                Ok(()) => {
                    chosen = Some((alg, bytes));
                    break;
                }
                Err(e) if i + 1 == algs.len() => return Err(e),
                Err(_) => {}
            }
        }
        let Some((alg, bytes)) = chosen else {
            return Err(invalid(format!(
                "{CALL}: no algorithm accepted the operands"
            )));
        };
        let ws = self.workspace(bytes)?;
        let [r0, r1, r2] = a.reads();
        let acc = [
            r0,
            r1,
            r2,
            Access::read(b),
            Access::write(&*c),
            Access::write(&ws),
        ];
        s.with_access(&acc, || {
            // SAFETY: as above; the work buffer holds the bytes cuSPARSE asked for.
            unsafe {
                cusparse!(cusparseSpMM(
                    h,
                    opa,
                    opb,
                    pa,
                    da.0,
                    db.0,
                    pb,
                    dc.0,
                    T::DATA_TYPE,
                    alg,
                    ws.device_ptr() as *mut c_void
                ))
            }
        })
    }

    /// `C = alpha · A · B` for CSR `A` and `B` (`cusparseSpGEMM_*`), as new CSR buffers with
    /// sorted column indices. Waits for the stream once (the product's number of nonzeros
    /// decides its buffers).
    pub fn spgemm<T: SparseElement, I: SparseIndex>(
        &self,
        alpha: T,
        a: &SpMat<'_, T, I>,
        b: &SpMat<'_, T, I>,
    ) -> Result<CsrBuffers<T, I>> {
        const CALL: &str = "cusparseSpGEMM";
        let s = &self.stream;
        a.check_context(CALL, "A", s)?;
        b.check_context(CALL, "B", s)?;
        if a.format != Format::Csr || b.format != Format::Csr {
            return Err(invalid(format!(
                "{CALL}: both operands must be CSR, not {:?} and {:?}",
                a.format, b.format
            )));
        }
        if a.cols != b.rows {
            return Err(invalid(format!(
                "{CALL}: A is {} × {} and B is {} × {}: inner sizes differ",
                a.rows, a.cols, b.rows, b.cols
            )));
        }
        let (m, n) = (a.rows, b.cols);
        let offsets = s.alloc_zeros::<I>(m + 1)?;
        let _turn = self.begin()?;
        let (da, db) = (a.descriptor()?, b.descriptor()?);
        let mut dc = std::ptr::null_mut();
        let (mi, ni) = (to_i64(CALL, "rows", m)?, to_i64(CALL, "cols", n)?);
        // SAFETY: a valid out-pointer; C's offsets hold m + 1 elements and cuSPARSE writes its
        // other arrays only after `cusparseCsrSetPointers` below.
        unsafe {
            cusparse!(cusparseCreateCsr(
                &mut dc,
                mi,
                ni,
                0,
                offsets.device_ptr() as *mut c_void,
                std::ptr::null_mut(),
                std::ptr::null_mut(),
                I::INDEX_TYPE,
                I::INDEX_TYPE,
                cusparseIndexBase_t::CUSPARSE_INDEX_BASE_ZERO,
                T::DATA_TYPE
            ))
        }?;
        let dc = SpDescr(dc);
        let mut g = std::ptr::null_mut();
        // SAFETY: a valid out-pointer.
        unsafe { cusparse!(cusparseSpGEMM_createDescr(&mut g)) }?;
        let g = GemmDescr(g);
        let zero = T::ZERO;
        let steps = Steps {
            h: self.raw,
            alpha: scalar_ptr(&alpha),
            beta: scalar_ptr(&zero),
            a: &da,
            b: &db,
            c: &dc,
            g: &g,
            dt: T::DATA_TYPE,
        };
        let [a0, a1, a2] = a.reads();
        let [b0, b1, b2] = b.reads();
        let (ws1, ws2) = steps.estimate_and_compute(self, [a0, a1, a2, b0, b1, b2], &offsets)?;
        let (mut rows, mut cols, mut nnz) = (0i64, 0i64, 0i64);
        // SAFETY: a live descriptor and valid out-pointers.
        unsafe { cusparse!(cusparseSpMatGetSize(dc.0, &mut rows, &mut cols, &mut nnz)) }?;
        let nnz = usize::try_from(nnz)
            .map_err(|_| invalid(format!("{CALL}: cuSPARSE reported {nnz} nonzeros")))?;
        // SAFETY: written in full by `cusparseSpGEMM_copy` below before anything reads them.
        let (indices, values) = unsafe { (s.alloc::<I>(nnz)?, s.alloc::<T>(nnz)?) };
        if nnz == 0 {
            // An empty product: the zeroed offsets are its offsets; nothing to copy.
            drop((ws1, ws2));
            return Ok(CsrBuffers {
                rows: m,
                cols: n,
                offsets,
                indices,
                values,
            });
        }
        // SAFETY: a live descriptor; the buffers hold m + 1 and nnz elements.
        unsafe {
            cusparse!(cusparseCsrSetPointers(
                dc.0,
                offsets.device_ptr() as *mut c_void,
                indices.device_ptr() as *mut c_void,
                values.device_ptr() as *mut c_void
            ))
        }?;
        let acc = [
            a0,
            a1,
            a2,
            b0,
            b1,
            b2,
            Access::write(&offsets),
            Access::write(&indices),
            Access::write(&values),
            Access::write(&ws1),
            Access::write(&ws2),
        ];
        s.with_access(&acc, || steps.copy())?;
        Ok(CsrBuffers {
            rows: m,
            cols: n,
            offsets,
            indices,
            values,
        })
    }
}

/// The arguments every SpGEMM step repeats.
struct Steps<'a> {
    h: sys::cusparseHandle_t,
    alpha: *const c_void,
    beta: *const c_void,
    a: &'a SpDescr,
    b: &'a SpDescr,
    c: &'a SpDescr,
    g: &'a GemmDescr,
    dt: sys::cudaDataType,
}

const NT: cusparseOperation_t = cusparseOperation_t::CUSPARSE_OPERATION_NON_TRANSPOSE;
const GEMM_ALG: cusparseSpGEMMAlg_t = cusparseSpGEMMAlg_t::CUSPARSE_SPGEMM_DEFAULT;

impl Steps<'_> {
    /// The work estimation and compute steps, each asked for its buffer size first; returns
    /// the two work buffers, which must live until the copy step.
    fn estimate_and_compute<I: SparseIndex>(
        &self,
        sp: &Sparse,
        reads: [Access<'_>; 6],
        offsets: &DeviceBuffer<I>,
    ) -> Result<(DeviceBuffer<u8>, DeviceBuffer<u8>)> {
        let s = &sp.stream;
        let mut bytes1 = 0usize;
        // SAFETY: live handle and descriptors; a null buffer asks for its size only.
        unsafe { self.estimate(&mut bytes1, std::ptr::null_mut()) }?;
        let ws1 = sp.workspace(bytes1)?;
        let mut acc: Vec<Access<'_>> = reads.to_vec();
        acc.push(Access::write(offsets));
        acc.push(Access::write(&ws1));
        s.with_access(&acc, || {
            // SAFETY: the buffer holds the bytes asked for.
            unsafe { self.estimate(&mut bytes1, ws1.device_ptr() as *mut c_void) }
        })?;
        let mut bytes2 = 0usize;
        // SAFETY: as above.
        unsafe { self.compute(&mut bytes2, std::ptr::null_mut()) }?;
        let ws2 = sp.workspace(bytes2)?;
        acc.push(Access::write(&ws2));
        s.with_access(&acc, || {
            // SAFETY: the buffer holds the bytes asked for; the first one lives on.
            unsafe { self.compute(&mut bytes2, ws2.device_ptr() as *mut c_void) }
        })?;
        Ok((ws1, ws2))
    }

    /// # Safety
    /// `buffer` is null or holds `*bytes` bytes.
    unsafe fn estimate(&self, bytes: &mut usize, buffer: *mut c_void) -> Result<()> {
        // SAFETY: the caller's promise; the descriptors are live.
        unsafe {
            cusparse!(cusparseSpGEMM_workEstimation(
                self.h, NT, NT, self.alpha, self.a.0, self.b.0, self.beta, self.c.0, self.dt,
                GEMM_ALG, self.g.0, bytes, buffer
            ))
        }
    }

    /// # Safety
    /// `buffer` is null or holds `*bytes` bytes.
    unsafe fn compute(&self, bytes: &mut usize, buffer: *mut c_void) -> Result<()> {
        // SAFETY: the caller's promise; the descriptors are live.
        unsafe {
            cusparse!(cusparseSpGEMM_compute(
                self.h, NT, NT, self.alpha, self.a.0, self.b.0, self.beta, self.c.0, self.dt,
                GEMM_ALG, self.g.0, bytes, buffer
            ))
        }
    }

    fn copy(&self) -> Result<()> {
        // SAFETY: C's pointers were set to buffers of the sizes the compute step reported.
        unsafe {
            cusparse!(cusparseSpGEMM_copy(
                self.h, NT, NT, self.alpha, self.a.0, self.b.0, self.beta, self.c.0, self.dt,
                GEMM_ALG, self.g.0
            ))
        }
    }
}

/// A host scalar as cuSPARSE's `const void*` (host pointer mode).
/// Complex values are refused by SpMV and SpMM: a product of complex values over every format,
/// index type and operation crashed the process inside the library in a GPU run, which a safe
/// call must never do. They stay refused until that run passes.
pub(super) fn refuse_complex<T: SparseElement>(call: &str) -> Result<()> {
    if T::IS_COMPLEX {
        return Err(invalid(format!(
            "{call}: complex values ({:?}) are not supported by cuprite's sparse products yet",
            T::DATA_TYPE
        )));
    }
    Ok(())
}

fn scalar_ptr<T>(v: &T) -> *const c_void {
    (v as *const T).cast()
}
