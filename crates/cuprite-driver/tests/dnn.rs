//! cuDNN through `cuprite_driver::dnn`: the shape arithmetic against outputs counted position
//! by position, the checks of shapes and buffer lengths (CPU), a missing cuDNN (a child process
//! with `CUPRITE_CUDNN_PATH` on a file that does not exist), and on the GPU the convolution
//! (forward, both gradients, the fused bias and ReLU) and pooling (max, average with and
//! without padding, and their gradients) against direct `f64` loops over the very values
//! stored on the device, on small random shapes of 1, 2 and 3 spatial dimensions with groups,
//! strides, padding and dilation, in both layouts and every element type. Measured algorithm
//! choices (`cudnnFind*AlgorithmEx`) against the same host sums as the heuristic ones, on the
//! same data, with the cache counts that say which path chose; a capturing stream keeps to
//! the heuristics.
//!
//! Error bound of a sum of `n` products in unit roundoff `u` (accumulation) and `u_out` (the
//! stored type): `4·n·u·Σ|terms| + u_out·(|ref| + Σ|terms|)` elementwise, plus
//! `64·u·max Σ|terms|` over the tensor for the FFT and Winograd algorithms, whose error is
//! relative to the whole tensor's magnitude. The pooling gradient is bounded with `u = u_out`:
//! where windows overlap, the gradients of an input are added in the stored type.

use cuprite_driver::dnn::{
    Activation, ConvShape, Dnn, DnnElement, Layout, PoolMode, PoolShape, version,
};
use cuprite_driver::{CaptureMode, Context, Error, Stream};
use cuprite_testkit::{CHILD_LIMIT, OutputWithin, Rng, Test, TestResult, ignore, temp_dir};
use half::{bf16, f16};
use std::sync::Arc;

/// How long a cuDNN call of a GPU case may run before [`Watch`] names it on stderr.
const WATCH_AFTER: std::time::Duration = std::time::Duration::from_secs(20);

/// Names a cuDNN call on stderr when it is still running after [`WATCH_AFTER`], so that a run
/// stopped by its time limit says which call (pass, element type, shape, handle) it was in;
/// silent when the call returns sooner (dropping the guard ends its thread).
struct Watch {
    _ended: std::sync::mpsc::Sender<()>,
}

impl Watch {
    fn new(what: String) -> Watch {
        let (tx, rx) = std::sync::mpsc::channel::<()>();
        std::thread::spawn(move || {
            if let Err(std::sync::mpsc::RecvTimeoutError::Timeout) = rx.recv_timeout(WATCH_AFTER) {
                eprintln!(
                    "dnn: still running after {} s: {what}",
                    WATCH_AFTER.as_secs()
                );
                // And once more when it ends, with how long it took in all.
                let t = std::time::Instant::now();
                let _ = rx.recv();
                eprintln!(
                    "dnn: ended {:.1} s later: {what}",
                    t.elapsed().as_secs_f64()
                );
            }
        });
        Watch { _ended: tx }
    }
}

/// Set in the child process that checks a missing cuDNN.
pub const MISSING_CHILD_ENV: &str = "CUPRITE_DNN_MISSING_CHILD";

pub fn tests() -> Vec<Test> {
    vec![
        Test::cpu("dnn::conv_output_sizes_counted", conv_output_sizes),
        Test::cpu("dnn::conv_lengths", conv_lengths),
        Test::cpu("dnn::conv_shape_errors_name_the_values", conv_errors),
        Test::cpu("dnn::pool_output_sizes_counted", pool_output_sizes),
        Test::cpu("dnn::pool_shape_errors_name_the_values", pool_errors),
        Test::cpu("dnn::validate_names_short_buffers", validate_lengths),
        Test::cpu("dnn::missing_cudnn_lists_where_it_looked", missing_cudnn),
        Test::gpu("dnn::conv_f32", conv_all::<f32>),
        Test::gpu("dnn::conv_f64", conv_all::<f64>),
        Test::gpu("dnn::conv_f16", conv_all::<f16>),
        Test::gpu("dnn::conv_bf16", conv_all::<bf16>),
        Test::gpu("dnn::conv_bias_act", conv_bias_act),
        Test::gpu("dnn::pooling_f32", pool_all::<f32>),
        Test::gpu("dnn::pooling_f64", pool_all::<f64>),
        Test::gpu("dnn::pooling_f16", pool_all::<f16>),
        Test::gpu("dnn::pooling_bf16", pool_all::<bf16>),
        Test::gpu("dnn::empty_operands_zero_fill", empty_operands),
        Test::gpu("dnn::buffer_checks_on_gpu", buffer_checks),
        Test::gpu("dnn::algo_cache_and_settings", algo_cache_and_settings),
        Test::cpu("dnn::algo_search_is_on_by_default", algo_search_default),
        Test::gpu("dnn::measured_algos_f32", measured_vs_heuristic::<f32>),
        Test::gpu("dnn::measured_algos_bf16", measured_vs_heuristic::<bf16>),
        Test::gpu("dnn::measured_algos_tf32_deterministic", measured_settings),
        Test::cpu("dnn::graph_api_by_type_by_default", graph_api_default),
        Test::gpu("dnn::graph_api_bf16", graph_vs_legacy::<bf16>),
        Test::gpu("dnn::graph_api_f16", graph_vs_legacy::<f16>),
        Test::gpu("dnn::graph_api_f32_when_asked", graph_vs_legacy::<f32>),
        Test::gpu_alone("dnn::faster_api_f32", faster_api_f32),
        Test::gpu_alone("dnn::capture_uses_heuristics", capture_uses_heuristics),
        Test::gpu_alone(
            "dnn::captured_conv_outlives_handle",
            captured_conv_outlives_handle,
        ),
    ]
}

// ---------------------------------------------------------------------------------------------
// Shape arithmetic (CPU)

/// The output positions along one axis, counted one by one: `o` is an output position when
/// the last tap of its window, `o·stride + (kernel − 1)·dilation`, lies inside the padded
/// input `[0, input + 2·pad)`.
fn count_positions(input: usize, kernel: usize, stride: usize, pad: usize, dil: usize) -> usize {
    let mut o = 0;
    while o * stride + (kernel - 1) * dil < input + 2 * pad {
        o += 1;
    }
    o
}

fn conv_output_sizes() -> TestResult {
    let mut rng = Rng::fresh();
    for _ in 0..500 {
        let input = 1 + (rng.next_u64() % 20) as usize;
        let kernel = 1 + (rng.next_u64() % 5) as usize;
        let stride = 1 + (rng.next_u64() % 4) as usize;
        let pad = (rng.next_u64() % 4) as usize;
        let dil = 1 + (rng.next_u64() % 3) as usize;
        let mut s = ConvShape::new(1, 1, [input], 1, [kernel]);
        (s.stride, s.pad, s.dilation) = ([stride], [pad], [dil]);
        let want = count_positions(input, kernel, stride, pad, dil);
        match s.output() {
            Ok([o]) => assert_eq!(o, want, "{s:?}"),
            Err(e) => {
                assert_eq!(want, 0, "{s:?}: {e}");
                assert!(e.to_string().contains("kernel spans"), "{e}");
            }
        }
    }
    // PyTorch's documented examples: a 3 × 3 kernel, stride 2, padding 1 halves 32 → 16;
    // dilation 2 spans 5 positions: 7 → 3.
    let mut s = ConvShape::new(1, 1, [32, 7], 1, [3, 3]);
    (s.stride, s.pad, s.dilation) = ([2, 1], [1, 0], [1, 2]);
    assert_eq!(s.output()?, [16, 3]);
    let mut s3 = ConvShape::new(2, 4, [5, 6, 7], 8, [1, 2, 3]);
    s3.stride = [1, 2, 3];
    assert_eq!(s3.output()?, [5, 3, 2]);
    Ok(())
}

fn conv_lengths() -> TestResult {
    let mut s = ConvShape::new(3, 6, [5, 7], 4, [3, 2]);
    s.groups = 2;
    s.pad = [1, 0];
    // y: 3 images × 4 channels × (5 + 2 − 3 + 1 = 5) × (7 − 2 + 1 = 6).
    assert_eq!(s.x_len()?, 3 * 6 * 5 * 7);
    assert_eq!(s.w_len()?, 4 * 3 * 3 * 2);
    assert_eq!(s.y_len()?, 3 * 4 * 5 * 6);
    // The layout changes no length.
    s.layout = Layout::Nhwc;
    assert_eq!(
        (s.x_len()?, s.w_len()?, s.y_len()?),
        (630, 72, 360),
        "{s:?}"
    );
    // Empty batches and channel counts are sound, with empty tensors.
    let e = ConvShape::new(0, 0, [4], 0, [2]);
    assert_eq!((e.x_len()?, e.w_len()?, e.y_len()?), (0, 0, 0));
    Ok(())
}

#[track_caller]
fn assert_invalid<T: std::fmt::Debug>(r: cuprite_driver::Result<T>, needles: &[&str]) {
    match r {
        Err(Error::InvalidArgument(m)) => {
            for n in needles {
                assert!(m.contains(n), "{m:?} does not name {n:?}");
            }
        }
        other => panic!("expected InvalidArgument naming {needles:?}, got {other:?}"),
    }
}

