//! Sparse solves beyond one right-hand side: `spsm` (several right-hand sides, every
//! triangle, diagonal and transpose option) against a dense f64 residual computed here; the
//! incomplete factorisations ILU(0) and IC(0), checked by their defining property (the
//! product of the factors equals `A` on the pattern of `A`) and as preconditioners (fewer
//! iterations than Jacobi, the residual recomputed here from a dense reference); `eigsh`
//! against spectra known in closed form (the 2-D Laplacian, `Q·D·Qᵀ` for a Householder `Q`),
//! its eigenvectors by their residual and orthonormality in f64. Bodies run on every backend.

#![allow(clippy::needless_range_loop)] // index loops mirror the formulas they check
#![allow(clippy::neg_cmp_op_on_partial_ord)] // a NaN must fail every check

use crate::common::{Body, assert_err};
use crate::sparse::{C, FORMATS, V, dense_ref, draw, laplacian, rel_residual, to_c};
use cuprite_array::sparse::{
    EigshOpts, Ic0, Ilu0, IndexType, Jacobi, Preconditioner, Reorthogonalization, SolveOpts,
    SolveResult, SparseArray, SparseFormat, TriangularOpts, Which, bicgstab_with, cg_with,
    eigsh_with, gmres_with,
};
use cuprite_array::{Array, Device, with_device};
use cuprite_testkit::{Rng, Test, TestResult};

/// A random `n × n` matrix with both triangles filled and a diagonal of ±3, ±2.5 (dense
/// reference and sparse form).
fn triangular_matrix<T: V>(rng: &mut Rng, n: usize) -> Result<(SparseArray<T>, Vec<C>), String> {
    let (mut r, mut c, mut v) = draw::<T>(rng, n, n, 0.3);
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
    let a = SparseArray::from_triplets([n, n], &r, &c, &v).map_err(|e| e.to_string())?;
    Ok((a, ad))
}

/// The dense `op(T)` that `opts` reads from the dense `ad` (`n × n`, row-major).
fn op_triangle(ad: &[C], n: usize, opts: TriangularOpts) -> Vec<C> {
    let mut t = vec![C::new(0.0, 0.0); n * n];
    for i in 0..n {
        for j in 0..n {
            let inside = if opts.is_lower() { j < i } else { j > i };
            let v = if i == j && opts.is_unit_diagonal() {
                C::new(1.0, 0.0)
            } else if i == j || inside {
                ad[i * n + j]
            } else {
                continue;
            };
            if opts.is_transpose() {
                t[j * n + i] = v;
            } else {
                t[i * n + j] = v;
            }
        }
    }
    t
}

/// Checks `op(T) · X = B` for the row-major `n × k` `x` and `b`: the residual of every
/// column within `8·(n+1)·u·(Σ|t||x| + |b|)`.
fn check_solve<T: V>(tag: &str, t: &[C], n: usize, k: usize, x: &[C], b: &[C]) -> TestResult {
    for q in 0..k {
        let (mut worst, mut scale) = (0.0f64, 0.0f64);
        let xmax = (0..n).map(|j| x[j * k + q].norm()).fold(0.0, f64::max);
        for i in 0..n {
            let (mut s, mut row_abs) = (C::new(0.0, 0.0), 0.0);
            for j in 0..n {
                s += t[i * n + j] * x[j * k + q];
                row_abs += t[i * n + j].norm();
            }
            worst = worst.max((s - b[i * k + q]).norm());
            scale = scale.max(row_abs * xmax + b[i * k + q].norm());
        }
        let bound = 8.0 * (n + 1) as f64 * T::U * scale;
        if !(worst <= bound) {
            return Err(format!("{tag} column {q}: residual {worst:e} > {bound:e}").into());
        }
    }
    Ok(())
}

