//! Differential fuzzing of `cuprite-array`: seeded random programs run on two backends (CUDA
//! and the CPU) or two layouts (the CPU with views, and with every view copied first), and
//! their results compared within each program's documented error bound.
//!
//! - [`generate`] makes the programs: element-wise trees over all 15 dtypes (integer
//!   wrap-around, division by zero, shifts, NaN and infinities included), broadcasting,
//!   strided, offset, reversed and zero-size views, reductions along random axes, movement
//!   (reshape, permute, slice, broadcast, flip, pad, tile, roll, expand_dims, concat, gather),
//!   casts between every pair of dtypes, `cumsum`, `cummax`, `matmul`, `fft`/`rfft`,
//!   `softmax`, `log_softmax`, `logsumexp` (along an axis, kept or not), `sort` and `argsort` (over exactly
//!   computed values, where the indices must agree); and every operation of the family tables
//!   of [`families`] (the other scans, compaction, search, the index modes, gathers, scatters,
//!   `put` and masked operations, linear algebra, the other FFTs, the row operations and
//!   losses, statistics, selections, `unique` and the set operations, sampling). Element-wise
//!   operations are drawn from `cuprite_array::ops::UnaryOp::ALL` and `BinaryOp::ALL` where
//!   their domain allows. Node sizes reach 2^22 elements (one extent in 400 of a shape of rank
//!   two or less is a power of two of 2^12 to 2^22), so that multi-block, grid-stride and
//!   vectorised paths run, while most programs stay small.
//! - [`expr`] is the program and its error model, the *tolerance* of each comparison: exact
//!   (bit for bit, NaN equal to NaN) for integers, `bool`, movement and every correctly
//!   rounded operation; for math-library functions 8 ulp (16 for tan, erfc, sinh, cosh,
//!   expm1 and the inverse hyperbolics, 64 for the gamma functions) of the result's magnitude
//!   bound, since CUDA's libdevice and the host's libm differ; for sums, products, means,
//!   variances, cumulative sums, matrix products and FFTs, `2 (n + 1) ε` times `n` times the
//!   inputs' magnitude bound (the reduction orders differ), plus one rounding for a GPU `fma`
//!   contracting `a * b + c`; every bound is propagated through its consumers and compared
//!   with a safety factor of 4. An inexact complex value with a non-finite part matches any
//!   other such value (complex infinities are not specified alike by the two backends'
//!   libraries), and so does a non-finite real value of a program that computes a complex
//!   value inexactly on the way (its `real`, `imag` or `abs`).
//!   The table families' tolerances are listed in [`families`] (one line per family).
//! - A run's [`Report`] counts the programs of each operation family ([`family_of`]) and the
//!   nodes of each table operation, printed at the end by [`Report::to_text`].
//! - [`repro`] shrinks a failing program (first the same structure with other extents and data,
//!   keeping the failing variant with the least data; then a descendant in place of the root,
//!   leaves in place of subtrees, plainer views) and prints it as a Rust function.
//!
//! ```
//! use cuprite_cli::fuzz::{Config, Mode, run};
//! let cfg = Config { programs: 20, seed: 7, mode: Mode::CpuLayouts, ..Config::default() };
//! let report = run(&cfg, |_| {});
//! assert_eq!(report.programs, 20);
//! assert!(report.failures.is_empty(), "{}", report.failures[0].reproducer);
//! ```

pub mod arr;
pub mod elem;
pub mod eval;
pub mod expr;
pub mod families;
pub mod generate;
pub mod replay;
pub mod repro;
pub mod rng;

use cuprite_array::{DType, Device};
use eval::Val;
use expr::Expr;
use std::collections::HashSet;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::time::Instant;

/// What the two runs of each program are.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mode {
    /// CUDA device 0 against the CPU backend.
    CudaVsCpu,
    /// The CPU backend with views against the CPU backend with every leaf copied first.
    CpuLayouts,
    /// CUDA device 0 eagerly against the same program compiled (`cuprite_array::compile`):
    /// captured, then replayed twice, every call bit for bit the eager result (see [`replay`]).
    /// Both run the same kernels (the eager reference runs once the optimised builds of a
    /// first eager run are in) and cuDNN's heuristic algorithm choices.
    Replay,
    /// [`Mode::Replay`] on the CPU backend (where a compiled program runs its closure).
    CpuReplay,
}

impl Mode {
    /// Whether the two runs must agree bit for bit (the same backend both times).
    pub fn exact(self) -> bool {
        matches!(self, Mode::Replay | Mode::CpuReplay)
    }
}

