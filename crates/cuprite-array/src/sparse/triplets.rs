//! Construction of canonical sparse matrices from unsorted triplets that already live on a
//! device ([`SparseArray::from_triplet_arrays`], [`SparseArray::from_coo_arrays`]), by array
//! work on that device: the bounds are checked there (the host reads back one number), the
//! triplets are sorted by row then column with a stable sort, the values at a repeated
//! position are summed in their input order ([`RunSums`]), and the row offsets come from a
//! search of the sorted rows. The CPU backend runs the same steps, so both give the same bits,
//! which are also those of the host constructor [`SparseArray::from_triplets`].

use super::run_sums::RunSums;
use super::{IndexType, SparseArray, SparseFormat, SparseIndices, SparseValue, index_for};
use crate::array::Array;
use crate::device::{Device, with_device};
use crate::error::{Error, Result};
use crate::graph::{Node, Op};
use crate::ops::scan::Side;
use std::sync::Arc;

/// Canonical triplets: `m` distinct positions sorted by row then column, with their summed
/// values.
struct Canonical<T: SparseValue> {
    rows: Array<i64>,
    cols: Array<i64>,
    vals: Array<T>,
}

/// `v` (`i64`, in `0..=i32::MAX` where `ty` is `I32`) in index type `ty`.
fn typed(v: &Array<i64>, ty: IndexType) -> SparseIndices {
    match ty {
        IndexType::I32 => SparseIndices::I32(v.cast()),
        IndexType::I64 => SparseIndices::I64(v.clone()),
    }
}

/// Realises the components of a new matrix, so that later products read memory.
fn realise<T: SparseValue>(a: SparseArray<T>) -> Result<SparseArray<T>> {
    for c in [&a.major, &a.minor] {
        match c {
            SparseIndices::I32(x) => x.eval()?,
            SparseIndices::I64(x) => x.eval()?,
        }
    }
    a.values.eval()?;
    Ok(a)
}

impl<T: SparseValue> SparseArray<T> {
    /// A CSR matrix of `shape` from `(rows[k], cols[k], values[k])` triplets in any order on
    /// one device, the values at a repeated position summed (SciPy's and CuPy's
    /// `coo_matrix((v, (i, j))).tocsr()`). The row and column indices are `Array<i32>` or
    /// `Array<i64>`. Everything runs on the arrays' device: the bounds are checked there (the
    /// host reads back one number), the triplets sorted by row then column, the duplicates'
    /// values added in their input order, and the row offsets found by a search of the sorted
    /// rows. The result has the narrowest index type that fits and the same values as
    /// [`from_triplets`](Self::from_triplets) of the same triplets, on every backend.
    ///
    /// # Errors
    /// An index out of bounds (negative, or not below the shape): the `Err` names the first
    /// such entry and its position. Arrays that are not 1-D, of different lengths, or on
    /// different devices.
    ///
    /// ```
    /// use cuprite_array::{Array, Device, with_device};
    /// use cuprite_array::sparse::{SparseArray, SparseFormat};
    /// with_device(Device::CPU, || -> cuprite_array::Result<()> {
    ///     let r = Array::from_slice(&[1i32, 0, 1], &[3])?;
    ///     let c = Array::from_slice(&[0i32, 2, 0], &[3])?;
    ///     let v = Array::from_slice(&[1.0f32, 2.0, 3.0], &[3])?;
    ///     let a = SparseArray::from_triplet_arrays([2, 3], r.clone(), c, &v)?;
    ///     assert_eq!(a.format(), SparseFormat::Csr);
    ///     assert_eq!(a.to_dense()?.to_vec()?, [0.0, 0.0, 2.0, 4.0, 0.0, 0.0]);
    ///     // Column 3 does not exist.
    ///     let bad = Array::from_slice(&[0i32, 3, 0], &[3])?;
    ///     let e = SparseArray::from_triplet_arrays([2, 3], r, bad, &v).unwrap_err();
    ///     assert!(e.to_string().contains("entry 1 at (0, 3) is out of bounds"));
    ///     Ok(())
    /// })?;
    /// # Ok::<(), cuprite_array::Error>(())
    /// ```
    pub fn from_triplet_arrays(
        shape: [usize; 2],
        rows: impl Into<SparseIndices>,
        cols: impl Into<SparseIndices>,
        values: &Array<T>,
    ) -> Result<Self> {
        let (rows, cols) = (rows.into(), cols.into());
        let t = canonical(shape, &rows, &cols, values)?;
        let dev = values.device();
        let m = t.vals.len();
        let index = index_for(shape[0], shape[1], m);
        // The row offsets: for each row r (and r = rows, the end), the number of sorted
        // positions in rows before it.
        let offsets = if m == 0 {
            with_device(dev, || Array::<i64>::zeros(&[shape[0] + 1]))
        } else {
            let lines = with_device(dev, || Array::<i64>::arange_len(shape[0] + 1))?;
            t.rows.searchsorted(&lines, Side::Left)?
        };
        realise(SparseArray {
            format: SparseFormat::Csr,
            shape,
            index,
            major: typed(&offsets, index),
            minor: typed(&t.cols, index),
            values: t.vals,
        })
    }

