//! cuBLAS, cuBLASLt and cuSOLVER: every operation and element type against an f64 reference
//! computed here on the host from the very values stored on the device, on fresh random data.
//!
//! Error bounds (written out at each check): a product of inner dimension `k` accumulated with
//! unit roundoff `u_acc` is within `c·k·u_acc·(|α|·|A||B| + |β|·|C|)` of the exact value,
//! elementwise, plus `u_out·|D|` for rounding the result to the output type (c = 2 for real,
//! 4 for complex types). Factorisations are checked by residuals against
//! `c·n·u·‖A‖` (Frobenius norms). The CPU tests check every validation error and the
//! missing-library path (in a child process whose library variables point nowhere).

#![allow(clippy::needless_range_loop)] // index loops mirror the formulas they check

use cuprite_driver::blas::{
    Blas, ComputeType, Element, Fill, Gemm, StridedBatch, Transpose, Triangular,
};
use cuprite_driver::blaslt::{BlasLt, Epilogue, Layout, Matmul, Order, Tuning};
use cuprite_driver::solver::{LuPivots, Solver, SolverElement, SvdVectors};
use cuprite_driver::{Context, ContextFlags, ContextStack, Device, DeviceBuffer, Error, Stream};
use cuprite_testkit::{CHILD_LIMIT, OutputWithin, Rng, Test, TestResult, temp_dir};
use half::{bf16, f16};
use num_complex::Complex;
use std::sync::Arc;

type C64 = Complex<f64>;

pub fn tests() -> Vec<Test> {
    vec![
        Test::cpu("blas::missing_cublas_lists_where_it_looked", || {
            missing_library("cublas", "CUPRITE_CUBLAS_PATH", "libcublas")
        }),
        Test::cpu("blas::missing_cublaslt_lists_where_it_looked", || {
            missing_library("cublaslt", "CUPRITE_CUBLASLT_PATH", "libcublasLt")
        }),
        Test::cpu("blas::missing_cusolver_lists_where_it_looked", || {
            missing_library("cusolver", "CUPRITE_CUSOLVER_PATH", "libcusolver")
        }),
        Test::cpu("blas::gemm_validation_errors", gemm_validation_errors),
        Test::cpu("blas::matmul_validation_errors", matmul_validation_errors),
        Test::cpu("blas::solver_errors_say_which", solver_errors_say_which),
        Test::gpu("blas::gemm_every_dtype_and_transpose", gemm_every_dtype),
        Test::gpu(
            "blas::gemm_strided_batched_every_dtype",
            gemm_batched_every_dtype,
        ),
        Test::gpu("blas::gemm_tf32_only_when_asked", gemm_tf32_only_when_asked),
        Test::gpu("blas::gemv_every_dtype", gemv_every_dtype),
        Test::gpu("blas::trsm_every_dtype_and_form", trsm_every_dtype),
        Test::gpu("blas::dot_axpy_nrm2_every_dtype", level1_every_dtype),
        Test::gpu("blas::call_validation_on_gpu", call_validation_on_gpu),
        Test::gpu(
            "blas::lt_matmul_layouts_every_dtype",
            lt_layouts_every_dtype,
        ),
        Test::gpu("blas::lt_epilogues", lt_epilogues),
        Test::gpu("blas::lt_gradient_epilogues", lt_gradient_epilogues),
        Test::gpu("blas::lt_plan_cache", lt_plan_cache),
        Test::gpu("blas::lt_matmul_wide_half_into_f32", lt_matmul_wide),
        Test::gpu("blas::lt_tuning", lt_tuning),
        Test::gpu("blas::lt_epilogue_validation", lt_epilogue_validation),
        Test::gpu(
            "blas::second_stream_sees_gemm_result",
            second_stream_sees_gemm_result,
        ),
        Test::gpu("blas::solver_lu_every_dtype", solver_lu_every_dtype),
        Test::gpu(
            "blas::solver_cholesky_every_dtype",
            solver_cholesky_every_dtype,
        ),
        Test::gpu("blas::solver_qr_every_dtype", solver_qr_every_dtype),
        // One test per element type (under racecheck, gesvd's many small kernels take minutes).
        Test::gpu("blas::solver_svd_f32", svd_of::<f32>),
        Test::gpu("blas::solver_svd_f64", svd_of::<f64>),
        Test::gpu("blas::solver_svd_c32", svd_of::<Complex<f32>>),
        Test::gpu("blas::solver_svd_c64", svd_of::<Complex<f64>>),
        Test::gpu("blas::solver_eigh_every_dtype", solver_eigh_every_dtype),
        Test::gpu("blas::solver_singular_is_err", solver_singular_is_err),
        Test::gpu(
            "blas::solver_not_positive_definite_is_err",
            solver_not_positive_definite_is_err,
        ),
        Test::gpu("blas::solver_validation", solver_validation),
    ]
}

// ----- the child process of the missing-library tests -----

/// Set in a child process: which library's version to ask for.
pub const CHILD_ENV: &str = "CUPRITE_BLAS_TEST_CHILD";

/// The child: asks `which` library for its version and prints the outcome.
pub fn child(which: &str) -> i32 {
    let r = match which {
        "cublas" => cuprite_driver::blas::version(),
        "cublaslt" => cuprite_driver::blaslt::version(),
        "cusolver" => cuprite_driver::solver::version(),
        _ => return 2,
    };
    match r {
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

/// With `var` naming a file that does not exist, the library's first call is an `Err`
/// `LibraryNotFound` that names the library and that file (the only place then tried).
fn missing_library(which: &str, var: &str, lib: &str) -> TestResult {
    let dir = temp_dir("nolib");
    let path = dir.join(format!("{lib}.so.99"));
    let out = std::process::Command::new(std::env::current_exe()?)
        .env(CHILD_ENV, which)
        .env(var, &path)
        .output_within(CHILD_LIMIT)?;
    let _ = std::fs::remove_dir_all(&dir);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "child failed: {text}");
    assert!(text.starts_with("ERR LibraryNotFound"), "{text}");
    assert!(text.contains(&format!("library={lib}\n")), "{text}");
    // The override is the only place tried, and it says why.
    let tried: Vec<&str> = text.lines().filter(|l| l.starts_with("TRIED ")).collect();
    assert_eq!(
        tried,
        [format!("TRIED {}: not found", path.display()).as_str()],
        "{text}"
    );
    Ok(())
}

// ----- CPU: validation -----

fn expect_err(r: cuprite_driver::Result<()>, needle: &str) -> TestResult {
    match r {
        Ok(()) => Err(format!("expected an Err containing {needle:?}, got Ok").into()),
        Err(Error::InvalidArgument(msg)) if msg.contains(needle) => Ok(()),
        Err(e) => Err(format!("expected an Err containing {needle:?}, got {e}").into()),
    }
}

fn gemm_validation_errors() -> TestResult {
    let g = Gemm::<f32>::new(64, 32, 16);
    assert!(g.validate::<f32>(None, 64 * 16, 16 * 32, 64 * 32).is_ok());
    // Leading dimensions below the row counts.
    expect_err(
        Gemm { lda: 63, ..g }.validate::<f32>(None, 1 << 20, 1 << 20, 1 << 20),
        "leading dimension of A",
    )?;
    expect_err(
        Gemm { ldb: 15, ..g }.validate::<f32>(None, 1 << 20, 1 << 20, 1 << 20),
        "leading dimension of B",
    )?;
    expect_err(
        Gemm { ldc: 0, ..g }.validate::<f32>(None, 1 << 20, 1 << 20, 1 << 20),
        "leading dimension of C",
    )?;
    // Transposed A is stored k × m: lda must be at least k, and m is too small for it then.
    let t = Gemm {
        transa: Transpose::Trans,
        lda: 16,
        ..g
    };
    assert!(t.validate::<f32>(None, 16 * 64, 16 * 32, 64 * 32).is_ok());
    // Buffers one element short.
    expect_err(
        g.validate::<f32>(None, 64 * 16 - 1, 16 * 32, 64 * 32),
        "A has 1023 elements",
    )?;
    expect_err(
        g.validate::<f32>(None, 64 * 16, 16 * 32 - 1, 64 * 32),
        "B has 511 elements",
    )?;
    expect_err(
        g.validate::<f32>(None, 64 * 16, 16 * 32, 64 * 32 - 1),
        "C has 2047 elements",
    )?;
    // A padded leading dimension needs (cols - 1) * ld + rows elements.
    let p = Gemm { lda: 100, ..g };
    assert!(
        p.validate::<f32>(None, 15 * 100 + 64, 16 * 32, 64 * 32)
            .is_ok()
    );
    expect_err(
        p.validate::<f32>(None, 15 * 100 + 63, 16 * 32, 64 * 32),
        "need 1564",
    )?;
    // Batches: every matrix inside, outputs apart.
    let sb = StridedBatch {
        batch: 4,
        stride_a: 64 * 16,
        stride_b: 0,
        stride_c: 64 * 32,
    };
    assert!(
        g.validate::<f32>(Some(&sb), 4 * 64 * 16, 16 * 32, 4 * 64 * 32)
            .is_ok()
    );
    expect_err(
        g.validate::<f32>(Some(&sb), 4 * 64 * 16 - 1, 16 * 32, 4 * 64 * 32),
        "A has",
    )?;
    let overlap = StridedBatch {
        stride_c: 64 * 32 - 1,
        ..sb
    };
    expect_err(
        g.validate::<f32>(Some(&overlap), 1 << 20, 1 << 20, 1 << 20),
        "overlap",
    )?;
    // Values beyond 32 bits are refused, never truncated.
    let big = 1usize << 31;
    let wide = Gemm::<f32>::new(big, 1, 1);
    expect_err(
        wide.validate::<f32>(None, big, 1, big),
        "m = 2147483648 exceeds the 32-bit",
    )?;
    let ld = Gemm {
        ldc: big,
        ..Gemm::<f32>::new(1, 1, 1)
    };
    expect_err(
        ld.validate::<f32>(None, 1, 1, 1),
        "ldc = 2147483648 exceeds",
    )?;
    let many = StridedBatch {
        batch: big,
        stride_a: 0,
        stride_b: 0,
        stride_c: 1,
    };
    expect_err(
        Gemm::<f32>::new(1, 1, 1).validate::<f32>(Some(&many), 1, 1, big),
        "batch = 2147483648 exceeds",
    )?;
    // Sizes that overflow usize are an Err, not a wrap-around.
    let huge = Gemm {
        ldc: usize::MAX / 2,
        ..Gemm::<f32>::new(1, 4, 1)
    };
    expect_err(huge.validate::<f32>(None, 1, 4, usize::MAX), "overflows")?;
    // Compute types an element type does not have.
    let f64g = Gemm {
        compute: ComputeType::Tf32,
        ..Gemm::<f64>::new(4, 4, 4)
    };
    expect_err(
        f64g.validate::<f64>(None, 16, 16, 16),
        "Tf32 is not available for f64",
    )?;
    let bfg = Gemm {
        compute: ComputeType::F16,
        ..Gemm::<f32>::new(4, 4, 4)
    };
    expect_err(
        bfg.validate::<bf16>(None, 16, 16, 16),
        "F16 is not available for bf16",
    )?;
    Ok(())
}

fn matmul_validation_errors() -> TestResult {
    let (m, n, k) = (64usize, 48usize, 32usize);
    let mm = Matmul::<f32>::row_major(m, n, k);
    assert!(mm.validate::<f32>(m * k, k * n, None, m * n).is_ok());
    expect_err(
        Matmul { k: 0, ..mm }.validate::<f32>(1, 1, None, m * n),
        "k = 0",
    )?;
    // Row-major A (m × k) needs ld ≥ k; a column-major one ld ≥ m.
    let bad = Matmul {
        a: Layout::row_major(k - 1),
        ..mm
    };
    expect_err(
        bad.validate::<f32>(1 << 20, 1 << 20, None, 1 << 20),
        "leading dimension of A",
    )?;
    let colb = Matmul {
        b: Layout::col_major(k - 1),
        ..mm
    };
    expect_err(
        colb.validate::<f32>(1 << 20, 1 << 20, None, 1 << 20),
        "leading dimension of B",
    )?;
    expect_err(mm.validate::<f32>(m * k - 1, k * n, None, m * n), "A has")?;
    expect_err(mm.validate::<f32>(m * k, k * n - 1, None, m * n), "B has")?;
    expect_err(mm.validate::<f32>(m * k, k * n, None, m * n - 1), "D has")?;
    // A transposed view: A stored row-major k × m is the column-major m × k layout, ld m.
    let tview = Matmul {
        a: Layout::col_major(m),
        ..mm
    };
    assert!(tview.validate::<f32>(k * m, k * n, None, m * n).is_ok());
    // Batches.
    let b4 = mm.with_batch(4);
    assert!(
        b4.validate::<f32>(4 * m * k, 4 * k * n, None, 4 * m * n)
            .is_ok()
    );
    expect_err(
        b4.validate::<f32>(4 * m * k, 4 * k * n, None, 4 * m * n - 1),
        "D has",
    )?;
    let overlap = Matmul {
        d: Layout::row_major(n).with_batch_stride(m * n - 1),
        ..b4
    };
    expect_err(
        overlap.validate::<f32>(1 << 20, 1 << 20, None, 1 << 20),
        "overlap",
    )?;
    // A broadcast operand (stride 0) is fine.
    let bcast = Matmul {
        b: Layout::row_major(n),
        ..b4
    };
    assert!(
        bcast
            .validate::<f32>(4 * m * k, k * n, None, 4 * m * n)
            .is_ok()
    );
    // C must be in D's order and long enough.
    expect_err(
        mm.validate::<f32>(m * k, k * n, Some((m * n, Layout::col_major(m))), m * n),
        "same order",
    )?;
    expect_err(
        mm.validate::<f32>(m * k, k * n, Some((m * n - 1, Layout::row_major(n))), m * n),
        "C has",
    )?;
    // 32-bit batch count; sizes that overflow.
    let many = Matmul::<f32>::row_major(1, 1, 1).with_batch(1 << 31);
    let many = Matmul {
        a: Layout::row_major(1),
        b: Layout::row_major(1),
        d: Layout::row_major(1).with_batch_stride(1),
        ..many
    };
    expect_err(
        many.validate::<f32>(1, 1, None, 1 << 31),
        "batch = 2147483648 exceeds",
    )?;
    let huge = Matmul {
        d: Layout::row_major(usize::MAX / 2),
        ..Matmul::<f32>::row_major(4, 1, 1)
    };
    expect_err(huge.validate::<f32>(4, 1, None, usize::MAX), "overflows")?;
    // Compute types.
    let tf = Matmul {
        compute: ComputeType::Tf32,
        ..Matmul::<f32>::row_major(4, 4, 4)
    };
    assert!(tf.validate::<f32>(16, 16, None, 16).is_ok());
    expect_err(
        tf.validate::<bf16>(16, 16, None, 16),
        "Tf32 is not available for bf16",
    )?;
    Ok(())
}

fn solver_errors_say_which() -> TestResult {
    let e = Error::SingularMatrix {
        call: "cusolverDnXgetrf",
        index: 3,
    };
    assert!(e.to_string().contains("singular") && e.to_string().contains("U(3, 3)"));
    let e = Error::NotPositiveDefinite {
        call: "cusolverDnXpotrf",
        order: 5,
    };
    assert!(e.to_string().contains("not positive definite") && e.to_string().contains("order 5"));
    Ok(())
}

// ----- host references -----

/// An element type under test: its conversions and the unit roundoffs of its storage and of
/// its default accumulation.
trait El: Element + Copy + 'static {
    /// Unit roundoff of the stored type.
    const U_STORE: f64;
    /// Unit roundoff of the default accumulation.
    const U_ACC: f64;
    fn from_c(c: C64) -> Self;
    fn to_c(self) -> C64;
    fn scalar(c: C64) -> Self::Scalar;
    fn real_to(x: Self::Real) -> f64;
}

