//! cuSPARSE: SpMV, SpMM and SpGEMM in every format, index type and transpose against an f64
//! product computed here on the host from the very values stored on the device, on random
//! matrices with empty rows; the COO → CSR and CSR → CSC conversions against host
//! conversions; the length checks; and a missing library as an `Err` listing where it looked.
//!
//! Error bound of a product with inner dimension `k` in unit roundoff `u`:
//! `2·k·u·(|α|·|A||x| + |β|·|y|)` elementwise, plus `u·|y|` for the final rounding.

use cuprite_driver::blas::Transpose;
use cuprite_driver::sparse::{Format, SpMat, Sparse, SparseElement, SparseIndex};
use cuprite_driver::{Context, DeviceBuffer, Error, Stream};
use cuprite_testkit::{CHILD_LIMIT, OutputWithin, Rng, Test, TestResult, temp_dir};
use num_complex::Complex;
use std::sync::Arc;

pub fn tests() -> Vec<Test> {
    vec![
        Test::cpu(
            "sparse::missing_cusparse_lists_where_it_looked",
            missing_library,
        ),
        Test::gpu("sparse::spmv_every_format_index_and_op", spmv_every),
        Test::gpu("sparse::complex_products_refused", spmv_complex),
        Test::gpu("sparse::spmm_every_format_and_op", spmm_every),
        Test::gpu("sparse::spgemm_against_dense", spgemm),
        Test::gpu("sparse::coo_to_csr_and_csr_to_csc", conversions),
        Test::gpu("sparse::length_checks_on_gpu", length_checks),
    ]
}

/// The child-process side of [`missing_library`].
pub fn child() -> i32 {
    match cuprite_driver::sparse::version() {
        Ok(v) => println!("OK {v:?}"),
        Err(Error::LibraryNotFound { library, tried }) => {
            println!("ERR LibraryNotFound library={library}");
            for t in tried {
                println!("TRIED {t}");
            }
        }
        Err(e) => println!("ERR {e:?}"),
    }
    0
}

/// The variable that makes this binary run [`child`].
pub const CHILD_ENV: &str = "CUPRITE_DRIVER_TEST_SPARSE_CHILD";

fn missing_library() -> TestResult {
    let dir = temp_dir("nocusparse");
    let path = dir.join("libcusparse.so.99");
    let out = std::process::Command::new(std::env::current_exe()?)
        .env(CHILD_ENV, "1")
        .env("CUPRITE_CUSPARSE_PATH", &path)
        .output_within(CHILD_LIMIT)?;
    let _ = std::fs::remove_dir_all(&dir);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "child failed: {text}");
    assert!(text.starts_with("ERR LibraryNotFound"), "{text}");
    assert!(text.contains("library=libcusparse\n"), "{text}");
    let tried: Vec<&str> = text.lines().filter(|l| l.starts_with("TRIED ")).collect();
    assert_eq!(
        tried,
        [format!("TRIED {}: not found", path.display()).as_str()],
        "{text}"
    );
    Ok(())
}

fn stream() -> cuprite_driver::Result<Arc<Stream>> {
    Context::new(0)?.new_stream()
}

/// A random `rows × cols` matrix as sorted triplets, with about `density` of its entries set
/// and every third row empty.
fn random_triplets(
    rng: &mut Rng,
    rows: usize,
    cols: usize,
    density: f64,
) -> Vec<(usize, usize, f64)> {
    let mut t = Vec::new();
    for i in 0..rows {
        if i % 3 == 1 {
            continue;
        }
        for j in 0..cols {
            if (rng.next_u64() % 1000) as f64 / 1000.0 < density {
                t.push((i, j, rng.f32_in(-1.0, 1.0) as f64));
            }
        }
    }
    t
}

/// The three index arrays of `t` (sorted by row, then column) in `format`.
fn layout(
    format: Format,
    rows: usize,
    cols: usize,
    t: &[(usize, usize, f64)],
) -> (Vec<i64>, Vec<i64>, Vec<f64>) {
    let mut t = t.to_vec();
    if format == Format::Csc {
        t.sort_by_key(|&(i, j, _)| (j, i));
    }
    let (major, n) = match format {
        Format::Csc => (t.iter().map(|e| e.1).collect::<Vec<_>>(), cols),
        _ => (t.iter().map(|e| e.0).collect::<Vec<_>>(), rows),
    };
    let minor: Vec<i64> = match format {
        Format::Csc => t.iter().map(|e| e.0 as i64).collect(),
        _ => t.iter().map(|e| e.1 as i64).collect(),
    };
    let vals = t.iter().map(|e| e.2).collect();
    let first = match format {
        Format::Coo => major.iter().map(|&v| v as i64).collect(),
        _ => {
            let mut off = vec![0i64; n + 1];
            for &m in &major {
                off[m + 1] += 1;
            }
            for k in 0..n {
                off[k + 1] += off[k];
            }
            off
        }
    };
    (first, minor, vals)
}