/// A fuzzing run.
#[derive(Clone, Debug)]
pub struct Config {
    /// Number of programs.
    pub programs: usize,
    /// Seed of the whole run (program `k` of seed `s` is always the same program).
    pub seed: u64,
    /// Number of distinct structure seeds programs are drawn from (kernels are reused across
    /// programs of one structure).
    pub structures: u64,
    /// Which runs are compared.
    pub mode: Mode,
    /// Stop after this many failures (each is shrunk, which takes time).
    pub max_failures: usize,
    /// Run only program `k` (to replay a failure).
    pub only: Option<u64>,
    /// Stop starting new programs after this many seconds (the report says how many ran).
    pub max_seconds: Option<f64>,
    /// Print each failure to stderr as soon as it is shrunk (the report lists them again).
    pub print_failures: bool,
    /// Threads checking programs at once (0: one per available core). Programs are
    /// independent: any number of threads checks the same programs and finds the same
    /// failures (within `max_seconds`); failures are shrunk afterwards, one at a time, in
    /// program order.
    pub threads: usize,
}

impl Default for Config {
    fn default() -> Config {
        Config {
            programs: 1000,
            seed: 0,
            structures: 300,
            mode: Mode::CudaVsCpu,
            max_failures: 5,
            only: None,
            max_seconds: None,
            print_failures: false,
            threads: 0,
        }
    }
}

/// One failing program.
#[derive(Clone, Debug)]
pub struct Failure {
    /// Index of the program in the run.
    pub index: u64,
    /// What differed (of the shrunk program).
    pub message: String,
    /// The shrunk program as a Rust function.
    pub reproducer: String,
}

/// What a run found.
#[derive(Clone, Debug, Default)]
pub struct Report {
    /// Programs run.
    pub programs: usize,
    /// Programs whose two runs both returned values (and agreed or not).
    pub compared: usize,
    /// Programs both runs refused with an error of the same kind (empty `max`, gather from an
    /// empty axis, an FFT of length 0...).
    pub both_err: usize,
    /// Programs compared bit for bit.
    pub exact: usize,
    /// The errors both runs agreed on, by kind and operation (the text before the first
    /// digit), with their counts.
    pub refusals: std::collections::BTreeMap<String, usize>,
    /// Distinct program structures (operations and dtypes, without shapes).
    pub structures: usize,
    /// Nodes over all programs.
    pub nodes: usize,
    /// Output dtypes seen (count per dtype, in [`DType::ALL`] order).
    pub dtypes: [usize; 15],
    /// NVRTC compilations during the run (quick and optimised builds each count).
    pub compiles: u64,
    /// Wall time in seconds.
    pub seconds: f64,
    /// Whether the time budget ended the run before all programs ran.
    pub stopped_early: bool,
    /// The failures (shrunk).
    pub failures: Vec<Failure>,
    /// Per operation family ([`family_of`]): programs with at least one node of it.
    pub families: std::collections::BTreeMap<&'static str, usize>,
    /// Per table operation ([`families`]'s rows): nodes generated.
    pub ops: std::collections::BTreeMap<&'static str, usize>,
    /// Programs with a node of at least 2^16 elements (multi-block and grid-stride paths).
    pub large: usize,
}

/// The family of a node: the table family of an [`Expr::Op`], else the core family of its
/// variant.
pub fn family_of(e: &Expr) -> &'static str {
    match e {
        Expr::Leaf { .. } | Expr::Const(..) => "leaves",
        Expr::Unary(..) | Expr::Binary(..) | Expr::Cast(..) | Expr::Select(..) => "element-wise",
        Expr::Reduce(..) => "reductions",
        Expr::Move(..) | Expr::Concat(..) => "movement",
        Expr::Gather(..) => "index",
        Expr::Cumsum(..) | Expr::Cummax(..) => "scans",
        Expr::Matmul(..) => "linalg",
        Expr::Fft(..) => "fft",
        Expr::Softmax(..) | Expr::LogSoftmax(..) | Expr::LogSumExp(..) => "rows",
        Expr::Sort(..) | Expr::ArgSort(..) => "sort",
        Expr::Op(row, ..) => families::all_rows()
            .find(|(_, r)| std::ptr::eq(*r, *row))
            .map_or("unknown", |(f, _)| f.name),
    }
}

