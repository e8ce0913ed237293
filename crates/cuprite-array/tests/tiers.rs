//! The JIT's tiers agree: random element-wise programs, and reductions of them, give the same
//! values on the interpreter, the quick NVRTC build and the optimised build, within the bound
//! the `jit` module documents ("Agreement of the tiers"): element-wise values and minima and
//! maxima bit for bit, floating-point sums within `2 γ(n − 1) Σ|xᵢ|`.
//!
//! Also the step table that `cross::interpreter_first_uses_match` draws its programs from, with
//! an error model: a bound on how far a program's values may lie from the CPU backend's.

use cuprite_array::{Array, Device, with_device};
use cuprite_testkit::{Rng, Test, TestResult};
use proptest::prelude::*;
use proptest::test_runner::{Config, TestCaseError, TestRunner};

/// Unit roundoff of `f32`.
pub const U32_ROUNDOFF: f64 = 1.0 / (1u64 << 24) as f64;

/// `γ(k) = k u / (1 − k u)`: the relative error bound of any order of `k + 1` additions.
pub fn gamma(k: usize, u: f64) -> f64 {
    let ku = k as f64 * u;
    ku / (1.0 - ku).max(f64::MIN_POSITIVE)
}

/// One step of a drawn program on `a` (the value so far) and `y` (an input broadcast to `a`),
/// and its error model: `(magnitude bound, difference bound)` after the step from those before
/// it. The difference bound is between the GPU and the CPU backend (0 between GPU tiers,
/// whose element-wise values agree bit for bit); `+ - *` and `sqrt` are correctly rounded on
/// both, so inputs that differ by `e` give results that differ by the propagated `e` plus one
/// unit in the last place of the result's magnitude; `sinf` and `tanhf` differ by up to
/// 2 ulp on CUDA and 1 ulp on the host (counted as 4).
pub struct Step {
    pub name: &'static str,
    pub apply: fn(&Array<f32>, &Array<f32>) -> Array<f32>,
    pub model: fn(f64, f64) -> (f64, f64),
}

/// One unit in the last place of an `f32` of magnitude at most `m`.
fn ulp(m: f64) -> f64 {
    2.0 * U32_ROUNDOFF * m
}

/// The steps programs are drawn from (`y` has magnitude at most 1).
pub const STEPS: [Step; 10] = [
    Step {
        name: "a + y",
        apply: |a, y| a + y,
        model: |m, e| (m + 1.0, e + ulp(m + 1.0)),
    },
    Step {
        name: "a * 1.5",
        apply: |a, _| a * 1.5,
        model: |m, e| (1.5 * m, 1.5 * e + ulp(1.5 * m)),
    },
    Step {
        name: "sin(a)",
        apply: |a, _| a.sin(),
        model: |_, e| (1.0, e + 4.0 * ulp(1.0)),
    },
    Step {
        // a * 0.5 is exact; tanh is 1-Lipschitz.
        name: "tanh(a * 0.5)",
        apply: |a, _| (a * 0.5).tanh(),
        model: |_, e| (1.0, 0.5 * e + 4.0 * ulp(1.0)),
    },
    Step {
        name: "a - 2 y",
        apply: |a, y| a - &(y * 2.0),
        model: |m, e| (m + 2.0, e + ulp(m + 2.0)),
    },
    Step {
        // |√a − √b| ≤ √|a − b|.
        name: "sqrt(|a|)",
        apply: |a, _| a.abs().sqrt(),
        model: |m, e| (m.sqrt(), e.sqrt() + ulp(m.sqrt())),
    },
    Step {
        // max(a, y) where a is not NaN: 1-Lipschitz.
        name: "select(a > y, a, y)",
        apply: |a, y| Array::select(&a.greater(y), a, y).expect("select"),
        model: |m, e| (m.max(1.0), e),
    },
    Step {
        // Doubling in f64 and rounding back: exact.
        name: "f32(f64(a) * 2) / 2",
        apply: |a, _| (a.cast::<f64>() * 2.0).cast::<f32>() * 0.5,
        model: |m, e| (m, e),
    },
    Step {
        // Integer steps on exact integers (from `y`, the same bits on both backends): a
        // float-to-integer cast of a rounded intermediate would turn a last-bit difference into
        // a whole unit.
        name: "a + f32(i32(1000 y) % 7)",
        apply: |a, y| a + &((y * 1000.0).cast::<i32>() % 7).cast::<f32>(),
        model: |m, e| (m + 6.0, e + ulp(m + 6.0)),
    },
    Step {
        name: "max(f32(i64(1000 y) + 3), a)",
        apply: |a, y| ((y * 1000.0).cast::<i64>() + 3).cast::<f32>().maximum(a),
        model: |m, e| (m.max(1003.0), e),
    },
];

