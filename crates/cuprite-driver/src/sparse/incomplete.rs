//! Incomplete factorisations without fill-in on a CSR matrix's own pattern, in place
//! (`csrilu02`, `csric02`, cuSPARSE's legacy API, which takes `int` sizes and indices):
//! [`Sparse::incomplete`].

use super::{Sparse, SparseElement};
use crate::blas::{check_context, invalid};
use crate::error::Result;
use crate::memory::{Access, DeviceRead, DeviceWrite};
use cuprite_sys::LoadError;
use cuprite_sys::cusparse::{
    self as sys, csric02Info_t, csrilu02Info_t, cusparseHandle_t, cusparseIndexBase_t,
    cusparseMatDescr_t, cusparseMatrixType_t, cusparseSolvePolicy_t, cusparseStatus_t,
};
use std::ffi::{c_int, c_void};

/// Which incomplete factorisation [`Sparse::incomplete`] computes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Incomplete {
    /// ILU(0): `A ≈ L·U` with `L` unit lower triangular (its strict lower triangle stored
    /// where `A`'s is) and `U` upper triangular (stored where `A`'s upper triangle and
    /// diagonal are).
    Lu,
    /// IC(0): `A ≈ L·Lᵀ` for a symmetric positive definite `A`, with `L` lower triangular
    /// stored where `A`'s lower triangle and diagonal are (the strict upper triangle is left
    /// as it was).
    Cholesky,
}

mod sealed {
    pub trait Sealed {}
    impl Sealed for f32 {}
    impl Sealed for f64 {}
}

type BufferSize<T> = unsafe fn(
    cusparseHandle_t,
    c_int,
    c_int,
    cusparseMatDescr_t,
    *mut T,
    *const c_int,
    *const c_int,
    *mut c_void,
    *mut c_int,
) -> std::result::Result<cusparseStatus_t, LoadError>;
type Step<T> = unsafe fn(
    cusparseHandle_t,
    c_int,
    c_int,
    cusparseMatDescr_t,
    *mut T,
    *const c_int,
    *const c_int,
    *mut c_void,
    cusparseSolvePolicy_t,
    *mut c_void,
) -> std::result::Result<cusparseStatus_t, LoadError>;

/// A value type of the incomplete factorisations (`f32`, `f64`): the legacy routines of its
/// precision, as functions taking the info object as an untyped pointer.
pub trait IncompleteElement: SparseElement + sealed::Sealed {
    /// `csrilu02_bufferSize`, `csrilu02_analysis`, `csrilu02` of this type.
    #[doc(hidden)]
    const ILU: (BufferSize<Self>, Step<Self>, Step<Self>);
    /// The same for `csric02`.
    #[doc(hidden)]
    const IC: (BufferSize<Self>, Step<Self>, Step<Self>);
}

macro_rules! legacy {
    ($t:ty, $size:ident, $analysis:ident, $factor:ident, $info:ty) => {
        (
            |h, m, nnz, d, v, o, i, info, out| {
                // SAFETY: forwarded unchanged; the caller upholds the routine's contract.
                unsafe { sys::$size(h, m, nnz, d, v, o, i, info as $info, out) }
            },
            |h, m, nnz, d, v, o, i, info, p, buf| {
                // SAFETY: as above.
                unsafe { sys::$analysis(h, m, nnz, d, v, o, i, info as $info, p, buf) }
            },
            |h, m, nnz, d, v, o, i, info, p, buf| {
                // SAFETY: as above.
                unsafe { sys::$factor(h, m, nnz, d, v, o, i, info as $info, p, buf) }
            },
        )
    };
}

impl IncompleteElement for f32 {
    const ILU: (BufferSize<f32>, Step<f32>, Step<f32>) = legacy!(
        f32,
        cusparseScsrilu02_bufferSize,
        cusparseScsrilu02_analysis,
        cusparseScsrilu02,
        csrilu02Info_t
    );
    const IC: (BufferSize<f32>, Step<f32>, Step<f32>) = legacy!(
        f32,
        cusparseScsric02_bufferSize,
        cusparseScsric02_analysis,
        cusparseScsric02,
        csric02Info_t
    );
}

