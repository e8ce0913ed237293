//! Sparse arrays against dense `Complex<f64>` references computed here from the triplets the
//! test drew: construction checks (each malformed input an `Err` naming its position),
//! canonicalisation of unsorted input with duplicates, every conversion and component, the
//! products with every transpose, `alpha` and `beta` in every format and index type, sparse ×
//! sparse, sums, transposes and scalings, on random matrices with empty rows and on empty
//! matrices. Bodies run on every backend.
//!
//! Error bound of a product with inner dimension `k` in unit roundoff `u`:
//! `4·k·u·(|α|·Σ|a||x| + |β|·|y|) + u·|result|` elementwise (4 covers complex products).

#![allow(clippy::needless_range_loop)] // index loops mirror the formulas they check

use crate::common::{Body, assert_err};
use cuprite_array::sparse::{
    IndexType, Jacobi, SolveOpts, SparseArray, SparseFormat, SparseValue, Transpose, cg, cg_with,
};
use cuprite_array::{Array, Device, c32, c64, with_device};
use cuprite_testkit::{Rng, Test, TestResult};
use num_complex::Complex;

pub(crate) type C = Complex<f64>;

pub(crate) const FORMATS: [SparseFormat; 3] =
    [SparseFormat::Csr, SparseFormat::Csc, SparseFormat::Coo];
const OPS: [Transpose; 3] = [Transpose::None, Transpose::Trans, Transpose::ConjTrans];

/// A value type with its unit roundoff and a random draw (parts in [-1, 1), exact in f32).
pub(crate) trait V: SparseValue {
    const U: f64;
    fn draw(rng: &mut Rng) -> Self;
    fn of(z: C) -> Self;
}
impl V for f32 {
    const U: f64 = 1.0 / (1u64 << 24) as f64;
    fn draw(rng: &mut Rng) -> Self {
        rng.f32_in(-1.0, 1.0)
    }
    fn of(z: C) -> Self {
        z.re as f32
    }
}
impl V for f64 {
    const U: f64 = 1.0 / (1u64 << 53) as f64;
    fn draw(rng: &mut Rng) -> Self {
        rng.f32_in(-1.0, 1.0) as f64
    }
    fn of(z: C) -> Self {
        z.re
    }
}
impl V for c32 {
    const U: f64 = 1.0 / (1u64 << 24) as f64;
    fn draw(rng: &mut Rng) -> Self {
        c32::new(rng.f32_in(-1.0, 1.0), rng.f32_in(-1.0, 1.0))
    }
    fn of(z: C) -> Self {
        c32::new(z.re as f32, z.im as f32)
    }
}
impl V for c64 {
    const U: f64 = 1.0 / (1u64 << 53) as f64;
    fn draw(rng: &mut Rng) -> Self {
        c64::new(rng.f32_in(-1.0, 1.0) as f64, rng.f32_in(-1.0, 1.0) as f64)
    }
    fn of(z: C) -> Self {
        z
    }
}

/// Unique random triplets of a `rows × cols` matrix, in a shuffled order, with about
/// `density` of the positions set and every third row empty.
pub(crate) fn draw<T: V>(
    rng: &mut Rng,
    rows: usize,
    cols: usize,
    density: f64,
) -> (Vec<usize>, Vec<usize>, Vec<T>) {
    let mut t = Vec::new();
    for i in 0..rows {
        if i % 3 == 1 {
            continue;
        }
        for j in 0..cols {
            if (rng.next_u64() % 10_000) as f64 / 10_000.0 < density {
                t.push((i, j, T::draw(rng)));
            }
        }
    }
    for k in (1..t.len()).rev() {
        t.swap(k, (rng.next_u64() % (k as u64 + 1)) as usize);
    }
    (
        t.iter().map(|e| e.0).collect(),
        t.iter().map(|e| e.1).collect(),
        t.iter().map(|e| e.2).collect(),
    )
}

/// The dense reference (row-major, summing repeated positions in f64).
pub(crate) fn dense_ref<T: V>(
    rows: usize,
    cols: usize,
    r: &[usize],
    c: &[usize],
    v: &[T],
) -> Vec<C> {
    let mut d = vec![C::new(0.0, 0.0); rows * cols];
    for k in 0..v.len() {
        d[r[k] * cols + c[k]] += v[k].to_c64();
    }
    d
}

pub(crate) fn to_c<T: V>(v: &[T]) -> Vec<C> {
    v.iter().map(|x| x.to_c64()).collect()
}

