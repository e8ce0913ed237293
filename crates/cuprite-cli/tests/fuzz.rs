//! `cuprite fuzz` and `cuprite stress`: the generator's rules, the comparison and shrinking, a
//! CPU differential run (views against copied leaves) and, with a GPU, CUDA against the CPU;
//! stress runs on the CPU backend and on the GPU.

use cuprite_array::DType;
use cuprite_array::ops::{BinaryOp, UnaryOp};
use cuprite_cli::fuzz::expr::{Expr, Red};
use cuprite_cli::fuzz::{self, Config, Mode, agree, eval::Val, generate::sound};
use cuprite_cli::stress;
use cuprite_testkit::{CHILD_LIMIT, OutputWithin, Test, TestResult};

/// Every node's error bound is finite (the root's usable) and every discontinuous operation
/// has exact inputs.
fn walk(e: &Expr) -> Result<(), String> {
    let i = e.info();
    if !i.err.is_finite() {
        return Err(format!("unbounded node {e:?}: {i:?}"));
    }
    let exact_inputs = match e {
        Expr::Unary(op, _) => {
            matches!(
                op,
                UnaryOp::Floor | UnaryOp::Ceil | UnaryOp::Round | UnaryOp::Trunc | UnaryOp::Sign
            ) && i.dtype.is_float()
        }
        Expr::Binary(op, _, _) => {
            matches!(
                op,
                BinaryOp::Eq
                    | BinaryOp::Ne
                    | BinaryOp::Lt
                    | BinaryOp::Le
                    | BinaryOp::Gt
                    | BinaryOp::Ge
                    | BinaryOp::Atan2
            ) || (matches!(op, BinaryOp::Rem | BinaryOp::Pow) && i.dtype.is_float())
        }
        Expr::Reduce(r, ..) => matches!(
            r,
            Red::ArgMin | Red::ArgMax | Red::Any | Red::All | Red::Count
        ),
        Expr::Cast(d, _) => !d.is_float() && !d.is_complex(),
        _ => false,
    };
    for c in e.children() {
        if exact_inputs && c.info().err > 0.0 {
            return Err(format!("a discontinuous node has an inexact input: {e:?}"));
        }
        walk(c)?;
    }
    Ok(())
}

fn generator_rules() -> TestResult {
    fn count(e: &Expr, f: &dyn Fn(&Expr) -> bool) -> usize {
        f(e) as usize + e.children().iter().map(|c| count(c, f)).sum::<usize>()
    }
    let mut sizes = 0;
    let (mut cummax, mut lse, mut lsm, mut sm) = (0, 0, 0, 0);
    for k in 0..2000 {
        let e = fuzz::program(11, k, 300);
        walk(&e)?;
        assert!(sound(&e.info()), "program {k}: {:?}", e.info());
        sizes += e.size();
        cummax += count(&e, &|n| matches!(n, Expr::Cummax(..)));
        lse += count(&e, &|n| matches!(n, Expr::LogSumExp(..)));
        lsm += count(&e, &|n| matches!(n, Expr::LogSoftmax(..)));
        sm += count(&e, &|n| matches!(n, Expr::Softmax(..)));
        // nextafter's first operand holds no infinity (it would become ±MAX, beyond every
        // consumer's magnitude bound).
        let bad = count(&e, &|n| match n {
            Expr::Binary(BinaryOp::Nextafter, a, _) => {
                !matches!(**a, Expr::Leaf { special: false, .. })
            }
            _ => false,
        });
        assert_eq!(
            bad, 0,
            "program {k}: nextafter of a leaf that may hold infinities"
        );
        // A complex product reduces finite factors only (its order decides NaN or inf).
        let bad = count(&e, &|n| match n {
            Expr::Reduce(Red::Prod, _, _, x) if x.info().dtype.is_complex() => {
                !matches!(**x, Expr::Leaf { special: false, .. })
            }
            _ => false,
        });
        assert_eq!(
            bad, 0,
            "program {k}: a complex product of factors that may be infinite"
        );
        // Complex matrix products take finite leaves; cbrt's operand is kept from zero.
        let bad = count(&e, &|n| match n {
            Expr::Matmul(a, b) if a.info().dtype.is_complex() => [a, b]
                .iter()
                .any(|x| !matches!(***x, Expr::Leaf { special: false, .. })),
            Expr::Unary(UnaryOp::Cbrt, x) => !matches!(**x, Expr::Binary(BinaryOp::Add, ..)),
            _ => false,
        });
        assert_eq!(
            bad, 0,
            "program {k}: a complex matmul or a cbrt outside the model"
        );
        // Deterministic: the same seed and index give the same program.
        assert_eq!(e, fuzz::program(11, k, 300));
    }
    assert!(
        sizes > 2000 * 3,
        "programs are trees, not leaves: {sizes} nodes"
    );
    // Every operation family is drawn (the two added last, for instance).
    assert!(
        cummax > 3 && lse > 3 && lsm > 3,
        "cummax {cummax}, logsumexp {lse}, log_softmax {lsm}, softmax {sm}"
    );
    assert_ne!(fuzz::program(11, 5, 300), fuzz::program(12, 5, 300));
    Ok(())
}

