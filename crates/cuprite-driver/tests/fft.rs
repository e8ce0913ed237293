//! cuFFT through `cuprite_driver::fft`: plan descriptions and their checks (CPU), a missing cuFFT (a
//! child process with `CUPRITE_CUFFT_PATH` on an empty folder), and on the GPU every kind and
//! precision against the naive `f64` DFT of `cuprite_testkit::dft` (small sizes, including 1,
//! odd and prime ones) or a round trip (large ones), batched and advanced layouts, plans moved
//! between streams, the plan cache, and the checks made before cuFFT is called. Inputs are
//! fresh random data; outputs are poisoned with NaN first.

use cuprite_driver::fft::{
    Direction, FftFloat, FftKind, Layout, Plan, PlanCache, PlanDesc, Precision, version,
};
use cuprite_driver::{
    Context, ContextFlags, ContextStack, DeviceBuffer, DeviceRead, DeviceView, Error, Stream,
};
use cuprite_testkit::dft::{dft_last, irdft_last, rdft_last, rel_error, rel_error_real};
use cuprite_testkit::{CHILD_LIMIT, OutputWithin, Rng, Test, TestResult, temp_dir};
use num_complex::Complex;
use std::sync::Arc;
use std::time::Duration;

type C64 = Complex<f64>;

/// Set in the child process that checks a missing cuFFT.
pub const MISSING_CHILD_ENV: &str = "CUPRITE_FFT_MISSING_CHILD";

pub fn tests() -> Vec<Test> {
    vec![
        Test::cpu("fft::desc_extents", desc_extents),
        Test::cpu("fft::desc_errors_name_the_values", desc_errors),
        Test::cpu("fft::buffer_checks_name_the_values", buffer_checks),
        Test::cpu("fft::desc_is_a_cache_key", desc_is_a_cache_key),
        Test::cpu("fft::reference_dft_agrees_with_itself", reference_dft),
        Test::cpu("fft::missing_cufft_is_err_at_first_use", missing_cufft),
        Test::gpu("fft::c2c_f32_1d_sizes", c2c_sizes::<f32>),
        Test::gpu("fft::c2c_f64_1d_sizes", c2c_sizes::<f64>),
        Test::gpu("fft::r2c_c2r_f32_1d_sizes", real_sizes::<f32>),
        Test::gpu("fft::r2c_c2r_f64_1d_sizes", real_sizes::<f64>),
        Test::gpu("fft::c2c_2d_3d_batched", c2c_multi_dim),
        Test::gpu("fft::r2c_c2r_2d_3d_batched", real_multi_dim),
        Test::gpu("fft::advanced_layouts_f32", advanced_layouts::<f32>),
        Test::gpu("fft::advanced_layouts_f64", advanced_layouts::<f64>),
        Test::gpu("fft::c2c_in_place", c2c_in_place),
        Test::gpu("fft::large_round_trips", large_round_trips),
        Test::gpu("fft::half_precision", half_precision),
        Test::gpu("fft::plan_on_a_second_stream", plan_on_a_second_stream),
        Test::gpu("fft::work_area_orders_streams", work_area_orders_streams),
        Test::gpu(
            "fft::single_stream_waits_for_nothing",
            single_stream_waits_for_nothing,
        ),
        Test::gpu("fft::cache_hits_and_eviction", cache_hits_and_eviction),
        Test::gpu("fft::exec_checks_before_cufft", exec_checks),
    ]
}

// ---------------------------------------------------------------------------------------------
// Element types

trait Real: FftFloat + std::fmt::Debug + PartialEq {
    /// Relative L2 error allowed against the f64 reference of the same (rounded) input.
    const TOL: f64;
    fn of(v: f64) -> Self;
    fn f(self) -> f64;
}

impl Real for f32 {
    const TOL: f64 = 2e-5;
    fn of(v: f64) -> Self {
        v as f32
    }
    fn f(self) -> f64 {
        f64::from(self)
    }
}
impl Real for f64 {
    const TOL: f64 = 1e-12;
    fn of(v: f64) -> Self {
        v
    }
    fn f(self) -> f64 {
        self
    }
}
impl Real for half::f16 {
    const TOL: f64 = 1e-2;
    fn of(v: f64) -> Self {
        half::f16::from_f64(v)
    }
    fn f(self) -> f64 {
        self.to_f64()
    }
}
impl Real for half::bf16 {
    const TOL: f64 = 5e-2;
    fn of(v: f64) -> Self {
        half::bf16::from_f64(v)
    }
    fn f(self) -> f64 {
        self.to_f64()
    }
}

fn to_t<T: Real>(v: &[C64]) -> Vec<Complex<T>> {
    v.iter()
        .map(|c| Complex::new(T::of(c.re), T::of(c.im)))
        .collect()
}

fn to_c64<T: Real>(v: &[Complex<T>]) -> Vec<C64> {
    v.iter().map(|c| Complex::new(c.re.f(), c.im.f())).collect()
}

fn random_c64(rng: &mut Rng, n: usize) -> Vec<C64> {
    (0..n)
        .map(|_| {
            Complex::new(
                f64::from(rng.f32_in(-1.0, 1.0)),
                f64::from(rng.f32_in(-1.0, 1.0)),
            )
        })
        .collect()
}

fn random_f64(rng: &mut Rng, n: usize) -> Vec<f64> {
    (0..n).map(|_| f64::from(rng.f32_in(-1.0, 1.0))).collect()
}

/// A device buffer of `n` NaNs.
fn poisoned_c<T: Real>(
    s: &Arc<Stream>,
    n: usize,
) -> cuprite_driver::Result<DeviceBuffer<Complex<T>>> {
    s.clone_htod(&vec![Complex::new(T::of(f64::NAN), T::of(f64::NAN)); n])
}

fn poisoned_r<T: Real>(s: &Arc<Stream>, n: usize) -> cuprite_driver::Result<DeviceBuffer<T>> {
    s.clone_htod(&vec![T::of(f64::NAN); n])
}

fn check_err(what: &str, got: f64, tol: f64) -> TestResult {
    if got.is_nan() || got > tol {
        return Err(format!("{what}: relative error {got:e} above {tol:e}").into());
    }
    Ok(())
}

/// `[batch, shape...]`.
fn full_shape(batch: usize, shape: &[usize]) -> Vec<usize> {
    std::iter::once(batch)
        .chain(shape.iter().copied())
        .collect()
}

