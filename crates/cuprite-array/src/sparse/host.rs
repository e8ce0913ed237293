//! The host form of a sparse matrix ([`Host`]): validation of user data, canonicalisation,
//! the conversions between formats, and the CPU products. Both backends go through it for
//! everything but the cuSPARSE products, so their results agree.
//!
//! Invariants of a `Host` (what every constructor checks or establishes):
//! - CSR: `major` holds `rows + 1` offsets rising from 0 to nnz; `minor` holds the column of
//!   each value, strictly increasing within each row, each below `cols`.
//! - CSC: the same with rows and columns exchanged.
//! - COO: `major` and `minor` hold the row and column of each value, sorted by row, then
//!   column, with no position twice.

use super::format::SparseFormat;
use super::value::{IndexValue, SparseValue};
use crate::error::{Error, Result};

/// A sparse matrix in host memory, canonical for its format (see the module docs).
#[derive(Clone, Debug)]
pub(crate) struct Host<T> {
    pub format: SparseFormat,
    pub rows: usize,
    pub cols: usize,
    pub major: Vec<usize>,
    pub minor: Vec<usize>,
    pub vals: Vec<T>,
}

fn bad(msg: String) -> Error {
    Error::InvalidArgument(msg)
}

/// `v` as indices, or an `Err` naming the first negative one.
pub(crate) fn to_indices<I: IndexValue>(what: &str, v: &[I]) -> Result<Vec<usize>> {
    v.iter()
        .enumerate()
        .map(|(k, &x)| {
            x.to_index()
                .ok_or_else(|| bad(format!("sparse: {what}[{k}] = {x} is negative")))
        })
        .collect()
}

impl<T: SparseValue> Host<T> {
    /// Compressed data (CSR when `format` is CSR, else CSC), checked: offsets of length
    /// `n_major + 1` starting at 0, never decreasing, ending at nnz; indices below
    /// `n_minor`, strictly increasing within each row (column). An `Err` names the first
    /// position that breaks a rule.
    pub fn compressed(
        format: SparseFormat,
        rows: usize,
        cols: usize,
        offsets: Vec<usize>,
        indices: Vec<usize>,
        vals: Vec<T>,
    ) -> Result<Self> {
        let (n_major, n_minor, line, idx) = match format {
            SparseFormat::Csc => (cols, rows, "column", "row"),
            _ => (rows, cols, "row", "column"),
        };
        let name = format.name();
        if indices.len() != vals.len() {
            return Err(bad(format!(
                "{name}: {} {idx} indices for {} values",
                indices.len(),
                vals.len()
            )));
        }
        if offsets.len() != n_major + 1 {
            return Err(bad(format!(
                "{name}: {} offsets for {n_major} {line}s ({} expected)",
                offsets.len(),
                n_major + 1
            )));
        }
        if offsets[0] != 0 {
            return Err(bad(format!(
                "{name}: offsets[0] = {}, must be 0",
                offsets[0]
            )));
        }
        for k in 0..n_major {
            if offsets[k + 1] < offsets[k] {
                return Err(bad(format!(
                    "{name}: offsets[{}] = {} is below offsets[{k}] = {}",
                    k + 1,
                    offsets[k + 1],
                    offsets[k]
                )));
            }
        }
        if offsets[n_major] != vals.len() {
            return Err(bad(format!(
                "{name}: offsets[{n_major}] = {} but there are {} values",
                offsets[n_major],
                vals.len()
            )));
        }
        for k in 0..n_major {
            for p in offsets[k]..offsets[k + 1] {
                if indices[p] >= n_minor {
                    return Err(bad(format!(
                        "{name}: indices[{p}] = {} ({line} {k}) is out of bounds for {n_minor} \
                         {idx}s",
                        indices[p]
                    )));
                }
                if p > offsets[k] && indices[p] <= indices[p - 1] {
                    return Err(bad(format!(
                        "{name}: indices[{p}] = {} ({line} {k}) follows {}: indices must be \
                         strictly increasing within a {line} (use from_triplets to sort and sum \
                         duplicates)",
                        indices[p],
                        indices[p - 1]
                    )));
                }
            }
        }
        Ok(Host {
            format,
            rows,
            cols,
            major: offsets,
            minor: indices,
            vals,
        })
    }

