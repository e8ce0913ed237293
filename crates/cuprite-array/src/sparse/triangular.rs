//! Sparse triangular solves ([`SparseArray::spsolve_triangular`] for one right-hand side,
//! [`SparseArray::spsm`] for several): cuSPARSE's SpSV and SpSM on the CUDA backend, forward
//! or backward substitution on the host on the CPU backend.

use super::host::Host;
use super::{SparseArray, SparseValue};
use crate::array::Array;
use crate::device::Backend;
use crate::dtype::Float;
use crate::error::{Error, Result};

/// The options of [`SparseArray::spsolve_triangular_with`] and [`SparseArray::spsm`], named
/// after SciPy's `spsolve_triangular` keywords: `lower` (default `true`) and `unit_diagonal`
/// (default `false`); and `transpose` (default `false`): solve with the transpose of the
/// triangle read (`Tᵀ · x = b`, cuSPARSE's `opA`).
///
/// ```
/// use cuprite_array::sparse::TriangularOpts;
/// let o = TriangularOpts::new().lower(false).unit_diagonal(true).transpose(true);
/// assert_eq!((o.is_lower(), o.is_unit_diagonal(), o.is_transpose()), (false, true, true));
/// ```
#[must_use]
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct TriangularOpts {
    lower: bool,
    unit_diagonal: bool,
    transpose: bool,
}

impl Default for TriangularOpts {
    fn default() -> Self {
        TriangularOpts {
            lower: true,
            unit_diagonal: false,
            transpose: false,
        }
    }
}

impl TriangularOpts {
    /// SciPy's defaults: the lower triangle, the stored diagonal.
    pub fn new() -> Self {
        Self::default()
    }
    /// Read the lower triangle (else the upper one).
    pub fn lower(mut self, lower: bool) -> Self {
        self.lower = lower;
        self
    }
    /// Take ones as the diagonal, whatever is stored there.
    pub fn unit_diagonal(mut self, unit: bool) -> Self {
        self.unit_diagonal = unit;
        self
    }
    /// Solve with the transpose of the triangle read.
    pub fn transpose(mut self, transpose: bool) -> Self {
        self.transpose = transpose;
        self
    }
    /// Whether the solve is with the transpose of the triangle read.
    pub fn is_transpose(&self) -> bool {
        self.transpose
    }
    /// Whether the lower triangle is read.
    pub fn is_lower(&self) -> bool {
        self.lower
    }
    /// Whether the diagonal is taken as ones.
    pub fn is_unit_diagonal(&self) -> bool {
        self.unit_diagonal
    }
}

/// The diagonal of a square canonical CSR `h`, in f64, or an `Err` naming the first zero
/// (skipped when the diagonal is taken as ones).
pub(super) fn checked_diagonal<T: SparseValue>(
    h: &Host<T>,
    unit_diagonal: bool,
    what: &str,
) -> Result<Vec<f64>> {
    let n = h.rows;
    let mut diag = vec![0.0f64; n];
    for i in 0..n {
        for p in h.major[i]..h.major[i + 1] {
            if h.minor[p] == i {
                diag[i] = h.vals[p].to_c64().re;
            }
        }
        if !unit_diagonal && diag[i] == 0.0 {
            return Err(Error::Singular(format!(
                "{what}: A[{i}, {i}] is zero (the matrix is singular)"
            )));
        }
    }
    Ok(diag)
}

