//! More sparse arrays: construction from device arrays (checked there, with the host checks'
//! messages), the Krylov solvers `bicgstab`, `gmres` and `minres` (their true residual
//! recomputed here in f64 from a dense reference), and the structural operations against
//! dense f64 references. Bodies run on every backend.

#![allow(clippy::needless_range_loop)] // index loops mirror the formulas they check

use crate::common::{Body, assert_err};
use crate::sparse::{
    C, FORMATS, SHAPES, V, canonical, check, dense_ref, draw, exact, laplacian, rel_residual, to_c,
};
use cuprite_array::sparse::{
    IndexType, Jacobi, SolveOpts, SolveResult, SparseArray, SparseFormat, TriangularOpts,
    bicgstab_with, gmres_with, minres_with,
};
use cuprite_array::{Array, Device, c64, with_device};
use cuprite_testkit::{Rng, Test, TestResult};

/// CSR components of random triplets, checked on the device against `from_csr`.
fn from_arrays(d: Device) -> TestResult {
    with_device(d, || {
        let mut rng = Rng::fresh();
        for &(rows, cols, density) in &SHAPES {
            let (r, c, v) = draw::<f64>(&mut rng, rows, cols, density);
            let want = dense_ref(rows, cols, &r, &c, &v);
            let host = SparseArray::from_triplets([rows, cols], &r, &c, &v)?;
            let off = host.offsets().ok_or("no offsets")?.to_i64();
            let idx = host.indices().to_i64();
            let vals = host.values();
            let a = SparseArray::from_csr_arrays([rows, cols], off.clone(), idx.clone(), &vals)?;
            assert_eq!(
                (a.format(), a.index_type()),
                (SparseFormat::Csr, IndexType::I32)
            );
            exact("from_csr_arrays", &to_c(&a.to_dense()?.to_vec()?), &want)?;
            let a32 = SparseArray::from_csr_arrays(
                [rows, cols],
                off.cast::<i32>(),
                idx.cast::<i32>(),
                &vals,
            )?;
            exact("i32 arrays", &to_c(&a32.to_dense()?.to_vec()?), &want)?;
            // The same arrays read as CSC describe the transpose.
            let t = SparseArray::from_csc_arrays([cols, rows], off, idx, &vals)?;
            let mut tw = vec![C::new(0.0, 0.0); rows * cols];
            for i in 0..rows {
                for j in 0..cols {
                    tw[j * rows + i] = want[i * cols + j];
                }
            }
            exact("from_csc_arrays", &to_c(&t.to_dense()?.to_vec()?), &tw)?;
        }
        let v = Array::from_slice(&[1.0f64, 2.0, 3.0], &[3])?;
        let i64s = |x: &[i64]| Array::from_slice(x, &[x.len()]);
        let csr = |o: &[i64], i: &[i64]| -> cuprite_array::Result<SparseArray<f64>> {
            SparseArray::from_csr_arrays([3, 4], i64s(o)?, i64s(i)?, &v)
        };
        let cases: [(&[i64], &[i64], &str); 6] = [
            (&[1, 1, 2, 3], &[0, 1, 2], "offsets[0] = 1"),
            (
                &[0, 2, 1, 3],
                &[0, 1, 2],
                "offsets[2] = 1 is below offsets[1] = 2",
            ),
            (
                &[0, 1, 2, 2],
                &[0, 1, 2],
                "offsets[3] = 2 but there are 3 values",
            ),
            (
                &[0, 1, 2, 3],
                &[0, 4, 2],
                "indices[1] = 4 (row 1) is out of bounds",
            ),
            (
                &[0, 2, 2, 3],
                &[3, 1, 0],
                "indices[1] = 1 (row 0) follows 3",
            ),
            (
                &[0, 1, 2, 3],
                &[0, -1, 2],
                "indices[1] = -1 (row 1) is out of bounds",
            ),
        ];
        for (o, i, msg) in cases {
            assert_err(csr(o, i), "InvalidArgument", msg);
        }
        assert_err(
            csr(&[0, 1, 3], &[0, 1, 2]),
            "InvalidArgument",
            "offsets of shape [3]",
        );
        assert_err(
            csr(&[0, 1, 2, 3], &[0, 1]),
            "InvalidArgument",
            "of shape [2] for 3 values",
        );
        Ok(())
    })
}

