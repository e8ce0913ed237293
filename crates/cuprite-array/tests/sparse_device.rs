//! Sparse matrices built from unsorted triplets that live on a device
//! (`SparseArray::from_triplet_arrays`, `from_coo_arrays`), against a reference built here: the
//! triplets summed per position in a `BTreeMap`, in their input order and in the value type
//! (so that the sums of runs of at most 256 duplicates must match bit for bit), or in f64 with
//! a rounding bound for longer runs. Duplicates, unsorted input, empty rows, empty matrices,
//! both index types in and out, shapes whose positions overflow 64 bits, and out-of-bounds
//! indices (an `Err` naming the first). Bodies run on every backend; on a GPU, the CUDA result
//! is also compared with the CPU backend's, bit for bit.

use crate::common::{Body, assert_err};
use crate::sparse::{C, V, canonical};
use cuprite_array::sparse::{
    IndexType, SolveOpts, SparseArray, SparseFormat, SparseIndices, Transpose, cg_with,
};
use cuprite_array::{Array, Device, Float, c32, c64, with_device};
use cuprite_testkit::{Rng, Test, TestResult};
use std::collections::BTreeMap;

/// Triplets of a `rows × cols` matrix in random order: about `n` entries at positions drawn
/// from a pool of `n / 3` (so most positions repeat), every third row left empty.
fn triplets<T: V>(
    rng: &mut Rng,
    rows: usize,
    cols: usize,
    n: usize,
) -> (Vec<i64>, Vec<i64>, Vec<T>) {
    let (mut r, mut c, mut v) = (Vec::new(), Vec::new(), Vec::new());
    if rows == 0 || cols == 0 {
        return (r, c, v);
    }
    let pool: Vec<(i64, i64)> = (0..(n / 3).max(1))
        .map(|_| {
            let mut i = rng.next_u64() as usize % rows;
            if i % 3 == 1 {
                i -= 1;
            }
            (i as i64, (rng.next_u64() as usize % cols) as i64)
        })
        .collect();
    for _ in 0..n {
        let (i, j) = pool[rng.next_u64() as usize % pool.len()];
        r.push(i);
        c.push(j);
        v.push(T::draw(rng));
    }
    (r, c, v)
}

/// The canonical triplets: each position once, sorted by row then column, its values added in
/// input order in `T`.
fn reference<T: V>(r: &[i64], c: &[i64], v: &[T]) -> BTreeMap<(i64, i64), T> {
    let mut m: BTreeMap<(i64, i64), T> = BTreeMap::new();
    for k in 0..v.len() {
        m.entry((r[k], c[k]))
            .and_modify(|s| *s = *s + v[k])
            .or_insert(v[k]);
    }
    m
}

/// The components of CSR `a` as triplets in storage order.
fn csr_triplets<T: V>(a: &SparseArray<T>) -> Result<Vec<((i64, i64), T)>, String> {
    let off = a
        .offsets()
        .ok_or("a CSR matrix without offsets")?
        .to_i64()
        .to_vec()
        .map_err(|e| e.to_string())?;
    let idx = a.indices().to_i64().to_vec().map_err(|e| e.to_string())?;
    let val = a.values().to_vec().map_err(|e| e.to_string())?;
    let mut out = Vec::new();
    for row in 0..off.len().saturating_sub(1) {
        for p in off[row] as usize..off[row + 1] as usize {
            out.push(((row as i64, idx[p]), val[p]));
        }
    }
    Ok(out)
}

/// `a` holds exactly the triplets of `want`, in order, with the same bits.
fn same<T: V>(what: &str, a: &SparseArray<T>, want: &BTreeMap<(i64, i64), T>) -> TestResult {
    let got = csr_triplets(a)?;
    let want: Vec<((i64, i64), T)> = want.iter().map(|(&k, &v)| (k, v)).collect();
    if got.len() != want.len() {
        return Err(format!("{what}: {} stored, expected {}", got.len(), want.len()).into());
    }
    for (k, (g, w)) in got.iter().zip(&want).enumerate() {
        let (x, y) = (g.1.to_c64(), w.1.to_c64());
        let bits = |z: C| (z.re.to_bits(), z.im.to_bits());
        if g.0 != w.0 || bits(x) != bits(y) {
            return Err(format!(
                "{what}: element {k}: got {:?} = {}, expected {:?} = {}",
                g.0, x, w.0, y
            )
            .into());
        }
    }
    Ok(())
}

fn idx_arrays(r: &[i64], c: &[i64], ty: IndexType) -> cuprite_array::Result<[SparseIndices; 2]> {
    let n = [r.len()];
    Ok(match ty {
        IndexType::I32 => {
            let f = |x: &[i64]| x.iter().map(|&v| v as i32).collect::<Vec<_>>();
            [
                SparseIndices::I32(Array::from_slice(&f(r), &n)?),
                SparseIndices::I32(Array::from_slice(&f(c), &n)?),
            ]
        }
        IndexType::I64 => [
            SparseIndices::I64(Array::from_slice(r, &n)?),
            SparseIndices::I64(Array::from_slice(c, &n)?),
        ],
    })
}

/// Random triplets with many duplicates in both index types, as CSR and COO, against the
/// `BTreeMap` reference and against the host constructor `from_triplets`.
fn triplet_arrays_t<T: V>(d: Device) -> TestResult {
    with_device(d, || {
        let mut rng = Rng::fresh();
        for &(rows, cols, n) in &[
            (23, 17, 200),
            (40, 7, 90),
            (5, 33, 31),
            (1, 9, 12),
            (300, 2, 1000),
            (7, 7, 1),
        ] {
            let (r, c, v) = triplets::<T>(&mut rng, rows, cols, n);
            let want = reference(&r, &c, &v);
            let vals = Array::from_slice(&v, &[v.len()])?;
            for ty in [IndexType::I32, IndexType::I64] {
                let [ri, ci] = idx_arrays(&r, &c, ty)?;
                let a =
                    SparseArray::from_triplet_arrays([rows, cols], ri.clone(), ci.clone(), &vals)?;
                assert_eq!(
                    (a.format(), a.index_type(), a.device()),
                    (SparseFormat::Csr, IndexType::I32, d)
                );
                canonical(&a)?;
                same("from_triplet_arrays", &a, &want)?;
                let b = SparseArray::from_coo_arrays([rows, cols], ri, ci, &vals)?;
                assert_eq!(b.format(), SparseFormat::Coo);
                canonical(&b)?;
                same("from_coo_arrays", &b.to_csr()?, &want)?;
                // The host constructor adds in the same order.
                let h = SparseArray::from_triplets([rows, cols], &r, &c, &v)?;
                same("from_triplets", &h, &want)?;
            }
            // The product of the new matrix with a vector of ones: the row sums.
            let a = SparseArray::from_triplet_arrays(
                [rows, cols],
                Array::from_slice(&r, &[r.len()])?,
                Array::from_slice(&c, &[c.len()])?,
                &vals,
            )?;
            if rows > 0 && cols > 0 {
                let ones = Array::from_slice(&vec![T::one(); cols], &[cols])?;
                let y = a.spmv(&ones)?.to_vec()?;
                let mut sums = vec![C::new(0.0, 0.0); rows];
                let mut mags = vec![0.0f64; rows];
                for (&(i, _), s) in &want {
                    sums[i as usize] += s.to_c64();
                    mags[i as usize] += s.to_c64().norm();
                }
                for i in 0..rows {
                    let e = (y[i].to_c64() - sums[i]).norm();
                    let bound = 4.0 * cols as f64 * T::U * mags[i];
                    if e > bound {
                        return Err(format!("row sum {i}: error {e:e} > {bound:e}").into());
                    }
                }
            }
        }
        Ok(())
    })
}

fn triplet_arrays(d: Device) -> TestResult {
    triplet_arrays_t::<f32>(d)?;
    triplet_arrays_t::<f64>(d)?;
    triplet_arrays_t::<c32>(d)?;
    triplet_arrays_t::<c64>(d)
}