fn conv_errors() -> TestResult {
    let base = ConvShape::new(2, 6, [8, 8], 4, [3, 3]);
    let mut s = base;
    s.groups = 0;
    assert_invalid(s.check(), &["groups = 0"]);
    s.groups = 4;
    assert_invalid(s.check(), &["in_channels = 6", "groups = 4"]);
    s.groups = 3;
    assert_invalid(s.check(), &["out_channels = 4", "groups = 3"]);
    let mut s = base;
    s.kernel = [3, 0];
    assert_invalid(s.check(), &["kernel[1] = 0"]);
    let mut s = base;
    s.stride = [0, 1];
    assert_invalid(s.check(), &["stride[0] = 0"]);
    let mut s = base;
    s.dilation = [1, 0];
    assert_invalid(s.check(), &["dilation[1] = 0"]);
    let mut s = base;
    s.dilation = [4, 1];
    assert_invalid(
        s.check(),
        &["axis 0", "spans 9", "dilation = 4", "input = 8", "pad = 0"],
    );
    // Padding 1 makes room: the dilated kernel spans 9 of the 10 padded positions.
    s.pad = [1, 0];
    assert_eq!(s.output()?, [2, 6]);
    s.pad = [usize::MAX / 2 + 1, 0];
    assert_invalid(s.check(), &["overflows"]);
    // cuDNN's 32-bit element counts: 2^16 images of 3 × 128 × 128 is beyond them.
    let big = ConvShape::new(1 << 16, 3, [128, 128], 1, [1, 1]);
    assert_invalid(
        big.check(),
        &["x has", "65536 × 3 × 128 × 128", "split the batch"],
    );
    let wide = ConvShape::new(1, 1, [1usize << 31], 1, [1]);
    assert_invalid(wide.check(), &["2147483648"]);
    // Four spatial dimensions, or none, are not convolutions cuDNN runs.
    assert_invalid(
        ConvShape::new(1, 1, [2, 2, 2, 2], 1, [1, 1, 1, 1]).check(),
        &["4 spatial dimensions"],
    );
    assert_invalid(
        ConvShape::<0>::new(1, 1, [], 1, []).check(),
        &["0 spatial dimensions"],
    );
    Ok(())
}

fn pool_output_sizes() -> TestResult {
    let mut rng = Rng::fresh();
    for _ in 0..500 {
        let input = 1 + (rng.next_u64() % 20) as usize;
        let window = 1 + (rng.next_u64() % 5) as usize;
        let stride = 1 + (rng.next_u64() % 4) as usize;
        let pad = (rng.next_u64() % window as u64) as usize;
        let mut p = PoolShape::new(2, 3, [input, 4], [window, 1], PoolMode::AvgExcludePad);
        (p.stride, p.pad) = ([stride, 1], [pad, 0]);
        let want = count_positions(input, window, stride, pad, 1);
        match p.output() {
            Ok([o, four]) => {
                assert_eq!((o, four), (want, 4), "{p:?}");
                assert_eq!(p.x_len()?, 2 * 3 * input * 4);
                assert_eq!(p.y_len()?, 2 * 3 * want * 4);
            }
            Err(e) => {
                assert_eq!(want, 0, "{p:?}: {e}");
                assert!(
                    e.to_string().contains("larger than the padded input"),
                    "{e}"
                );
            }
        }
    }
    Ok(())
}

fn pool_errors() -> TestResult {
    let base = PoolShape::new(1, 2, [6, 6], [3, 3], PoolMode::Max);
    let mut p = base;
    p.pad = [0, 3];
    assert_invalid(p.check(), &["pad[1] = 3", "window[1] = 3"]);
    let mut p = base;
    p.window = [0, 3];
    assert_invalid(p.check(), &["window[0] = 0"]);
    let mut p = base;
    p.stride = [1, 0];
    assert_invalid(p.check(), &["stride[1] = 0"]);
    let mut p = base;
    p.input = [0, 6];
    assert_invalid(p.check(), &["input[0] = 0"]);
    let mut p = base;
    p.window = [9, 3];
    p.pad = [1, 0];
    assert_invalid(p.check(), &["window[0] = 9", "padded input 8"]);
    assert_invalid(
        PoolShape::new(1, 1, [2, 2, 2, 2], [1, 1, 1, 1], PoolMode::Max).check(),
        &["4 spatial dimensions"],
    );
    Ok(())
}

fn validate_lengths() -> TestResult {
    let s = ConvShape::new(2, 4, [6], 3, [3]);
    let (x, w, y) = (s.x_len()?, s.w_len()?, s.y_len()?);
    assert_eq!((x, w, y), (48, 36, 24));
    s.validate(x, w, y)?;
    s.validate(x + 5, w + 1, y + 2)?;
    assert_invalid(s.validate(x - 1, w, y), &["x has 47", "needs 48"]);
    assert_invalid(s.validate(x, w - 1, y), &["w has 35", "needs 36"]);
    assert_invalid(s.validate(x, w, 0), &["y has 0", "needs 24"]);
    let p = PoolShape::new(1, 2, [4, 4], [2, 2], PoolMode::AvgIncludePad);
    p.validate(32, 8)?;
    assert_invalid(p.validate(31, 8), &["x has 31", "needs 32"]);
    assert_invalid(p.validate(32, 7), &["y has 7", "needs 8"]);
    Ok(())
}

// ---------------------------------------------------------------------------------------------
// A missing cuDNN (CPU, in a child process: a library is opened once per process)

/// The child-process side of [`missing_cudnn`].
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
    println!("available: {}", cuprite_driver::dnn::is_available());
    if cuprite_testkit::has_gpu() {
        let r = (|| -> cuprite_driver::Result<String> {
            let s = Context::new(0)?.new_stream()?;
            let e = match Dnn::new(&s) {
                Err(Error::LibraryNotFound { library, .. }) => format!("LibraryNotFound {library}"),
                other => format!("unexpected {other:?}"),
            };
            let buf = s.clone_htod(&[1u32, 2, 3])?;
            Ok(format!("{e}; copy back {:?}", s.clone_dtoh(&buf)?))
        })();
        println!("handle: {r:?}");
    }
    0
}

fn missing_cudnn() -> TestResult {
    let dir = temp_dir("nocudnn");
    let file = dir.join("libcudnn.so.9");
    let out = std::process::Command::new(std::env::current_exe()?)
        .env(MISSING_CHILD_ENV, "1")
        .env("CUPRITE_CUDNN_PATH", &file)
        .output_within(CHILD_LIMIT)?;
    let text = String::from_utf8_lossy(&out.stdout).into_owned();
    std::fs::remove_dir_all(&dir)?;
    assert!(
        out.status.success(),
        "child failed: {text} {}",
        String::from_utf8_lossy(&out.stderr)
    );
    // The override is the only place tried, and the message names it.
    assert!(
        text.contains("version: LibraryNotFound libcudnn 1\n"),
        "{text}"
    );
    assert!(
        text.contains(&format!("  tried {}: not found\n", file.display())),
        "{text}"
    );
    assert!(text.contains("available: false"), "{text}");
    if cuprite_testkit::has_gpu() {
        assert!(
            text.contains("handle: Ok(\"LibraryNotFound libcudnn; copy back [1, 2, 3]\")"),
            "{text}"
        );
    }
    Ok(())
}

// ---------------------------------------------------------------------------------------------
// Element types and host references

trait Elem: DnnElement + Copy + PartialEq {
    /// Unit roundoff of the accumulation.
    const U_ACC: f64;
    /// Unit roundoff of the stored type.
    const U_OUT: f64;
    fn of(v: f64) -> Self;
    fn f(self) -> f64;
}

impl Elem for f32 {
    const U_ACC: f64 = 1.0 / (1u64 << 24) as f64;
    const U_OUT: f64 = Self::U_ACC;
    fn of(v: f64) -> Self {
        v as f32
    }
    fn f(self) -> f64 {
        f64::from(self)
    }
}
impl Elem for f64 {
    const U_ACC: f64 = 1.0 / (1u64 << 53) as f64;
    const U_OUT: f64 = Self::U_ACC;
    fn of(v: f64) -> Self {
        v
    }
    fn f(self) -> f64 {
        self
    }
}
impl Elem for f16 {
    const U_ACC: f64 = 1.0 / (1u64 << 24) as f64;
    const U_OUT: f64 = 1.0 / (1u64 << 11) as f64;
    fn of(v: f64) -> Self {
        f16::from_f64(v)
    }
    fn f(self) -> f64 {
        self.to_f64()
    }
}
impl Elem for bf16 {
    const U_ACC: f64 = 1.0 / (1u64 << 24) as f64;
    const U_OUT: f64 = 1.0 / (1u64 << 8) as f64;
    fn of(v: f64) -> Self {
        bf16::from_f64(v)
    }
    fn f(self) -> f64 {
        self.to_f64()
    }
}

/// `n` random values of `T` in `[-1, 1)`.
fn random<T: Elem>(rng: &mut Rng, n: usize) -> Vec<T> {
    (0..n)
        .map(|_| T::of(rng.f32_in(-1.0, 1.0) as f64))
        .collect()
}