/// Solves `op(T) · X = B` on the host for the row-major `n × k` `B`, where `T` is the triangle
/// of the square canonical CSR `h` that `opts` reads, and `diag` its checked diagonal.
pub(super) fn host_solve<T: SparseValue>(
    h: &Host<T>,
    diag: &[f64],
    opts: TriangularOpts,
    b: &[f64],
    k: usize,
) -> Vec<f64> {
    let n = h.rows;
    let inside = |i: usize, j: usize| if opts.lower { j < i } else { j > i };
    let scale = |i: usize, v: f64| if opts.unit_diagonal { v } else { v / diag[i] };
    let mut x = vec![0.0f64; n * k];
    // The transpose of a lower triangle is upper: the substitution runs the other way.
    let forward = opts.lower != opts.transpose;
    let order: Box<dyn Iterator<Item = usize>> = if forward {
        Box::new(0..n)
    } else {
        Box::new((0..n).rev())
    };
    if !opts.transpose {
        // Row i of T gives x[i] from the x[j] already found.
        for i in order {
            for q in 0..k {
                let mut s = b[i * k + q];
                for p in h.major[i]..h.major[i + 1] {
                    let j = h.minor[p];
                    if inside(i, j) {
                        s -= h.vals[p].to_c64().re * x[j * k + q];
                    }
                }
                x[i * k + q] = scale(i, s);
            }
        }
    } else {
        // Row i of T is column i of Tᵀ: once x[i] is known, it is taken out of the
        // right-hand sides of the rows still to come.
        let mut w = b.to_vec();
        for i in order {
            for q in 0..k {
                x[i * k + q] = scale(i, w[i * k + q]);
            }
            for p in h.major[i]..h.major[i + 1] {
                let j = h.minor[p];
                if inside(i, j) {
                    let a = h.vals[p].to_c64().re;
                    for q in 0..k {
                        w[j * k + q] -= a * x[i * k + q];
                    }
                }
            }
        }
    }
    x
}

impl<T: SparseValue + Float> SparseArray<T> {
    /// [`spsolve_triangular_with`](Self::spsolve_triangular_with) with SciPy's defaults (the
    /// lower triangle, the stored diagonal).
    ///
    /// ```
    /// use cuprite_array::{Array, Device, with_device};
    /// use cuprite_array::sparse::SparseArray;
    /// with_device(Device::CPU, || -> cuprite_array::Result<()> {
    ///     // [[2, 0], [1, 4]]
    ///     let l = SparseArray::from_triplets([2, 2], &[0, 1, 1], &[0, 0, 1], &[2.0f64, 1.0, 4.0])?;
    ///     let b = Array::from_slice(&[2.0, 9.0], &[2])?;
    ///     assert_eq!(l.spsolve_triangular(&b)?.to_vec()?, [1.0, 2.0]);
    ///     Ok(())
    /// })?;
    /// # Ok::<(), cuprite_array::Error>(())
    /// ```
    pub fn spsolve_triangular(&self, b: &Array<T>) -> Result<Array<T>> {
        self.spsolve_triangular_with(b, TriangularOpts::new())
    }

    /// Solves `A · x = b` for a vector `b` of `n` elements, reading only the lower (or upper)
    /// triangle of the square `A` (SciPy's `spsolve_triangular`; the elements of the other
    /// triangle are ignored), or `Tᵀ · x = b` for that triangle `T` with
    /// [`transpose`](TriangularOpts::transpose). A `b` of shape `[n, k]` goes to
    /// [`spsm`](Self::spsm). A zero on the diagonal read is an `Err` naming its row. Through
    /// cuSPARSE's SpSV on the CUDA backend (which waits for the solve to finish).
    ///
    /// ```
    /// use cuprite_array::{Array, Device, with_device};
    /// use cuprite_array::sparse::{SparseArray, TriangularOpts};
    /// with_device(Device::CPU, || -> cuprite_array::Result<()> {
    ///     // The upper triangle of [[5, 2], [7, 3]] with ones on the diagonal: [[1, 2], [0, 1]].
    ///     let a = SparseArray::from_triplets([2, 2], &[0, 0, 1, 1], &[0, 1, 0, 1], &[5.0f64, 2.0, 7.0, 3.0])?;
    ///     let b = Array::from_slice(&[5.0, 2.0], &[2])?;
    ///     let opts = TriangularOpts::new().lower(false).unit_diagonal(true);
    ///     assert_eq!(a.spsolve_triangular_with(&b, opts)?.to_vec()?, [1.0, 2.0]);
    ///     Ok(())
    /// })?;
    /// # Ok::<(), cuprite_array::Error>(())
    /// ```
    pub fn spsolve_triangular_with(&self, b: &Array<T>, opts: TriangularOpts) -> Result<Array<T>> {
        if b.ndim() == 2 {
            return self.spsm(b, opts);
        }
        self.solve(b, opts, "spsolve_triangular")
    }