/// The true relative residual of a solve, in f64 from the dense reference `ad`.
fn true_residual<T: V>(ad: &[C], n: usize, res: &SolveResult<T>, b: &[T]) -> Result<f64, String> {
    let x = res.x.to_vec().map_err(|e| e.to_string())?;
    Ok(rel_residual(ad, n, &to_c(&x), &to_c(b)))
}

type Solver<T> = for<'a> fn(
    &SparseArray<T>,
    &Array<T>,
    SolveOpts<'a, T>,
) -> cuprite_array::Result<SolveResult<T>>;

/// Runs `solve` with and without Jacobi and with checks every 1 and 7 iterations, and checks
/// convergence, the reported residual against the one recomputed here, and the callback.
#[allow(clippy::too_many_arguments)]
fn converges<T: V + cuprite_array::Float + cuprite_array::Transcendental>(
    what: &str,
    solve: Solver<T>,
    a: &SparseArray<T>,
    ad: &[C],
    b: &[T],
    rtol: f64,
    slack: f64,
    restart: usize,
) -> TestResult {
    let n = b.len();
    let ba = Array::from_slice(b, &[n])?;
    let jac = Jacobi::new(a)?;
    for (jacobi, every) in [(false, 1), (true, 1), (false, 7)] {
        let mut calls = Vec::new();
        let mut cb = |it: usize, r: f64| calls.push((it, r));
        let mut opts = SolveOpts::new()
            .rtol(rtol)
            .maxiter(20 * n)
            .check_every(every)
            .restart(restart)
            .callback(&mut cb);
        if jacobi {
            opts = opts.preconditioner(&jac);
        }
        let res = solve(a, &ba, opts)?;
        let tag = format!("{what} jacobi={jacobi} every={every}");
        assert!(
            res.converged,
            "{tag}: residual {} after {}",
            res.residual, res.iterations
        );
        let rel = true_residual(ad, n, &res, b)?;
        assert!(rel <= rtol * slack, "{tag}: true residual {rel:e}");
        assert!(
            (rel - res.residual).abs() <= rtol * slack,
            "{tag}: reported {} against {rel:e}",
            res.residual
        );
        assert!(!calls.is_empty(), "{tag}: no callback");
        assert!(
            calls.windows(2).all(|w| w[0].0 < w[1].0),
            "{tag}: callback iterations {calls:?}"
        );
        assert_eq!(calls.last().map(|c| c.0), Some(res.iterations), "{tag}");
    }
    Ok(())
}

/// A random nonsymmetric, strictly diagonally dominant `n × n` matrix (dense f64 reference
/// and CSR in `T`).
fn dominant<T: V>(rng: &mut Rng, n: usize) -> Result<(SparseArray<T>, Vec<C>), String> {
    let (mut r, mut c, mut v) = draw::<T>(rng, n, n, 0.15);
    let ad0 = dense_ref(n, n, &r, &c, &v);
    for i in 0..n {
        let row: f64 = (0..n).map(|j| ad0[i * n + j].norm()).sum();
        r.push(i);
        c.push(i);
        v.push(T::of(C::new(row + 1.0 + (i % 5) as f64, 0.0)));
    }
    let ad = dense_ref(n, n, &r, &c, &v);
    let a = SparseArray::from_triplets([n, n], &r, &c, &v).map_err(|e| e.to_string())?;
    Ok((a, ad))
}

/// `BᵀB + I` for a random sparse `B` (dense f64 reference and CSR in `T`).
fn random_spd<T: V>(rng: &mut Rng, n: usize) -> Result<(SparseArray<T>, Vec<C>), String> {
    let (r, c, v) = draw::<f64>(rng, n, n, 0.1);
    let bd = dense_ref(n, n, &r, &c, &v);
    let (mut rr, mut cc, mut vv) = (vec![], vec![], vec![]);
    for i in 0..n {
        for j in 0..n {
            let mut s: f64 = if i == j { 1.0 } else { 0.0 };
            for k in 0..n {
                s += (bd[k * n + i] * bd[k * n + j]).re;
            }
            if s != 0.0 {
                rr.push(i);
                cc.push(j);
                vv.push(T::of(C::new(s, 0.0)));
            }
        }
    }
    // The reference is of the values as stored in T.
    let ad = dense_ref(n, n, &rr, &cc, &vv);
    let a = SparseArray::from_triplets([n, n], &rr, &cc, &vv).map_err(|e| e.to_string())?;
    Ok((a, ad))
}