pub(crate) fn check(what: &str, got: &[C], want: &[C], bound: &[f64]) -> TestResult {
    if got.len() != want.len() {
        return Err(format!("{what}: {} values, expected {}", got.len(), want.len()).into());
    }
    for k in 0..got.len() {
        let e = (got[k] - want[k]).norm();
        if e > bound[k] {
            return Err(format!(
                "{what}: element {k}: got {}, want {} (error {e:e} > {:e})",
                got[k], want[k], bound[k]
            )
            .into());
        }
    }
    Ok(())
}

pub(crate) fn exact(what: &str, got: &[C], want: &[C]) -> TestResult {
    check(what, got, want, &vec![0.0; want.len()])
}

/// Checks the invariants of the canonical form of `a` from its components.
pub(crate) fn canonical<T: V>(a: &SparseArray<T>) -> TestResult {
    let [rows, cols] = a.shape();
    let minor = a.indices().to_i64().to_vec()?;
    assert_eq!(minor.len(), a.nnz());
    match a.format() {
        SparseFormat::Coo => {
            let r = a.row_indices()?.to_vec()?;
            let pairs: Vec<(i64, i64)> = r.iter().copied().zip(minor.iter().copied()).collect();
            assert!(
                pairs.windows(2).all(|w| w[0] < w[1]),
                "COO not sorted/unique: {pairs:?}"
            );
            assert!(a.offsets().is_none());
        }
        f => {
            let off = a.offsets().ok_or("no offsets")?.to_i64().to_vec()?;
            let (n_major, n_minor) = if f == SparseFormat::Csr {
                (rows, cols)
            } else {
                (cols, rows)
            };
            assert_eq!(off.len(), n_major + 1);
            assert_eq!(off[0], 0);
            assert_eq!(off[n_major] as usize, a.nnz());
            for k in 0..n_major {
                let line = &minor[off[k] as usize..off[k + 1] as usize];
                assert!(
                    line.windows(2).all(|w| w[0] < w[1]),
                    "line {k} not sorted: {line:?}"
                );
                assert!(line.iter().all(|&x| (x as usize) < n_minor));
            }
        }
    }
    Ok(())
}

/// The dense form rebuilt from the components (`row_indices`, `col_indices`, `values`).
fn from_components<T: V>(a: &SparseArray<T>) -> Result<Vec<C>, cuprite_array::Error> {
    let [rows, cols] = a.shape();
    let r = a.row_indices()?.to_vec()?;
    let c = a.col_indices()?.to_vec()?;
    let v = a.values().to_vec()?;
    let r: Vec<usize> = r.iter().map(|&x| x as usize).collect();
    let c: Vec<usize> = c.iter().map(|&x| x as usize).collect();
    Ok(dense_ref(rows, cols, &r, &c, &v))
}

/// The shapes every body runs on: ordinary, tall, wide, one row, and empty ones.
pub(crate) const SHAPES: [(usize, usize, f64); 7] = [
    (23, 17, 0.2),
    (40, 7, 0.3),
    (5, 33, 0.25),
    (1, 9, 0.5),
    (0, 4, 0.5),
    (6, 0, 0.5),
    (8, 8, 0.0),
];