/// `pow`'s error model bounds its result only for exact operands with the base clamped away
/// from zero: a shrunk program that lost the clamp (0.001^-8 = 1e24), or whose exponent rounds
/// to 0 on one backend only (pow(NaN, 0) = 1), is out of the model, not a mismatch.
fn pow_model_needs_a_clamped_base() -> TestResult {
    use cuprite_cli::fuzz::expr::View;
    let leaf = |seed| Expr::Leaf {
        dtype: DType::F32,
        shape: vec![4],
        view: View::Contig,
        seed,
        special: false,
    };
    let k = |v| Box::new(Expr::Const(DType::F32, v));
    let bin = |op, a: Expr, b: Expr| Expr::Binary(op, Box::new(a), Box::new(b));
    let clamp = |x: Expr, lo, hi| {
        Expr::Binary(
            BinaryOp::Max,
            Box::new(Expr::Binary(BinaryOp::Min, Box::new(x), k(hi))),
            k(lo),
        )
    };
    let bare = bin(BinaryOp::Pow, leaf(1), leaf(2)).info();
    assert!(!bare.err.is_finite(), "unclamped base: {bare:?}");
    assert!(!sound(&bare));
    let clamped = bin(
        BinaryOp::Pow,
        clamp(leaf(1), 0.25, 4.0),
        clamp(leaf(2), -3.0, 3.0),
    )
    .info();
    let inexact = bin(
        BinaryOp::Pow,
        clamp(Expr::Unary(UnaryOp::Sin, Box::new(leaf(1))), 0.25, 4.0),
        clamp(leaf(2), -3.0, 3.0),
    )
    .info();
    assert!(!inexact.err.is_finite(), "inexact base: {inexact:?}");
    // 4^3 and 0.25^-3 are both 64.
    assert_eq!(clamped.mag, 64.0);
    // A few units in the last place of 64 (16 for pow, 2 for the rounding of its inputs).
    let ulp64 = f32::EPSILON as f64 * 64.0;
    assert!(
        clamped.err > 0.0 && clamped.err <= 20.0 * ulp64,
        "{clamped:?}"
    );
    assert!(sound(&clamped));
    Ok(())
}

