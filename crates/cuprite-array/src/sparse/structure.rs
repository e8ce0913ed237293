//! Structural operations of [`SparseArray`]: diagonals, triangles, row slices, Kronecker
//! products, random matrices (on the host on both backends, a round trip on a GPU, as the
//! format conversions), and the operations that stay array work on the matrix's device: sums
//! along axes (products with a vector of ones), sparse + dense, and maps of the stored values.

use super::host::Host;
use super::{SparseArray, SparseFormat, SparseValue, Transpose};
use crate::array::Array;
use crate::device::{current_device, with_device};
use crate::error::{Error, Result};
use crate::ops::scan::Side;

/// The length of diagonal `k` of a `rows × cols` matrix.
fn diagonal_len(rows: usize, cols: usize, k: isize) -> usize {
    if k >= 0 {
        rows.min(cols.saturating_sub(k.unsigned_abs()))
    } else {
        cols.min(rows.saturating_sub(k.unsigned_abs()))
    }
}

/// SplitMix64: a small, fast generator of well-mixed 64-bit words.
struct SplitMix(u64);

impl SplitMix {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// Uniform in `0..=hi` (by rejection, unbiased).
    fn below_or_eq(&mut self, hi: u64) -> u64 {
        if hi == u64::MAX {
            return self.next();
        }
        let span = hi + 1;
        let zone = u64::MAX - (u64::MAX % span) - 1;
        loop {
            let v = self.next();
            if v <= zone {
                return v % span;
            }
        }
    }

    /// Uniform in `[0, 1)` with 53 random bits.
    fn unit(&mut self) -> f64 {
        (self.next() >> 11) as f64 / (1u64 << 53) as f64
    }
}

impl<T: SparseValue> SparseArray<T> {
    /// A `rows × cols` CSR matrix on the current device with `round(density · rows · cols)`
    /// elements at distinct positions drawn uniformly (SciPy's `sparse.random`), each value
    /// uniform in `[0, 1)` (real part for complex types). The same `seed` gives the same
    /// matrix on every backend. A density outside `[0, 1]` is an `Err` naming it, as is an
    /// element count whose positions, indices and values (32 bytes each) exceed the host's
    /// memory.
    ///
    /// ```
    /// use cuprite_array::{Device, with_device};
    /// use cuprite_array::sparse::SparseArray;
    /// let a = with_device(Device::CPU, || SparseArray::<f64>::random([10, 20], 0.25, 7))?;
    /// assert_eq!(a.nnz(), 50);
    /// assert!(a.values().to_vec()?.iter().all(|&v| (0.0..1.0).contains(&v)));
    /// # Ok::<(), cuprite_array::Error>(())
    /// ```
    pub fn random(shape: [usize; 2], density: f64, seed: u64) -> Result<Self> {
        super::build::check_shape(shape)?;
        if !(0.0..=1.0).contains(&density) {
            return Err(Error::InvalidArgument(format!(
                "sparse random: density {density} is outside [0, 1]"
            )));
        }
        let [rows, cols] = shape;
        let total = rows.checked_mul(cols).ok_or_else(|| {
            Error::Shape(format!(
                "sparse random: {rows} × {cols} positions overflow the address space"
            ))
        })?;
        let k = ((density * total as f64).round() as usize).min(total);
        // Each element is held as a position, a row, a column and a value.
        crate::util::host_fits::<[u64; 4]>(
            k,
            &format!("sparse random: {k} elements (density {density} of shape {shape:?})"),
        )?;
        let mut rng = SplitMix(seed);
        // Floyd's sampling of k distinct positions out of `total`.
        let mut picked = std::collections::HashSet::with_capacity(k);
        for j in (total - k)..total {
            let t = rng.below_or_eq(j as u64) as usize;
            if !picked.insert(t) {
                picked.insert(j);
            }
        }
        let mut pos: Vec<usize> = picked.into_iter().collect();
        pos.sort_unstable();
        let r = pos.iter().map(|&p| p / cols).collect();
        let c = pos.iter().map(|&p| p % cols).collect();
        let v = pos.iter().map(|_| T::from_f64(rng.unit())).collect();
        let h = Host::from_triplets(SparseFormat::Csr, rows, cols, r, c, v)?;
        Self::from_host(h, current_device(), None)
    }