/// Runs longer than 256 entries (summed lane by lane): within the rounding of a sum of their
/// length of the f64 sum; every other position exact.
fn long_runs(d: Device) -> TestResult {
    with_device(d, || {
        let mut rng = Rng::fresh();
        let (rows, cols) = (9, 5);
        let (mut r, mut c, mut v) = (Vec::new(), Vec::new(), Vec::new());
        // 1000 entries at (4, 2), 257 at (0, 0), 256 at (8, 4), and a few single ones.
        for (i, j, k) in [
            (4i64, 2i64, 1000usize),
            (0, 0, 257),
            (8, 4, 256),
            (3, 1, 1),
            (5, 3, 2),
        ] {
            for _ in 0..k {
                r.push(i);
                c.push(j);
                v.push(rng.f32_in(-1.0, 1.0));
            }
        }
        for k in (1..v.len()).rev() {
            let o = (rng.next_u64() % (k as u64 + 1)) as usize;
            r.swap(k, o);
            c.swap(k, o);
            v.swap(k, o);
        }
        let vals = Array::from_slice(&v, &[v.len()])?;
        let a = SparseArray::from_triplet_arrays(
            [rows, cols],
            Array::from_slice(&r, &[r.len()])?,
            Array::from_slice(&c, &[c.len()])?,
            &vals,
        )?;
        canonical(&a)?;
        let exact = reference(&r, &c, &v);
        let mut f64sum: BTreeMap<(i64, i64), (f64, f64, usize)> = BTreeMap::new();
        for k in 0..v.len() {
            let e = f64sum.entry((r[k], c[k])).or_insert((0.0, 0.0, 0));
            e.0 += v[k] as f64;
            e.1 += (v[k] as f64).abs();
            e.2 += 1;
        }
        let got = csr_triplets(&a)?;
        assert_eq!(got.len(), exact.len());
        for ((pos, g), (wpos, (s, mag, count))) in got.iter().zip(&f64sum) {
            assert_eq!(pos, wpos);
            if *count <= 256 {
                assert_eq!(g.to_bits(), exact[pos].to_bits(), "position {pos:?}");
            } else {
                let bound = 2.0 * *count as f64 * f32::U * mag;
                let e = (*g as f64 - s).abs();
                assert!(e <= bound, "position {pos:?}: error {e:e} > {bound:e}");
            }
        }
        Ok(())
    })
}

/// No triplets, matrices with an empty extent, a single position, and shapes whose positions
/// do not fit 32 bits (the result takes 64-bit indices) or 64 bits (sorted in two passes).
fn edges(d: Device) -> TestResult {
    with_device(d, || {
        let none = Array::<i64>::from_slice(&[], &[0])?;
        let nov = Array::<f64>::from_slice(&[], &[0])?;
        for shape in [[0, 0], [0, 5], [5, 0], [4, 3]] {
            let a = SparseArray::from_triplet_arrays(shape, none.clone(), none.clone(), &nov)?;
            canonical(&a)?;
            assert_eq!(a.nnz(), 0);
            let off = a.offsets().ok_or("no offsets")?.to_i64().to_vec()?;
            assert_eq!(off, vec![0; shape[0] + 1]);
            assert_eq!(a.to_dense()?.to_vec()?, vec![0.0; shape[0] * shape[1]]);
            let b = SparseArray::from_coo_arrays(shape, none.clone(), none.clone(), &nov)?;
            assert_eq!((b.nnz(), b.format()), (0, SparseFormat::Coo));
        }
        // Every entry at one position: one stored element, the sum in input order.
        let v = [0.5f64, -0.25, 1.0, 2.0];
        let a = SparseArray::from_triplet_arrays(
            [3, 3],
            Array::from_slice(&[2i32; 4], &[4])?,
            Array::from_slice(&[1i32; 4], &[4])?,
            &Array::from_slice(&v, &[4])?,
        )?;
        assert_eq!(
            a.offsets().ok_or("no offsets")?.to_i64().to_vec()?,
            [0, 0, 0, 1]
        );
        assert_eq!(a.indices().to_i64().to_vec()?, [1]);
        assert_eq!(a.values().to_vec()?, [((0.5 - 0.25) + 1.0) + 2.0]);
        // Columns beyond 32 bits: 64-bit indices out; row-major positions still fit 64 bits.
        let wide = 1usize << 40;
        let (r, c) = (
            [2i64, 0, 2, 3, 0],
            [wide as i64 - 1, 7, wide as i64 - 1, 0, 1 << 35],
        );
        let v = [1.0f64, 2.0, 3.0, 4.0, 5.0];
        let vals = Array::from_slice(&v, &[5])?;
        for shape in [[4, wide], [3 + 1, 1 << 62]] {
            let a = SparseArray::from_triplet_arrays(
                shape,
                Array::from_slice(&r, &[5])?,
                Array::from_slice(&c, &[5])?,
                &vals,
            )?;
            assert_eq!(a.index_type(), IndexType::I64);
            same(&format!("shape {shape:?}"), &a, &reference(&r, &c, &v))?;
            let b = SparseArray::from_coo_arrays(
                shape,
                Array::from_slice(&r, &[5])?,
                Array::from_slice(&c, &[5])?,
                &vals,
            )?;
            assert_eq!(b.row_indices()?.to_vec()?, [0, 0, 2, 3]);
            assert_eq!(b.col_indices()?.to_vec()?, [7, 1 << 35, wide as i64 - 1, 0]);
            assert_eq!(b.values().to_vec()?, [2.0, 5.0, 4.0, 4.0]);
        }
        Ok(())
    })
}

/// Indices out of bounds (the first one named, whatever comes later), bad lengths and shapes.
fn bad_triplets(d: Device) -> TestResult {
    with_device(d, || {
        let v = Array::from_slice(&[1.0f32, 2.0, 3.0, 4.0], &[4])?;
        let i32s = |x: &[i32]| Array::from_slice(x, &[x.len()]);
        let i64s = |x: &[i64]| Array::from_slice(x, &[x.len()]);
        let cases: [(&[i64], &[i64], &str); 5] = [
            (
                &[0, 1, 2, 1],
                &[0, 1, 0, 1],
                "entry 2 at (2, 0) is out of bounds for shape [2, 3]",
            ),
            (
                &[0, 1, 1, 1],
                &[0, 3, 0, 9],
                "entry 1 at (1, 3) is out of bounds for shape [2, 3]",
            ),
            (
                &[0, 1, -1, 1],
                &[0, 1, 0, -5],
                "entry 2 at (-1, 0) is out of bounds",
            ),
            (
                &[0, 1, 1, 0],
                &[0, 1, 2, -1],
                "entry 3 at (0, -1) is out of bounds",
            ),
            (
                &[5, 5, 5, 5],
                &[0, 0, 0, 0],
                "entry 0 at (5, 0) is out of bounds",
            ),
        ];
        for (r, c, msg) in cases {
            assert_err(
                SparseArray::from_triplet_arrays([2, 3], i64s(r)?, i64s(c)?, &v),
                "InvalidArgument",
                msg,
            );
            let (r32, c32): (Vec<i32>, Vec<i32>) = (
                r.iter().map(|&x| x as i32).collect(),
                c.iter().map(|&x| x as i32).collect(),
            );
            assert_err(
                SparseArray::from_coo_arrays([2, 3], i32s(&r32)?, i32s(&c32)?, &v),
                "InvalidArgument",
                msg,
            );
        }
        // Any entry is out of bounds of an empty extent.
        assert_err(
            SparseArray::from_triplet_arrays([0, 3], i64s(&[0; 4])?, i64s(&[0; 4])?, &v),
            "InvalidArgument",
            "entry 0 at (0, 0) is out of bounds for shape [0, 3]",
        );
        assert_err(
            SparseArray::from_triplet_arrays([2, 3], i64s(&[0, 1, 1])?, i64s(&[0; 4])?, &v),
            "Shape",
            "row indices of shape [3] and column indices of shape [4] for 4 values",
        );
        let v2 = Array::from_slice(&[1.0f32, 2.0, 3.0, 4.0], &[2, 2])?;
        assert_err(
            SparseArray::from_triplet_arrays([2, 3], i64s(&[0; 4])?, i64s(&[0; 4])?, &v2),
            "Shape",
            "the values must be 1-D, not of shape [2, 2]",
        );
        assert_err(
            SparseArray::from_triplet_arrays([usize::MAX, 3], i64s(&[0; 4])?, i64s(&[0; 4])?, &v),
            "Shape",
            "exceeds the 64-bit index limit",
        );
        Ok(())
    })
}