fn spsm_t<T: V + cuprite_array::Float>(d: Device) -> TestResult {
    with_device(d, || {
        let mut rng = Rng::fresh();
        for n in [1usize, 9, 40] {
            let (base, ad) = triangular_matrix::<T>(&mut rng, n)?;
            for k in [1usize, 3] {
                let b: Vec<T> = (0..n * k).map(|_| T::draw(&mut rng)).collect();
                let bc = to_c(&b);
                let ba = Array::from_slice(&b, &[n, k])?;
                for f in FORMATS {
                    for index in [IndexType::I32, IndexType::I64] {
                        let a = base.to_format(f)?.with_index_type(index)?;
                        for lower in [true, false] {
                            for unit in [false, true] {
                                for transpose in [false, true] {
                                    let opts = TriangularOpts::new()
                                        .lower(lower)
                                        .unit_diagonal(unit)
                                        .transpose(transpose);
                                    let tag = format!(
                                        "n={n} k={k} {f:?} {index:?} lower={lower} unit={unit} \
                                         transpose={transpose}"
                                    );
                                    let x = a.spsm(&ba, opts)?;
                                    assert_eq!(x.shape(), [n, k], "{tag}");
                                    let t = op_triangle(&ad, n, opts);
                                    check_solve::<T>(&tag, &t, n, k, &to_c(&x.to_vec()?), &bc)?;
                                    // The same through spsolve_triangular: a 2-D b goes to
                                    // spsm, a column alone to SpSV with the same options.
                                    let x2 = a.spsolve_triangular_with(&ba, opts)?;
                                    check_solve::<T>(&tag, &t, n, k, &to_c(&x2.to_vec()?), &bc)?;
                                    if k == 1 {
                                        let b1 = Array::from_slice(&b, &[n])?;
                                        let x1 = a.spsolve_triangular_with(&b1, opts)?;
                                        assert_eq!(x1.shape(), [n], "{tag}");
                                        check_solve::<T>(
                                            &tag,
                                            &t,
                                            n,
                                            1,
                                            &to_c(&x1.to_vec()?),
                                            &bc,
                                        )?;
                                    }
                                }
                            }
                        }
                    }
                }
            }
        }
        // Edges: no right-hand side, an empty matrix, bad shapes, a zero pivot.
        let (a, _) = triangular_matrix::<T>(&mut rng, 4)?;
        let none = Array::<T>::zeros(&[4, 0]);
        assert_eq!(a.spsm(&none, TriangularOpts::new())?.shape(), [4, 0]);
        let e = SparseArray::<T>::from_triplets::<usize>([0, 0], &[], &[], &[])?;
        assert_eq!(
            e.spsm(&Array::<T>::zeros(&[0, 2]), TriangularOpts::new())?
                .shape(),
            [0, 2]
        );
        assert_err(
            a.spsm(&Array::<T>::zeros(&[3, 2]), TriangularOpts::new()),
            "Shape",
            "b has shape [3, 2], expected [4, k]",
        );
        assert_err(
            a.spsm(&Array::<T>::zeros(&[4]), TriangularOpts::new()),
            "Shape",
            "spsm: B has shape [4], expected [4, k]",
        );
        assert_err(
            a.spsolve_triangular(&Array::<T>::zeros(&[4, 1, 1])),
            "Shape",
            "b has shape [4, 1, 1]",
        );
        let hole =
            SparseArray::from_triplets([2, 2], &[0, 1], &[0, 0], &[T::of(C::new(1.0, 0.0)); 2])?;
        assert_err(
            hole.spsm(
                &Array::<T>::zeros(&[2, 2]),
                TriangularOpts::new().transpose(true),
            ),
            "Singular",
            "A[1, 1] is zero",
        );
        Ok(())
    })
}

fn spsm(d: Device) -> TestResult {
    spsm_t::<f64>(d)?;
    spsm_t::<f32>(d)
}

/// The CSR pattern and values of `a` on the host: `(offsets, columns, values in f64)`.
fn csr_host<T: V>(a: &SparseArray<T>) -> Result<(Vec<usize>, Vec<usize>, Vec<f64>), String> {
    let a = a.to_format(SparseFormat::Csr).map_err(|e| e.to_string())?;
    let get = |x: cuprite_array::Result<Vec<i64>>| -> Result<Vec<usize>, String> {
        Ok(x.map_err(|e| e.to_string())?
            .iter()
            .map(|&v| v as usize)
            .collect())
    };
    let off = get(a.offsets().ok_or("no offsets")?.to_i64().to_vec())?;
    let idx = get(a.indices().to_i64().to_vec())?;
    let vals = a.values().to_vec().map_err(|e| e.to_string())?;
    Ok((off, idx, to_c(&vals).iter().map(|z| z.re).collect()))
}

