//! Sparse matrices: [`SparseArray`] in CSR, CSC or COO form with `f32`, `f64`,
//! [`c32`](crate::c32) or [`c64`](crate::c64) values and `i32` or `i64` indices, living on a device like an
//! [`Array`].
//!
//! Construction from host data checks every invariant of the format and names the first
//! position that breaks one: [`from_csr`](SparseArray::from_csr) and
//! [`from_csc`](SparseArray::from_csc) take offsets that start at 0, never decrease and end at
//! the number of values, and indices in bounds and strictly increasing within each row
//! (column). Unsorted data or data with repeated positions goes through the canonicalising
//! constructors [`from_triplets`](SparseArray::from_triplets) and
//! [`from_coo`](SparseArray::from_coo), which sort and sum duplicates (as SciPy's `tocsr`
//! does), or, for triplets already in device arrays, through
//! [`from_triplet_arrays`](SparseArray::from_triplet_arrays) and
//! [`from_coo_arrays`](SparseArray::from_coo_arrays), which do the same work on that device.
//! Indices are stored as `i32` when every size fits, else `i64`
//! ([`with_index_type`](SparseArray::with_index_type) picks either).
//!
//! Products with a dense vector or matrix ([`spmv`](SparseArray::spmv),
//! [`spmm`](SparseArray::spmm)) of real values where `op(A)` is stored row by row (CSR, or the
//! transpose of CSC) run as cuprite's own kernels (rows of 2 to 7 entries on average two lanes a
//! row, other short rows staged a block at a time through shared memory, longer ones a
//! sub-warp a row), with a CPU twin that gives
//! the same bits; the other real products with a dense operand, and those with another sparse
//! matrix ([`matmul`](SparseArray::matmul)), run through cuSPARSE on the CUDA backend and on the
//! host on the CPU backend (complex products with a dense operand run on the host on both
//! backends: `cuprite_driver::sparse` refuses complex SpMV and SpMM); their dense results are
//! ordinary lazy arrays that later element-wise work fuses onto. Format conversions, sums, transposes and scalings run on the host on both backends
//! (a round trip for a matrix on a GPU).
//!
//! Solvers: triangular solves with one right-hand side
//! ([`spsolve_triangular`](SparseArray::spsolve_triangular), cuSPARSE's SpSV on CUDA) or many
//! ([`spsm`](SparseArray::spsm), SpSM); the Krylov solvers [`cg`], [`bicgstab`], [`gmres`]
//! and [`minres`] with a [`Preconditioner`] ([`Jacobi`], and the incomplete factorisations
//! [`Ilu0`] and [`Ic0`], cuSPARSE's `csrilu02`/`csric02` on CUDA); and [`eigsh`] (Lanczos)
//! for a few extreme eigenvalues of a symmetric matrix. Without a preconditioner, [`cg`] over
//! `f32`/`f64` takes each iteration in two calls: `A·p` with `p·A·p`, then the residual, its
//! norm, the iterate and the next direction together (one cooperative launch on CUDA where the
//! device holds its grid at once; see `tuning::set_cg_fused`), with a CPU twin that gives the
//! same bits.
//!
//! PyTorch and SciPy exchange sparse matrices as their three component arrays: pass
//! [`offsets`](SparseArray::offsets), [`indices`](SparseArray::indices) and
//! [`values`](SparseArray::values) (DLPack has no sparse layout).
//!
//! ```
//! use cuprite_array::{Array, Device, with_device};
//! use cuprite_array::sparse::SparseArray;
//! with_device(Device::CPU, || -> cuprite_array::Result<()> {
//!     // [[1, 0, 2], [0, 0, 3]]
//!     let a = SparseArray::from_csr([2, 3], &[0, 2, 3], &[0, 2, 2], &[1.0f64, 2.0, 3.0])?;
//!     let x = Array::from_slice(&[1.0, 1.0, 1.0], &[3])?;
//!     assert_eq!(a.spmv(&x)?.to_vec()?, [3.0, 3.0]);
//!     Ok(())
//! })?;
//! # Ok::<(), cuprite_array::Error>(())
//! ```