/// The memory offset of element `(outer, channel, pos)` of a tensor of `channels` channels
/// and spatial sizes `sizes`, in `layout` (`[outer, C, spatial...]` or `[outer, spatial...,
/// C]`).
fn offset(
    layout: Layout,
    channels: usize,
    sizes: &[usize],
    outer: usize,
    c: usize,
    pos: &[usize],
) -> usize {
    let mut spatial = 0;
    for (p, s) in pos.iter().zip(sizes) {
        spatial = spatial * s + p;
    }
    let area: usize = sizes.iter().product();
    match layout {
        Layout::Nchw => (outer * channels + c) * area + spatial,
        Layout::Nhwc => (outer * area + spatial) * channels + c,
    }
}

/// Every multi-index below `sizes`, last axis fastest.
fn positions(sizes: &[usize]) -> Vec<Vec<usize>> {
    let mut out = vec![vec![]];
    for &s in sizes {
        out = out
            .into_iter()
            .flat_map(|p| {
                (0..s).map(move |i| {
                    let mut q = p.clone();
                    q.push(i);
                    q
                })
            })
            .collect();
    }
    out
}

/// One product of a convolution: the offsets of its `x`, `w` and `y` elements.
type Term = (usize, usize, usize);

/// Every product of the convolution `s`, by direct enumeration of PyTorch's definition:
/// `y[n, k, o] = Σ_{c', t} x[n, g·C/G + c', o·stride − pad + t·dilation] · w[k, c', t]`
/// with `g = k / (K/G)`, positions outside the input skipped (zero padding).
fn conv_terms<const N: usize>(s: &ConvShape<N>) -> Vec<Term> {
    let out = s.output().expect("a sound shape");
    let (cg, kg) = (s.in_channels / s.groups, s.out_channels / s.groups);
    let mut terms = Vec::new();
    for n in 0..s.batch {
        for k in 0..s.out_channels {
            let g = k / kg;
            for o in positions(&out) {
                let yi = offset(s.layout, s.out_channels, &out, n, k, &o);
                for c in 0..cg {
                    for t in positions(&s.kernel) {
                        let mut pos = [0usize; N];
                        let mut inside = true;
                        for i in 0..N {
                            let p = (o[i] * s.stride[i] + t[i] * s.dilation[i]) as isize
                                - s.pad[i] as isize;
                            inside &= p >= 0 && (p as usize) < s.input[i];
                            pos[i] = p.max(0) as usize;
                        }
                        if inside {
                            let xi = offset(s.layout, s.in_channels, &s.input, n, g * cg + c, &pos);
                            let wi = offset(s.layout, cg, &s.kernel, k, c, &t);
                            terms.push((xi, wi, yi));
                        }
                    }
                }
            }
        }
    }
    terms
}

/// A reference element: its value, the sum of its terms' magnitudes, and its term count.
type Ref = (f64, f64, usize);

/// A [`Ref`] per output element of `len` from `(product, output)` pairs.
fn accumulate(len: usize, items: impl Iterator<Item = (f64, usize)>) -> Vec<Ref> {
    let mut r = vec![(0.0, 0.0, 0usize); len];
    for (v, i) in items {
        r[i].0 += v;
        r[i].1 += v.abs();
        r[i].2 += 1;
    }
    r
}

/// Compares `got` with `want` (value, Σ|terms|, term count) within the bound of the module
/// docs; names the first element outside it.
fn compare<T: Elem>(what: &str, got: &[T], want: &[Ref]) -> TestResult {
    compare_with(what, got, want, T::U_ACC)
}

/// [`compare`] with sums accumulated in unit roundoff `u_acc` instead of the type's own.
fn compare_with<T: Elem>(what: &str, got: &[T], want: &[Ref], u_acc: f64) -> TestResult {
    assert!(
        got.len() >= want.len(),
        "{what}: {} < {}",
        got.len(),
        want.len()
    );
    let max_abs = want.iter().map(|w| w.1).fold(0.0, f64::max);
    for (i, (g, &(v, a, n))) in got.iter().zip(want).enumerate() {
        let g = g.f();
        let tol = 4.0 * n as f64 * u_acc * a
            + T::U_OUT * (v.abs() + a)
            + 64.0 * u_acc * max_abs
            + f64::MIN_POSITIVE;
        let within = (g - v).abs() <= tol; // false for NaN
        if !within {
            return Err(format!(
                "{what} ({}): element {i} is {g}, the reference {v} (Σ|terms| {a}, {n} terms, \
                 bound {tol:e})",
                std::any::type_name::<T>()
            )
            .into());
        }
    }
    Ok(())
}

type BoxError = Box<dyn std::error::Error + Send + Sync>;

fn gpu_dnn() -> Result<(Arc<Stream>, Dnn), BoxError> {
    let s = Context::new(0)?.new_stream()?;
    let dnn = Dnn::new(&s)?;
    Ok((s, dnn))
}

/// The handle, or `None` (the test is then ignored) when this machine has no cuDNN 9.
fn dnn_or_ignore() -> Result<Option<(Arc<Stream>, Dnn)>, BoxError> {
    match gpu_dnn() {
        Ok(v) => Ok(Some(v)),
        Err(e) => match e.downcast_ref::<Error>() {
            Some(Error::LibraryNotFound { .. }) => Ok(None),
            _ => Err(e),
        },
    }
}

macro_rules! need_dnn {
    () => {
        match dnn_or_ignore()? {
            Some(v) => v,
            None => return ignore("no cuDNN 9 here (set CUPRITE_CUDNN_PATH)"),
        }
    };
}

// ---------------------------------------------------------------------------------------------
// Convolutions (GPU)

/// A random sound shape of `N` spatial dimensions: small sizes, 1 to 3 groups (sometimes
/// depthwise), strides 1 to 3, padding 0 to 2, dilation 1 to 2, either layout; at most 48
/// products per output, so that the half types' bound stays below one term.
fn random_conv<const N: usize>(rng: &mut Rng) -> ConvShape<N> {
    let r =
        |rng: &mut Rng, lo: usize, hi: usize| lo + (rng.next_u64() % (hi - lo + 1) as u64) as usize;
    loop {
        let groups = r(rng, 1, 3);
        let cg = r(rng, 1, 3);
        let kg = if rng.next_u64() % 3 == 0 {
            1
        } else {
            r(rng, 1, 3)
        };
        let max_in = [16, 9, 6][N - 1];
        let mut s = ConvShape::new(
            r(rng, 1, 3),
            groups * cg,
            [0; N].map(|_| r(rng, 1, max_in)),
            groups * kg,
            [0; N].map(|_| r(rng, 1, 3)),
        );
        s.stride = [0; N].map(|_| r(rng, 1, 3));
        s.pad = [0; N].map(|_| r(rng, 0, 2));
        s.dilation = [0; N].map(|_| r(rng, 1, 2));
        s.groups = groups;
        s.layout = if rng.next_u64() % 2 == 0 {
            Layout::Nchw
        } else {
            Layout::Nhwc
        };
        let taps: usize = cg * s.kernel.iter().product::<usize>();
        if s.check().is_ok() && taps <= 48 {
            return s;
        }
    }
}

/// Forward, backward-data and backward-filter of `shape` against the host sums.
fn conv_case<T: Elem, const N: usize>(
    s: &Arc<Stream>,
    dnn: &Dnn,
    rng: &mut Rng,
    shape: &ConvShape<N>,
) -> TestResult {
    let (xl, wl, yl) = (shape.x_len()?, shape.w_len()?, shape.y_len()?);
    let (x, w, dy) = (
        random::<T>(rng, xl),
        random::<T>(rng, wl),
        random::<T>(rng, yl),
    );
    let terms = conv_terms(shape);
    let what = format!("{shape:?}");
    // Outputs start as NaN: a position cuDNN does not write fails the comparison.
    let nan = T::of(f64::NAN);
    let (xd, wd, dyd) = (s.clone_htod(&x)?, s.clone_htod(&w)?, s.clone_htod(&dy)?);
    let mut y_ = s.clone_htod(&vec![nan; yl])?;
    let watch = |pass: &str| Watch::new(format!("{pass} {} {what}", std::any::type_name::<T>()));
    {
        let _w = watch("forward");
        dnn.conv_forward(shape, &xd, &wd, &mut y_)?;
        s.synchronize()?;
    }
    let want = accumulate(
        yl,
        terms
            .iter()
            .map(|&(xi, wi, yi)| (x[xi].f() * w[wi].f(), yi)),
    );
    compare(&format!("forward {what}"), &s.clone_dtoh(&y_)?, &want)?;
    let mut gx = s.clone_htod(&vec![nan; xl])?;
    // Padding past the kernel on some axis (output positions that see only padding): the
    // backward-data pass refuses it, naming the axis's values, and leaves `dx` untouched.
    let past = (0..N).find(|&i| shape.pad[i] > (shape.kernel[i] - 1) * shape.dilation[i]);
    assert_eq!(shape.padding_past_kernel(), past, "{what}");
    if let Some(i) = past {
        let r = dnn.conv_backward_data(shape, &wd, &dyd, &mut gx);
        assert_invalid(
            r,
            &[
                &format!("axis {i}"),
                &format!("pad = {}", shape.pad[i]),
                &format!("kernel = {}", shape.kernel[i]),
            ],
        );
        s.synchronize()?;
        assert!(
            s.clone_dtoh(&gx)?.iter().all(|v| v.f().is_nan()),
            "{what}: dx was written"
        );
    } else {
        {
            let _w = watch("backward data");
            dnn.conv_backward_data(shape, &wd, &dyd, &mut gx)?;
            s.synchronize()?;
        }
        let want = accumulate(
            xl,
            terms
                .iter()
                .map(|&(xi, wi, yi)| (dy[yi].f() * w[wi].f(), xi)),
        );
        compare(&format!("backward data {what}"), &s.clone_dtoh(&gx)?, &want)?;
    }
    let mut gw = s.clone_htod(&vec![nan; wl])?;
    {
        let _w = watch("backward filter");
        dnn.conv_backward_filter(shape, &xd, &dyd, &mut gw)?;
        s.synchronize()?;
    }
    let want = accumulate(
        wl,
        terms
            .iter()
            .map(|&(xi, wi, yi)| (x[xi].f() * dy[yi].f(), wi)),
    );
    compare(
        &format!("backward filter {what}"),
        &s.clone_dtoh(&gw)?,
        &want,
    )?;
    Ok(())
}