fn solvers_laplacian(d: Device) -> TestResult {
    with_device(d, || {
        let mut rng = Rng::fresh();
        let g = 10;
        let n = g * g;
        let (r, c, v) = laplacian(g);
        let ad = dense_ref(n, n, &r, &c, &v);
        let b: Vec<f64> = (0..n).map(|_| f64::draw(&mut rng)).collect();
        for f in FORMATS {
            let a = SparseArray::from_triplets([n, n], &r, &c, &v)?.to_format(f)?;
            let w = format!("{f:?}");
            converges(
                &format!("bicgstab {w}"),
                bicgstab_with,
                &a,
                &ad,
                &b,
                1e-10,
                2.0,
                20,
            )?;
            converges(
                &format!("gmres(20) {w}"),
                gmres_with,
                &a,
                &ad,
                &b,
                1e-10,
                2.0,
                20,
            )?;
            converges(
                &format!("gmres(5) {w}"),
                gmres_with,
                &a,
                &ad,
                &b,
                1e-10,
                2.0,
                5,
            )?;
            converges(
                &format!("minres {w}"),
                minres_with,
                &a,
                &ad,
                &b,
                1e-10,
                2.0,
                20,
            )?;
        }
        Ok(())
    })
}

fn solvers_random(d: Device) -> TestResult {
    with_device(d, || {
        let mut rng = Rng::fresh();
        let n = 60;
        let (a, ad) = random_spd::<f64>(&mut rng, n)?;
        let b: Vec<f64> = (0..n).map(|_| f64::draw(&mut rng)).collect();
        converges("bicgstab spd", bicgstab_with, &a, &ad, &b, 1e-10, 2.0, 20)?;
        converges("gmres spd", gmres_with, &a, &ad, &b, 1e-10, 2.0, 20)?;
        converges("minres spd", minres_with, &a, &ad, &b, 1e-10, 2.0, 20)?;
        let (a, ad) = random_spd::<f32>(&mut rng, n)?;
        let b: Vec<f32> = (0..n).map(|_| f32::draw(&mut rng)).collect();
        // f32: a tolerance a few hundred roundoffs above the unit roundoff.
        converges(
            "bicgstab spd f32",
            bicgstab_with,
            &a,
            &ad,
            &b,
            1e-4,
            2.0,
            20,
        )?;
        converges("gmres spd f32", gmres_with, &a, &ad, &b, 1e-4, 2.0, 20)?;
        converges("minres spd f32", minres_with, &a, &ad, &b, 1e-4, 2.0, 20)?;
        let (a, ad) = dominant::<f64>(&mut rng, n)?;
        let b: Vec<f64> = (0..n).map(|_| f64::draw(&mut rng)).collect();
        converges(
            "bicgstab nonsymmetric",
            bicgstab_with,
            &a,
            &ad,
            &b,
            1e-10,
            2.0,
            20,
        )?;
        converges(
            "gmres(10) nonsymmetric",
            gmres_with,
            &a,
            &ad,
            &b,
            1e-10,
            2.0,
            10,
        )?;
        // A symmetric indefinite matrix: the Laplacian shifted between its eigenvalues.
        let g = 8;
        let (mut r, mut c, mut v) = laplacian(g);
        for i in 0..g * g {
            r.push(i);
            c.push(i);
            v.push(-3.3);
        }
        let m = g * g;
        let ad = dense_ref(m, m, &r, &c, &v);
        let a = SparseArray::from_triplets([m, m], &r, &c, &v)?;
        let b: Vec<f64> = (0..m).map(|_| f64::draw(&mut rng)).collect();
        let ba = Array::from_slice(&b, &[m])?;
        let res = minres_with(&a, &ba, SolveOpts::new().rtol(1e-9).maxiter(2000))?;
        let rel = true_residual(&ad, m, &res, &b)?;
        assert!(res.converged && rel <= 2e-9, "minres indefinite: {rel:e}");
        Ok(())
    })
}