fn primary() -> cuprite_driver::Result<(Arc<Context>, Arc<Stream>)> {
    let ctx = Context::new(0)?;
    let s = ctx.default_stream();
    Ok((ctx, s))
}

fn own_context() -> cuprite_driver::Result<Arc<Context>> {
    let ctx = Context::create_and_push(ContextFlags::SCHED_AUTO, cuprite_driver::Device::get(0)?)?;
    ContextStack::pop()?;
    Ok(ctx)
}

// ---------------------------------------------------------------------------------------------
// CPU: descriptions

fn desc_extents() -> TestResult {
    let e = PlanDesc::c2c(Precision::F32, &[7]).check()?;
    assert_eq!((e.input, e.output), (7, 7));
    let e = PlanDesc::c2c(Precision::F64, &[4, 5, 6])
        .with_batch(3)
        .check()?;
    assert_eq!((e.input, e.output), (360, 360));
    // The complex side of real transforms: n/2 + 1 in the last dimension.
    let d = PlanDesc::r2c(Precision::F32, &[6, 9]).with_batch(2);
    assert_eq!(d.input_dims(), [6, 9]);
    assert_eq!(d.output_dims(), [6, 5]);
    let e = d.check()?;
    assert_eq!((e.input, e.output), (108, 60));
    let d = PlanDesc::c2r(Precision::F64, &[8]).with_batch(5);
    assert_eq!(d.input_dims(), [5]);
    assert_eq!(d.output_dims(), [8]);
    let e = d.check()?;
    assert_eq!((e.input, e.output), (25, 40));
    assert!(d.input_is_complex() && !d.output_is_complex());
    // Columns of a 100 × 64 matrix: the last element of the last signal is element 6399.
    let col = Layout::new(&[100], 64, 1);
    let e = PlanDesc::c2c(Precision::F32, &[100])
        .with_batch(64)
        .with_input_layout(col)
        .with_output_layout(col)
        .check()?;
    assert_eq!((e.input, e.output), (6400, 6400));
    // Padded rows: 2-D [3, 4] in embed [3, 7], stride 2, dist 50, batch 4:
    // last = 3 * 50 + ((2 * 7 + 3) * 2) = 184.
    let e = PlanDesc::c2c(Precision::F32, &[3, 4])
        .with_batch(4)
        .with_input_layout(Layout::new(&[3, 7], 2, 50))
        .check()?;
    assert_eq!((e.input, e.output), (185, 48));
    // 3-D, embed [2, 3, 5] for [2, 3, 4], stride 1, dist 30, batch 2: 30 + (1*3+2)*5 + 3 + 1.
    let e = PlanDesc::c2c(Precision::F64, &[2, 3, 4])
        .with_batch(2)
        .with_input_layout(Layout::new(&[2, 3, 5], 1, 30))
        .check()?;
    assert_eq!(e.input, 59);
    // A dense layout given explicitly is the default one.
    let d = PlanDesc::r2c(Precision::F32, &[10]);
    assert_eq!(d.effective_output_layout(), Layout::contiguous(&[6]));
    assert_eq!(Layout::contiguous(&[3, 4]).dist(), 12);
    // Half precision: powers of two.
    let e = PlanDesc::r2c(Precision::F16, &[256])
        .with_batch(4)
        .check()?;
    assert_eq!((e.input, e.output), (1024, 4 * 129));
    PlanDesc::c2c(Precision::BF16, &[1, 2, 1024]).check()?;
    Ok(())
}

/// `desc.check()` is an `InvalidArgument` whose message contains every `needle`.
fn expect_err(r: cuprite_driver::Result<impl std::fmt::Debug>, needles: &[&str]) -> TestResult {
    match r {
        Err(Error::InvalidArgument(m)) => {
            for n in needles {
                if !m.contains(n) {
                    return Err(format!("message {m:?} lacks {n:?}").into());
                }
            }
            Ok(())
        }
        other => Err(format!("expected InvalidArgument with {needles:?}, got {other:?}").into()),
    }
}

fn desc_errors() -> TestResult {
    let f32c = |s: &[usize]| PlanDesc::c2c(Precision::F32, s);
    expect_err(f32c(&[]).check(), &["rank 0", "1, 2 or 3"])?;
    expect_err(f32c(&[2, 2, 2, 2]).check(), &["rank 4", "(and 1 more)"])?;
    expect_err(f32c(&[8, 0]).check(), &["size 0 in dimension 1"])?;
    expect_err(f32c(&[8]).with_batch(0).check(), &["batch 0"])?;
    let big = i64::MAX as usize + 1;
    expect_err(f32c(&[big]).check(), &[&format!("size {big}"), "limit"])?;
    expect_err(
        f32c(&[4]).with_batch(big).check(),
        &[&format!("batch {big}")],
    )?;
    expect_err(
        PlanDesc::c2c(Precision::F16, &[8, 12]).check(),
        &["size 12 in dimension 1", "f16", "power-of-two"],
    )?;
    expect_err(
        PlanDesc::r2c(Precision::BF16, &[1000]).check(),
        &["size 1000", "bf16", "power-of-two"],
    )?;
    // Layouts: embed count, embed smaller than the size (each side), stride, dist.
    expect_err(
        f32c(&[4, 4])
            .with_input_layout(Layout::new(&[4], 1, 16))
            .check(),
        &["input layout has 1 embed size(s)", "rank-2"],
    )?;
    expect_err(
        f32c(&[4, 6])
            .with_input_layout(Layout::new(&[4, 5], 1, 24))
            .check(),
        &["input embed[1] = 5", "size 6"],
    )?;
    // R2C output: the complex side is 9/2 + 1 = 5 wide.
    expect_err(
        PlanDesc::r2c(Precision::F64, &[3, 9])
            .with_output_layout(Layout::new(&[3, 4], 1, 12))
            .check(),
        &["output embed[1] = 4", "output size 5"],
    )?;
    expect_err(
        f32c(&[4])
            .with_output_layout(Layout::new(&[4], 0, 4))
            .check(),
        &["output stride 0"],
    )?;
    expect_err(
        f32c(&[4])
            .with_input_layout(Layout::new(&[4], 1, 0))
            .check(),
        &["input dist 0"],
    )?;
    expect_err(
        f32c(&[4])
            .with_input_layout(Layout::new(&[4], 1, big))
            .check(),
        &[&format!("input dist {big}")],
    )?;
    expect_err(
        f32c(&[4, 4])
            .with_input_layout(Layout::new(&[4, big], 1, 1))
            .check(),
        &[&format!("input embed[1] = {big}")],
    )?;
    // Extents that overflow or exceed any buffer.
    let huge = 1usize << 40;
    expect_err(f32c(&[huge, huge]).check(), &["input", "overflows"])?;
    expect_err(
        f32c(&[4])
            .with_batch(1 << 34)
            .with_input_layout(Layout::new(&[4], 1, 1 << 31))
            .check(),
        &["input", "overflows"],
    )?;
    expect_err(
        f32c(&[1 << 20])
            .with_input_layout(Layout::new(&[1 << 20], 1 << 42, 1))
            .check(),
        &["input", "more than any buffer can hold"],
    )?;
    expect_err(
        f32c(&[1 << 20])
            .with_batch(1 << 25)
            .with_output_layout(Layout::new(&[1 << 20], 1, 1 << 38))
            .check(),
        &["output"],
    )?;
    Ok(())
}