fn malformed_input(d: Device) -> TestResult {
    with_device(d, || {
        let v = [1.0f64, 2.0, 3.0];
        let csr = |o: &[i64], i: &[i64], v: &[f64]| SparseArray::from_csr([3, 4], o, i, v);
        assert_err(
            csr(&[1, 1, 2, 3], &[0, 1, 2], &v),
            "InvalidArgument",
            "offsets[0] = 1",
        );
        assert_err(
            csr(&[0, 2, 1, 3], &[0, 1, 2], &v),
            "InvalidArgument",
            "offsets[2] = 1 is below offsets[1] = 2",
        );
        assert_err(
            csr(&[0, 1, 2, 2], &[0, 1, 2], &v),
            "InvalidArgument",
            "offsets[3] = 2 but there are 3 values",
        );
        assert_err(
            csr(&[0, 1, 2], &[0, 1, 2], &v),
            "InvalidArgument",
            "3 offsets for 3 rows",
        );
        assert_err(
            csr(&[0, 1, 2, 3], &[0, 4, 2], &v),
            "InvalidArgument",
            "indices[1] = 4 (row 1) is out of bounds",
        );
        assert_err(
            csr(&[0, 2, 2, 3], &[3, 1, 0], &v),
            "InvalidArgument",
            "indices[1] = 1 (row 0) follows 3",
        );
        assert_err(
            csr(&[0, 2, 2, 3], &[1, 1, 0], &v),
            "InvalidArgument",
            "indices[1] = 1 (row 0) follows 1",
        );
        assert_err(
            csr(&[0, 1, 2, 3], &[0, -1, 2], &v),
            "InvalidArgument",
            "indices[1] = -1 is negative",
        );
        assert_err(
            csr(&[0, 1, 2, 3], &[0, 1], &v),
            "InvalidArgument",
            "2 column indices for 3 values",
        );
        let e = SparseArray::from_csc([4, 3], &[0, 1, 2, 3], &[0, 7, 2], &v);
        assert_err(
            e,
            "InvalidArgument",
            "indices[1] = 7 (column 1) is out of bounds for 4 rows",
        );
        let e = SparseArray::from_triplets([2, 2], &[0, 1, 2], &[0, 1, 0], &v);
        assert_err(
            e,
            "InvalidArgument",
            "entry 2 at (2, 0) is out of bounds for shape [2, 2]",
        );
        let e = SparseArray::from_coo([2, 2], &[0u32, 1], &[0, 1], &v);
        assert_err(
            e,
            "InvalidArgument",
            "2 row indices, 2 column indices and 3 values",
        );
        let e = SparseArray::<f64>::diags(&[&[1.0]], &[1], [3, 3]);
        assert_err(
            e,
            "Shape",
            "diagonal 0 (offset 1) has 1 element(s); in shape [3, 3] it holds 2",
        );
        let e = SparseArray::<f64>::diags(&[&[1.0], &[2.0]], &[2, 2], [3, 3]);
        assert_err(e, "InvalidArgument", "offset 2 given twice");
        let ok = SparseArray::from_csr([3, 4], &[0, 1, 1, 3], &[2, 0, 3], &v)?;
        exact(
            "from_csr",
            &to_c(&ok.to_dense()?.to_vec()?),
            &to_c(&[0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 0.0, 0.0, 2.0, 0.0, 0.0, 3.0]),
        )
    })
}

/// Unsorted triplets with repeated positions: summed and sorted by `from_triplets` and
/// `from_coo`; the values are small integers, so every sum is exact.
fn canonicalise(d: Device) -> TestResult {
    with_device(d, || {
        let mut rng = Rng::fresh();
        for &(rows, cols, density) in &SHAPES {
            let (mut r, mut c, mut v) = draw::<f64>(&mut rng, rows, cols, density);
            let v0 = v.clone();
            for k in 0..v0.len() / 2 {
                // Repeat a third of the positions with a new value.
                if k % 3 == 0 {
                    r.push(r[k]);
                    c.push(c[k]);
                    v.push(2.0);
                }
            }
            let v: Vec<f64> = v.iter().map(|x| (x * 8.0).round()).collect();
            let want = dense_ref(rows, cols, &r, &c, &v);
            let a = SparseArray::from_triplets([rows, cols], &r, &c, &v)?;
            let b = SparseArray::from_coo([rows, cols], &r, &c, &v)?;
            assert_eq!(
                (a.format(), b.format()),
                (SparseFormat::Csr, SparseFormat::Coo)
            );
            canonical(&a)?;
            canonical(&b)?;
            let unique = want.iter().filter(|z| z.norm() != 0.0).count();
            assert!(
                a.nnz() >= unique && a.nnz() <= v0.len(),
                "nnz {} for {unique} nonzeros",
                a.nnz()
            );
            exact("from_triplets", &to_c(&a.to_dense()?.to_vec()?), &want)?;
            exact("from_coo", &to_c(&b.to_dense()?.to_vec()?), &want)?;
        }
        Ok(())
    })
}

fn conversions_t<T: V>(d: Device) -> TestResult {
    with_device(d, || {
        let mut rng = Rng::fresh();
        for &(rows, cols, density) in &SHAPES {
            let (r, c, v) = draw::<T>(&mut rng, rows, cols, density);
            let want = dense_ref(rows, cols, &r, &c, &v);
            let a = SparseArray::from_triplets([rows, cols], &r, &c, &v)?;
            assert_eq!(a.nnz(), v.len());
            assert_eq!(a.device(), d);
            for f in FORMATS {
                let b = a.to_format(f)?;
                assert_eq!((b.format(), b.shape(), b.nnz()), (f, [rows, cols], v.len()));
                canonical(&b)?;
                exact(
                    &format!("to_dense {f:?}"),
                    &to_c(&b.to_dense()?.to_vec()?),
                    &want,
                )?;
                exact(&format!("components {f:?}"), &from_components(&b)?, &want)?;
                for g in FORMATS {
                    let back = b.to_format(g)?;
                    exact(
                        &format!("{f:?} -> {g:?}"),
                        &to_c(&back.to_dense()?.to_vec()?),
                        &want,
                    )?;
                }
                let wide = b.with_index_type(IndexType::I64)?;
                assert_eq!(
                    (b.index_type(), wide.index_type()),
                    (IndexType::I32, IndexType::I64)
                );
                canonical(&wide)?;
                exact("i64 indices", &to_c(&wide.to_dense()?.to_vec()?), &want)?;
            }
            // from_dense keeps exactly the nonzeros, or those above a threshold.
            let dense = a.to_dense()?;
            let back = SparseArray::from_dense(&dense, 0.0)?;
            assert_eq!(back.nnz(), want.iter().filter(|z| z.norm() != 0.0).count());
            exact("from_dense", &to_c(&back.to_dense()?.to_vec()?), &want)?;
            let t = 0.5;
            let big: Vec<C> = want
                .iter()
                .map(|&z| {
                    if T::of(z).magnitude() > t {
                        z
                    } else {
                        C::new(0.0, 0.0)
                    }
                })
                .collect();
            let cut = SparseArray::from_dense(&dense, t)?;
            exact(
                "from_dense threshold",
                &to_c(&cut.to_dense()?.to_vec()?),
                &big,
            )?;
        }
        Ok(())
    })
}

