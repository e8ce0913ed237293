//! Generated CUDA code: every kernel the test suite generates compiles with NVRTC, and the
//! disk cache is reused across processes and survives a corrupt file. Needs NVRTC, no GPU.

use cuprite_array::{Device, stats, tuning};
use cuprite_testkit::{CHILD_LIMIT, OutputWithin, Test, TestResult};

const MARKER: &str = "// ---- cuprite-array kernel ----\n";

/// Compiles many generated kernels, batched into translation units: kernels that use the same
/// helpers share one copy of them, each kernel in its own namespace.
pub fn compile_all(sources: &[String]) -> TestResult {
    let mut groups: std::collections::BTreeMap<String, Vec<String>> = Default::default();
    for src in sources {
        let (pre, body) = src
            .split_once(MARKER)
            .ok_or("generated source without the kernel marker")?;
        groups
            .entry(pre.to_string())
            .or_default()
            .push(body.to_string());
    }
    assert!(
        groups.len() >= 3,
        "kernels use different helper sets: {}",
        groups.len()
    );
    // The library's own options (e.g. `-minimal`), so what passes here is what it ships:
    // the optimised build, and the quick first build of tiered compilation.
    for opts in [
        tuning::compiler::compile_options(90, true),
        tuning::compiler::quick_compile_options(90),
    ] {
        compile_all_with(&groups, &opts, false)?;
    }
    // The quick build with its math left to the math library (every call of both precisions,
    // the most any source's facts can state): the glue compiles, and every function it
    // declares is defined by the library with the same signature.
    compile_all_with(&groups, &tuning::compiler::glue_compile_options(90), true)?;
    let lib = format!(
        "{}{}",
        tuning::compiler::math_library_source(false),
        tuning::compiler::math_library_source(true)
    );
    let glue = tuning::compiler::glue_source("", tuning::compiler::MathUse::ALL)
        .ok_or("no glue for every math call")?;
    let mut declared = 0;
    for line in glue
        .lines()
        .filter(|l| l.starts_with("extern \"C\" __device__"))
    {
        let proto = line.trim_end_matches(';');
        assert!(
            lib.contains(&format!("{proto} {{")),
            "the math library does not define `{line}`"
        );
        declared += 1;
    }
    let n = 2 * (tuning::compiler::MATH_UNARY.len() + tuning::compiler::MATH_BINARY.len());
    assert_eq!(declared, n, "math functions declared by the glue");
    Ok(())
}

/// Compiles a family's few kernels (`sources`, each with the kernel marker) with the library's
/// optimised and quick options, batched by their helpers as [`compile_all`] does, without its
/// minimum number of helper sets.
pub fn compile_each(sources: &[String]) -> TestResult {
    let mut groups: std::collections::BTreeMap<String, Vec<String>> = Default::default();
    for src in sources {
        let (pre, body) = src
            .split_once(MARKER)
            .ok_or("generated source without the kernel marker")?;
        groups
            .entry(pre.to_string())
            .or_default()
            .push(body.to_string());
    }
    for opts in [
        tuning::compiler::compile_options(90, true),
        tuning::compiler::quick_compile_options(90),
    ] {
        compile_all_with(&groups, &opts, false)?;
    }
    Ok(())
}

/// Both precisions of the math library compile (relocatable, with the library's options), and
/// a glue source names only what it declares.
fn math_library_compiles() -> TestResult {
    for f64 in [false, true] {
        let src = tuning::compiler::math_library_source(f64);
        let c = cuprite_driver::nvrtc::compile(&src, &tuning::compiler::math_library_options(90))?;
        let bin = c.cubin().ok_or("no CUBIN")?;
        assert!(bin.len() > 1000, "library CUBIN of {} bytes", bin.len());
        let n = tuning::compiler::MATH_UNARY.len() + tuning::compiler::MATH_BINARY.len();
        assert_eq!(src.matches("extern \"C\" __device__").count(), n);
    }
    let src = "__device__ double my_sin(double x) { return x; }\n__device__ double g(double x, float y) { return atan2(x, 2.0) + (double)powf(y, 1.5e-3f) + exp2(x) + my_sin(x) + (double)__expf(y); }\n";
    let glue =
        tuning::compiler::glue_source(src, tuning::compiler::MathUse::ALL).ok_or("no glue")?;
    for want in [
        "#define atan2 cq_atan2",
        "#define powf cq_powf",
        "#define exp2 cq_exp2",
    ] {
        assert!(glue.contains(want), "{want} missing in:\n{glue}");
    }
    assert!(!glue.contains("cq_my_sin") && !glue.contains("cq___expf"));
    // The renamed calls compile as calls of the declared wrappers (relocatable, resolved when
    // linked with the library).
    let c = cuprite_driver::nvrtc::compile(&glue, &tuning::compiler::glue_compile_options(90))?;
    assert!(c.cubin().is_some_and(|b| !b.is_empty()), "no glue CUBIN");
    let f32_only = tuning::compiler::MathUse {
        f32: true,
        f64: false,
    };
    let glue = tuning::compiler::glue_source(src, f32_only).ok_or("no f32 glue")?;
    assert!(glue.contains("#define powf cq_powf") && !glue.contains("#define atan2 "));
    assert!(tuning::compiler::glue_source(src, tuning::compiler::MathUse::default()).is_none());
    Ok(())
}