    /// Triplets in any order, bounds checked (an `Err` names the first one out of bounds),
    /// sorted by row then column, with the values at a repeated position summed, as `format`.
    pub fn from_triplets(
        format: SparseFormat,
        rows: usize,
        cols: usize,
        r: Vec<usize>,
        c: Vec<usize>,
        v: Vec<T>,
    ) -> Result<Self> {
        if r.len() != v.len() || c.len() != v.len() {
            return Err(bad(format!(
                "sparse triplets: {} row indices, {} column indices and {} values",
                r.len(),
                c.len(),
                v.len()
            )));
        }
        offsets_fit(format, rows, cols)?;
        for k in 0..v.len() {
            if r[k] >= rows || c[k] >= cols {
                return Err(bad(format!(
                    "sparse triplets: entry {k} at ({}, {}) is out of bounds for shape \
                     [{rows}, {cols}]",
                    r[k], c[k]
                )));
            }
        }
        let mut order: Vec<usize> = (0..v.len()).collect();
        order.sort_by_key(|&k| (r[k], c[k]));
        let (mut rr, mut cc, mut vv): (Vec<usize>, Vec<usize>, Vec<T>) = (vec![], vec![], vec![]);
        for k in order {
            if rr.last() == Some(&r[k]) && cc.last() == Some(&c[k]) {
                let last = vv.len() - 1;
                vv[last] = vv[last] + v[k];
            } else {
                rr.push(r[k]);
                cc.push(c[k]);
                vv.push(v[k]);
            }
        }
        Ok(Self::from_sorted(format, rows, cols, rr, cc, vv))
    }

    /// Unique triplets sorted by row then column, as `format` (no checks).
    fn from_sorted(
        format: SparseFormat,
        rows: usize,
        cols: usize,
        r: Vec<usize>,
        c: Vec<usize>,
        v: Vec<T>,
    ) -> Self {
        match format {
            SparseFormat::Coo => Host {
                format,
                rows,
                cols,
                major: r,
                minor: c,
                vals: v,
            },
            SparseFormat::Csr => Host {
                format,
                rows,
                cols,
                major: offsets_of(&r, rows),
                minor: c,
                vals: v,
            },
            SparseFormat::Csc => {
                // A stable counting sort by column keeps the rows sorted within each column.
                let major = offsets_of(&c, cols);
                let mut next = major.clone();
                let mut minor = vec![0; v.len()];
                let mut vals = vec![<T as cuprite_driver::sparse::SparseElement>::ZERO; v.len()];
                for k in 0..v.len() {
                    let p = next[c[k]];
                    next[c[k]] += 1;
                    minor[p] = r[k];
                    vals[p] = v[k];
                }
                Host {
                    format,
                    rows,
                    cols,
                    major,
                    minor,
                    vals,
                }
            }
        }
    }

    /// The stored elements as `(row, col, value)` triplets, sorted by row then column.
    pub fn triplets(&self) -> (Vec<usize>, Vec<usize>, Vec<T>) {
        match self.format {
            SparseFormat::Coo => (self.major.clone(), self.minor.clone(), self.vals.clone()),
            SparseFormat::Csr => (expand(&self.major), self.minor.clone(), self.vals.clone()),
            SparseFormat::Csc => {
                let cols = expand(&self.major);
                let mut order: Vec<usize> = (0..self.vals.len()).collect();
                order.sort_by_key(|&k| (self.minor[k], cols[k]));
                (
                    order.iter().map(|&k| self.minor[k]).collect(),
                    order.iter().map(|&k| cols[k]).collect(),
                    order.iter().map(|&k| self.vals[k]).collect(),
                )
            }
        }
    }

    /// `Err` where this matrix in `format` would need more host memory for its offsets than
    /// the host has (checked before [`to_format`](Self::to_format), which cannot fail).
    pub fn check_format(&self, format: SparseFormat) -> Result<()> {
        offsets_fit(format, self.rows, self.cols)
    }

    /// `Err` where [`matmul`](Self::matmul) of `self` and `other` would need more host memory
    /// than the host has: both as CSR, and a row's accumulator and marks over `other`'s
    /// columns.
    pub fn check_matmul(&self, other: &Self) -> Result<()> {
        self.check_format(SparseFormat::Csr)?;
        other.check_format(SparseFormat::Csr)?;
        let what = format!(
            "sparse product with {} columns: a row's accumulator",
            other.cols
        );
        crate::util::host_fits::<(T, usize)>(other.cols, &what)
    }

    /// This matrix in `format`.
    pub fn to_format(&self, format: SparseFormat) -> Self {
        if format == self.format {
            return self.clone();
        }
        let (r, c, v) = self.triplets();
        Self::from_sorted(format, self.rows, self.cols, r, c, v)
    }

    /// The transpose, in the same format.
    pub fn transpose(&self) -> Self {
        let (r, c, v) = self.triplets();
        let mut order: Vec<usize> = (0..v.len()).collect();
        order.sort_by_key(|&k| (c[k], r[k]));
        Self::from_sorted(
            self.format,
            self.cols,
            self.rows,
            order.iter().map(|&k| c[k]).collect(),
            order.iter().map(|&k| r[k]).collect(),
            order.iter().map(|&k| v[k]).collect(),
        )
    }

    /// Row-major dense elements.
    pub fn dense(&self) -> Vec<T> {
        let zero = <T as cuprite_driver::sparse::SparseElement>::ZERO;
        let mut d = vec![zero; self.rows * self.cols];
        let (r, c, v) = self.triplets();
        for k in 0..v.len() {
            d[r[k] * self.cols + c[k]] = d[r[k] * self.cols + c[k]] + v[k];
        }
        d
    }