fn conversions(d: Device) -> TestResult {
    conversions_t::<f32>(d)?;
    conversions_t::<f64>(d)?;
    conversions_t::<c32>(d)?;
    conversions_t::<c64>(d)
}

fn eye_and_diags(d: Device) -> TestResult {
    with_device(d, || {
        for &(rows, cols) in &[(4usize, 4usize), (3, 5), (5, 2), (0, 3), (1, 1)] {
            for k in -5isize..=5 {
                let a = SparseArray::<f64>::eye_k([rows, cols], k)?;
                let got = a.to_dense()?.to_vec()?;
                for i in 0..rows {
                    for j in 0..cols {
                        let want = if j as isize - i as isize == k {
                            1.0
                        } else {
                            0.0
                        };
                        assert_eq!(
                            got[i * cols + j],
                            want,
                            "eye_k({rows}, {cols}, {k}) at ({i}, {j})"
                        );
                    }
                }
            }
        }
        let n = 6;
        let lap = SparseArray::diags(&[&[-1.0f64; 5], &[2.0; 6], &[-1.0; 5]], &[-1, 0, 1], [n, n])?;
        let got = lap.to_dense()?.to_vec()?;
        for i in 0..n {
            for j in 0..n {
                let want = match i as isize - j as isize {
                    0 => 2.0,
                    1 | -1 => -1.0,
                    _ => 0.0,
                };
                assert_eq!(got[i * n + j], want, "laplacian ({i}, {j})");
            }
        }
        assert_eq!(SparseArray::<c64>::eye(3)?.nnz(), 3);
        Ok(())
    })
}

/// The reference of `alpha · op(A) · B + beta · C` and its error bound.
#[allow(clippy::too_many_arguments)]
fn product_ref<T: V>(
    a: &[C],
    rows: usize,
    cols: usize,
    op: Transpose,
    alpha: C,
    b: &[C],
    n: usize,
    beta: C,
    c: Option<&[C]>,
) -> (Vec<C>, Vec<f64>) {
    let (m, k) = if op == Transpose::None {
        (rows, cols)
    } else {
        (cols, rows)
    };
    let at = |i: usize, q: usize| match op {
        Transpose::None => a[i * cols + q],
        Transpose::Trans => a[q * cols + i],
        Transpose::ConjTrans => a[q * cols + i].conj(),
    };
    let (mut want, mut bound) = (vec![C::new(0.0, 0.0); m * n], vec![0.0; m * n]);
    for i in 0..m {
        for j in 0..n {
            let (mut acc, mut mag) = (C::new(0.0, 0.0), 0.0);
            for q in 0..k {
                acc += at(i, q) * b[q * n + j];
                mag += (at(i, q) * b[q * n + j]).norm();
            }
            let cz = c.map_or(C::new(0.0, 0.0), |c| c[i * n + j]);
            let w = alpha * acc + beta * cz;
            want[i * n + j] = w;
            bound[i * n + j] =
                4.0 * (k as f64 + 2.0) * T::U * (alpha.norm() * mag + beta.norm() * cz.norm())
                    + 2.0 * T::U * w.norm();
        }
    }
    (want, bound)
}