/// Compiles every chunk of 48 kernels of each helper set as one translation unit, the chunks
/// spread over the machine's cores (NVRTC compiles separate programs concurrently); the first
/// failure found is returned.
fn compile_all_with(
    groups: &std::collections::BTreeMap<String, Vec<String>>,
    opts: &cuprite_driver::nvrtc::CompileOptions,
    glue: bool,
) -> TestResult {
    let form = |src: String| {
        if glue {
            tuning::compiler::glue_source(&src, tuning::compiler::MathUse::ALL).unwrap_or(src)
        } else {
            src
        }
    };
    let chunks: Vec<(&String, &[String])> = groups
        .iter()
        .flat_map(|(prelude, bodies)| bodies.chunks(48).map(move |c| (prelude, c)))
        .collect();
    let compile_chunk = |(prelude, chunk): (&String, &[String])| -> Result<(), String> {
        let mut tu = prelude.clone();
        for (k, body) in chunk.iter().enumerate() {
            let body = body
                .replace("cuprite_ew(", &format!("cuprite_ew_{k}("))
                .replace("cuprite_reduce(", &format!("cuprite_reduce_{k}("));
            tu.push_str(&format!("namespace k{k} {{\n{body}\n}}\n"));
        }
        if cuprite_driver::nvrtc::compile(form(tu), opts).is_err() {
            // A batch can also fail on its own: two kernels of the chunk with the same
            // `extern "C"` name (namespaces do not separate those). Each kernel must compile
            // alone.
            for body in chunk {
                let src = form(format!("{prelude}{MARKER}{body}"));
                if let Err(e) = cuprite_driver::nvrtc::compile(&src, opts) {
                    return Err(format!("kernel failed to compile: {e}\n{src}"));
                }
            }
        }
        Ok(())
    };
    let next = std::sync::atomic::AtomicUsize::new(0);
    let workers = std::thread::available_parallelism()
        .map_or(1, |n| n.get())
        .min(chunks.len().max(1));
    let failures: Vec<String> = std::thread::scope(|scope| {
        let handles: Vec<_> = (0..workers)
            .map(|_| {
                scope.spawn(|| {
                    let mut failed = Vec::new();
                    loop {
                        let i = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                        let Some(&chunk) = chunks.get(i) else { break };
                        if let Err(e) = compile_chunk(chunk) {
                            failed.push(e);
                            // The others stop at their next chunk: one failure is the answer.
                            next.store(chunks.len(), std::sync::atomic::Ordering::Relaxed);
                        }
                    }
                    failed
                })
            })
            .collect();
        handles
            .into_iter()
            .flat_map(|h| {
                h.join()
                    .unwrap_or_else(|_| vec!["a compile worker panicked".to_string()])
            })
            .collect()
    });
    match failures.into_iter().next() {
        Some(e) => Err(e.into()),
        None => Ok(()),
    }
}