macro_rules! el_real {
    ($t:ty, $store:expr, $acc:expr, $from:expr, $to:expr, $sc:expr) => {
        impl El for $t {
            const U_STORE: f64 = $store;
            const U_ACC: f64 = $acc;
            fn from_c(c: C64) -> Self {
                #[allow(clippy::redundant_closure_call)]
                ($from)(c.re)
            }
            fn to_c(self) -> C64 {
                #[allow(clippy::redundant_closure_call)]
                C64::new(($to)(self), 0.0)
            }
            fn scalar(c: C64) -> Self::Scalar {
                #[allow(clippy::redundant_closure_call)]
                ($sc)(c.re)
            }
            fn real_to(x: Self::Real) -> f64 {
                x.to_c().re
            }
        }
    };
}

const U16: f64 = 1.0 / 2048.0; // 2^-11
const UBF: f64 = 1.0 / 256.0; // 2^-8
const U32: f64 = 5.960_464_477_539_063e-8; // 2^-24
const U64: f64 = 1.110_223_024_625_156_5e-16; // 2^-53

el_real!(
    f16,
    U16,
    U32,
    f16::from_f64,
    |x: f16| x.to_f64(),
    |x: f64| x as f32
);
el_real!(
    bf16,
    UBF,
    U32,
    bf16::from_f64,
    |x: bf16| x.to_f64(),
    |x: f64| x as f32
);
el_real!(
    f32,
    U32,
    U32,
    |x: f64| x as f32,
    |x: f32| x as f64,
    |x: f64| x as f32
);
el_real!(f64, U64, U64, |x: f64| x, |x: f64| x, |x: f64| x);

impl El for Complex<f32> {
    const U_STORE: f64 = U32;
    const U_ACC: f64 = U32;
    fn from_c(c: C64) -> Self {
        Complex::new(c.re as f32, c.im as f32)
    }
    fn to_c(self) -> C64 {
        C64::new(self.re as f64, self.im as f64)
    }
    fn scalar(c: C64) -> Self::Scalar {
        Self::from_c(c)
    }
    fn real_to(x: f32) -> f64 {
        x as f64
    }
}

impl El for Complex<f64> {
    const U_STORE: f64 = U64;
    const U_ACC: f64 = U64;
    fn from_c(c: C64) -> Self {
        c
    }
    fn to_c(self) -> C64 {
        self
    }
    fn scalar(c: C64) -> Self::Scalar {
        c
    }
    fn real_to(x: f64) -> f64 {
        x
    }
}

/// The `c` of the bounds: 2 for real types, 4 for complex ones.
fn c_of<T: El>() -> f64 {
    if T::IS_COMPLEX { 4.0 } else { 2.0 }
}

/// `n` random stored values in [-1, 1) (both parts for complex types), and their exact values.
fn random<T: El>(rng: &mut Rng, n: usize) -> (Vec<T>, Vec<C64>) {
    let v: Vec<T> = (0..n)
        .map(|_| {
            let re = rng.f32_in(-1.0, 1.0) as f64;
            let im = if T::IS_COMPLEX {
                rng.f32_in(-1.0, 1.0) as f64
            } else {
                0.0
            };
            T::from_c(C64::new(re, im))
        })
        .collect();
    let c = v.iter().map(|x| x.to_c()).collect();
    (v, c)
}

/// A random scalar in [0.5, 1.5) (imaginary part in [-0.5, 0.5) for complex types), exact in
/// `f32`, so exact in every scalar type but `f16` (which only the `F16` compute type uses).
fn random_scalar<T: El>(rng: &mut Rng) -> C64 {
    let re = (0.5 + rng.f32_in(0.0, 1.0)) as f64;
    let im = if T::IS_COMPLEX {
        rng.f32_in(-0.5, 0.5) as f64
    } else {
        0.0
    };
    C64::new(re, im)
}

/// Element (i, j) of a matrix stored with `order` and `ld` starting at `off`.
fn at(v: &[C64], off: usize, order: Order, ld: usize, i: usize, j: usize) -> C64 {
    match order {
        Order::RowMajor => v[off + i * ld + j],
        Order::ColMajor => v[off + i + j * ld],
    }
}

/// A transposed operand of the BLAS convention as an (order, conjugate) reading.
fn op_order(t: Transpose) -> (Order, bool) {
    match t {
        Transpose::None => (Order::ColMajor, false),
        Transpose::Trans => (Order::RowMajor, false),
        Transpose::ConjTrans => (Order::RowMajor, true),
    }
}

/// Checks `got` against `want` elementwise within `tol`, naming the first failure.
fn check_close(what: &str, got: &[C64], want: &[C64], tol: &[f64]) -> TestResult {
    assert_eq!(got.len(), want.len());
    let mut worst = (0.0f64, 0usize);
    for i in 0..got.len() {
        let err = (got[i] - want[i]).norm();
        if err.is_nan() || err > tol[i] {
            return Err(format!(
                "{what}: element {i}: got {:?}, want {:?}, error {err:.3e} > bound {:.3e}",
                got[i], want[i], tol[i]
            )
            .into());
        }
        let r = if tol[i] > 0.0 { err / tol[i] } else { 0.0 };
        if r > worst.0 {
            worst = (r, i);
        }
    }
    Ok(())
}

fn to_c<T: El>(v: &[T]) -> Vec<C64> {
    v.iter().map(|x| x.to_c()).collect()
}

fn own_stream() -> cuprite_driver::Result<Arc<Stream>> {
    Context::new(0)?.new_stream()
}

// ----- GPU: cuBLAS -----

fn gemm_every_dtype() -> TestResult {
    let s = own_stream()?;
    let blas = Blas::new(&s)?;
    gemm_case::<f16>(&blas)?;
    gemm_case::<bf16>(&blas)?;
    gemm_case::<f32>(&blas)?;
    gemm_case::<f64>(&blas)?;
    gemm_case::<Complex<f32>>(&blas)?;
    gemm_case::<Complex<f64>>(&blas)?;
    Ok(())
}

/// One (batched) GEMM with transposes, padded leading dimensions and strides, against the host.
#[allow(clippy::too_many_arguments)]
fn gemm_check<T: El>(
    blas: &Blas,
    rng: &mut Rng,
    ta: Transpose,
    tb: Transpose,
    (m, n, k): (usize, usize, usize),
    batch: usize,
    broadcast_b: bool,
    compute: ComputeType,
    u_in: f64,
) -> TestResult {
    let s = blas.stream();
    let (ar, ac) = if ta.is_transposed() { (k, m) } else { (m, k) };
    let (br, bc) = if tb.is_transposed() { (n, k) } else { (k, n) };
    let (lda, ldb, ldc) = (ar + 3, br + 1, m + 2);
    let (sa, sb, sc) = (
        lda * ac + 5,
        if broadcast_b { 0 } else { ldb * bc + 2 },
        ldc * n + 7,
    );
    let (a, ah) = random::<T>(rng, (batch - 1) * sa + lda * ac);
    let (b, bh) = random::<T>(rng, (batch - 1) * sb + ldb * bc);
    let (c0, c0h) = random::<T>(rng, (batch - 1) * sc + ldc * n);
    let (alpha, beta) = (random_scalar::<T>(rng), random_scalar::<T>(rng));
    let da = s.clone_htod(&a)?;
    let db = s.clone_htod(&b)?;
    let mut dc = s.clone_htod(&c0)?;
    let cfg = Gemm {
        transa: ta,
        transb: tb,
        m,
        n,
        k,
        alpha: T::scalar(alpha),
        lda,
        ldb,
        beta: T::scalar(beta),
        ldc,
        compute,
    };
    if batch == 1 {
        blas.gemm(&cfg, &da, &db, &mut dc)?;
    } else {
        let strides = StridedBatch {
            batch,
            stride_a: sa,
            stride_b: sb,
            stride_c: sc,
        };
        blas.gemm_strided_batched(&cfg, &strides, &da, &db, &mut dc)?;
    }
    let got = to_c(&s.clone_dtoh(&dc)?);
    let (oa, ca) = op_order(ta);
    let (ob, cb) = op_order(tb);
    let mut want = c0h.clone();
    let mut tol = vec![0.0; want.len()];
    let cc = c_of::<T>();
    for p in 0..batch {
        for i in 0..m {
            for j in 0..n {
                let (mut acc, mut abs) = (C64::new(0.0, 0.0), 0.0);
                for l in 0..k {
                    let mut x = at(&ah, p * sa, oa, lda, i, l);
                    let mut y = at(&bh, p * sb, ob, ldb, l, j);
                    if ca {
                        x = x.conj();
                    }
                    if cb {
                        y = y.conj();
                    }
                    acc += x * y;
                    abs += x.norm() * y.norm();
                }
                let idx = p * sc + i + j * ldc;
                let r = alpha * acc + beta * c0h[idx];
                want[idx] = r;
                // |D - D_ref| ≤ (c·u_in + c·(k+2)·u_acc)·(|α|·Σ|a||b| + |β|·|c|) + c·u_out·|D_ref|
                let scale = alpha.norm() * abs + beta.norm() * c0h[idx].norm();
                tol[idx] = (cc * u_in + cc * (k as f64 + 2.0) * T::U_ACC) * scale
                    + cc * T::U_STORE * r.norm()
                    + 1e-30;
            }
        }
    }
    check_close(
        &format!(
            "gemm {} {ta:?}/{tb:?} {m}×{n}×{k} batch {batch} {compute:?}",
            T::NAME
        ),
        &got,
        &want,
        &tol,
    )
}