/// Dense row-major form of CSR host data.
fn dense_of(n: usize, off: &[usize], idx: &[usize], vals: &[f64]) -> Vec<f64> {
    let mut d = vec![0.0; n * n];
    for i in 0..n {
        for p in off[i]..off[i + 1] {
            d[i * n + idx[p]] = vals[p];
        }
    }
    d
}

/// Checks an ILU(0) factor of `a` (dense `ad`): the same pattern as `A`, and `(L·U)[i, j] =
/// A[i, j]` at every stored position (`L` unit lower, `U` upper, both read from the factor).
fn check_ilu<T: V>(tag: &str, a: &SparseArray<T>, ad: &[C], f: &SparseArray<T>) -> TestResult {
    let n = a.shape()[0];
    let (ao, ai, _) = csr_host(a)?;
    let (fo, fi, fv) = csr_host(f)?;
    assert_eq!((&ao, &ai), (&fo, &fi), "{tag}: the factor's pattern is A's");
    let fd = dense_of(n, &fo, &fi, &fv);
    let l = |i: usize, k: usize| {
        if k == i {
            1.0
        } else if k < i {
            fd[i * n + k]
        } else {
            0.0
        }
    };
    let u = |k: usize, j: usize| if k <= j { fd[k * n + j] } else { 0.0 };
    for i in 0..n {
        for p in ao[i]..ao[i + 1] {
            let j = ai[p];
            let (mut s, mut mag) = (0.0, 0.0);
            for k in 0..n {
                s += l(i, k) * u(k, j);
                mag += (l(i, k) * u(k, j)).abs();
            }
            let want = ad[i * n + j].re;
            let bound = 16.0 * n as f64 * T::U * (mag + want.abs());
            if !((s - want).abs() <= bound) {
                return Err(
                    format!("{tag}: (L·U)[{i}, {j}] = {s}, A = {want} (bound {bound:e})").into(),
                );
            }
        }
    }
    Ok(())
}

/// Checks an IC(0) factor `L` of the symmetric `a`: the pattern of `A`'s lower triangle, a
/// positive diagonal, and `(L·Lᵀ)[i, j] = A[i, j]` at every stored `j ≤ i`.
fn check_ic<T: V>(tag: &str, a: &SparseArray<T>, ad: &[C], f: &SparseArray<T>) -> TestResult {
    let n = a.shape()[0];
    let (ao, ai, _) = csr_host(a)?;
    let (fo, fi, fv) = csr_host(f)?;
    let mut lower = Vec::new();
    for i in 0..n {
        for p in ao[i]..ao[i + 1] {
            if ai[p] <= i {
                lower.push((i, ai[p]));
            }
        }
    }
    let mut got = Vec::new();
    for i in 0..n {
        for p in fo[i]..fo[i + 1] {
            got.push((i, fi[p]));
        }
    }
    assert_eq!(
        got, lower,
        "{tag}: the factor's pattern is A's lower triangle"
    );
    let ld = dense_of(n, &fo, &fi, &fv);
    for &(i, j) in &lower {
        let (mut s, mut mag) = (0.0, 0.0);
        for k in 0..n {
            s += ld[i * n + k] * ld[j * n + k];
            mag += (ld[i * n + k] * ld[j * n + k]).abs();
        }
        let want = ad[i * n + j].re;
        let bound = 16.0 * n as f64 * T::U * (mag + want.abs());
        if !((s - want).abs() <= bound) {
            return Err(
                format!("{tag}: (L·Lᵀ)[{i}, {j}] = {s}, A = {want} (bound {bound:e})").into(),
            );
        }
        if i == j && !(ld[i * n + i] > 0.0) {
            return Err(format!("{tag}: L[{i}, {i}] = {} is not positive", ld[i * n + i]).into());
        }
    }
    Ok(())
}