    /// Diagonal `k` (above the main one for `k > 0`, below for `k < 0`) as a dense vector,
    /// zeros where nothing is stored (NumPy's and SciPy's `diagonal(k)`); empty when the
    /// diagonal lies outside the matrix.
    ///
    /// ```
    /// use cuprite_array::{Device, with_device};
    /// use cuprite_array::sparse::SparseArray;
    /// let a = with_device(Device::CPU, || SparseArray::from_triplets([2, 3], &[0, 1, 0], &[0, 2, 1], &[1.0f64, 2.0, 3.0]))?;
    /// assert_eq!(a.diagonal(0)?.to_vec()?, [1.0, 0.0]);
    /// assert_eq!(a.diagonal(1)?.to_vec()?, [3.0, 2.0]);
    /// # Ok::<(), cuprite_array::Error>(())
    /// ```
    pub fn diagonal(&self, k: isize) -> Result<Array<T>> {
        let [rows, cols] = self.shape;
        let n = diagonal_len(rows, cols, k);
        let mut d = vec![T::ZERO; n];
        let (r, c, v) = self.host()?.triplets();
        for p in 0..v.len() {
            if c[p] as isize - r[p] as isize == k {
                d[r[p].min(c[p])] = v[p];
            }
        }
        Array::from_slice_on(self.device(), &d, &[n])
    }

    /// The elements on and below diagonal `k` (NumPy's and SciPy's `tril(k)`), in this
    /// matrix's format.
    ///
    /// ```
    /// use cuprite_array::{Device, with_device};
    /// use cuprite_array::sparse::SparseArray;
    /// let a = with_device(Device::CPU, || SparseArray::from_triplets([2, 2], &[0, 0, 1], &[0, 1, 1], &[1.0f32, 2.0, 3.0]))?;
    /// assert_eq!(a.tril(0)?.to_dense()?.to_vec()?, [1.0, 0.0, 0.0, 3.0]);
    /// # Ok::<(), cuprite_array::Error>(())
    /// ```
    pub fn tril(&self, k: isize) -> Result<Self> {
        self.keep(|i, j| j as isize - i as isize <= k)
    }

    /// The elements on and above diagonal `k` (`triu(k)`), in this matrix's format.
    ///
    /// ```
    /// use cuprite_array::{Device, with_device};
    /// use cuprite_array::sparse::SparseArray;
    /// let a = with_device(Device::CPU, || SparseArray::from_triplets([2, 2], &[0, 1, 1], &[1, 0, 1], &[2.0f32, 4.0, 3.0]))?;
    /// assert_eq!(a.triu(1)?.to_dense()?.to_vec()?, [0.0, 2.0, 0.0, 0.0]);
    /// # Ok::<(), cuprite_array::Error>(())
    /// ```
    pub fn triu(&self, k: isize) -> Result<Self> {
        self.keep(|i, j| j as isize - i as isize >= k)
    }

    /// The stored elements at the positions `(i, j)` where `f(i, j)` holds.
    fn keep(&self, f: impl Fn(usize, usize) -> bool) -> Result<Self> {
        let (r, c, v) = self.host()?.triplets();
        let keep: Vec<usize> = (0..v.len()).filter(|&p| f(r[p], c[p])).collect();
        let [rows, cols] = self.shape;
        let h = Host::from_triplets(
            self.format,
            rows,
            cols,
            keep.iter().map(|&p| r[p]).collect(),
            keep.iter().map(|&p| c[p]).collect(),
            keep.iter().map(|&p| v[p]).collect(),
        )?;
        self.like(h)
    }

    /// Rows `start..stop` as a `(stop − start) × cols` matrix in this format (SciPy's
    /// `A[start:stop]`); an `Err` names a range that is reversed or past the last row.
    ///
    /// ```
    /// use cuprite_array::{Device, with_device};
    /// use cuprite_array::sparse::SparseArray;
    /// let a = with_device(Device::CPU, || SparseArray::<f64>::eye(3))?;
    /// assert_eq!(a.slice_rows(1, 3)?.to_dense()?.to_vec()?, [0.0, 1.0, 0.0, 0.0, 0.0, 1.0]);
    /// assert!(a.slice_rows(2, 4).is_err());
    /// # Ok::<(), cuprite_array::Error>(())
    /// ```
    pub fn slice_rows(&self, start: usize, stop: usize) -> Result<Self> {
        let [rows, cols] = self.shape;
        if start > stop || stop > rows {
            return Err(Error::Index(format!(
                "slice_rows: rows {start}..{stop} of a matrix of {rows} rows"
            )));
        }
        let (r, c, v) = self.host()?.triplets();
        let keep: Vec<usize> = (0..v.len())
            .filter(|&p| (start..stop).contains(&r[p]))
            .collect();
        let h = Host::from_triplets(
            self.format,
            stop - start,
            cols,
            keep.iter().map(|&p| r[p] - start).collect(),
            keep.iter().map(|&p| c[p]).collect(),
            keep.iter().map(|&p| v[p]).collect(),
        )?;
        self.like(h)
    }