fn solvers_edges(d: Device) -> TestResult {
    with_device(d, || {
        let mut rng = Rng::fresh();
        let g = 6;
        let n = g * g;
        let (r, c, v) = laplacian(g);
        let a = SparseArray::from_triplets([n, n], &r, &c, &v)?;
        let ad = dense_ref(n, n, &r, &c, &v);
        let b: Vec<f64> = (0..n).map(|_| f64::draw(&mut rng)).collect();
        let ba = Array::from_slice(&b, &[n])?;
        let solvers: [(&str, Solver<f64>); 3] = [
            ("bicgstab", bicgstab_with),
            ("gmres", gmres_with),
            ("minres", minres_with),
        ];
        for (name, solve) in solvers {
            // Too few iterations: not converged, not an error, and the residual is true.
            let short = solve(&a, &ba, SolveOpts::new().maxiter(2).rtol(1e-12))?;
            let rel = true_residual(&ad, n, &short, &b)?;
            assert!(
                !short.converged && short.iterations == 2,
                "{name}: {short:?}"
            );
            assert!(
                (rel - short.residual).abs() <= 1e-12,
                "{name}: {rel} vs {}",
                short.residual
            );
            // A converged start: no iteration.
            let good = solve(&a, &ba, SolveOpts::new().rtol(1e-12))?;
            let again = solve(&a, &ba, SolveOpts::new().rtol(1e-8).x0(&good.x))?;
            assert_eq!((again.iterations, again.converged), (0, true), "{name}");
            // A zero right-hand side: x = 0 at once.
            let z = Array::<f64>::zeros(&[n]);
            let zero = solve(&a, &z, SolveOpts::new())?;
            assert!(zero.converged && zero.iterations == 0, "{name}");
            assert!(zero.x.to_vec()?.iter().all(|&x| x == 0.0), "{name}");
            // atol alone stops early.
            let loose = solve(&a, &ba, SolveOpts::new().rtol(0.0).atol(1e30))?;
            assert_eq!(loose.iterations, 0, "{name}");
            // Bad arguments.
            let rect = SparseArray::from_triplets([2, 3], &[0], &[0], &[1.0f64])?;
            let b2 = Array::from_slice(&[1.0f64; 2], &[2])?;
            assert_err(
                solve(&rect, &b2, SolveOpts::new()),
                "Shape",
                "must be square",
            );
            assert_err(solve(&a, &b2, SolveOpts::new()), "Shape", "b has shape [2]");
            assert_err(
                solve(&a, &ba, SolveOpts::new().x0(&b2)),
                "Shape",
                "x0 has shape [2]",
            );
            for (opts, msg) in [
                (SolveOpts::new().check_every(0), "check_every = 0"),
                (SolveOpts::new().restart(0), "restart = 0"),
                (SolveOpts::new().rtol(-1.0), "rtol = -1"),
                (SolveOpts::new().atol(f64::NAN), "atol = NaN"),
            ] {
                assert_err(solve(&a, &ba, opts), "InvalidArgument", msg);
            }
        }
        let hole = SparseArray::from_triplets([2, 2], &[0, 1], &[0, 0], &[1.0f64, 1.0])?;
        assert_err(Jacobi::new(&hole), "InvalidArgument", "A[1, 1] is zero");
        Ok(())
    })
}

/// `bound[k] = scale · U · (|want[k]| + extra[k])`.
fn bounds<T: V>(want: &[C], extra: &[f64], scale: f64) -> Vec<f64> {
    want.iter()
        .zip(extra)
        .map(|(w, e)| scale * T::U * (w.norm() + e))
        .collect()
}

