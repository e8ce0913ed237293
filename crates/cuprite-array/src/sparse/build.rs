//! Constructors of [`SparseArray`] from host data and dense arrays, and the conversions
//! between formats and to dense.

use super::host::{Host, to_indices};
use super::{IndexValue, SparseArray, SparseFormat, SparseValue};
use crate::array::Array;
use crate::device::current_device;
use crate::error::{Error, Result};

/// Checks that a shape leaves room for its offsets in 64-bit indices.
pub(super) fn check_shape(shape: [usize; 2]) -> Result<()> {
    let lim = i64::MAX as usize - 1;
    if shape[0] > lim || shape[1] > lim {
        return Err(Error::Shape(format!(
            "sparse: shape {shape:?} exceeds the 64-bit index limit"
        )));
    }
    Ok(())
}

impl<T: SparseValue> SparseArray<T> {
    /// A CSR matrix of `shape` on the current device from row offsets (`rows + 1`), column
    /// indices and values (one per element). Every rule of the format is checked (see the
    /// [module docs](super)); an `Err` names the first position that breaks one.
    ///
    /// ```
    /// use cuprite_array::{Device, with_device};
    /// use cuprite_array::sparse::SparseArray;
    /// with_device(Device::CPU, || {
    ///     let a = SparseArray::from_csr([2, 2], &[0, 1, 2], &[1, 0], &[5.0f64, 6.0]).unwrap();
    ///     assert_eq!(a.to_dense().unwrap().to_vec().unwrap(), [0.0, 5.0, 6.0, 0.0]);
    ///     // Column 2 does not exist.
    ///     let e = SparseArray::from_csr([2, 2], &[0, 1, 2], &[1, 2], &[5.0f64, 6.0]).unwrap_err();
    ///     assert!(e.to_string().contains("indices[1] = 2"));
    /// });
    /// ```
    pub fn from_csr<I: IndexValue>(
        shape: [usize; 2],
        offsets: &[I],
        indices: &[I],
        values: &[T],
    ) -> Result<Self> {
        Self::compressed(SparseFormat::Csr, shape, offsets, indices, values)
    }

    /// A CSC matrix of `shape` from column offsets (`cols + 1`), row indices and values,
    /// checked like [`from_csr`](Self::from_csr).
    ///
    /// ```
    /// use cuprite_array::{Device, with_device};
    /// use cuprite_array::sparse::SparseArray;
    /// let a = with_device(Device::CPU, || SparseArray::from_csc([2, 2], &[0, 1, 2], &[1, 0], &[5.0f64, 6.0]))?;
    /// assert_eq!(a.to_dense()?.to_vec()?, [0.0, 6.0, 5.0, 0.0]);
    /// # Ok::<(), cuprite_array::Error>(())
    /// ```
    pub fn from_csc<I: IndexValue>(
        shape: [usize; 2],
        offsets: &[I],
        indices: &[I],
        values: &[T],
    ) -> Result<Self> {
        Self::compressed(SparseFormat::Csc, shape, offsets, indices, values)
    }

    fn compressed<I: IndexValue>(
        format: SparseFormat,
        shape: [usize; 2],
        offsets: &[I],
        indices: &[I],
        values: &[T],
    ) -> Result<Self> {
        check_shape(shape)?;
        let h = Host::compressed(
            format,
            shape[0],
            shape[1],
            to_indices("offsets", offsets)?,
            to_indices("indices", indices)?,
            values.to_vec(),
        )?;
        Self::from_host(h, current_device(), None)
    }