/// A nonsymmetric convection-diffusion matrix on a `g × g` grid: the 5-point Laplacian plus
/// first-order upwind convection of strength `c` along the rows (triplets).
fn convection_diffusion(g: usize, c: f64) -> (Vec<usize>, Vec<usize>, Vec<f64>) {
    let (mut r, mut cc, mut v) = laplacian(g);
    for p in 0..g * g {
        r.push(p);
        cc.push(p);
        v.push(c);
        if p % g > 0 {
            r.push(p);
            cc.push(p - 1);
            v.push(-c);
        }
    }
    (r, cc, v)
}

/// A random symmetric, strictly diagonally dominant matrix with a positive diagonal (so
/// positive definite, and IC(0) exists), dense reference and sparse form.
fn dominant_spd<T: V>(rng: &mut Rng, n: usize) -> Result<(SparseArray<T>, Vec<C>), String> {
    let (r0, c0, v0) = draw::<T>(rng, n, n, 0.15);
    let (mut r, mut c, mut v) = (vec![], vec![], vec![]);
    for k in 0..r0.len() {
        if r0[k] > c0[k] {
            r.extend([r0[k], c0[k]]);
            c.extend([c0[k], r0[k]]);
            v.extend([v0[k], v0[k]]);
        }
    }
    let ad0 = dense_ref(n, n, &r, &c, &v);
    for i in 0..n {
        let row: f64 = (0..n).map(|j| ad0[i * n + j].norm()).sum();
        r.push(i);
        c.push(i);
        v.push(T::of(C::new(row + 0.5, 0.0)));
    }
    let ad = dense_ref(n, n, &r, &c, &v);
    let a = SparseArray::from_triplets([n, n], &r, &c, &v).map_err(|e| e.to_string())?;
    Ok((a, ad))
}

fn incomplete_t<T: V + cuprite_array::Float + cuprite_array::Transcendental>(
    d: Device,
) -> TestResult {
    with_device(d, || {
        let mut rng = Rng::fresh();
        for n in [1usize, 12, 50] {
            let (a, ad) = dominant_spd::<T>(&mut rng, n)?;
            for f in FORMATS {
                let af = a.to_format(f)?;
                check_ilu::<T>(
                    &format!("ilu0 spd n={n} {f:?}"),
                    &a,
                    &ad,
                    Ilu0::new(&af)?.factor(),
                )?;
                check_ic::<T>(
                    &format!("ic0 spd n={n} {f:?}"),
                    &a,
                    &ad,
                    Ic0::new(&af)?.factor(),
                )?;
            }
            // A nonsymmetric matrix with a dominant diagonal: ILU(0) exists.
            let (mut r, mut c, mut v) = draw::<T>(&mut rng, n, n, 0.2);
            let ad0 = dense_ref(n, n, &r, &c, &v);
            for i in 0..n {
                let row: f64 = (0..n).map(|j| ad0[i * n + j].norm()).sum();
                r.push(i);
                c.push(i);
                v.push(T::of(C::new(-(row + 1.0), 0.0)));
            }
            let ad = dense_ref(n, n, &r, &c, &v);
            let a = SparseArray::from_triplets([n, n], &r, &c, &v)?;
            check_ilu::<T>(
                &format!("ilu0 nonsymmetric n={n}"),
                &a,
                &ad,
                Ilu0::new(&a)?.factor(),
            )?;
        }
        // The 2-D Laplacian: fill-in is dropped, so the factors differ from the exact ones;
        // the defining property still holds.
        let g = 7;
        let (r, c, v) = laplacian(g);
        let vt: Vec<T> = v.iter().map(|&x| T::of(C::new(x, 0.0))).collect();
        let n = g * g;
        let a = SparseArray::from_triplets([n, n], &r, &c, &vt)?;
        let ad = dense_ref(n, n, &r, &c, &vt);
        check_ilu::<T>("ilu0 laplacian", &a, &ad, Ilu0::new(&a)?.factor())?;
        check_ic::<T>("ic0 laplacian", &a, &ad, Ic0::new(&a)?.factor())?;
        // The i64-indexed form factors the same way.
        let a64 = a.with_index_type(IndexType::I64)?;
        check_ilu::<T>("ilu0 i64", &a, &ad, Ilu0::new(&a64)?.factor())?;
        check_ic::<T>("ic0 i64", &a, &ad, Ic0::new(&a64)?.factor())?;
        // The apply: M⁻¹·(L·U·x) = x for the ILU(0) factors (L·U = A on a tridiagonal A).
        let m = 8;
        let tri = SparseArray::diags(
            &[
                &vec![T::of(C::new(-1.0, 0.0)); m - 1],
                &vec![T::of(C::new(4.0, 0.0)); m],
                &vec![T::of(C::new(-2.0, 0.0)); m - 1],
            ],
            &[-1, 0, 1],
            [m, m],
        )?;
        let xs: Vec<T> = (0..m).map(|_| T::draw(&mut rng)).collect();
        let x = Array::from_slice(&xs, &[m])?;
        let back = to_c(&Ilu0::new(&tri)?.apply(&tri.spmv(&x)?)?.to_vec()?);
        for (g, w) in back.iter().zip(to_c(&xs)) {
            assert!((g - w).norm() <= 1e3 * T::U, "ilu0 apply: {g} vs {w}");
        }
        Ok(())
    })
}

