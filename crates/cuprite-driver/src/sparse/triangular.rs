//! Sparse triangular solves: `op(A) · y = alpha · x` (`cusparseSpSV`, once through
//! [`Sparse::spsv`] or many times through an analysed [`SpsvPlan`]) and
//! `op(A) · C = alpha · B` for several right-hand sides (`cusparseSpSM`, [`Sparse::spsm`]),
//! for a square CSR or COO `A` of which only one triangle is read.

use super::matrix::{DnDescr, DnVec, SpDescr, check_dense};
use super::{Format, SpMat, Sparse, SparseElement, SparseIndex, op_of};
use crate::blas::{Transpose, check_context, invalid};
use crate::context::DropWait;
use crate::error::Result;
use crate::memory::{Access, DeviceBuffer, DeviceRead, DeviceWrite};
use crate::stream::Stream;
use cuprite_sys::cusparse::{
    self as sys, cusparseDiagType_t, cusparseFillMode_t, cusparseOperation_t,
    cusparseSpMatAttribute_t, cusparseSpSMAlg_t, cusparseSpSMDescr_t, cusparseSpSVAlg_t,
    cusparseSpSVDescr_t,
};
use std::ffi::c_void;
use std::sync::Arc;

/// An SpSV descriptor, destroyed on drop.
struct SvDescr(cusparseSpSVDescr_t);

/// A plan's descriptors, destroyed on whichever thread runs put-off work.
struct AfterSync {
    _sv: Option<SvDescr>,
    _da: Option<SpDescr>,
}

// SAFETY: cuSPARSE descriptors are host objects with no thread affinity; the ones moved here
// are no longer reachable from their plan, so nothing else uses them.
unsafe impl Send for AfterSync {}

impl Drop for SvDescr {
    fn drop(&mut self) {
        // SAFETY: made by one `cusparseSpSV_createDescr` call and destroyed only here, after
        // the work that uses it has completed (see `Sparse::spsv`).
        let _ = unsafe { sys::cusparseSpSV_destroyDescr(self.0) };
    }
}

/// An SpSM descriptor, destroyed on drop.
struct SmDescr(cusparseSpSMDescr_t);

impl Drop for SmDescr {
    fn drop(&mut self) {
        // SAFETY: made by one `cusparseSpSM_createDescr` call and destroyed only here, after
        // the work that uses it has completed (see `Sparse::spsm`).
        let _ = unsafe { sys::cusparseSpSM_destroyDescr(self.0) };
    }
}

/// Sets the fill mode and diagonal type of `da` from `triangle`.
fn set_triangle(da: &SpDescr, triangle: Triangle) -> Result<()> {
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
        ))
    }
}

