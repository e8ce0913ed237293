//! Sparse triangular solves ([`SparseArray::spsolve_triangular`]): cuSPARSE's SpSV on the
//! CUDA backend, forward or backward substitution on the host on the CPU backend.

use super::{SparseArray, SparseValue};
use crate::array::Array;
use crate::device::Backend;
use crate::dtype::Float;
use crate::error::{Error, Result};

/// The options of [`SparseArray::spsolve_triangular_with`], named after SciPy's
/// `spsolve_triangular` keywords: `lower` (default `true`) and `unit_diagonal` (default
/// `false`).
///
/// ```
/// use cuprite_array::sparse::TriangularOpts;
/// let o = TriangularOpts::new().lower(false).unit_diagonal(true);
/// assert_eq!((o.is_lower(), o.is_unit_diagonal()), (false, true));
/// ```
#[must_use]
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct TriangularOpts {
    lower: bool,
    unit_diagonal: bool,
}

impl Default for TriangularOpts {
    fn default() -> Self {
        TriangularOpts {
            lower: true,
            unit_diagonal: false,
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
    /// Whether the lower triangle is read.
    pub fn is_lower(&self) -> bool {
        self.lower
    }
    /// Whether the diagonal is taken as ones.
    pub fn is_unit_diagonal(&self) -> bool {
        self.unit_diagonal
    }
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
    /// triangle are ignored). A zero on the diagonal read is an `Err` naming its row. Through
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
        let [n, cols] = self.shape;
        if n != cols {
            return Err(Error::Shape(format!(
                "spsolve_triangular: the matrix must be square, not {:?}",
                self.shape
            )));
        }
        if b.shape() != [n] {
            return Err(Error::Shape(format!(
                "spsolve_triangular: b has shape {:?}, expected [{n}]",
                b.shape()
            )));
        }
        self.same_device("b", b.device())?;
        let csr = self.to_csr()?;
        let h = csr.host()?;
        let mut diag = vec![0.0f64; n];
        for i in 0..n {
            for p in h.major[i]..h.major[i + 1] {
                if h.minor[p] == i {
                    diag[i] = h.vals[p].to_c64().re;
                }
            }
            if !opts.unit_diagonal && diag[i] == 0.0 {
                return Err(Error::Singular(format!(
                    "spsolve_triangular: A[{i}, {i}] is zero (the matrix is singular)"
                )));
            }
        }
        // Nothing stored (an empty matrix, or a unit diagonal and nothing else): x = b.
        if n == 0 || self.nnz() == 0 {
            return Ok(b.clone());
        }
        if self.device().backend == Backend::Cuda {
            let triangle = cuprite_driver::sparse::Triangle {
                lower: opts.lower,
                unit_diagonal: opts.unit_diagonal,
            };
            return super::cuda::spsv(&csr, b, triangle);
        }
        let bv = b.to_vec()?;
        let mut x = vec![0.0f64; n];
        let order: Box<dyn Iterator<Item = usize>> = if opts.lower {
            Box::new(0..n)
        } else {
            Box::new((0..n).rev())
        };
        for i in order {
            let mut s = bv[i].to_c64().re;
            for p in h.major[i]..h.major[i + 1] {
                let j = h.minor[p];
                if (opts.lower && j < i) || (!opts.lower && j > i) {
                    s -= h.vals[p].to_c64().re * x[j];
                }
            }
            x[i] = if opts.unit_diagonal { s } else { s / diag[i] };
        }
        let out: Vec<T> = x.iter().map(|&v| T::from_f64(v)).collect();
        Array::from_slice_on(self.device(), &out, &[n])
    }
}
