//! A 2-D Poisson problem solved by conjugate gradients as a whole program: the 5-point
//! Laplacian of a `g × g` grid (Dirichlet boundary) assembled as a CSR matrix by array work on
//! the device, a right-hand side, and `sparse::cg` to a relative residual of 1e-6 in f64.
//!
//! ```text
//! cargo run --release -p cuprite-array --example poisson_cg             # 1024² grid
//! cargo run --release -p cuprite-array --example poisson_cg -- --quick  # 128² grid
//! CUPRITE_BACKEND=cpu cargo run --release -p cuprite-array --example poisson_cg -- --quick
//! ```
//!
//! The check is independent of the sparse code: the solution is downloaded and
//! `‖b − A·x‖ / ‖b‖` is computed on the host in f64 from the stencil itself
//! (`4·x[i, j]` minus the four neighbours inside the grid), never from the assembled matrix.
//! The right-hand side is a smooth load plus a point source, so the solution is not trivial.
//! It exits with an error when the residual is above twice the tolerance.

use cuprite_array::sparse::{SolveOpts, SparseArray, cg_with};
use cuprite_array::{Array, current_device, with_device};

/// The tolerance on `‖b − A·x‖ / ‖b‖`.
const TOL: f64 = 1e-6;

/// The 5-point Laplacian of a `g × g` grid as CSR component arrays built on the current
/// device: for each point `p = i·g + j` the candidate columns `p − g, p − 1, p, p + 1, p + g`
/// (in rising order) with values `-1, -1, 4, -1, -1`, kept where the neighbour is inside.
fn laplacian(g: usize) -> cuprite_array::Result<SparseArray<f64>> {
    let n = g * g;
    let gi = g as i64;
    let i = Array::<i64>::arange(0, gi, 1)?.reshape(&[g, 1, 1])?;
    let j = Array::<i64>::arange(0, gi, 1)?.reshape(&[1, g, 1])?;
    let p = &i * gi + &j; // [g, g, 1]
    // Offsets of the five candidates and their values, broadcast along the last axis.
    let step = Array::from_slice(&[-gi, -1, 0, 1, gi], &[1, 1, 5])?;
    let value = Array::from_slice(&[-1.0f64, -1.0, 4.0, -1.0, -1.0], &[1, 1, 5])?;
    let di = Array::from_slice(&[-1i64, 0, 0, 0, 1], &[1, 1, 5])?;
    let dj = Array::from_slice(&[0i64, -1, 0, 1, 0], &[1, 1, 5])?;
    let (ni, nj) = (&i + &di, &j + &dj);
    let inside = ni
        .try_greater_equal(0)?
        .try_and(&ni.try_less(gi)?)?
        .try_and(&nj.try_greater_equal(0)?)?
        .try_and(&nj.try_less(gi)?)?; // [g, g, 5]
    let cols = (&p + &step).masked_select(&inside)?;
    let vals = Array::<f64>::zeros(&[g, g, 5])
        .try_add(&value)?
        .masked_select(&inside)?;
    let counts = inside.cast::<i64>().sum_axes(&[2])?.reshape(&[n])?;
    let offsets = Array::concat(&[&Array::<i64>::zeros(&[1]), &counts.cumsum(0)?], 0)?;
    SparseArray::from_csr_arrays([n, n], offsets, cols, &vals)
}

/// The right-hand side at grid point `(i, j)` of a `g × g` grid: a smooth load and a unit
/// point source at a quarter of the way along both axes.
fn load(i: usize, j: usize, g: usize) -> f64 {
    let h = 1.0 / (g + 1) as f64;
    let (x, y) = ((i + 1) as f64 * h, (j + 1) as f64 * h);
    let source = if i == g / 4 && j == g / 4 { 1.0 } else { 0.0 };
    h * h * (1.0 + x * (1.0 - y)) + source
}

/// `‖b − A·x‖ / ‖b‖` in f64 from the stencil, on the host.
fn residual(x: &[f64], b: &[f64], g: usize) -> f64 {
    let (mut rr, mut bb) = (0.0f64, 0.0f64);
    for i in 0..g {
        for j in 0..g {
            let at = |ii: usize, jj: usize| x[ii * g + jj];
            let mut ax = 4.0 * at(i, j);
            if i > 0 {
                ax -= at(i - 1, j);
            }
            if i + 1 < g {
                ax -= at(i + 1, j);
            }
            if j > 0 {
                ax -= at(i, j - 1);
            }
            if j + 1 < g {
                ax -= at(i, j + 1);
            }
            let r = b[i * g + j] - ax;
            rr += r * r;
            bb += b[i * g + j] * b[i * g + j];
        }
    }
    (rr / bb).sqrt()
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    println!("{}", cuprite_array::info());
    let quick = std::env::args().any(|a| a == "--quick");
    let g = if quick { 128 } else { 1024 };
    let n = g * g;
    let device = current_device();

    let start = std::time::Instant::now();
    let a = with_device(device, || laplacian(g))?;
    let b_host: Vec<f64> = (0..n).map(|p| load(p / g, p % g, g)).collect();
    let b = Array::from_slice_on(device, &b_host, &[n])?;
    cuprite_array::sync(device)?;
    let assembled = start.elapsed();
    if a.nnz() != 5 * n - 4 * g {
        return Err(format!(
            "the Laplacian has {} nonzeros, not {}",
            a.nnz(),
            5 * n - 4 * g
        )
        .into());
    }

    let opts = SolveOpts::new().rtol(TOL).maxiter(20 * g).check_every(50);
    let start = std::time::Instant::now();
    let res = cg_with(&a, &b, opts)?;
    let x = res.x.to_vec()?;
    let solved = start.elapsed();

    let rel = residual(&x, &b_host, g);
    println!(
        "{g}² Poisson (n = {n}, {} nonzeros) on {device}: assembled in {:.1} ms, cg ran {} \
         iterations in {:.1} ms; ‖b − A·x‖/‖b‖ = {rel:.2e} on the host (cg's estimate {:.2e})",
        a.nnz(),
        assembled.as_secs_f64() * 1e3,
        res.iterations,
        solved.as_secs_f64() * 1e3,
        res.residual
    );
    if !res.converged || rel.is_nan() || rel > 2.0 * TOL {
        return Err(format!(
            "cg did not reach the tolerance {TOL}: converged = {}, host residual {rel:e} after \
             {} iterations",
            res.converged, res.iterations
        )
        .into());
    }
    Ok(())
}