mod build;
pub(crate) mod csr_product;
mod cuda;
mod device_build;
mod format;
mod host;
mod incomplete;
mod krylov;
mod lanczos;
mod ops;
mod precond;
pub(crate) mod residual_step;
mod run_sums;
mod structure;
mod triangular;
mod triplets;
mod value;

pub use cuprite_driver::blas::Transpose;
pub use format::{IndexType, SparseFormat};
pub use incomplete::{Ic0, Ilu0};
pub use krylov::{bicgstab, bicgstab_with, cg, cg_with, gmres, gmres_with, minres, minres_with};
pub use lanczos::{EigshOpts, EigshResult, Reorthogonalization, Which, eigsh, eigsh_with};
pub use precond::{Jacobi, Preconditioner, SolveCallback, SolveOpts, SolveResult};
pub use triangular::TriangularOpts;
pub use value::{IndexValue, SparseValue};

use crate::array::Array;
use crate::device::Device;
use crate::error::{Error, Result};
use host::Host;

/// Offsets or indices of a [`SparseArray`], in its index type.
#[derive(Clone, Debug)]
pub enum SparseIndices {
    /// 32-bit.
    I32(Array<i32>),
    /// 64-bit.
    I64(Array<i64>),
}

impl SparseIndices {
    /// The indices as `i64` (a lazy cast for `I32`).
    ///
    /// ```
    /// use cuprite_array::{Device, with_device};
    /// use cuprite_array::sparse::SparseArray;
    /// let a = with_device(Device::CPU, || SparseArray::<f32>::eye(3))?;
    /// assert_eq!(a.indices().to_i64().to_vec()?, [0, 1, 2]);
    /// # Ok::<(), cuprite_array::Error>(())
    /// ```
    #[must_use]
    pub fn to_i64(&self) -> Array<i64> {
        match self {
            SparseIndices::I32(a) => a.cast(),
            SparseIndices::I64(a) => a.clone(),
        }
    }

    fn to_host(&self) -> Result<Vec<usize>> {
        let bad = |v: i64| Error::InvalidArgument(format!("sparse: stored index {v} is negative"));
        match self {
            SparseIndices::I32(a) => a
                .to_vec()?
                .into_iter()
                .map(|v| usize::try_from(v).map_err(|_| bad(v as i64)))
                .collect(),
            SparseIndices::I64(a) => a
                .to_vec()?
                .into_iter()
                .map(|v| usize::try_from(v).map_err(|_| bad(v)))
                .collect(),
        }
    }

    fn upload(v: &[usize], ty: IndexType, device: Device) -> Result<Self> {
        let n = [v.len()];
        Ok(match ty {
            IndexType::I32 => {
                let w: Vec<i32> = v.iter().map(|&x| x as i32).collect();
                SparseIndices::I32(Array::from_slice_on(device, &w, &n)?)
            }
            IndexType::I64 => {
                let w: Vec<i64> = v.iter().map(|&x| x as i64).collect();
                SparseIndices::I64(Array::from_slice_on(device, &w, &n)?)
            }
        })
    }
}

/// A sparse matrix on a device: CSR, CSC or COO (see the [module docs](self)). Cloning is
/// cheap (the component arrays are shared).
#[derive(Clone, Debug)]
pub struct SparseArray<T: SparseValue> {
    format: SparseFormat,
    shape: [usize; 2],
    index: IndexType,
    /// CSR: row offsets; CSC: column offsets; COO: row indices.
    major: SparseIndices,
    /// CSR: column indices; CSC: row indices; COO: column indices.
    minor: SparseIndices,
    values: Array<T>,
}

/// The narrowest index type that holds `rows`, `cols` and `nnz`.
pub(crate) fn index_for(rows: usize, cols: usize, nnz: usize) -> IndexType {
    if rows.max(cols).max(nnz) <= i32::MAX as usize {
        IndexType::I32
    } else {
        IndexType::I64
    }
}