/// Adds the families and table operations of every node of `e` to the sets.
fn tally(
    e: &Expr,
    fams: &mut std::collections::BTreeSet<&'static str>,
    ops: &mut std::collections::BTreeMap<&'static str, usize>,
    big: &mut bool,
) {
    fams.insert(family_of(e));
    if let Expr::Op(row, ..) = e {
        *ops.entry(row.name).or_default() += 1;
    }
    *big |= eval::numel(&e.info().shape) >= 1 << 16;
    for c in e.children() {
        tally(c, fams, ops, big);
    }
}

/// The structure and value seeds of program `index`.
fn seeds(seed: u64, index: u64, structures: u64) -> (u64, u64) {
    let mut h = rng::Rng::new(seed);
    let base = h.next_u64();
    let s = base ^ (index % structures.max(1)).wrapping_mul(0x9e37_79b9_7f4a_7c15);
    let v = base.rotate_left(17) ^ index.wrapping_mul(0xd1b5_4a32_d192_ed03);
    (s, v)
}

/// Program `index` of a run with seed `seed` over `structures` structure seeds.
pub fn program(seed: u64, index: u64, structures: u64) -> Expr {
    let (s, v) = seeds(seed, index, structures);
    generate::Gen::new(s, v).program()
}

/// Elements of all leaves' data.
fn data_size(e: &Expr) -> usize {
    match e {
        Expr::Leaf { shape, view, .. } => eval::numel(&eval::source_shape(shape, view)),
        _ => e.children().iter().map(|c| data_size(c)).sum(),
    }
}

/// Shape shrinking: the same structure seed with other value seeds (other extents and data),
/// keeping the failing program with the least data.
fn smaller_shapes(seed: u64, index: u64, structures: u64, e: &Expr, mode: Mode) -> Expr {
    let (s, v) = seeds(seed, index, structures);
    let mut best = (data_size(e), e.clone());
    for k in 1..=48u64 {
        let c = generate::Gen::new(s, v ^ k.wrapping_mul(0xa076_1d64_78bd_642f)).program();
        let n = data_size(&c);
        if n < best.0 && check(&c, mode).is_err() {
            best = (n, c);
        }
    }
    best.1
}

/// The error of `e` on the CPU (for the refusal statistics).
fn runs_once(e: &Expr) -> Result<(), String> {
    guarded(|| eval::run(e, Device::CPU)).map(|_| ())
}

type Outcome = Result<(DType, Vec<usize>, Vec<Val>), String>;

fn guarded(f: impl FnOnce() -> Outcome) -> Outcome {
    match catch_unwind(AssertUnwindSafe(f)) {
        Ok(r) => r,
        Err(p) => {
            let msg = p
                .downcast_ref::<String>()
                .cloned()
                .or_else(|| p.downcast_ref::<&str>().map(|s| s.to_string()))
                .unwrap_or_else(|| "(no message)".into());
            Err(format!("PANIC: {msg}"))
        }
    }
}

fn runs(e: &Expr, mode: Mode) -> (Outcome, Outcome, &'static str, &'static str) {
    match mode {
        Mode::CudaVsCpu => (
            guarded(|| eval::run(e, Device::CPU)),
            guarded(|| eval::run(e, Device::cuda(0))),
            "cpu",
            "cuda",
        ),
        Mode::CpuLayouts => (
            guarded(|| eval::run(e, Device::CPU)),
            guarded(|| eval::with_copied_leaves(|| eval::run(e, Device::CPU))),
            "cpu",
            "cpu (copied leaves)",
        ),
        Mode::Replay => {
            // A first eager run builds the program's kernels; once their optimised builds
            // have replaced the quick ones, the eager reference and the compiled program run
            // the same kernels (how many blocks share a reduction's row, and so its order of
            // additions, follows the kernel that runs).
            let _ = guarded(|| eval::run(e, Device::cuda(0)));
            cuprite_array::tuning::wait_tier_up();
            (
                guarded(|| eval::run(e, Device::cuda(0))),
                guarded(|| replay::run_compiled(e, Device::cuda(0))),
                "cuda",
                "cuda (compiled, replayed)",
            )
        }
        Mode::CpuReplay => (
            guarded(|| eval::run(e, Device::CPU)),
            guarded(|| replay::run_compiled(e, Device::CPU)),
            "cpu",
            "cpu (compiled)",
        ),
    }
}

fn close(a: f64, b: f64, tol: f64) -> bool {
    (a.is_nan() && b.is_nan()) || a == b || (a - b).abs() <= tol
}