fn comparison_tolerances() -> TestResult {
    // An API error reads as its variant, then its message once (a `(` in it included).
    let e = cuprite_array::Error::InvalidArgument("0 device(s) present".into());
    assert_eq!(
        fuzz::eval::api(e),
        "InvalidArgument: invalid argument: 0 device(s) present"
    );
    assert!(agree(&Val::Int(-3), &Val::Int(-3), 0.0));
    assert!(
        !agree(&Val::Int(-3), &Val::Int(-2), 10.0),
        "integers are exact"
    );
    assert!(agree(&Val::Real(f64::NAN), &Val::Real(f64::NAN), 0.0));
    assert!(!agree(&Val::Real(f64::NAN), &Val::Real(1.0), 1e9));
    assert!(agree(
        &Val::Real(f64::INFINITY),
        &Val::Real(f64::INFINITY),
        0.0
    ));
    assert!(
        !agree(&Val::Real(1.0), &Val::Real(1.0 + 1e-12), 0.0),
        "exact means bit for bit"
    );
    assert!(agree(&Val::Real(1.0), &Val::Real(1.0 + 1e-12), 1e-11));
    assert!(!agree(&Val::Cplx(1.0, 2.0), &Val::Cplx(1.0, 2.5), 0.1));
    let (nn, ii) = (
        Val::Cplx(f64::NAN, f64::NAN),
        Val::Cplx(f64::INFINITY, -f64::INFINITY),
    );
    assert!(
        agree(&nn, &ii, 1e-9),
        "complex infinities of an inexact result"
    );
    assert!(!agree(&nn, &ii, 0.0), "but not of an exact one");
    assert!(!agree(&nn, &Val::Cplx(1.0, 2.0), 1e-9));
    Ok(())
}

/// Shrinking keeps the failure (here: "has a cumsum node") and removes what it does not need;
/// the reproducer names every operation left.
fn shrinking_and_reproducer() -> TestResult {
    fn has_cumsum(e: &Expr) -> bool {
        matches!(e, Expr::Cumsum(..)) || e.children().iter().any(|c| has_cumsum(c))
    }
    let (k, e) = (0..5000)
        .map(|k| (k, fuzz::program(3, k, 300)))
        .find(|(_, e)| has_cumsum(e) && e.size() > 6)
        .ok_or("no program with a cumsum among 5000")?;
    let (small, msg) = fuzz::shrink_by(&e, 500, |c| {
        if has_cumsum(c) {
            Err("has a cumsum".into())
        } else {
            Ok(())
        }
    });
    assert_eq!(msg, "has a cumsum");
    assert!(has_cumsum(&small));
    assert!(
        small.size() <= 2 && small.size() < e.size(),
        "program {k}: {} nodes shrunk to {}: {small:?}",
        e.size(),
        small.size()
    );
    let rust = fuzz::repro::to_rust(&small, "header");
    assert!(
        rust.contains("fn program(dev: Device)") && rust.contains(".cumsum("),
        "{rust}"
    );
    // A program that does not fail is returned unchanged.
    let (same, msg) = fuzz::shrink_by(&e, 10, |_| Ok(()));
    assert_eq!(same, e);
    assert!(msg.contains("did not repeat"));
    Ok(())
}

fn cpu_layouts_agree() -> TestResult {
    let cfg = Config {
        programs: 600,
        seed: 5,
        mode: Mode::CpuLayouts,
        max_failures: 1,
        ..Config::default()
    };
    let r = fuzz::run(&cfg, |_| {});
    assert!(r.failures.is_empty(), "{}", r.to_text());
    no_fuzzer_bugs(&r)?;
    assert_eq!(r.programs, 600);
    assert!(r.compared >= 540, "{}", r.to_text());
    assert!(r.exact > 0 && r.exact < r.compared, "{}", r.to_text());
    // Every dtype is an output of some program.
    assert!(r.dtypes.iter().all(|&n| n > 0), "{:?}", r.dtypes);
    assert!(r.structures > 100, "{}", r.to_text());
    Ok(())
}

/// Programs compiled on the CPU backend (their leaves taken from the environment, random draws
/// repeated) give the eager results bit for bit, every call.
fn cpu_replay_agrees() -> TestResult {
    let cfg = Config {
        programs: 300,
        seed: 13,
        mode: Mode::CpuReplay,
        max_failures: 1,
        ..Config::default()
    };
    let r = fuzz::run(&cfg, |_| {});
    assert!(r.failures.is_empty(), "{}", r.to_text());
    no_fuzzer_bugs(&r)?;
    assert!(r.compared >= 250, "{}", r.to_text());
    assert_eq!(r.exact, r.compared, "{}", r.to_text());
    Ok(())
}