/// COO keeps any shape within the index limit, but its compressed forms and products hold
/// host memory over an extent: converting a COO matrix of 2^60 rows to CSR, or of 2^60
/// columns to CSC, and a product whose row accumulator spans 2^60 columns, are `Err`s naming
/// the offsets or the accumulator, not aborted allocations (the host path).
fn huge_extents() -> TestResult {
    with_device(Device::CPU, || {
        let tall = SparseArray::from_coo([1 << 60, 2], &[0i64], &[1], &[1.0f64])?;
        assert_err(
            tall.to_format(SparseFormat::Csr),
            "InvalidArgument",
            "sparse Csr of shape [1152921504606846976, 2]: its offsets",
        );
        let wide = SparseArray::from_coo([2, 1 << 60], &[1i64], &[0], &[1.0f64])?;
        assert_err(wide.to_csc(), "InvalidArgument", "its offsets");
        let small = SparseArray::from_coo([1, 2], &[0i64], &[1], &[2.0f64])?;
        assert_err(
            small.matmul(&wide),
            "InvalidArgument",
            "a row's accumulator",
        );
        // The forms over the small extent still convert.
        assert_eq!(wide.to_csr()?.nnz(), 1);
        assert_eq!(tall.to_csc()?.nnz(), 1);
        Ok(())
    })
}

/// A `rows × cols` CSR matrix with `per_row` entries at distinct random columns in each row
/// (every fourth row empty), values in [-1, 1), and its dense f64 form.
fn rows_of<T: V>(
    rng: &mut Rng,
    rows: usize,
    cols: usize,
    per_row: usize,
) -> cuprite_array::Result<(SparseArray<T>, Vec<C>)> {
    let (mut r, mut c, mut v) = (Vec::new(), Vec::new(), Vec::new());
    for i in 0..rows {
        if i % 4 == 3 {
            continue;
        }
        let mut picked: Vec<usize> = Vec::new();
        while picked.len() < per_row.min(cols) {
            let j = rng.next_u64() as usize % cols;
            if !picked.contains(&j) {
                picked.push(j);
            }
        }
        for j in picked {
            r.push(i);
            c.push(j);
            v.push(T::draw(rng));
        }
    }
    let mut dense = vec![C::new(0.0, 0.0); rows * cols];
    for k in 0..v.len() {
        dense[r[k] * cols + c[k]] += v[k].to_c64();
    }
    Ok((SparseArray::from_triplets([rows, cols], &r, &c, &v)?, dense))
}

/// `got` against `alpha · op(A) · X + beta · Y0` in f64 for the dense `a` (`m × k` after
/// `op`, `trans` reading it transposed) and row-major `x` (`k × n`): each element within
/// `(len + 8) · 2u` of `Σ|a||x| · |alpha| + |beta · y0|`, `len` the row's length.
#[allow(clippy::too_many_arguments)]
fn product_close<T: V>(
    what: &str,
    got: &[T],
    a: &[C],
    (m, k, n): (usize, usize, usize),
    trans: bool,
    x: &[T],
    (alpha, beta): (f64, f64),
    y0: &[T],
) -> TestResult {
    assert_eq!(got.len(), m * n, "{what}: length");
    for i in 0..m {
        for col in 0..n {
            let (mut s, mut mag, mut len) = (C::new(0.0, 0.0), 0.0, 0usize);
            for p in 0..k {
                let aij = if trans { a[p * m + i] } else { a[i * k + p] };
                if aij.norm() != 0.0 {
                    let t = aij * x[p * n + col].to_c64();
                    s += t;
                    mag += t.norm();
                    len += 1;
                }
            }
            let y = y0[i * n + col].to_c64();
            let want = s * alpha + y * beta;
            let bound = (len + 8) as f64 * 2.0 * T::U * (mag * alpha.abs() + (y * beta).norm());
            let e = (got[i * n + col].to_c64() - want).norm();
            if e > bound {
                return Err(format!(
                    "{what}: element ({i}, {col}): got {}, want {want} (error {e:e} > {bound:e})",
                    got[i * n + col].to_c64()
                )
                .into());
            }
        }
    }
    Ok(())
}

/// SpMV and SpMM of CSR matrices (and of transposed CSC ones) with mean row lengths that pick
/// every sub-warp width, with `alpha`, `beta` and both index types, against f64 references.
fn products_t<T: V>(d: Device) -> TestResult {
    with_device(d, || {
        let mut rng = Rng::fresh();
        let (alpha, beta) = (0.5, -2.0);
        let (ta, tb) = (T::of(C::new(alpha, 0.0)), T::of(C::new(beta, 0.0)));
        // Every fourth row is empty: mean row lengths 0, 2, 6, 18 and 48 (SpMV: the CSR-stream
        // form with tiles of 4 entries a thread, two lanes a row twice, then lanes 16 and 32).
        for &(rows, cols, per_row) in &[
            (50, 40, 1),
            (64, 30, 3),
            (40, 100, 8),
            (33, 200, 24),
            (20, 300, 64),
        ] {
            let (a, dense) = rows_of::<T>(&mut rng, rows, cols, per_row)?;
            for ty in [IndexType::I32, IndexType::I64] {
                let a = a.with_index_type(ty)?;
                let x: Vec<T> = (0..cols).map(|_| T::draw(&mut rng)).collect();
                let y0: Vec<T> = (0..rows).map(|_| T::draw(&mut rng)).collect();
                let xa = Array::from_slice(&x, &[cols])?;
                let ya = Array::from_slice(&y0, &[rows])?;
                let y = a
                    .spmv_with(Transpose::None, ta, &xa, tb, Some(&ya))?
                    .to_vec()?;
                let dims = (rows, cols, 1);
                product_close("spmv", &y, &dense, dims, false, &x, (alpha, beta), &y0)?;
                let y = a.spmv(&xa)?.to_vec()?;
                product_close("spmv (1, 0)", &y, &dense, dims, false, &x, (1.0, 0.0), &y0)?;
                // Aᵀ·x through the CSC form (its arrays are the CSR arrays of Aᵀ).
                let t = a.to_csc()?;
                let xt: Vec<T> = (0..rows).map(|_| T::draw(&mut rng)).collect();
                let yt0: Vec<T> = (0..cols).map(|_| T::draw(&mut rng)).collect();
                let yt = t
                    .spmv_with(
                        Transpose::Trans,
                        ta,
                        &Array::from_slice(&xt, &[rows])?,
                        tb,
                        Some(&Array::from_slice(&yt0, &[cols])?),
                    )?
                    .to_vec()?;
                let tdims = (cols, rows, 1);
                product_close(
                    "csc spmv Aᵀ",
                    &yt,
                    &dense,
                    tdims,
                    true,
                    &xt,
                    (alpha, beta),
                    &yt0,
                )?;
                for n in [1, 3, 16, 33, 70] {
                    let b: Vec<T> = (0..cols * n).map(|_| T::draw(&mut rng)).collect();
                    let c0: Vec<T> = (0..rows * n).map(|_| T::draw(&mut rng)).collect();
                    let ba = Array::from_slice(&b, &[cols, n])?;
                    let ca = Array::from_slice(&c0, &[rows, n])?;
                    let c = a
                        .spmm_with(Transpose::None, ta, &ba, tb, Some(&ca))?
                        .to_vec()?;
                    let dims = (rows, cols, n);
                    product_close("spmm", &c, &dense, dims, false, &b, (alpha, beta), &c0)?;
                    // Fused onto later work: the product is an ordinary lazy array.
                    let c = (a.spmm(&ba)? * T::of(C::new(2.0, 0.0))).to_vec()?;
                    product_close("2·A·B", &c, &dense, dims, false, &b, (2.0, 0.0), &c0)?;
                }
            }
        }
        Ok(())
    })
}