    /// Solves `A · X = B` for a dense `B` of shape `[n, k]` (`k` right-hand sides), reading
    /// only the triangle of the square `A` that `opts` names (or `Tᵀ · X = B` with
    /// [`transpose`](TriangularOpts::transpose)). A zero on the diagonal read is an `Err`
    /// naming its row. Through cuSPARSE's SpSM on the CUDA backend (which waits for the
    /// solve to finish), by substitution on the host on the CPU backend.
    ///
    /// ```
    /// use cuprite_array::{Array, Device, with_device};
    /// use cuprite_array::sparse::{SparseArray, TriangularOpts};
    /// with_device(Device::CPU, || -> cuprite_array::Result<()> {
    ///     // [[2, 0], [1, 4]]; two right-hand sides.
    ///     let l = SparseArray::from_triplets([2, 2], &[0, 1, 1], &[0, 0, 1], &[2.0f64, 1.0, 4.0])?;
    ///     let b = Array::from_slice(&[2.0, 4.0, 9.0, 18.0], &[2, 2])?;
    ///     assert_eq!(l.spsm(&b, TriangularOpts::new())?.to_vec()?, [1.0, 2.0, 2.0, 4.0]);
    ///     // Lᵀ = [[2, 1], [0, 4]].
    ///     let bt = Array::from_slice(&[4.0, 8.0, 8.0, 16.0], &[2, 2])?;
    ///     let x = l.spsm(&bt, TriangularOpts::new().transpose(true))?;
    ///     assert_eq!(x.to_vec()?, [1.0, 2.0, 2.0, 4.0]);
    ///     Ok(())
    /// })?;
    /// # Ok::<(), cuprite_array::Error>(())
    /// ```
    pub fn spsm(&self, b: &Array<T>, opts: TriangularOpts) -> Result<Array<T>> {
        if b.ndim() != 2 {
            return Err(Error::Shape(format!(
                "spsm: B has shape {:?}, expected [{}, k]",
                b.shape(),
                self.shape[0]
            )));
        }
        self.solve(b, opts, "spsm")
    }

    /// The solve of a `b` of shape `[n]` or `[n, k]`.
    fn solve(&self, b: &Array<T>, opts: TriangularOpts, what: &str) -> Result<Array<T>> {
        let [n, cols] = self.shape;
        if n != cols {
            return Err(Error::Shape(format!(
                "{what}: the matrix must be square, not {:?}",
                self.shape
            )));
        }
        let bshape = b.shape().to_vec();
        if bshape.first() != Some(&n) || bshape.len() > 2 {
            let want = if bshape.len() == 2 {
                format!("[{n}, k]")
            } else {
                format!("[{n}]")
            };
            return Err(Error::Shape(format!(
                "{what}: b has shape {bshape:?}, expected {want}"
            )));
        }
        let k = bshape.get(1).copied().unwrap_or(1);
        self.same_device("b", b.device())?;
        let csr = self.to_csr()?;
        let h = csr.host()?;
        let diag = checked_diagonal(&h, opts.unit_diagonal, what)?;
        // Nothing stored (an empty matrix, or a unit diagonal and nothing else), or no
        // right-hand side: x = b.
        if n == 0 || k == 0 || self.nnz() == 0 {
            return Ok(b.clone());
        }
        if self.device().backend == Backend::Cuda {
            let triangle = cuprite_driver::sparse::Triangle {
                lower: opts.lower,
                unit_diagonal: opts.unit_diagonal,
            };
            let op = if opts.transpose {
                super::Transpose::Trans
            } else {
                super::Transpose::None
            };
            return if bshape.len() == 1 {
                super::cuda::spsv(&csr, b, op, triangle)
            } else {
                super::cuda::spsm(&csr, b, k, op, triangle)
            };
        }
        let bv: Vec<f64> = b.to_vec()?.iter().map(|v| v.to_c64().re).collect();
        let x = host_solve(&h, &diag, opts, &bv, k);
        let out: Vec<T> = x.iter().map(|&v| T::from_f64(v)).collect();
        Array::from_slice_on(self.device(), &out, &bshape)
    }
}