fn incomplete_errors(d: Device) -> TestResult {
    with_device(d, || {
        // Row 1 stores no diagonal element: a zero pivot named by its row.
        let hole = SparseArray::from_triplets(
            [3, 3],
            &[0, 1, 2, 2],
            &[0, 0, 1, 2],
            &[2.0f64, 1.0, 1.0, 2.0],
        )?;
        assert_err(Ilu0::new(&hole), "Singular", "zero pivot in row 1");
        assert_err(Ic0::new(&hole), "Singular", "row 1");
        // An elimination that makes a pivot zero: [[1, 1], [1, 1]].
        let flat = SparseArray::from_triplets([2, 2], &[0, 0, 1, 1], &[0, 1, 0, 1], &[1.0f64; 4])?;
        assert_err(Ilu0::new(&flat), "Singular", "row 1");
        assert_err(Ic0::new(&flat), "Singular", "row 1");
        // Indefinite: IC(0) meets a negative pivot in row 0.
        let neg = SparseArray::diags(&[&[-1.0f64, 2.0]], &[0], [2, 2])?;
        assert_err(Ic0::new(&neg), "Singular", "pivot of row 0 is -1");
        // ILU(0) takes it (nonzero pivots).
        assert!(Ilu0::new(&neg).is_ok());
        let rect = SparseArray::from_triplets([2, 3], &[0], &[0], &[1.0f64])?;
        assert_err(Ilu0::new(&rect), "Shape", "must be square");
        assert_err(Ic0::new(&rect), "Shape", "must be square");
        let m = Ilu0::new(&SparseArray::<f64>::eye(3)?)?;
        assert_err(
            m.apply(&Array::from_slice(&[1.0f64; 2], &[2])?),
            "Shape",
            "expected [3]",
        );
        // An empty matrix factors to nothing.
        let e = SparseArray::<f64>::from_triplets::<usize>([0, 0], &[], &[], &[])?;
        assert_eq!(Ilu0::new(&e)?.factor().nnz(), 0);
        assert_eq!(Ic0::new(&e)?.factor().nnz(), 0);
        Ok(())
    })
}

type Solver = for<'a> fn(
    &SparseArray<f64>,
    &Array<f64>,
    SolveOpts<'a, f64>,
) -> cuprite_array::Result<SolveResult<f64>>;