/// Programs compiled on CUDA (captured, then replayed twice, on several threads at once) give
/// the eager CUDA results bit for bit; work a capture refuses is counted as refused.
/// `CUPRITE_FUZZ_PROGRAMS` sets how many (400 by default).
fn replay_matches_eager() -> TestResult {
    let programs = std::env::var("CUPRITE_FUZZ_PROGRAMS")
        .ok()
        .and_then(|v| v.parse::<usize>().ok())
        .unwrap_or(400)
        .max(1);
    let cfg = Config {
        programs,
        seed: 17,
        mode: Mode::Replay,
        max_failures: 3,
        threads: if cuprite_testkit::under_sanitizer() {
            1
        } else {
            0
        },
        ..Config::default()
    };
    let r = fuzz::run(&cfg, |_| {});
    eprintln!("{}", r.to_text());
    assert!(r.failures.is_empty(), "{}", r.to_text());
    no_fuzzer_bugs(&r)?;
    assert!(r.compared >= programs / 2, "{}", r.to_text());
    Ok(())
}

/// The threads a run uses change neither which programs it checks nor what it finds.
fn threads_give_the_same_report() -> TestResult {
    let run = |threads| {
        let cfg = Config {
            programs: 400,
            seed: 21,
            mode: Mode::CpuLayouts,
            threads,
            ..Config::default()
        };
        fuzz::run(&cfg, |_| {})
    };
    let (one, three) = (run(1), run(3));
    let key = |r: &fuzz::Report| {
        (
            r.programs,
            r.compared,
            r.exact,
            r.both_err,
            r.structures,
            r.nodes,
            r.dtypes,
            r.refusals.clone(),
        )
    };
    assert_eq!(
        key(&one),
        key(&three),
        "{}\n{}",
        one.to_text(),
        three.to_text()
    );
    assert_eq!(one.programs, 400);
    Ok(())
}

fn cuda_matches_cpu() -> TestResult {
    // Fewer programs where asked (the sanitizer runs: every new kernel is instrumented).
    let programs = std::env::var("CUPRITE_FUZZ_PROGRAMS")
        .ok()
        .and_then(|v| v.parse::<usize>().ok())
        .unwrap_or(1500)
        .max(1);
    let cfg = Config {
        programs,
        seed: 9,
        mode: Mode::CudaVsCpu,
        max_failures: 3,
        // One thread under a sanitizer: from a cold kernel cache, racecheck did not get through
        // the first programs on 10 threads in 500 s (2 programs on 2 threads with a warm cache:
        // 2 s), so take concurrency out of what the tool sees.
        threads: if cuprite_testkit::under_sanitizer() {
            1
        } else {
            0
        },
        ..Config::default()
    };
    let r = fuzz::run(&cfg, |_| {});
    assert!(r.failures.is_empty(), "{}", r.to_text());
    assert!(r.compared >= programs * 9 / 10, "{}", r.to_text());
    Ok(())
}

/// Without a CUDA driver, `cuprite fuzz` (CUDA against the CPU) says so and fails at once
/// rather than reporting every program as a mismatch (the CPU backend counts as one device).
fn fuzz_binary_without_cuda() -> TestResult {
    let dir = cuprite_testkit::temp_dir("fuzz-nocuda");
    let out = std::process::Command::new(crate::cuprite_bin()?)
        .args(["fuzz", "--programs", "5", "--seed", "1"])
        .env("CUPRITE_CUDA_PATH", &dir)
        .output_within(CHILD_LIMIT)?;
    let (stdout, stderr) = (
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr),
    );
    assert!(!out.status.success(), "{stdout}{stderr}");
    assert!(stderr.contains("no CUDA device"), "{stdout}{stderr}");
    assert!(!stdout.contains("MISMATCH"), "{stdout}");
    std::fs::remove_dir_all(&dir)?;
    Ok(())
}