fn gemm_case<T: El>(blas: &Blas) -> TestResult {
    let mut rng = Rng::fresh();
    let ts: &[Transpose] = if T::IS_COMPLEX {
        &[Transpose::None, Transpose::Trans, Transpose::ConjTrans]
    } else {
        &[Transpose::None, Transpose::Trans]
    };
    for &ta in ts {
        for &tb in ts {
            gemm_check::<T>(
                blas,
                &mut rng,
                ta,
                tb,
                (37, 29, 131),
                1,
                false,
                ComputeType::Default,
                0.0,
            )?;
        }
    }
    Ok(())
}

fn gemm_batched_every_dtype() -> TestResult {
    let s = own_stream()?;
    let blas = Blas::new(&s)?;
    let mut rng = Rng::fresh();
    macro_rules! each {
        ($($t:ty),*) => {$(
            gemm_check::<$t>(&blas, &mut rng, Transpose::None, Transpose::Trans, (19, 23, 45), 5, false, ComputeType::Default, 0.0)?;
            gemm_check::<$t>(&blas, &mut rng, Transpose::Trans, Transpose::None, (19, 23, 45), 4, true, ComputeType::Default, 0.0)?;
        )*};
    }
    each!(f16, bf16, f32, f64, Complex<f32>, Complex<f64>);
    Ok(())
}

/// The default f32 product meets the tight f32 bound on data where TF32 could not; TF32 only
/// when asked, and then within TF32's bound (inputs rounded to 10 mantissa bits, u = 2^-11).
fn gemm_tf32_only_when_asked() -> TestResult {
    let s = own_stream()?;
    let blas = Blas::new(&s)?;
    let mut rng = Rng::fresh();
    let dims = (96, 80, 512);
    gemm_check::<f32>(
        &blas,
        &mut rng,
        Transpose::None,
        Transpose::None,
        dims,
        1,
        false,
        ComputeType::Default,
        0.0,
    )?;
    gemm_check::<f32>(
        &blas,
        &mut rng,
        Transpose::None,
        Transpose::None,
        dims,
        1,
        false,
        ComputeType::Tf32,
        U16,
    )?;
    gemm_check::<Complex<f32>>(
        &blas,
        &mut rng,
        Transpose::Trans,
        Transpose::None,
        dims,
        1,
        false,
        ComputeType::Tf32,
        U16,
    )?;
    gemm_check::<f16>(
        &blas,
        &mut rng,
        Transpose::None,
        Transpose::None,
        (64, 64, 64),
        1,
        false,
        ComputeType::F16,
        U16 * 70.0,
    )?;
    // The default f32 product is not TF32: on inputs with low bits set, TF32 would miss the
    // f32 bound by orders of magnitude. (Checked above with u_in = 0.)
    Ok(())
}

fn gemv_every_dtype() -> TestResult {
    let s = own_stream()?;
    let blas = Blas::new(&s)?;
    gemv_case::<f16>(&blas)?;
    gemv_case::<bf16>(&blas)?;
    gemv_case::<f32>(&blas)?;
    gemv_case::<f64>(&blas)?;
    gemv_case::<Complex<f32>>(&blas)?;
    gemv_case::<Complex<f64>>(&blas)?;
    Ok(())
}

fn gemv_case<T: El>(blas: &Blas) -> TestResult {
    let s = blas.stream();
    let mut rng = Rng::fresh();
    let (m, n, lda, incx, incy) = (53usize, 41usize, 57usize, 2usize, 3usize);
    for trans in [Transpose::None, Transpose::Trans] {
        let (xn, yn) = if trans.is_transposed() {
            (m, n)
        } else {
            (n, m)
        };
        let (a, ah) = random::<T>(&mut rng, lda * n);
        let (x, xh) = random::<T>(&mut rng, (xn - 1) * incx + 1);
        let (y0, y0h) = random::<T>(&mut rng, (yn - 1) * incy + 1);
        let (alpha, beta) = (random_scalar::<T>(&mut rng), random_scalar::<T>(&mut rng));
        let da = s.clone_htod(&a)?;
        let dx = s.clone_htod(&x)?;
        let mut dy = s.clone_htod(&y0)?;
        blas.gemv(
            trans,
            m,
            n,
            T::scalar(alpha),
            &da,
            lda,
            &dx,
            incx,
            T::scalar(beta),
            &mut dy,
            incy,
        )?;
        let got = to_c(&s.clone_dtoh(&dy)?);
        let mut want = y0h.clone();
        let mut tol = vec![0.0; want.len()];
        let len = xn;
        for i in 0..yn {
            let (mut acc, mut abs) = (C64::new(0.0, 0.0), 0.0);
            for l in 0..len {
                let aij = if trans.is_transposed() {
                    ah[l + i * lda]
                } else {
                    ah[i + l * lda]
                };
                acc += aij * xh[l * incx];
                abs += aij.norm() * xh[l * incx].norm();
            }
            let idx = i * incy;
            let r = alpha * acc + beta * y0h[idx];
            want[idx] = r;
            // c·(len+2)·u_acc·(|α|Σ|a||x| + |β||y|) + c·u_out·|y|
            tol[idx] = c_of::<T>()
                * (len as f64 + 2.0)
                * T::U_ACC
                * (alpha.norm() * abs + beta.norm() * y0h[idx].norm())
                + c_of::<T>() * T::U_STORE * r.norm()
                + 1e-30;
        }
        check_close(&format!("gemv {} {trans:?}", T::NAME), &got, &want, &tol)?;
    }
    Ok(())
}

fn trsm_every_dtype() -> TestResult {
    let s = own_stream()?;
    let blas = Blas::new(&s)?;
    trsm_case::<f32>(&blas)?;
    trsm_case::<f64>(&blas)?;
    trsm_case::<Complex<f32>>(&blas)?;
    trsm_case::<Complex<f64>>(&blas)?;
    // Half precision has no trsm in cuBLAS; a short B is refused before any work.
    let h = s.clone_htod(&[f16::ONE; 4])?;
    let mut hb = s.clone_htod(&[f16::ONE; 4])?;
    let t = Triangular {
        left: true,
        fill: Fill::Lower,
        trans: Transpose::None,
        unit_diagonal: false,
    };
    let e = blas
        .trsm(t, 2, 2, 1.0f32, &h, 2, &mut hb, 2)
        .expect_err("f16 trsm");
    assert!(e.to_string().contains("f16"), "{e}");
    let a = s.clone_htod(&[1.0f64; 9])?;
    let mut b = s.clone_htod(&[1.0f64; 5])?;
    let e = blas
        .trsm(t, 3, 2, 1.0, &a, 3, &mut b, 3)
        .expect_err("short B");
    assert!(e.to_string().contains("B has 5 elements"), "{e}");
    Ok(())
}

/// Every form of `trsm` (side, triangle, transpose, unit diagonal) on a well-conditioned
/// triangular A (diagonal of modulus at least 2, off-diagonal entries of at most 1/m): the
/// residual `op(A)·X − B` (or `X·op(A) − B`) of the solution, computed from the stored values,
/// within `c·(m+2)·u·(|op(A)||X| + |B|)` elementwise.
fn trsm_case<T: El>(blas: &Blas) -> TestResult {
    let s = blas.stream();
    let mut rng = Rng::fresh();
    let (m, n, lda, ldb) = (37usize, 11usize, 41usize, 39usize);
    for left in [true, false] {
        for fill in [Fill::Lower, Fill::Upper] {
            for trans in [Transpose::None, Transpose::Trans, Transpose::ConjTrans] {
                for unit in [false, true] {
                    let k = if left { m } else { n };
                    let (raw, _) = random::<T>(&mut rng, lda * k);
                    let a: Vec<T> = (0..lda * k)
                        .map(|i| {
                            let (r, c) = (i % lda, i / lda);
                            let v = raw[i].to_c();
                            if r == c {
                                T::from_c(v + v / v.norm().max(1e-3) * 2.0)
                            } else {
                                T::from_c(v / k as f64)
                            }
                        })
                        .collect();
                    let ah = to_c(&a);
                    let (b, bh) = random::<T>(&mut rng, ldb * n);
                    let da = s.clone_htod(&a)?;
                    let mut db = s.clone_htod(&b)?;
                    let tri = Triangular {
                        left,
                        fill,
                        trans,
                        unit_diagonal: unit,
                    };
                    blas.trsm(
                        tri,
                        m,
                        n,
                        T::scalar(C64::new(1.0, 0.0)),
                        &da,
                        lda,
                        &mut db,
                        ldb,
                    )?;
                    let x = to_c(&s.clone_dtoh(&db)?);
                    // op(A)[i][j] as stored (the other triangle zero, a unit diagonal one).
                    let op = |i: usize, j: usize| -> C64 {
                        let (r, c) = if trans.is_transposed() {
                            (j, i)
                        } else {
                            (i, j)
                        };
                        let inside = match fill {
                            Fill::Lower => r >= c,
                            Fill::Upper => r <= c,
                        };
                        let v = if r == c && unit {
                            C64::new(1.0, 0.0)
                        } else if inside {
                            ah[r + c * lda]
                        } else {
                            C64::new(0.0, 0.0)
                        };
                        if trans == Transpose::ConjTrans {
                            v.conj()
                        } else {
                            v
                        }
                    };
                    let (mut got, mut want, mut tol) = (Vec::new(), Vec::new(), Vec::new());
                    for i in 0..m {
                        for j in 0..n {
                            let (mut acc, mut abs) = (C64::new(0.0, 0.0), 0.0);
                            for l in 0..k {
                                let (o, xv) = if left {
                                    (op(i, l), x[l + j * ldb])
                                } else {
                                    (op(l, j), x[i + l * ldb])
                                };
                                acc += o * xv;
                                abs += o.norm() * xv.norm();
                            }
                            let bij = bh[i + j * ldb];
                            got.push(acc);
                            want.push(bij);
                            tol.push(
                                c_of::<T>() * (k as f64 + 2.0) * T::U_STORE * (abs + bij.norm())
                                    + 1e-30,
                            );
                        }
                    }
                    check_close(
                        &format!(
                            "trsm {} left={left} {fill:?} {trans:?} unit={unit}",
                            T::NAME
                        ),
                        &got,
                        &want,
                        &tol,
                    )?;
                }
            }
        }
    }
    Ok(())
}

fn level1_every_dtype() -> TestResult {
    let s = own_stream()?;
    let blas = Blas::new(&s)?;
    level1_case::<f16>(&blas)?;
    level1_case::<bf16>(&blas)?;
    level1_case::<f32>(&blas)?;
    level1_case::<f64>(&blas)?;
    level1_case::<Complex<f32>>(&blas)?;
    level1_case::<Complex<f64>>(&blas)?;
    Ok(())
}

fn level1_case<T: El>(blas: &Blas) -> TestResult {
    let s = blas.stream();
    let mut rng = Rng::fresh();
    let (n, incx, incy) = (1001usize, 3usize, 2usize);
    let (x, xh) = random::<T>(&mut rng, (n - 1) * incx + 1);
    let (y, yh) = random::<T>(&mut rng, (n - 1) * incy + 1);
    let dx = s.clone_htod(&x)?;
    let dy = s.clone_htod(&y)?;
    let cc = c_of::<T>();
    // dot and dotc: |r - r_ref| ≤ c·n·u_acc·Σ|x||y| + c·u_out·|r|
    let (mut dot, mut dotc, mut abs) = (C64::new(0.0, 0.0), C64::new(0.0, 0.0), 0.0);
    for i in 0..n {
        dot += xh[i * incx] * yh[i * incy];
        dotc += xh[i * incx].conj() * yh[i * incy];
        abs += xh[i * incx].norm() * yh[i * incy].norm();
    }
    let mut r = s.alloc_zeros::<T>(1)?;
    blas.dot(n, &dx, incx, &dy, incy, &mut r)?;
    let tol = cc * n as f64 * T::U_ACC * abs + cc * T::U_STORE * dot.norm();
    check_close(
        &format!("dot {}", T::NAME),
        &to_c(&s.clone_dtoh(&r)?),
        &[dot],
        &[tol],
    )?;
    blas.dotc(n, &dx, incx, &dy, incy, &mut r)?;
    let tol = cc * n as f64 * T::U_ACC * abs + cc * T::U_STORE * dotc.norm();
    check_close(
        &format!("dotc {}", T::NAME),
        &to_c(&s.clone_dtoh(&r)?),
        &[dotc],
        &[tol],
    )?;
    // nrm2: |r - ‖x‖| ≤ c·n·u_acc·‖x‖ + c·u_out·‖x‖
    let norm = (0..n).map(|i| xh[i * incx].norm_sqr()).sum::<f64>().sqrt();
    let mut rn = s.alloc_zeros::<T::Real>(1)?;
    blas.nrm2(n, &dx, incx, &mut rn)?;
    let got = T::real_to(s.clone_dtoh(&rn)?[0]);
    let tol = cc * n as f64 * T::U_ACC * norm + cc * T::U_STORE * norm;
    check_close(
        &format!("nrm2 {}", T::NAME),
        &[C64::new(got, 0.0)],
        &[C64::new(norm, 0.0)],
        &[tol],
    )?;
    // axpy: each y_i + α·x_i within c·u_acc·(|α||x|+|y|) + c·u_out·|r|
    let alpha = random_scalar::<T>(&mut rng);
    let mut dy2 = s.clone_htod(&y)?;
    blas.axpy(n, T::scalar(alpha), &dx, incx, &mut dy2, incy)?;
    let got = to_c(&s.clone_dtoh(&dy2)?);
    let mut want = yh.clone();
    let mut tol = vec![0.0; want.len()];
    for i in 0..n {
        let r = yh[i * incy] + alpha * xh[i * incx];
        want[i * incy] = r;
        tol[i * incy] =
            cc * 2.0 * T::U_ACC * (alpha.norm() * xh[i * incx].norm() + yh[i * incy].norm())
                + cc * T::U_STORE * r.norm()
                + 1e-30;
    }
    check_close(&format!("axpy {}", T::NAME), &got, &want, &tol)
}