/// Whether two values agree within `tol`.
pub fn agree(a: &Val, b: &Val, tol: f64) -> bool {
    match (a, b) {
        (Val::Int(x), Val::Int(y)) => x == y,
        (Val::Real(x), Val::Real(y)) => close(*x, *y, tol),
        (Val::Cplx(x, u), Val::Cplx(y, v)) => {
            // Inexact complex results with a non-finite part on both sides agree: products and
            // sums of infinities follow C99 Annex G in one library and plain formulas in another
            // (NaN + NaN·i against inf − inf·i), and neither is wrong.
            let inf = |a: f64, b: f64| !a.is_finite() || !b.is_finite();
            (close(*x, *y, tol) && close(*u, *v, tol)) || (tol > 0.0 && inf(*x, *u) && inf(*y, *v))
        }
        _ => false,
    }
}

/// Whether a node of `e` computes a complex value inexactly (products, quotients, reductions,
/// math functions): there the two backends' libraries may disagree on which non-finite value an
/// infinite operand gives.
fn inexact_complex_inside(e: &Expr) -> bool {
    let i = e.info();
    (i.dtype.is_complex() && i.err > 0.0) || e.children().into_iter().any(inexact_complex_inside)
}

/// The kind of an error text (before the first colon).
fn kind(e: &str) -> &str {
    e.split(':').next().unwrap_or(e)
}

/// Result of one program: `Ok(true)` agreed with values, `Ok(false)` both refused alike,
/// `Err(what differed)`.
pub fn check(e: &Expr, mode: Mode) -> Result<bool, String> {
    let (a, b, na, nb) = runs(e, mode);
    let tol = if mode.exact() {
        0.0
    } else {
        4.0 * e.info().err
    };
    match (a, b) {
        // Work a capture refuses (host reads, data-dependent sizes): refused, not a mismatch.
        (Ok(_), Err(y)) if mode.exact() && y.contains(replay::REFUSED) => Ok(false),
        (Err(x), Err(y)) => {
            if x.starts_with("PANIC") || y.starts_with("PANIC") || kind(&x) != kind(&y) {
                Err(format!("{na}: {x}\n{nb}: {y}"))
            } else {
                Ok(false)
            }
        }
        (Err(x), Ok(_)) => Err(format!("{na} failed: {x}; {nb} returned values")),
        (Ok(_), Err(y)) => Err(format!("{nb} failed: {y}; {na} returned values")),
        (Ok((da, sa, va)), Ok((db, sb, vb))) => {
            if da != db || sa != sb || va.len() != vb.len() {
                return Err(format!(
                    "{na}: {da:?} {sa:?} ({} values); {nb}: {db:?} {sb:?} ({} values)",
                    va.len(),
                    vb.len()
                ));
            }
            // A real value taken from an inexact complex one (`real`, `imag`, `abs`) keeps the
            // rule for complex infinities: non-finite on both sides agrees.
            let lax = tol > 0.0 && inexact_complex_inside(e);
            let non_finite = |v: &Val| matches!(v, Val::Real(x) if !x.is_finite());
            let bad: Vec<usize> = (0..va.len())
                .filter(|&i| {
                    if mode.exact() {
                        !replay::same_bits(&va[i], &vb[i])
                    } else {
                        !agree(&va[i], &vb[i], tol)
                    }
                })
                .filter(|&i| !(lax && non_finite(&va[i]) && non_finite(&vb[i])))
                .collect();
            if let Some(&i) = bad.first() {
                return Err(format!(
                    "{} of {} elements differ beyond the tolerance {tol:e} ({da:?}, shape {sa:?}); \
                     first at flat index {i}: {na} {:?}, {nb} {:?}",
                    bad.len(),
                    va.len(),
                    va[i],
                    vb[i]
                ));
            }
            Ok(true)
        }
    }
}

/// The smallest variant of a failing `e` that still fails, by greedy [`repro::candidates`]
/// (at most `budget` trials).
pub fn shrink(e: &Expr, mode: Mode, budget: usize) -> (Expr, String) {
    shrink_by(e, budget, |c| check(c, mode).map(|_| ()))
}