impl IncompleteElement for f64 {
    const ILU: (BufferSize<f64>, Step<f64>, Step<f64>) = legacy!(
        f64,
        cusparseDcsrilu02_bufferSize,
        cusparseDcsrilu02_analysis,
        cusparseDcsrilu02,
        csrilu02Info_t
    );
    const IC: (BufferSize<f64>, Step<f64>, Step<f64>) = legacy!(
        f64,
        cusparseDcsric02_bufferSize,
        cusparseDcsric02_analysis,
        cusparseDcsric02,
        csric02Info_t
    );
}

/// A legacy matrix descriptor (general, 0-based), destroyed on drop.
struct MatDescr(cusparseMatDescr_t);

impl Drop for MatDescr {
    fn drop(&mut self) {
        // SAFETY: made by one `cusparseCreateMatDescr` call and destroyed only here.
        let _ = unsafe { sys::cusparseDestroyMatDescr(self.0) };
    }
}

/// The info object of one factorisation, destroyed on drop (after the stream has waited).
struct Info(Incomplete, *mut c_void);

impl Drop for Info {
    fn drop(&mut self) {
        // SAFETY: made by the matching `cusparseCreate*Info` call, destroyed only here, after
        // `Sparse::incomplete` waited for the work that uses it.
        let _ = unsafe {
            match self.0 {
                Incomplete::Lu => sys::cusparseDestroyCsrilu02Info(self.1 as csrilu02Info_t),
                Incomplete::Cholesky => sys::cusparseDestroyCsric02Info(self.1 as csric02Info_t),
            }
        };
    }
}