    /// The Kronecker product `A ⊗ B` in CSR (SciPy's `kron`): element `(i·p + k, j·q + l)`
    /// is `A[i, j] · B[k, l]` for `B` of shape `p × q`. An `Err` when the shape or the number
    /// of elements overflows.
    ///
    /// ```
    /// use cuprite_array::{Device, with_device};
    /// use cuprite_array::sparse::SparseArray;
    /// with_device(Device::CPU, || -> cuprite_array::Result<()> {
    ///     let a = SparseArray::from_triplets([1, 2], &[0], &[1], &[2.0f64])?; // [0, 2]
    ///     let i = SparseArray::<f64>::eye(2)?;
    ///     assert_eq!(a.kron(&i)?.to_dense()?.to_vec()?, [0.0, 0.0, 2.0, 0.0, 0.0, 0.0, 0.0, 2.0]);
    ///     Ok(())
    /// })?;
    /// # Ok::<(), cuprite_array::Error>(())
    /// ```
    pub fn kron(&self, other: &SparseArray<T>) -> Result<Self> {
        self.same_device("the other sparse matrix", other.device())?;
        let [m, n] = self.shape;
        let [p, q] = other.shape;
        let overflow = || {
            Error::Shape(format!(
                "kron: shapes {:?} and {:?} with {} and {} elements overflow",
                self.shape,
                other.shape,
                self.nnz(),
                other.nnz()
            ))
        };
        let rows = m.checked_mul(p).ok_or_else(overflow)?;
        let cols = n.checked_mul(q).ok_or_else(overflow)?;
        let nnz = self.nnz().checked_mul(other.nnz()).ok_or_else(overflow)?;
        super::build::check_shape([rows, cols])?;
        let (ar, ac, av) = self.host()?.triplets();
        let (br, bc, bv) = other.host()?.triplets();
        let (mut r, mut c, mut v) = (
            Vec::with_capacity(nnz),
            Vec::with_capacity(nnz),
            Vec::with_capacity(nnz),
        );
        for s in 0..av.len() {
            for t in 0..bv.len() {
                r.push(ar[s] * p + br[t]);
                c.push(ac[s] * q + bc[t]);
                v.push(av[s] * bv[t]);
            }
        }
        let h = Host::from_triplets(SparseFormat::Csr, rows, cols, r, c, v)?;
        Self::from_host(h, self.device(), None)
    }

    /// The sum of every element, a 0-d array on the matrix's device.
    ///
    /// ```
    /// use cuprite_array::{Device, with_device};
    /// use cuprite_array::sparse::SparseArray;
    /// let a = with_device(Device::CPU, || SparseArray::<f64>::eye(3))?;
    /// assert_eq!(a.sum()?.item()?, 3.0);
    /// # Ok::<(), cuprite_array::Error>(())
    /// ```
    pub fn sum(&self) -> Result<Array<T>> {
        if self.nnz() == 0 {
            return Ok(with_device(self.device(), || Array::scalar(T::ZERO)));
        }
        let s = self.values.sum()?;
        Ok(s.cast::<T>())
    }

    /// Sums along `axes` (NumPy's `sum(axis)`): `&[0]` sums each column (a vector of
    /// `cols`), `&[1]` each row (`rows`), `&[0, 1]` everything (0-d, as [`sum`](Self::sum)).
    /// Negative axes count from the end. The row and column sums are products with a vector
    /// of ones (cuSPARSE on a GPU); no axis, an axis out of range or one given twice is an
    /// `Err`.
    ///
    /// ```
    /// use cuprite_array::{Device, with_device};
    /// use cuprite_array::sparse::SparseArray;
    /// let a = with_device(Device::CPU, || SparseArray::from_triplets([2, 3], &[0, 0, 1], &[0, 2, 2], &[1.0f64, 2.0, 3.0]))?;
    /// assert_eq!(a.sum_axes(&[0])?.to_vec()?, [1.0, 0.0, 5.0]);
    /// assert_eq!(a.sum_axes(&[-1])?.to_vec()?, [3.0, 3.0]);
    /// # Ok::<(), cuprite_array::Error>(())
    /// ```
    pub fn sum_axes(&self, axes: &[isize]) -> Result<Array<T>> {
        if axes.is_empty() {
            return Err(Error::Axis(
                "sparse sum_axes: no axis given (sum() sums every element)".into(),
            ));
        }
        let mut seen = [false; 2];
        for &ax in axes {
            let a = match ax {
                0 | -2 => 0,
                1 | -1 => 1,
                _ => {
                    return Err(Error::Axis(format!(
                        "sparse sum_axes: axis {ax} is out of range for a 2-D matrix"
                    )));
                }
            };
            if seen[a] {
                return Err(Error::Axis(format!(
                    "sparse sum_axes: axis {a} given twice in {axes:?}"
                )));
            }
            seen[a] = true;
        }
        match seen {
            [true, false] | [false, true] => {
                let op = if seen[0] {
                    Transpose::Trans
                } else {
                    Transpose::None
                };
                let len = self.shape[if seen[0] { 0 } else { 1 }];
                let ones = with_device(self.device(), || Array::full(&[len], T::one()));
                self.spmv_with(op, T::one(), &ones, T::ZERO, None)
            }
            _ => self.sum(),
        }
    }