fn conv_all<T: Elem + 'static>() -> TestResult {
    let (s, dnn) = need_dnn!();
    let mut rng = Rng::fresh();
    // cuDNN implements few f64 kernels for channels-last data (none for many shapes): there a
    // "not supported" status (3xxx) skips the case; every channels-first f64 case, and every
    // case of the other types, must run.
    let f64_data = std::any::TypeId::of::<T>() == std::any::TypeId::of::<f64>();
    let (mut ran, mut refused) = (0usize, Vec::new());
    let mut each = |r: TestResult, c: Layout, what: &str| -> TestResult {
        match r {
            Ok(()) => ran += 1,
            Err(e)
                if f64_data
                    && c == Layout::Nhwc
                    && matches!(
                        e.downcast_ref::<Error>(),
                        Some(Error::Library { code, .. }) if (3000..4000).contains(code)
                    ) =>
            {
                refused.push(format!("{what}: {e}"));
            }
            Err(e) => return Err(e),
        }
        Ok(())
    };
    // Fixed cases first: every feature at once in 2-d, both layouts; a depthwise 1-d one.
    for layout in [Layout::Nchw, Layout::Nhwc] {
        let mut c = ConvShape::new(2, 4, [7, 6], 6, [3, 2]);
        (c.stride, c.pad, c.dilation, c.groups, c.layout) = ([2, 1], [1, 2], [1, 2], 2, layout);
        each(
            conv_case::<T, 2>(&s, &dnn, &mut rng, &c),
            layout,
            &format!("{c:?}"),
        )?;
        let mut d = ConvShape::new(3, 5, [11], 5, [3]);
        (d.groups, d.pad, d.layout) = (5, [1], layout);
        each(
            conv_case::<T, 1>(&s, &dnn, &mut rng, &d),
            layout,
            &format!("{d:?}"),
        )?;
    }
    for _ in 0..6 {
        let c = random_conv::<1>(&mut rng);
        each(
            conv_case::<T, 1>(&s, &dnn, &mut rng, &c),
            c.layout,
            &format!("{c:?}"),
        )?;
        let c = random_conv::<2>(&mut rng);
        each(
            conv_case::<T, 2>(&s, &dnn, &mut rng, &c),
            c.layout,
            &format!("{c:?}"),
        )?;
        let c = random_conv::<3>(&mut rng);
        each(
            conv_case::<T, 3>(&s, &dnn, &mut rng, &c),
            c.layout,
            &format!("{c:?}"),
        )?;
    }
    if !refused.is_empty() {
        eprintln!(
            "cuDNN refused {} of 22 channels-last f64 cases ({ran} ran):\n{}",
            refused.len(),
            refused.join("\n")
        );
    }
    Ok(())
}

/// `y = act(conv(x, w) + bias)` for both activations: `f32` must be fused; the other types
/// either match the reference or are refused by cuDNN as not supported (3xxx).
fn conv_bias_act() -> TestResult {
    let (s, dnn) = need_dnn!();
    let mut rng = Rng::fresh();
    bias_act_case::<f32>(&s, &dnn, &mut rng, true)?;
    bias_act_case::<f64>(&s, &dnn, &mut rng, false)?;
    bias_act_case::<f16>(&s, &dnn, &mut rng, false)?;
    bias_act_case::<bf16>(&s, &dnn, &mut rng, false)?;
    Ok(())
}

fn bias_act_case<T: Elem>(s: &Arc<Stream>, dnn: &Dnn, rng: &mut Rng, must: bool) -> TestResult {
    for layout in [Layout::Nchw, Layout::Nhwc] {
        for act in [Activation::Identity, Activation::Relu] {
            let mut c = ConvShape::new(2, 4, [6, 5], 8, [3, 3]);
            (c.pad, c.layout) = ([1, 1], layout);
            let (xl, wl, yl) = (c.x_len()?, c.w_len()?, c.y_len()?);
            let (x, w, b) = (
                random::<T>(rng, xl),
                random::<T>(rng, wl),
                random::<T>(rng, 8),
            );
            let (x_, w_, b_) = (s.clone_htod(&x)?, s.clone_htod(&w)?, s.clone_htod(&b)?);
            let mut y_ = s.clone_htod(&vec![T::of(f64::NAN); yl])?;
            match dnn.conv_bias_act_forward(&c, &x_, &w_, &b_, act, &mut y_) {
                Ok(()) => {}
                Err(Error::Library { code, .. }) if !must && (3000..4000).contains(&code) => {
                    println!(
                        "{} {layout:?} {act:?}: not fused by this cuDNN",
                        std::any::type_name::<T>()
                    );
                    continue;
                }
                Err(e) => return Err(e.into()),
            }
            let terms = conv_terms(&c);
            let mut want = accumulate(
                yl,
                terms
                    .iter()
                    .map(|&(xi, wi, yi)| (x[xi].f() * w[wi].f(), yi)),
            );
            let out = c.output()?;
            for n in 0..2 {
                for k in 0..8 {
                    for o in positions(&out) {
                        let e = &mut want[offset(layout, 8, &out, n, k, &o)];
                        e.0 += b[k].f();
                        e.1 += b[k].f().abs();
                        if act == Activation::Relu {
                            e.0 = e.0.max(0.0);
                        }
                    }
                }
            }
            compare(&format!("bias {act:?} {c:?}"), &s.clone_dtoh(&y_)?, &want)?;
        }
    }
    Ok(())
}

// ---------------------------------------------------------------------------------------------
// Pooling (GPU)

/// `(y, dx)` of pooling `p` over `x` with output gradient `dy`, by direct enumeration: each
/// window's positions inside the input; max takes the first largest, averages divide by the
/// window size (padding counted) or by the positions inside.
fn pool_reference<const N: usize>(p: &PoolShape<N>, x: &[f64], dy: &[f64]) -> (Vec<Ref>, Vec<Ref>) {
    let out = p.output().expect("a sound shape");
    let (xl, yl) = (p.x_len().unwrap(), p.y_len().unwrap());
    let mut y = vec![(0.0, 0.0, 0usize); yl];
    let mut dx = vec![(0.0, 0.0, 0usize); xl];
    let full: usize = p.window.iter().product();
    for n in 0..p.batch {
        for c in 0..p.channels {
            for o in positions(&out) {
                let yi = offset(p.layout, p.channels, &out, n, c, &o);
                let mut inside = Vec::new();
                for t in positions(&p.window) {
                    let mut pos = [0usize; N];
                    let mut ok = true;
                    for i in 0..N {
                        let q = (o[i] * p.stride[i] + t[i]) as isize - p.pad[i] as isize;
                        ok &= q >= 0 && (q as usize) < p.input[i];
                        pos[i] = q.max(0) as usize;
                    }
                    if ok {
                        inside.push(offset(p.layout, p.channels, &p.input, n, c, &pos));
                    }
                }
                match p.mode {
                    PoolMode::Max => {
                        let mut best = inside[0];
                        for &i in &inside {
                            if x[i] > x[best] {
                                best = i;
                            }
                        }
                        y[yi] = (x[best], x[best].abs(), 1);
                        dx[best].0 += dy[yi];
                        dx[best].1 += dy[yi].abs();
                        dx[best].2 += 1;
                    }
                    PoolMode::AvgIncludePad | PoolMode::AvgExcludePad => {
                        let div = if p.mode == PoolMode::AvgIncludePad {
                            full
                        } else {
                            inside.len()
                        } as f64;
                        for &i in &inside {
                            y[yi].0 += x[i] / div;
                            y[yi].1 += x[i].abs() / div;
                            y[yi].2 += 1;
                            dx[i].0 += dy[yi] / div;
                            dx[i].1 += dy[yi].abs() / div;
                            dx[i].2 += 1;
                        }
                    }
                }
            }
        }
    }
    (y, dx)
}