fn buffer_checks() -> TestResult {
    let d = PlanDesc::r2c(Precision::F32, &[10]).with_batch(3);
    let e = d.check_buffers(30, 18)?;
    assert_eq!((e.input, e.output), (30, 18));
    expect_err(
        d.check_buffers(29, 18),
        &[
            "input buffer holds 29 elements",
            "element 29",
            "at least 30",
        ],
    )?;
    expect_err(
        d.check_buffers(30, 17),
        &["output buffer holds 17 elements", "at least 18"],
    )?;
    // In place: C2C only, same layouts, long enough.
    let c = PlanDesc::c2c(Precision::F64, &[16]).with_batch(2);
    c.check_in_place(32)?;
    expect_err(
        c.check_in_place(31),
        &["in-place buffer holds 31", "at least 32"],
    )?;
    expect_err(d.check_in_place(100), &["only C2C"])?;
    expect_err(
        c.with_output_layout(Layout::new(&[16], 2, 32))
            .check_in_place(1000),
        &["in place", "must be the same"],
    )?;
    // A dense layout spelled out is the same as none.
    c.with_output_layout(Layout::new(&[16], 1, 16))
        .check_in_place(32)?;
    Ok(())
}

fn desc_is_a_cache_key() -> TestResult {
    use std::collections::HashSet;
    let a = PlanDesc::c2c(Precision::F32, &[64]).with_batch(4);
    let mut set = HashSet::new();
    assert!(set.insert(a));
    assert!(!set.insert(PlanDesc::c2c(Precision::F32, &[64]).with_batch(4)));
    for other in [
        a.with_batch(5),
        PlanDesc::c2c(Precision::F64, &[64]).with_batch(4),
        PlanDesc::r2c(Precision::F32, &[64]).with_batch(4),
        PlanDesc::c2c(Precision::F32, &[64, 1]).with_batch(4),
        a.with_input_layout(Layout::new(&[64], 2, 128)),
        a.with_output_layout(Layout::new(&[64], 1, 64)),
    ] {
        assert!(set.insert(other), "{other:?} collides");
    }
    assert_eq!(a.kind(), FftKind::C2C);
    assert_eq!(a.rank(), 1);
    assert_eq!(a.shape(), [64]);
    let shown = format!("{:?}", a.with_input_layout(Layout::new(&[64], 2, 128)));
    assert!(shown.contains("C2C f32 [64] × batch 4"), "{shown}");
    assert!(shown.contains("embed [64], stride 2, dist 128"), "{shown}");
    Ok(())
}

/// The reference itself: a delta, a single frequency, the inverse of the forward, and the
/// real transforms' consistency with the complex one.
fn reference_dft() -> TestResult {
    let mut rng = Rng::fresh();
    for n in [1usize, 2, 7, 16, 31] {
        let mut delta = vec![Complex::new(0.0, 0.0); n];
        delta[0] = Complex::new(1.0, 0.0);
        let y = dft_last(&delta, &[n], 1, false);
        check_err(
            "delta",
            rel_error(&y, &vec![Complex::new(1.0, 0.0); n]),
            1e-14,
        )?;
        // e^{2πi 3j/n} transforms to n at k = 3 mod n.
        let f = 3 % n;
        let wave: Vec<C64> = (0..n)
            .map(|j| {
                let a = 2.0 * std::f64::consts::PI * (f * j) as f64 / n as f64;
                Complex::new(a.cos(), a.sin())
            })
            .collect();
        let y = dft_last(&wave, &[n], 1, false);
        let mut want = vec![Complex::new(0.0, 0.0); n];
        want[f] = Complex::new(n as f64, 0.0);
        check_err("single frequency", rel_error(&y, &want), 1e-12)?;
    }
    for shape in [vec![2, 5], vec![3, 4, 6], vec![1, 7]] {
        let n: usize = shape.iter().product();
        let x = random_c64(&mut rng, 2 * n);
        let fs = full_shape(2, &shape);
        let y = dft_last(&x, &fs, shape.len(), false);
        let back = dft_last(&y, &fs, shape.len(), true);
        let scaled: Vec<C64> = x.iter().map(|v| v * n as f64).collect();
        check_err("round trip", rel_error(&back, &scaled), 1e-13)?;
        let xr = random_f64(&mut rng, 2 * n);
        let half = rdft_last(&xr, &fs, shape.len());
        let last = *shape.last().unwrap_or(&1);
        assert_eq!(half.len(), 2 * n / last * (last / 2 + 1));
        let real = irdft_last(&half, &fs, shape.len());
        let scaled: Vec<f64> = xr.iter().map(|v| v * n as f64).collect();
        check_err("real round trip", rel_error_real(&real, &scaled), 1e-13)?;
    }
    Ok(())
}