fn products(d: Device) -> TestResult {
    products_t::<f32>(d)?;
    products_t::<f64>(d)
}

/// On a GPU: the CUDA result's components equal the CPU backend's bit for bit (runs short
/// and long, every value type), and triplets on another device are refused.
fn cuda_matches_cpu() -> TestResult {
    fn one<T: V>(rng: &mut Rng) -> TestResult {
        let (rows, cols, n) = (2000, 300, 60_000);
        let (mut r, mut c, mut v) = triplets::<T>(rng, rows, cols, n);
        for _ in 0..700 {
            r.push(11);
            c.push(13);
            v.push(T::draw(rng));
        }
        let on = |d: Device| -> Result<(Vec<i64>, Vec<i64>, Vec<C>), cuprite_array::Error> {
            let a = SparseArray::from_triplet_arrays(
                [rows, cols],
                Array::from_slice_on(d, &r, &[r.len()])?,
                Array::from_slice_on(d, &c, &[c.len()])?,
                &Array::from_slice_on(d, &v, &[v.len()])?,
            )?;
            let off = a
                .offsets()
                .ok_or(cuprite_array::Error::InvalidArgument("no offsets".into()))?;
            Ok((
                off.to_i64().to_vec()?,
                a.indices().to_i64().to_vec()?,
                a.values().to_vec()?.iter().map(|x| x.to_c64()).collect(),
            ))
        };
        let (g, h) = (on(Device::cuda(0))?, on(Device::CPU)?);
        assert_eq!(g.0, h.0, "offsets");
        assert_eq!(g.1, h.1, "indices");
        assert_eq!(g.2.len(), h.2.len());
        for (k, (x, y)) in g.2.iter().zip(&h.2).enumerate() {
            assert!(
                x.re.to_bits() == y.re.to_bits() && x.im.to_bits() == y.im.to_bits(),
                "value {k}: CUDA {x}, CPU {y}"
            );
        }
        Ok(())
    }
    let mut rng = Rng::fresh();
    one::<f32>(&mut rng)?;
    one::<f64>(&mut rng)?;
    one::<c32>(&mut rng)?;
    one::<c64>(&mut rng)?;
    let v = Array::from_slice_on(Device::CPU, &[1.0f32], &[1])?;
    let g = Array::from_slice_on(Device::cuda(0), &[0i32], &[1])?;
    assert_err(
        SparseArray::from_triplet_arrays([1, 1], g.clone(), g, &v),
        "DeviceMismatch",
        "the row indices are on",
    );
    Ok(())
}

/// On a GPU: SpMV and SpMM of CSR matrices (every form, both index types) give the CPU
/// backend's bits.
fn products_match_cpu() -> TestResult {
    fn one<T: V>(rng: &mut Rng) -> TestResult {
        // SpMV: the CSR-stream form (mean length 0), two lanes a row (mean length 3), lanes 16
        // and 32.
        for &(rows, cols, per_row) in &[
            (3000, 500, 1),
            (2000, 700, 5),
            (500, 4000, 40),
            (300, 2000, 60),
        ] {
            let (a, _) = with_device(Device::CPU, || rows_of::<T>(rng, rows, cols, per_row))?;
            let x: Vec<T> = (0..cols).map(|_| T::draw(rng)).collect();
            let y0: Vec<T> = (0..rows).map(|_| T::draw(rng)).collect();
            let (ta, tb) = (T::of(C::new(0.75, 0.0)), T::of(C::new(-1.5, 0.0)));
            for ty in [IndexType::I32, IndexType::I64] {
                for n in [None, Some(2), Some(16), Some(45)] {
                    let on = |d: Device| -> Result<Vec<C>, cuprite_array::Error> {
                        let a = a.to_device(d)?.with_index_type(ty)?;
                        let v = match n {
                            None => a.spmv_with(
                                Transpose::None,
                                ta,
                                &Array::from_slice_on(d, &x, &[cols])?,
                                tb,
                                Some(&Array::from_slice_on(d, &y0, &[rows])?),
                            )?,
                            Some(n) => {
                                let b: Vec<T> = x.iter().cycle().take(cols * n).copied().collect();
                                let c: Vec<T> = y0.iter().cycle().take(rows * n).copied().collect();
                                a.spmm_with(
                                    Transpose::None,
                                    ta,
                                    &Array::from_slice_on(d, &b, &[cols, n])?,
                                    tb,
                                    Some(&Array::from_slice_on(d, &c, &[rows, n])?),
                                )?
                            }
                        };
                        Ok(v.to_vec()?.iter().map(|z| z.to_c64()).collect())
                    };
                    let (g, h) = (on(Device::cuda(0))?, on(Device::CPU)?);
                    assert_eq!(g.len(), h.len());
                    for (k, (p, q)) in g.iter().zip(&h).enumerate() {
                        assert!(
                            p.re.to_bits() == q.re.to_bits(),
                            "{rows}x{cols}, {per_row} a row, {ty:?}, n {n:?}: element {k}: \
                             CUDA {p}, CPU {q}"
                        );
                    }
                }
            }
        }
        Ok(())
    }
    let mut rng = Rng::fresh();
    one::<f32>(&mut rng)?;
    one::<f64>(&mut rng)
}

/// On a GPU, alone (it switches the process between the two paths): the products through
/// cuSPARSE (`tuning::set_sparse_kernels(false)`: SpMM's CSR_ALG2, or the default where the
/// library refuses it) and through cuprite's kernels both meet the f64 reference.
fn kernels_and_cusparse() -> TestResult {
    struct Restore;
    impl Drop for Restore {
        fn drop(&mut self) {
            cuprite_array::tuning::set_sparse_kernels(true);
        }
    }
    let _restore = Restore;
    fn one<T: V>(rng: &mut Rng) -> TestResult {
        let (alpha, beta) = (0.5, -2.0);
        let (ta, tb) = (T::of(C::new(alpha, 0.0)), T::of(C::new(beta, 0.0)));
        for &(rows, cols, per_row) in &[(700, 300, 3), (200, 900, 40)] {
            let (a, dense) = rows_of::<T>(rng, rows, cols, per_row)?;
            for ty in [IndexType::I32, IndexType::I64] {
                let a = a.to_device(Device::cuda(0))?.with_index_type(ty)?;
                for n in [None, Some(1), Some(16), Some(45)] {
                    let k = n.unwrap_or(1);
                    let b: Vec<T> = (0..cols * k).map(|_| T::draw(rng)).collect();
                    let c0: Vec<T> = (0..rows * k).map(|_| T::draw(rng)).collect();
                    for kernels in [true, false] {
                        cuprite_array::tuning::set_sparse_kernels(kernels);
                        let got = with_device(Device::cuda(0), || match n {
                            None => a.spmv_with(
                                Transpose::None,
                                ta,
                                &Array::from_slice(&b, &[cols])?,
                                tb,
                                Some(&Array::from_slice(&c0, &[rows])?),
                            ),
                            Some(n) => a.spmm_with(
                                Transpose::None,
                                ta,
                                &Array::from_slice(&b, &[cols, n])?,
                                tb,
                                Some(&Array::from_slice(&c0, &[rows, n])?),
                            ),
                        })?
                        .to_vec()?;
                        let what = format!("kernels {kernels}, {ty:?}, n {n:?}");
                        let dims = (rows, cols, k);
                        product_close(&what, &got, &dense, dims, false, &b, (alpha, beta), &c0)?;
                    }
                }
            }
        }
        Ok(())
    }
    let mut rng = Rng::fresh();
    one::<f32>(&mut rng)?;
    one::<f64>(&mut rng)
}