fn structure_t<T: V>(d: Device) -> TestResult {
    with_device(d, || {
        let mut rng = Rng::fresh();
        for &(rows, cols, density) in &SHAPES {
            let (r, c, v) = draw::<T>(&mut rng, rows, cols, density);
            let want = dense_ref(rows, cols, &r, &c, &v);
            let stored: Vec<bool> = {
                let mut m = vec![false; rows * cols];
                for k in 0..r.len() {
                    m[r[k] * cols + c[k]] = true;
                }
                m
            };
            let base = SparseArray::from_triplets([rows, cols], &r, &c, &v)?;
            let dv: Vec<T> = (0..rows * cols).map(|_| T::draw(&mut rng)).collect();
            let dense = Array::from_slice(&dv, &[rows, cols])?;
            for f in FORMATS {
                for index in [IndexType::I32, IndexType::I64] {
                    let a = base.to_format(f)?.with_index_type(index)?;
                    let tag = format!("{rows}x{cols} {f:?} {index:?}");
                    for k in -3isize..=3 {
                        let cells: Vec<(usize, usize)> = (0..rows)
                            .flat_map(|i| (0..cols).map(move |j| (i, j)))
                            .filter(|&(i, j)| j as isize - i as isize == k)
                            .collect();
                        let wd: Vec<C> = cells.iter().map(|&(i, j)| want[i * cols + j]).collect();
                        let got = a.diagonal(k)?.to_vec()?;
                        exact(&format!("diagonal({k}) {tag}"), &to_c(&got), &wd)?;
                    }
                    for k in [-1isize, 0, 2] {
                        for (name, tri) in [("tril", a.tril(k)?), ("triu", a.triu(k)?)] {
                            assert_eq!(
                                (tri.format(), tri.index_type()),
                                (f, index),
                                "{name} {tag}"
                            );
                            canonical(&tri)?;
                            let w: Vec<C> = (0..rows * cols)
                                .map(|p| {
                                    let off = (p % cols) as isize - (p / cols) as isize;
                                    let keep = if name == "tril" { off <= k } else { off >= k };
                                    if keep { want[p] } else { C::new(0.0, 0.0) }
                                })
                                .collect();
                            let got = to_c(&tri.to_dense()?.to_vec()?);
                            exact(&format!("{name}({k}) {tag}"), &got, &w)?;
                        }
                    }
                    for (lo, hi) in [(0, rows), (rows / 3, rows - rows / 4), (rows, rows)] {
                        let sl = a.slice_rows(lo, hi)?;
                        assert_eq!((sl.shape(), sl.format()), ([hi - lo, cols], f), "{tag}");
                        canonical(&sl)?;
                        let got = to_c(&sl.to_dense()?.to_vec()?);
                        exact(
                            &format!("slice_rows {lo}..{hi} {tag}"),
                            &got,
                            &want[lo * cols..hi * cols],
                        )?;
                    }
                    // Sums: bounded by the count of terms times U times the sum of magnitudes.
                    let mut col_sum = vec![C::new(0.0, 0.0); cols];
                    let mut row_sum = vec![C::new(0.0, 0.0); rows];
                    let (mut col_abs, mut row_abs) = (vec![0.0; cols], vec![0.0; rows]);
                    for i in 0..rows {
                        for j in 0..cols {
                            col_sum[j] += want[i * cols + j];
                            row_sum[i] += want[i * cols + j];
                            col_abs[j] += want[i * cols + j].norm();
                            row_abs[i] += want[i * cols + j].norm();
                        }
                    }
                    let terms = (rows + cols + 1) as f64 * 4.0;
                    let b0 = bounds::<T>(&vec![C::new(0.0, 0.0); cols], &col_abs, terms);
                    let b1 = bounds::<T>(&vec![C::new(0.0, 0.0); rows], &row_abs, terms);
                    check(
                        &format!("sum axis 0 {tag}"),
                        &to_c(&a.sum_axes(&[0])?.to_vec()?),
                        &col_sum,
                        &b0,
                    )?;
                    check(
                        &format!("sum axis -1 {tag}"),
                        &to_c(&a.sum_axes(&[-1])?.to_vec()?),
                        &row_sum,
                        &b1,
                    )?;
                    let all: C = want.iter().sum();
                    let all_abs: f64 = want.iter().map(|z| z.norm()).sum();
                    let ball = bounds::<T>(&[all], &[all_abs], (rows * cols + 1) as f64 * 4.0);
                    check(
                        &format!("sum {tag}"),
                        &to_c(&[a.sum()?.item()?]),
                        &[all],
                        &ball,
                    )?;
                    check(
                        &format!("sum axes 0, 1 {tag}"),
                        &to_c(&[a.sum_axes(&[1, 0])?.item()?]),
                        &[all],
                        &ball,
                    )?;
                    // Sparse + dense, with a full operand and a broadcast row.
                    let w: Vec<C> = want.iter().zip(&dv).map(|(x, y)| x + y.to_c64()).collect();
                    let got = to_c(&a.add_dense(&dense)?.to_vec()?);
                    check(
                        &format!("add_dense {tag}"),
                        &got,
                        &w,
                        &bounds::<T>(&w, &vec![0.0; w.len()], 2.0),
                    )?;
                    if rows > 0 && cols > 0 {
                        let row0 = dense.slice(&cuprite_array::s![0, ..])?;
                        let w: Vec<C> = (0..rows * cols)
                            .map(|p| want[p] + dv[p % cols].to_c64())
                            .collect();
                        let got = to_c(&a.add_dense(&row0)?.to_vec()?);
                        check(
                            &format!("add_dense row {tag}"),
                            &got,
                            &w,
                            &bounds::<T>(&w, &vec![0.0; w.len()], 2.0),
                        )?;
                    }
                    // A map of the stored values: 2·v + 1 where stored, 0 elsewhere.
                    let m = a.map_values(|x| {
                        x.try_mul(T::of(C::new(2.0, 0.0)))?
                            .try_add(T::of(C::new(1.0, 0.0)))
                    })?;
                    assert_eq!((m.format(), m.nnz()), (f, a.nnz()), "{tag}");
                    let w: Vec<C> = (0..rows * cols)
                        .map(|p| {
                            if stored[p] {
                                want[p] * 2.0 + 1.0
                            } else {
                                C::new(0.0, 0.0)
                            }
                        })
                        .collect();
                    let got = to_c(&m.to_dense()?.to_vec()?);
                    check(
                        &format!("map_values {tag}"),
                        &got,
                        &w,
                        &bounds::<T>(&w, &vec![0.0; w.len()], 2.0),
                    )?;
                }
            }
        }
        Ok(())
    })
}