fn fuzz_binary_on_cpu() -> TestResult {
    let out = std::process::Command::new(crate::cuprite_bin()?)
        .args(["fuzz", "--cpu", "--programs", "150", "--seed", "4"])
        .output_within(CHILD_LIMIT)?;
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{text}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        text.contains("programs: 150") && text.contains("mismatches: 0"),
        "{text}"
    );
    Ok(())
}

fn stress_on_cpu() -> TestResult {
    let cfg = stress::Config {
        threads: 4,
        streams: 2,
        seconds: 2.0,
        cpu: true,
        watchdog: 60.0,
    };
    let r = stress::run(&cfg)?;
    // Memory is checked by the binary test (its own process): here other tests allocate and
    // free in parallel in the same process.
    assert!(r.errors == 0 && r.wrong == 0, "{}", r.to_text());
    assert_eq!(r.device, "cpu");
    assert!(
        r.steps >= 4 && r.values_checked > 0 && r.handoffs > 0,
        "{}",
        r.to_text()
    );
    assert_eq!(r.kernels, 0, "no custom kernels on the CPU backend");
    Ok(())
}

fn stress_binary_on_cpu() -> TestResult {
    let out = std::process::Command::new(crate::cuprite_bin()?)
        .args([
            "stress",
            "--cpu",
            "--threads",
            "3",
            "--streams",
            "2",
            "--seconds",
            "1",
        ])
        .output_within(CHILD_LIMIT)?;
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{text}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        text.contains("errors: 0  wrong values: 0") && text.contains("PASS"),
        "{text}"
    );
    Ok(())
}

/// The binary on the GPU (its own process, so that memory is its own): 8 threads × 4 streams.
fn stress_on_gpu() -> TestResult {
    let out = std::process::Command::new(crate::cuprite_bin()?)
        .args([
            "stress",
            "--threads",
            "8",
            "--streams",
            "4",
            "--seconds",
            "4",
        ])
        .output_within(CHILD_LIMIT)?;
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{text}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        text.contains("device: cuda:0") && text.contains("PASS"),
        "{text}"
    );
    assert!(!text.contains("custom kernels: 0 "), "{text}");
    assert!(text.contains("pool bytes in use"), "{text}");
    Ok(())
}

/// A fuzz seed new to each run (from the process's test seed, printed so that a failure
/// replays with `cuprite fuzz --seed S`).
fn fresh_seed(what: &str) -> u64 {
    let seed = cuprite_testkit::Rng::fresh().next_u64() >> 1;
    eprintln!("{what}: fuzz seed {seed} (replay: cuprite fuzz [--cpu] --seed {seed})");
    seed
}

/// No program of a run hit an error of the fuzzer itself (a row whose evaluation does not fit
/// what it generates).
fn no_fuzzer_bugs(r: &fuzz::Report) -> TestResult {
    for (k, n) in &r.refusals {
        if k.contains("fuzzer bug") || k.contains("PANIC") {
            return Err(format!("{n} programs: {k}\n{}", r.to_text()).into());
        }
    }
    Ok(())
}

/// Every row of every family table is generated (so its `info` fits what it generates), node
/// sizes reach the large paths while most programs stay small, and each table operation is a
/// program of its own that both CPU runs evaluate alike.
fn families_are_all_drawn() -> TestResult {
    use std::collections::BTreeMap;
    let mut ops: BTreeMap<&str, usize> = BTreeMap::new();
    let (mut large, mut small) = (0, 0);
    fn walk_ops(e: &Expr, ops: &mut BTreeMap<&'static str, usize>, big: &mut bool) {
        if let Expr::Op(row, ..) = e {
            *ops.entry(row.name).or_default() += 1;
        }
        *big |= e.info().shape.iter().product::<usize>() >= 1 << 16;
        for c in e.children() {
            walk_ops(c, ops, big);
        }
    }
    let programs = 200000;
    for k in 0..programs {
        let e = fuzz::program(13, k, 20000);
        walk(&e)?;
        let mut big = false;
        walk_ops(&e, &mut ops, &mut big);
        if big {
            large += 1;
        } else {
            small += 1;
        }
    }
    let missing: Vec<&str> = fuzz::families::all_rows()
        .map(|(_, r)| r.name)
        .filter(|n| !ops.contains_key(n))
        .collect();
    assert!(
        missing.is_empty(),
        "never generated: {missing:?} (drawn: {ops:?})"
    );
    assert!(large > 0, "no program reached 2^16 elements");
    assert!(
        small > programs as usize * 9 / 10,
        "{large} large programs of {programs}"
    );
    Ok(())
}