/// Values all different and exact in every element type (multiples of 1/64 below 2 in
/// magnitude): max pooling then has one maximum per window.
fn distinct<T: Elem>(rng: &mut Rng, n: usize) -> Vec<T> {
    assert!(n <= 256, "{n} distinct values asked for");
    let mut v: Vec<i64> = (0..256).collect();
    for i in (1..v.len()).rev() {
        v.swap(i, (rng.next_u64() % (i as u64 + 1)) as usize);
    }
    v[..n]
        .iter()
        .map(|&i| T::of((i - 128) as f64 / 64.0))
        .collect()
}

fn pool_case<T: Elem, const N: usize>(
    s: &Arc<Stream>,
    dnn: &Dnn,
    rng: &mut Rng,
    p: &PoolShape<N>,
) -> TestResult {
    let (xl, yl) = (p.x_len()?, p.y_len()?);
    let x = distinct::<T>(rng, xl);
    let dy = random::<T>(rng, yl);
    let xf: Vec<f64> = x.iter().map(|v| v.f()).collect();
    let dyf: Vec<f64> = dy.iter().map(|v| v.f()).collect();
    let (want_y, want_dx) = pool_reference(p, &xf, &dyf);
    let nan = T::of(f64::NAN);
    let x_ = s.clone_htod(&x)?;
    let mut y_ = s.clone_htod(&vec![nan; yl])?;
    dnn.pooling_forward(p, &x_, &mut y_)?;
    let y = s.clone_dtoh(&y_)?;
    compare(&format!("pooling {p:?}"), &y, &want_y)?;
    let dy_ = s.clone_htod(&dy)?;
    let mut dx_ = s.clone_htod(&vec![nan; xl])?;
    dnn.pooling_backward(p, &x_, &y_, &dy_, &mut dx_)?;
    // Overlapping windows add their gradients into the stored type, one rounding each.
    compare_with(
        &format!("pooling backward {p:?}"),
        &s.clone_dtoh(&dx_)?,
        &want_dx,
        T::U_OUT,
    )?;
    Ok(())
}

fn random_pool<const N: usize>(rng: &mut Rng, mode: PoolMode) -> PoolShape<N> {
    let r =
        |rng: &mut Rng, lo: usize, hi: usize| lo + (rng.next_u64() % (hi - lo + 1) as u64) as usize;
    loop {
        let max_in = [12, 7, 4][N - 1];
        let mut p = PoolShape::new(
            r(rng, 1, 2),
            r(rng, 1, 3),
            [0; N].map(|_| r(rng, 1, max_in)),
            [0; N].map(|_| r(rng, 1, 3)),
            mode,
        );
        p.stride = [0; N].map(|_| r(rng, 1, 3));
        p.pad = std::array::from_fn(|i| (rng.next_u64() % p.window[i] as u64) as usize);
        p.layout = if rng.next_u64() % 2 == 0 {
            Layout::Nchw
        } else {
            Layout::Nhwc
        };
        if p.check().is_ok() && p.x_len().is_ok_and(|n| n <= 256) {
            return p;
        }
    }
}

fn pool_all<T: Elem>() -> TestResult {
    let (s, dnn) = need_dnn!();
    let mut rng = Rng::fresh();
    for mode in [
        PoolMode::Max,
        PoolMode::AvgIncludePad,
        PoolMode::AvgExcludePad,
    ] {
        for layout in [Layout::Nchw, Layout::Nhwc] {
            // Overlapping windows with padding on both axes.
            let mut p = PoolShape::new(2, 3, [5, 6], [3, 2], mode);
            (p.stride, p.pad, p.layout) = ([2, 1], [1, 1], layout);
            pool_case::<T, 2>(&s, &dnn, &mut rng, &p)?;
        }
        for _ in 0..4 {
            let p = random_pool::<1>(&mut rng, mode);
            pool_case::<T, 1>(&s, &dnn, &mut rng, &p)?;
            let p = random_pool::<2>(&mut rng, mode);
            pool_case::<T, 2>(&s, &dnn, &mut rng, &p)?;
            let p = random_pool::<3>(&mut rng, mode);
            pool_case::<T, 3>(&s, &dnn, &mut rng, &p)?;
        }
    }
    Ok(())
}

// ---------------------------------------------------------------------------------------------
// Edges, checks and settings (GPU)

/// Empty operands call no library and leave the outputs as an empty sum: zeros.
fn empty_operands() -> TestResult {
    let (s, dnn) = need_dnn!();
    // No input channels: y is all zeros; the gradient of the (empty) filters is nothing.
    let c = ConvShape::new(2, 0, [5], 3, [2]);
    let x = s.alloc_zeros::<f32>(0)?;
    let w = s.alloc_zeros::<f32>(0)?;
    let mut y = s.clone_htod(&vec![7.0f32; c.y_len()? + 2])?;
    dnn.conv_forward(&c, &x, &w, &mut y)?;
    let got = s.clone_dtoh(&y)?;
    assert_eq!(&got[..c.y_len()?], vec![0.0; c.y_len()?].as_slice());
    // Only the shape's elements are written: the two beyond keep their value.
    assert_eq!(&got[c.y_len()?..], &[7.0, 7.0]);
    // No output channels: the input's gradient is zeros.
    let c = ConvShape::new(2, 3, [5], 0, [2]);
    let w = s.alloc_zeros::<f32>(0)?;
    let dy = s.alloc_zeros::<f32>(0)?;
    let mut dx = s.clone_htod(&vec![7.0f32; c.x_len()?])?;
    dnn.conv_backward_data(&c, &w, &dy, &mut dx)?;
    assert!(s.clone_dtoh(&dx)?.iter().all(|&v| v == 0.0));
    // An empty batch: the filters' gradient is zeros.
    let c = ConvShape::new(0, 3, [5], 2, [2]);
    let x = s.alloc_zeros::<f32>(0)?;
    let mut dw = s.clone_htod(&vec![7.0f32; c.w_len()?])?;
    dnn.conv_backward_filter(&c, &x, &dy, &mut dw)?;
    assert!(s.clone_dtoh(&dw)?.iter().all(|&v| v == 0.0));
    // An empty pooling does nothing.
    let p = PoolShape::new(0, 3, [4], [2], PoolMode::Max);
    let mut py = s.alloc_zeros::<f32>(0)?;
    dnn.pooling_forward(&p, &x, &mut py)?;
    Ok(())
}

/// Short buffers are refused before cuDNN is called, naming the buffer and both lengths.
fn buffer_checks() -> TestResult {
    let (s, dnn) = need_dnn!();
    let c = ConvShape::new(1, 2, [6, 6], 3, [3, 3]);
    let x = s.alloc_zeros::<f32>(c.x_len()?)?;
    let w = s.alloc_zeros::<f32>(c.w_len()? - 1)?;
    let mut y = s.alloc_zeros::<f32>(c.y_len()?)?;
    assert_invalid(
        dnn.conv_forward(&c, &x, &w, &mut y),
        &["conv_forward", "w has 53", "needs 54"],
    );
    let w = s.alloc_zeros::<f32>(c.w_len()?)?;
    let dy = s.alloc_zeros::<f32>(c.y_len()? - 3)?;
    let mut dx = s.alloc_zeros::<f32>(c.x_len()?)?;
    assert_invalid(
        dnn.conv_backward_data(&c, &w, &dy, &mut dx),
        &["conv_backward_data", "dy has 45", "needs 48"],
    );
    let mut short = s.alloc_zeros::<f32>(1)?;
    assert_invalid(
        dnn.conv_backward_filter(&c, &x, &y, &mut short),
        &["conv_backward_filter", "dw has 1", "needs 54"],
    );
    let b = s.alloc_zeros::<f32>(2)?;
    assert_invalid(
        dnn.conv_bias_act_forward(&c, &x, &w, &b, Activation::Relu, &mut y),
        &["bias has 2", "needs 3"],
    );
    let mut bad = c;
    bad.groups = 2;
    assert_invalid(
        dnn.conv_forward(&bad, &x, &w, &mut y),
        &["conv_forward", "out_channels = 3", "groups = 2"],
    );
    let p = PoolShape::new(1, 2, [6, 6], [2, 2], PoolMode::AvgExcludePad);
    let mut py = s.alloc_zeros::<f32>(p.y_len()? - 1)?;
    assert_invalid(
        dnn.pooling_forward(&p, &x, &mut py),
        &["pooling_forward", "y has 17", "needs 18"],
    );
    Ok(())
}