impl<T: SparseValue> SparseArray<T> {
    /// Uploads `h` to `device` with indices of `index` (the narrowest that fits when `None`).
    fn from_host(h: Host<T>, device: Device, index: Option<IndexType>) -> Result<Self> {
        let fit = index_for(h.rows, h.cols, h.vals.len());
        let index = match index {
            Some(IndexType::I32) if fit == IndexType::I64 => {
                return Err(Error::InvalidArgument(format!(
                    "sparse: a {} × {} matrix with {} elements does not fit 32-bit indices",
                    h.rows,
                    h.cols,
                    h.vals.len()
                )));
            }
            Some(i) => i,
            None => fit,
        };
        Ok(SparseArray {
            format: h.format,
            shape: [h.rows, h.cols],
            index,
            major: SparseIndices::upload(&h.major, index, device)?,
            minor: SparseIndices::upload(&h.minor, index, device)?,
            values: Array::from_slice_on(device, &h.vals, &[h.vals.len()])?,
        })
    }

    /// The matrix in host memory (a download on a GPU).
    fn host(&self) -> Result<Host<T>> {
        Ok(Host {
            format: self.format,
            rows: self.shape[0],
            cols: self.shape[1],
            major: self.major.to_host()?,
            minor: self.minor.to_host()?,
            vals: self.values.to_vec()?,
        })
    }

    /// `h` on this matrix's device with its index type where it fits.
    fn like(&self, h: Host<T>) -> Result<Self> {
        let fit = index_for(h.rows, h.cols, h.vals.len());
        let index = if fit == IndexType::I64 {
            fit
        } else {
            self.index
        };
        Self::from_host(h, self.device(), Some(index))
    }

    /// `[rows, cols]`.
    pub fn shape(&self) -> [usize; 2] {
        self.shape
    }

    /// The number of stored elements (explicit zeros included).
    pub fn nnz(&self) -> usize {
        self.values.len()
    }

    /// The storage format.
    pub fn format(&self) -> SparseFormat {
        self.format
    }

    /// The index type.
    pub fn index_type(&self) -> IndexType {
        self.index
    }

    /// The device the matrix lives on.
    pub fn device(&self) -> Device {
        self.values.device()
    }

    /// The stored values, in storage order.
    ///
    /// ```
    /// use cuprite_array::{Device, with_device};
    /// use cuprite_array::sparse::SparseArray;
    /// let a = with_device(Device::CPU, || {
    ///     SparseArray::from_triplets([2, 2], &[1, 0, 1], &[0, 1, 0], &[1.0f32, 2.0, 3.0])
    /// })?;
    /// assert_eq!(a.values().to_vec()?, [2.0, 4.0]); // (0, 1) and (1, 0), duplicates summed
    /// # Ok::<(), cuprite_array::Error>(())
    /// ```
    #[must_use]
    pub fn values(&self) -> Array<T> {
        self.values.clone()
    }

    /// The row offsets (CSR, `rows + 1`) or column offsets (CSC, `cols + 1`); `None` for COO.
    ///
    /// ```
    /// use cuprite_array::{Device, with_device};
    /// use cuprite_array::sparse::SparseArray;
    /// let a = with_device(Device::CPU, || SparseArray::<f64>::eye(2))?;
    /// assert_eq!(a.offsets().map(|o| o.to_i64().to_vec()).transpose()?, Some(vec![0, 1, 2]));
    /// # Ok::<(), cuprite_array::Error>(())
    /// ```
    pub fn offsets(&self) -> Option<SparseIndices> {
        (self.format != SparseFormat::Coo).then(|| self.major.clone())
    }

    /// The column indices (CSR, COO) or row indices (CSC) of the stored values.
    ///
    /// ```
    /// use cuprite_array::{Device, with_device};
    /// use cuprite_array::sparse::SparseArray;
    /// let a = with_device(Device::CPU, || SparseArray::<f64>::eye(2))?;
    /// assert_eq!(a.indices().to_i64().to_vec()?, [0, 1]);
    /// # Ok::<(), cuprite_array::Error>(())
    /// ```
    pub fn indices(&self) -> SparseIndices {
        self.minor.clone()
    }

    /// The row index of every stored value, in storage order (expanded from the offsets for
    /// CSR; ArrayFire's `sparseGetRowIdx` after a conversion to COO).
    ///
    /// ```
    /// use cuprite_array::{Device, with_device};
    /// use cuprite_array::sparse::SparseArray;
    /// let a = with_device(Device::CPU, || SparseArray::<f64>::eye(2))?;
    /// assert_eq!(a.row_indices()?.to_vec()?, [0, 1]);
    /// # Ok::<(), cuprite_array::Error>(())
    /// ```
    pub fn row_indices(&self) -> Result<Array<i64>> {
        self.coordinate(true)
    }