/// The steps of the program drawn from `seed`.
pub fn drawn_steps(seed: u64) -> Vec<usize> {
    let mut rng = Rng::seeded(seed);
    let n = 3 + rng.next_u64() % 8;
    (0..n).map(|_| (rng.next_u64() % 10) as usize).collect()
}

/// The program of `steps` on `x` (magnitude at most `mag_x`) and `y`, and its difference bound
/// against the CPU backend.
pub fn program(steps: &[usize], x: &Array<f32>, y: &Array<f32>, mag_x: f64) -> (Array<f32>, f64) {
    let (mut a, mut m, mut e) = (x.clone(), mag_x, 0.0);
    for &s in steps {
        a = (STEPS[s].apply)(&a, y);
        (m, e) = (STEPS[s].model)(m, e);
    }
    (a, e)
}

/// Whether two `f32` slices are the same bit for bit (any NaN equal to any NaN).
pub fn same_bits(a: &[f32], b: &[f32], what: &str) -> TestResult {
    if a.len() != b.len() {
        return Err(format!("{what}: {} values against {}", a.len(), b.len()).into());
    }
    for (i, (x, y)) in a.iter().zip(b).enumerate() {
        if !(x.to_bits() == y.to_bits() || (x.is_nan() && y.is_nan())) {
            return Err(
                format!("{what}: element {i}: {x:e} against {y:e} (not bit-identical)").into(),
            );
        }
    }
    Ok(())
}

/// Row sums of `[rows, n]` values `a` and `b` (two tiers' sums of the same values `v`) agree
/// within the documented bound `2 γ(n − 1) Σ|vᵢ|` of each row.
pub fn sums_within(a: &[f32], b: &[f32], v: &[f32], n: usize, what: &str) -> TestResult {
    for (r, (x, y)) in a.iter().zip(b).enumerate() {
        let abs: f64 = v[r * n..(r + 1) * n]
            .iter()
            .map(|&t| (t as f64).abs())
            .sum();
        let bound = 2.0 * gamma(n.saturating_sub(1), U32_ROUNDOFF) * abs;
        let d = (*x as f64 - *y as f64).abs();
        if !(d <= bound || (x.is_nan() && y.is_nan())) {
            return Err(format!(
                "{what}: row {r}: {x:e} against {y:e} differ by {d:e}, beyond 2 γ({}) Σ|v| = {bound:e}",
                n.saturating_sub(1)
            )
            .into());
        }
    }
    Ok(())
}

/// What one tier gives for a program of `steps`: its values on `[rows, cols]`, their row sums
/// and their minimum along axis 0 (each a new kernel on a first use).
type Out = (Vec<f32>, Vec<f32>, Vec<f32>);

fn run_program(
    steps: &[usize],
    xs: &[f32],
    ys: &[f32],
    rows: usize,
    cols: usize,
) -> Result<Out, cuprite_array::Error> {
    with_device(Device::cuda(0), || {
        let x = Array::from_slice(xs, &[rows, cols])?;
        let y = Array::from_slice(ys, &[cols])?;
        let (e, _) = program(steps, &x, &y, 2.0);
        Ok((
            e.to_vec()?,
            e.sum_axes(&[1])?.to_vec()?,
            e.min_axes(&[0])?.to_vec()?,
        ))
    })
}