/// Checks that `a` is a square CSR or COO matrix for `call`; returns its order.
fn square<T, I>(call: &str, a: &SpMat<'_, T, I>) -> Result<usize> {
    if a.cols != a.rows || a.format == Format::Csc {
        return Err(invalid(format!(
            "{call}: A must be a square CSR or COO matrix, not {:?} {} × {}",
            a.format, a.rows, a.cols
        )));
    }
    Ok(a.rows)
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
        let n = square(CALL, a)?;
        if x.len() < n || y.len() < n {
            return Err(invalid(format!(
                "{CALL}: A is {n} × {n}; x holds {} element(s), y holds {}",
                x.len(),
                y.len()
            )));
        }
        let _turn = self.begin()?;
        let da = a.descriptor()?;
        set_triangle(&da, triangle)?;
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

impl Sparse {
    /// Solves `op(A) · C = alpha · B` for the row-major dense `C` (`n × k`, leading dimension
    /// `ldc`) given the row-major dense `B` (`n × k`, leading dimension `ldb`)
    /// (`cusparseSpSM`), reading only the [`Triangle`] of the square CSR or COO matrix `A`
    /// (`n × n`; its other elements are ignored). `op` may transpose `A` (a conjugate
    /// transpose of real values is a transpose). A zero on the diagonal read is not detected
    /// here: check it before. Real values only; `k = 0` or `n = 0` does nothing.
    ///
    /// The analysis and the solve are enqueued on the handle's stream; the call then waits
    /// for that stream, since the analysis state it frees may be in use until the solve ends.
    ///
    /// ```no_run
    /// use cuprite_driver::blas::Transpose;
    /// use cuprite_driver::sparse::{Format, Sparse, SpMat, Triangle};
    /// # fn main() -> cuprite_driver::Result<()> {
    /// let ctx = cuprite_driver::Context::new(0)?;
    /// let s = ctx.default_stream();
    /// let sp = Sparse::new(&s)?;
    /// // L = [[2, 0], [1, 4]] in CSR; B = [[2, 4], [9, 18]] (two right-hand sides).
    /// let offsets = s.clone_htod(&[0i32, 1, 3])?;
    /// let indices = s.clone_htod(&[0i32, 0, 1])?;
    /// let values = s.clone_htod(&[2.0f64, 1.0, 4.0])?;
    /// // SAFETY: the offsets rise from 0 to 3 and every column index is below 2.
    /// let l = unsafe { SpMat::new(Format::Csr, 2, 2, &offsets, &indices, &values) }?;
    /// let b = s.clone_htod(&[2.0f64, 4.0, 9.0, 18.0])?;
    /// let mut c = s.alloc_zeros::<f64>(4)?;
    /// let lower = Triangle { lower: true, unit_diagonal: false };
    /// sp.spsm(Transpose::None, 1.0, &l, lower, &b, 2, 2, &mut c, 2)?;
    /// assert_eq!(s.clone_dtoh(&c)?, [1.0, 2.0, 2.0, 4.0]);
    /// # Ok(()) }
    /// ```
    #[allow(clippy::too_many_arguments)]
    pub fn spsm<T: SparseElement, I: SparseIndex>(
        &self,
        op: Transpose,
        alpha: T,
        a: &SpMat<'_, T, I>,
        triangle: Triangle,
        b: &dyn DeviceRead<T>,
        k: usize,
        ldb: usize,
        c: &mut dyn DeviceWrite<T>,
        ldc: usize,
    ) -> Result<()> {
        const CALL: &str = "cusparseSpSM";
        super::products::refuse_complex::<T>(CALL)?;
        let s = &*self.stream;
        a.check_context(CALL, "A", s)?;
        check_context(CALL, "B", s, b)?;
        check_context(CALL, "C", s, &*c)?;
        let n = square(CALL, a)?;
        check_dense(CALL, "B", n, k, ldb, b.len())?;
        check_dense(CALL, "C", n, k, ldc, c.len())?;
        if n == 0 || k == 0 {
            return Ok(());
        }
        let _turn = self.begin()?;
        let da = a.descriptor()?;
        set_triangle(&da, triangle)?;
        let db = DnDescr::new::<T>(b.device_ptr(), n, k, ldb)?;
        let dc = DnDescr::new::<T>(c.device_ptr_mut(), n, k, ldc)?;
        let mut raw: cusparseSpSMDescr_t = std::ptr::null_mut();
        // SAFETY: a valid out-pointer.
        unsafe { cusparse!(cusparseSpSM_createDescr(&mut raw)) }?;
        let sm = SmDescr(raw);
        let (h, opa, opb, alg) = (
            self.raw,
            op_of::<T>(op),
            cusparseOperation_t::CUSPARSE_OPERATION_NON_TRANSPOSE,
            cusparseSpSMAlg_t::CUSPARSE_SPSM_ALG_DEFAULT,
        );
        let pa = (&alpha as *const T).cast::<c_void>();
        let mut bytes = 0usize;
        // SAFETY: live handle and descriptors; alpha is a host value of the data type.
        unsafe {
            cusparse!(cusparseSpSM_bufferSize(
                h,
                opa,
                opb,
                pa,
                da.0,
                db.0,
                dc.0,
                T::DATA_TYPE,
                alg,
                sm.0,
                &mut bytes
            ))
        }?;
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
            // SAFETY: as above; the work buffer holds the bytes cuSPARSE asked for, keeps the
            // analysis for the solve, and is freed stream-ordered after both.
            unsafe {
                cusparse!(cusparseSpSM_analysis(
                    h,
                    opa,
                    opb,
                    pa,
                    da.0,
                    db.0,
                    dc.0,
                    T::DATA_TYPE,
                    alg,
                    sm.0,
                    ws.device_ptr() as *mut c_void
                ))?;
                cusparse!(cusparseSpSM_solve(
                    h,
                    opa,
                    opb,
                    pa,
                    da.0,
                    db.0,
                    dc.0,
                    T::DATA_TYPE,
                    alg,
                    sm.0
                ))
            }
        })?;
        // The descriptor is freed only after the solve that uses it has run.
        s.synchronize()?;
        drop(sm);
        Ok(())
    }

    /// Analyses `op(A) · y = x` for repeated solves ([`SpsvPlan::solve`]), reading only the
    /// [`Triangle`] of the square CSR or COO `A`. Only enqueues. The plan records where `A`'s
    /// buffers are and which sizes they have; each solve takes `A` again and checks that it
    /// is the same matrix. Real values only.
    ///
    /// # Safety
    /// The contents of `A`'s buffers must not change, and the buffers must not be freed,
    /// while the plan lives: the plan's analysis (and its descriptor, which points at them)
    /// describes them as they are now.
    pub unsafe fn spsv_plan<T: SparseElement, I: SparseIndex>(
        &self,
        op: Transpose,
        a: &SpMat<'_, T, I>,
        triangle: Triangle,
    ) -> Result<SpsvPlan<T>> {
        const CALL: &str = "cusparseSpSV_analysis";
        super::products::refuse_complex::<T>(CALL)?;
        let s = &*self.stream;
        a.check_context(CALL, "A", s)?;
        let n = square(CALL, a)?;
        let _turn = self.begin()?;
        let da = a.descriptor()?;
        set_triangle(&da, triangle)?;
        // Stand-in vectors of the right size for the analysis, which reads neither.
        let elem = std::mem::size_of::<T>();
        let scratch = self.workspace(n.max(1).saturating_mul(elem))?;
        let dx = DnVec::new::<T>(scratch.device_ptr(), n)?;
        let dy = DnVec::new::<T>(scratch.device_ptr(), n)?;
        let mut raw: cusparseSpSVDescr_t = std::ptr::null_mut();
        // SAFETY: a valid out-pointer.
        unsafe { cusparse!(cusparseSpSV_createDescr(&mut raw)) }?;
        let sv = SvDescr(raw);
        let (h, opr, alg) = (
            self.raw,
            op_of::<T>(op),
            cusparseSpSVAlg_t::CUSPARSE_SPSV_ALG_DEFAULT,
        );
        let one = T::ONE;
        let pa = (&one as *const T).cast::<c_void>();
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
        let acc = [r0, r1, r2, Access::write(&ws)];
        if n > 0 {
            s.with_access(&acc, || {
                // SAFETY: as above; the work buffer holds the bytes cuSPARSE asked for and
                // keeps the analysis for the solves; the plan owns it.
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
                    ))
                }
            })?;
        }
        Ok(SpsvPlan {
            sv: Some(sv),
            da: Some(da),
            ws,
            stream: self.stream.clone(),
            handle: self.raw as usize,
            op: opr,
            n,
            ptrs: a.pointers(),
            _t: std::marker::PhantomData,
        })
    }
}