/// [`shrink`] with any failure predicate: `fails(e)` is `Err(what)` while `e` still fails.
/// Returns the smallest failing variant found and its message (`e` itself, with a note, when
/// `e` does not fail).
pub fn shrink_by(
    e: &Expr,
    budget: usize,
    fails: impl Fn(&Expr) -> Result<(), String>,
) -> (Expr, String) {
    let mut cur = e.clone();
    let mut msg = match fails(&cur) {
        Err(m) => m,
        Ok(()) => return (cur, "the failure did not repeat".into()),
    };
    let mut tries = 0;
    'outer: loop {
        for c in repro::candidates(&cur) {
            if tries >= budget {
                break 'outer;
            }
            if c.size() > cur.size() || c == cur {
                continue;
            }
            tries += 1;
            if let Err(m) = fails(&c) {
                cur = c;
                msg = m;
                continue 'outer;
            }
        }
        break;
    }
    (cur, msg)
}

/// What checking one program gave (before any shrinking).
struct Checked {
    index: u64,
    program: Expr,
    result: Result<bool, String>,
    /// The CPU's error text when both runs refused alike.
    refusal: Option<String>,
}

/// Checks program `k` of the run.
fn check_one(cfg: &Config, k: u64, trace: bool) -> Checked {
    let e = program(cfg.seed, k, cfg.structures);
    if trace {
        eprintln!("program {k}: {} nodes, {:?}", e.size(), e.info().shape);
        if std::env::var_os("CUPRITE_FUZZ_TRACE_RUST").is_some() {
            eprintln!("{}", repro::to_rust(&e, "trace"));
        }
    }
    let t = Instant::now();
    let result = check(&e, cfg.mode);
    let refusal = match result {
        Ok(false) => runs_once(&e).err(),
        _ => None,
    };
    if trace {
        let s = t.elapsed().as_secs_f64();
        eprintln!(
            "program {k}: checked in {s:.2} s ({} kernels built so far)",
            cuprite_array::stats::compiles()
        );
    }
    Checked {
        index: k,
        program: e,
        result,
        refusal,
    }
}

/// Runs `cfg.programs` programs (or the one `cfg.only`) on `cfg.threads` threads, calling
/// `progress` with the number checked so far; then shrinks the failures in program order.
pub fn run(cfg: &Config, mut progress: impl FnMut(usize)) -> Report {
    use std::sync::Mutex;
    use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
    // cuDNN's measured algorithm choices are made per stream (the eager run's and the compiled
    // program's may time their candidates differently); the replay modes compare with cuDNN's
    // heuristic choice, the same on every stream. Restored when the run ends.
    struct Search(bool);
    impl Drop for Search {
        fn drop(&mut self) {
            cuprite_array::tuning::set_cudnn_algo_search(self.0);
        }
    }
    let _search = cfg.mode.exact().then(|| {
        let s = Search(cuprite_array::tuning::cudnn_algo_search());
        cuprite_array::tuning::set_cudnn_algo_search(false);
        s
    });
    let start = Instant::now();
    let compiles0 = cuprite_array::stats::compiles();
    let range: Vec<u64> = match cfg.only {
        Some(k) => vec![k],
        None => (0..cfg.programs as u64).collect(),
    };
    let trace = std::env::var_os("CUPRITE_FUZZ_TRACE").is_some();
    let threads = match cfg.threads {
        0 => std::thread::available_parallelism().map_or(1, |n| n.get()),
        n => n,
    }
    .clamp(1, range.len().max(1));
    let next = AtomicUsize::new(0);
    let done = AtomicUsize::new(0);
    let failing = AtomicUsize::new(0);
    let stopped_early = AtomicBool::new(false);
    let slots: Mutex<Vec<Option<Checked>>> = Mutex::new((0..range.len()).map(|_| None).collect());
    let work = || {
        loop {
            if failing.load(Ordering::Relaxed) >= cfg.max_failures.max(1) {
                break;
            }
            if cfg
                .max_seconds
                .is_some_and(|t| start.elapsed().as_secs_f64() > t)
            {
                stopped_early.store(true, Ordering::Relaxed);
                break;
            }
            let n = next.fetch_add(1, Ordering::Relaxed);
            let Some(&k) = range.get(n) else { break };
            let c = check_one(cfg, k, trace);
            if c.result.is_err() {
                failing.fetch_add(1, Ordering::Relaxed);
            }
            slots.lock().unwrap_or_else(|e| e.into_inner())[n] = Some(c);
            done.fetch_add(1, Ordering::Relaxed);
        }
    };
    std::thread::scope(|s| {
        let handles: Vec<_> = (0..threads).map(|_| s.spawn(work)).collect();
        while !handles.iter().all(|h| h.is_finished()) {
            progress(done.load(Ordering::Relaxed));
            std::thread::sleep(std::time::Duration::from_millis(50));
        }
    });
    progress(done.load(Ordering::Relaxed));
    let mut r = Report {
        stopped_early: stopped_early.into_inner(),
        ..Report::default()
    };
    let mut fps = HashSet::new();
    let checked = slots.into_inner().unwrap_or_else(|e| e.into_inner());
    for c in checked.into_iter().flatten() {
        if r.failures.len() >= cfg.max_failures.max(1) {
            break;
        }
        let e = &c.program;
        let info = e.info();
        let mut fp = String::new();
        e.fingerprint(&mut fp);
        fps.insert(fp);
        r.nodes += e.size();
        let (mut fams, mut big) = (std::collections::BTreeSet::new(), false);
        tally(e, &mut fams, &mut r.ops, &mut big);
        for f in fams {
            *r.families.entry(f).or_default() += 1;
        }
        r.large += big as usize;
        if let Some(i) = DType::ALL.iter().position(|&d| d == info.dtype) {
            r.dtypes[i] += 1;
        }
        r.programs += 1;
        let k = c.index;
        match c.result {
            Ok(true) => {
                r.compared += 1;
                if info.err == 0.0 || cfg.mode.exact() {
                    r.exact += 1;
                }
            }
            Ok(false) => {
                r.both_err += 1;
                if let Some(m) = c.refusal {
                    let key: String = m
                        .chars()
                        .take_while(|c| !c.is_ascii_digit())
                        .take(70)
                        .collect();
                    *r.refusals.entry(key).or_default() += 1;
                }
            }
            Err(original) => {
                let e = smaller_shapes(cfg.seed, k, cfg.structures, e, cfg.mode);
                let (small, shrunk) = shrink(&e, cfg.mode, 300);
                // The program as generated failed first: its message leads (a smaller program
                // may fail for another reason).
                let message = if shrunk == original {
                    shrunk
                } else {
                    format!("{original}\nthe reproducer below, after shrinking: {shrunk}")
                };
                let header = format!(
                    "cuprite fuzz --seed {} --structures {} --only {k}: {}",
                    cfg.seed,
                    cfg.structures,
                    message.lines().next().unwrap_or("")
                );
                let f = Failure {
                    index: k,
                    message,
                    reproducer: repro::to_rust(&small, &header),
                };
                if cfg.print_failures {
                    eprintln!("MISMATCH in program {k}:\n{}\n{}", f.message, f.reproducer);
                }
                r.failures.push(f);
            }
        }
    }
    r.structures = fps.len();
    r.compiles = cuprite_array::stats::compiles() - compiles0;
    r.seconds = start.elapsed().as_secs_f64();
    r
}