/// The checks of the level-1/2 calls (no validate function of their own) and the context check.
fn call_validation_on_gpu() -> TestResult {
    let s = own_stream()?;
    let blas = Blas::new(&s)?;
    let x = s.alloc_zeros::<f32>(10)?;
    let mut y = s.alloc_zeros::<f32>(10)?;
    let mut r = s.alloc_zeros::<f32>(1)?;
    expect_err(
        blas.axpy(10, 1.0, &x, 0, &mut y, 1),
        "increment of x must be at least 1",
    )?;
    expect_err(
        blas.axpy(6, 1.0, &x, 2, &mut y, 1),
        "x has 10 elements, but the given dimensions need 11",
    )?;
    expect_err(blas.dot(11, &x, 1, &x, 1, &mut r), "need 11")?;
    let mut empty = s.alloc_zeros::<f32>(0)?;
    expect_err(blas.nrm2(10, &x, 1, &mut empty), "result has 0 elements")?;
    let a = s.alloc_zeros::<f32>(20)?;
    expect_err(
        blas.gemv(Transpose::None, 5, 4, 1.0, &a, 4, &x, 1, 0.0, &mut y, 1),
        "leading dimension of A",
    )?;
    expect_err(
        blas.gemv(Transpose::None, 5, 4, 1.0, &a, 5, &x, 4, 0.0, &mut y, 1),
        "x has 10",
    )?;
    expect_err(
        blas.gemv(Transpose::Trans, 5, 4, 1.0, &a, 5, &x, 1, 0.0, &mut y, 4),
        "y has 10",
    )?;
    expect_err(
        blas.dot(1usize << 31, &x, 1, &x, 1, &mut r),
        "need 2147483648",
    )?;
    // A buffer of another context is refused before cuBLAS sees it.
    let other = Context::create_and_push(ContextFlags::SCHED_AUTO, Device::get(0)?)?;
    ContextStack::pop()?;
    let xo = other.default_stream().alloc_zeros::<f32>(10)?;
    expect_err(blas.axpy(10, 1.0, &xo, 1, &mut y, 1), "another context")?;
    let mut c = s.alloc_zeros::<f32>(16)?;
    expect_err(
        blas.gemm(&Gemm::new(4, 4, 4), &xo, &a, &mut c),
        "A belongs to another context",
    )?;
    Ok(())
}

// ----- GPU: cuBLASLt -----

/// One Lt product against the host: logical A (m×k), B (k×n), D (m×n) with the given layouts
/// (each padded), `batch` products, optional separate C, the non-gradient epilogues.
#[allow(clippy::too_many_arguments)]
fn lt_check<T: El>(
    lt: &BlasLt,
    rng: &mut Rng,
    (m, n, k): (usize, usize, usize),
    batch: usize,
    (oa, ob, od): (Order, Order, Order),
    separate_c: bool,
    epi: &str,
    compute: ComputeType,
    u_in: f64,
) -> TestResult {
    let s = lt.stream();
    let lay = |o: Order, rows: usize, cols: usize, pad: usize| -> (Layout, usize) {
        let ld = match o {
            Order::RowMajor => cols + pad,
            Order::ColMajor => rows + pad,
        };
        let outer = match o {
            Order::RowMajor => rows,
            Order::ColMajor => cols,
        };
        let l = Layout {
            order: o,
            ld,
            batch_stride: 0,
        };
        let extent = ld * outer;
        (
            l.with_batch_stride(if batch > 1 { extent + 3 } else { 0 }),
            extent,
        )
    };
    let (la, ea) = lay(oa, m, k, 2);
    let (lb, eb) = lay(ob, k, n, 1);
    let (ld, ed) = lay(od, m, n, 4);
    let (lc, ec) = lay(od, m, n, 0);
    let total = |l: &Layout, e: usize| (batch - 1) * l.batch_stride + e;
    let (a, ah) = random::<T>(rng, total(&la, ea));
    let (b, bh) = random::<T>(rng, total(&lb, eb));
    let (d0, d0h) = random::<T>(rng, total(&ld, ed));
    let (c, ch) = random::<T>(rng, total(&lc, ec));
    let (bias, biash) = random::<T>(rng, if od == Order::RowMajor { n } else { m });
    let alpha = random_scalar::<T>(rng);
    let beta = random_scalar::<T>(rng);
    let (da, db, dc, dbias) = (
        s.clone_htod(&a)?,
        s.clone_htod(&b)?,
        s.clone_htod(&c)?,
        s.clone_htod(&bias)?,
    );
    let mut dd = s.clone_htod(&d0)?;
    let cfg = Matmul {
        m,
        n,
        k,
        batch,
        a: la,
        b: lb,
        d: ld,
        alpha: T::scalar(alpha),
        beta: T::scalar(beta),
        compute,
    };
    let e = match epi {
        "none" => Epilogue::None,
        "relu" => Epilogue::Relu,
        "gelu" => Epilogue::Gelu,
        "bias" => Epilogue::Bias(&dbias),
        "bias_relu" => Epilogue::BiasRelu(&dbias),
        "bias_gelu" => Epilogue::BiasGelu(&dbias),
        other => return Err(format!("unknown epilogue {other}").into()),
    };
    let copt = if separate_c {
        Some((&dc as &dyn cuprite_driver::DeviceRead<T>, lc))
    } else {
        None
    };
    lt.matmul(&cfg, &da, &db, copt, &mut dd, e)?;
    let got = to_c(&s.clone_dtoh(&dd)?);
    let mut want = d0h.clone();
    let mut tol = vec![0.0; want.len()];
    let cc = c_of::<T>();
    for p in 0..batch {
        for i in 0..m {
            for j in 0..n {
                let (mut acc, mut abs) = (C64::new(0.0, 0.0), 0.0);
                for l in 0..k {
                    let x = at(&ah, p * la.batch_stride, oa, la.ld, i, l);
                    let y = at(&bh, p * lb.batch_stride, ob, lb.ld, l, j);
                    acc += x * y;
                    abs += x.norm() * y.norm();
                }
                let cin = if separate_c {
                    at(&ch, p * lc.batch_stride, od, lc.ld, i, j)
                } else {
                    at(&d0h, p * ld.batch_stride, od, ld.ld, i, j)
                };
                let bv = biash[if od == Order::RowMajor { j } else { i }];
                let mut pre = alpha * acc + beta * cin;
                let mut scale = alpha.norm() * abs + beta.norm() * cin.norm();
                if epi.starts_with("bias") {
                    pre += bv;
                    scale += bv.norm();
                }
                // Pre-activation bound: (c·u_in + c·(k+3)·u_acc)·(|α|Σ|a||b| + |β||c| + |bias|),
                // plus c·u_out·(|α|Σ|a||b| + |β||c|) when an epilogue runs: cuBLASLt may round the
                // product to the output type before it adds the bias.
                let mut err_pre = (cc * u_in + cc * (k as f64 + 3.0) * T::U_ACC) * scale;
                if epi != "none" {
                    err_pre += cc * T::U_STORE * (alpha.norm() * abs + beta.norm() * cin.norm());
                }
                let (r, err) = match epi {
                    "relu" | "bias_relu" => (C64::new(pre.re.max(0.0), 0.0), err_pre),
                    // GELU's slope is below 1.13; cuBLASLt evaluates tanh with the hardware
                    // approximation: slack 2^-10·|x| + 8·u32·(1 + |x|).
                    "gelu" | "bias_gelu" => (
                        C64::new(gelu(pre.re), 0.0),
                        1.13 * err_pre
                            + GELU_TANH * pre.re.abs()
                            + 8.0 * U32 * (1.0 + pre.re.abs()),
                    ),
                    _ => (pre, err_pre),
                };
                let idx = p * ld.batch_stride
                    + match od {
                        Order::RowMajor => i * ld.ld + j,
                        Order::ColMajor => i + j * ld.ld,
                    };
                want[idx] = r;
                tol[idx] = err + cc * T::U_STORE * r.norm() + 1e-30;
            }
        }
    }
    check_close(
        &format!(
            "lt matmul {} {m}×{n}×{k} batch {batch} A {oa:?} B {ob:?} D {od:?} C separate {separate_c} epilogue {epi} {compute:?}",
            T::NAME
        ),
        &got,
        &want,
        &tol,
    )
}

/// The relative error cuBLASLt's GELU allows itself beyond its input's: it evaluates tanh with
/// the hardware approximation (`tanh.approx`, relative error about 2^-11).
const GELU_TANH: f64 = 1.0 / 1024.0;

/// GELU, tanh form, as cuBLASLt computes it.
fn gelu(x: f64) -> f64 {
    let c = (2.0 / std::f64::consts::PI).sqrt();
    0.5 * x * (1.0 + (c * (x + 0.044715 * x * x * x)).tanh())
}

/// The derivative of the tanh-form GELU.
fn gelu_grad(x: f64) -> f64 {
    let c = (2.0 / std::f64::consts::PI).sqrt();
    let u = c * (x + 0.044715 * x * x * x);
    let t = u.tanh();
    0.5 * (1.0 + t) + 0.5 * x * (1.0 - t * t) * c * (1.0 + 3.0 * 0.044715 * x * x)
}

fn lt_layouts_every_dtype() -> TestResult {
    let s = own_stream()?;
    let lt = BlasLt::new(&s)?;
    let mut rng = Rng::fresh();
    use Order::{ColMajor as C, RowMajor as R};
    macro_rules! each {
        ($($t:ty),*) => {$(
            for orders in [(R, R, R), (C, R, R), (R, C, R), (C, C, R), (C, C, C), (R, R, C), (R, C, C)] {
                lt_check::<$t>(&lt, &mut rng, (33, 21, 70), 1, orders, false, "none", ComputeType::Default, 0.0)?;
            }
            lt_check::<$t>(&lt, &mut rng, (17, 24, 40), 3, (R, C, R), false, "none", ComputeType::Default, 0.0)?;
            lt_check::<$t>(&lt, &mut rng, (17, 24, 40), 2, (C, R, C), true, "none", ComputeType::Default, 0.0)?;
            lt_check::<$t>(&lt, &mut rng, (20, 16, 24), 1, (R, R, R), true, "none", ComputeType::Default, 0.0)?;
        )*};
    }
    each!(f16, bf16, f32, f64, Complex<f32>, Complex<f64>);
    lt_check::<f32>(
        &lt,
        &mut rng,
        (64, 48, 256),
        1,
        (R, C, R),
        false,
        "none",
        ComputeType::Tf32,
        U16,
    )?;
    Ok(())
}

fn lt_epilogues() -> TestResult {
    let s = own_stream()?;
    let lt = BlasLt::new(&s)?;
    let mut rng = Rng::fresh();
    use Order::{ColMajor as C, RowMajor as R};
    macro_rules! each {
        ($($t:ty),*) => {$(
            for epi in ["relu", "gelu", "bias", "bias_relu", "bias_gelu"] {
                lt_check::<$t>(&lt, &mut rng, (40, 32, 64), 1, (R, C, R), false, epi, ComputeType::Default, 0.0)?;
                lt_check::<$t>(&lt, &mut rng, (40, 32, 64), 1, (C, C, C), false, epi, ComputeType::Default, 0.0)?;
                lt_check::<$t>(&lt, &mut rng, (24, 16, 32), 3, (R, R, R), false, epi, ComputeType::Default, 0.0)?;
            }
        )*};
    }
    each!(f16, bf16, f32);
    for epi in ["relu", "bias"] {
        lt_check::<f64>(
            &lt,
            &mut rng,
            (40, 32, 64),
            1,
            (R, C, R),
            false,
            epi,
            ComputeType::Default,
            0.0,
        )?;
    }
    Ok(())
}