fn kron_t<T: V>(d: Device) -> TestResult {
    with_device(d, || {
        let mut rng = Rng::fresh();
        let shapes = [
            (3usize, 4usize, 0.4),
            (2, 1, 1.0),
            (0, 3, 0.5),
            (5, 5, 0.0),
            (4, 2, 0.5),
        ];
        for &(m, n, da) in &shapes {
            for &(p, q, db) in &shapes {
                let (ar, ac, av) = draw::<T>(&mut rng, m, n, da);
                let (br, bc, bv) = draw::<T>(&mut rng, p, q, db);
                let ad = dense_ref(m, n, &ar, &ac, &av);
                let bd = dense_ref(p, q, &br, &bc, &bv);
                let (rows, cols) = (m * p, n * q);
                let mut w = vec![C::new(0.0, 0.0); rows * cols];
                for i in 0..m {
                    for j in 0..n {
                        for k in 0..p {
                            for l in 0..q {
                                w[(i * p + k) * cols + j * q + l] = ad[i * n + j] * bd[k * q + l];
                            }
                        }
                    }
                }
                let a = SparseArray::from_triplets([m, n], &ar, &ac, &av)?.to_coo()?;
                let b = SparseArray::from_triplets([p, q], &br, &bc, &bv)?
                    .to_csc()?
                    .with_index_type(IndexType::I64)?;
                let k = a.kron(&b)?;
                assert_eq!(
                    (k.shape(), k.format(), k.nnz()),
                    ([rows, cols], SparseFormat::Csr, av.len() * bv.len())
                );
                canonical(&k)?;
                let got = to_c(&k.to_dense()?.to_vec()?);
                check(
                    &format!("kron {m}x{n} {p}x{q}"),
                    &got,
                    &w,
                    &bounds::<T>(&w, &vec![0.0; w.len()], 4.0),
                )?;
            }
        }
        Ok(())
    })
}

fn structure(d: Device) -> TestResult {
    structure_t::<f64>(d)?;
    structure_t::<f32>(d)?;
    structure_t::<c64>(d)?;
    kron_t::<f64>(d)?;
    kron_t::<f32>(d)?;
    kron_t::<c64>(d)
}