/// A CSR matrix for the CSR-stream SpMV (mean row length below 16): offsets, columns and
/// `cols`, each row's columns distinct and ascending.
struct Csr {
    what: &'static str,
    rows: usize,
    cols: usize,
    off: Vec<i64>,
    idx: Vec<i64>,
}

/// Rows of the given lengths at distinct random columns below `cols`, ascending.
fn csr_of(what: &'static str, rng: &mut Rng, cols: usize, lens: &[usize]) -> Csr {
    let (mut off, mut idx) = (vec![0i64], Vec::new());
    for &len in lens {
        let mut picked: Vec<i64> = Vec::new();
        while picked.len() < len {
            let j = (rng.next_u64() % cols as u64) as i64;
            if !picked.contains(&j) {
                picked.push(j);
            }
        }
        picked.sort_unstable();
        idx.extend(picked);
        off.push(idx.len() as i64);
    }
    Csr {
        what,
        rows: lens.len(),
        cols,
        off,
        idx,
    }
}

/// The matrices of the short-row SpMV tests: the 5-point Laplacian of a 300 × 300 grid (two
/// lanes a row); random rows of 0 to 12 entries, 40% of them empty (two lanes); rows mostly
/// empty (mean length 0, the CSR-stream form's smallest tile); rows of 12 to 19 entries (mean
/// 15, its largest tile, which many blocks overflow); and one row of 100,000 entries among
/// 40,000 of 0 to 4 (two lanes) and among 40,000 of 8 to 12 (the CSR-stream form: its block
/// walks about 25 tiles).
fn stream_matrices(rng: &mut Rng) -> Vec<Csr> {
    let g = 300usize;
    let (mut off, mut idx) = (vec![0i64], Vec::new());
    for i in 0..g {
        for j in 0..g {
            let p = (i * g + j) as i64;
            let gi = g as i64;
            for (keep, q) in [
                (i > 0, p - gi),
                (j > 0, p - 1),
                (true, p),
                (j + 1 < g, p + 1),
                (i + 1 < g, p + gi),
            ] {
                if keep {
                    idx.push(q);
                }
            }
            off.push(idx.len() as i64);
        }
    }
    let laplacian = Csr {
        what: "Laplacian 300²",
        rows: g * g,
        cols: g * g,
        off,
        idx,
    };
    let mut draw = |n: usize, f: &mut dyn FnMut(u64) -> usize| -> Vec<usize> {
        (0..n).map(|_| f(rng.next_u64())).collect()
    };
    let short = draw(20_000, &mut |u| {
        if u % 10 < 4 {
            0
        } else {
            (u >> 8) as usize % 13
        }
    });
    let sparse = draw(9_000, &mut |u| {
        if u % 8 == 0 {
            1 + (u >> 8) as usize % 3
        } else {
            0
        }
    });
    let full = draw(6_000, &mut |u| 12 + (u >> 8) as usize % 8);
    let mut long = draw(40_000, &mut |u| u as usize % 5);
    long[17_321] = 0;
    let mut long12 = draw(40_000, &mut |u| 8 + u as usize % 5);
    long12[17_321] = 0;
    let mut out = vec![
        laplacian,
        csr_of("rows of 0 to 12", rng, 3000, &short),
        csr_of("mostly empty rows", rng, 500, &sparse),
        csr_of("rows of 12 to 19", rng, 7000, &full),
    ];
    // Row 17,321 takes columns 0, 1, 2, 3, 4, 6, ... (every fifth skipped) after the others'.
    let with_long_row = |mut m: Csr| {
        let at = m.off[17_321] as usize;
        let cols: Vec<i64> = (0..100_000i64).map(|i| i + i / 5).collect();
        m.idx.splice(at..at, cols);
        for o in &mut m.off[17_322..] {
            *o += 100_000;
        }
        m
    };
    out.push(with_long_row(csr_of(
        "one row of 100,000",
        rng,
        120_000,
        &long,
    )));
    out.push(with_long_row(csr_of(
        "one row of 100,000 among rows of 8 to 12",
        rng,
        120_000,
        &long12,
    )));
    out
}

/// SpMV of short rows (every matrix of `stream_matrices`, both index types, with and without an
/// initial value) against the sum this test computes in `T`, bit for bit, in the order the
/// forms document: each row's products `val[p] · x[idx[p]]` added from zero in ascending `p`
/// (the CSR-stream form), or, for a matrix of mean row length 2 to 7 (two lanes a row), the
/// products of even and of odd positions in the row each added from zero in ascending `p`,
/// then the even sum plus the odd one; then `alpha · sum + beta · y0`.
fn stream_products_t<T: V>(d: Device) -> TestResult {
    with_device(d, || {
        let mut rng = Rng::fresh();
        let (alpha, beta) = (T::of(C::new(0.75, 0.0)), T::of(C::new(-1.5, 0.0)));
        for m in stream_matrices(&mut rng) {
            let val: Vec<T> = m.idx.iter().map(|_| T::draw(&mut rng)).collect();
            let x: Vec<T> = (0..m.cols).map(|_| T::draw(&mut rng)).collect();
            let y0: Vec<T> = (0..m.rows).map(|_| T::draw(&mut rng)).collect();
            let lanes = if (2..8).contains(&(m.idx.len() / m.rows.max(1))) {
                2
            } else {
                1
            };
            let sums: Vec<T> = (0..m.rows)
                .map(|r| {
                    let (s, e) = (m.off[r] as usize, m.off[r + 1] as usize);
                    let lane = |l: usize| {
                        let mut acc = T::from_f64(0.0);
                        for p in (s + l..e).step_by(lanes) {
                            acc = acc + val[p] * x[m.idx[p] as usize];
                        }
                        acc
                    };
                    if lanes == 2 {
                        lane(0) + lane(1)
                    } else {
                        lane(0)
                    }
                })
                .collect();
            let a = SparseArray::from_csr([m.rows, m.cols], &m.off, &m.idx, &val)?;
            let xa = Array::from_slice(&x, &[m.cols])?;
            let ya = Array::from_slice(&y0, &[m.rows])?;
            for ty in [IndexType::I32, IndexType::I64] {
                let a = a.with_index_type(ty)?;
                for init in [true, false] {
                    let got = a
                        .spmv_with(Transpose::None, alpha, &xa, beta, init.then_some(&ya))?
                        .to_vec()?;
                    for r in 0..m.rows {
                        let t = alpha * sums[r];
                        let want = if init { t + beta * y0[r] } else { t };
                        let (g, w) = (got[r].to_c64().re, want.to_c64().re);
                        if g.to_bits() != w.to_bits() {
                            return Err(format!(
                                "{}, {ty:?}, initial value {init}: row {r} ({} entries): got \
                                 {g:e}, want {w:e}",
                                m.what,
                                m.off[r + 1] - m.off[r]
                            )
                            .into());
                        }
                    }
                }
                let got = a.spmv(&xa)?.to_vec()?;
                for r in 0..m.rows {
                    if got[r].to_c64().re.to_bits() != sums[r].to_c64().re.to_bits() {
                        return Err(format!("{}, {ty:?}, spmv: row {r}", m.what).into());
                    }
                }
            }
        }
        Ok(())
    })
}

fn stream_products(d: Device) -> TestResult {
    stream_products_t::<f32>(d)?;
    stream_products_t::<f64>(d)
}