/// GeluAux stores the pre-activation; DGelu multiplies by gelu' at it (and reduces a bias
/// gradient); BiasGradA/B reduce an input over k. For f16, bf16 (what training uses) and f32.
fn lt_gradient_epilogues() -> TestResult {
    let s = own_stream()?;
    let lt = BlasLt::new(&s)?;
    lt_grad_case::<bf16>(&lt)?;
    lt_grad_case::<f16>(&lt)?;
    lt_grad_case::<f32>(&lt)?;
    Ok(())
}

fn lt_grad_case<T: El>(lt: &BlasLt) -> TestResult {
    let s = lt.stream();
    let mut rng = Rng::fresh();
    let (m, n, k) = (48usize, 64usize, 96usize);
    let cc = c_of::<T>();
    let (a, ah) = random::<T>(&mut rng, m * k);
    let (b, bh) = random::<T>(&mut rng, k * n);
    let (bias, biash) = random::<T>(&mut rng, n);
    let (da, db, dbias) = (s.clone_htod(&a)?, s.clone_htod(&b)?, s.clone_htod(&bias)?);
    let cfg = Matmul::<T::Scalar>::row_major(m, n, k);
    // Row-major products: pre[i][j] = Σ_l a[i][l]·b[l][j] (+ bias[j]).
    let prod = |i: usize, j: usize| -> (f64, f64) {
        let (mut acc, mut abs) = (0.0, 0.0);
        for l in 0..k {
            acc += ah[i * k + l].re * bh[l * n + j].re;
            abs += (ah[i * k + l].re * bh[l * n + j].re).abs();
        }
        (acc, abs)
    };
    let name = T::NAME;
    // GeluAux with bias: D = gelu(pre), aux = pre.
    let aux_ld = n.div_ceil(8) * 8 + 8;
    let mut aux = s.alloc_zeros::<T>(m * aux_ld)?;
    let mut d = s.alloc_zeros::<T>(m * n)?;
    lt.matmul(
        &cfg,
        &da,
        &db,
        None,
        &mut d,
        Epilogue::GeluAux {
            bias: Some(&dbias),
            aux: &mut aux,
            ld: aux_ld,
        },
    )?;
    let (gd, gaux) = (to_c(&s.clone_dtoh(&d)?), to_c(&s.clone_dtoh(&aux)?));
    let mut pre = vec![0.0; m * n];
    for i in 0..m {
        for j in 0..n {
            let (acc, abs) = prod(i, j);
            let p = acc + biash[j].re;
            pre[i * n + j] = p;
            // pre within c·(k+3)·u_acc·(Σ|a||b| + |bias|) + c·u_out·|pre|
            // (+ c·u_out·Σ|a||b|: the product may be rounded to T before the bias is added)
            let e = cc * (k as f64 + 3.0) * T::U_ACC * (abs + biash[j].norm())
                + cc * T::U_STORE * (p.abs() + abs);
            let ga = gaux[i * aux_ld + j].re;
            if (ga - p).abs() > e {
                return Err(
                    format!("{name} GeluAux aux[{i}][{j}] = {ga}, want {p} ± {e:.3e}").into(),
                );
            }
            let want = gelu(p);
            let tol = 1.13 * e
                + GELU_TANH * p.abs()
                + 8.0 * U32 * (1.0 + p.abs())
                + cc * T::U_STORE * want.abs();
            let got = gd[i * n + j].re;
            if (got - want).abs() > tol {
                return Err(
                    format!("{name} GeluAux d[{i}][{j}] = {got}, want {want} ± {tol:.3e}").into(),
                );
            }
        }
    }
    // DGelu with a bias gradient: D = (A·B) ⊙ gelu'(aux), bgrad[j] = Σ_i D[i][j].
    let mut d2 = s.alloc_zeros::<T>(m * n)?;
    let mut bgrad = s.alloc_zeros::<T>(n)?;
    lt.matmul(
        &cfg,
        &da,
        &db,
        None,
        &mut d2,
        Epilogue::DGelu {
            aux: &aux,
            ld: aux_ld,
            bias_grad: Some(&mut bgrad),
        },
    )?;
    let (gd2, gbg) = (to_c(&s.clone_dtoh(&d2)?), to_c(&s.clone_dtoh(&bgrad)?));
    for j in 0..n {
        let (mut col, mut colabs, mut colerr) = (0.0, 0.0, 0.0);
        for i in 0..m {
            let (acc, abs) = prod(i, j);
            let g = gelu_grad(gaux[i * aux_ld + j].re);
            let want = acc * g;
            // (c·(k+2)·u_acc·Σ|a||b|)·|gelu'| + the approximate tanh in gelu':
            // 2·2^-10·(1 + |x|)³·|(A·B)ᵢⱼ| + c·u_out·|D|
            let x = gaux[i * aux_ld + j].re;
            let tol = cc * (k as f64 + 2.0) * T::U_ACC * abs * g.abs().max(1.0)
                + cc * T::U_STORE * abs * g.abs()
                + 2.0 * GELU_TANH * (1.0 + x.abs()).powi(3) * acc.abs()
                + 8.0 * U32 * (1.0 + acc.abs())
                + cc * T::U_STORE * want.abs();
            let got = gd2[i * n + j].re;
            if (got - want).abs() > tol {
                return Err(
                    format!("{name} DGelu d[{i}][{j}] = {got}, want {want} ± {tol:.3e}").into(),
                );
            }
            col += want;
            colabs += want.abs();
            colerr += tol;
        }
        // The bias gradient sums m results: within their bounds plus c·m·u·Σ|d| and rounding.
        let tol = colerr + cc * m as f64 * T::U_STORE * colabs + cc * T::U_STORE * col.abs();
        let got = gbg[j].re;
        if (got - col).abs() > tol {
            return Err(
                format!("{name} DGelu bias_grad[{j}] = {got}, want {col} ± {tol:.3e}").into(),
            );
        }
    }
    // BiasGradA: bgrad[i] = Σ_l a[i][l] (A column-major: the same values, transposed in
    // memory); BiasGradB: bgrad[j] = Σ_l b[l][j] (B row-major); D = A·B either way.
    let mut a_col = a.clone();
    for i in 0..m {
        for l in 0..k {
            a_col[i + l * m] = a[i * k + l];
        }
    }
    let da_col = s.clone_htod(&a_col)?;
    let cfg_col = Matmul {
        a: Layout::col_major(m),
        ..cfg
    };
    for which in ["A", "B"] {
        let len = if which == "A" { m } else { n };
        let mut g = s.alloc_zeros::<T>(len)?;
        let mut d3 = s.alloc_zeros::<T>(m * n)?;
        if which == "A" {
            lt.matmul(
                &cfg_col,
                &da_col,
                &db,
                None,
                &mut d3,
                Epilogue::BiasGradA(&mut g),
            )?;
        } else {
            lt.matmul(&cfg, &da, &db, None, &mut d3, Epilogue::BiasGradB(&mut g))?;
        }
        let gg = to_c(&s.clone_dtoh(&g)?);
        for x in 0..len {
            let (mut sum, mut abs) = (0.0, 0.0);
            for l in 0..k {
                let v = if which == "A" {
                    ah[x * k + l].re
                } else {
                    bh[l * n + x].re
                };
                sum += v;
                abs += v.abs();
            }
            // c·k·u_acc·Σ|v| + c·log2(k)·u_out·Σ|v| (the reduction may run in the output type,
            // pairwise) + c·u_out·|Σv|
            let tol = cc * k as f64 * T::U_ACC * abs
                + cc * (k as f64).log2() * T::U_STORE * abs
                + cc * T::U_STORE * sum.abs()
                + 1e-30;
            if (gg[x].re - sum).abs() > tol {
                return Err(format!(
                    "{name} BiasGrad{which}[{x}] = {}, want {sum} ± {tol:.3e}",
                    gg[x].re
                )
                .into());
            }
        }
        let gd3 = to_c(&s.clone_dtoh(&d3)?);
        for i in 0..m {
            for j in 0..n {
                let (acc, abs) = prod(i, j);
                let tol = cc * (k as f64 + 2.0) * T::U_ACC * abs + cc * T::U_STORE * acc.abs();
                if (gd3[i * n + j].re - acc).abs() > tol {
                    return Err(format!(
                        "{name} BiasGrad{which} d[{i}][{j}] = {}, want {acc} ± {tol:.3e}",
                        gd3[i * n + j].re
                    )
                    .into());
                }
            }
        }
    }
    Ok(())
}

/// `matmul_wide`: half A and B into an f32 D, batched, row-major A and column-major B, D
/// first overwritten then accumulated into (beta 1), against f64 sums of the stored values;
/// the same problem into a half D is another plan; f32 operands and a half compute type are
/// refused.
fn lt_matmul_wide() -> TestResult {
    fn case<T: El>(lt: &BlasLt, rng: &mut Rng) -> TestResult {
        let s = lt.stream();
        let (m, n, k, batch) = (24usize, 40usize, 300usize, 3usize);
        let (a, ah) = random::<T>(rng, batch * m * k);
        let (b, bh) = random::<T>(rng, batch * k * n);
        let (da, db) = (s.clone_htod(&a)?, s.clone_htod(&b)?);
        let mut cfg = Matmul::<T::Scalar>::row_major(m, n, k).with_batch(batch);
        cfg.b = Layout {
            order: Order::ColMajor,
            ld: k,
            batch_stride: k * n,
        };
        let mut d = s.alloc_zeros::<f32>(batch * m * n)?;
        let plans = lt.cached_plans();
        lt.matmul_wide(&cfg, &da, &db, &mut d)?;
        let once = s.clone_dtoh(&d)?;
        cfg.beta = <T::Scalar as cuprite_driver::blas::Scalar>::ONE;
        lt.matmul_wide(&cfg, &da, &db, &mut d)?;
        let twice = s.clone_dtoh(&d)?;
        assert_eq!(lt.cached_plans(), plans + 1, "beta is not part of the plan");
        for p in 0..batch {
            for i in 0..m {
                for j in 0..n {
                    let (mut acc, mut abs) = (0.0, 0.0);
                    for l in 0..k {
                        let t = ah[p * m * k + i * k + l].re * bh[p * k * n + j * k + l].re;
                        acc += t;
                        abs += t.abs();
                    }
                    let e = 2.0 * (k as f64 + 2.0) * U32 * abs + U32 * acc.abs();
                    let at = (p * m + i) * n + j;
                    let (g1, g2) = (once[at] as f64, twice[at] as f64);
                    if (g1 - acc).abs() > e || (g2 - 2.0 * acc).abs() > 3.0 * e {
                        return Err(format!(
                            "{} matmul_wide [{p}][{i}][{j}]: {g1} then {g2}, want {acc} then \
                             {} (± {e:.3e})",
                            T::NAME,
                            2.0 * acc
                        )
                        .into());
                    }
                }
            }
        }
        Ok(())
    }
    let s = own_stream()?;
    let lt = BlasLt::new(&s)?;
    let mut rng = Rng::fresh();
    case::<bf16>(&lt, &mut rng)?;
    case::<f16>(&lt, &mut rng)?;
    // The same problem into a bf16 D is another plan (D's type is part of it).
    let plans = lt.cached_plans();
    let (a, _) = random::<bf16>(&mut rng, 16 * 16);
    let da = s.clone_htod(&a)?;
    let mut narrow = s.alloc_zeros::<bf16>(16 * 16)?;
    let mut wide = s.alloc_zeros::<f32>(16 * 16)?;
    let sq = Matmul::<f32>::row_major(16, 16, 16);
    lt.matmul(&sq, &da, &da, None, &mut narrow, Epilogue::None)?;
    lt.matmul_wide(&sq, &da, &da, &mut wide)?;
    assert_eq!(
        lt.cached_plans(),
        plans + 2,
        "a bf16 D and an f32 D: one plan each"
    );
    let (n, w) = (s.clone_dtoh(&narrow)?, s.clone_dtoh(&wide)?);
    for (i, (x, y)) in n.iter().zip(&w).enumerate() {
        // Both sum 16 products of values in [-1, 1) in f32, perhaps in different orders
        // (within 2·18·2^-24·16 of each other); the bf16 result is then rounded (2^-8 of it).
        let (x, y) = (x.to_f32() as f64, *y as f64);
        if (x - y).abs() > y.abs() * 2f64.powi(-8) + 36.0 * 16.0 * U32 {
            return Err(format!("element {i}: bf16 D {x}, f32 D {y}").into());
        }
    }
    let x = s.alloc_zeros::<f32>(64)?;
    let mut d = s.alloc_zeros::<f32>(64)?;
    expect_err(
        lt.matmul_wide(&Matmul::<f32>::row_major(8, 8, 8), &x, &x, &mut d),
        "only f16 and bf16",
    )?;
    let h = s.alloc_zeros::<f16>(64)?;
    let mut half_compute = Matmul::<f32>::row_major(8, 8, 8);
    half_compute.compute = ComputeType::F16;
    expect_err(
        lt.matmul_wide(&half_compute, &h, &h, &mut d),
        "does not accumulate in f32",
    )?;
    Ok(())
}