fn dense(rows: usize, cols: usize, t: &[(usize, usize, f64)]) -> Vec<f64> {
    let mut d = vec![0.0; rows * cols];
    for &(i, j, v) in t {
        d[i * cols + j] += v;
    }
    d
}

trait Idx: SparseIndex {
    fn of(v: i64) -> Self;
}
impl Idx for i32 {
    fn of(v: i64) -> Self {
        v as i32
    }
}
impl Idx for i64 {
    fn of(v: i64) -> Self {
        v
    }
}

trait Val: SparseElement {
    const U: f64;
    fn of(v: f64) -> Self;
    fn get(self) -> f64;
}
impl Val for f32 {
    const U: f64 = f32::EPSILON as f64 / 2.0;
    fn of(v: f64) -> Self {
        v as f32
    }
    fn get(self) -> f64 {
        self as f64
    }
}
impl Val for f64 {
    const U: f64 = f64::EPSILON / 2.0;
    fn of(v: f64) -> Self {
        v
    }
    fn get(self) -> f64 {
        self
    }
}

type Triplets = Vec<(usize, usize, f64)>;

struct Dev<T: SparseElement, I: SparseIndex> {
    off: DeviceBuffer<I>,
    idx: DeviceBuffer<I>,
    val: DeviceBuffer<T>,
}

fn upload<T: Val, I: Idx>(
    s: &Arc<Stream>,
    format: Format,
    rows: usize,
    cols: usize,
    t: &[(usize, usize, f64)],
) -> cuprite_driver::Result<(Dev<T, I>, Triplets)> {
    let (o, i, v) = layout(format, rows, cols, t);
    let vt: Vec<T> = v.iter().map(|&x| T::of(x)).collect();
    // The values as stored (rounded to T), for the reference.
    let stored: Vec<(usize, usize, f64)> =
        t.iter().map(|&(r, c, x)| (r, c, T::of(x).get())).collect();
    let d = Dev {
        off: s.clone_htod(&o.iter().map(|&x| I::of(x)).collect::<Vec<I>>())?,
        idx: s.clone_htod(&i.iter().map(|&x| I::of(x)).collect::<Vec<I>>())?,
        val: s.clone_htod(&vt)?,
    };
    Ok((d, stored))
}

fn check_close(what: &str, got: &[f64], want: &[f64], bound: &[f64]) -> TestResult {
    assert_eq!(got.len(), want.len(), "{what}: lengths");
    for k in 0..got.len() {
        let err = (got[k] - want[k]).abs();
        if err > bound[k] {
            return Err(format!(
                "{what}: element {k}: got {}, want {} (error {err:e} > bound {:e})",
                got[k], want[k], bound[k]
            )
            .into());
        }
    }
    Ok(())
}

fn spmv_case<T: Val, I: Idx>(s: &Arc<Stream>, sp: &Sparse, rng: &mut Rng) -> TestResult {
    let (rows, cols) = (37, 23);
    let t = random_triplets(rng, rows, cols, 0.2);
    for format in [Format::Csr, Format::Csc, Format::Coo] {
        let (d, stored) = upload::<T, I>(s, format, rows, cols, &t)?;
        let a_d = dense(rows, cols, &stored);
        // SAFETY: `layout` made valid arrays for this shape.
        let a = unsafe { SpMat::new(format, rows, cols, &d.off, &d.idx, &d.val) }?;
        for op in [Transpose::None, Transpose::Trans] {
            let (m, n) = if op == Transpose::None {
                (rows, cols)
            } else {
                (cols, rows)
            };
            let x: Vec<T> = (0..n)
                .map(|_| T::of(rng.f32_in(-1.0, 1.0) as f64))
                .collect();
            let y0: Vec<T> = (0..m)
                .map(|_| T::of(rng.f32_in(-1.0, 1.0) as f64))
                .collect();
            let (alpha, beta) = (T::of(1.5), T::of(-0.5));
            let xd = s.clone_htod(&x)?;
            let mut yd = s.clone_htod(&y0)?;
            sp.spmv(op, alpha, &a, &xd, beta, &mut yd)?;
            let got: Vec<f64> = s.clone_dtoh(&yd)?.into_iter().map(Val::get).collect();
            let mut want = vec![0.0; m];
            let mut bound = vec![0.0; m];
            for i in 0..m {
                let (mut acc, mut mag) = (0.0, 0.0);
                for k in 0..n {
                    let aik = if op == Transpose::None {
                        a_d[i * cols + k]
                    } else {
                        a_d[k * cols + i]
                    };
                    acc += aik * x[k].get();
                    mag += (aik * x[k].get()).abs();
                }
                want[i] = 1.5 * acc - 0.5 * y0[i].get();
                bound[i] = 2.0 * n as f64 * T::U * (1.5 * mag + 0.5 * y0[i].get().abs())
                    + T::U * want[i].abs();
            }
            check_close(&format!("spmv {format:?} {op:?}"), &got, &want, &bound)?;
        }
    }
    Ok(())
}