fn products_t<T: V>(d: Device) -> TestResult {
    with_device(d, || {
        let mut rng = Rng::fresh();
        for &(rows, cols, density) in &SHAPES {
            let (r, c, v) = draw::<T>(&mut rng, rows, cols, density);
            let ad = dense_ref(rows, cols, &r, &c, &v);
            let a = SparseArray::from_triplets([rows, cols], &r, &c, &v)?;
            for f in FORMATS {
                for index in [IndexType::I32, IndexType::I64] {
                    let a = a.to_format(f)?.with_index_type(index)?;
                    for op in OPS {
                        let (m, k) = if op == Transpose::None {
                            (rows, cols)
                        } else {
                            (cols, rows)
                        };
                        let what = format!("{f:?} {index:?} {op:?} {rows}x{cols}");
                        // SpMV, plain and with alpha, beta, y.
                        let x: Vec<T> = (0..k).map(|_| T::draw(&mut rng)).collect();
                        let y: Vec<T> = (0..m).map(|_| T::draw(&mut rng)).collect();
                        let xa = Array::from_slice(&x, &[k])?;
                        let ya = Array::from_slice(&y, &[m])?;
                        let (alpha, beta) = (T::of(C::new(1.5, -0.5)), T::of(C::new(-0.75, 0.25)));
                        let (ac, bc) = (alpha.to_c64(), beta.to_c64());
                        let one = C::new(1.0, 0.0);
                        let zero = C::new(0.0, 0.0);
                        if op == Transpose::None {
                            let (w, bd) = product_ref::<T>(
                                &ad,
                                rows,
                                cols,
                                op,
                                one,
                                &to_c(&x),
                                1,
                                zero,
                                None,
                            );
                            check(
                                &format!("spmv {what}"),
                                &to_c(&a.spmv(&xa)?.to_vec()?),
                                &w,
                                &bd,
                            )?;
                        }
                        let got = a.spmv_with(op, alpha, &xa, beta, Some(&ya))?.to_vec()?;
                        let (w, bd) = product_ref::<T>(
                            &ad,
                            rows,
                            cols,
                            op,
                            ac,
                            &to_c(&x),
                            1,
                            bc,
                            Some(&to_c(&y)),
                        );
                        check(&format!("spmv_with {what}"), &to_c(&got), &w, &bd)?;
                        // beta = 0: y is not read (NaN in it does not show).
                        if m > 0 {
                            let mut yn = y.clone();
                            yn[0] = T::of(C::new(f64::NAN, 0.0));
                            let yna = Array::from_slice(&yn, &[m])?;
                            let zero_t = T::of(zero);
                            let got = a.spmv_with(op, alpha, &xa, zero_t, Some(&yna))?.to_vec()?;
                            let (w, bd) =
                                product_ref::<T>(&ad, rows, cols, op, ac, &to_c(&x), 1, zero, None);
                            check(&format!("spmv beta=0 {what}"), &to_c(&got), &w, &bd)?;
                        }
                        // SpMM with 3 columns.
                        let n = 3;
                        let b: Vec<T> = (0..k * n).map(|_| T::draw(&mut rng)).collect();
                        let cm: Vec<T> = (0..m * n).map(|_| T::draw(&mut rng)).collect();
                        let ba = Array::from_slice(&b, &[k, n])?;
                        let ca = Array::from_slice(&cm, &[m, n])?;
                        let got = a.spmm_with(op, alpha, &ba, beta, Some(&ca))?.to_vec()?;
                        let (w, bd) = product_ref::<T>(
                            &ad,
                            rows,
                            cols,
                            op,
                            ac,
                            &to_c(&b),
                            n,
                            bc,
                            Some(&to_c(&cm)),
                        );
                        check(&format!("spmm_with {what}"), &to_c(&got), &w, &bd)?;
                        if op == Transpose::None {
                            let got = a.spmm(&ba)?.to_vec()?;
                            let (w, bd) = product_ref::<T>(
                                &ad,
                                rows,
                                cols,
                                op,
                                one,
                                &to_c(&b),
                                n,
                                zero,
                                None,
                            );
                            check(&format!("spmm {what}"), &to_c(&got), &w, &bd)?;
                        }
                    }
                }
            }
        }
        Ok(())
    })
}

fn products_f32(d: Device) -> TestResult {
    products_t::<f32>(d)
}
fn products_f64(d: Device) -> TestResult {
    products_t::<f64>(d)
}
fn products_complex(d: Device) -> TestResult {
    products_t::<c32>(d)?;
    products_t::<c64>(d)
}

/// The dense result of a product fuses into later element-wise work like any array.
fn product_result_is_an_array(d: Device) -> TestResult {
    with_device(d, || {
        let a = SparseArray::diags(&[&[2.0f64, 3.0, 4.0]], &[0], [3, 3])?;
        let x = Array::from_slice(&[1.0, 1.0, 1.0], &[3])?;
        let y = a.spmv(&x)?.try_add(1.0)?.try_mul(2.0)?;
        assert_eq!(y.to_vec()?, [6.0, 8.0, 10.0]);
        Ok(())
    })
}