fn lt_plan_cache() -> TestResult {
    let s = own_stream()?;
    let lt = BlasLt::new(&s)?;
    let mut rng = Rng::fresh();
    let (a, _) = random::<f32>(&mut rng, 64 * 64);
    let da = s.clone_htod(&a)?;
    let mut d = s.alloc_zeros::<f32>(64 * 64)?;
    assert_eq!(lt.cached_plans(), 0);
    let mm = Matmul::<f32>::row_major(64, 64, 64);
    for _ in 0..5 {
        lt.matmul(&mm, &da, &da, None, &mut d, Epilogue::None)?;
    }
    assert_eq!(lt.cached_plans(), 1, "one problem, one plan");
    let mm2 = Matmul::<f32>::row_major(32, 64, 64);
    lt.matmul(&mm2, &da, &da, None, &mut d, Epilogue::None)?;
    lt.matmul(&mm, &da, &da, None, &mut d, Epilogue::Relu)?;
    lt.matmul(&mm, &da, &da, None, &mut d, Epilogue::None)?;
    assert_eq!(
        lt.cached_plans(),
        3,
        "a new shape and a new epilogue each plan once"
    );
    // Another element type is another problem.
    let (h, _) = random::<bf16>(&mut rng, 64 * 64);
    let dh = s.clone_htod(&h)?;
    let mut dd = s.alloc_zeros::<bf16>(64 * 64)?;
    lt.matmul(
        &Matmul::<f32>::row_major(64, 64, 64),
        &dh,
        &dh,
        None,
        &mut dd,
        Epilogue::None,
    )?;
    assert_eq!(lt.cached_plans(), 4);
    Ok(())
}

/// Small integers in [-3, 3]: products and sums of up to 2^20 of them are exact in f32.
fn small_ints(rng: &mut Rng, n: usize) -> Vec<f32> {
    (0..n).map(|_| (rng.next_u64() % 7) as f32 - 3.0).collect()
}

/// Row-major `alpha · a · b + beta · c` in f64.
fn product_ref(
    a: &[f32],
    b: &[f32],
    c: &[f32],
    (m, n, k): (usize, usize, usize),
    beta: f64,
) -> Vec<f64> {
    let mut d = vec![0.0f64; m * n];
    for i in 0..m {
        for j in 0..n {
            let mut acc = beta * c[i * n + j] as f64;
            for l in 0..k {
                acc += a[i * k + l] as f64 * b[l * n + j] as f64;
            }
            d[i * n + j] = acc;
        }
    }
    d
}

/// A tuning handle times the candidates of a new problem once (the result is the chosen
/// algorithm's, exact here), never again for that problem, and never where repeating the
/// product would change the result (`beta ≠ 0` in place): that problem waits for a call
/// with `beta = 0`. C of its own and a stored GELU input do not stop it.
fn lt_tuning() -> TestResult {
    let s = own_stream()?;
    let lt = BlasLt::new(&s)?;
    assert_eq!(lt.tuning(), None, "off by default");
    lt.set_tuning(Some(Tuning {
        min_flop: 0.0,
        ..Tuning::default()
    }));
    let mut rng = Rng::fresh();
    let (m, n, k) = (256usize, 192usize, 320usize);
    let a = small_ints(&mut rng, m * k);
    let b = small_ints(&mut rng, k * n);
    let c0 = small_ints(&mut rng, m * n);
    let (da, db) = (s.clone_htod(&a)?, s.clone_htod(&b)?);
    let want = product_ref(&a, &b, &c0, (m, n, k), 0.0);
    let check = |got: &[f32], want: &[f64], what: &str| -> TestResult {
        for (i, (&g, &w)) in got.iter().zip(want).enumerate() {
            if g as f64 != w {
                return Err(format!("{what}: entry {i} is {g}, want {w}").into());
            }
        }
        Ok(())
    };
    let mm = Matmul::<f32>::row_major(m, n, k);
    let mut d = s.alloc_zeros::<f32>(m * n)?;
    lt.matmul(&mm, &da, &db, None, &mut d, Epilogue::None)?;
    check(&s.clone_dtoh(&d)?, &want, "first (tuning) call")?;
    assert_eq!(lt.cached_plans(), 1);
    assert_eq!(
        lt.tuned_plans(),
        1,
        "a {m}×{n}×{k} f32 product has several candidates"
    );
    let syncs = cuprite_driver::stats::thread_stats().host_syncs;
    for _ in 0..3 {
        lt.matmul(&mm, &da, &db, None, &mut d, Epilogue::None)?;
    }
    assert_eq!(
        cuprite_driver::stats::thread_stats().host_syncs,
        syncs,
        "a tuned problem only enqueues"
    );
    assert_eq!((lt.cached_plans(), lt.tuned_plans()), (1, 1));
    check(&s.clone_dtoh(&d)?, &want, "later calls")?;
    // In place with beta = 1 (D read): not tuned, computed once.
    let mm1 = Matmul {
        beta: 1.0,
        ..Matmul::<f32>::row_major(m, n, k - 64)
    };
    let mut d1 = s.clone_htod(&c0)?;
    let a1: Vec<f32> = (0..m)
        .flat_map(|i| a[i * k..i * k + k - 64].to_vec())
        .collect();
    let da1 = s.clone_htod(&a1)?;
    lt.matmul(&mm1, &da1, &db, None, &mut d1, Epilogue::None)?;
    let want1 = product_ref(&a1, &b, &c0, (m, n, k - 64), 1.0);
    check(&s.clone_dtoh(&d1)?, &want1, "beta = 1 in place")?;
    assert_eq!((lt.cached_plans(), lt.tuned_plans()), (2, 1));
    // The same problem with beta = 0 tunes it.
    let mm0 = Matmul { beta: 0.0, ..mm1 };
    lt.matmul(&mm0, &da1, &db, None, &mut d1, Epilogue::None)?;
    check(
        &s.clone_dtoh(&d1)?,
        &product_ref(&a1, &b, &c0, (m, n, k - 64), 0.0),
        "beta = 0 after",
    )?;
    assert_eq!((lt.cached_plans(), lt.tuned_plans()), (2, 2));
    // A problem left waiting (a beta = 1 call while tuning was on) ...
    let mm3 = Matmul {
        beta: 1.0,
        ..Matmul::<f32>::row_major(m / 4, n, k)
    };
    let mut d3 = s.clone_htod(&c0[..m / 4 * n])?;
    lt.matmul(&mm3, &da, &db, None, &mut d3, Epilogue::None)?;
    assert_eq!((lt.cached_plans(), lt.tuned_plans()), (3, 2));
    // ... is not tuned once tuning is off, nor is a new problem: the heuristic's choices.
    lt.set_tuning(None);
    let mm3 = Matmul { beta: 0.0, ..mm3 };
    lt.matmul(&mm3, &da, &db, None, &mut d3, Epilogue::None)?;
    assert_eq!((lt.cached_plans(), lt.tuned_plans()), (3, 2));
    check(&s.clone_dtoh(&d3)?, &want[..m / 4 * n], "pending, then off")?;
    let mm2 = Matmul::<f32>::row_major(m / 2, n, k);
    lt.matmul(&mm2, &da, &db, None, &mut d, Epilogue::None)?;
    assert_eq!((lt.cached_plans(), lt.tuned_plans()), (4, 2));
    check(
        &s.clone_dtoh(&d)?[..m / 2 * n],
        &want[..m / 2 * n],
        "untuned",
    )?;
    // With tuning on again: beta = 1 with C a buffer of its own (D not read) tunes, as does
    // an epilogue that stores the GELU input beside D; each result is the chosen algorithm's.
    lt.set_tuning(Some(Tuning {
        min_flop: 0.0,
        ..Tuning::default()
    }));
    let dc = s.clone_htod(&c0)?;
    let mut d5 = s.alloc_zeros::<f32>(m * n)?;
    let mm5 = Matmul {
        beta: 1.0,
        ..Matmul::<f32>::row_major(m, n, k)
    };
    lt.matmul(
        &mm5,
        &da,
        &db,
        Some((&dc, Layout::row_major(n))),
        &mut d5,
        Epilogue::None,
    )?;
    assert_eq!(
        (lt.cached_plans(), lt.tuned_plans()),
        (5, 3),
        "C of its own"
    );
    check(
        &s.clone_dtoh(&d5)?,
        &product_ref(&a, &b, &c0, (m, n, k), 1.0),
        "beta = 1, C of its own",
    )?;
    assert_eq!(s.clone_dtoh(&dc)?, c0, "C is only read");
    let bias = small_ints(&mut rng, n);
    let dbias = s.clone_htod(&bias)?;
    let mut aux = s.alloc_zeros::<f32>(m * n)?;
    let mut d6 = s.alloc_zeros::<f32>(m * n)?;
    lt.matmul(
        &mm,
        &da,
        &db,
        None,
        &mut d6,
        Epilogue::GeluAux {
            bias: Some(&dbias),
            aux: &mut aux,
            ld: n,
        },
    )?;
    // Tuned too where the heuristic offers several candidates for it.
    assert_eq!(lt.cached_plans(), 6, "GeluAux");
    assert!(lt.tuned_plans() >= 3);
    let (got_aux, got_d) = (s.clone_dtoh(&aux)?, s.clone_dtoh(&d6)?);
    for i in 0..m {
        for j in 0..n {
            // Small integers: the pre-activation is exact.
            let pre = want[i * n + j] + bias[j] as f64;
            let x = i * n + j;
            if got_aux[x] as f64 != pre {
                return Err(format!("GeluAux aux[{i}][{j}] = {}, want {pre}", got_aux[x]).into());
            }
            let g = gelu(pre);
            if (got_d[x] as f64 - g).abs() > GELU_TANH * pre.abs() + 8.0 * U32 * (1.0 + g.abs()) {
                return Err(format!("GeluAux d[{i}][{j}] = {}, want {g}", got_d[x]).into());
            }
        }
    }
    Ok(())
}

fn lt_epilogue_validation() -> TestResult {
    let s = own_stream()?;
    let lt = BlasLt::new(&s)?;
    let (m, n, k) = (16usize, 24usize, 8usize);
    let a = s.alloc_zeros::<f32>(m * k)?;
    let b = s.alloc_zeros::<f32>(k * n)?;
    let mut d = s.alloc_zeros::<f32>(m * n)?;
    let mm = Matmul::<f32>::row_major(m, n, k);
    // A row-major D takes one bias per column: n elements.
    let short = s.alloc_zeros::<f32>(n - 1)?;
    expect_err(
        lt.matmul(&mm, &a, &b, None, &mut d, Epilogue::Bias(&short)),
        "bias has 23 elements",
    )?;
    let col = Matmul::<f32>::col_major(m, n, k);
    let bias_m = s.alloc_zeros::<f32>(m)?;
    lt.matmul(&col, &a, &b, None, &mut d, Epilogue::Bias(&bias_m))?;
    // Aux leading dimensions: multiples of 8, at least D's contiguous size.
    let mut aux = s.alloc_zeros::<f32>(m * 32)?;
    expect_err(
        lt.matmul(
            &mm,
            &a,
            &b,
            None,
            &mut d,
            Epilogue::GeluAux {
                bias: None,
                aux: &mut aux,
                ld: 25,
            },
        ),
        "multiple of 8",
    )?;
    expect_err(
        lt.matmul(
            &mm,
            &a,
            &b,
            None,
            &mut d,
            Epilogue::GeluAux {
                bias: None,
                aux: &mut aux,
                ld: 16,
            },
        ),
        "at least D's contiguous size 24",
    )?;
    let mut small = s.alloc_zeros::<f32>(m * 32 - 9)?;
    expect_err(
        lt.matmul(
            &mm,
            &a,
            &b,
            None,
            &mut d,
            Epilogue::GeluAux {
                bias: None,
                aux: &mut small,
                ld: 32,
            },
        ),
        "aux has",
    )?;
    // Gradient epilogues are for single products.
    let a3 = s.alloc_zeros::<f32>(3 * m * k)?;
    let b3 = s.alloc_zeros::<f32>(3 * k * n)?;
    let mut d3 = s.alloc_zeros::<f32>(3 * m * n)?;
    let mut g = s.alloc_zeros::<f32>(m)?;
    expect_err(
        lt.matmul(
            &mm.with_batch(3),
            &a3,
            &b3,
            None,
            &mut d3,
            Epilogue::BiasGradA(&mut g),
        ),
        "single products",
    )?;
    // BiasGradA needs a column-major A, BiasGradB a row-major B.
    expect_err(
        lt.matmul(&mm, &a, &b, None, &mut d, Epilogue::BiasGradA(&mut g)),
        "needs A column-major",
    )?;
    let mut gn = s.alloc_zeros::<f32>(n)?;
    expect_err(
        lt.matmul(&col, &a, &b, None, &mut d, Epilogue::BiasGradB(&mut gn)),
        "needs B row-major",
    )?;
    // k = 0 and operands too short are refused.
    expect_err(
        lt.matmul(&Matmul { k: 0, ..mm }, &a, &b, None, &mut d, Epilogue::None),
        "k = 0",
    )?;
    expect_err(
        lt.matmul(&mm.with_batch(2), &a, &b, None, &mut d, Epilogue::None),
        "A has",
    )?;
    Ok(())
}