/// On a GPU: the CSR-stream SpMV on CUDA gives the CPU backend's bits (every matrix of
/// `stream_matrices`, both value and index types, `alpha` and `beta` with and without an
/// initial value).
fn stream_products_match_cpu() -> TestResult {
    fn one<T: V>(rng: &mut Rng) -> TestResult {
        let (ta, tb) = (T::of(C::new(0.75, 0.0)), T::of(C::new(-1.5, 0.0)));
        for m in stream_matrices(rng) {
            let val: Vec<T> = m.idx.iter().map(|_| T::draw(rng)).collect();
            let x: Vec<T> = (0..m.cols).map(|_| T::draw(rng)).collect();
            let y0: Vec<T> = (0..m.rows).map(|_| T::draw(rng)).collect();
            let a = with_device(Device::CPU, || {
                SparseArray::from_csr([m.rows, m.cols], &m.off, &m.idx, &val)
            })?;
            for ty in [IndexType::I32, IndexType::I64] {
                for init in [true, false] {
                    let on = |d: Device| -> Result<Vec<f64>, cuprite_array::Error> {
                        let a = a.to_device(d)?.with_index_type(ty)?;
                        let y = Array::from_slice_on(d, &y0, &[m.rows])?;
                        let v = a.spmv_with(
                            Transpose::None,
                            ta,
                            &Array::from_slice_on(d, &x, &[m.cols])?,
                            tb,
                            init.then_some(&y),
                        )?;
                        Ok(v.to_vec()?.iter().map(|z| z.to_c64().re).collect())
                    };
                    let (g, h) = (on(Device::cuda(0))?, on(Device::CPU)?);
                    assert_eq!(g.len(), h.len());
                    for (k, (p, q)) in g.iter().zip(&h).enumerate() {
                        assert!(
                            p.to_bits() == q.to_bits(),
                            "{}, {ty:?}, initial value {init}: row {k}: CUDA {p:e}, CPU {q:e}",
                            m.what
                        );
                    }
                }
            }
        }
        Ok(())
    }
    let mut rng = Rng::fresh();
    one::<f32>(&mut rng)?;
    one::<f64>(&mut rng)
}

/// Square matrices for `spmv_dot`: the 300² Laplacian (352 blocks of the CSR-stream grid,
/// so that some threads add two blocks' partials), random rows of 0 to 12 entries, rows mostly
/// empty, rows of 12 to 19 entries (one kernel build per tile size), one row of 60,000 entries
/// among rows of 0 to 4, and one of 5 rows.
fn square_matrices(rng: &mut Rng) -> Vec<Csr> {
    let mut out = vec![stream_matrices(rng).swap_remove(0)];
    let mut draw = |n: usize, f: &mut dyn FnMut(u64) -> usize| -> Vec<usize> {
        (0..n).map(|_| f(rng.next_u64())).collect()
    };
    let short = draw(4_000, &mut |u| {
        if u % 10 < 4 {
            0
        } else {
            (u >> 8) as usize % 13
        }
    });
    let sparse = draw(3_000, &mut |u| usize::from(u % 8 == 0));
    let full = draw(2_000, &mut |u| 12 + (u >> 8) as usize % 8);
    let mut long = draw(70_000, &mut |u| u as usize % 5);
    long[1_234] = 0;
    let tiny = draw(5, &mut |u| u as usize % 4);
    // More rows than the two-lane form's grid covers at once (1,024 blocks of 128 rows): its
    // threads stride over the rest.
    let many = draw(300_000, &mut |u| 2 + u as usize % 4);
    for (what, lens) in [
        ("square, rows of 0 to 12", short),
        ("square, mostly empty rows", sparse),
        ("square, rows of 12 to 19", full),
        ("square, one row of 60,000", long),
        ("5 × 5", tiny),
        ("square, 300,000 rows of 2 to 5", many),
    ] {
        let n = lens.len();
        out.push(csr_of(what, rng, n, &lens));
    }
    // Row 1,234 of the long one takes columns 0 to 59,999.
    let m = &mut out[4];
    let at = m.off[1_234] as usize;
    m.idx.splice(at..at, 0..60_000i64);
    for o in &mut m.off[1_235..] {
        *o += 60_000;
    }
    out
}

/// `Σ y[r]·x[r]` in the order `spmv_dot` documents for its one-pass forms, for a matrix whose
/// mean row length is `mean`: 256 threads a block; each thread adds the products of the rows it
/// writes from zero, each block halves its 256 sums (`s[i] += s[i + h]`, `h` = 128 down to 1),
/// and the blocks' partials are added per thread (`t`, `t + 256`, ...) from zero and halved the
/// same way. Rows of mean length 2 to 7 take two lanes a row: a block for each 128 rows (at most
/// 1,024 blocks), the even thread `t` of block `b` writing rows `(256 b + t) / 32 · 16 + (t %
/// 32) / 2`, then every `128 · blocks` rows after it, the odd threads none; other short rows
/// take one thread a row: a block for each 256 rows, thread `t` of block `b` writing row
/// `256 b + t`.
fn kernel_order_dot<T: V + Float>(y: &[T], x: &[T], mean: usize) -> T {
    const B: usize = 256;
    let zero = T::of(C::new(0.0, 0.0));
    let paired = (2..8).contains(&mean);
    let halve = |mut v: Vec<T>| -> T {
        let mut h = B / 2;
        while h > 0 {
            for i in 0..h {
                v[i] = v[i] + v[i + h];
            }
            h /= 2;
        }
        v[0]
    };
    let blocks = if paired {
        (2 * y.len()).div_ceil(B).clamp(1, 1024)
    } else {
        y.len().div_ceil(B).max(1)
    };
    let thread_sum = |b: usize, t: usize| -> T {
        let (first, stride) = if paired {
            if t % 2 == 1 {
                return zero;
            }
            ((B * b + t) / 32 * 16 + (t % 32) / 2, B / 2 * blocks)
        } else {
            (B * b + t, B * blocks)
        };
        let mut acc = zero;
        for r in (first..y.len()).step_by(stride) {
            acc = acc + y[r] * x[r];
        }
        acc
    };
    let parts: Vec<T> = (0..blocks)
        .map(|b| halve((0..B).map(|t| thread_sum(b, t)).collect()))
        .collect();
    halve(
        (0..B)
            .map(|t| {
                let mut acc = zero;
                for p in parts.iter().skip(t).step_by(B) {
                    acc = acc + *p;
                }
                acc
            })
            .collect(),
    )
}

/// `spmv_dot` on square matrices: the product has `spmv`'s bits; the dot has the bits of the
/// documented one-pass order (CSR, both index types), and lies within the rounding bound
/// `2·n·u·Σ|y[r]·x[r]|` of the exact sum; a CSC matrix and a matrix of long rows (the two-pass
/// form) give the same product and a dot within that bound; a non-square matrix or a vector of
/// the wrong length is an `Err` naming the shapes.
fn stream_dot_t<T: V + Float>(d: Device) -> TestResult {
    with_device(d, || {
        let mut rng = Rng::fresh();
        let check_bound = |what: &str, got: T, y: &[T], x: &[T]| -> TestResult {
            let exact: f64 = y
                .iter()
                .zip(x)
                .map(|(a, b)| a.to_c64().re * b.to_c64().re)
                .sum();
            let mag: f64 = y
                .iter()
                .zip(x)
                .map(|(a, b)| (a.to_c64().re * b.to_c64().re).abs())
                .sum();
            let bound = 2.0 * y.len() as f64 * T::U * mag + f64::MIN_POSITIVE;
            let g = got.to_c64().re;
            if (g - exact).abs() > bound {
                return Err(format!("{what}: dot {g:e}, exact {exact:e}, bound {bound:e}").into());
            }
            Ok(())
        };
        for m in square_matrices(&mut rng) {
            let val: Vec<T> = m.idx.iter().map(|_| T::draw(&mut rng)).collect();
            let x: Vec<T> = (0..m.cols).map(|_| T::draw(&mut rng)).collect();
            let a = SparseArray::from_csr([m.rows, m.cols], &m.off, &m.idx, &val)?;
            let xa = Array::from_slice(&x, &[m.cols])?;
            for ty in [IndexType::I32, IndexType::I64] {
                let a = a.with_index_type(ty)?;
                let want_y = a.spmv(&xa)?.to_vec()?;
                let (y, dot) = a.spmv_dot(&xa)?;
                let (y, dot) = (y.to_vec()?, dot.item()?);
                assert_eq!(y.len(), m.rows);
                for r in 0..m.rows {
                    assert!(
                        y[r].to_c64().re.to_bits() == want_y[r].to_c64().re.to_bits(),
                        "{}, {ty:?}: row {r}: {:e} against spmv's {:e}",
                        m.what,
                        y[r].to_c64().re,
                        want_y[r].to_c64().re
                    );
                }
                let want = kernel_order_dot(&want_y, &x, m.idx.len() / m.rows.max(1));
                assert!(
                    dot.to_c64().re.to_bits() == want.to_c64().re.to_bits(),
                    "{}, {ty:?}: dot {:e}, in the documented order {:e}",
                    m.what,
                    dot.to_c64().re,
                    want.to_c64().re
                );
                check_bound(m.what, dot, &want_y, &x)?;
            }
            // The two-pass form: the CSC copy of the same matrix.
            let csc = a.to_format(SparseFormat::Csc)?;
            let (y, dot) = csc.spmv_dot(&xa)?;
            let y = y.to_vec()?;
            check_bound(&format!("{} (CSC)", m.what), dot.item()?, &y, &x)?;
        }
        // Rows of 20 entries (mean length 20: the sub-warp form, two passes).
        let n = 600;
        let lens = vec![20; n];
        let m = csr_of("rows of 20", &mut rng, n, &lens);
        let val: Vec<T> = m.idx.iter().map(|_| T::draw(&mut rng)).collect();
        let x: Vec<T> = (0..n).map(|_| T::draw(&mut rng)).collect();
        let a = SparseArray::from_csr([n, n], &m.off, &m.idx, &val)?;
        let xa = Array::from_slice(&x, &[n])?;
        let want_y = a.spmv(&xa)?.to_vec()?;
        let (y, dot) = a.spmv_dot(&xa)?;
        let y = y.to_vec()?;
        assert!(
            y.iter()
                .zip(&want_y)
                .all(|(p, q)| p.to_c64().re.to_bits() == q.to_c64().re.to_bits()),
            "rows of 20: the product differs from spmv's"
        );
        check_bound("rows of 20", dot.item()?, &want_y, &x)?;
        // Shapes.
        let wide = SparseArray::from_csr([2, 3], &[0, 1, 2], &[0, 2], &[val[0], val[1]])?;
        assert_err(
            wide.spmv_dot(&Array::from_slice(&x[..3], &[3])?),
            "Shape",
            "2 × 3",
        );
        assert_err(
            a.spmv_dot(&Array::from_slice(&x[..5], &[5])?),
            "Shape",
            "[5]",
        );
        Ok(())
    })
}