fn matmul_t<T: V>(d: Device) -> TestResult {
    with_device(d, || {
        let mut rng = Rng::fresh();
        let dims = [
            (9usize, 7usize, 11usize, 0.3),
            (15, 20, 6, 0.15),
            (0, 4, 3, 0.5),
            (4, 0, 3, 0.5),
            (5, 5, 5, 0.0),
        ];
        for &(m, k, n, density) in &dims {
            let (ra, ca, va) = draw::<T>(&mut rng, m, k, density);
            let (rb, cb, vb) = draw::<T>(&mut rng, k, n, density);
            let (ad, bd) = (
                dense_ref(m, k, &ra, &ca, &va),
                dense_ref(k, n, &rb, &cb, &vb),
            );
            let (want, bound) = product_ref::<T>(
                &ad,
                m,
                k,
                Transpose::None,
                C::new(1.0, 0.0),
                &bd,
                n,
                C::new(0.0, 0.0),
                None,
            );
            let a = SparseArray::from_triplets([m, k], &ra, &ca, &va)?;
            let b = SparseArray::from_triplets([k, n], &rb, &cb, &vb)?;
            for (fa, fb) in [
                (SparseFormat::Csr, SparseFormat::Csr),
                (SparseFormat::Coo, SparseFormat::Csc),
            ] {
                for index in [IndexType::I32, IndexType::I64] {
                    let a = a.to_format(fa)?.with_index_type(index)?;
                    let b = b.to_format(fb)?;
                    let c = a.matmul(&b)?;
                    assert_eq!((c.format(), c.shape()), (SparseFormat::Csr, [m, n]));
                    canonical(&c)?;
                    let what = format!("matmul {m}x{k}x{n} {fa:?}·{fb:?} {index:?}");
                    check(&what, &to_c(&c.to_dense()?.to_vec()?), &want, &bound)?;
                }
            }
        }
        Ok(())
    })
}

fn matmul(d: Device) -> TestResult {
    matmul_t::<f64>(d)?;
    matmul_t::<f32>(d)?;
    matmul_t::<c64>(d)
}

fn add_transpose_scale(d: Device) -> TestResult {
    with_device(d, || {
        let mut rng = Rng::fresh();
        for &(rows, cols, density) in &SHAPES {
            let (r1, c1, v1) = draw::<f64>(&mut rng, rows, cols, density);
            let (r2, c2, v2) = draw::<f64>(&mut rng, rows, cols, density);
            let (d1, d2) = (
                dense_ref(rows, cols, &r1, &c1, &v1),
                dense_ref(rows, cols, &r2, &c2, &v2),
            );
            let a = SparseArray::from_triplets([rows, cols], &r1, &c1, &v1)?;
            let b = SparseArray::from_triplets([rows, cols], &r2, &c2, &v2)?;
            for f in FORMATS {
                let af = a.to_format(f)?;
                // Sums of two f32-exact values are exact in f64.
                let s = af.add(&b)?;
                assert_eq!(s.format(), f);
                canonical(&s)?;
                let want: Vec<C> = d1.iter().zip(&d2).map(|(x, y)| x + y).collect();
                exact(
                    &format!("add {f:?}"),
                    &to_c(&s.to_dense()?.to_vec()?),
                    &want,
                )?;
                let t = af.transpose()?;
                assert_eq!(t.shape(), [cols, rows]);
                canonical(&t)?;
                let mut tw = vec![C::new(0.0, 0.0); rows * cols];
                for i in 0..rows {
                    for j in 0..cols {
                        tw[j * rows + i] = d1[i * cols + j];
                    }
                }
                exact(
                    &format!("transpose {f:?}"),
                    &to_c(&t.to_dense()?.to_vec()?),
                    &tw,
                )?;
                // Scalings by powers of two are exact.
                let dr: Vec<f64> = (0..rows).map(|i| [0.5, 2.0, -4.0][i % 3]).collect();
                let dc: Vec<f64> = (0..cols).map(|j| [8.0, -0.25][j % 2]).collect();
                let sr = af.scale_rows(&Array::from_slice(&dr, &[rows])?)?;
                let sc = af.scale_cols(&Array::from_slice(&dc, &[cols])?)?;
                let s3 = af.scale(-2.0)?;
                let (mut wr, mut wc) = (d1.clone(), d1.clone());
                for i in 0..rows {
                    for j in 0..cols {
                        wr[i * cols + j] *= dr[i];
                        wc[i * cols + j] *= dc[j];
                    }
                }
                exact("scale_rows", &to_c(&sr.to_dense()?.to_vec()?), &wr)?;
                exact("scale_cols", &to_c(&sc.to_dense()?.to_vec()?), &wc)?;
                let w3: Vec<C> = d1.iter().map(|z| z * -2.0).collect();
                exact("scale", &to_c(&s3.to_dense()?.to_vec()?), &w3)?;
            }
        }
        Ok(())
    })
}