/// A buffer written by a library call on one stream and read right after on another sees the
/// result: the second stream waits for the call (tracked like a kernel launch), even while
/// the first stream is held back by a sleeping host function.
fn second_stream_sees_gemm_result() -> TestResult {
    let ctx = Context::create_and_push(ContextFlags::SCHED_AUTO, Device::get(0)?)?;
    ContextStack::pop()?;
    let (s1, s2) = (ctx.new_stream()?, ctx.new_stream()?);
    // A second stream in use: multi-stream tracking from here on.
    let z = s1.alloc_zeros::<u8>(16)?;
    let _z2 = s2.clone_dtod(&z)?;
    assert!(ctx.is_multi_stream());
    let mut rng = Rng::fresh();
    let n = 256usize;
    let (a, ah) = random::<f32>(&mut rng, n * n);
    let (b, bh) = random::<f32>(&mut rng, n * n);
    let da = s1.clone_htod(&a)?;
    let db = s1.clone_htod(&b)?;
    let blas = Blas::new(&s1)?;
    let lt = BlasLt::new(&s1)?;
    let mut want = vec![0.0f64; n * n];
    for j in 0..n {
        for i in 0..n {
            want[i + j * n] = (0..n).map(|l| ah[i + l * n].re * bh[l + j * n].re).sum();
        }
    }
    for via in ["gemm", "lt"] {
        // Poisoned, on s2: the write on s1 must wait for it too.
        let mut c: DeviceBuffer<f32> = s2.clone_htod(&vec![f32::NAN; n * n])?;
        s1.launch_host_fn(|| std::thread::sleep(std::time::Duration::from_millis(150)))?;
        if via == "gemm" {
            blas.gemm(&Gemm::new(n, n, n), &da, &db, &mut c)?;
        } else {
            lt.matmul(
                &Matmul::<f32>::col_major(n, n, n),
                &da,
                &db,
                None,
                &mut c,
                Epilogue::None,
            )?;
        }
        let got = s2.clone_dtoh(&c)?;
        for (i, (&g, &w)) in got.iter().zip(&want).enumerate() {
            // c·(n+2)·u32·Σ|a||b| ≤ 2·258·u32·n (entries below 1)
            let e = (g as f64 - w).abs();
            if e.is_nan() || e > 2.0 * (n as f64 + 2.0) * U32 * n as f64 {
                return Err(
                    format!("{via}: element {i} on the second stream is {g}, want {w}").into(),
                );
            }
        }
    }
    Ok(())
}

// ----- GPU: cuSOLVER -----

/// A column-major host matrix of exact values.
#[derive(Clone)]
struct Mat {
    rows: usize,
    cols: usize,
    v: Vec<C64>,
}

impl Mat {
    fn zeros(rows: usize, cols: usize) -> Mat {
        Mat {
            rows,
            cols,
            v: vec![C64::new(0.0, 0.0); rows * cols],
        }
    }
    fn get(&self, i: usize, j: usize) -> C64 {
        self.v[i + j * self.rows]
    }
    /// From a device copy with leading dimension `ld`.
    fn from_ld(v: &[C64], rows: usize, cols: usize, ld: usize) -> Mat {
        let mut m = Mat::zeros(rows, cols);
        for j in 0..cols {
            for i in 0..rows {
                m.v[i + j * rows] = v[i + j * ld];
            }
        }
        m
    }
    fn mul(&self, o: &Mat) -> Mat {
        let mut r = Mat::zeros(self.rows, o.cols);
        for j in 0..o.cols {
            for l in 0..self.cols {
                let b = o.get(l, j);
                for i in 0..self.rows {
                    r.v[i + j * self.rows] += self.get(i, l) * b;
                }
            }
        }
        r
    }
    fn adjoint(&self) -> Mat {
        let mut r = Mat::zeros(self.cols, self.rows);
        for j in 0..self.cols {
            for i in 0..self.rows {
                r.v[j + i * self.cols] = self.get(i, j).conj();
            }
        }
        r
    }
    fn sub(&self, o: &Mat) -> Mat {
        Mat {
            rows: self.rows,
            cols: self.cols,
            v: self.v.iter().zip(&o.v).map(|(a, b)| a - b).collect(),
        }
    }
    fn fro(&self) -> f64 {
        self.v.iter().map(|x| x.norm_sqr()).sum::<f64>().sqrt()
    }
    fn eye(n: usize) -> Mat {
        let mut m = Mat::zeros(n, n);
        for i in 0..n {
            m.v[i + i * n] = C64::new(1.0, 0.0);
        }
        m
    }
}

/// A random matrix stored in `T` with leading dimension `ld`: the device values and the exact
/// host matrix.
fn random_mat<T: El>(rng: &mut Rng, rows: usize, cols: usize, ld: usize) -> (Vec<T>, Mat) {
    let (v, c) = random::<T>(rng, ld * cols);
    (v, Mat::from_ld(&c, rows, cols, ld))
}

fn store<T: El>(m: &Mat, ld: usize) -> Vec<T> {
    let mut v = vec![T::from_c(C64::new(0.0, 0.0)); ld * m.cols];
    for j in 0..m.cols {
        for i in 0..m.rows {
            v[i + j * ld] = T::from_c(m.get(i, j));
        }
    }
    v
}

/// `‖r‖ ≤ c·n·u·scale`, or an Err naming the residual.
fn residual(what: &str, r: f64, bound: f64) -> TestResult {
    if r.is_nan() || r > bound {
        return Err(format!("{what}: residual {r:.3e} above the bound {bound:.3e}").into());
    }
    Ok(())
}

macro_rules! each_solver_type {
    ($f:ident) => {{
        let s = own_stream()?;
        let solver = Solver::new(&s)?;
        $f::<f32>(&solver)?;
        $f::<f64>(&solver)?;
        $f::<Complex<f32>>(&solver)?;
        $f::<Complex<f64>>(&solver)?;
        Ok(())
    }};
}

fn solver_lu_every_dtype() -> TestResult {
    each_solver_type!(lu_case)
}

fn lu_case<T: El + SolverElement>(solver: &Solver) -> TestResult {
    let s = solver.stream();
    let mut rng = Rng::fresh();
    let (n, nrhs, lda, ldb) = (150usize, 7usize, 153usize, 151usize);
    let (a, am) = random_mat::<T>(&mut rng, n, n, lda);
    let (b, bm) = random_mat::<T>(&mut rng, n, nrhs, ldb);
    let mut da = s.clone_htod(&a)?;
    let mut ipiv = LuPivots::new(s, n, n)?;
    solver.getrf(n, n, &mut da, lda, &mut ipiv)?;
    // LAPACK's contract, and the device copy equal to the host one.
    let p = ipiv.values();
    assert_eq!(p.len(), n);
    assert!(
        p.iter()
            .enumerate()
            .all(|(i, &v)| v > i as i64 && v <= n as i64),
        "{p:?}"
    );
    assert_eq!(s.clone_dtoh(&ipiv.as_view())?, p);
    for trans in [Transpose::None, Transpose::Trans] {
        let mut db2 = s.clone_htod(&b)?;
        solver.getrs(trans, n, nrhs, &da, lda, &ipiv, &mut db2, ldb)?;
        let x = Mat::from_ld(&to_c(&s.clone_dtoh(&db2)?), n, nrhs, ldb);
        let op = if trans == Transpose::None {
            am.clone()
        } else {
            let mut t = am.adjoint();
            t.v.iter_mut().for_each(|z| *z = z.conj());
            t
        };
        // ‖op(A)·X − B‖ ≤ c·n·u·‖A‖·‖X‖ (LU with partial pivoting; growth is small on random data)
        let r = op.mul(&x).sub(&bm).fro();
        residual(
            &format!("getrs {} {trans:?}", T::NAME),
            r,
            10.0 * c_of::<T>() * n as f64 * T::U_STORE * am.fro() * x.fro(),
        )?;
    }
    Ok(())
}

fn solver_cholesky_every_dtype() -> TestResult {
    each_solver_type!(cholesky_case)
}

fn cholesky_case<T: El + SolverElement>(solver: &Solver) -> TestResult {
    let s = solver.stream();
    let mut rng = Rng::fresh();
    let (n, nrhs, lda) = (120usize, 5usize, 124usize);
    // A = M·Mᴴ + n·I, Hermitian positive definite, stored exactly in T.
    let (_, mm) = random_mat::<T>(&mut rng, n, n, n);
    let mut am = mm.mul(&mm.adjoint());
    for i in 0..n {
        am.v[i + i * n] += C64::new(n as f64, 0.0);
    }
    for j in 0..n {
        for i in 0..n {
            let x = T::from_c(am.get(i, j)).to_c();
            am.v[i + j * n] = if i == j { C64::new(x.re, 0.0) } else { x };
        }
    }
    for uplo in [Fill::Lower, Fill::Upper] {
        let mut da = s.clone_htod(&store::<T>(&am, lda))?;
        solver.potrf(uplo, n, &mut da, lda)?;
        let f = Mat::from_ld(&to_c(&s.clone_dtoh(&da)?), n, n, lda);
        let mut tri = Mat::zeros(n, n);
        for j in 0..n {
            for i in 0..n {
                if (uplo == Fill::Lower && i >= j) || (uplo == Fill::Upper && i <= j) {
                    tri.v[i + j * n] = f.get(i, j);
                }
            }
        }
        let prod = if uplo == Fill::Lower {
            tri.mul(&tri.adjoint())
        } else {
            tri.adjoint().mul(&tri)
        };
        // ‖L·Lᴴ − A‖ ≤ c·n·u·‖A‖
        residual(
            &format!("potrf {} {uplo:?}", T::NAME),
            prod.sub(&am).fro(),
            4.0 * c_of::<T>() * n as f64 * T::U_STORE * am.fro(),
        )?;
        let (b, bm) = random_mat::<T>(&mut rng, n, nrhs, n);
        let mut db = s.clone_htod(&b)?;
        solver.potrs(uplo, n, nrhs, &da, lda, &mut db, n)?;
        let x = Mat::from_ld(&to_c(&s.clone_dtoh(&db)?), n, nrhs, n);
        residual(
            &format!("potrs {} {uplo:?}", T::NAME),
            am.mul(&x).sub(&bm).fro(),
            4.0 * c_of::<T>() * n as f64 * T::U_STORE * am.fro() * x.fro(),
        )?;
    }
    Ok(())
}

fn solver_qr_every_dtype() -> TestResult {
    each_solver_type!(qr_case)
}

fn qr_case<T: El + SolverElement>(solver: &Solver) -> TestResult {
    let s = solver.stream();
    let mut rng = Rng::fresh();
    let (m, n, lda) = (130usize, 90usize, 133usize);
    let (a, am) = random_mat::<T>(&mut rng, m, n, lda);
    let mut da = s.clone_htod(&a)?;
    let mut tau = s.alloc_zeros::<T>(n)?;
    solver.geqrf(m, n, &mut da, lda, &mut tau)?;
    let f = Mat::from_ld(&to_c(&s.clone_dtoh(&da)?), m, n, lda);
    let mut r = Mat::zeros(n, n);
    for j in 0..n {
        for i in 0..=j {
            r.v[i + j * n] = f.get(i, j);
        }
    }
    solver.orgqr(m, n, n, &mut da, lda, &tau)?;
    let q = Mat::from_ld(&to_c(&s.clone_dtoh(&da)?), m, n, lda);
    // ‖Q·R − A‖ ≤ c·m·u·‖A‖ and ‖QᴴQ − I‖ ≤ c·m·u·√n
    let u = T::U_STORE;
    residual(
        &format!("geqrf/orgqr QR {}", T::NAME),
        q.mul(&r).sub(&am).fro(),
        4.0 * c_of::<T>() * m as f64 * u * am.fro(),
    )?;
    residual(
        &format!("orgqr QᴴQ {}", T::NAME),
        q.adjoint().mul(&q).sub(&Mat::eye(n)).fro(),
        4.0 * c_of::<T>() * m as f64 * u * (n as f64).sqrt(),
    )?;
    Ok(())
}