impl Sparse {
    /// Factorises the square `m × m` CSR matrix (`offsets`, `indices`, `values`) in place,
    /// without fill-in ([`Incomplete`]); returns `Some(row)` for the first zero pivot, a
    /// missing diagonal element included (the values are then partly factorised), `None` on
    /// success. A negative pivot of IC(0) is not reported here (the factor then holds NaN).
    /// Waits for the stream (the zero-pivot checks read the device's answer).
    ///
    /// # Safety
    /// The buffers must describe a canonical CSR matrix: `offsets` rise from 0 to nnz, the
    /// column indices are below `m` and strictly increasing within each row.
    pub unsafe fn incomplete<T: IncompleteElement>(
        &self,
        kind: Incomplete,
        m: usize,
        offsets: &dyn DeviceRead<i32>,
        indices: &dyn DeviceRead<i32>,
        values: &mut dyn DeviceWrite<T>,
    ) -> Result<Option<usize>> {
        let call = match kind {
            Incomplete::Lu => "cusparseXcsrilu02",
            Incomplete::Cholesky => "cusparseXcsric02",
        };
        let s = &*self.stream;
        check_context(call, "offsets", s, offsets)?;
        check_context(call, "indices", s, indices)?;
        check_context(call, "values", s, &*values)?;
        let nnz = values.len();
        if offsets.len() != m.saturating_add(1) || indices.len() != nnz {
            return Err(invalid(format!(
                "{call}: a {m} × {m} CSR matrix with {} offsets and {} indices for {nnz} \
                 values",
                offsets.len(),
                indices.len()
            )));
        }
        let int = |what: &str, v: usize| {
            c_int::try_from(v).map_err(|_| {
                invalid(format!(
                    "{call}: {what} = {v} does not fit the legacy API's int"
                ))
            })
        };
        let (mi, nnzi) = (int("m", m)?, int("nnz", nnz)?);
        if m == 0 {
            return Ok(None);
        }
        let _turn = self.begin()?;
        let mut d: cusparseMatDescr_t = std::ptr::null_mut();
        // SAFETY: a valid out-pointer.
        unsafe { cusparse!(cusparseCreateMatDescr(&mut d)) }?;
        let desc = MatDescr(d);
        // SAFETY: a live descriptor.
        unsafe {
            cusparse!(cusparseSetMatType(
                desc.0,
                cusparseMatrixType_t::CUSPARSE_MATRIX_TYPE_GENERAL
            ))?;
            cusparse!(cusparseSetMatIndexBase(
                desc.0,
                cusparseIndexBase_t::CUSPARSE_INDEX_BASE_ZERO
            ))?;
        }
        let info = match kind {
            Incomplete::Lu => {
                let mut i: csrilu02Info_t = std::ptr::null_mut();
                // SAFETY: a valid out-pointer.
                unsafe { cusparse!(cusparseCreateCsrilu02Info(&mut i)) }?;
                Info(kind, i.cast())
            }
            Incomplete::Cholesky => {
                let mut i: csric02Info_t = std::ptr::null_mut();
                // SAFETY: a valid out-pointer.
                unsafe { cusparse!(cusparseCreateCsric02Info(&mut i)) }?;
                Info(kind, i.cast())
            }
        };
        let (size, analysis, factor) = match kind {
            Incomplete::Lu => T::ILU,
            Incomplete::Cholesky => T::IC,
        };
        let (h, v, o, ix) = (
            self.raw,
            values.device_ptr_mut() as *mut T,
            offsets.device_ptr() as *const c_int,
            indices.device_ptr() as *const c_int,
        );
        let mut bytes: c_int = 0;
        // SAFETY: live handle, descriptor and info; the buffers hold the sizes given (checked
        // above); their contents are the caller's promise.
        let r = unsafe { size(h, mi, nnzi, desc.0, v, o, ix, info.1, &mut bytes) };
        super::check_cusparse(r, call)?;
        let ws = self.workspace(usize::try_from(bytes).unwrap_or(0).max(1))?;
        let policy = cusparseSolvePolicy_t::CUSPARSE_SOLVE_POLICY_USE_LEVEL;
        let acc = [
            Access::read(offsets),
            Access::read(indices),
            Access::write(&*values),
            Access::write(&ws),
        ];
        let wp = ws.device_ptr() as *mut c_void;
        s.with_access(&acc, || {
            // SAFETY: as above; the work buffer holds the bytes cuSPARSE asked for and is
            // freed stream-ordered after this work.
            let r = unsafe { analysis(h, mi, nnzi, desc.0, v, o, ix, info.1, policy, wp) };
            super::check_cusparse(r, call)
        })?;
        if let Some(row) = zero_pivot(h, &info, call)? {
            return Ok(Some(row));
        }
        s.with_access(&acc, || {
            // SAFETY: as above, after the analysis.
            let r = unsafe { factor(h, mi, nnzi, desc.0, v, o, ix, info.1, policy, wp) };
            super::check_cusparse(r, call)
        })?;
        let pivot = zero_pivot(h, &info, call)?;
        // The info object is freed only after the work that uses it has run.
        s.synchronize()?;
        drop(info);
        Ok(pivot)
    }
}

/// The first zero pivot the factorisation of `info` met (`cusparseX*02_zeroPivot`, which
/// waits for the device), or `None`.
fn zero_pivot(h: cusparseHandle_t, info: &Info, call: &'static str) -> Result<Option<usize>> {
    let mut pos: c_int = -1;
    // SAFETY: live handle and info; a host out-pointer (the handle's pointer mode is host).
    let r = unsafe {
        match info.0 {
            Incomplete::Lu => {
                sys::cusparseXcsrilu02_zeroPivot(h, info.1 as csrilu02Info_t, &mut pos)
            }
            Incomplete::Cholesky => {
                sys::cusparseXcsric02_zeroPivot(h, info.1 as csric02Info_t, &mut pos)
            }
        }
    };
    match r {
        Ok(st) if st == cusparseStatus_t::CUSPARSE_STATUS_ZERO_PIVOT => {
            Ok(Some(usize::try_from(pos).unwrap_or(0)))
        }
        other => super::check_cusparse(other, call).map(|()| None),
    }
}