/// Iterations of `solve` with `m` to `rtol` (checked every iteration), after checking
/// convergence and the true residual recomputed here from the dense `ad`.
fn iterations(
    tag: &str,
    solve: Solver,
    a: &SparseArray<f64>,
    ad: &[C],
    b: &[f64],
    m: &dyn Preconditioner<f64>,
) -> Result<usize, String> {
    let n = b.len();
    let rtol = 1e-10;
    let ba = Array::from_slice(b, &[n]).map_err(|e| e.to_string())?;
    let opts = SolveOpts::new()
        .rtol(rtol)
        .check_every(1)
        .maxiter(5000)
        .preconditioner(m);
    let res = solve(a, &ba, opts).map_err(|e| e.to_string())?;
    let x = res.x.to_vec().map_err(|e| e.to_string())?;
    let rel = rel_residual(ad, n, &to_c(&x), &to_c(b));
    if !(res.converged && rel <= 2.0 * rtol) {
        return Err(format!(
            "{tag}: converged {} residual {rel:e}",
            res.converged
        ));
    }
    Ok(res.iterations)
}

fn incomplete_preconditioners(d: Device) -> TestResult {
    with_device(d, || {
        let mut rng = Rng::fresh();
        let g = 16;
        let n = g * g;
        let b: Vec<f64> = (0..n).map(|_| f64::draw(&mut rng)).collect();
        // cg on the 2-D Laplacian: IC(0) against Jacobi.
        let (r, c, v) = laplacian(g);
        let a = SparseArray::from_triplets([n, n], &r, &c, &v)?;
        let ad = dense_ref(n, n, &r, &c, &v);
        let jac = Jacobi::new(&a)?;
        let ic = Ic0::new(&a)?;
        let with_jacobi = iterations("cg jacobi", cg_with, &a, &ad, &b, &jac)?;
        let with_ic = iterations("cg ic0", cg_with, &a, &ad, &b, &ic)?;
        assert!(
            with_ic < with_jacobi,
            "cg: ic0 {with_ic} vs jacobi {with_jacobi}"
        );
        // gmres and bicgstab on convection-diffusion: ILU(0) against Jacobi.
        let (r, c, v) = convection_diffusion(g, 2.0);
        let a = SparseArray::from_triplets([n, n], &r, &c, &v)?;
        let ad = dense_ref(n, n, &r, &c, &v);
        let jac = Jacobi::new(&a)?;
        let ilu = Ilu0::new(&a)?;
        for (name, solve) in [("gmres", gmres_with as Solver), ("bicgstab", bicgstab_with)] {
            let with_jacobi = iterations(&format!("{name} jacobi"), solve, &a, &ad, &b, &jac)?;
            let with_ilu = iterations(&format!("{name} ilu0"), solve, &a, &ad, &b, &ilu)?;
            assert!(
                with_ilu < with_jacobi,
                "{name}: ilu0 {with_ilu} vs jacobi {with_jacobi}"
            );
        }
        Ok(())
    })
}

fn incomplete(d: Device) -> TestResult {
    incomplete_t::<f64>(d)?;
    incomplete_t::<f32>(d)
}

/// The 5-point Laplacian of a `gx × gy` grid (Dirichlet boundary) as triplets, and its
/// eigenvalues `4·sin²(π·i / (2·(gx+1))) + 4·sin²(π·j / (2·(gy+1)))`, ascending.
fn laplacian_rect(gx: usize, gy: usize) -> ((Vec<usize>, Vec<usize>, Vec<f64>), Vec<f64>) {
    let (mut r, mut c, mut v) = (vec![], vec![], vec![]);
    for x in 0..gx {
        for y in 0..gy {
            let p = x * gy + y;
            let mut put = |q: usize, val: f64| {
                r.push(p);
                c.push(q);
                v.push(val);
            };
            put(p, 4.0);
            if x > 0 {
                put(p - gy, -1.0);
            }
            if x + 1 < gx {
                put(p + gy, -1.0);
            }
            if y > 0 {
                put(p - 1, -1.0);
            }
            if y + 1 < gy {
                put(p + 1, -1.0);
            }
        }
    }
    let s2 = |i: usize, g: usize| {
        let s = (std::f64::consts::PI * i as f64 / (2.0 * (g + 1) as f64)).sin();
        4.0 * s * s
    };
    let mut ev = Vec::new();
    for i in 1..=gx {
        for j in 1..=gy {
            ev.push(s2(i, gx) + s2(j, gy));
        }
    }
    ev.sort_by(f64::total_cmp);
    ((r, c, v), ev)
}