/// In a child with `CUPRITE_CUFFT_PATH` on an empty folder: the first cuFFT use is an `Err`
/// naming libcufft and the places tried; with a GPU, plans fail the same way while memory
/// and copies still work.
pub fn missing_child() -> i32 {
    match version() {
        Err(Error::LibraryNotFound { library, tried }) => {
            println!("version: LibraryNotFound {library} {}", tried.len());
            for t in tried {
                println!("  tried {t}");
            }
        }
        other => println!("version: unexpected {other:?}"),
    }
    println!("available: {}", cuprite_driver::fft::is_available());
    if cuprite_testkit::has_gpu() {
        let r = (|| -> cuprite_driver::Result<String> {
            let (_ctx, s) = primary()?;
            let e = match Plan::new(&s, &PlanDesc::c2c(Precision::F32, &[16])) {
                Err(Error::LibraryNotFound { library, .. }) => format!("LibraryNotFound {library}"),
                other => format!("unexpected {other:?}"),
            };
            let buf = s.clone_htod(&[1u32, 2, 3])?;
            Ok(format!("{e}; copy back {:?}", s.clone_dtoh(&buf)?))
        })();
        println!("plan: {r:?}");
    }
    0
}

fn missing_cufft() -> TestResult {
    let dir = temp_dir("nocufft");
    let out = std::process::Command::new(std::env::current_exe()?)
        .env(MISSING_CHILD_ENV, "1")
        .env("CUPRITE_CUFFT_PATH", &dir)
        .output_within(CHILD_LIMIT)?;
    let text = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(
        out.status.success(),
        "child failed: {text} {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let names = cuprite_sys::libraries::CUFFT_SPEC.unix_names;
    assert!(
        text.contains(&format!(
            "version: LibraryNotFound libcufft {}",
            4 * names.len()
        )),
        "{text}"
    );
    for n in names {
        let p = dir.join(n).display().to_string();
        assert!(
            text.contains(&format!("tried {p}: not found")),
            "{p}: {text}"
        );
    }
    assert!(text.contains("available: false"), "{text}");
    if cuprite_testkit::has_gpu() {
        assert!(
            text.contains("plan: Ok(\"LibraryNotFound libcufft; copy back [1, 2, 3]\")"),
            "{text}"
        );
    }
    std::fs::remove_dir_all(&dir)?;
    Ok(())
}

// ---------------------------------------------------------------------------------------------
// GPU: accuracy

const SIZES: [usize; 6] = [1, 2, 7, 31, 1000, 4097];

/// C2C forward and inverse of a batch of `shape` against the naive DFT.
fn c2c_case<T: Real>(s: &Arc<Stream>, shape: &[usize], batch: usize, rng: &mut Rng) -> TestResult {
    let desc = PlanDesc::c2c(T::PRECISION, shape).with_batch(batch);
    let total = batch * shape.iter().product::<usize>();
    let fs = full_shape(batch, shape);
    let x = to_t::<T>(&random_c64(rng, total));
    let input = s.clone_htod(&x)?;
    let mut y = poisoned_c::<T>(s, total)?;
    let mut plan = Plan::new(s, &desc)?;
    plan.exec_forward(&input, &mut y)?;
    let got = to_c64(&s.clone_dtoh(&y)?);
    let want = dft_last(&to_c64(&x), &fs, shape.len(), false);
    check_err(&format!("{desc:?} forward"), rel_error(&got, &want), T::TOL)?;
    let mut z = poisoned_c::<T>(s, total)?;
    plan.exec_inverse(&y, &mut z)?;
    let back = to_c64(&s.clone_dtoh(&z)?);
    let want = dft_last(&got, &fs, shape.len(), true);
    check_err(
        &format!("{desc:?} inverse"),
        rel_error(&back, &want),
        T::TOL,
    )?;
    // The input was only read.
    assert_eq!(s.clone_dtoh(&input)?, x);
    Ok(())
}

/// R2C of a batch of real signals against the naive DFT, then C2R of the reference half
/// spectrum against the naive inverse.
fn real_case<T: Real>(s: &Arc<Stream>, shape: &[usize], batch: usize, rng: &mut Rng) -> TestResult {
    let r2c = PlanDesc::r2c(T::PRECISION, shape).with_batch(batch);
    let c2r = PlanDesc::c2r(T::PRECISION, shape).with_batch(batch);
    let ext = r2c.check()?;
    let fs = full_shape(batch, shape);
    let rank = shape.len();
    let x: Vec<T> = random_f64(rng, ext.input).into_iter().map(T::of).collect();
    let xr: Vec<f64> = x.iter().map(|v| v.f()).collect();
    let input = s.clone_htod(&x)?;
    let mut y = poisoned_c::<T>(s, ext.output)?;
    Plan::new(s, &r2c)?.exec_r2c(&input, &mut y)?;
    let got = to_c64(&s.clone_dtoh(&y)?);
    let want = rdft_last(&xr, &fs, rank);
    check_err(&format!("{r2c:?}"), rel_error(&got, &want), T::TOL)?;
    assert_eq!(s.clone_dtoh(&input)?, x, "R2C changed its input");
    // C2R of the (rounded) reference spectrum: a consistent half spectrum.
    let spec = to_t::<T>(&want);
    let mut spec_dev = s.clone_htod(&spec)?;
    let mut out = poisoned_r::<T>(s, ext.input)?;
    let mut plan = Plan::new(s, &c2r)?;
    assert_eq!(plan.extents().input, ext.output);
    plan.exec_c2r(&mut spec_dev, &mut out)?;
    let back: Vec<f64> = s.clone_dtoh(&out)?.into_iter().map(|v| v.f()).collect();
    let want = irdft_last(&to_c64(&spec), &fs, rank);
    check_err(&format!("{c2r:?}"), rel_error_real(&back, &want), T::TOL)?;
    Ok(())
}

fn c2c_sizes<T: Real>() -> TestResult {
    let (_ctx, s) = primary()?;
    let mut rng = Rng::fresh();
    for n in SIZES {
        c2c_case::<T>(&s, &[n], 1, &mut rng)?;
    }
    c2c_case::<T>(&s, &[31], 5, &mut rng)?;
    c2c_case::<T>(&s, &[1000], 3, &mut rng)?;
    Ok(())
}

fn real_sizes<T: Real>() -> TestResult {
    let (_ctx, s) = primary()?;
    let mut rng = Rng::fresh();
    for n in SIZES {
        real_case::<T>(&s, &[n], 1, &mut rng)?;
    }
    real_case::<T>(&s, &[7], 6, &mut rng)?;
    real_case::<T>(&s, &[1000], 2, &mut rng)?;
    Ok(())
}

fn c2c_multi_dim() -> TestResult {
    let (_ctx, s) = primary()?;
    let mut rng = Rng::fresh();
    for (shape, batch) in [
        (vec![7, 31], 1),
        (vec![16, 12], 3),
        (vec![1, 5], 2),
        (vec![4, 5, 6], 1),
        (vec![3, 7, 8], 2),
        (vec![2, 1, 9], 3),
    ] {
        c2c_case::<f32>(&s, &shape, batch, &mut rng)?;
        c2c_case::<f64>(&s, &shape, batch, &mut rng)?;
    }
    Ok(())
}

fn real_multi_dim() -> TestResult {
    let (_ctx, s) = primary()?;
    let mut rng = Rng::fresh();
    for (shape, batch) in [
        (vec![6, 9], 1),
        (vec![7, 31], 2),
        (vec![16, 16], 3),
        (vec![3, 5, 8], 1),
        (vec![4, 6, 7], 2),
        (vec![2, 3, 1], 2),
    ] {
        real_case::<f32>(&s, &shape, batch, &mut rng)?;
        real_case::<f64>(&s, &shape, batch, &mut rng)?;
    }
    Ok(())
}

/// Every element offset of a layout, in the order of `[batch, dims...]` row-major.
fn offsets(dims: &[usize], l: &Layout, batch: usize) -> Vec<usize> {
    let per: usize = dims.iter().product();
    let e = l.embed();
    let mut out = Vec::with_capacity(batch * per);
    for b in 0..batch {
        for i in 0..per {
            let mut rem = i;
            let mut idx = vec![0; dims.len()];
            for a in (0..dims.len()).rev() {
                idx[a] = rem % dims[a];
                rem /= dims[a];
            }
            let mut o = idx[0];
            for a in 1..dims.len() {
                o = o * e[a] + idx[a];
            }
            out.push(b * l.dist() + o * l.stride());
        }
    }
    out
}

/// A transform through advanced layouts, against the reference on the gathered data; every
/// output element outside the output layout keeps its poison.
fn layout_case<T: Real>(s: &Arc<Stream>, desc: PlanDesc, rng: &mut Rng) -> TestResult {
    let ext = desc.check()?;
    let batch = desc.batch();
    let rank = desc.rank();
    let fs = full_shape(batch, desc.shape());
    let in_off = offsets(&desc.input_dims(), &desc.effective_input_layout(), batch);
    let out_off = offsets(&desc.output_dims(), &desc.effective_output_layout(), batch);
    let mut plan = Plan::new(s, &desc)?;
    let mut sorted_out = out_off.clone();
    sorted_out.sort_unstable();
    let inside_sorted = |i: usize| sorted_out.binary_search(&i).is_ok();
    match desc.kind() {
        FftKind::C2C | FftKind::C2R => {
            // The logical input, then scattered into a random buffer of the input's extent.
            let logical: Vec<C64> = if desc.kind() == FftKind::C2C {
                random_c64(rng, in_off.len())
            } else {
                let xr = random_f64(rng, batch * desc.shape().iter().product::<usize>());
                rdft_last(&xr, &fs, rank)
            };
            let logical = to_c64(&to_t::<T>(&logical));
            let mut buf = to_t::<T>(&random_c64(rng, ext.input));
            for (v, &o) in logical.iter().zip(&in_off) {
                buf[o] = Complex::new(T::of(v.re), T::of(v.im));
            }
            let mut input = s.clone_htod(&buf)?;
            if desc.kind() == FftKind::C2C {
                let mut out = poisoned_c::<T>(s, ext.output)?;
                plan.exec_c2c(Direction::Forward, &input, &mut out)?;
                let got = s.clone_dtoh(&out)?;
                let picked: Vec<Complex<T>> = out_off.iter().map(|&o| got[o]).collect();
                let want = dft_last(&logical, &fs, rank, false);
                check_err(
                    &format!("{desc:?}"),
                    rel_error(&to_c64(&picked), &want),
                    T::TOL,
                )?;
                for (i, v) in got.iter().enumerate() {
                    if !inside_sorted(i) {
                        assert!(
                            v.re.f().is_nan(),
                            "{desc:?}: element {i} outside the layout was written"
                        );
                    }
                }
            } else {
                let mut out = poisoned_r::<T>(s, ext.output)?;
                plan.exec_c2r(&mut input, &mut out)?;
                let got = s.clone_dtoh(&out)?;
                let picked: Vec<f64> = out_off.iter().map(|&o| got[o].f()).collect();
                let want = irdft_last(&logical, &fs, rank);
                check_err(&format!("{desc:?}"), rel_error_real(&picked, &want), T::TOL)?;
                for (i, v) in got.iter().enumerate() {
                    if !inside_sorted(i) {
                        assert!(
                            v.f().is_nan(),
                            "{desc:?}: element {i} outside the layout was written"
                        );
                    }
                }
            }
        }
        FftKind::R2C => {
            let logical: Vec<f64> = random_f64(rng, in_off.len())
                .into_iter()
                .map(|v| T::of(v).f())
                .collect();
            let mut buf: Vec<T> = random_f64(rng, ext.input).into_iter().map(T::of).collect();
            for (&v, &o) in logical.iter().zip(&in_off) {
                buf[o] = T::of(v);
            }
            let input = s.clone_htod(&buf)?;
            let mut out = poisoned_c::<T>(s, ext.output)?;
            plan.exec_r2c(&input, &mut out)?;
            let got = s.clone_dtoh(&out)?;
            let picked: Vec<Complex<T>> = out_off.iter().map(|&o| got[o]).collect();
            let want = rdft_last(&logical, &fs, rank);
            check_err(
                &format!("{desc:?}"),
                rel_error(&to_c64(&picked), &want),
                T::TOL,
            )?;
            for (i, v) in got.iter().enumerate() {
                if !inside_sorted(i) {
                    assert!(
                        v.re.f().is_nan(),
                        "{desc:?}: element {i} outside the layout was written"
                    );
                }
            }
        }
    }
    Ok(())
}

fn advanced_layouts<T: Real>() -> TestResult {
    let (_ctx, s) = primary()?;
    let mut rng = Rng::fresh();
    let p = T::PRECISION;
    // The columns of a 31 × 6 matrix (stride 6, dist 1), in and out.
    let col = Layout::new(&[31], 6, 1);
    layout_case::<T>(
        &s,
        PlanDesc::c2c(p, &[31])
            .with_batch(6)
            .with_input_layout(col)
            .with_output_layout(col),
        &mut rng,
    )?;
    // Interleaved batch of 3-D signals.
    let il = Layout::new(&[3, 4, 5], 2, 1);
    layout_case::<T>(
        &s,
        PlanDesc::c2c(p, &[3, 4, 5])
            .with_batch(2)
            .with_input_layout(il)
            .with_output_layout(il),
        &mut rng,
    )?;
    // Padded rows in, strided padded rows out, gaps between signals.
    layout_case::<T>(
        &s,
        PlanDesc::c2c(p, &[5, 7])
            .with_batch(3)
            .with_input_layout(Layout::new(&[5, 9], 1, 50))
            .with_output_layout(Layout::new(&[6, 8], 2, 101)),
        &mut rng,
    )?;
    // R2C: padded real rows in, padded complex rows out.
    layout_case::<T>(
        &s,
        PlanDesc::r2c(p, &[6, 10])
            .with_batch(3)
            .with_input_layout(Layout::new(&[6, 13], 1, 6 * 13 + 7))
            .with_output_layout(Layout::new(&[6, 8], 1, 6 * 8 + 1)),
        &mut rng,
    )?;
    // R2C with a dense input and a strided output (cuFFT then takes both spelled out).
    layout_case::<T>(
        &s,
        PlanDesc::r2c(p, &[1000])
            .with_batch(2)
            .with_output_layout(Layout::new(&[501], 3, 1503)),
        &mut rng,
    )?;
    // C2R: strided complex in, strided real out.
    layout_case::<T>(
        &s,
        PlanDesc::c2r(p, &[31])
            .with_batch(4)
            .with_input_layout(Layout::new(&[16], 2, 33))
            .with_output_layout(Layout::new(&[31], 3, 93)),
        &mut rng,
    )?;
    // C2R 2-D with padded rows both sides.
    layout_case::<T>(
        &s,
        PlanDesc::c2r(p, &[4, 9])
            .with_batch(2)
            .with_input_layout(Layout::new(&[4, 7], 1, 30))
            .with_output_layout(Layout::new(&[4, 11], 1, 44)),
        &mut rng,
    )?;
    Ok(())
}

fn c2c_in_place() -> TestResult {
    let (_ctx, s) = primary()?;
    let mut rng = Rng::fresh();
    for (shape, batch) in [(vec![1000], 2), (vec![7, 9], 3)] {
        let desc = PlanDesc::c2c(Precision::F64, &shape).with_batch(batch);
        let total = desc.check()?.input;
        let x = random_c64(&mut rng, total);
        let mut data = s.clone_htod(&x)?;
        let mut plan = Plan::new(&s, &desc)?;
        plan.exec_c2c_in_place(Direction::Forward, &mut data)?;
        let got = s.clone_dtoh(&data)?;
        let want = dft_last(&x, &full_shape(batch, &shape), shape.len(), false);
        check_err("in place", rel_error(&got, &want), 1e-12)?;
    }
    // Different layouts in and out: refused before cuFFT.
    let desc = PlanDesc::c2c(Precision::F32, &[8]).with_output_layout(Layout::new(&[8], 2, 16));
    let mut plan = Plan::new(&s, &desc)?;
    let mut data = poisoned_c::<f32>(&s, 16)?;
    expect_err(
        plan.exec_c2c_in_place(Direction::Forward, &mut data),
        &["must be the same"],
    )?;
    Ok(())
}

/// Large sizes: forward then inverse gives `n · x` (powers of two, a large prime, odd sizes).
fn large_round_trips() -> TestResult {
    let (_ctx, s) = primary()?;
    let mut rng = Rng::fresh();
    fn c2c<T: Real>(
        s: &Arc<Stream>,
        n: usize,
        batch: usize,
        rng: &mut Rng,
        tol: f64,
    ) -> TestResult {
        let desc = PlanDesc::c2c(T::PRECISION, &[n]).with_batch(batch);
        let x = to_t::<T>(&random_c64(rng, n * batch));
        let input = s.clone_htod(&x)?;
        let mut y = poisoned_c::<T>(s, n * batch)?;
        let mut z = poisoned_c::<T>(s, n * batch)?;
        let mut plan = Plan::new(s, &desc)?;
        plan.exec_forward(&input, &mut y)?;
        plan.exec_inverse(&y, &mut z)?;
        let back = to_c64(&s.clone_dtoh(&z)?);
        let want: Vec<C64> = to_c64(&x).iter().map(|v| v * n as f64).collect();
        check_err(
            &format!("{desc:?} round trip"),
            rel_error(&back, &want),
            tol,
        )
    }
    fn real<T: Real>(s: &Arc<Stream>, shape: &[usize], rng: &mut Rng, tol: f64) -> TestResult {
        let r2c = PlanDesc::r2c(T::PRECISION, shape);
        let ext = r2c.check()?;
        let n = ext.input;
        let x: Vec<T> = random_f64(rng, n).into_iter().map(T::of).collect();
        let input = s.clone_htod(&x)?;
        let mut spec = poisoned_c::<T>(s, ext.output)?;
        let mut back = poisoned_r::<T>(s, n)?;
        Plan::new(s, &r2c)?.exec_r2c(&input, &mut spec)?;
        Plan::new(s, &PlanDesc::c2r(T::PRECISION, shape))?.exec_c2r(&mut spec, &mut back)?;
        let got: Vec<f64> = s.clone_dtoh(&back)?.into_iter().map(|v| v.f()).collect();
        let want: Vec<f64> = x.iter().map(|v| v.f() * n as f64).collect();
        check_err(
            &format!("{r2c:?} round trip"),
            rel_error_real(&got, &want),
            tol,
        )
    }
    c2c::<f32>(&s, 1 << 20, 1, &mut rng, 1e-5)?;
    c2c::<f32>(&s, 1_000_003, 1, &mut rng, 1e-5)?;
    c2c::<f32>(&s, 4096, 256, &mut rng, 1e-5)?;
    c2c::<f64>(&s, 1 << 20, 1, &mut rng, 1e-13)?;
    c2c::<f64>(&s, 1_000_003, 1, &mut rng, 1e-13)?;
    real::<f32>(&s, &[(1 << 20) + 1], &mut rng, 1e-5)?;
    real::<f32>(&s, &[1024, 1024], &mut rng, 1e-5)?;
    real::<f64>(&s, &[999_999], &mut rng, 1e-13)?;
    real::<f64>(&s, &[64, 64, 63], &mut rng, 1e-13)?;
    Ok(())
}

fn half_precision() -> TestResult {
    let (ctx, s) = primary()?;
    let mut rng = Rng::fresh();
    c2c_case::<half::f16>(&s, &[256], 4, &mut rng)?;
    c2c_case::<half::f16>(&s, &[16, 32], 2, &mut rng)?;
    real_case::<half::f16>(&s, &[512], 3, &mut rng)?;
    if ctx.device().compute_capability()?.0 >= 8 {
        c2c_case::<half::bf16>(&s, &[128], 4, &mut rng)?;
        real_case::<half::bf16>(&s, &[8, 64], 2, &mut rng)?;
    }
    Ok(())
}

// ---------------------------------------------------------------------------------------------
// GPU: streams

fn sleep_on(s: &Stream, ms: u64) -> cuprite_driver::Result<()> {
    s.launch_host_fn(move || std::thread::sleep(Duration::from_millis(ms)))
}

/// A plan moved to a second stream: its transform there reads what its transform on the first
/// stream wrote (held back 300 ms), and must wait for it.
fn plan_on_a_second_stream() -> TestResult {
    let ctx = own_context()?;
    ctx.enable_multi_stream_tracking()?;
    let (a, b) = (ctx.new_stream()?, ctx.new_stream()?);
    let mut rng = Rng::fresh();
    let (n, batch) = (1 << 14, 8);
    let desc = PlanDesc::c2c(Precision::F32, &[n]).with_batch(batch);
    let x = to_t::<f32>(&random_c64(&mut rng, n * batch));
    let input = a.clone_htod(&x)?;
    let mut y = poisoned_c::<f32>(&a, n * batch)?;
    let mut z = poisoned_c::<f32>(&b, n * batch)?;
    let mut plan = Plan::new(&a, &desc)?;
    sleep_on(&a, 300)?;
    plan.exec_forward(&input, &mut y)?; // runs 300 ms from now
    plan.set_stream(&b)?;
    assert!(Arc::ptr_eq(plan.stream(), &b));
    plan.exec_inverse(&y, &mut z)?; // must wait for a's write of y
    let back = to_c64(&b.clone_dtoh(&z)?);
    let want: Vec<C64> = to_c64(&x).iter().map(|v| v * n as f64).collect();
    check_err("on a second stream", rel_error(&back, &want), 1e-5)?;
    // Back on a, with a buffer b wrote: a waits for b.
    plan.set_stream(&a)?;
    let mut w = poisoned_c::<f32>(&a, n * batch)?;
    sleep_on(&b, 200)?;
    b.memcpy_dtod(&y, &mut z)?; // z = y again, 200 ms from now, on b
    plan.exec_inverse(&z, &mut w)?;
    let back = to_c64(&a.clone_dtoh(&w)?);
    check_err("back on the first stream", rel_error(&back, &want), 1e-5)?;
    // A stream of another context is refused.
    let (_p, other) = primary()?;
    expect_err(plan.set_stream(&other), &["another context"])?;
    assert!(Arc::ptr_eq(plan.stream(), &a));
    drop(plan);
    ctx.check_deferred()?;
    Ok(())
}

/// Two transforms of one plan on two streams with no buffer in common: the second waits for
/// the first through the plan's work area.
fn work_area_orders_streams() -> TestResult {
    let ctx = own_context()?;
    ctx.enable_multi_stream_tracking()?;
    let (a, b) = (ctx.new_stream()?, ctx.new_stream()?);
    let mut rng = Rng::fresh();
    let n = 1_000_003; // prime: Bluestein, which needs a work area
    let desc = PlanDesc::c2c(Precision::F32, &[n]);
    let mut plan = Plan::new(&a, &desc)?;
    assert!(plan.work_size() > 0, "{desc:?} has no work area");
    let x1 = a.clone_htod(&to_t::<f32>(&random_c64(&mut rng, n)))?;
    let x2 = b.clone_htod(&to_t::<f32>(&random_c64(&mut rng, n)))?;
    let mut y1 = poisoned_c::<f32>(&a, n)?;
    let mut y2 = poisoned_c::<f32>(&b, n)?;
    a.synchronize()?;
    b.synchronize()?;
    sleep_on(&a, 300)?;
    plan.exec_forward(&x1, &mut y1)?;
    plan.set_stream(&b)?;
    plan.exec_forward(&x2, &mut y2)?;
    b.synchronize()?;
    assert!(
        a.is_idle()?,
        "the transform on b finished before the one on a that shares its work area"
    );
    for (x, y, s) in [(&x1, &y1, &a), (&x2, &y2, &b)] {
        let got = to_c64(&s.clone_dtoh(y)?);
        let xs = to_c64(&s.clone_dtoh(x)?);
        // Check a few bins against the direct sum (the whole naive DFT of 10^6 is too slow).
        for k in [0usize, 1, 12_345, n - 1] {
            let mut acc = Complex::new(0.0, 0.0);
            for (j, v) in xs.iter().enumerate() {
                let a = -2.0 * std::f64::consts::PI * ((j as u128 * k as u128) % n as u128) as f64
                    / n as f64;
                acc += v * Complex::new(a.cos(), a.sin());
            }
            let err = (got[k] - acc).norm() / (n as f64).sqrt();
            assert!(err < 1e-3, "bin {k}: {} vs {acc} ({err:e})", got[k]);
        }
    }
    Ok(())
}

/// On one stream, plans and transforms cost no synchronisation and no stream wait.
fn single_stream_waits_for_nothing() -> TestResult {
    let ctx = own_context()?;
    let s = ctx.new_stream()?;
    let mut rng = Rng::fresh();
    let desc = PlanDesc::r2c(Precision::F32, &[4096]).with_batch(8);
    let ext = desc.check()?;
    let x: Vec<f32> = (0..ext.input).map(|_| rng.f32_in(-1.0, 1.0)).collect();
    let input = s.clone_htod(&x)?;
    let mut y = poisoned_c::<f32>(&s, ext.output)?;
    let before = cuprite_driver::thread_stats();
    let mut plan = Plan::new(&s, &desc)?;
    for _ in 0..10 {
        plan.exec_r2c(&input, &mut y)?;
    }
    let d = cuprite_driver::thread_stats().since(&before);
    assert_eq!((d.host_syncs, d.stream_waits), (0, 0), "{d:?}");
    assert!(!ctx.is_multi_stream());
    let got = to_c64(&s.clone_dtoh(&y)?);
    let xr: Vec<f64> = x.iter().map(|&v| f64::from(v)).collect();
    let want = rdft_last(&xr, &[8, 4096], 1);
    check_err("single stream", rel_error(&got, &want), 2e-5)?;
    Ok(())
}

// ---------------------------------------------------------------------------------------------
// GPU: cache and checks

fn cache_hits_and_eviction() -> TestResult {
    let ctx = own_context()?;
    let (a, b) = (ctx.new_stream()?, ctx.new_stream()?);
    let mut cache = PlanCache::new(2);
    let d1 = PlanDesc::c2c(Precision::F32, &[64]).with_batch(4);
    let d2 = PlanDesc::r2c(Precision::F64, &[100]);
    let d3 = PlanDesc::c2c(Precision::F32, &[64]).with_batch(5);
    let mut rng = Rng::fresh();
    let x = a.clone_htod(&to_t::<f32>(&random_c64(&mut rng, 256)))?;
    let mut y = poisoned_c::<f32>(&a, 256)?;
    cache.get(&a, &d1)?.exec_forward(&x, &mut y)?;
    let first = cache.get(&a, &d1)?.raw();
    cache.get(&a, &d2)?;
    let s = cache.stats();
    assert_eq!(
        (s.hits, s.misses, s.evictions, s.len, s.capacity),
        (1, 2, 0, 2, 2)
    );
    // A hit for another stream: the same plan, moved.
    let p = cache.get(&b, &d1)?;
    assert_eq!(p.raw(), first);
    assert!(Arc::ptr_eq(p.stream(), &b));
    p.exec_inverse(&y, &mut poisoned_c::<f32>(&b, 256)?)?;
    // d1 was used last, so d3 evicts d2.
    cache.get(&a, &d3)?;
    assert!(cache.contains(&a, &d1) && cache.contains(&a, &d3) && !cache.contains(&a, &d2));
    let s = cache.stats();
    assert_eq!((s.hits, s.misses, s.evictions, s.len), (2, 3, 1, 2));
    // An unsound description is a miss, and nothing is cached.
    expect_err(
        cache.get(&a, &PlanDesc::c2c(Precision::F32, &[0])),
        &["size 0"],
    )?;
    assert_eq!((cache.stats().misses, cache.len()), (4, 2));
    // The same description in another context is another plan.
    let (_p, other) = primary()?;
    cache.get(&other, &d1)?;
    assert_eq!(cache.stats().misses, 5);
    cache.set_capacity(1);
    assert_eq!(cache.len(), 1);
    assert!(cache.contains(&other, &d1));
    cache.clear();
    assert!(cache.is_empty());
    ctx.check_deferred()?;
    Ok(())
}

fn exec_checks() -> TestResult {
    let (_ctx, s) = primary()?;
    let desc = PlanDesc::c2c(Precision::F32, &[100]).with_batch(3);
    let mut plan = Plan::new(&s, &desc)?;
    let x = poisoned_c::<f32>(&s, 300)?;
    let mut y = poisoned_c::<f32>(&s, 300)?;
    let short = poisoned_c::<f32>(&s, 299)?;
    let mut short_out = poisoned_c::<f32>(&s, 250)?;
    expect_err(
        plan.exec_forward(&short, &mut y),
        &["input buffer holds 299 elements", "at least 300"],
    )?;
    expect_err(
        plan.exec_forward(&x, &mut short_out),
        &["output buffer holds 250 elements", "at least 300"],
    )?;
    expect_err(
        plan.exec_forward(&x, &mut y.slice_mut(1..)?),
        &["output buffer holds 299"],
    )?;
    // Wrong kind, wrong precision.
    let xr = poisoned_r::<f32>(&s, 300)?;
    expect_err(
        plan.exec_r2c(&xr, &mut y),
        &["exec_r2c on a C2C plan", "exec_forward"],
    )?;
    let xd = poisoned_c::<f64>(&s, 300)?;
    let mut yd = poisoned_c::<f64>(&s, 300)?;
    expect_err(
        plan.exec_forward(&xd, &mut yd),
        &["computes in f32", "hold f64"],
    )?;
    let mut c2r = Plan::new(&s, &PlanDesc::c2r(Precision::F32, &[8]))?;
    let mut yr = poisoned_r::<f32>(&s, 8)?;
    let mut small = poisoned_c::<f32>(&s, 5)?;
    expect_err(c2r.exec_forward(&x, &mut y), &["on a C2R plan", "exec_c2r"])?;
    expect_err(
        c2r.exec_c2r(&mut small.slice_mut(..4)?, &mut yr),
        &["input buffer holds 4", "at least 5"],
    )?;
    // A misaligned view (4 bytes into an 8-byte complex element).
    // SAFETY: the view lies inside `x`'s allocation and is only checked, never run.
    let odd: DeviceView<'_, Complex<f32>> =
        unsafe { DeviceView::from_raw_parts(x.device_ptr() + 4, 299, x.tracker()) };
    let desc1 = PlanDesc::c2c(Precision::F32, &[299]);
    let mut p1 = Plan::new(&s, &desc1)?;
    expect_err(p1.exec_forward(&odd, &mut y), &["not aligned", "8 bytes"])?;
    // A buffer of another context.
    let other = own_context()?;
    let xo = other
        .default_stream()
        .clone_htod(&vec![Complex::new(0f32, 0.0); 300])?;
    expect_err(
        plan.exec_forward(&xo, &mut y),
        &["input buffer belongs to another context"],
    )?;
    // Nothing above reached cuFFT: the plan still works, and y is still poisoned.
    assert!(s.clone_dtoh(&y)?.iter().all(|v| v.re.is_nan()));
    let mut rng = Rng::fresh();
    let xv = to_t::<f32>(&random_c64(&mut rng, 300));
    let xgood = s.clone_htod(&xv)?;
    plan.exec_forward(&xgood, &mut y)?;
    let want = dft_last(&to_c64(&xv), &[3, 100], 1, false);
    check_err(
        "after refusals",
        rel_error(&to_c64(&s.clone_dtoh(&y)?), &want),
        2e-5,
    )?;
    Ok(())
}