fn random_matrices(d: Device) -> TestResult {
    for &(rows, cols, density) in &[
        (50usize, 40usize, 0.1),
        (7, 3, 1.0),
        (0, 5, 0.5),
        (10, 10, 0.0),
        (1, 1000, 0.013),
    ] {
        let a = with_device(d, || SparseArray::<f64>::random([rows, cols], density, 42))?;
        let on_cpu = with_device(Device::CPU, || {
            SparseArray::<f64>::random([rows, cols], density, 42)
        })?;
        let want_nnz = (density * (rows * cols) as f64).round() as usize;
        assert_eq!(
            (a.nnz(), a.shape(), a.device()),
            (want_nnz, [rows, cols], d)
        );
        canonical(&a)?;
        let v = a.values().to_vec()?;
        assert!(v.iter().all(|x| (0.0..1.0).contains(x)), "values {v:?}");
        assert_eq!(
            v,
            on_cpu.values().to_vec()?,
            "the same seed on both backends"
        );
        assert_eq!(
            a.indices().to_i64().to_vec()?,
            on_cpu.indices().to_i64().to_vec()?
        );
        if want_nnz > 1 {
            let other = with_device(d, || SparseArray::<f64>::random([rows, cols], density, 43))?;
            assert_ne!(v, other.values().to_vec()?, "another seed");
            // The values are spread over [0, 1): their mean is near 1/2.
            let mean = v.iter().sum::<f64>() / v.len() as f64;
            assert!(
                want_nnz < 10 || (mean - 0.5).abs() < 0.5 / (want_nnz as f64).sqrt() * 4.0,
                "mean {mean}"
            );
        }
    }
    with_device(d, || {
        assert_err(
            SparseArray::<f64>::random([3, 3], 1.5, 1),
            "InvalidArgument",
            "density 1.5 is outside [0, 1]",
        );
        assert_err(
            SparseArray::<f64>::random([3, 3], f64::NAN, 1),
            "InvalidArgument",
            "density NaN",
        );
        // Element counts, offsets and diagonals past the host's memory are refused, named.
        assert_err(
            SparseArray::<f64>::random([1 << 31, 1 << 31], 1.0, 1),
            "InvalidArgument",
            "4611686018427387904 elements",
        );
        // CSR holds `rows + 1` offsets whatever the element count; COO holds none.
        assert_err(
            SparseArray::<f64>::random([1 << 60, 1], 0.0, 1),
            "InvalidArgument",
            "[1152921504606846976, 1]",
        );
        assert_err(
            SparseArray::<f64>::from_triplets([1 << 60, 1], &[0u64], &[0u64], &[1.0]),
            "InvalidArgument",
            "[1152921504606846976, 1]",
        );
        let coo = SparseArray::<f64>::from_coo([1 << 60, 1], &[0u64], &[0u64], &[1.0])?;
        assert_eq!(coo.nnz(), 1);
        assert_err(
            SparseArray::<f64>::eye(1 << 60),
            "InvalidArgument",
            "[1152921504606846976, 1152921504606846976]",
        );
        Ok(())
    })
}

fn structure_bad_input(d: Device) -> TestResult {
    with_device(d, || {
        let a = SparseArray::from_triplets([2, 3], &[0, 1], &[1, 2], &[1.0f64, 2.0])?;
        assert_err(
            a.slice_rows(2, 1),
            "Index",
            "rows 2..1 of a matrix of 2 rows",
        );
        assert_err(a.slice_rows(0, 3), "Index", "rows 0..3");
        assert_err(a.sum_axes(&[2]), "Axis", "axis 2 is out of range");
        assert_err(a.sum_axes(&[0, -2]), "Axis", "axis 0 given twice");
        assert_err(a.sum_axes(&[]), "Axis", "no axis given");
        let d3 = Array::from_slice(&[1.0f64; 2], &[2])?;
        assert_err(
            a.add_dense(&d3),
            "Shape",
            "shape [2] does not broadcast to the matrix's shape [2, 3]",
        );
        let big = Array::from_slice(&[1.0f64; 12], &[2, 2, 3])?;
        assert_err(a.add_dense(&big), "Shape", "does not broadcast");
        assert_err(
            a.map_values(|v| v.reshape(&[1, 2])),
            "Shape",
            "2 stored elements",
        );
        let huge = SparseArray::<f64>::from_coo([1 << 40, 1 << 40], &[0u64], &[0u64], &[1.0])?;
        assert_err(huge.kron(&huge), "Shape", "overflow");
        Ok(())
    })
}