fn stream_dot(d: Device) -> TestResult {
    stream_dot_t::<f32>(d)?;
    stream_dot_t::<f64>(d)
}

/// On a GPU: `spmv_dot`'s product and dot on CUDA have the CPU backend's bits (the square
/// matrices of `stream_dot`, both value and index types).
fn stream_dot_matches_cpu() -> TestResult {
    fn one<T: V + Float>(rng: &mut Rng) -> TestResult {
        for m in square_matrices(rng) {
            let val: Vec<T> = m.idx.iter().map(|_| T::draw(rng)).collect();
            let x: Vec<T> = (0..m.cols).map(|_| T::draw(rng)).collect();
            let a = with_device(Device::CPU, || {
                SparseArray::from_csr([m.rows, m.cols], &m.off, &m.idx, &val)
            })?;
            for ty in [IndexType::I32, IndexType::I64] {
                let on = |d: Device| -> Result<(Vec<f64>, f64), cuprite_array::Error> {
                    let a = a.to_device(d)?.with_index_type(ty)?;
                    let (y, dot) = a.spmv_dot(&Array::from_slice_on(d, &x, &[m.cols])?)?;
                    Ok((
                        y.to_vec()?.iter().map(|z| z.to_c64().re).collect(),
                        dot.item()?.to_c64().re,
                    ))
                };
                let ((gy, gd), (hy, hd)) = (on(Device::cuda(0))?, on(Device::CPU)?);
                assert_eq!(gy.len(), hy.len());
                for (k, (p, q)) in gy.iter().zip(&hy).enumerate() {
                    assert!(
                        p.to_bits() == q.to_bits(),
                        "{}, {ty:?}: row {k}: CUDA {p:e}, CPU {q:e}",
                        m.what
                    );
                }
                assert!(
                    gd.to_bits() == hd.to_bits(),
                    "{}, {ty:?}: dot: CUDA {gd:e}, CPU {hd:e}",
                    m.what
                );
            }
        }
        Ok(())
    }
    let mut rng = Rng::fresh();
    one::<f32>(&mut rng)?;
    one::<f64>(&mut rng)
}

/// Plain conjugate gradients (no preconditioner: the residual step and `r·r` in one pass)
/// against conjugate gradients written here on the host in f64, on the tridiagonal `[-1, 4, -1]`
/// matrix of `n` rows: the same fixed number of iterations (tolerance 0) from `x = 0`, the
/// iterates equal within a bound on rounding, in f32 and f64; then a solve to a tolerance,
/// checked by its true residual.
fn plain_cg(d: Device) -> TestResult {
    fn host_cg(b: &[f64], iters: usize) -> Vec<f64> {
        let n = b.len();
        let apply = |v: &[f64]| -> Vec<f64> {
            (0..n)
                .map(|i| {
                    let left = if i > 0 { v[i - 1] } else { 0.0 };
                    let right = if i + 1 < n { v[i + 1] } else { 0.0 };
                    4.0 * v[i] - left - right
                })
                .collect()
        };
        let dotp = |a: &[f64], b: &[f64]| a.iter().zip(b).map(|(x, y)| x * y).sum::<f64>();
        let (mut x, mut r) = (vec![0.0; n], b.to_vec());
        let mut p = r.clone();
        let mut rr = dotp(&r, &r);
        for _ in 0..iters {
            let ap = apply(&p);
            let alpha = rr / dotp(&p, &ap);
            for i in 0..n {
                x[i] += alpha * p[i];
                r[i] -= alpha * ap[i];
            }
            let rr_new = dotp(&r, &r);
            for i in 0..n {
                p[i] = r[i] + rr_new / rr * p[i];
            }
            rr = rr_new;
        }
        x
    }
    fn one<T: cuprite_array::sparse::SparseValue + Float + cuprite_array::Transcendental>(
        rng: &mut Rng,
        n: usize,
        eps: f64,
    ) -> TestResult {
        let b: Vec<f64> = (0..n).map(|_| rng.f32_in(-1.0, 1.0) as f64).collect();
        let bt: Vec<T> = b.iter().map(|&v| T::from_f64(v)).collect();
        let b_used: Vec<f64> = bt.iter().map(|v| v.to_c64().re).collect();
        let off = vec![T::from_f64(-1.0); n.saturating_sub(1)];
        let a = SparseArray::diags(
            &[&off, &vec![T::from_f64(4.0); n], &off],
            &[-1, 0, 1],
            [n, n],
        )?;
        let ba = Array::from_slice(&bt, &[n])?;
        let iters = 12;
        let opts = SolveOpts::new().rtol(0.0).maxiter(iters).check_every(5);
        let got = cg_with(&a, &ba, opts)?;
        assert_eq!(got.iterations, iters);
        let want = host_cg(&b_used, iters);
        let scale = want.iter().fold(0.0f64, |m, v| m.max(v.abs()));
        for (i, (g, w)) in got.x.to_vec()?.iter().zip(&want).enumerate() {
            let g = g.to_c64().re;
            assert!(
                (g - w).abs() <= eps * scale,
                "n {n}, element {i}: {g:e} against the host's {w:e}"
            );
        }
        let tol = if eps > 1e-8 { 1e-5 } else { 1e-12 };
        let res = cg_with(&a, &ba, SolveOpts::new().rtol(tol).check_every(3))?;
        assert!(
            res.converged,
            "n {n}: residual {} after {}",
            res.residual, res.iterations
        );
        let x: Vec<f64> = res.x.to_vec()?.iter().map(|v| v.to_c64().re).collect();
        let (mut rr, mut bb) = (0.0f64, 0.0f64);
        for i in 0..n {
            let left = if i > 0 { x[i - 1] } else { 0.0 };
            let right = if i + 1 < n { x[i + 1] } else { 0.0 };
            let r = b_used[i] - (4.0 * x[i] - left - right);
            rr += r * r;
            bb += b_used[i] * b_used[i];
        }
        let rel = (rr / bb).sqrt();
        assert!(rel <= 4.0 * tol, "n {n}: true residual {rel:e}");
        Ok(())
    }
    with_device(d, || {
        let mut rng = Rng::fresh();
        // One block, a block and one, several thousand blocks.
        for n in [20, 257, 100_000] {
            one::<f64>(&mut rng, n, 1e-11)?;
            one::<f32>(&mut rng, n, 2e-4)?;
        }
        Ok(())
    })
}