fn svd_of<T: El + SolverElement>() -> TestResult {
    let s = own_stream()?;
    svd_case::<T>(&Solver::new(&s)?)
}

fn svd_case<T: El + SolverElement>(solver: &Solver) -> TestResult {
    let s = solver.stream();
    let mut rng = Rng::fresh();
    // Under a sanitizer every cuSOLVER kernel is instrumented and gesvd launches a few per
    // column: a smaller matrix (still tall, still with a leading dimension past m).
    let (m, n, lda) = if cuprite_testkit::under_sanitizer() {
        (12usize, 8usize, 13usize)
    } else {
        (96, 64, 99)
    };
    let (a, am) = random_mat::<T>(&mut rng, m, n, lda);
    let u = T::U_STORE;
    let bound = |scale: f64| 8.0 * c_of::<T>() * m as f64 * u * scale;
    for (name, jacobi) in [("gesvd", false), ("gesvdj", true)] {
        for vectors in [SvdVectors::Thin, SvdVectors::Full] {
            let ucols = if vectors == SvdVectors::Full { m } else { n };
            let mut da = s.clone_htod(&a)?;
            let mut ds = s.alloc_zeros::<T::Real>(n)?;
            let mut du = s.alloc_zeros::<T>(m * ucols)?;
            let mut dv = s.alloc_zeros::<T>(n * n)?;
            if jacobi {
                solver.gesvdj(
                    vectors,
                    m,
                    n,
                    &mut da,
                    lda,
                    &mut ds,
                    Some((&mut du, m)),
                    Some((&mut dv, n)),
                )?;
            } else {
                solver.gesvd(
                    vectors,
                    m,
                    n,
                    &mut da,
                    lda,
                    &mut ds,
                    Some((&mut du, m)),
                    Some((&mut dv, n)),
                )?;
            }
            let sv: Vec<f64> = s.clone_dtoh(&ds)?.into_iter().map(T::real_to).collect();
            assert!(
                sv.windows(2).all(|w| w[0] >= w[1]),
                "{name}: singular values not descending"
            );
            let um = Mat::from_ld(&to_c(&s.clone_dtoh(&du)?), m, n, m); // first n columns
            let vm = Mat::from_ld(&to_c(&s.clone_dtoh(&dv)?), n, n, n);
            // gesvd gives Vᴴ, gesvdj V.
            let vh = if jacobi { vm.adjoint() } else { vm };
            let mut us = um.clone();
            for j in 0..n {
                for i in 0..m {
                    us.v[i + j * m] *= sv[j];
                }
            }
            // ‖U·Σ·Vᴴ − A‖ ≤ c·m·u·‖A‖, ‖UᴴU − I‖ ≤ c·m·u·√n
            residual(
                &format!("{name} {} {vectors:?} UΣVᴴ", T::NAME),
                us.mul(&vh).sub(&am).fro(),
                bound(am.fro()),
            )?;
            residual(
                &format!("{name} {} UᴴU", T::NAME),
                um.adjoint().mul(&um).sub(&Mat::eye(n)).fro(),
                bound((n as f64).sqrt()),
            )?;
            residual(
                &format!("{name} {} VVᴴ", T::NAME),
                vh.mul(&vh.adjoint()).sub(&Mat::eye(n)).fro(),
                bound((n as f64).sqrt()),
            )?;
        }
        // Values only agree with the values of the full decomposition.
        let mut da = s.clone_htod(&a)?;
        let mut ds = s.alloc_zeros::<T::Real>(n)?;
        if jacobi {
            solver.gesvdj::<T>(SvdVectors::None, m, n, &mut da, lda, &mut ds, None, None)?;
        } else {
            solver.gesvd::<T>(SvdVectors::None, m, n, &mut da, lda, &mut ds, None, None)?;
        }
        let sv: Vec<f64> = s.clone_dtoh(&ds)?.into_iter().map(T::real_to).collect();
        // σ_i of A: the eigenvalues of AᴴA, compared through Σσ² = ‖A‖² within c·m·u·‖A‖².
        let sum: f64 = sv.iter().map(|x| x * x).sum();
        residual(
            &format!("{name} {} Σσ²", T::NAME),
            (sum - am.fro().powi(2)).abs(),
            bound(am.fro().powi(2)),
        )?;
    }
    Ok(())
}

fn solver_eigh_every_dtype() -> TestResult {
    each_solver_type!(eigh_case)
}

fn eigh_case<T: El + SolverElement>(solver: &Solver) -> TestResult {
    let s = solver.stream();
    let mut rng = Rng::fresh();
    let (n, lda) = (100usize, 104usize);
    let (_, mm) = random_mat::<T>(&mut rng, n, n, n);
    // A = (M + Mᴴ)/2, stored exactly.
    let mut am = mm.clone();
    for j in 0..n {
        for i in 0..n {
            let x = (mm.get(i, j) + mm.get(j, i).conj()) * 0.5;
            let x = T::from_c(x).to_c();
            am.v[i + j * n] = x;
        }
    }
    for i in 0..n {
        for j in 0..i {
            am.v[j + i * n] = am.get(i, j).conj();
        }
        am.v[i + i * n] = C64::new(am.get(i, i).re, 0.0);
    }
    for uplo in [Fill::Lower, Fill::Upper] {
        let mut da = s.clone_htod(&store::<T>(&am, lda))?;
        let mut dw = s.alloc_zeros::<T::Real>(n)?;
        solver.syevd(true, uplo, n, &mut da, lda, &mut dw)?;
        let w: Vec<f64> = s.clone_dtoh(&dw)?.into_iter().map(T::real_to).collect();
        assert!(
            w.windows(2).all(|p| p[0] <= p[1]),
            "syevd: eigenvalues not ascending"
        );
        let v = Mat::from_ld(&to_c(&s.clone_dtoh(&da)?), n, n, lda);
        let mut vl = v.clone();
        for j in 0..n {
            for i in 0..n {
                vl.v[i + j * n] *= w[j];
            }
        }
        // ‖A·V − V·Λ‖ ≤ c·n·u·‖A‖, ‖VᴴV − I‖ ≤ c·n·u·√n
        let b = 8.0 * c_of::<T>() * n as f64 * T::U_STORE;
        residual(
            &format!("syevd {} {uplo:?} AV−VΛ", T::NAME),
            am.mul(&v).sub(&vl).fro(),
            b * am.fro(),
        )?;
        residual(
            &format!("syevd {} VᴴV", T::NAME),
            v.adjoint().mul(&v).sub(&Mat::eye(n)).fro(),
            b * (n as f64).sqrt(),
        )?;
    }
    Ok(())
}

fn solver_singular_is_err() -> TestResult {
    let s = own_stream()?;
    let solver = Solver::new(&s)?;
    let mut rng = Rng::fresh();
    let n = 40usize;
    for zero_col in [0usize, 17, n - 1] {
        let (mut a, _) = random::<f64>(&mut rng, n * n);
        for i in 0..n {
            a[i + zero_col * n] = 0.0;
        }
        let mut da = s.clone_htod(&a)?;
        let mut ipiv = LuPivots::new(&s, n, n)?;
        match solver.getrf(n, n, &mut da, n, &mut ipiv) {
            Err(Error::SingularMatrix { index, .. }) => {
                assert_eq!(
                    index,
                    zero_col as i64 + 1,
                    "U({index}, {index}) reported for column {zero_col}"
                );
                // Factored pivots are in range; unfactored ones are refused by getrs.
                let p = ipiv.values();
                assert!(p.iter().all(|&v| v >= 1 && v <= n as i64), "{p:?}");
            }
            other => {
                return Err(
                    format!("getrf of a matrix with zero column {zero_col}: {other:?}").into(),
                );
            }
        }
        let (mut a32, _) = random::<f32>(&mut rng, n * n);
        for i in 0..n {
            a32[i + zero_col * n] = 0.0;
        }
        let mut da = s.clone_htod(&a32)?;
        let e = solver
            .getrf(n, n, &mut da, n, &mut ipiv)
            .expect_err("singular f32");
        assert!(e.to_string().contains("singular"), "{e}");
    }
    Ok(())
}

fn solver_not_positive_definite_is_err() -> TestResult {
    let s = own_stream()?;
    let solver = Solver::new(&s)?;
    let n = 30usize;
    for bad in [0usize, 2, 29] {
        let mut a = vec![0.0f64; n * n];
        for i in 0..n {
            a[i + i * n] = if i == bad { -1.0 } else { 2.0 };
            if i + 1 < n {
                a[i + 1 + i * n] = 0.5;
                a[i + (i + 1) * n] = 0.5;
            }
        }
        let mut da = s.clone_htod(&a)?;
        match solver.potrf(Fill::Lower, n, &mut da, n) {
            Err(Error::NotPositiveDefinite { order, .. }) => {
                assert_eq!(
                    order,
                    bad as i64 + 1,
                    "minor {order} reported for a bad entry at {bad}"
                )
            }
            other => {
                return Err(
                    format!("potrf of a matrix with A[{bad}][{bad}] = -1: {other:?}").into(),
                );
            }
        }
    }
    // A Hermitian complex matrix that is not positive definite.
    let mut c = vec![Complex::<f32>::new(0.0, 0.0); 16];
    for i in 0..4 {
        c[i + i * 4] = Complex::new(if i == 1 { -3.0 } else { 4.0 }, 0.0);
    }
    let mut dc = s.clone_htod(&c)?;
    let e = solver
        .potrf(Fill::Upper, 4, &mut dc, 4)
        .expect_err("not positive definite");
    assert!(e.to_string().contains("order 2"), "{e}");
    Ok(())
}

fn solver_validation() -> TestResult {
    let s = own_stream()?;
    let solver = Solver::new(&s)?;
    let mut a = s.alloc_zeros::<f64>(100)?;
    let mut ipiv = LuPivots::new(&s, 10, 10)?;
    expect_err(
        solver.getrf(10, 10, &mut a, 9, &mut ipiv),
        "leading dimension of A",
    )?;
    expect_err(solver.getrf(10, 11, &mut a, 10, &mut ipiv), "A has 100")?;
    let mut short = LuPivots::new(&s, 9, 9)?;
    expect_err(
        solver.getrf(10, 10, &mut a, 10, &mut short),
        "ipiv was made for a 9 × 9 matrix, A is 10 × 10",
    )?;
    let mut b = s.alloc_zeros::<f64>(20)?;
    expect_err(
        solver.getrs(Transpose::None, 10, 3, &a, 10, &ipiv, &mut b, 10),
        "B has 20",
    )?;
    // Pivots that no getrf wrote, or that were made for another matrix, never reach cuSOLVER.
    expect_err(
        solver.getrs(Transpose::None, 10, 2, &a, 10, &ipiv, &mut b, 10),
        "ipiv holds no pivots yet",
    )?;
    let mut eye = s.clone_htod(&[1.0f64, 0.0, 0.0, 1.0])?;
    let mut two = LuPivots::new(&s, 2, 2)?;
    solver.getrf(2, 2, &mut eye, 2, &mut two)?;
    assert_eq!(two.values(), &[1, 2]);
    expect_err(
        solver.getrs(Transpose::None, 10, 2, &a, 10, &two, &mut b, 10),
        "ipiv holds the pivots of a 2 × 2 matrix, A is 10 × 10",
    )?;
    expect_err(
        solver.potrs(Fill::Lower, 10, 2, &a, 10, &mut b, 9),
        "leading dimension of B",
    )?;
    let mut tau = s.alloc_zeros::<f64>(5)?;
    expect_err(solver.geqrf(10, 10, &mut a, 10, &mut tau), "tau has 5")?;
    expect_err(solver.orgqr(10, 10, 11, &mut a, 10, &tau), "m ≥ n ≥ k")?;
    expect_err(
        solver.orgqr(1 << 31, 1, 1, &mut a, 1 << 31, &tau),
        "A has 100",
    )?;
    let mut sv = s.alloc_zeros::<f64>(10)?;
    expect_err(
        solver.gesvd::<f64>(SvdVectors::None, 5, 10, &mut a, 5, &mut sv, None, None),
        "needs m ≥ n",
    )?;
    expect_err(
        solver.gesvd::<f64>(SvdVectors::Thin, 10, 10, &mut a, 10, &mut sv, None, None),
        "no U buffer",
    )?;
    let mut w = s.alloc_zeros::<f64>(9)?;
    expect_err(
        solver.syevd(true, Fill::Lower, 10, &mut a, 10, &mut w),
        "W has 9",
    )?;
    // 32-bit routines refuse what does not fit.
    let mut big = s.alloc_zeros::<f64>(4)?;
    let t1 = s.alloc_zeros::<f64>(1)?;
    let r = solver.orgqr(1, 1, 1, &mut big, (1usize << 31) + 1, &t1);
    expect_err(r, "exceeds the 32-bit")?;
    Ok(())
}