fn every_generated_kernel_compiles() -> TestResult {
    tuning::compiler::start_recording();
    let mut errors = Vec::new();
    for &(name, body) in crate::common::BODIES {
        if let Err(e) = body(Device::CPU) {
            errors.push(format!("{name}: {e}"));
        }
    }
    for &(name, body) in crate::rows::BODIES {
        if let Err(e) = body(Device::CPU) {
            errors.push(format!("rows::{name}: {e}"));
        }
    }
    for &(name, body) in crate::short_rows::BODIES {
        if let Err(e) = body(Device::CPU) {
            errors.push(format!("short_rows::{name}: {e}"));
        }
    }
    for &(name, body) in crate::reduce_axes::BODIES {
        if let Err(e) = body(Device::CPU) {
            errors.push(format!("reduce_axes::{name}: {e}"));
        }
    }
    for &(name, body) in crate::stats::BODIES {
        if let Err(e) = body(Device::CPU) {
            errors.push(format!("stats::{name}: {e}"));
        }
    }
    for &(name, body) in crate::random_gen::BODIES {
        if let Err(e) = body(Device::CPU) {
            errors.push(format!("random_gen::{name}: {e}"));
        }
    }
    for &(name, body) in crate::index::BODIES
        .iter()
        .chain(crate::index_scatter::BODIES)
    {
        if let Err(e) = body(Device::CPU) {
            errors.push(format!("index::{name}: {e}"));
        }
    }
    // Sharded programs over a CPU mesh: the reductions of every dtype the mesh tests use.
    if let Err(e) = cuprite_array::mesh::Mesh::cpu(2)
        .map_err(|e| e.into())
        .and_then(|m| crate::mesh::suite(&m))
    {
        errors.push(format!("mesh::suite: {e}"));
    }
    for &(name, body) in crate::numpy_fn::BODIES {
        if let Err(e) = body(Device::CPU) {
            errors.push(format!("numpy_fn::{name}: {e}"));
        }
    }
    for &(name, body) in crate::hardening::BODIES {
        if let Err(e) = body(Device::CPU) {
            errors.push(format!("hardening::{name}: {e}"));
        }
    }
    #[cfg(feature = "capture")]
    if let Err(e) = crate::capture::keyed_random_body(Device::CPU) {
        errors.push(format!("capture::keyed_random_body: {e}"));
    }
    for (name, body) in crate::props::fixed_cases() {
        if let Err(e) = body() {
            errors.push(format!("{name}: {e}"));
        }
    }
    let sources = tuning::compiler::take_recorded();
    if !errors.is_empty() {
        return Err(errors.join("\n").into());
    }
    assert!(
        sources.len() > 100,
        "only {} kernels recorded",
        sources.len()
    );
    eprintln!("compiling {} generated kernels", sources.len());
    compile_all(&sources)
}

fn temp_dir(tag: &str) -> std::path::PathBuf {
    let d = std::env::temp_dir().join(format!(
        "cuprite-array-{tag}-{}-{}",
        std::process::id(),
        cuprite_testkit::Rng::fresh().next_u64()
    ));
    std::fs::create_dir_all(&d).expect("temp dir");
    d
}

fn a_kernel_source(seed: u64) -> String {
    // A real generated kernel, unique to this run (the constant is a parameter, so vary the
    // structure instead: the chain length depends on the seed).
    tuning::compiler::start_recording();
    let a = cuprite_array::Array::<f32>::from_slice_on(Device::CPU, &[1.0, 2.0, 3.0, 4.0], &[4])
        .expect("array");
    let mut x = a.clone();
    for i in 0..(3 + seed % 5) {
        x = if i % 2 == 0 { x.sin() } else { &x * 2.0 };
    }
    x.eval().expect("eval");
    tuning::compiler::take_recorded().remove(0)
}

/// In a child process (see `main`): compile or load one kernel, print what happened.
pub fn child(dir: &str, seed: u64) {
    tuning::set_cache_dir(Some(dir.into()));
    let src = a_kernel_source(seed);
    let bin = tuning::compiler::cubin(&src, 90).expect("cubin");
    println!(
        "compiles={} disk_hits={} bytes={}",
        stats::compiles(),
        stats::disk_hits(),
        bin.len()
    );
}

fn run_child(
    dir: &std::path::Path,
    seed: u64,
) -> Result<String, Box<dyn std::error::Error + Send + Sync>> {
    let out = std::process::Command::new(std::env::current_exe()?)
        .env("CUPRITE_ARRAY_TEST_CHILD", dir)
        .env("CUPRITE_ARRAY_TEST_CHILD_SEED", seed.to_string())
        .output_within(CHILD_LIMIT)?;
    if !out.status.success() {
        return Err(format!("child failed: {}", String::from_utf8_lossy(&out.stderr)).into());
    }
    Ok(String::from_utf8(out.stdout)?.trim().to_string())
}