fn spmv_every() -> TestResult {
    let s = stream()?;
    let sp = Sparse::new(&s)?;
    let mut rng = Rng::fresh();
    spmv_case::<f64, i32>(&s, &sp, &mut rng)?;
    spmv_case::<f64, i64>(&s, &sp, &mut rng)?;
    spmv_case::<f32, i32>(&s, &sp, &mut rng)?;
    spmv_case::<f32, i64>(&s, &sp, &mut rng)
}

/// A complex CSR matrix times a vector under `ConjTrans`: conjugates its values.
/// Complex values are refused by SpMV and SpMM (see `refuse_complex`), with an `Err` naming
/// the call, and the stream stays usable.
fn spmv_complex() -> TestResult {
    type C = Complex<f64>;
    let s = stream()?;
    let sp = Sparse::new(&s)?;
    // [[1+2i, 0], [3, -1i]]
    let off = s.clone_htod(&[0i32, 1, 3])?;
    let idx = s.clone_htod(&[0i32, 0, 1])?;
    let vals = [C::new(1.0, 2.0), C::new(3.0, 0.0), C::new(0.0, -1.0)];
    let val = s.clone_htod(&vals)?;
    // SAFETY: a valid 2 × 2 CSR matrix.
    let a = unsafe { SpMat::new(Format::Csr, 2, 2, &off, &idx, &val) }?;
    let xd = s.clone_htod(&[C::new(1.0, 1.0), C::new(2.0, 0.0)])?;
    let mut yd = s.alloc_zeros::<C>(2)?;
    let e = sp
        .spmv(
            Transpose::ConjTrans,
            C::new(1.0, 0.0),
            &a,
            &xd,
            C::new(0.0, 0.0),
            &mut yd,
        )
        .err()
        .ok_or("complex SpMV was not refused")?;
    assert!(
        e.to_string().contains("cusparseSpMV") && e.to_string().contains("complex"),
        "{e}"
    );
    let e = sp
        .spmm(
            Transpose::None,
            C::new(1.0, 0.0),
            &a,
            &xd,
            1,
            1,
            C::new(0.0, 0.0),
            &mut yd,
            1,
        )
        .err()
        .ok_or("complex SpMM was not refused")?;
    assert!(e.to_string().contains("cusparseSpMM"), "{e}");
    assert_eq!(s.clone_dtoh(&yd)?, [C::new(0.0, 0.0); 2]);
    Ok(())
}

