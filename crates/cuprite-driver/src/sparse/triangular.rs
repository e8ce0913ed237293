//! Sparse triangular solves (`cusparseSpSV`): `op(A) · y = alpha · x` for a square CSR or COO
//! `A` of which only one triangle is read.

use super::matrix::DnVec;
use super::{Format, SpMat, Sparse, SparseElement, SparseIndex, op_of};
use crate::blas::{Transpose, check_context, invalid};
use crate::error::Result;
use crate::memory::{Access, DeviceRead, DeviceWrite};
use cuprite_sys::cusparse::{
    self as sys, cusparseDiagType_t, cusparseFillMode_t, cusparseSpMatAttribute_t,
    cusparseSpSVAlg_t, cusparseSpSVDescr_t,
};
use std::ffi::c_void;

/// An SpSV descriptor, destroyed on drop.
struct SvDescr(cusparseSpSVDescr_t);

impl Drop for SvDescr {
    fn drop(&mut self) {
        // SAFETY: made by one `cusparseSpSV_createDescr` call and destroyed only here, after
        // the work that uses it has completed (see `Sparse::spsv`).
        let _ = unsafe { sys::cusparseSpSV_destroyDescr(self.0) };
    }
}

/// Which triangle of `A` a triangular solve reads, and what it takes as the diagonal.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Triangle {
    /// The lower triangle (else the upper one).
    pub lower: bool,
    /// Ones on the diagonal, whatever is stored there (else the stored diagonal).
    pub unit_diagonal: bool,
}

impl Sparse {
    /// Solves `op(A) · y = alpha · x` for `y` (`cusparseSpSV`), reading only the
    /// [`Triangle`] of the square CSR or COO matrix `A` (its other elements are ignored); `x`
    /// and `y` hold at least `n` elements. A zero on the diagonal read is not detected here
    /// (the solution then holds infinities or NaN): check it before. Real values only.
    ///
    /// The analysis and the solve are enqueued on the handle's stream; the call then waits
    /// for that stream, since the analysis state it frees may be in use until the solve ends.
    #[allow(clippy::too_many_arguments)]
    pub fn spsv<T: SparseElement, I: SparseIndex>(
        &self,
        op: Transpose,
        alpha: T,
        a: &SpMat<'_, T, I>,
        triangle: Triangle,
        x: &dyn DeviceRead<T>,
        y: &mut dyn DeviceWrite<T>,
    ) -> Result<()> {
        const CALL: &str = "cusparseSpSV";
        super::products::refuse_complex::<T>(CALL)?;
        let s = &*self.stream;
        a.check_context(CALL, "A", s)?;
        check_context(CALL, "x", s, x)?;
        check_context(CALL, "y", s, &*y)?;
        let n = a.rows;
        if a.cols != n || a.format == Format::Csc {
            return Err(invalid(format!(
                "{CALL}: A must be a square CSR or COO matrix, not {:?} {} × {}",
                a.format, a.rows, a.cols
            )));
        }
        if x.len() < n || y.len() < n {
            return Err(invalid(format!(
                "{CALL}: A is {n} × {n}; x holds {} element(s), y holds {}",
                x.len(),
                y.len()
            )));
        }
        let _turn = self.begin()?;
        let da = a.descriptor()?;
        let mut fill = if triangle.lower {
            cusparseFillMode_t::CUSPARSE_FILL_MODE_LOWER
        } else {
            cusparseFillMode_t::CUSPARSE_FILL_MODE_UPPER
        };
        let mut diag = if triangle.unit_diagonal {
            cusparseDiagType_t::CUSPARSE_DIAG_TYPE_UNIT
        } else {
            cusparseDiagType_t::CUSPARSE_DIAG_TYPE_NON_UNIT
        };
        // SAFETY: a live descriptor; each value is read as the attribute's type, of the size
        // given.
        unsafe {
            cusparse!(cusparseSpMatSetAttribute(
                da.0,
                cusparseSpMatAttribute_t::CUSPARSE_SPMAT_FILL_MODE,
                (&mut fill as *mut cusparseFillMode_t).cast::<c_void>(),
                std::mem::size_of::<cusparseFillMode_t>()
            ))?;
            cusparse!(cusparseSpMatSetAttribute(
                da.0,
                cusparseSpMatAttribute_t::CUSPARSE_SPMAT_DIAG_TYPE,
                (&mut diag as *mut cusparseDiagType_t).cast::<c_void>(),
                std::mem::size_of::<cusparseDiagType_t>()
            ))?;
        }
        let dx = DnVec::new::<T>(x.device_ptr(), n)?;
        let dy = DnVec::new::<T>(y.device_ptr_mut(), n)?;
        let mut raw: cusparseSpSVDescr_t = std::ptr::null_mut();
        // SAFETY: a valid out-pointer.
        unsafe { cusparse!(cusparseSpSV_createDescr(&mut raw)) }?;
        let sv = SvDescr(raw);
        let (h, opr, alg) = (
            self.raw,
            op_of::<T>(op),
            cusparseSpSVAlg_t::CUSPARSE_SPSV_ALG_DEFAULT,
        );
        let pa = (&alpha as *const T).cast::<c_void>();
        let mut bytes = 0usize;
        // SAFETY: live handle and descriptors; alpha is a host value of the data type.
        unsafe {
            cusparse!(cusparseSpSV_bufferSize(
                h,
                opr,
                pa,
                da.0,
                dx.0,
                dy.0,
                T::DATA_TYPE,
                alg,
                sv.0,
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
            // SAFETY: as above; the work buffer holds the bytes cuSPARSE asked for, keeps the
            // analysis for the solve, and is freed stream-ordered after both.
            unsafe {
                cusparse!(cusparseSpSV_analysis(
                    h,
                    opr,
                    pa,
                    da.0,
                    dx.0,
                    dy.0,
                    T::DATA_TYPE,
                    alg,
                    sv.0,
                    ws.device_ptr() as *mut c_void
                ))?;
                cusparse!(cusparseSpSV_solve(
                    h,
                    opr,
                    pa,
                    da.0,
                    dx.0,
                    dy.0,
                    T::DATA_TYPE,
                    alg,
                    sv.0
                ))
            }
        })?;
        // The descriptor is freed only after the solve that uses it has run.
        s.synchronize()?;
        drop(sv);
        Ok(())
    }
}