    /// A COO matrix of `shape` from row indices, column indices and values in any order:
    /// bounds are checked (an `Err` names the first entry out of bounds), then the entries
    /// are sorted by row and column and the values at a repeated position summed.
    ///
    /// ```
    /// use cuprite_array::{Device, with_device};
    /// use cuprite_array::sparse::SparseArray;
    /// let a = with_device(Device::CPU, || SparseArray::from_coo([2, 2], &[1, 0, 1], &[1, 0, 1], &[1.0f32, 2.0, 3.0]))?;
    /// assert_eq!(a.nnz(), 2);
    /// assert_eq!(a.to_dense()?.to_vec()?, [2.0, 0.0, 0.0, 4.0]);
    /// # Ok::<(), cuprite_array::Error>(())
    /// ```
    pub fn from_coo<I: IndexValue>(
        shape: [usize; 2],
        rows: &[I],
        cols: &[I],
        values: &[T],
    ) -> Result<Self> {
        Self::triplets(SparseFormat::Coo, shape, rows, cols, values)
    }

    /// A CSR matrix from `(rows[k], cols[k], values[k])` triplets in any order, the values at
    /// a repeated position summed (SciPy's `coo_matrix((v, (i, j))).tocsr()`).
    ///
    /// ```
    /// use cuprite_array::{Device, with_device};
    /// use cuprite_array::sparse::{SparseArray, SparseFormat};
    /// let a = with_device(Device::CPU, || SparseArray::from_triplets([1, 3], &[0, 0], &[2, 2], &[1.5f64, 1.0]))?;
    /// assert_eq!(a.format(), SparseFormat::Csr);
    /// assert_eq!(a.to_dense()?.to_vec()?, [0.0, 0.0, 2.5]);
    /// # Ok::<(), cuprite_array::Error>(())
    /// ```
    pub fn from_triplets<I: IndexValue>(
        shape: [usize; 2],
        rows: &[I],
        cols: &[I],
        values: &[T],
    ) -> Result<Self> {
        Self::triplets(SparseFormat::Csr, shape, rows, cols, values)
    }

    fn triplets<I: IndexValue>(
        format: SparseFormat,
        shape: [usize; 2],
        rows: &[I],
        cols: &[I],
        values: &[T],
    ) -> Result<Self> {
        check_shape(shape)?;
        let h = Host::from_triplets(
            format,
            shape[0],
            shape[1],
            to_indices("rows", rows)?,
            to_indices("cols", cols)?,
            values.to_vec(),
        )?;
        Self::from_host(h, current_device(), None)
    }

    /// The CSR form of a 2-D dense array, on its device: the elements whose magnitude is
    /// above `threshold` (use `0.0` to keep every nonzero).
    ///
    /// ```
    /// use cuprite_array::{Array, Device, with_device};
    /// use cuprite_array::sparse::SparseArray;
    /// let d = Array::from_slice_on(Device::CPU, &[0.0f64, 0.5, 2.0, 0.0], &[2, 2])?;
    /// let a = SparseArray::from_dense(&d, 1.0)?;
    /// assert_eq!(a.nnz(), 1);
    /// assert_eq!(a.to_dense()?.to_vec()?, [0.0, 0.0, 2.0, 0.0]);
    /// # Ok::<(), cuprite_array::Error>(())
    /// ```
    pub fn from_dense(a: &Array<T>, threshold: f64) -> Result<Self> {
        let &[rows, cols] = a.shape() else {
            return Err(Error::Shape(format!(
                "from_dense needs a 2-D array, not shape {:?}",
                a.shape()
            )));
        };
        let d = a.to_vec()?;
        let (mut r, mut c, mut v) = (Vec::new(), Vec::new(), Vec::new());
        for (p, &x) in d.iter().enumerate() {
            if x.magnitude() > threshold {
                r.push(p / cols);
                c.push(p % cols);
                v.push(x);
            }
        }
        let h = Host::from_triplets(SparseFormat::Csr, rows, cols, r, c, v)?;
        Self::from_host(h, a.device(), None)
    }

    /// The `n × n` identity in CSR. An `n` whose diagonal or offsets exceed the host's memory
    /// is an `Err` naming it.
    ///
    /// ```
    /// use cuprite_array::{Device, with_device};
    /// use cuprite_array::sparse::SparseArray;
    /// let i = with_device(Device::CPU, || SparseArray::<f32>::eye(2))?;
    /// assert_eq!(i.to_dense()?.to_vec()?, [1.0, 0.0, 0.0, 1.0]);
    /// # Ok::<(), cuprite_array::Error>(())
    /// ```
    pub fn eye(n: usize) -> Result<Self> {
        Self::eye_k([n, n], 0)
    }