fn spmm_every() -> TestResult {
    let s = stream()?;
    let sp = Sparse::new(&s)?;
    let mut rng = Rng::fresh();
    let (rows, cols, n) = (29, 17, 5);
    let t = random_triplets(&mut rng, rows, cols, 0.25);
    for format in [Format::Csr, Format::Csc, Format::Coo] {
        let (d, stored) = upload::<f64, i32>(&s, format, rows, cols, &t)?;
        let a_d = dense(rows, cols, &stored);
        // SAFETY: `layout` made valid arrays for this shape.
        let a = unsafe { SpMat::new(format, rows, cols, &d.off, &d.idx, &d.val) }?;
        for op in [Transpose::None, Transpose::Trans] {
            let (m, k) = if op == Transpose::None {
                (rows, cols)
            } else {
                (cols, rows)
            };
            let (ldb, ldc) = (n + 2, n + 1);
            let b: Vec<f64> = (0..k * ldb).map(|_| rng.f32_in(-1.0, 1.0) as f64).collect();
            let c0: Vec<f64> = (0..m * ldc).map(|_| rng.f32_in(-1.0, 1.0) as f64).collect();
            let bd = s.clone_htod(&b)?;
            let mut cd = s.clone_htod(&c0)?;
            sp.spmm(op, 2.0, &a, &bd, n, ldb, 0.25, &mut cd, ldc)?;
            let got = s.clone_dtoh(&cd)?;
            let mut want = c0.clone();
            let mut bound = vec![0.0; c0.len()];
            for i in 0..m {
                for j in 0..n {
                    let (mut acc, mut mag) = (0.0, 0.0);
                    for q in 0..k {
                        let aiq = if op == Transpose::None {
                            a_d[i * cols + q]
                        } else {
                            a_d[q * cols + i]
                        };
                        acc += aiq * b[q * ldb + j];
                        mag += (aiq * b[q * ldb + j]).abs();
                    }
                    let c = c0[i * ldc + j];
                    want[i * ldc + j] = 2.0 * acc + 0.25 * c;
                    bound[i * ldc + j] =
                        2.0 * k as f64 * f64::EPSILON * (2.0 * mag + 0.25 * c.abs())
                            + f64::EPSILON * want[i * ldc + j].abs();
                }
            }
            check_close(&format!("spmm {format:?} {op:?}"), &got, &want, &bound)?;
        }
    }
    Ok(())
}

fn spgemm() -> TestResult {
    let s = stream()?;
    let sp = Sparse::new(&s)?;
    let mut rng = Rng::fresh();
    let (m, k, n) = (21, 16, 19);
    let ta = random_triplets(&mut rng, m, k, 0.2);
    let tb = random_triplets(&mut rng, k, n, 0.2);
    let (da, sa) = upload::<f64, i32>(&s, Format::Csr, m, k, &ta)?;
    let (db, sb) = upload::<f64, i32>(&s, Format::Csr, k, n, &tb)?;
    // SAFETY: `layout` made valid sorted CSR arrays for these shapes.
    let a = unsafe { SpMat::new(Format::Csr, m, k, &da.off, &da.idx, &da.val) }?;
    // SAFETY: as above.
    let b = unsafe { SpMat::new(Format::Csr, k, n, &db.off, &db.idx, &db.val) }?;
    let c = sp.spgemm(-2.0, &a, &b)?;
    assert_eq!((c.rows, c.cols), (m, n));
    let off = s.clone_dtoh(&c.offsets)?;
    let idx = s.clone_dtoh(&c.indices)?;
    let val = s.clone_dtoh(&c.values)?;
    assert_eq!(off[0], 0);
    assert_eq!(off[m] as usize, idx.len());
    let mut got = vec![0.0; m * n];
    for i in 0..m {
        let row = &idx[off[i] as usize..off[i + 1] as usize];
        assert!(
            row.windows(2).all(|w| w[0] < w[1]),
            "row {i} not sorted: {row:?}"
        );
        for p in off[i] as usize..off[i + 1] as usize {
            got[i * n + idx[p] as usize] += val[p];
        }
    }
    let (ad, bd) = (dense(m, k, &sa), dense(k, n, &sb));
    let mut want = vec![0.0; m * n];
    let mut bound = vec![0.0; m * n];
    for i in 0..m {
        for j in 0..n {
            let mut mag = 0.0;
            for q in 0..k {
                want[i * n + j] += -2.0 * ad[i * k + q] * bd[q * n + j];
                mag += (2.0 * ad[i * k + q] * bd[q * n + j]).abs();
            }
            bound[i * n + j] = 2.0 * k as f64 * f64::EPSILON * mag;
        }
    }
    check_close("spgemm", &got, &want, &bound)?;
    // A product with no nonzero: A uses only column 0, B only row 1.
    let (za, _) = upload::<f64, i32>(&s, Format::Csr, 2, 2, &[(0, 0, 1.0), (1, 0, 2.0)])?;
    let (zb, _) = upload::<f64, i32>(&s, Format::Csr, 2, 2, &[(1, 0, 3.0), (1, 1, 4.0)])?;
    // SAFETY: `layout` made valid sorted CSR arrays.
    let a = unsafe { SpMat::new(Format::Csr, 2, 2, &za.off, &za.idx, &za.val) }?;
    // SAFETY: as above.
    let b = unsafe { SpMat::new(Format::Csr, 2, 2, &zb.off, &zb.idx, &zb.val) }?;
    let c = sp.spgemm(1.0, &a, &b)?;
    assert_eq!(s.clone_dtoh(&c.offsets)?, [0, 0, 0]);
    assert_eq!((c.indices.len(), c.values.len()), (0, 0));
    Ok(())
}