    /// `alpha · op(A) · B + beta · C` for row-major dense `B` (`op(A)`'s columns × `n`) and
    /// `C` (`op(A)`'s rows × `n`, zeros when `None`), accumulated in `T`.
    pub fn product(
        &self,
        trans: Option<bool>,
        alpha: T,
        b: &[T],
        n: usize,
        beta: T,
        c: Option<&[T]>,
    ) -> Vec<T> {
        let zero = <T as cuprite_driver::sparse::SparseElement>::ZERO;
        let m = if trans.is_some() {
            self.cols
        } else {
            self.rows
        };
        let mut acc = vec![zero; m * n];
        let (r, cidx, v) = self.triplets();
        for k in 0..v.len() {
            let (i, j, a) = match trans {
                None => (r[k], cidx[k], v[k]),
                Some(conj) => (cidx[k], r[k], if conj { v[k].conj() } else { v[k] }),
            };
            for q in 0..n {
                acc[i * n + q] = acc[i * n + q] + a * b[j * n + q];
            }
        }
        acc.iter()
            .enumerate()
            .map(|(p, &s)| match c {
                Some(c) => alpha * s + beta * c[p],
                None => alpha * s,
            })
            .collect()
    }

    /// `self · other` (sparse times sparse), as CSR with sorted unique columns.
    pub fn matmul(&self, other: &Self) -> Self {
        let a = self.to_format(SparseFormat::Csr);
        let b = other.to_format(SparseFormat::Csr);
        let zero = <T as cuprite_driver::sparse::SparseElement>::ZERO;
        let mut row_acc = vec![zero; b.cols];
        let mut seen = vec![usize::MAX; b.cols];
        let (mut offsets, mut minor, mut vals) = (vec![0usize], Vec::new(), Vec::new());
        for i in 0..a.rows {
            let mut touched = Vec::new();
            for p in a.major[i]..a.major[i + 1] {
                let (k, av) = (a.minor[p], a.vals[p]);
                for q in b.major[k]..b.major[k + 1] {
                    let j = b.minor[q];
                    if seen[j] != i {
                        seen[j] = i;
                        row_acc[j] = zero;
                        touched.push(j);
                    }
                    row_acc[j] = row_acc[j] + av * b.vals[q];
                }
            }
            touched.sort_unstable();
            for j in touched {
                minor.push(j);
                vals.push(row_acc[j]);
            }
            offsets.push(minor.len());
        }
        Host {
            format: SparseFormat::Csr,
            rows: a.rows,
            cols: b.cols,
            major: offsets,
            minor,
            vals,
        }
    }

    /// `self + other` (same shape), summed where both store a position, in `self`'s format.
    pub fn add(&self, other: &Self) -> Result<Self> {
        let (mut r, mut c, mut v) = self.triplets();
        let (r2, c2, v2) = other.triplets();
        r.extend(r2);
        c.extend(c2);
        v.extend(v2);
        Self::from_triplets(self.format, self.rows, self.cols, r, c, v)
    }

    /// Every stored value at `(i, j)` replaced by `f(i, j, value)`.
    pub fn map(&self, f: impl Fn(usize, usize, T) -> T) -> Self {
        let mut h = self.clone();
        match self.format {
            SparseFormat::Coo => {
                for k in 0..h.vals.len() {
                    h.vals[k] = f(h.major[k], h.minor[k], h.vals[k]);
                }
            }
            SparseFormat::Csr | SparseFormat::Csc => {
                let n = h.major.len() - 1;
                for line in 0..n {
                    for p in h.major[line]..h.major[line + 1] {
                        let (i, j) = match self.format {
                            SparseFormat::Csr => (line, h.minor[p]),
                            _ => (h.minor[p], line),
                        };
                        h.vals[p] = f(i, j, h.vals[p]);
                    }
                }
            }
        }
        h
    }
}

/// Offsets (`n + 1`) counting each major index (in any order).
/// `Err` where a matrix of `rows` x `cols` in `format` would need more host memory for its
/// offsets (over its major extent, whatever its element count) than the host has.
fn offsets_fit(format: SparseFormat, rows: usize, cols: usize) -> Result<()> {
    let major = match format {
        SparseFormat::Csr => rows,
        SparseFormat::Csc => cols,
        SparseFormat::Coo => return Ok(()),
    };
    let what = format!("sparse {format:?} of shape [{rows}, {cols}]: its offsets");
    crate::util::host_fits::<usize>(major.saturating_add(1), &what)
}

fn offsets_of(idx: &[usize], n: usize) -> Vec<usize> {
    let mut off = vec![0usize; n + 1];
    for &i in idx {
        off[i + 1] += 1;
    }
    for k in 0..n {
        off[k + 1] += off[k];
    }
    off
}

/// The major index of each element of compressed offsets.
fn expand(offsets: &[usize]) -> Vec<usize> {
    let mut out = Vec::with_capacity(offsets.last().copied().unwrap_or(0));
    for k in 0..offsets.len().saturating_sub(1) {
        out.extend(std::iter::repeat_n(k, offsets[k + 1] - offsets[k]));
    }
    out
}