fn bad_operands(d: Device) -> TestResult {
    with_device(d, || {
        let a = SparseArray::from_triplets([3, 2], &[0, 2], &[1, 0], &[1.0f64, 2.0])?;
        let x3 = Array::from_slice(&[1.0f64; 3], &[3])?;
        let x2 = Array::from_slice(&[1.0f64; 2], &[2])?;
        assert_err(a.spmv(&x3), "Shape", "x has shape [3] (expected [2])");
        assert_err(
            a.spmv_with(Transpose::Trans, 1.0, &x2, 0.0, None),
            "Shape",
            "x has shape [2] (expected [3])",
        );
        assert_err(
            a.spmv_with(Transpose::None, 1.0, &x2, 1.0, Some(&x2)),
            "Shape",
            "y has shape [2] (expected [3])",
        );
        let b = Array::from_slice(&[1.0f64; 6], &[3, 2])?;
        assert_err(a.spmm(&b), "Shape", "B has shape [3, 2] (expected [2, n])");
        assert_err(a.matmul(&a), "Shape", "inner sizes differ");
        assert_err(
            a.add(&a.transpose()?),
            "Shape",
            "shapes [3, 2] and [2, 3] differ",
        );
        assert_err(a.scale_rows(&x2), "Shape", "need a scale of shape [3]");
        assert_err(a.with_values(x3.clone()), "Shape", "2 stored elements");
        assert_err(
            SparseArray::from_dense(&x3, 0.0),
            "Shape",
            "needs a 2-D array",
        );
        Ok(())
    })
}

/// `‖b − A·x‖ / ‖b‖` in f64 from the dense reference of A.
pub(crate) fn rel_residual(ad: &[C], n: usize, x: &[C], b: &[C]) -> f64 {
    let (mut rr, mut bb) = (0.0, 0.0);
    for i in 0..n {
        let mut ax = C::new(0.0, 0.0);
        for j in 0..n {
            ax += ad[i * n + j] * x[j];
        }
        rr += (b[i] - ax).norm_sqr();
        bb += b[i].norm_sqr();
    }
    (rr / bb).sqrt()
}

/// The 5-point Laplacian of a `g × g` grid (Dirichlet boundary) as triplets.
pub(crate) fn laplacian(g: usize) -> (Vec<usize>, Vec<usize>, Vec<f64>) {
    let (mut r, mut c, mut v) = (vec![], vec![], vec![]);
    for i in 0..g {
        for j in 0..g {
            let p = i * g + j;
            let mut put = |q: usize, x: f64| {
                r.push(p);
                c.push(q);
                v.push(x);
            };
            put(p, 4.0);
            if i > 0 {
                put(p - g, -1.0);
            }
            if i + 1 < g {
                put(p + g, -1.0);
            }
            if j > 0 {
                put(p - 1, -1.0);
            }
            if j + 1 < g {
                put(p + 1, -1.0);
            }
        }
    }
    (r, c, v)
}

fn cg_laplacian(d: Device) -> TestResult {
    with_device(d, || {
        let mut rng = Rng::fresh();
        let g = 12;
        let n = g * g;
        let (r, c, v) = laplacian(g);
        let ad = dense_ref(n, n, &r, &c, &v);
        let b: Vec<f64> = (0..n).map(|_| f64::draw(&mut rng)).collect();
        let ba = Array::from_slice(&b, &[n])?;
        for f in FORMATS {
            let a = SparseArray::from_triplets([n, n], &r, &c, &v)?.to_format(f)?;
            let m = Jacobi::new(&a)?;
            for (jacobi, check_every) in [(false, 1), (true, 1), (false, 7)] {
                let mut opts = SolveOpts::new()
                    .rtol(1e-10)
                    .maxiter(500)
                    .check_every(check_every);
                if jacobi {
                    opts = opts.preconditioner(&m);
                }
                let res = cg_with(&a, &ba, opts)?;
                let what = format!("cg {f:?} jacobi={jacobi} every={check_every}");
                assert!(
                    res.converged,
                    "{what}: residual {} after {}",
                    res.residual, res.iterations
                );
                assert!(res.iterations <= n, "{what}: {} iterations", res.iterations);
                let rel = rel_residual(&ad, n, &to_c(&res.x.to_vec()?), &to_c(&b));
                assert!(rel <= 1e-9, "{what}: true residual {rel:e}");
            }
        }
        // A good start converges at once; a start elsewhere converges too.
        let a = SparseArray::from_triplets([n, n], &r, &c, &v)?;
        let opts = || SolveOpts::new().rtol(1e-10).check_every(1);
        let x = cg_with(&a, &ba, opts())?.x;
        let again = cg_with(&a, &ba, opts().rtol(1e-8).x0(&x))?;
        assert_eq!((again.iterations, again.converged), (0, true));
        let x0 = Array::from_slice(&vec![1.0; n], &[n])?;
        let from_ones = cg_with(&a, &ba, opts().x0(&x0))?;
        let rel = rel_residual(&ad, n, &to_c(&from_ones.x.to_vec()?), &to_c(&b));
        assert!(from_ones.converged && rel <= 1e-9, "from ones: {rel:e}");
        // Too few iterations: not converged, not an error.
        let short = cg_with(&a, &ba, opts().maxiter(2))?;
        assert!(!short.converged && short.iterations == 2 && short.residual > 1e-10);
        // SciPy's defaults converge too.
        assert!(cg(&a, &ba)?.converged);
        Ok(())
    })
}

