//! Construction of compressed sparse matrices from component arrays that already live on a
//! device ([`SparseArray::from_csr_arrays`], [`SparseArray::from_csc_arrays`]): the format's
//! rules are checked by array work on that device, and the host reads back only a handful of
//! counts (and, for malformed input, the values around the first bad position).

use super::{IndexType, SparseArray, SparseFormat, SparseIndices, SparseValue, index_for};
use crate::array::Array;
use crate::device::Device;
use crate::error::{Error, Result};
use crate::ops::scan::Side;

impl From<Array<i32>> for SparseIndices {
    fn from(a: Array<i32>) -> Self {
        SparseIndices::I32(a)
    }
}

impl From<Array<i64>> for SparseIndices {
    fn from(a: Array<i64>) -> Self {
        SparseIndices::I64(a)
    }
}

impl SparseIndices {
    pub(super) fn device(&self) -> Device {
        match self {
            SparseIndices::I32(a) => a.device(),
            SparseIndices::I64(a) => a.device(),
        }
    }

    pub(super) fn shape(&self) -> &[usize] {
        match self {
            SparseIndices::I32(a) => a.shape(),
            SparseIndices::I64(a) => a.shape(),
        }
    }

    /// Element `k` (read back to the host; only on error paths).
    fn at(&self, k: usize) -> Result<i64> {
        let i = Array::from_slice_on(self.device(), &[k as i64], &[1])?;
        Ok(self.to_i64().index_select(0, &i)?.to_vec()?[0])
    }

    fn with_type(&self, ty: IndexType) -> SparseIndices {
        match (self, ty) {
            (SparseIndices::I32(a), IndexType::I64) => SparseIndices::I64(a.cast()),
            (SparseIndices::I64(a), IndexType::I32) => SparseIndices::I32(a.cast()),
            (other, _) => other.clone(),
        }
    }
}

/// The number of true elements of `mask`, as a 1-element `i64` array.
fn count(mask: &Array<bool>) -> Result<Array<i64>> {
    mask.cast::<i64>().sum()?.reshape(&[1])
}

/// The position of the first true element of a mask that holds one.
fn first(mask: &Array<bool>) -> Result<usize> {
    Ok(mask.cast::<i32>().argmax()?.item()? as usize)
}

impl<T: SparseValue> SparseArray<T> {
    /// A CSR matrix of `shape` from component arrays on one device: row offsets
    /// (`rows + 1`), column indices and values (one per element), as SciPy's
    /// `csr_matrix((data, indices, indptr), shape)`. The offsets and indices are `Array<i32>`
    /// or `Array<i64>`. The rules of [`from_csr`](Self::from_csr) are checked by array work
    /// on the arrays' device (on a GPU the host reads back five counts); an `Err` names the
    /// first position that breaks one. The matrix keeps the arrays (no copy) unless its
    /// index type, the narrowest that fits, differs from theirs.
    ///
    /// ```
    /// use cuprite_array::{Array, Device, with_device};
    /// use cuprite_array::sparse::SparseArray;
    /// with_device(Device::CPU, || -> cuprite_array::Result<()> {
    ///     let off = Array::from_slice(&[0i64, 1, 3], &[3])?;
    ///     let idx = Array::from_slice(&[1i64, 0, 1], &[3])?;
    ///     let val = Array::from_slice(&[5.0f64, 6.0, 7.0], &[3])?;
    ///     let a = SparseArray::from_csr_arrays([2, 2], off.clone(), idx, &val)?;
    ///     assert_eq!(a.to_dense()?.to_vec()?, [0.0, 5.0, 6.0, 7.0]);
    ///     // Row 1 lists column 1 before column 0.
    ///     let bad = Array::from_slice(&[1i64, 1, 0], &[3])?;
    ///     let e = SparseArray::from_csr_arrays([2, 2], off, bad, &val).unwrap_err();
    ///     assert!(e.to_string().contains("indices[2] = 0 (row 1) follows 1"));
    ///     Ok(())
    /// })?;
    /// # Ok::<(), cuprite_array::Error>(())
    /// ```
    pub fn from_csr_arrays(
        shape: [usize; 2],
        offsets: impl Into<SparseIndices>,
        indices: impl Into<SparseIndices>,
        values: &Array<T>,
    ) -> Result<Self> {
        Self::from_arrays(
            SparseFormat::Csr,
            shape,
            offsets.into(),
            indices.into(),
            values,
        )
    }

    /// A CSC matrix of `shape` from column offsets (`cols + 1`), row indices and values on
    /// one device, checked there like [`from_csr_arrays`](Self::from_csr_arrays).
    ///
    /// ```
    /// use cuprite_array::{Array, Device, with_device};
    /// use cuprite_array::sparse::SparseArray;
    /// with_device(Device::CPU, || -> cuprite_array::Result<()> {
    ///     let off = Array::from_slice(&[0i32, 1, 2], &[3])?;
    ///     let idx = Array::from_slice(&[1i32, 0], &[2])?;
    ///     let val = Array::from_slice(&[5.0f32, 6.0], &[2])?;
    ///     let a = SparseArray::from_csc_arrays([2, 2], off, idx, &val)?;
    ///     assert_eq!(a.to_dense()?.to_vec()?, [0.0, 6.0, 5.0, 0.0]);
    ///     Ok(())
    /// })?;
    /// # Ok::<(), cuprite_array::Error>(())
    /// ```
    pub fn from_csc_arrays(
        shape: [usize; 2],
        offsets: impl Into<SparseIndices>,
        indices: impl Into<SparseIndices>,
        values: &Array<T>,
    ) -> Result<Self> {
        Self::from_arrays(
            SparseFormat::Csc,
            shape,
            offsets.into(),
            indices.into(),
            values,
        )
    }