fn triangular_t<T: V + cuprite_array::Float>(d: Device) -> TestResult {
    with_device(d, || {
        let mut rng = Rng::fresh();
        for n in [0usize, 1, 9, 40] {
            // A full random matrix with a dominant diagonal; one triangle is read.
            let (mut r, mut c, mut v) = draw::<T>(&mut rng, n, n, 0.3);
            let keep: Vec<usize> = (0..r.len()).filter(|&k| r[k] != c[k]).collect();
            (r, c, v) = (
                keep.iter().map(|&k| r[k]).collect(),
                keep.iter().map(|&k| c[k]).collect(),
                keep.iter().map(|&k| v[k]).collect(),
            );
            for i in 0..n {
                r.push(i);
                c.push(i);
                v.push(T::of(C::new(if i % 2 == 0 { 3.0 } else { -2.5 }, 0.0)));
            }
            let ad = dense_ref(n, n, &r, &c, &v);
            let b: Vec<T> = (0..n).map(|_| T::draw(&mut rng)).collect();
            let ba = Array::from_slice(&b, &[n])?;
            let base = SparseArray::from_triplets([n, n], &r, &c, &v)?;
            for f in FORMATS {
                for index in [IndexType::I32, IndexType::I64] {
                    let a = base.to_format(f)?.with_index_type(index)?;
                    for lower in [true, false] {
                        for unit in [false, true] {
                            let opts = TriangularOpts::new().lower(lower).unit_diagonal(unit);
                            let x = to_c(&a.spsolve_triangular_with(&ba, opts)?.to_vec()?);
                            // The residual of the triangle read, in f64.
                            let (mut worst, mut scale) = (0.0f64, 0.0f64);
                            let xmax = x.iter().map(|z| z.norm()).fold(0.0, f64::max);
                            for i in 0..n {
                                let mut s = C::new(0.0, 0.0);
                                let mut row_abs = 0.0;
                                for j in 0..n {
                                    let inside = if lower { j < i } else { j > i };
                                    let aij = if i == j && unit {
                                        C::new(1.0, 0.0)
                                    } else if i == j || inside {
                                        ad[i * n + j]
                                    } else {
                                        C::new(0.0, 0.0)
                                    };
                                    s += aij * x[j];
                                    row_abs += aij.norm();
                                }
                                worst = worst.max((s - b[i].to_c64()).norm());
                                scale = scale.max(row_abs * xmax + b[i].to_c64().norm());
                            }
                            let bound = 8.0 * (n + 1) as f64 * T::U * scale;
                            let tag = format!("n={n} {f:?} {index:?} lower={lower} unit={unit}");
                            assert!(worst <= bound, "{tag}: residual {worst:e} > {bound:e}");
                            assert!(x.iter().all(|z| z.re.is_finite()), "{tag}");
                        }
                    }
                }
            }
        }
        let hole =
            SparseArray::from_triplets([2, 2], &[0, 1], &[0, 0], &[T::of(C::new(1.0, 0.0)); 2])?;
        let b2 = Array::from_slice(&[T::of(C::new(1.0, 0.0)); 2], &[2])?;
        assert_err(hole.spsolve_triangular(&b2), "Singular", "A[1, 1] is zero");
        // With ones taken as the diagonal, the hole does not matter.
        let x = hole.spsolve_triangular_with(&b2, TriangularOpts::new().unit_diagonal(true))?;
        exact(
            "unit diagonal",
            &to_c(&x.to_vec()?),
            &[C::new(1.0, 0.0), C::new(0.0, 0.0)],
        )?;
        // Nothing stored, ones taken as the diagonal: x = b.
        let empty = SparseArray::<T>::from_triplets::<usize>([2, 2], &[], &[], &[])?;
        let x = empty.spsolve_triangular_with(&b2, TriangularOpts::new().unit_diagonal(true))?;
        exact(
            "empty, unit diagonal",
            &to_c(&x.to_vec()?),
            &to_c(&b2.to_vec()?),
        )?;
        assert_err(empty.spsolve_triangular(&b2), "Singular", "A[0, 0] is zero");
        let rect = SparseArray::from_triplets([2, 3], &[0], &[0], &[T::of(C::new(1.0, 0.0))])?;
        assert_err(rect.spsolve_triangular(&b2), "Shape", "must be square");
        let b3 = Array::from_slice(&[T::of(C::new(1.0, 0.0)); 3], &[3])?;
        assert_err(
            hole.spsolve_triangular(&b3),
            "Shape",
            "b has shape [3], expected [2]",
        );
        Ok(())
    })
}

fn triangular(d: Device) -> TestResult {
    triangular_t::<f64>(d)?;
    triangular_t::<f32>(d)
}

const BODIES: &[(&str, Body)] = &[
    ("from_arrays", from_arrays),
    ("solvers_laplacian", solvers_laplacian),
    ("solvers_random", solvers_random),
    ("solvers_edges", solvers_edges),
    ("structure", structure),
    ("random_matrices", random_matrices),
    ("structure_bad_input", structure_bad_input),
    ("triangular", triangular),
];

pub fn tests() -> Vec<Test> {
    let mut v = Vec::new();
    for &(name, body) in BODIES {
        v.push(Test::cpu(format!("cpu::sparse_more::{name}"), move || {
            body(Device::CPU)
        }));
        v.push(Test::gpu(format!("cuda::sparse_more::{name}"), move || {
            body(Device::cuda(0))
        }));
    }
    v
}