/// A fresh seed each run, on the CPU (views against copied leaves), with every family.
fn cpu_layouts_fresh_seed() -> TestResult {
    let seed = fresh_seed("fuzz::cpu_layouts_fresh_seed");
    let cfg = Config {
        programs: 400,
        seed,
        mode: Mode::CpuLayouts,
        max_failures: 1,
        ..Config::default()
    };
    let r = fuzz::run(&cfg, |_| {});
    assert!(r.failures.is_empty(), "seed {seed}: {}", r.to_text());
    no_fuzzer_bugs(&r)?;
    assert!(r.compared >= 300, "seed {seed}: {}", r.to_text());
    eprintln!(
        "{}",
        r.to_text()
            .lines()
            .rev()
            .take(4)
            .collect::<Vec<_>>()
            .join("\n")
    );
    Ok(())
}

/// A fresh seed each run, CUDA against the CPU.
fn cuda_matches_cpu_fresh_seed() -> TestResult {
    let programs = std::env::var("CUPRITE_FUZZ_PROGRAMS")
        .ok()
        .and_then(|v| v.parse::<usize>().ok())
        .unwrap_or(1500)
        .max(1);
    let seed = fresh_seed("fuzz::cuda_matches_cpu_fresh_seed");
    let cfg = Config {
        programs,
        seed,
        mode: Mode::CudaVsCpu,
        max_failures: 3,
        threads: if cuprite_testkit::under_sanitizer() {
            1
        } else {
            0
        },
        ..Config::default()
    };
    let r = fuzz::run(&cfg, |_| {});
    assert!(r.failures.is_empty(), "seed {seed}: {}", r.to_text());
    no_fuzzer_bugs(&r)?;
    assert!(
        r.compared >= programs * 9 / 10,
        "seed {seed}: {}",
        r.to_text()
    );
    Ok(())
}

pub fn tests() -> Vec<Test> {
    let _ = DType::ALL;
    vec![
        Test::cpu("fuzz::generator_rules", generator_rules),
        Test::cpu(
            "fuzz::pow_model_needs_a_clamped_base",
            pow_model_needs_a_clamped_base,
        ),
        Test::cpu("fuzz::comparison_tolerances", comparison_tolerances),
        Test::cpu("fuzz::shrinking_and_reproducer", shrinking_and_reproducer),
        Test::cpu("fuzz::cpu_layouts_agree", cpu_layouts_agree),
        Test::cpu("fuzz::cpu_replay_agrees", cpu_replay_agrees),
        Test::gpu_alone("fuzz::replay_matches_eager", replay_matches_eager),
        Test::cpu("fuzz::binary_on_cpu", fuzz_binary_on_cpu),
        Test::cpu("fuzz::binary_without_cuda", fuzz_binary_without_cuda),
        Test::cpu(
            "fuzz::threads_give_the_same_report",
            threads_give_the_same_report,
        ),
        Test::gpu("fuzz::cuda_matches_cpu", cuda_matches_cpu),
        Test::cpu("fuzz::families_are_all_drawn", families_are_all_drawn),
        Test::cpu("fuzz::cpu_layouts_fresh_seed", cpu_layouts_fresh_seed),
        Test::gpu(
            "fuzz::cuda_matches_cpu_fresh_seed",
            cuda_matches_cpu_fresh_seed,
        ),
        Test::cpu("stress::cpu_two_seconds", stress_on_cpu),
        Test::cpu("stress::binary_on_cpu", stress_binary_on_cpu),
        Test::gpu("stress::gpu_four_seconds", stress_on_gpu),
    ]
}