    fn from_arrays(
        format: SparseFormat,
        shape: [usize; 2],
        offsets: SparseIndices,
        indices: SparseIndices,
        values: &Array<T>,
    ) -> Result<Self> {
        super::build::check_shape(shape)?;
        let device = values.device();
        for (what, d) in [("offsets", offsets.device()), ("indices", indices.device())] {
            if d != device {
                return Err(Error::DeviceMismatch(format!(
                    "{}: the {what} are on {d}, the values on {device}",
                    format.name()
                )));
            }
        }
        let nnz = match values.shape() {
            &[n] => n,
            s => {
                return Err(Error::Shape(format!(
                    "{}: the values must be 1-D, not of shape {s:?}",
                    format.name()
                )));
            }
        };
        check_on_device(format, shape, &offsets, &indices, nnz)?;
        let index = index_for(shape[0], shape[1], nnz);
        let (major, minor) = (offsets.with_type(index), indices.with_type(index));
        // Realised once here, so that every later product reads memory instead of redoing
        // the producers (a cast, the caller's expressions).
        for c in [&major, &minor] {
            match c {
                SparseIndices::I32(a) => a.eval()?,
                SparseIndices::I64(a) => a.eval()?,
            }
        }
        values.eval()?;
        Ok(SparseArray {
            format,
            shape,
            index,
            major,
            minor,
            values: values.clone(),
        })
    }
}

/// Checks the rules of compressed storage (see the host twin, `Host::compressed`) by array
/// work on the arrays' device; an `Err` names the first position that breaks one, with the
/// same wording as the host checks.
fn check_on_device(
    format: SparseFormat,
    shape: [usize; 2],
    offsets: &SparseIndices,
    indices: &SparseIndices,
    nnz: usize,
) -> Result<()> {
    let [rows, cols] = shape;
    let (n_major, n_minor, line, idx) = match format {
        SparseFormat::Csc => (cols, rows, "column", "row"),
        _ => (rows, cols, "row", "column"),
    };
    let name = format.name();
    let bad = |m: String| Err(Error::InvalidArgument(m));
    if indices.shape() != [nnz] {
        return bad(format!(
            "{name}: {idx} indices of shape {:?} for {nnz} values",
            indices.shape()
        ));
    }
    if offsets.shape() != [n_major + 1] {
        return bad(format!(
            "{name}: offsets of shape {:?} for {n_major} {line}s ([{}] expected)",
            offsets.shape(),
            n_major + 1
        ));
    }
    let dev = offsets.device();
    let off = offsets.to_i64();
    let ind = indices.to_i64();
    let ends = Array::from_slice_on(dev, &[0i64, n_major as i64], &[2])?;
    let ends = off.index_select(0, &ends)?;
    let decreasing = off.diff(1, 0)?.try_less(0i64)?;
    let out_of_bounds = ind
        .try_less(0i64)?
        .try_or(&ind.try_greater_equal(n_minor as i64)?)?;
    // The line of element p is the number of offsets after the first that are ≤ p; where the
    // offsets are valid, consecutive elements of one line must rise.
    let positions = crate::device::with_device(dev, || Array::arange(0i64, nnz as i64, 1))?;
    let line_of = off.searchsorted(&positions, Side::Right)?;
    let same_line = line_of.diff(1, 0)?.try_equal(0i64)?;
    let unsorted = same_line.try_and(&ind.diff(1, 0)?.try_less_equal(0i64)?)?;
    let parts = [
        ends,
        count(&decreasing)?,
        count(&out_of_bounds)?,
        count(&unsorted)?,
    ];
    let got = Array::concat(&parts.iter().collect::<Vec<_>>(), 0)?.to_vec()?;
    let (first_off, last_off, n_dec, n_oob, n_unsorted) = (got[0], got[1], got[2], got[3], got[4]);
    if first_off != 0 {
        return bad(format!("{name}: offsets[0] = {first_off}, must be 0"));
    }
    if n_dec > 0 {
        let k = first(&decreasing)?;
        return bad(format!(
            "{name}: offsets[{}] = {} is below offsets[{k}] = {}",
            k + 1,
            offsets.at(k + 1)?,
            offsets.at(k)?
        ));
    }
    if last_off != nnz as i64 {
        return bad(format!(
            "{name}: offsets[{n_major}] = {last_off} but there are {nnz} values"
        ));
    }
    if n_oob > 0 {
        let p = first(&out_of_bounds)?;
        let k = line_of.to_vec()?[p] - 1;
        return bad(format!(
            "{name}: indices[{p}] = {} ({line} {k}) is out of bounds for {n_minor} {idx}s",
            indices.at(p)?
        ));
    }
    if n_unsorted > 0 {
        let p = first(&unsorted)? + 1;
        let k = line_of.to_vec()?[p] - 1;
        return bad(format!(
            "{name}: indices[{p}] = {} ({line} {k}) follows {}: indices must be strictly \
             increasing within a {line} (use from_triplets to sort and sum duplicates)",
            indices.at(p)?,
            indices.at(p - 1)?
        ));
    }
    Ok(())
}