/// The second call of a shape finds its algorithm in the cache; a new shape, element type
/// or setting asks the heuristics again; a deterministic filter gradient repeats bit for bit.
fn algo_cache_and_settings() -> TestResult {
    let (s, dnn) = need_dnn!();
    // The legacy API's cache (f32 by element type may take the graph API's plans).
    dnn.set_graph_api(Some(false));
    let mut rng = Rng::fresh();
    let c = ConvShape::new(4, 8, [12, 12], 8, [3, 3]);
    let x = s.clone_htod(&random::<f32>(&mut rng, c.x_len()?))?;
    let w = s.clone_htod(&random::<f32>(&mut rng, c.w_len()?))?;
    let dy = s.clone_htod(&random::<f32>(&mut rng, c.y_len()?))?;
    let mut y = s.alloc_zeros::<f32>(c.y_len()?)?;
    assert_eq!(dnn.algo_cache_counts()?, (0, 0));
    dnn.conv_forward(&c, &x, &w, &mut y)?;
    dnn.conv_forward(&c, &x, &w, &mut y)?;
    assert_eq!(dnn.algo_cache_counts()?, (1, 1));
    let mut c2 = c;
    c2.stride = [2, 2];
    let mut y2 = s.alloc_zeros::<f32>(c2.y_len()?)?;
    dnn.conv_forward(&c2, &x, &w, &mut y2)?;
    assert_eq!(dnn.algo_cache_counts()?, (1, 2));
    dnn.set_deterministic(true);
    assert!(dnn.deterministic());
    let mut dw1 = s.alloc_zeros::<f32>(c.w_len()?)?;
    let mut dw2 = s.alloc_zeros::<f32>(c.w_len()?)?;
    dnn.conv_backward_filter(&c, &x, &dy, &mut dw1)?;
    dnn.conv_backward_filter(&c, &x, &dy, &mut dw2)?;
    assert_eq!(dnn.algo_cache_counts()?, (2, 3));
    let (a, b) = (s.clone_dtoh(&dw1)?, s.clone_dtoh(&dw2)?);
    assert!(
        a.iter().zip(&b).all(|(p, q)| p.to_bits() == q.to_bits()),
        "a deterministic algorithm gave two results"
    );
    dnn.set_deterministic(false);
    // TF32 allowed: a new choice for the same shape, and results within TF32's rounding
    // (10 mantissa bits of each input: relative 2^-10 of Σ|terms| at most).
    dnn.set_allow_tf32(true);
    assert!(dnn.allow_tf32());
    let mut y3 = s.alloc_zeros::<f32>(c.y_len()?)?;
    dnn.conv_forward(&c, &x, &w, &mut y3)?;
    assert_eq!(dnn.algo_cache_counts()?, (2, 4));
    let (full, tf32) = (s.clone_dtoh(&y)?, s.clone_dtoh(&y3)?);
    let taps = 8.0 * 9.0;
    for (p, q) in full.iter().zip(&tf32) {
        assert!(
            (p - q).abs() <= taps * 2.0f32.powi(-9),
            "TF32 result {q} far from {p}"
        );
    }
    Ok(())
}

// ---------------------------------------------------------------------------------------------
// Measured algorithm choices

/// Measuring is the process-wide default; the doc example of `set_algo_search` covers the
/// switch itself (in its own process: this binary's GPU tests read the setting).
fn algo_search_default() -> TestResult {
    assert!(cuprite_driver::dnn::algo_search());
    Ok(())
}

/// The three passes of `shape` on one set of random data through `a` and `b` (one handle
/// measuring, one taking the heuristic choice), each against the host sums: both results lie
/// within the module's bound of the exact sums, so within twice it of each other.
fn pair_case<T: Elem, const N: usize>(
    s: &Arc<Stream>,
    a: &Dnn,
    b: &Dnn,
    rng: &mut Rng,
    shape: &ConvShape<N>,
) -> TestResult {
    let (xl, wl, yl) = (shape.x_len()?, shape.w_len()?, shape.y_len()?);
    let (x, w, dy) = (
        random::<T>(rng, xl),
        random::<T>(rng, wl),
        random::<T>(rng, yl),
    );
    let terms = conv_terms(shape);
    let nan = T::of(f64::NAN);
    let (xd, wd, dyd) = (s.clone_htod(&x)?, s.clone_htod(&w)?, s.clone_htod(&dy)?);
    let want_y = accumulate(
        yl,
        terms
            .iter()
            .map(|&(xi, wi, yi)| (x[xi].f() * w[wi].f(), yi)),
    );
    let want_dx = accumulate(
        xl,
        terms
            .iter()
            .map(|&(xi, wi, yi)| (dy[yi].f() * w[wi].f(), xi)),
    );
    let want_dw = accumulate(
        wl,
        terms
            .iter()
            .map(|&(xi, wi, yi)| (x[xi].f() * dy[yi].f(), wi)),
    );
    for (which, dnn) in [("measured", a), ("heuristic", b)] {
        let what = format!("{which} {shape:?}");
        let watch =
            |pass: &str| Watch::new(format!("{pass} {} {what}", std::any::type_name::<T>()));
        let mut y = s.clone_htod(&vec![nan; yl])?;
        {
            let _w = watch("forward");
            dnn.conv_forward(shape, &xd, &wd, &mut y)?;
            s.synchronize()?;
        }
        compare(&format!("forward {what}"), &s.clone_dtoh(&y)?, &want_y)?;
        let mut dx = s.clone_htod(&vec![nan; xl])?;
        {
            let _w = watch("backward data");
            dnn.conv_backward_data(shape, &wd, &dyd, &mut dx)?;
            s.synchronize()?;
        }
        compare(
            &format!("backward data {what}"),
            &s.clone_dtoh(&dx)?,
            &want_dx,
        )?;
        let mut dw = s.clone_htod(&vec![nan; wl])?;
        {
            let _w = watch("backward filter");
            dnn.conv_backward_filter(shape, &xd, &dyd, &mut dw)?;
            s.synchronize()?;
        }
        compare(
            &format!("backward filter {what}"),
            &s.clone_dtoh(&dw)?,
            &want_dw,
        )?;
    }
    Ok(())
}

/// A measuring handle and a heuristic one on the same stream.
fn measuring_pair() -> Result<Option<(Arc<Stream>, Dnn, Dnn)>, BoxError> {
    let Some((s, measured)) = dnn_or_ignore()? else {
        return Ok(None);
    };
    let heuristic = Dnn::new(&s)?;
    measured.set_algo_search(Some(true));
    heuristic.set_algo_search(Some(false));
    assert!(measured.algo_search() && !heuristic.algo_search());
    Ok(Some((s, measured, heuristic)))
}

/// Forward, backward-data and backward-filter with measured choices match the host sums as the
/// heuristic choices do, on 1-, 2- (both layouts) and 3-d shapes; every pass of every shape
/// was measured once, and repeating a shape finds its three choices in the cache.
fn measured_vs_heuristic<T: Elem>() -> TestResult {
    let Some((s, measured, heuristic)) = measuring_pair()? else {
        return ignore("no cuDNN 9 here (set CUPRITE_CUDNN_PATH)");
    };
    if T::DATA_TYPE == cuprite_driver::sys::cudnn::cudnnDataType_t::CUDNN_DATA_FLOAT {
        // The legacy API's choices alone (by element type, a measuring handle times f32
        // problems on both APIs: `faster_api_f32`).
        measured.set_graph_api(Some(false));
        heuristic.set_graph_api(Some(false));
    }
    let mut rng = Rng::fresh();
    let mut shapes = 0u64;
    let mut first = None;
    for layout in [Layout::Nchw, Layout::Nhwc] {
        let mut c = ConvShape::new(2, 8, [20, 20], 16, [3, 3]);
        (c.pad, c.layout) = ([1, 1], layout);
        pair_case::<T, 2>(&s, &measured, &heuristic, &mut rng, &c)?;
        first.get_or_insert(c);
        shapes += 1;
    }
    let mut d = ConvShape::new(2, 6, [40], 8, [5]);
    (d.stride, d.pad) = ([2], [2]);
    pair_case::<T, 1>(&s, &measured, &heuristic, &mut rng, &d)?;
    let mut e = ConvShape::new(1, 4, [6, 6, 6], 4, [3, 3, 3]);
    e.pad = [1, 1, 1];
    pair_case::<T, 3>(&s, &measured, &heuristic, &mut rng, &e)?;
    shapes += 2;
    assert_eq!(measured.algo_searches()?, 3 * shapes, "every pass measured");
    assert_eq!(measured.algo_cache_counts()?, (0, 3 * shapes));
    assert_eq!(heuristic.algo_searches()?, 0);
    assert_eq!(heuristic.algo_cache_counts()?, (0, 3 * shapes));
    // The same problems again: cache hits, no new measurement, the same sums.
    let c = first.expect("two 2-d shapes ran");
    pair_case::<T, 2>(&s, &measured, &heuristic, &mut rng, &c)?;
    assert_eq!(measured.algo_searches()?, 3 * shapes);
    assert_eq!(measured.algo_cache_counts()?, (3, 3 * shapes));
    assert_eq!(heuristic.algo_cache_counts()?, (3, 3 * shapes));
    Ok(())
}

// ---------------------------------------------------------------------------------------------
// The graph (backend) API

/// The graph API is chosen by element type unless set, and the duel of the two APIs is off
/// unless asked for (the environment of the test run does not ask); the doc examples of
/// `set_graph_api` and `set_api_duel` cover the switches themselves (in their own processes).
fn graph_api_default() -> TestResult {
    assert_eq!(cuprite_driver::dnn::graph_api(), None);
    if std::env::var_os("CUPRITE_DNN_API_DUEL").is_none() {
        assert!(!cuprite_driver::dnn::api_duel());
    }
    Ok(())
}