    /// Ones on diagonal `k` of a matrix of `shape` (above the main diagonal for `k > 0`,
    /// below for `k < 0`), in CSR (SciPy's `eye(m, n, k)`).
    ///
    /// ```
    /// use cuprite_array::{Device, with_device};
    /// use cuprite_array::sparse::SparseArray;
    /// let a = with_device(Device::CPU, || SparseArray::<f64>::eye_k([2, 3], 1))?;
    /// assert_eq!(a.to_dense()?.to_vec()?, [0.0, 1.0, 0.0, 0.0, 0.0, 1.0]);
    /// # Ok::<(), cuprite_array::Error>(())
    /// ```
    pub fn eye_k(shape: [usize; 2], k: isize) -> Result<Self> {
        check_shape(shape)?;
        let n = diagonal_len(shape, k);
        let mut ones: Vec<T> = crate::util::host_vec(n, &format!("eye of shape {shape:?}"))?;
        ones.resize(n, T::one());
        Self::diags(&[&ones], &[k], shape)
    }

    /// A CSR matrix of `shape` with `diagonals[d]` on diagonal `offsets[d]`: element `i` of a
    /// diagonal at offset `k ≥ 0` lands at `(i, i + k)`, at offset `k < 0` at `(i - k, i)`.
    /// Each diagonal must have exactly the length of its diagonal in `shape`; an offset given
    /// twice is an `Err`.
    ///
    /// ```
    /// use cuprite_array::{Device, with_device};
    /// use cuprite_array::sparse::SparseArray;
    /// // The 1-D Laplacian: 2 on the diagonal, -1 beside it.
    /// let l = with_device(Device::CPU, || {
    ///     SparseArray::diags(&[&[-1.0f64, -1.0], &[2.0, 2.0, 2.0], &[-1.0, -1.0]], &[-1, 0, 1], [3, 3])
    /// })?;
    /// assert_eq!(l.to_dense()?.to_vec()?, [2.0, -1.0, 0.0, -1.0, 2.0, -1.0, 0.0, -1.0, 2.0]);
    /// # Ok::<(), cuprite_array::Error>(())
    /// ```
    pub fn diags(diagonals: &[&[T]], offsets: &[isize], shape: [usize; 2]) -> Result<Self> {
        check_shape(shape)?;
        if diagonals.len() != offsets.len() {
            return Err(Error::InvalidArgument(format!(
                "diags: {} diagonals for {} offsets",
                diagonals.len(),
                offsets.len()
            )));
        }
        let (mut r, mut c, mut v) = (Vec::new(), Vec::new(), Vec::new());
        for (d, (&diag, &k)) in diagonals.iter().zip(offsets).enumerate() {
            if offsets[..d].contains(&k) {
                return Err(Error::InvalidArgument(format!(
                    "diags: offset {k} given twice (at {} and {d})",
                    offsets[..d].iter().position(|&o| o == k).unwrap_or(0)
                )));
            }
            let n = diagonal_len(shape, k);
            if diag.len() != n {
                return Err(Error::Shape(format!(
                    "diags: diagonal {d} (offset {k}) has {} element(s); in shape {shape:?} it \
                     holds {n}",
                    diag.len()
                )));
            }
            for (i, &x) in diag.iter().enumerate() {
                let (row, col) = if k >= 0 {
                    (i, i + k as usize)
                } else {
                    (i + k.unsigned_abs(), i)
                };
                r.push(row);
                c.push(col);
                v.push(x);
            }
        }
        let h = Host::from_triplets(SparseFormat::Csr, shape[0], shape[1], r, c, v)?;
        Self::from_host(h, current_device(), None)
    }