/// The three tiers' outputs of one program, each on a first use: the interpreter (disk cache
/// empty), the optimised build (after the tier-up), and the quick build (the interpreter
/// bypassed, disk cache empty again).
fn three_tiers(
    steps: &[usize],
    xs: &[f32],
    ys: &[f32],
    (rows, cols): (usize, usize),
    dir: &std::path::Path,
) -> Result<[Out; 3], TestCaseError> {
    let err = |e: cuprite_array::Error| TestCaseError::fail(e.to_string());
    let fresh = |tag: &str| {
        static K: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
        let k = K.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        cuprite_array::tuning::set_cache_dir(Some(dir.join(format!("{tag}{k}"))));
        cuprite_array::tuning::clear_kernel_cache();
    };
    fresh("i");
    let before = cuprite_array::stats::interpreted_first_uses();
    let interp = run_program(steps, xs, ys, rows, cols).map_err(err)?;
    let interpreted = cuprite_array::stats::interpreted_first_uses() - before;
    prop_assert!(
        interpreted >= 1,
        "no first use of {steps:?} ran on the interpreter"
    );
    cuprite_array::tuning::wait_tier_up();
    let optimised = run_program(steps, xs, ys, rows, cols).map_err(err)?;
    fresh("q");
    let builds = cuprite_array::stats::thread_builds();
    let quick =
        cuprite_array::tuning::without_interpreter(|| run_program(steps, xs, ys, rows, cols))
            .map_err(err)?;
    prop_assert!(
        cuprite_array::stats::thread_builds() > builds,
        "the first uses of {steps:?} without the interpreter built nothing on this thread"
    );
    cuprite_array::tuning::wait_tier_up();
    Ok([interp, optimised, quick])
}

/// Random programs of the step table on random shapes (rows of up to 3000 elements, so that
/// reductions take several blocks per row): interpreter, quick build and optimised build agree
/// within the documented bound.
fn tiers_agree_on_random_programs() -> TestResult {
    let mut rng = Rng::fresh();
    let dir = std::env::temp_dir().join(format!("cuprite-tiers-{:x}", rng.next_u64()));
    // Any new program asks for the interpreter; wait until it is loaded.
    let warm: Vec<f32> = rng.vec_f32(64, -1.0, 1.0);
    run_program(&[0, 2], &warm, &warm[..8], 8, 8)?;
    cuprite_array::tuning::wait_tier_up();
    let mut runner = TestRunner::new_with_rng(
        Config {
            cases: 12,
            max_shrink_iters: 16,
            failure_persistence: None,
            ..Config::default()
        },
        proptest::test_runner::TestRng::from_seed(proptest::test_runner::RngAlgorithm::ChaCha, &{
            let mut s = [0u8; 32];
            for c in s.chunks_mut(8) {
                c.copy_from_slice(&rng.next_u64().to_le_bytes());
            }
            s
        }),
    );
    let strategy = (
        proptest::collection::vec(0usize..STEPS.len(), 1..6),
        1usize..40,
        1usize..3000,
        any::<u64>(),
    );
    let result = runner.run(&strategy, |(steps, rows, cols, seed)| {
        let mut r = Rng::seeded(seed);
        let xs = r.vec_f32(rows * cols, -2.0, 2.0);
        let ys = r.vec_f32(cols, -1.0, 1.0);
        let [interp, optimised, quick] = three_tiers(&steps, &xs, &ys, (rows, cols), &dir)?;
        let fail = |e: Box<dyn std::error::Error + Send + Sync>| {
            let names: Vec<&str> = steps.iter().map(|&k| STEPS[k].name).collect();
            TestCaseError::fail(format!("{names:?} on [{rows}, {cols}]: {e}"))
        };
        for (name, t) in [("interpreter", &interp), ("quick build", &quick)] {
            same_bits(&t.0, &optimised.0, &format!("{name} vs optimised: values")).map_err(fail)?;
            same_bits(&t.2, &optimised.2, &format!("{name} vs optimised: minima")).map_err(fail)?;
            sums_within(
                &t.1,
                &optimised.1,
                &optimised.0,
                cols,
                &format!("{name} vs optimised: row sums"),
            )
            .map_err(fail)?;
        }
        Ok(())
    });
    cuprite_array::tuning::set_cache_dir(None);
    let _ = std::fs::remove_dir_all(&dir);
    result.map_err(|e| format!("{e}").into())
}

pub fn tests() -> Vec<Test> {
    vec![Test::gpu_alone(
        "cross::tiers_agree_on_random_programs",
        tiers_agree_on_random_programs,
    )]
}