    /// The column index of every stored value, in storage order.
    ///
    /// ```
    /// use cuprite_array::{Device, with_device};
    /// use cuprite_array::sparse::{SparseArray, SparseFormat};
    /// let a = with_device(Device::CPU, || SparseArray::<f64>::eye(2))?.to_format(SparseFormat::Csc)?;
    /// assert_eq!(a.col_indices()?.to_vec()?, [0, 1]);
    /// # Ok::<(), cuprite_array::Error>(())
    /// ```
    pub fn col_indices(&self) -> Result<Array<i64>> {
        self.coordinate(false)
    }

    fn coordinate(&self, row: bool) -> Result<Array<i64>> {
        let compressed_is_row = self.format == SparseFormat::Csr;
        match self.format {
            SparseFormat::Coo if row => Ok(self.major.to_i64()),
            SparseFormat::Coo => Ok(self.minor.to_i64()),
            _ if row != compressed_is_row => Ok(self.minor.to_i64()),
            _ => {
                let off = self.major.to_host()?;
                let mut out = Vec::with_capacity(self.nnz());
                for k in 0..off.len().saturating_sub(1) {
                    out.extend(std::iter::repeat_n(k as i64, off[k + 1] - off[k]));
                }
                Array::from_slice_on(self.device(), &out, &[out.len()])
            }
        }
    }

    /// This matrix with indices of `index`; an `Err` when the sizes do not fit 32 bits.
    ///
    /// ```
    /// use cuprite_array::{Device, with_device};
    /// use cuprite_array::sparse::{IndexType, SparseArray};
    /// let a = with_device(Device::CPU, || SparseArray::<f64>::eye(3))?;
    /// assert_eq!(a.index_type(), IndexType::I32);
    /// assert_eq!(a.with_index_type(IndexType::I64)?.index_type(), IndexType::I64);
    /// # Ok::<(), cuprite_array::Error>(())
    /// ```
    pub fn with_index_type(&self, index: IndexType) -> Result<Self> {
        if index == self.index {
            return Ok(self.clone());
        }
        let [rows, cols] = self.shape;
        if index == IndexType::I32 && index_for(rows, cols, self.nnz()) == IndexType::I64 {
            return Err(Error::InvalidArgument(format!(
                "sparse: a {rows} × {cols} matrix with {} elements does not fit 32-bit indices",
                self.nnz()
            )));
        }
        // Every stored index and offset is at most max(rows, cols, nnz): the cast is exact.
        let cast = |i: &SparseIndices| match (i, index) {
            (SparseIndices::I32(a), IndexType::I64) => SparseIndices::I64(a.cast()),
            (SparseIndices::I64(a), IndexType::I32) => SparseIndices::I32(a.cast()),
            (other, _) => other.clone(),
        };
        Ok(SparseArray {
            index,
            major: cast(&self.major),
            minor: cast(&self.minor),
            ..self.clone()
        })
    }

    /// This matrix on `device`.
    ///
    /// ```
    /// use cuprite_array::{Device, with_device};
    /// use cuprite_array::sparse::SparseArray;
    /// let a = with_device(Device::CPU, || SparseArray::<f32>::eye(2))?;
    /// assert_eq!(a.to_device(Device::CPU)?.device(), Device::CPU);
    /// # Ok::<(), cuprite_array::Error>(())
    /// ```
    pub fn to_device(&self, device: Device) -> Result<Self> {
        if device == self.device() {
            return Ok(self.clone());
        }
        let move_idx = |i: &SparseIndices| -> Result<SparseIndices> {
            Ok(match i {
                SparseIndices::I32(a) => SparseIndices::I32(a.to_device(device)?),
                SparseIndices::I64(a) => SparseIndices::I64(a.to_device(device)?),
            })
        };
        Ok(SparseArray {
            format: self.format,
            shape: self.shape,
            index: self.index,
            major: move_idx(&self.major)?,
            minor: move_idx(&self.minor)?,
            values: self.values.to_device(device)?,
        })
    }
}