    /// The stored values replaced by `f(values)` (element-wise array work, lazy: it fuses
    /// with what follows, as dense element-wise work does). `f` sees only the stored values,
    /// as SciPy's element-wise methods on `data` do: an `f` with `f(0) ≠ 0` does not change
    /// the positions that store nothing. `f` must keep the number of values.
    ///
    /// ```
    /// use cuprite_array::{Device, with_device};
    /// use cuprite_array::sparse::SparseArray;
    /// let a = with_device(Device::CPU, || SparseArray::from_triplets([2, 2], &[0, 1], &[1, 0], &[4.0f64, 9.0]))?;
    /// let r = a.map_values(|v| Ok(v.sqrt() * 2.0))?;
    /// assert_eq!(r.to_dense()?.to_vec()?, [0.0, 4.0, 6.0, 0.0]);
    /// # Ok::<(), cuprite_array::Error>(())
    /// ```
    pub fn map_values(&self, f: impl FnOnce(&Array<T>) -> Result<Array<T>>) -> Result<Self> {
        self.with_values(f(&self.values)?)
    }

    /// `A + D` for a dense `D` that broadcasts to the matrix's shape: a dense
    /// `rows × cols` array (SciPy's `A + dense`), lazy and on the matrix's device.
    ///
    /// ```
    /// use cuprite_array::{Array, Device, with_device};
    /// use cuprite_array::sparse::SparseArray;
    /// with_device(Device::CPU, || -> cuprite_array::Result<()> {
    ///     let a = SparseArray::<f64>::eye(2)?;
    ///     let row = Array::from_slice(&[10.0, 20.0], &[2])?;
    ///     assert_eq!(a.add_dense(&row)?.to_vec()?, [11.0, 20.0, 10.0, 21.0]);
    ///     Ok(())
    /// })?;
    /// # Ok::<(), cuprite_array::Error>(())
    /// ```
    pub fn add_dense(&self, d: &Array<T>) -> Result<Array<T>> {
        self.same_device("the dense operand", d.device())?;
        let shape = self.shape.to_vec();
        let fits = crate::shape::broadcast_dims(d.shape(), &shape)
            .ok()
            .is_some_and(|s| s[..] == shape[..]);
        if !fits {
            return Err(Error::Shape(format!(
                "sparse add_dense: a dense operand of shape {:?} does not broadcast to the \
                 matrix's shape {shape:?}",
                d.shape()
            )));
        }
        self.dense_on_device()?.try_add(d)
    }

    /// The dense form built on the device: the values scattered to their flat positions
    /// (complex values take the host path of `to_dense`).
    fn dense_on_device(&self) -> Result<Array<T>> {
        let [rows, cols] = self.shape;
        let len = crate::shape::checked_numel(&self.shape)?;
        if T::DTYPE.is_complex() || self.nnz() == 0 || len == 0 {
            return self.to_dense();
        }
        let col = self.col_device()?;
        let row = self.row_device()?;
        let flat = row.try_mul(cols as i64)?.try_add(&col)?;
        let zeros = with_device(self.device(), || Array::<T>::zeros(&[len]));
        zeros
            .index_add(0, &flat, &self.values, Default::default())?
            .reshape(&[rows, cols])
    }

    /// The row of every stored value, computed on the device.
    fn row_device(&self) -> Result<Array<i64>> {
        match self.format {
            SparseFormat::Csr => self.line_of_each(),
            _ => self.row_indices(),
        }
    }

    /// The column of every stored value, computed on the device.
    fn col_device(&self) -> Result<Array<i64>> {
        match self.format {
            SparseFormat::Csc => self.line_of_each(),
            _ => self.col_indices(),
        }
    }

    /// For compressed formats, the line (row of CSR, column of CSC) of each stored value:
    /// the number of offsets after the first that are at most its position.
    fn line_of_each(&self) -> Result<Array<i64>> {
        let off = self.major.to_i64();
        let nnz = self.nnz() as i64;
        let pos = with_device(self.device(), || Array::arange(0i64, nnz, 1))?;
        off.searchsorted(&pos, Side::Right)?.try_sub(1i64)
    }
}