fn disk_cache_across_processes() -> TestResult {
    let dir = temp_dir("cache");
    let seed = cuprite_testkit::Rng::fresh().next_u64();
    let first = run_child(&dir, seed)?;
    assert!(first.starts_with("compiles=1 disk_hits=0"), "{first}");
    let second = run_child(&dir, seed)?;
    assert!(second.starts_with("compiles=0 disk_hits=1"), "{second}");
    assert_eq!(first.split("bytes=").nth(1), second.split("bytes=").nth(1));
    // Corrupt the file: the next process ignores it, compiles, and rewrites it.
    let files: Vec<_> = std::fs::read_dir(&dir)?
        .filter_map(|e| e.ok())
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|x| x == "cubin"))
        .collect();
    assert_eq!(
        files.len(),
        1,
        "one cache file, no temporaries left: {files:?}"
    );
    let mut data = std::fs::read(&files[0])?;
    let mid = data.len() / 2;
    data[mid] ^= 0x5a;
    data.truncate(data.len() - 7);
    std::fs::write(&files[0], &data)?;
    let third = run_child(&dir, seed)?;
    assert!(third.starts_with("compiles=1 disk_hits=0"), "{third}");
    let fourth = run_child(&dir, seed)?;
    assert!(
        fourth.starts_with("compiles=0 disk_hits=1"),
        "rewritten: {fourth}"
    );
    // Garbage that is not even a cache file.
    std::fs::write(&files[0], b"not a kernel")?;
    let fifth = run_child(&dir, seed)?;
    assert!(fifth.starts_with("compiles=1"), "{fifth}");
    let _ = std::fs::remove_dir_all(&dir);
    Ok(())
}