/// Checks an `eigsh` result against the ascending spectrum `all` of the dense `ad`: the
/// values (within `tol`), and the vectors' residuals `‖A·y − λ·y‖` and orthonormality.
fn check_eigs<T: V + cuprite_array::Float>(
    tag: &str,
    ad: &[C],
    n: usize,
    all: &[f64],
    which: Which,
    r: &cuprite_array::sparse::EigshResult<T>,
    tol: f64,
) -> TestResult {
    let k = r.values.len();
    let want: Vec<f64> = match which {
        Which::Largest => all[n - k..].to_vec(),
        Which::Smallest => all[..k].to_vec(),
    };
    let scale = all.iter().fold(0.0f64, |s, v| s.max(v.abs()));
    for (g, w) in r.values.iter().zip(&want) {
        if !((g - w).abs() <= tol * scale) {
            return Err(format!("{tag}: eigenvalues {:?}, want {want:?}", r.values).into());
        }
    }
    if let Some(vecs) = &r.vectors {
        assert_eq!(vecs.shape(), [n, k], "{tag}");
        let y = to_c(&vecs.to_vec().map_err(|e| e.to_string())?);
        for q in 0..k {
            let mut res = 0.0f64;
            for i in 0..n {
                let mut s = C::new(0.0, 0.0);
                for j in 0..n {
                    s += ad[i * n + j] * y[j * k + q];
                }
                res += (s - y[i * k + q] * r.values[q]).norm_sqr();
            }
            let res = res.sqrt();
            if !(res <= tol.sqrt() * scale) {
                return Err(format!("{tag}: vector {q}: residual {res:e}").into());
            }
            for p in 0..k {
                let d: f64 = (0..n).map(|i| (y[i * k + p] * y[i * k + q]).re).sum();
                let e = if p == q { 1.0 } else { 0.0 };
                if !((d - e).abs() <= tol.sqrt()) {
                    return Err(format!("{tag}: y{p}·y{q} = {d}").into());
                }
            }
        }
    }
    Ok(())
}