/// The three passes of `shape` through `dnn` on views one element into their buffers (so
/// aligned to one element only), against the host sums; the element before each view is left
/// as it was.
fn offset_case<T: Elem, const N: usize>(
    s: &Arc<Stream>,
    dnn: &Dnn,
    rng: &mut Rng,
    shape: &ConvShape<N>,
) -> TestResult {
    let (xl, wl, yl) = (shape.x_len()?, shape.w_len()?, shape.y_len()?);
    let (x, w, dy) = (
        random::<T>(rng, xl),
        random::<T>(rng, wl),
        random::<T>(rng, yl),
    );
    let terms = conv_terms(shape);
    let nan = T::of(f64::NAN);
    let mark = T::of(7.0);
    let padded = |v: &[T]| -> Vec<T> { std::iter::once(mark).chain(v.iter().copied()).collect() };
    let (xd, wd, dyd) = (
        s.clone_htod(&padded(&x))?,
        s.clone_htod(&padded(&w))?,
        s.clone_htod(&padded(&dy))?,
    );
    let (xv, wv, dyv) = (xd.slice(1..)?, wd.slice(1..)?, dyd.slice(1..)?);
    let what = format!("one element in, {shape:?}");
    let check = |name: &str, buf: &cuprite_driver::DeviceBuffer<T>, want: &[Ref]| -> TestResult {
        let got = s.clone_dtoh(buf)?;
        assert!(
            got[0] == mark,
            "{name} {what}: the element before the view was written"
        );
        compare(&format!("{name} {what}"), &got[1..], want)
    };
    let mut y = s.clone_htod(&padded(&vec![nan; yl]))?;
    let watch = |pass: &str| Watch::new(format!("{pass} {} {what}", std::any::type_name::<T>()));
    {
        let _w = watch("forward");
        dnn.conv_forward(shape, &xv, &wv, &mut y.slice_mut(1..)?)?;
        s.synchronize()?;
    }
    let want = accumulate(
        yl,
        terms
            .iter()
            .map(|&(xi, wi, yi)| (x[xi].f() * w[wi].f(), yi)),
    );
    check("forward", &y, &want)?;
    let mut dx = s.clone_htod(&padded(&vec![nan; xl]))?;
    {
        let _w = watch("backward data");
        dnn.conv_backward_data(shape, &wv, &dyv, &mut dx.slice_mut(1..)?)?;
        s.synchronize()?;
    }
    let want = accumulate(
        xl,
        terms
            .iter()
            .map(|&(xi, wi, yi)| (dy[yi].f() * w[wi].f(), xi)),
    );
    check("backward data", &dx, &want)?;
    let mut dw = s.clone_htod(&padded(&vec![nan; wl]))?;
    {
        let _w = watch("backward filter");
        dnn.conv_backward_filter(shape, &xv, &dyv, &mut dw.slice_mut(1..)?)?;
        s.synchronize()?;
    }
    let want = accumulate(
        wl,
        terms
            .iter()
            .map(|&(xi, wi, yi)| (x[xi].f() * dy[yi].f(), wi)),
    );
    check("backward filter", &dw, &want)?;
    Ok(())
}

/// The graph API's plans, heuristic and measured, against the legacy API's algorithms on the
/// same data, each within the module's bound of the host sums: a 3×3 padded layer in both
/// layouts (its channels-first passes run through plans, one per pass, measured on the
/// measuring handle), a strided, dilated, grouped 2-d shape, 1-d and 3-d ones, and views one
/// element into their buffers. Repeating the layer finds its plans.
fn graph_vs_legacy<T: Elem>() -> TestResult {
    let Some((s, graph)) = dnn_or_ignore()? else {
        return ignore("no cuDNN 9 here (set CUPRITE_CUDNN_PATH)");
    };
    let (legacy, measured) = (Dnn::new(&s)?, Dnn::new(&s)?);
    graph.set_graph_api(Some(true));
    graph.set_algo_search(Some(false));
    measured.set_graph_api(Some(true));
    measured.set_algo_search(Some(true));
    legacy.set_graph_api(Some(false));
    legacy.set_algo_search(Some(false));
    let mut rng = Rng::fresh();
    let mut layer = ConvShape::new(2, 8, [20, 20], 16, [3, 3]);
    layer.pad = [1, 1];
    pair_case::<T, 2>(&s, &graph, &legacy, &mut rng, &layer)?;
    pair_case::<T, 2>(&s, &measured, &legacy, &mut rng, &layer)?;
    let half = T::DATA_TYPE != cuprite_driver::sys::cudnn::cudnnDataType_t::CUDNN_DATA_FLOAT;
    if half {
        assert_eq!(
            graph.graph_plans()?,
            3,
            "the layer's passes ran through plans"
        );
        assert_eq!(measured.graph_plans()?, 3);
        assert_eq!(measured.algo_searches()?, 3, "each plan measured");
        assert_eq!(graph.algo_searches()?, 0);
    }
    assert_eq!(legacy.graph_plans()?, 0);
    // The same problem again: the plans are found, none is made.
    let (plans, (hits, misses)) = (graph.graph_plans()?, graph.algo_cache_counts()?);
    pair_case::<T, 2>(&s, &graph, &legacy, &mut rng, &layer)?;
    assert_eq!(graph.graph_plans()?, plans);
    assert_eq!(graph.algo_cache_counts()?, (hits + 3, misses));
    let mut nhwc = layer;
    nhwc.layout = Layout::Nhwc;
    let mut odd = ConvShape::new(2, 6, [13, 11], 4, [3, 2]);
    (odd.stride, odd.pad, odd.dilation, odd.groups) = ([2, 1], [1, 2], [1, 2], 2);
    for c in [nhwc, odd] {
        pair_case::<T, 2>(&s, &graph, &legacy, &mut rng, &c)?;
        pair_case::<T, 2>(&s, &measured, &legacy, &mut rng, &c)?;
    }
    let mut d = ConvShape::new(2, 6, [40], 8, [5]);
    (d.stride, d.pad) = ([2], [2]);
    pair_case::<T, 1>(&s, &graph, &legacy, &mut rng, &d)?;
    pair_case::<T, 1>(&s, &measured, &legacy, &mut rng, &d)?;
    let mut e = ConvShape::new(1, 4, [6, 6, 6], 4, [3, 3, 3]);
    e.pad = [1, 1, 1];
    pair_case::<T, 3>(&s, &graph, &legacy, &mut rng, &e)?;
    pair_case::<T, 3>(&s, &measured, &legacy, &mut rng, &e)?;
    for dnn in [&graph, &measured, &legacy] {
        offset_case::<T, 2>(&s, dnn, &mut rng, &layer)?;
    }
    Ok(())
}

/// Measured choices keep the handle's settings: deterministic filter gradients repeat bit for
/// bit; `f32` without TF32 stays within `f32` rounding (the tight bound of `compare`), with
/// TF32 within TF32's.
fn measured_settings() -> TestResult {
    let Some((s, measured, heuristic)) = measuring_pair()? else {
        return ignore("no cuDNN 9 here (set CUPRITE_CUDNN_PATH)");
    };
    measured.set_graph_api(Some(false));
    heuristic.set_graph_api(Some(false));
    let mut rng = Rng::fresh();
    let mut c = ConvShape::new(4, 16, [14, 14], 16, [3, 3]);
    c.pad = [1, 1];
    // Full f32 (the default): both paths against the exact sums.
    pair_case::<f32, 2>(&s, &measured, &heuristic, &mut rng, &c)?;
    measured.set_deterministic(true);
    let x = s.clone_htod(&random::<f32>(&mut rng, c.x_len()?))?;
    let dy = s.clone_htod(&random::<f32>(&mut rng, c.y_len()?))?;
    let mut dw1 = s.alloc_zeros::<f32>(c.w_len()?)?;
    let mut dw2 = s.alloc_zeros::<f32>(c.w_len()?)?;
    let before = measured.algo_searches()?;
    measured.conv_backward_filter(&c, &x, &dy, &mut dw1)?;
    measured.conv_backward_filter(&c, &x, &dy, &mut dw2)?;
    assert_eq!(
        measured.algo_searches()?,
        before + 1,
        "a new policy, measured once"
    );
    let (p, q) = (s.clone_dtoh(&dw1)?, s.clone_dtoh(&dw2)?);
    assert!(
        p.iter().zip(&q).all(|(a, b)| a.to_bits() == b.to_bits()),
        "a measured deterministic algorithm gave two results"
    );
    measured.set_deterministic(false);
    // TF32 allowed: a new measured choice, within TF32's rounding of the full-f32 result
    // (10 mantissa bits of each input: relative 2^-10 of Σ|terms| at most, per term).
    measured.set_allow_tf32(true);
    let w = s.clone_htod(&random::<f32>(&mut rng, c.w_len()?))?;
    let mut full = s.alloc_zeros::<f32>(c.y_len()?)?;
    heuristic.conv_forward(&c, &x, &w, &mut full)?;
    let mut tf32 = s.alloc_zeros::<f32>(c.y_len()?)?;
    measured.conv_forward(&c, &x, &w, &mut tf32)?;
    let taps = 16.0 * 9.0;
    for (a, b) in s.clone_dtoh(&full)?.iter().zip(&s.clone_dtoh(&tf32)?) {
        assert!(
            (a - b).abs() <= taps * 2.0f32.powi(-9),
            "TF32 result {b} far from {a}"
        );
    }
    Ok(())
}