    /// A canonical COO matrix (sorted by row then column, no position twice) of `shape` from
    /// triplets in any order on one device, the values at a repeated position summed: the
    /// work of [`from_triplet_arrays`](Self::from_triplet_arrays) without the row offsets.
    ///
    /// # Errors
    /// As [`from_triplet_arrays`](Self::from_triplet_arrays).
    ///
    /// ```
    /// use cuprite_array::{Array, Device, with_device};
    /// use cuprite_array::sparse::{SparseArray, SparseFormat};
    /// with_device(Device::CPU, || -> cuprite_array::Result<()> {
    ///     let r = Array::from_slice(&[1i64, 0, 1], &[3])?;
    ///     let c = Array::from_slice(&[1i64, 0, 1], &[3])?;
    ///     let v = Array::from_slice(&[1.0f64, 2.0, 3.0], &[3])?;
    ///     let a = SparseArray::from_coo_arrays([2, 2], r, c, &v)?;
    ///     assert_eq!(a.format(), SparseFormat::Coo);
    ///     assert_eq!(a.row_indices()?.to_vec()?, [0, 1]);
    ///     assert_eq!(a.values().to_vec()?, [2.0, 4.0]);
    ///     Ok(())
    /// })?;
    /// # Ok::<(), cuprite_array::Error>(())
    /// ```
    pub fn from_coo_arrays(
        shape: [usize; 2],
        rows: impl Into<SparseIndices>,
        cols: impl Into<SparseIndices>,
        values: &Array<T>,
    ) -> Result<Self> {
        let (rows, cols) = (rows.into(), cols.into());
        let t = canonical(shape, &rows, &cols, values)?;
        let index = index_for(shape[0], shape[1], t.vals.len());
        realise(SparseArray {
            format: SparseFormat::Coo,
            shape,
            index,
            major: typed(&t.rows, index),
            minor: typed(&t.cols, index),
            values: t.vals,
        })
    }
}