fn conversions() -> TestResult {
    let s = stream()?;
    let sp = Sparse::new(&s)?;
    let mut rng = Rng::fresh();
    let (m, n) = (26, 31);
    let t = random_triplets(&mut rng, m, n, 0.15);
    let (coo_rows, _, _) = layout(Format::Coo, m, n, &t);
    let (csr_off, csr_idx, csr_val) = layout(Format::Csr, m, n, &t);
    let (csc_off, csc_idx, csc_val) = layout(Format::Csc, m, n, &t);
    let rows = s.clone_htod(&coo_rows.iter().map(|&v| v as i32).collect::<Vec<_>>())?;
    let mut off = s.alloc_zeros::<i32>(m + 1)?;
    // SAFETY: the rows are sorted and below m.
    unsafe { sp.coo_to_csr(&rows, m, &mut off) }?;
    let got: Vec<i64> = s.clone_dtoh(&off)?.into_iter().map(i64::from).collect();
    assert_eq!(got, csr_off, "coo_to_csr");
    let io = s.clone_htod(&csr_off.iter().map(|&v| v as i32).collect::<Vec<_>>())?;
    let ii = s.clone_htod(&csr_idx.iter().map(|&v| v as i32).collect::<Vec<_>>())?;
    let iv = s.clone_htod(&csr_val)?;
    let nnz = csr_val.len();
    let mut co = s.alloc_zeros::<i32>(n + 1)?;
    let mut ci = s.alloc_zeros::<i32>(nnz)?;
    let mut cv = s.alloc_zeros::<f64>(nnz)?;
    // SAFETY: valid CSR arrays of an m × n matrix.
    unsafe { sp.csr_to_csc(m, n, &io, &ii, &iv, &mut co, &mut ci, &mut cv) }?;
    let got_o: Vec<i64> = s.clone_dtoh(&co)?.into_iter().map(i64::from).collect();
    let got_i: Vec<i64> = s.clone_dtoh(&ci)?.into_iter().map(i64::from).collect();
    assert_eq!(got_o, csc_off, "csr_to_csc offsets");
    assert_eq!(got_i, csc_idx, "csr_to_csc indices");
    assert_eq!(s.clone_dtoh(&cv)?, csc_val, "csr_to_csc values");
    Ok(())
}

fn length_checks() -> TestResult {
    let s = stream()?;
    let sp = Sparse::new(&s)?;
    let off = s.clone_htod(&[0i32, 1, 2])?;
    let idx = s.clone_htod(&[0i32, 1])?;
    let val = s.clone_htod(&[1.0f64, 2.0])?;
    // SAFETY: never used in a product (an Err).
    let e = unsafe { SpMat::new(Format::Csr, 3, 2, &off, &idx, &val) }.unwrap_err();
    assert!(
        e.to_string().contains("3 expected") || e.to_string().contains("4 expected"),
        "{e}"
    );
    // SAFETY: as above.
    let e = unsafe { SpMat::new(Format::Coo, 2, 2, &idx, &off, &val) }.unwrap_err();
    assert!(e.to_string().contains("3 index(es) for 2 value(s)"), "{e}");
    // SAFETY: a valid 2 × 2 identity.
    let a = unsafe { SpMat::new(Format::Csr, 2, 2, &off, &idx, &val) }?;
    let x = s.clone_htod(&[1.0f64])?;
    let mut y = s.alloc_zeros::<f64>(2)?;
    let e = sp
        .spmv(Transpose::None, 1.0, &a, &x, 0.0, &mut y)
        .unwrap_err();
    assert!(e.to_string().contains("x holds 1 element(s)"), "{e}");
    let b = s.clone_htod(&[1.0f64; 3])?;
    let mut c = s.alloc_zeros::<f64>(4)?;
    let e = sp
        .spmm(Transpose::None, 1.0, &a, &b, 2, 2, 0.0, &mut c, 2)
        .unwrap_err();
    assert!(
        e.to_string().contains("B 2 × 2 (ld 2) needs 4 element(s)"),
        "{e}"
    );
    // SAFETY: a valid 2 × 2 COO matrix (rows 0, 1; columns 0, 1).
    let coo = unsafe { SpMat::new(Format::Coo, 2, 2, &idx, &idx, &val) }?;
    let e = sp.spgemm(1.0, &a, &coo);
    assert!(e.unwrap_err().to_string().contains("must be CSR"));
    Ok(())
}