/// The forward problem of the capture tests: a padded 3×3 layer of 2 × 4 × 9 × 9 `f32` inputs
/// and 8 filters, its random `x` and `w` on the device, and the host sums of `y`.
fn small_forward(s: &Arc<Stream>, rng: &mut Rng) -> Result<SmallForward, BoxError> {
    let mut c = ConvShape::new(2, 4, [9, 9], 8, [3, 3]);
    c.pad = [1, 1];
    let (xl, wl, yl) = (c.x_len()?, c.w_len()?, c.y_len()?);
    let (x, w) = (random::<f32>(rng, xl), random::<f32>(rng, wl));
    let want = accumulate(
        yl,
        conv_terms(&c)
            .iter()
            .map(|&(xi, wi, yi)| (x[xi].f() * w[wi].f(), yi)),
    );
    Ok((c, s.clone_htod(&x)?, s.clone_htod(&w)?, want))
}

/// What [`small_forward`] makes: the shape, `x`, `w`, and the host sums of `y`.
type SmallForward = (
    ConvShape<2>,
    cuprite_driver::DeviceBuffer<f32>,
    cuprite_driver::DeviceBuffer<f32>,
    Vec<Ref>,
);

/// A call on a capturing stream takes the heuristic choice (nothing is timed, the graph's
/// replay gives the right sums); the first call after the capture measures that problem and
/// replaces the cached choice; the next finds it.
fn capture_uses_heuristics() -> TestResult {
    let (s, dnn) = need_dnn!();
    dnn.set_algo_search(Some(true));
    // The legacy API's choices alone (`faster_api_f32` covers both APIs in a capture).
    dnn.set_graph_api(Some(false));
    let mut rng = Rng::fresh();
    let (c, xd, wd, want) = small_forward(&s, &mut rng)?;
    let mut y = s.clone_htod(&vec![f32::NAN; c.y_len()?])?;
    s.synchronize()?;
    s.begin_capture(CaptureMode::ThreadLocal)?;
    let r = dnn.conv_forward(&c, &xd, &wd, &mut y);
    let g = s.end_capture()?;
    r?;
    assert_eq!(dnn.algo_searches()?, 0, "nothing measured in the capture");
    assert_eq!(dnn.algo_cache_counts()?, (0, 1));
    assert!(
        s.clone_dtoh(&y)?.iter().all(|v| v.is_nan()),
        "nothing ran during the capture"
    );
    let exec = g.instantiate()?;
    exec.launch(&s)?;
    compare(&format!("captured {c:?}"), &s.clone_dtoh(&y)?, &want)?;
    let mut y2 = s.clone_htod(&vec![f32::NAN; c.y_len()?])?;
    dnn.conv_forward(&c, &xd, &wd, &mut y2)?;
    assert_eq!(dnn.algo_searches()?, 1, "measured after the capture");
    assert_eq!(dnn.algo_cache_counts()?, (0, 2));
    compare(&format!("measured {c:?}"), &s.clone_dtoh(&y2)?, &want)?;
    dnn.conv_forward(&c, &xd, &wd, &mut y2)?;
    assert_eq!(dnn.algo_cache_counts()?, (1, 2));
    assert_eq!(dnn.algo_searches()?, 1);
    Ok(())
}

/// `f32` problems on a measuring handle that chooses its API by element type, with the duel
/// on: each pass's
/// first call times the graph API's plan against the legacy API's algorithm and keeps the
/// faster (each problem counted once, for one API or the other), and the results lie within
/// the bound of the host sums whichever won, on a 3×3 padded layer in both layouts and on views
/// one element in; the same problems again time nothing. A problem met first on a capturing
/// stream takes the legacy API without timing (the replay computes it) and is timed by its first
/// call after the capture.
fn faster_api_f32() -> TestResult {
    let (s, dnn) = need_dnn!();
    dnn.set_algo_search(Some(true));
    dnn.set_graph_api(None);
    dnn.set_api_duel(Some(true));
    let heuristic = Dnn::new(&s)?;
    heuristic.set_algo_search(Some(false));
    heuristic.set_graph_api(Some(false));
    let counted = |dnn: &Dnn| -> Result<usize, BoxError> {
        let (g, l) = dnn.faster_api_counts()?;
        Ok(g + l)
    };
    assert_eq!(dnn.faster_api_counts()?, (0, 0));
    let mut rng = Rng::fresh();
    let mut layer = ConvShape::new(2, 8, [20, 20], 16, [3, 3]);
    layer.pad = [1, 1];
    let mut nhwc = layer;
    nhwc.layout = Layout::Nhwc;
    pair_case::<f32, 2>(&s, &dnn, &heuristic, &mut rng, &layer)?;
    assert_eq!(counted(&dnn)?, 3, "each pass timed on both APIs once");
    pair_case::<f32, 2>(&s, &dnn, &heuristic, &mut rng, &nhwc)?;
    assert_eq!(counted(&dnn)?, 6);
    assert_eq!(
        heuristic.faster_api_counts()?,
        (0, 0),
        "a legacy handle times nothing"
    );
    let (searches, plans) = (dnn.algo_searches()?, dnn.graph_plans()?);
    pair_case::<f32, 2>(&s, &dnn, &heuristic, &mut rng, &layer)?;
    assert_eq!(counted(&dnn)?, 6, "the same problems again: nothing timed");
    assert_eq!(dnn.algo_searches()?, searches);
    assert_eq!(dnn.graph_plans()?, plans);
    offset_case::<f32, 2>(&s, &dnn, &mut rng, &layer)?;
    // A capture first: the legacy API, nothing timed or kept.
    let (c, xd, wd, want) = small_forward(&s, &mut rng)?;
    let mut y = s.clone_htod(&vec![f32::NAN; c.y_len()?])?;
    let before = counted(&dnn)?;
    s.synchronize()?;
    s.begin_capture(CaptureMode::ThreadLocal)?;
    let r = dnn.conv_forward(&c, &xd, &wd, &mut y);
    let g = s.end_capture()?;
    r?;
    assert_eq!(counted(&dnn)?, before, "nothing timed in the capture");
    let exec = g.instantiate()?;
    exec.launch(&s)?;
    compare(&format!("captured {c:?}"), &s.clone_dtoh(&y)?, &want)?;
    let mut y2 = s.clone_htod(&vec![f32::NAN; c.y_len()?])?;
    dnn.conv_forward(&c, &xd, &wd, &mut y2)?;
    assert_eq!(counted(&dnn)?, before + 1, "timed after the capture");
    compare(&format!("timed {c:?}"), &s.clone_dtoh(&y2)?, &want)?;
    exec.launch(&s)?;
    compare(&format!("replayed {c:?}"), &s.clone_dtoh(&y)?, &want)?;
    Ok(())
}

/// A convolution captured with a graph-API execution plan (whose plan owns the kernels its
/// work runs) and with the legacy API replays after its handle is dropped: the graph keeps the
/// handle and the plan, each replay computes the convolution, and memory allocated after the
/// drop is never written.
fn captured_conv_outlives_handle() -> TestResult {
    for graph_api in [true, false] {
        let (s, dnn) = need_dnn!();
        dnn.set_graph_api(Some(graph_api));
        let mut rng = Rng::fresh();
        let mut c = ConvShape::new(2, 4, [9, 9], 8, [3, 3]);
        c.pad = [1, 1];
        let (xl, wl, yl) = (c.x_len()?, c.w_len()?, c.y_len()?);
        let (x, w) = (random::<f32>(&mut rng, xl), random::<f32>(&mut rng, wl));
        let want = accumulate(
            yl,
            conv_terms(&c)
                .iter()
                .map(|&(xi, wi, yi)| (x[xi].f() * w[wi].f(), yi)),
        );
        let (xd, wd) = (s.clone_htod(&x)?, s.clone_htod(&w)?);
        let mut y = s.clone_htod(&vec![f32::NAN; yl])?;
        // A run before the capture makes the plan (or the legacy choice).
        dnn.conv_forward(&c, &xd, &wd, &mut y)?;
        s.synchronize()?;
        s.begin_capture(CaptureMode::ThreadLocal)?;
        let r = dnn.conv_forward(&c, &xd, &wd, &mut y);
        let g = s.end_capture()?;
        r?;
        let exec = g.instantiate()?;
        drop(g);
        drop(dnn);
        let victim = s.alloc_zeros::<u8>(64 << 20)?;
        for round in 0..2 {
            s.memset_d32(&mut y, f32::NAN.to_bits())?;
            exec.launch(&s)?;
            compare(
                &format!("graph API {graph_api}, replay {round} after the handle went"),
                &s.clone_dtoh(&y)?,
                &want,
            )?;
            assert!(
                s.clone_dtoh(&victim)?.iter().all(|&v| v == 0),
                "graph API {graph_api}, replay {round}: wrote memory allocated after the drop"
            );
        }
    }
    Ok(())
}