/// Checks the triplets' lengths, devices and bounds, then sorts them and sums the duplicates.
fn canonical<T: SparseValue>(
    shape: [usize; 2],
    rows: &SparseIndices,
    cols: &SparseIndices,
    values: &Array<T>,
) -> Result<Canonical<T>> {
    super::build::check_shape(shape)?;
    let dev = values.device();
    for (what, d) in [
        ("row indices", rows.device()),
        ("column indices", cols.device()),
    ] {
        if d != dev {
            return Err(Error::DeviceMismatch(format!(
                "sparse triplets: the {what} are on {d}, the values on {dev}"
            )));
        }
    }
    let n = match values.shape() {
        &[n] => n,
        s => {
            return Err(Error::Shape(format!(
                "sparse triplets: the values must be 1-D, not of shape {s:?}"
            )));
        }
    };
    if rows.shape() != [n] || cols.shape() != [n] {
        return Err(Error::Shape(format!(
            "sparse triplets: row indices of shape {:?} and column indices of shape {:?} for \
             {n} values",
            rows.shape(),
            cols.shape()
        )));
    }
    let (r, c) = (rows.to_i64(), cols.to_i64());
    if n == 0 {
        let empty = || with_device(dev, || Array::<i64>::zeros(&[0]));
        return Ok(Canonical {
            rows: empty(),
            cols: empty(),
            vals: values.clone(),
        });
    }
    check_bounds(shape, &r, &c, n, dev)?;
    let [nr, nc] = shape;
    // Row-major positions fit `i64` for every shape whose element count does (the position
    // of the last element is below it); wider shapes sort by column, then stably by row.
    let packed = nr
        .checked_mul(nc)
        .is_some_and(|p| p <= i64::MAX as usize + 1);
    let last = n as i64 - 1;
    let (perm, starts, sorted_rows, sorted_cols) = if packed {
        let key = r.try_mul(nc as i64)?.try_add(&c)?;
        let (sk, perm) = key.sort_with_indices(0)?;
        let flags = sk.diff(1, 0)?.try_not_equal(0i64)?;
        let starts = run_starts(&flags, last, dev)?;
        let ks = sk.index_select(0, &starts)?;
        let (sr, sc) = (ks.try_div(nc as i64)?, ks.try_rem(nc as i64)?);
        (perm, starts, sr, sc)
    } else {
        let p1 = c.argsort(0)?;
        let (sr, p2) = r.index_select(0, &p1)?.sort_with_indices(0)?;
        // A permutation of a permutation of 0..n.
        let perm = p1.index_select(0, &p2)?.known_in(0, last);
        let sc = c.index_select(0, &perm)?;
        let flags = sr
            .diff(1, 0)?
            .try_not_equal(0i64)?
            .try_or(&sc.diff(1, 0)?.try_not_equal(0i64)?)?;
        let starts = run_starts(&flags, last, dev)?;
        let (sr, sc) = (sr.index_select(0, &starts)?, sc.index_select(0, &starts)?);
        (perm, starts, sr, sc)
    };
    let m = starts.len();
    let call = Arc::new(RunSums {
        dtype: T::DTYPE,
        n,
        m,
    });
    let vals = Array::from_node(Node::new(
        Op::Library(
            call,
            vec![values.node.clone(), perm.node.clone(), starts.node.clone()],
        ),
        T::DTYPE,
        vec![m],
        dev,
    ));
    Ok(Canonical {
        rows: sorted_rows,
        cols: sorted_cols,
        vals,
    })
}

/// The positions (in sorted order) where a run of equal positions starts: 0, and every `j`
/// with `changed[j - 1]` (`changed` holds one flag fewer than there are triplets; `last` is
/// the last position).
fn run_starts(changed: &Array<bool>, last: i64, dev: Device) -> Result<Array<i64>> {
    let head = with_device(dev, || Array::<bool>::full(&[1], true));
    let w = Array::concat(&[&head, changed], 0)?.argwhere()?;
    let m = w.shape()[0];
    Ok(w.reshape(&[m])?.known_in(0, last))
}

/// An `Err` naming the first triplet outside `shape` (the host reads back one number).
fn check_bounds(
    shape: [usize; 2],
    r: &Array<i64>,
    c: &Array<i64>,
    n: usize,
    dev: Device,
) -> Result<()> {
    // Both extents are at most `i64::MAX - 1` (`check_shape`).
    let (nr, nc) = (shape[0] as i64, shape[1] as i64);
    let outside = r
        .try_less(0i64)?
        .try_or(&r.try_greater_equal(nr)?)?
        .try_or(&c.try_less(0i64)?)?
        .try_or(&c.try_greater_equal(nc)?)?;
    let positions = with_device(dev, || Array::<i64>::arange_len(n))?;
    let first = Array::select(&outside, &positions, n as i64)?
        .min()?
        .item()?;
    if first >= n as i64 {
        return Ok(());
    }
    let at = Array::from_slice_on(dev, &[first], &[1])?;
    let rc = Array::concat(&[&r.index_select(0, &at)?, &c.index_select(0, &at)?], 0)?.to_vec()?;
    Err(Error::InvalidArgument(format!(
        "sparse triplets: entry {first} at ({}, {}) is out of bounds for shape [{}, {}]",
        rc[0], rc[1], shape[0], shape[1]
    )))
}