impl Report {
    /// A human-readable summary (failures with their reproducers first).
    pub fn to_text(&self) -> String {
        use std::fmt::Write;
        let mut s = String::new();
        for f in &self.failures {
            let _ = writeln!(
                s,
                "MISMATCH in program {}:\n{}\n{}",
                f.index, f.message, f.reproducer
            );
        }
        if !self.refusals.is_empty() {
            let _ = writeln!(s, "errors both runs returned alike (expected refusals):");
            for (k, n) in &self.refusals {
                let _ = writeln!(s, "  {n:6}  {k}");
            }
        }
        let fams: Vec<String> = self
            .families
            .iter()
            .map(|(f, n)| format!("{f} {n}"))
            .collect();
        let ops: Vec<String> = self.ops.iter().map(|(o, n)| format!("{o} {n}")).collect();
        let _ = writeln!(
            s,
            "programs per family: {}\ntable operations (nodes): {}\nprograms with a node of 2^16 elements or more: {}",
            fams.join(", "),
            ops.join(", "),
            self.large
        );
        let dts: Vec<String> = DType::ALL
            .iter()
            .zip(self.dtypes)
            .filter(|(_, n)| *n > 0)
            .map(|(d, n)| format!("{d:?} {n}"))
            .collect();
        let _ = writeln!(
            s,
            "programs: {}{}  compared: {} ({} bit-exact)  both refused alike: {}  mismatches: {}\n\
             distinct structures: {}  nodes: {}  NVRTC compilations: {}  time: {:.1} s\n\
             output dtypes: {}",
            self.programs,
            if self.stopped_early {
                " (time budget reached)"
            } else {
                ""
            },
            self.compared,
            self.exact,
            self.both_err,
            self.failures.len(),
            self.structures,
            self.nodes,
            self.compiles,
            self.seconds,
            dts.join(", ")
        );
        s
    }
}
