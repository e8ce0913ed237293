//! The operands of the products: a sparse matrix ([`SpMat`]) and a row-major dense matrix
//! ([`DnMat`]) over device buffers, and the cuSPARSE descriptors made from them for one call.

use super::{SparseElement, SparseIndex};
use crate::blas::{check_context, invalid, to_i64};
use crate::error::Result;
use crate::memory::{Access, DeviceRead};
use crate::stream::Stream;
use cuprite_sys::cusparse::{
    self as sys, cusparseDnMatDescr_t, cusparseDnVecDescr_t, cusparseIndexBase_t, cusparseOrder_t,
    cusparseSpMatDescr_t,
};
use std::ffi::c_void;

/// The storage format of a [`SpMat`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Format {
    /// Compressed sparse rows: `rows + 1` row offsets, then a column index and a value per
    /// nonzero, row after row.
    Csr,
    /// Compressed sparse columns: `cols + 1` column offsets, then a row index and a value per
    /// nonzero, column after column.
    Csc,
    /// Coordinates: a row index, a column index and a value per nonzero.
    Coo,
}

/// A sparse matrix over device buffers, for one product. For [`Format::Csr`] `offsets` holds
/// the row offsets and `indices` the column indices; for [`Format::Csc`] the column offsets
/// and the row indices; for [`Format::Coo`] the row indices and the column indices. The
/// number of nonzeros is the length of `values`.
pub struct SpMat<'a, T, I> {
    pub(crate) format: Format,
    pub(crate) rows: usize,
    pub(crate) cols: usize,
    pub(crate) offsets: &'a dyn DeviceRead<I>,
    pub(crate) indices: &'a dyn DeviceRead<I>,
    pub(crate) values: &'a dyn DeviceRead<T>,
}

impl<T, I> std::fmt::Debug for SpMat<'_, T, I> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SpMat")
            .field("format", &self.format)
            .field("rows", &self.rows)
            .field("cols", &self.cols)
            .field("nnz", &self.values.len())
            .finish()
    }
}

impl<'a, T: SparseElement, I: SparseIndex> SpMat<'a, T, I> {
    /// A `rows × cols` matrix in `format` over these buffers. Checks that `indices` holds as
    /// many elements as `values` (the number of nonzeros), that `offsets` holds `rows + 1`
    /// (CSR), `cols + 1` (CSC) or nnz (COO) elements, and that every size fits the index type.
    ///
    /// # Safety
    /// The contents must describe a matrix of this shape, since cuSPARSE reads them unchecked:
    /// offsets start at 0, never decrease and end at nnz; every row index is below `rows` and
    /// every column index below `cols`. (Sorted indices within a row or column are not needed
    /// by SpMV and SpMM; SpGEMM needs them.)
    ///
    /// ```
    /// # fn main() -> cuprite_driver::Result<()> {
    /// # let Ok(ctx) = cuprite_driver::Context::new(0) else { return Ok(()) };
    /// use cuprite_driver::sparse::{Format, SpMat};
    /// let s = ctx.default_stream();
    /// let offsets = s.clone_htod(&[0i32, 1])?;
    /// let indices = s.clone_htod(&[0i32])?;
    /// let values = s.clone_htod(&[1.0f32])?;
    /// // Two row offsets make one row; asking for two rows is an Err.
    /// // SAFETY: never used in a product.
    /// assert!(unsafe { SpMat::new(Format::Csr, 2, 1, &offsets, &indices, &values) }.is_err());
    /// # Ok(()) }
    /// ```
    pub unsafe fn new(
        format: Format,
        rows: usize,
        cols: usize,
        offsets: &'a dyn DeviceRead<I>,
        indices: &'a dyn DeviceRead<I>,
        values: &'a dyn DeviceRead<T>,
    ) -> Result<Self> {
        let nnz = values.len();
        let want = match format {
            Format::Csr => rows.checked_add(1),
            Format::Csc => cols.checked_add(1),
            Format::Coo => Some(nnz),
        }
        .ok_or_else(|| invalid(format!("sparse matrix: {rows} × {cols} overflows")))?;
        if offsets.len() != want {
            return Err(invalid(format!(
                "sparse {format:?} matrix {rows} × {cols}: the offsets/row indices hold {} \
                 element(s), {want} expected",
                offsets.len()
            )));
        }
        if indices.len() != nnz {
            return Err(invalid(format!(
                "sparse {format:?} matrix {rows} × {cols}: {} index(es) for {nnz} value(s)",
                indices.len()
            )));
        }
        for (what, v) in [("rows", rows), ("cols", cols), ("nnz", nnz)] {
            if v as u64 > I::MAX {
                return Err(invalid(format!(
                    "sparse matrix: {what} = {v} does not fit the index type {}",
                    std::any::type_name::<I>()
                )));
            }
        }
        Ok(SpMat {
            format,
            rows,
            cols,
            offsets,
            indices,
            values,
        })
    }

    /// The number of rows.
    pub fn rows(&self) -> usize {
        self.rows
    }

    /// The number of columns.
    pub fn cols(&self) -> usize {
        self.cols
    }

    /// The number of stored elements.
    pub fn nnz(&self) -> usize {
        self.values.len()
    }

    /// The format.
    pub fn format(&self) -> Format {
        self.format
    }

    pub(crate) fn check_context(&self, call: &str, what: &str, s: &Stream) -> Result<()> {
        check_context(call, what, s, self.offsets)?;
        check_context(call, what, s, self.indices)?;
        check_context(call, what, s, self.values)
    }

    /// The device address and length of the offsets, the indices and the values.
    pub(crate) fn pointers(&self) -> [(u64, usize); 3] {
        [
            (self.offsets.device_ptr(), self.offsets.len()),
            (self.indices.device_ptr(), self.indices.len()),
            (self.values.device_ptr(), self.values.len()),
        ]
    }