/// `CUPRITE_JIT_TRACE=1` prints the source of each kernel compiled (checked in a child).
fn jit_trace_prints_source() -> TestResult {
    let dir = temp_dir("trace");
    let seed = cuprite_testkit::Rng::fresh().next_u64();
    let out = std::process::Command::new(std::env::current_exe()?)
        .env("CUPRITE_ARRAY_TEST_CHILD", &dir)
        .env("CUPRITE_ARRAY_TEST_CHILD_SEED", seed.to_string())
        .env("CUPRITE_JIT_TRACE", "1")
        .output_within(CHILD_LIMIT)?;
    assert!(out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    // Each line: `// cuprite-array [+<ms> ms <thread>]: <what>`.
    let line = err
        .lines()
        .find(|l| l.contains("]: compiling for sm_90"))
        .ok_or_else(|| format!("no compile line in {err}"))?;
    let stamp = line
        .strip_prefix("// cuprite-array [+")
        .and_then(|r| r.split_once(" ms "))
        .ok_or_else(|| format!("no time stamp in {line:?}"))?;
    assert!(stamp.0.parse::<f64>()? >= 0.0, "{line}");
    assert!(err.contains("extern \"C\" __global__"), "{err}");
    let _ = std::fs::remove_dir_all(&dir);
    Ok(())
}

/// The NumPy-routine bodies' kernels (iota masks of `tril`/`tri`, the NaN reductions' fused
/// `c64` sum and count) compile, and an iota of the 32-bit index variant divides in 32 bits.
fn numpy_routine_kernels_compile() -> TestResult {
    tuning::compiler::start_recording();
    let mut errors = Vec::new();
    for &(name, body) in crate::numpy_fn::BODIES {
        if let Err(e) = body(Device::CPU) {
            errors.push(format!("numpy_fn::{name}: {e}"));
        }
    }
    let sources = tuning::compiler::take_recorded();
    if !errors.is_empty() {
        return Err(errors.join("\n").into());
    }
    let iota: Vec<&String> = sources
        .iter()
        .filter(|s| s.contains("% (u64t)s") || s.contains("% (unsigned int)s"))
        .collect();
    assert!(
        iota.iter().any(|s| s.contains("% (unsigned int)s")),
        "no 32-bit iota among {} kernels: {:?}",
        sources.len(),
        iota.iter()
            .map(|s| s.rsplit_once(MARKER).map(|x| x.1).unwrap_or(s))
            .collect::<Vec<_>>()
    );
    let mut groups: std::collections::BTreeMap<String, Vec<String>> = Default::default();
    for src in &sources {
        let (pre, body) = src
            .split_once(MARKER)
            .ok_or("generated source without the kernel marker")?;
        groups
            .entry(pre.to_string())
            .or_default()
            .push(body.to_string());
    }
    compile_all_with(&groups, &tuning::compiler::compile_options(90, true), false)
}

/// The reductions of the n-body and k-means forms: over the middle axis of a broadcast
/// `[a, b, c]` expression, each row's offsets found once and stepped along the reduced axis
/// with no division or remainder per element; and argmin along rows of 64 with 8 lanes a row,
/// combined by shuffles. Both compile, in the optimised and the quick builds.
fn axis_reduction_kernels_compile() -> TestResult {
    use cuprite_array::Array;
    tuning::compiler::start_recording();
    let (a, b, c) = (16usize, 300usize, 3usize);
    let x = Array::<f32>::from_slice_on(Device::CPU, &vec![1.0; a * c], &[a, 1, c])?;
    let y = Array::<f32>::from_slice_on(Device::CPU, &vec![2.0; b * c], &[1, b, c])?;
    let m = Array::<f32>::from_slice_on(Device::CPU, &vec![3.0; b], &[1, b, 1])?;
    let s = ((&y - &x) * (&m * &m).rsqrt()).sum_axes(&[1])?;
    assert_eq!(s.to_vec()?.len(), a * c);
    let scores = Array::<f32>::from_slice_on(Device::CPU, &vec![0.5; 64], &[64])?
        - Array::<f32>::from_slice_on(Device::CPU, &vec![1.0; 100 * 64], &[100, 64])? * 2.0;
    assert_eq!(scores.argmin_axis(1)?.to_vec()?, vec![0i64; 100]);
    let sources = tuning::compiler::take_recorded();
    let body = |s: &String| s.rsplit_once(MARKER).map_or(s.clone(), |x| x.1.to_string());
    let axis: Vec<String> = sources
        .iter()
        .map(body)
        .filter(|s| s.contains("cuprite_reduce") && s.contains("rb0"))
        .collect();
    assert!(
        !axis.is_empty(),
        "no reduction kernel with row bases: {sources:?}"
    );
    for k in &axis {
        // The loop over a row's elements: no division or remainder in it.
        let body_of_loop: String = k
            .lines()
            .skip_while(|l| {
                let t = l.trim_start();
                !((t.starts_with("for (") || t.starts_with("{ ")) && t.contains(" j = "))
            })
            .take_while(|l| !l.contains(" = comb(acc"))
            .collect();
        assert!(!body_of_loop.is_empty(), "no loop over a row: {k}");
        assert!(
            !body_of_loop.contains("% (") && !body_of_loop.contains("/= ("),
            "a division per element: {k}"
        );
    }
    assert!(
        sources
            .iter()
            .map(body)
            .any(|s| s.contains("int w = 4;") && s.contains("threadIdx.x / 8u")),
        "no argmin kernel with 8 lanes a row"
    );
    compile_each(&sources)
}

/// Reductions over the leading axis of row-major arrays (the reduced axis strided, the
/// outputs side by side): the column form's kernels are recorded for every dtype and
/// operation, read the output count, and compile.
fn column_reduction_kernels_compile() -> TestResult {
    use cuprite_array::{Array, bf16};
    tuning::compiler::start_recording();
    let (r, c) = (300usize, 40usize);
    let x = Array::<f32>::from_slice_on(Device::CPU, &vec![1.0; r * c], &[r, c])?;
    assert_eq!(x.sum_axes(&[0])?.to_vec()?, vec![r as f32; c]);
    x.max_axes(&[0])?.to_vec()?;
    x.prod_axes(&[0])?.to_vec()?;
    x.any_axes(&[0])?.to_vec()?;
    x.all_axes(&[0])?.to_vec()?;
    let w = Array::<f32>::from_slice_on(Device::CPU, &vec![1.0; 1000], &[1, 1000])?;
    ((&x.slice(&cuprite_array::s![.., ..20])? * 2.0) + &w.slice(&cuprite_array::s![.., ..20])?)
        .sum_axes(&[0])?
        .to_vec()?;
    let b = Array::<bf16>::from_slice_on(Device::CPU, &vec![bf16::ONE; r * c * 2], &[r, c, 2])?;
    b.sum_axes(&[0])?.to_vec()?;
    b.min_axes(&[0])?.to_vec()?;
    let i = Array::<i32>::from_slice_on(Device::CPU, &vec![1; r * c], &[r, c])?;
    i.sum_axes(&[0])?.to_vec()?;
    let d = Array::<f64>::from_slice_on(Device::CPU, &vec![1.0; r * c], &[r, c])?;
    d.min_axes(&[0])?.to_vec()?;
    let sources = tuning::compiler::take_recorded();
    let body = |s: &String| s.rsplit_once(MARKER).map_or(s.clone(), |x| x.1.to_string());
    let cols: Vec<String> = sources
        .iter()
        .map(body)
        .filter(|s| s.contains("cuprite_reduce") && s.contains("u64t rows_"))
        .collect();
    assert!(
        cols.len() >= 8,
        "too few column-form reduction kernels ({}): {sources:?}",
        cols.len()
    );
    for k in &cols {
        assert!(
            k.contains("rcnt_[cb_] = 0u"),
            "the counter is not reset: {k}"
        );
        assert!(k.contains("live_ && j < hi_"), "an unguarded loop: {k}");
    }
    compile_each(&sources)
}

/// Means and variances of `f32`, `f64` and integers: the reductions that fold the division into
/// their last kernel (a last parameter `fdiv_`, divided by as the element-wise division would)
/// are recorded in each form that writes the rows' results (blocks combining their partials, a
/// block a row, lanes of a warp a row, columns), and compile; an `f16` mean keeps its division
/// lazy (none of its kernels divides).
fn mean_division_kernels_compile() -> TestResult {
    use cuprite_array::{Array, f16};
    tuning::compiler::start_recording();
    let x = Array::<f32>::from_slice_on(Device::CPU, &vec![2.0; 300 * 40], &[300, 40])?;
    assert_eq!(x.mean()?.to_vec()?, vec![2.0]);
    assert_eq!(x.mean_axes(&[0])?.to_vec()?, vec![2.0; 40]);
    assert_eq!(x.mean_axes(&[1])?.to_vec()?, vec![2.0; 300]);
    x.var_axes(&[1])?.to_vec()?;
    let d = Array::<f64>::from_slice_on(Device::CPU, &vec![1.0; 5000 * 3], &[3, 5000])?;
    d.mean_axes(&[1])?.to_vec()?;
    d.std()?.to_vec()?;
    let i = Array::<i32>::from_slice_on(Device::CPU, &vec![3; 64 * 20], &[64, 20])?;
    assert_eq!(i.mean_axes(&[1])?.to_vec()?, vec![3.0; 64]);
    let divides = |s: &String| s.contains("cuprite_reduce") && s.contains("u64t fdiv_");
    let sources = tuning::compiler::take_recorded();
    let body = |s: &String| s.rsplit_once(MARKER).map_or(s.clone(), |x| x.1.to_string());
    let folded: Vec<String> = sources.iter().map(body).filter(divides).collect();
    for (form, mark) in [
        ("combining", "rpart_"),
        ("warp rows", "shfl_down_"),
        ("columns", "u64t rows_"),
        ("double", "double"),
    ] {
        assert!(
            folded.iter().any(|k| k.contains(mark)),
            "no dividing reduction kernel of the {form} form: {folded:?}"
        );
    }
    assert!(
        folded
            .iter()
            .all(|k| k.contains("/ (float)__longlong_as_double((i64t)fdiv_)")
                || k.contains("/ __longlong_as_double((i64t)fdiv_)")),
        "a dividing kernel without its division: {folded:?}"
    );
    tuning::compiler::start_recording();
    let h = Array::<f16>::from_slice_on(Device::CPU, &vec![f16::ONE; 4096], &[4096])?;
    h.mean()?.to_vec()?;
    let half = tuning::compiler::take_recorded();
    assert!(!half.iter().any(divides), "an f16 mean folded its division");
    compile_each(&sources)?;
    compile_each(&half)
}

/// The n-body program's reduction (`(d * w).sum_axes(&[1])`, `d` of shape `[n, n, 3]`, `w`
/// of shape `[n, n, 1]` holding the one `rsqrt`): every form of its kernel reduces the three
/// outputs of a body together, computing the `rsqrt` once per element for all three (one
/// square root in the text, three accumulators fed in the row loop), reading each value of
/// body `j` once, with no division in the loop; they compile in the optimised and the quick
/// builds. The recording runs the program on
/// the CPU: its accelerations match the f64 sums.
fn nbody_reduction_shares_rsqrt() -> TestResult {
    use cuprite_array::{Array, s};
    tuning::compiler::start_recording();
    let n = 37usize;
    let pos: Vec<f32> = (0..n * 3)
        .map(|k| ((k * 7919) % 101) as f32 / 50.0 - 1.0)
        .collect();
    let mass: Vec<f32> = (0..n).map(|k| 0.5 + (k % 5) as f32 / 4.0).collect();
    let p = Array::<f32>::from_slice_on(Device::CPU, &pos, &[n, 3])?;
    let m = Array::<f32>::from_slice_on(Device::CPU, &mass, &[n])?;
    let d = p.reshape(&[1, n, 3])? - p.reshape(&[n, 1, 3])?;
    let col = |c: usize| -> cuprite_array::Result<Array<f32>> {
        let v = p.slice(&s![.., c])?;
        Ok(v.reshape(&[1, n, 1])? - v.reshape(&[n, 1, 1])?)
    };
    let (dx, dy, dz) = (col(0)?, col(1)?, col(2)?);
    let inv = (&dx * &dx + &dy * &dy + &dz * &dz + 0.01f32).rsqrt();
    let w = &inv * &inv * &inv * m.reshape(&[1, n, 1])?;
    let acc = (d * w).sum_axes(&[1])?.to_vec()?;
    let sources = tuning::compiler::take_recorded();
    // The f64 sums (the CPU's f32 result within the rounding of its terms).
    for i in 0..n {
        for c in 0..3 {
            let (mut want, mut scale) = (0.0f64, 0.0f64);
            for j in 0..n {
                let d: Vec<f64> = (0..3)
                    .map(|k| f64::from(pos[3 * j + k]) - f64::from(pos[3 * i + k]))
                    .collect();
                let r2 = d[0] * d[0] + d[1] * d[1] + d[2] * d[2] + f64::from(0.01f32);
                let wt = f64::from(mass[j]) / (r2 * r2.sqrt());
                want += wt * d[c];
                scale += wt * r2.sqrt();
            }
            let got = f64::from(acc[3 * i + c]);
            assert!(
                (got - want).abs() <= 1e-5 * scale,
                "acceleration ({i}, {c}): {got}, the f64 sum is {want}"
            );
        }
    }
    let body = |s: &String| s.rsplit_once(MARKER).map_or(s.clone(), |x| x.1.to_string());
    let kernels: Vec<String> = sources
        .iter()
        .map(body)
        .filter(|k| k.contains("cuprite_reduce") && k.contains("sqrtf("))
        .collect();
    assert!(
        !kernels.is_empty(),
        "no n-body reduction kernel: {sources:?}"
    );
    for k in &kernels {
        assert_eq!(k.matches("sqrtf(").count(), 1, "not one square root: {k}");
        // Three accumulators, fed once each in the row loop, and no fourth.
        for c in 0..3 {
            assert_eq!(
                k.matches(&format!("acc{c} = comb(acc{c}, v")).count(),
                1,
                "accumulator {c} is not fed once per element: {k}"
            );
        }
        assert!(!k.contains("acc3"), "a fourth accumulator: {k}");
        let body_of_loop: String = k
            .lines()
            .skip_while(|l| {
                let t = l.trim_start();
                !((t.starts_with("for (") || t.starts_with("{ ")) && t.contains(" j = "))
            })
            .take_while(|l| !l.contains(" = comb(acc"))
            .collect();
        assert!(
            body_of_loop.contains("sqrtf("),
            "the square root outside the loop: {k}"
        );
        // Four reads an element: body j's three coordinates (the pair differences' and the
        // coordinate columns' reads are the same expressions) and its mass.
        let reads: std::collections::BTreeSet<&str> = k
            .lines()
            .skip_while(|l| {
                let t = l.trim_start();
                !((t.starts_with("for (") || t.starts_with("{ ")) && t.contains(" j = "))
            })
            .take_while(|l| !l.contains(" = comb(acc"))
            .filter_map(|l| l.split_once(" = in").map(|x| x.1))
            .collect();
        assert_eq!(reads.len(), 4, "reads in the row loop {reads:?}: {k}");
        assert!(
            !body_of_loop.contains("% (") && !body_of_loop.contains("/= ("),
            "a division per element: {k}"
        );
    }
    compile_each(&sources)
}

/// The kernels of the GELU gradient pass (`linalg::matmul_gelu_grad`'s fused pass and its
/// column sums, every element type and lane width) compile with the library's options.
fn gelu_grad_kernels_compile() -> TestResult {
    use cuprite_array::{Array, bf16, f16, linalg};
    fn run<T: cuprite_array::dtype::Float + cuprite_array::dtype::Transcendental>(
        m: usize,
        n: usize,
    ) -> TestResult {
        let a = Array::<f32>::from_slice_on(Device::CPU, &vec![0.5; m * 8], &[m, 8])?.cast::<T>();
        let b = Array::<f32>::from_slice_on(Device::CPU, &vec![0.25; 8 * n], &[8, n])?.cast::<T>();
        let z = Array::<f32>::from_slice_on(Device::CPU, &vec![0.0; m * n], &[m, n])?.cast::<T>();
        let (_, db) = linalg::matmul_gelu_grad(&a, &b, &z, 1.0)?;
        // gelu'(0) = 1/2: each g is 8 · 0.5 · 0.25 / 2 = 1/2.
        let want = m as f64 * 0.5;
        for v in db.cast::<f64>().to_vec()? {
            assert!((v - want).abs() <= want * 1e-2, "{v} != {want}");
        }
        Ok(())
    }
    let fused = linalg::gelu_grad_fused();
    linalg::set_gelu_grad_fused(true);
    tuning::compiler::start_recording();
    let ran = (|| -> TestResult {
        run::<f32>(40, 48)?;
        run::<bf16>(40, 48)?;
        run::<f16>(40, 48)?;
        Ok(())
    })();
    let sources = tuning::compiler::take_recorded();
    linalg::set_gelu_grad_fused(fused);
    ran?;
    let ours: Vec<String> = sources
        .iter()
        .filter(|s| s.contains("cuprite_gelu_grad_"))
        .cloned()
        .collect();
    // Per type: the scalar and vector first kernels, and the finishing one.
    assert_eq!(ours.len(), 9, "gelu_grad kernels recorded: {ours:?}");
    compile_each(&ours)?;
    // A sum over the leading axis of a realised matrix takes the sums form of the same kernels;
    // one over the last axis, or of a fused expression, does not.
    let x =
        Array::<f32>::from_slice_on(Device::CPU, &vec![1.0; 80 * 48], &[80, 48])?.cast::<bf16>();
    x.eval()?;
    tuning::compiler::start_recording();
    assert_eq!(x.sum_axes(&[0])?.cast::<f32>().to_vec()?, vec![80.0; 48]);
    let plain = tuning::compiler::take_recorded();
    tuning::compiler::start_recording();
    x.sum_axes(&[1])?.to_vec()?;
    (&x * bf16::from_f32(2.0)).sum_axes(&[0])?.to_vec()?;
    let other = tuning::compiler::take_recorded();
    let sums = |v: &[String]| {
        v.iter()
            .filter(|s| s.contains("cuprite_gelu_grad_bf16_sums"))
            .count()
    };
    assert_eq!(
        sums(&plain),
        2,
        "sums kernels for x.sum_axes(&[0]): {plain:?}"
    );
    assert_eq!(sums(&other), 0, "sums kernels for other reductions");
    Ok(())
}

pub fn tests() -> Vec<Test> {
    vec![
        Test::nvrtc(
            "codegen::nbody_reduction_shares_rsqrt",
            nbody_reduction_shares_rsqrt,
        ),
        Test::nvrtc(
            "codegen::axis_reduction_kernels_compile",
            axis_reduction_kernels_compile,
        ),
        Test::nvrtc(
            "codegen::column_reduction_kernels_compile",
            column_reduction_kernels_compile,
        ),
        Test::nvrtc(
            "codegen::mean_division_kernels_compile",
            mean_division_kernels_compile,
        ),
        Test::nvrtc(
            "codegen::gelu_grad_kernels_compile",
            gelu_grad_kernels_compile,
        ),
        Test::nvrtc(
            "codegen::every_generated_kernel_compiles",
            every_generated_kernel_compiles,
        ),
        Test::nvrtc(
            "codegen::disk_cache_across_processes",
            disk_cache_across_processes,
        ),
        Test::nvrtc("codegen::jit_trace_prints_source", jit_trace_prints_source),
        Test::nvrtc("codegen::math_library_compiles", math_library_compiles),
        Test::nvrtc(
            "codegen::numpy_routine_kernels_compile",
            numpy_routine_kernels_compile,
        ),
    ]
}