/// `BᵀB + I` for a random sparse `B`, in f32, solved to a tolerance f32 can reach.
fn cg_random_spd(d: Device) -> TestResult {
    with_device(d, || {
        let mut rng = Rng::fresh();
        let n = 40;
        let (r, c, v) = draw::<f64>(&mut rng, n, n, 0.1);
        let bd = dense_ref(n, n, &r, &c, &v);
        let mut ad = vec![0.0f32; n * n];
        for i in 0..n {
            for j in 0..n {
                let mut s: f64 = if i == j { 1.0 } else { 0.0 };
                for k in 0..n {
                    s += (bd[k * n + i] * bd[k * n + j]).re;
                }
                ad[i * n + j] = s as f32;
            }
        }
        let a = SparseArray::from_dense(&Array::from_slice(&ad, &[n, n])?, 0.0)?;
        let b: Vec<f32> = (0..n).map(|_| f32::draw(&mut rng)).collect();
        let m = Jacobi::new(&a)?;
        let res = cg_with(
            &a,
            &Array::from_slice(&b, &[n])?,
            SolveOpts::new().rtol(1e-5).preconditioner(&m),
        )?;
        assert!(
            res.converged,
            "residual {} after {}",
            res.residual, res.iterations
        );
        let rel = rel_residual(&to_c(&ad), n, &to_c(&res.x.to_vec()?), &to_c(&b));
        assert!(rel <= 1e-4, "true residual {rel:e}");
        Ok(())
    })
}

fn cg_bad_input(d: Device) -> TestResult {
    with_device(d, || {
        let a = SparseArray::from_triplets([2, 3], &[0], &[0], &[1.0f64])?;
        let b2 = Array::from_slice(&[1.0f64, 1.0], &[2])?;
        assert_err(cg(&a, &b2), "Shape", "must be square");
        let a = SparseArray::from_triplets([2, 2], &[0, 1], &[0, 0], &[1.0f64, 1.0])?;
        assert_err(Jacobi::new(&a), "InvalidArgument", "A[1, 1] is zero");
        let b3 = Array::from_slice(&[1.0f64; 3], &[3])?;
        assert_err(cg(&a, &b3), "Shape", "b has shape [3]");
        assert_err(
            cg_with(&a, &b2, SolveOpts::new().check_every(0)),
            "InvalidArgument",
            "check_every = 0",
        );
        Ok(())
    })
}

const BODIES: &[(&str, Body)] = &[
    ("cg_laplacian", cg_laplacian),
    ("cg_random_spd", cg_random_spd),
    ("cg_bad_input", cg_bad_input),
    ("malformed_input", malformed_input),
    ("canonicalise", canonicalise),
    ("conversions", conversions),
    ("eye_and_diags", eye_and_diags),
    ("products_f32", products_f32),
    ("products_f64", products_f64),
    ("products_complex", products_complex),
    ("product_result_is_an_array", product_result_is_an_array),
    ("matmul", matmul),
    ("add_transpose_scale", add_transpose_scale),
    ("bad_operands", bad_operands),
];

pub fn tests() -> Vec<Test> {
    let mut v = Vec::new();
    for &(name, body) in BODIES {
        v.push(Test::cpu(format!("cpu::sparse::{name}"), move || {
            body(Device::CPU)
        }));
        v.push(Test::gpu(format!("cuda::sparse::{name}"), move || {
            body(Device::cuda(0))
        }));
    }
    v
}