    pub(crate) fn reads(&self) -> [Access<'_>; 3] {
        [
            Access::of_tracker(self.offsets.tracker(), false),
            Access::of_tracker(self.indices.tracker(), false),
            Access::of_tracker(self.values.tracker(), false),
        ]
    }

    /// A cuSPARSE descriptor of this matrix.
    pub(crate) fn descriptor(&self) -> Result<SpDescr> {
        let (r, c, n) = (
            to_i64("cusparseCreateCsr", "rows", self.rows)?,
            to_i64("cusparseCreateCsr", "cols", self.cols)?,
            to_i64("cusparseCreateCsr", "nnz", self.nnz())?,
        );
        let (o, i, v) = (
            self.offsets.device_ptr() as *mut c_void,
            self.indices.device_ptr() as *mut c_void,
            self.values.device_ptr() as *mut c_void,
        );
        let (it, base, dt) = (
            I::INDEX_TYPE,
            cusparseIndexBase_t::CUSPARSE_INDEX_BASE_ZERO,
            T::DATA_TYPE,
        );
        let mut d: cusparseSpMatDescr_t = std::ptr::null_mut();
        // SAFETY: a valid out-pointer; the buffers hold as many elements as the sizes say
        // (checked in `new`), their contents are `new`'s caller's promise, and cuSPARSE only
        // reads an input descriptor's arrays.
        unsafe {
            match self.format {
                Format::Csr => cusparse!(cusparseCreateCsr(
                    &mut d, r, c, n, o, i, v, it, it, base, dt
                )),
                Format::Csc => cusparse!(cusparseCreateCsc(
                    &mut d, r, c, n, o, i, v, it, it, base, dt
                )),
                Format::Coo => cusparse!(cusparseCreateCoo(&mut d, r, c, n, o, i, v, it, base, dt)),
            }
        }?;
        Ok(SpDescr(d))
    }
}

/// Checks that a row-major `rows × cols` matrix with leading dimension `ld` fits `len`
/// elements.
pub(crate) fn check_dense(
    call: &str,
    what: &str,
    rows: usize,
    cols: usize,
    ld: usize,
    len: usize,
) -> Result<()> {
    if ld < cols.max(1) {
        return Err(invalid(format!(
            "{call}: {what} has leading dimension {ld} below its {cols} column(s)"
        )));
    }
    let need = match rows {
        0 => Some(0),
        r => (r - 1).checked_mul(ld).and_then(|x| x.checked_add(cols)),
    }
    .ok_or_else(|| {
        invalid(format!(
            "{call}: {what} {rows} × {cols} (ld {ld}) overflows"
        ))
    })?;
    if need > len {
        return Err(invalid(format!(
            "{call}: {what} {rows} × {cols} (ld {ld}) needs {need} element(s), its buffer holds \
             {len}"
        )));
    }
    Ok(())
}

/// A sparse matrix descriptor, destroyed on drop.
pub(crate) struct SpDescr(pub(crate) cusparseSpMatDescr_t);

impl Drop for SpDescr {
    fn drop(&mut self) {
        // SAFETY: made by one `cusparseCreate*` call and destroyed only here.
        let _ = unsafe { sys::cusparseDestroySpMat(self.0) };
    }
}

/// A dense vector descriptor, destroyed on drop.
pub(crate) struct DnVec(pub(crate) cusparseDnVecDescr_t);

impl DnVec {
    /// A descriptor of `len` elements of `T` at `ptr`.
    pub(crate) fn new<T: SparseElement>(ptr: u64, len: usize) -> Result<DnVec> {
        let n = to_i64("cusparseCreateDnVec", "size", len)?;
        let mut d = std::ptr::null_mut();
        // SAFETY: a valid out-pointer; the caller passes a buffer of at least `len` elements.
        unsafe {
            cusparse!(cusparseCreateDnVec(
                &mut d,
                n,
                ptr as *mut c_void,
                T::DATA_TYPE
            ))
        }?;
        Ok(DnVec(d))
    }
}

impl Drop for DnVec {
    fn drop(&mut self) {
        // SAFETY: made by one `cusparseCreateDnVec` call and destroyed only here.
        let _ = unsafe { sys::cusparseDestroyDnVec(self.0) };
    }
}

/// A dense matrix descriptor (row-major), destroyed on drop.
pub(crate) struct DnDescr(pub(crate) cusparseDnMatDescr_t);

impl DnDescr {
    /// A row-major `rows × cols` descriptor with leading dimension `ld` at `ptr`.
    pub(crate) fn new<T: SparseElement>(
        ptr: u64,
        rows: usize,
        cols: usize,
        ld: usize,
    ) -> Result<DnDescr> {
        const CALL: &str = "cusparseCreateDnMat";
        let (r, c, l) = (
            to_i64(CALL, "rows", rows)?,
            to_i64(CALL, "cols", cols)?,
            to_i64(CALL, "ld", ld)?,
        );
        let mut d = std::ptr::null_mut();
        // SAFETY: a valid out-pointer; the caller checked the buffer against the extent.
        unsafe {
            cusparse!(cusparseCreateDnMat(
                &mut d,
                r,
                c,
                l,
                ptr as *mut c_void,
                T::DATA_TYPE,
                cusparseOrder_t::CUSPARSE_ORDER_ROW
            ))
        }?;
        Ok(DnDescr(d))
    }
}

impl Drop for DnDescr {
    fn drop(&mut self) {
        // SAFETY: made by one `cusparseCreateDnMat` call and destroyed only here.
        let _ = unsafe { sys::cusparseDestroyDnMat(self.0) };
    }
}