/// An analysed triangular solve ([`Sparse::spsv_plan`]), applied by [`solve`](Self::solve)
/// as often as needed without a new analysis or a host synchronisation. Dropping it waits
/// for its stream (the analysis may be in use until the last solve ends).
pub struct SpsvPlan<T: SparseElement> {
    sv: Option<SvDescr>,
    da: Option<SpDescr>,
    ws: DeviceBuffer<u8>,
    stream: Arc<Stream>,
    handle: usize,
    op: cusparseOperation_t,
    n: usize,
    ptrs: [(u64, usize); 3],
    _t: std::marker::PhantomData<T>,
}

impl<T: SparseElement> std::fmt::Debug for SpsvPlan<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SpsvPlan").field("n", &self.n).finish()
    }
}

// SAFETY: the descriptors are used only through `Sparse` calls under the handle's lock, and
// cuSPARSE descriptors may move between threads.
unsafe impl<T: SparseElement> Send for SpsvPlan<T> {}
// SAFETY: as above.
unsafe impl<T: SparseElement> Sync for SpsvPlan<T> {}

impl<T: SparseElement> SpsvPlan<T> {
    /// Solves `op(A) · y = x` with the analysed `A` (`cusparseSpSV_solve`) on `sp`, the
    /// handle that made the plan; `a` must be the matrix analysed (the same buffers and
    /// sizes), `x` and `y` hold at least `n` elements. Only enqueues.
    pub fn solve<I: SparseIndex>(
        &self,
        sp: &Sparse,
        a: &SpMat<'_, T, I>,
        x: &dyn DeviceRead<T>,
        y: &mut dyn DeviceWrite<T>,
    ) -> Result<()> {
        const CALL: &str = "cusparseSpSV_solve";
        if sp.raw as usize != self.handle {
            return Err(invalid(format!(
                "{CALL}: the plan was made by another cuSPARSE handle"
            )));
        }
        if a.pointers() != self.ptrs {
            return Err(invalid(format!(
                "{CALL}: A is not the matrix the plan analysed"
            )));
        }
        let s = &*self.stream;
        check_context(CALL, "x", s, x)?;
        check_context(CALL, "y", s, &*y)?;
        let n = self.n;
        if x.len() < n || y.len() < n {
            return Err(invalid(format!(
                "{CALL}: A is {n} × {n}; x holds {} element(s), y holds {}",
                x.len(),
                y.len()
            )));
        }
        if n == 0 {
            return Ok(());
        }
        let (Some(sv), Some(da)) = (&self.sv, &self.da) else {
            return Err(invalid(format!("{CALL}: the plan was released")));
        };
        let _turn = sp.begin()?;
        let dx = DnVec::new::<T>(x.device_ptr(), n)?;
        let dy = DnVec::new::<T>(y.device_ptr_mut(), n)?;
        let one = T::ONE;
        let pa = (&one as *const T).cast::<c_void>();
        let [r0, r1, r2] = a.reads();
        let acc = [
            r0,
            r1,
            r2,
            Access::of_tracker(self.ws.tracker(), true),
            Access::read(x),
            Access::write(&*y),
        ];
        let (h, opr, alg) = (
            sp.raw,
            self.op,
            cusparseSpSVAlg_t::CUSPARSE_SPSV_ALG_DEFAULT,
        );
        s.with_access(&acc, || {
            // SAFETY: live handle and descriptors; the analysis in the plan's work buffer
            // describes `A`, whose buffers are unchanged (the plan's safety contract, and
            // checked to be the same above).
            unsafe {
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
        })
    }
}

impl<T: SparseElement> Drop for SpsvPlan<T> {
    fn drop(&mut self) {
        // The descriptors are destroyed only after every solve enqueued with them has run.
        let ctx = self.stream.context();
        let descrs = AfterSync {
            _sv: self.sv.take(),
            _da: self.da.take(),
        };
        match self.stream.synchronize_for_drop() {
            DropWait::Done => drop(descrs),
            // A capture in progress on the stream refused the wait (no error of the
            // capture's): the descriptors go after the next context-wide synchronisation that
            // succeeds.
            DropWait::Refused => ctx.after_next_sync(
                "destroying an SpsvPlan's descriptors",
                Box::new(move || {
                    drop(descrs);
                    Ok(())
                }),
            ),
            // Leaked rather than destroyed under solves that may still run.
            DropWait::Failed(e) => {
                ctx.defer("synchronize before dropping an SpsvPlan", e);
                std::mem::forget(descrs);
            }
        }
    }
}