/// On a GPU: the unpreconditioned CG step as one cooperative launch and as two launches
/// (`tuning::set_cg_fused`) gives the CPU backend's iterates bit for bit after 12 iterations on
/// the tridiagonal `[-1, 4, -1]`. The right-hand side holds small integers, so that the
/// solver's first `r·r` (a reduction whose order on CUDA may change from run to run) is exact
/// in any order; every later operation is one of the sparse calls, whose CUDA kernels and CPU
/// twins share their order. Sizes: ones the cooperative launch must take (its steps counted),
/// `2^20` (the most it takes, where the device holds its grid) and `2^20 + 1` (never: two
/// launches, none counted).
fn cg_step_matches_cpu() -> TestResult {
    fn solve<T: cuprite_array::sparse::SparseValue + Float + cuprite_array::Transcendental>(
        d: Device,
        b: &[T],
    ) -> Result<(Vec<T>, u64), cuprite_array::Error> {
        with_device(d, || {
            let n = b.len();
            let off = vec![T::from_f64(-1.0); n - 1];
            let a = SparseArray::diags(
                &[&off, &vec![T::from_f64(4.0); n], &off],
                &[-1, 0, 1],
                [n, n],
            )?;
            let ba = Array::from_slice(b, &[n])?;
            let before = cuprite_array::stats::thread_cooperative_cg_steps();
            let got = cg_with(
                &a,
                &ba,
                SolveOpts::new().rtol(0.0).maxiter(12).check_every(5),
            )?;
            let steps = cuprite_array::stats::thread_cooperative_cg_steps() - before;
            Ok((got.x.to_vec()?, steps))
        })
    }
    fn one<T: cuprite_array::sparse::SparseValue + Float + cuprite_array::Transcendental>(
        rng: &mut Rng,
        n: usize,
    ) -> TestResult {
        let b: Vec<T> = (0..n)
            .map(|_| T::from_f64((rng.next_u64() % 7) as f64 - 3.0))
            .collect();
        let (host, host_steps) = solve(Device::CPU, &b)?;
        assert_eq!(host_steps, 0, "the CPU backend counted cooperative steps");
        cuprite_array::tuning::set_cg_fused(false);
        let apart = solve(Device::cuda(0), &b);
        cuprite_array::tuning::set_cg_fused(true);
        let (apart, apart_steps) = apart?;
        let (fused, fused_steps) = solve(Device::cuda(0), &b)?;
        assert_eq!(
            apart_steps, 0,
            "n {n}: cooperative steps while switched off"
        );
        if n <= 100_000 {
            assert_eq!(fused_steps, 12, "n {n}: the cooperative step did not run");
        }
        if n > 1 << 20 {
            assert_eq!(fused_steps, 0, "n {n}: a cooperative step beyond its size");
        }
        for i in 0..n {
            let bits = |v: T| v.to_c64().re.to_bits();
            let (f, a, h) = (fused[i], apart[i], host[i]);
            assert!(
                bits(f) == bits(h) && bits(a) == bits(h),
                "n {n}, element {i}: {:e} in one launch, {:e} in two, {:e} on the CPU",
                f.to_c64().re,
                a.to_c64().re,
                h.to_c64().re
            );
        }
        Ok(())
    }
    let mut rng = Rng::fresh();
    for n in [20, 100_000, 1 << 20, (1 << 20) + 1] {
        one::<f64>(&mut rng, n)?;
    }
    one::<f32>(&mut rng, 100_000)
}

/// The run-sum kernels compile with NVRTC (no GPU): the sources the bodies would build on
/// CUDA, recorded by the dry-run backend.
fn sparse_kernels_compile() -> TestResult {
    cuprite_array::tuning::compiler::start_recording();
    let runs = [
        triplet_arrays(Device::CPU),
        long_runs(Device::CPU),
        products(Device::CPU),
        stream_products(Device::CPU),
        stream_dot(Device::CPU),
        plain_cg(Device::CPU),
    ];
    let sources: Vec<String> = cuprite_array::tuning::compiler::take_recorded()
        .into_iter()
        .filter(|s| s.contains("cuprite_sparse_"))
        .collect();
    for r in runs {
        r?;
    }
    for want in [
        "cuprite_sparse_run_sums_f32",
        "cuprite_sparse_run_sums_f64",
        "cuprite_sparse_spmv_stream_f32_i32_t4",
        "cuprite_sparse_spmv_stream_f64_i64_t4",
        "cuprite_sparse_spmv_f32_i64_s2",
        "cuprite_sparse_spmv_f64_i32_s2",
        "cuprite_sparse_spmv_f64_i32_s2_dot",
        "cuprite_sparse_spmv_f32_i64_s2_dot",
        "cuprite_sparse_spmv_stream_f32_i32_t16",
        "cuprite_sparse_spmv_stream_f64_i64_t16",
        "cuprite_sparse_spmv_stream_f32_i32_t4_dot",
        "cuprite_sparse_spmv_stream_f64_i64_t16_dot",
        "cuprite_sparse_spmv_stream_f32_i64_t16_dot",
        "cuprite_sparse_spmv_f64_i32_s16",
        "cuprite_sparse_spmv_f64_i64_s32",
        "cuprite_sparse_spmm_f32_i32_s1",
        "cuprite_sparse_spmm_f64_i64_s4",
        "cuprite_sparse_spmm_f32_i64_s16",
        "cuprite_sparse_spmm_f64_i32_s32",
        "cuprite_sparse_residual_step_f32",
        "cuprite_sparse_residual_step_f64",
        "cuprite_sparse_cg_update_f32",
        "cuprite_sparse_cg_fused_f64",
    ] {
        if !sources.iter().any(|s| s.contains(want)) {
            return Err(format!("{want} was not recorded ({} sources)", sources.len()).into());
        }
    }
    crate::codegen::compile_each(&sources)
}

const BODIES: &[(&str, Body)] = &[
    ("triplet_arrays", triplet_arrays),
    ("long_runs", long_runs),
    ("edges", edges),
    ("bad_triplets", bad_triplets),
    ("products", products),
    ("stream_products", stream_products),
    ("stream_dot", stream_dot),
    ("plain_cg", plain_cg),
];

pub fn tests() -> Vec<Test> {
    let mut v = vec![
        Test::cpu("cpu::sparse_device::huge_extents", huge_extents),
        Test::nvrtc("codegen::sparse_kernels_compile", sparse_kernels_compile),
        Test::gpu("cuda::sparse_device::cuda_matches_cpu", cuda_matches_cpu),
        Test::gpu(
            "cuda::sparse_device::products_match_cpu",
            products_match_cpu,
        ),
        Test::gpu(
            "cuda::sparse_device::stream_products_match_cpu",
            stream_products_match_cpu,
        ),
        Test::gpu(
            "cuda::sparse_device::stream_dot_matches_cpu",
            stream_dot_matches_cpu,
        ),
        Test::gpu_alone(
            "cuda::sparse_device::kernels_and_cusparse",
            kernels_and_cusparse,
        ),
        Test::gpu_alone(
            "cuda::sparse_device::cg_step_matches_cpu",
            cg_step_matches_cpu,
        ),
    ];
    for &(name, body) in BODIES {
        v.push(Test::cpu(
            format!("cpu::sparse_device::{name}"),
            move || body(Device::CPU),
        ));
        v.push(Test::gpu(
            format!("cuda::sparse_device::{name}"),
            move || body(Device::cuda(0)),
        ));
    }
    v
}