    /// The dense form: a `rows × cols` array on the same device (the values at a repeated
    /// position, which the canonical formats never hold, would be summed).
    ///
    /// ```
    /// use cuprite_array::{Device, with_device};
    /// use cuprite_array::sparse::SparseArray;
    /// let a = with_device(Device::CPU, || SparseArray::<f32>::eye(2))?;
    /// assert_eq!(a.to_dense()?.shape(), [2, 2]);
    /// # Ok::<(), cuprite_array::Error>(())
    /// ```
    pub fn to_dense(&self) -> Result<Array<T>> {
        crate::shape::checked_numel(&self.shape)?;
        let h = self.host()?;
        Array::from_slice_on(self.device(), &h.dense(), &self.shape)
    }

    /// This matrix in `format` (a copy of the same elements; the canonical order of the
    /// target format).
    ///
    /// ```
    /// use cuprite_array::{Device, with_device};
    /// use cuprite_array::sparse::{SparseArray, SparseFormat};
    /// let a = with_device(Device::CPU, || SparseArray::from_triplets([2, 2], &[0, 1], &[1, 0], &[1.0f64, 2.0]))?;
    /// let c = a.to_format(SparseFormat::Csc)?;
    /// assert_eq!(c.values().to_vec()?, [2.0, 1.0]); // column 0 first
    /// assert_eq!(c.to_dense()?.to_vec()?, a.to_dense()?.to_vec()?);
    /// # Ok::<(), cuprite_array::Error>(())
    /// ```
    pub fn to_format(&self, format: SparseFormat) -> Result<Self> {
        if format == self.format {
            return Ok(self.clone());
        }
        let on_gpu = self.device().backend == crate::device::Backend::Cuda;
        if on_gpu
            && self.nnz() > 0
            && let Some(c) = super::cuda::convert(self, format)?
        {
            return Ok(c);
        }
        let h = self.host()?;
        h.check_format(format)?;
        self.like(h.to_format(format))
    }

    /// [`to_format`](Self::to_format) CSR.
    ///
    /// ```
    /// use cuprite_array::{Device, with_device};
    /// use cuprite_array::sparse::{SparseArray, SparseFormat};
    /// let a = with_device(Device::CPU, || SparseArray::from_coo([1, 1], &[0], &[0], &[1.0f32]))?;
    /// assert_eq!(a.to_csr()?.format(), SparseFormat::Csr);
    /// # Ok::<(), cuprite_array::Error>(())
    /// ```
    pub fn to_csr(&self) -> Result<Self> {
        self.to_format(SparseFormat::Csr)
    }

    /// [`to_format`](Self::to_format) CSC.
    ///
    /// ```
    /// use cuprite_array::{Device, with_device};
    /// use cuprite_array::sparse::{SparseArray, SparseFormat};
    /// let a = with_device(Device::CPU, || SparseArray::<f32>::eye(2))?;
    /// assert_eq!(a.to_csc()?.format(), SparseFormat::Csc);
    /// # Ok::<(), cuprite_array::Error>(())
    /// ```
    pub fn to_csc(&self) -> Result<Self> {
        self.to_format(SparseFormat::Csc)
    }

    /// [`to_format`](Self::to_format) COO.
    ///
    /// ```
    /// use cuprite_array::{Device, with_device};
    /// use cuprite_array::sparse::{SparseArray, SparseFormat};
    /// let a = with_device(Device::CPU, || SparseArray::<f32>::eye(2))?;
    /// assert_eq!(a.to_coo()?.format(), SparseFormat::Coo);
    /// # Ok::<(), cuprite_array::Error>(())
    /// ```
    pub fn to_coo(&self) -> Result<Self> {
        self.to_format(SparseFormat::Coo)
    }
}

/// The length of diagonal `k` of a matrix of `shape`.
fn diagonal_len(shape: [usize; 2], k: isize) -> usize {
    let [r, c] = shape;
    if k >= 0 {
        r.min(c.saturating_sub(k as usize))
    } else {
        c.min(r.saturating_sub(k.unsigned_abs()))
    }
}