fn eigsh_t<T: V + cuprite_array::Float + cuprite_array::Transcendental>(
    d: Device,
    tol: f64,
) -> TestResult {
    with_device(d, || {
        let modes = [Reorthogonalization::Full, Reorthogonalization::Selective];
        // A square grid (double eigenvalues) and a rectangular one.
        for (gx, gy) in [(9, 9), (11, 7)] {
            let ((r, c, v), all) = laplacian_rect(gx, gy);
            let n = gx * gy;
            let vt: Vec<T> = v.iter().map(|&x| T::of(C::new(x, 0.0))).collect();
            let a = SparseArray::from_triplets([n, n], &r, &c, &vt)?;
            let ad = dense_ref(n, n, &r, &c, &vt);
            for which in [Which::Largest, Which::Smallest] {
                for reorth in modes {
                    // Vectors with one mode of each end, without with the other.
                    {
                        let vectors =
                            (reorth == Reorthogonalization::Full) == (which == Which::Largest);
                        let opts = EigshOpts::new(4)
                            .which(which)
                            .reorthogonalization(reorth)
                            .return_eigenvectors(vectors);
                        let res = eigsh_with(&a, opts)?;
                        let tag =
                            format!("laplacian {gx}x{gy} {which:?} {reorth:?} vectors={vectors}");
                        assert!(res.converged, "{tag}: not converged");
                        assert_eq!(res.values.len(), 4, "{tag}");
                        assert_eq!(res.vectors.is_some(), vectors, "{tag}");
                        check_eigs(&tag, &ad, n, &all, which, &res, tol)?;
                    }
                }
            }
        }
        // Q·D·Qᵀ with Q = I − 2·u·uᵀ: a dense symmetric matrix with the spectrum D.
        let n = 24;
        let dvals: Vec<f64> = (0..n)
            .map(|i| (i as f64 * 0.37).sin() * 5.0 + i as f64 * 0.1)
            .collect();
        let u: Vec<f64> = {
            let raw: Vec<f64> = (0..n).map(|i| 1.0 + (i as f64).cos()).collect();
            let nrm = raw.iter().map(|x| x * x).sum::<f64>().sqrt();
            raw.iter().map(|x| x / nrm).collect()
        };
        let q = |i: usize, j: usize| (if i == j { 1.0 } else { 0.0 }) - 2.0 * u[i] * u[j];
        let (mut r, mut c, mut v) = (vec![], vec![], vec![]);
        for i in 0..n {
            for j in 0..n {
                let s: f64 = (0..n).map(|p| q(i, p) * dvals[p] * q(j, p)).sum();
                r.push(i);
                c.push(j);
                v.push(T::of(C::new(s, 0.0)));
            }
        }
        let a = SparseArray::from_triplets([n, n], &r, &c, &v)?;
        let ad = dense_ref(n, n, &r, &c, &v);
        let mut all = dvals.clone();
        all.sort_by(f64::total_cmp);
        for which in [Which::Largest, Which::Smallest] {
            for reorth in modes {
                let opts = EigshOpts::new(3)
                    .which(which)
                    .ncv(10)
                    .reorthogonalization(reorth)
                    .return_eigenvectors(true);
                let res = eigsh_with(&a, opts)?;
                let tag = format!("householder {which:?} {reorth:?}");
                assert!(res.converged, "{tag}");
                check_eigs(&tag, &ad, n, &all, which, &res, tol)?;
            }
        }
        // k = n = ncv: the whole spectrum.
        let small = SparseArray::diags(
            &[&[
                T::of(C::new(3.0, 0.0)),
                T::of(C::new(-1.0, 0.0)),
                T::of(C::new(2.0, 0.0)),
            ]],
            &[0],
            [3, 3],
        )?;
        let res = eigsh_with(&small, EigshOpts::new(3).ncv(3))?;
        let sd = dense_ref(3, 3, &[0, 1, 2], &[0, 1, 2], &[3.0f64, -1.0, 2.0]);
        check_eigs(
            "k = n",
            &sd,
            3,
            &[-1.0, 2.0, 3.0],
            Which::Largest,
            &res,
            tol,
        )?;
        // Bad options name themselves.
        assert_err(
            eigsh_with(&small, EigshOpts::new(0)),
            "InvalidArgument",
            "k = 0",
        );
        assert_err(
            eigsh_with(&small, EigshOpts::new(4)),
            "InvalidArgument",
            "k = 4",
        );
        // A k whose default ncv `2 k + 1` overflows is refused as past n, not an overflow.
        assert_err(
            eigsh_with(&small, EigshOpts::new(usize::MAX)),
            "InvalidArgument",
            &format!("k = {}", usize::MAX),
        );
        assert_err(
            eigsh_with(&small, EigshOpts::new(2).ncv(2)),
            "InvalidArgument",
            "ncv = 2",
        );
        assert_err(
            eigsh_with(&small, EigshOpts::new(1).tol(-1.0)),
            "InvalidArgument",
            "tol",
        );
        let rect = SparseArray::from_triplets([2, 3], &[0], &[0], &[T::of(C::new(1.0, 0.0))])?;
        assert_err(
            eigsh_with(&rect, EigshOpts::new(1)),
            "Shape",
            "must be square",
        );
        Ok(())
    })
}

fn eigsh(d: Device) -> TestResult {
    eigsh_t::<f64>(d, 1e-9)?;
    eigsh_t::<f32>(d, 1e-4)
}

const BODIES: &[(&str, Body)] = &[
    ("eigsh", eigsh),
    ("spsm", spsm),
    ("incomplete", incomplete),
    ("incomplete_errors", incomplete_errors),
    ("incomplete_preconditioners", incomplete_preconditioners),
];

pub fn tests() -> Vec<Test> {
    let mut v = Vec::new();
    for &(name, body) in BODIES {
        v.push(Test::cpu(format!("cpu::sparse_solve::{name}"), move || {
            body(Device::CPU)
        }));
        v.push(Test::gpu(
            format!("cuda::sparse_solve::{name}"),
            move || body(Device::cuda(0)),
        ));
    }
    v
}
