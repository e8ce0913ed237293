//! Format conversions: COO row indices to CSR row offsets (`cusparseXcoo2csr`) and CSR to CSC
//! (`cusparseCsr2cscEx2`), both with 32-bit indices as cuSPARSE offers them.

use super::{Sparse, SparseElement};
use crate::blas::{check_context, invalid, to_i32};
use crate::error::Result;
use crate::memory::{Access, DeviceRead, DeviceWrite};
use cuprite_sys::cusparse::{cusparseAction_t, cusparseCsr2CscAlg_t, cusparseIndexBase_t};
use std::ffi::{c_int, c_void};

impl Sparse {
    /// The `m + 1` CSR row offsets of COO row indices (`cusparseXcoo2csr`). Only enqueues.
    ///
    /// # Safety
    /// `rows` must be sorted (non-decreasing) with every value in `0..m`: cuSPARSE reads it
    /// unchecked.
    pub unsafe fn coo_to_csr(
        &self,
        rows: &dyn DeviceRead<i32>,
        m: usize,
        offsets: &mut dyn DeviceWrite<i32>,
    ) -> Result<()> {
        const CALL: &str = "cusparseXcoo2csr";
        let s = &*self.stream;
        check_context(CALL, "rows", s, rows)?;
        check_context(CALL, "offsets", s, &*offsets)?;
        let nnz = to_i32(CALL, "nnz", rows.len())?;
        let mi = to_i32(CALL, "m", m)?;
        if offsets.len() <= m {
            return Err(invalid(format!(
                "{CALL}: {m} rows need {} offsets, the buffer holds {}",
                m as u64 + 1,
                offsets.len()
            )));
        }
        let _turn = self.begin()?;
        let (h, pr, po) = (
            self.raw,
            rows.device_ptr() as *const c_int,
            offsets.device_ptr_mut() as *mut c_int,
        );
        let acc = [Access::read(rows), Access::write(&*offsets)];
        s.with_access(&acc, || {
            // SAFETY: the lengths were checked above; the contents are the caller's promise.
            unsafe {
                cusparse!(cusparseXcoo2csr(
                    h,
                    pr,
                    nnz,
                    mi,
                    po,
                    cusparseIndexBase_t::CUSPARSE_INDEX_BASE_ZERO
                ))
            }
        })
    }

    /// The CSC form of an `m × n` CSR matrix (`cusparseCsr2cscEx2`, values moved too): column
    /// offsets (`n + 1`), row indices and values (nnz each), row indices sorted within each
    /// column. Only enqueues.
    ///
    /// # Safety
    /// The CSR arrays must describe an `m × n` matrix (offsets from 0 rising to nnz, column
    /// indices in `0..n`): cuSPARSE reads them unchecked.
    #[allow(clippy::too_many_arguments)]
    pub unsafe fn csr_to_csc<T: SparseElement>(
        &self,
        m: usize,
        n: usize,
        offsets: &dyn DeviceRead<i32>,
        indices: &dyn DeviceRead<i32>,
        values: &dyn DeviceRead<T>,
        csc_offsets: &mut dyn DeviceWrite<i32>,
        csc_indices: &mut dyn DeviceWrite<i32>,
        csc_values: &mut dyn DeviceWrite<T>,
    ) -> Result<()> {
        const CALL: &str = "cusparseCsr2cscEx2";
        let s = &*self.stream;
        check_context(CALL, "offsets", s, offsets)?;
        check_context(CALL, "indices", s, indices)?;
        check_context(CALL, "values", s, values)?;
        check_context(CALL, "csc_offsets", s, &*csc_offsets)?;
        check_context(CALL, "csc_indices", s, &*csc_indices)?;
        check_context(CALL, "csc_values", s, &*csc_values)?;
        let nnz = values.len();
        let short = offsets.len() <= m
            || indices.len() < nnz
            || csc_offsets.len() <= n
            || csc_indices.len() < nnz
            || csc_values.len() < nnz;
        if short {
            return Err(invalid(format!(
                "{CALL}: an {m} × {n} matrix with {nnz} nonzeros needs {} and {} offsets and \
                 {nnz} indices and values; the buffers hold {}, {}, {}, {}, {} and {}",
                m as u64 + 1,
                n as u64 + 1,
                offsets.len(),
                csc_offsets.len(),
                indices.len(),
                csc_indices.len(),
                values.len(),
                csc_values.len()
            )));
        }
        let (mi, ni, nz) = (
            to_i32(CALL, "m", m)?,
            to_i32(CALL, "n", n)?,
            to_i32(CALL, "nnz", nnz)?,
        );
        let _turn = self.begin()?;
        let p = [
            values.device_ptr(),
            offsets.device_ptr(),
            indices.device_ptr(),
            csc_values.device_ptr_mut(),
            csc_offsets.device_ptr_mut(),
            csc_indices.device_ptr_mut(),
        ];
        let h = self.raw;
        let (act, base, alg) = (
            cusparseAction_t::CUSPARSE_ACTION_NUMERIC,
            cusparseIndexBase_t::CUSPARSE_INDEX_BASE_ZERO,
            cusparseCsr2CscAlg_t::CUSPARSE_CSR2CSC_ALG1,
        );
        let mut bytes = 0usize;
        // SAFETY: the lengths were checked above; the contents are the caller's promise.
        unsafe {
            cusparse!(cusparseCsr2cscEx2_bufferSize(
                h,
                mi,
                ni,
                nz,
                p[0] as *const c_void,
                p[1] as *const c_int,
                p[2] as *const c_int,
                p[3] as *mut c_void,
                p[4] as *mut c_int,
                p[5] as *mut c_int,
                T::DATA_TYPE,
                act,
                base,
                alg,
                &mut bytes
            ))
        }?;
        let ws = self.workspace(bytes)?;
        let acc = [
            Access::read(offsets),
            Access::read(indices),
            Access::read(values),
            Access::write(&*csc_offsets),
            Access::write(&*csc_indices),
            Access::write(&*csc_values),
            Access::write(&ws),
        ];
        s.with_access(&acc, || {
            // SAFETY: as above; the work buffer holds the bytes cuSPARSE asked for.
            unsafe {
                cusparse!(cusparseCsr2cscEx2(
                    h,
                    mi,
                    ni,
                    nz,
                    p[0] as *const c_void,
                    p[1] as *const c_int,
                    p[2] as *const c_int,
                    p[3] as *mut c_void,
                    p[4] as *mut c_int,
                    p[5] as *mut c_int,
                    T::DATA_TYPE,
                    act,
                    base,
                    alg,
                    ws.device_ptr() as *mut c_void
                ))
            }
        })
    }
}
