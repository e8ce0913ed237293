//! The benchmark harness: its statistics and judgement, and `cuprite bench` as a user runs it.

use crate::cuprite_bin;
use cuprite_cli::bench::report::{Verdict, compare, judge_peer_files, judge_peers, peer_refusal};
use cuprite_cli::bench::{BenchCtx, Figure, Samples, Target, TimeUnit, all, utc_now};
use cuprite_testkit::temp_dir as empty_dir;
use cuprite_testkit::{CHILD_LIMIT, OutputWithin, Rng, Test, TestResult};
use serde_json::{Value, json};
use std::process::Command;

pub fn tests() -> Vec<Test> {
    let mut v = vec![
        Test::cpu("bench::samples_statistics", samples_statistics),
        Test::cpu(
            "bench::figures_ratio_and_targets",
            figures_ratio_and_targets,
        ),
        Test::cpu("bench::registry_names_unique", registry_names_unique),
        Test::cpu("bench::host_timing_helpers", host_timing_helpers),
        Test::cpu("bench::date_format", date_format),
        Test::cpu(
            "bench::image_pipeline_on_the_cpu",
            image_pipeline_on_the_cpu,
        ),
        Test::cpu("bench::without_gpu_runs_cpu_and_skips_gpu", without_gpu),
        Test::gpu("bench::device_copy_ceiling", device_copy_ceiling),
        Test::cpu(
            "bench::compare_flags_regressions",
            compare_flags_regressions,
        ),
        Test::cpu("bench::peers_judged_in_code", peers_judged_in_code),
        Test::cpu("bench::sort_peers_judged", sort_peers_judged),
        Test::cpu("bench::sparse_peers_judged", sparse_peers_judged),
        Test::cpu("bench::graph_peers_judged", graph_peers_judged),
        Test::cpu("bench::conv_peers_judged", conv_peers_judged),
        Test::cpu(
            "bench::peers_refused_unless_same_call",
            peers_refused_unless_same_call,
        ),
        Test::cpu(
            "bench::peers_pair_like_with_like",
            peers_pair_like_with_like,
        ),
        Test::cpu(
            "bench::refused_peer_fails_the_run",
            refused_peer_fails_the_run,
        ),
        Test::cpu("bench::plot_compare_peers_from_a_report", plot_from_report),
    ];
    // The quick smoke run, one test per group of benchmarks. Under a sanitizer (the GPU check
    // sets CUPRITE_UNDER_SANITIZER before it lists the tests) one test per benchmark, each a
    // process of its own there: the groups `array`, `curves` and `fft` took longer than a run
    // may under racecheck.
    if cuprite_testkit::under_sanitizer() {
        for b in all() {
            let name = b.name;
            v.push(Test::gpu(
                format!("bench::quick_smoke::{}", name.replace('/', "::")),
                move || quick_smoke(name),
            ));
        }
    } else {
        let mut groups: Vec<&'static str> = all().iter().map(|b| b.group).collect();
        groups.sort_unstable();
        groups.dedup();
        for g in groups {
            let name = format!("bench::quick_smoke::{g}");
            // The graph benchmarks capture graphs: alone, like the capture tests.
            v.push(if g == "graphs" {
                Test::gpu_alone(name, move || quick_smoke(g))
            } else {
                Test::gpu(name, move || quick_smoke(g))
            });
        }
    }
    v
}

fn samples_statistics() -> TestResult {
    let mut rng = Rng::fresh();
    for n in [1usize, 2, 7, 20] {
        let v: Vec<f64> = (0..n).map(|_| f64::from(rng.f32_in(0.5, 9.5))).collect();
        let s = Samples(v.clone());
        let mut sorted = v.clone();
        sorted.sort_by(f64::total_cmp);
        let median = if n % 2 == 1 {
            sorted[n / 2]
        } else {
            (sorted[n / 2 - 1] + sorted[n / 2]) / 2.0
        };
        assert_eq!(s.median(), median);
        assert_eq!(s.min(), sorted[0]);
        assert_eq!(s.max(), sorted[n - 1]);
        assert_eq!(s.len(), n);
    }
    assert_eq!(Samples::default().median(), 0.0);
    Ok(())
}

fn figures_ratio_and_targets() -> TestResult {
    let mut rng = Rng::fresh();
    let t: Vec<f64> = (0..9).map(|_| f64::from(rng.f32_in(1e-3, 2e-3))).collect();
    let s = Samples(t);
    // Rate: amount / time, so the slowest sample gives the min rate.
    let f = Figure::rate("copy", "TB/s", 2.0, &s);
    assert!((f.median - 2.0 / s.median()).abs() < 1e-9);
    assert!((f.min - 2.0 / s.max()).abs() < 1e-9);
    assert!((f.max - 2.0 / s.min()).abs() < 1e-9);
    assert!(f.min <= f.median && f.median <= f.max);
    assert_eq!(f.samples, 9);
    // Time in µs.
    let ft = Figure::time("launch", &s, TimeUnit::Us);
    assert!((ft.median - s.median() * 1e6).abs() < 1e-6);
    assert_eq!(ft.unit, "µs");
    // Ratio and targets.
    let ceiling = f64::from(rng.f32_in(2.0, 4.0));
    let fig = Figure::new("x", "TB/s", ceiling * 0.9, 0.0, 0.0).with_ceiling("copy", ceiling);
    assert!((fig.ratio().ok_or("no ratio")? - 0.9).abs() < 1e-6);
    assert_eq!(fig.met(), None);
    assert_eq!(
        fig.clone().with_target(Target::RatioAtLeast(0.8)).met(),
        Some(true)
    );
    assert_eq!(
        fig.clone().with_target(Target::RatioAtLeast(0.95)).met(),
        Some(false)
    );
    assert_eq!(
        fig.clone().with_target(Target::RatioAtMost(1.1)).met(),
        Some(true)
    );
    assert_eq!(
        fig.clone().with_target(Target::AtMost(ceiling)).met(),
        Some(true)
    );
    assert_eq!(
        fig.clone().with_target(Target::AtLeast(ceiling)).met(),
        Some(false)
    );
    // A ratio target without a ceiling cannot be judged.
    let bare = Figure::new("y", "µs", 3.0, 2.0, 4.0).with_target(Target::RatioAtMost(1.1));
    assert_eq!(bare.ratio(), None);
    assert_eq!(bare.met(), None);
    Ok(())
}

fn registry_names_unique() -> TestResult {
    let list = all();
    let mut names: Vec<&str> = list.iter().map(|b| b.name).collect();
    assert!(names.contains(&"ceiling/device_copy") && names.contains(&"ceiling/host_copy"));
    for b in &list {
        assert!(
            b.name.starts_with(&format!("{}/", b.group)),
            "{} not in group {}",
            b.name,
            b.group
        );
    }
    let n = names.len();
    names.sort();
    names.dedup();
    assert_eq!(names.len(), n, "duplicate benchmark names");
    Ok(())
}

fn host_timing_helpers() -> TestResult {
    let ctx = BenchCtx::new(2, 5, true);
    let mut calls = 0;
    let s = ctx.time_host(|| {
        calls += 1;
        std::thread::sleep(std::time::Duration::from_millis(2));
    });
    assert_eq!(calls, 7);
    assert_eq!(s.len(), 5);
    assert!(s.min() >= 0.002, "{s:?}");
    let mut seen = Vec::new();
    let per = ctx.time_host_per_call(10, |i| seen.push(i));
    assert_eq!(seen.len(), 2 * 10 + 5 * 10);
    assert_eq!(per.len(), 5);
    let r = ctx.try_time_host_per_call(3, |i| if i == 4 { Err("boom") } else { Ok(()) });
    assert!(r.is_err_and(|e| e.to_string() == "boom"));
    Ok(())
}

fn date_format() -> TestResult {
    let d = utc_now();
    let b = d.as_bytes();
    assert_eq!(d.len(), "2026-11-22 07:03 UTC".len(), "{d}");
    assert!(
        b[..4].iter().all(u8::is_ascii_digit) && b[4] == b'-' && b[7] == b'-',
        "{d}"
    );
    let year: u32 = d[..4].parse()?;
    assert!((2024..2100).contains(&year), "{d}");
    assert!(d.ends_with(" UTC"));
    Ok(())
}

/// The pass of `workloads/image_pipeline` on the CPU on a 512² image of four discs, and the
/// check the benchmark makes once before it times: one component for each disc drawn, each
/// centroid at a disc's centre, each area about the disc's, some edges.
fn image_pipeline_on_the_cpu() -> TestResult {
    use cuprite_array::{Array, Device};
    use cuprite_cli::bench::workloads::{
        check_image_pipeline, image_discs, image_of_discs, image_pipeline_pass,
    };
    let n = 512;
    let discs = image_discs(n);
    assert_eq!(discs.len(), 4);
    let img = Array::from_slice_on(Device::CPU, &image_of_discs(n), &[n, n])?;
    let pass = image_pipeline_pass(&img)?;
    assert_eq!(pass.labels.shape(), [n, n]);
    let edges = check_image_pipeline(&pass, &discs)?;
    // Canny thins each disc's blurred rim to a closed curve: about as many edge pixels as the
    // rims' lengths.
    let rims: f64 = discs
        .iter()
        .map(|d| 2.0 * std::f64::consts::PI * (d.radius + 2) as f64)
        .sum();
    assert!(
        edges as f64 > 0.8 * rims && (edges as f64) < 1.5 * rims,
        "{edges} edge pixels, rims {rims}"
    );
    Ok(())
}

fn without_gpu() -> TestResult {
    let dir = empty_dir("bench");
    let json = dir.join("out.json");
    let out = Command::new(cuprite_bin()?)
        .args(["bench", "--quick", "ceiling", "--json"])
        .arg(&json)
        .env("CUPRITE_CUDA_PATH", &dir)
        .output_within(CHILD_LIMIT)?;
    let text = String::from_utf8(out.stdout)?;
    assert!(
        out.status.success(),
        "{text}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        text.contains("skipped ceiling/device_copy: no CUDA driver"),
        "{text}"
    );
    assert!(text.contains("host memcpy bandwidth (1 thread)"), "{text}");
    let v: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&json)?)?;
    let results = v["results"].as_array().ok_or("no results")?;
    let find = |n: &str| results.iter().find(|r| r["name"] == n).cloned();
    let dev = find("ceiling/device_copy").ok_or("no device_copy entry")?;
    assert_eq!(dev["status"], "skipped");
    let host = find("ceiling/host_copy").ok_or("no host_copy entry")?;
    assert_eq!(host["status"], "ran");
    let figs = host["figures"].as_array().ok_or("no figures")?;
    assert_eq!(figs.len(), 2);
    for f in figs {
        let (min, med, max) = (
            f["min"].as_f64().ok_or("min")?,
            f["median"].as_f64().ok_or("median")?,
            f["max"].as_f64().ok_or("max")?,
        );
        assert!(
            0.1 < min && min <= med && med <= max && max < 10_000.0,
            "{f}"
        );
        assert_eq!(f["unit"], "GB/s");
    }
    // The host's peak FMA rate: f32 and f64, positive, f32 at least f64's (twice the lanes).
    let flops = find("ceiling/host_flops").ok_or("no host_flops entry")?;
    assert_eq!(flops["status"], "ran");
    let figs = flops["figures"].as_array().ok_or("no figures")?;
    assert_eq!(figs.len(), 2, "{flops}");
    let rate = |i: usize| -> Result<f64, Box<dyn std::error::Error + Send + Sync>> {
        let f = &figs[i];
        assert_eq!(f["unit"], "GFLOP/s", "{f}");
        let (min, med, max) = (
            f["min"].as_f64().ok_or("min")?,
            f["median"].as_f64().ok_or("median")?,
            f["max"].as_f64().ok_or("max")?,
        );
        assert!(0.1 < min && min <= med && med <= max, "{f}");
        Ok(med)
    };
    let (f32_rate, f64_rate) = (rate(0)?, rate(1)?);
    assert!(
        f32_rate > 0.8 * f64_rate,
        "f32 {f32_rate} against f64 {f64_rate}"
    );
    // A filter selects: only the host benchmark runs, nothing is skipped.
    let out = Command::new(cuprite_bin()?)
        .args(["bench", "--quick", "host"])
        .env("CUPRITE_CUDA_PATH", &dir)
        .output_within(CHILD_LIMIT)?;
    let text = String::from_utf8(out.stdout)?;
    assert!(out.status.success());
    assert!(
        text.contains("ceiling/host_copy") && !text.contains("device_copy"),
        "{text}"
    );
    // A filter matching nothing is an error listing what exists.
    let out = Command::new(cuprite_bin()?)
        .args(["bench", "no-such-benchmark"])
        .env("CUPRITE_CUDA_PATH", &dir)
        .output_within(CHILD_LIMIT)?;
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("ceiling/host_copy"));
    std::fs::remove_dir_all(&dir)?;
    Ok(())
}

fn device_copy_ceiling() -> TestResult {
    let mut ctx = BenchCtx::new(1, 5, true);
    let c = ctx.device_copy_ceiling()?;
    // Any CUDA GPU copies faster than 50 GB/s and slower than 20 TB/s; under a compute-sanitizer
    // tool (the GPU check sets CUPRITE_UNDER_SANITIZER) copies are instrumented: 1 GB/s.
    let low = if cuprite_testkit::under_sanitizer() {
        0.001
    } else {
        0.05
    };
    assert!(c.value > low && c.value < 20.0, "{c:?}");
    // Measured once per run: asking again returns the same value.
    assert_eq!(ctx.device_copy_ceiling()?.value, c.value);
    println!("device copy ceiling (quick): {:.3} TB/s", c.value);
    Ok(())
}

/// A report as `cuprite bench --json` writes it, with one benchmark of the given figures
/// (`(name, unit, median, plot points)`).
/// A report of `cuprite bench --json`: a full-size run on the device [`same_call`] names.
fn report(results: &[(&str, Vec<Value>)]) -> Value {
    json!({
        "tool": "cuprite bench",
        "date": "2026-01-01 00:00 UTC",
        "device": "test device",
        "device_uuid": "GPU-0a1b2c3d-0000-1111-2222-333344445555",
        "driver": "13.0",
        "quick": false,
        "results": results.iter().map(|(name, figs)| json!({
            "name": name, "group": "test", "needs_gpu": false, "status": "ran", "figures": figs,
        })).collect::<Vec<_>>(),
    })
}

/// `peer` with the identity of a peer file measured in the same call as [`report`]'s run (the
/// UUID as PyTorch prints it, in upper case: compared without the prefix, in any case).
fn same_call(mut peer: Value) -> Value {
    for (k, v) in [
        ("device", json!("test device")),
        (
            "device_uuid",
            json!("GPU-0A1B2C3D-0000-1111-2222-333344445555"),
        ),
        ("driver", json!("13.0")),
        ("torch", json!("2.11.0+cu130")),
        ("cuda", json!("13.0")),
        ("quick", json!(false)),
    ] {
        peer[k] = v;
    }
    peer
}

fn fig(name: &str, unit: &str, median: f64, plot: Vec<Value>) -> Value {
    json!({"name": name, "unit": unit, "median": median, "min": median, "max": median,
           "samples": 5, "plot": plot})
}

fn compare_flags_regressions() -> TestResult {
    let mut rng = Rng::fresh();
    let base: Vec<f64> = (0..4).map(|_| f64::from(rng.f32_in(1.0, 100.0))).collect();
    let old = report(&[(
        "t/a",
        vec![
            fig("rate", "GB/s", base[0], vec![]),
            fig("time", "µs", base[1], vec![]),
            fig("steady", "ms", base[2], vec![]),
            fig("gone", "µs", base[3], vec![]),
        ],
    )]);
    // Rate down 20% (regression), time down 30% (better), steady +5% (same), one new figure.
    let new = report(&[(
        "t/a",
        vec![
            fig("rate", "GB/s", base[0] * 0.8, vec![]),
            fig("time", "µs", base[1] * 0.7, vec![]),
            fig("steady", "ms", base[2] * 1.05, vec![]),
            fig("fresh", "µs", 1.0, vec![]),
        ],
    )]);
    let rows = compare(&old, &new, 0.10);
    let find = |n: &str| {
        rows.iter()
            .find(|r| r.figure == n)
            .ok_or(format!("no row {n}"))
    };
    let r = find("rate")?;
    assert_eq!(r.verdict, Verdict::Regression);
    assert!((r.ratio.ok_or("ratio")? - 0.8).abs() < 1e-9);
    let t = find("time")?;
    assert_eq!(t.verdict, Verdict::Better);
    assert!((t.ratio.ok_or("ratio")? - 0.7).abs() < 1e-9);
    assert_eq!(find("steady")?.verdict, Verdict::Same);
    assert_eq!(find("fresh")?.verdict, Verdict::New);
    assert_eq!(find("gone")?.verdict, Verdict::Missing);
    // A time up by 20% is a regression too; with a 25% threshold it is not.
    let slower = report(&[("t/a", vec![fig("time", "µs", base[1] * 1.2, vec![])])]);
    assert_eq!(compare(&old, &slower, 0.10)[0].verdict, Verdict::Regression);
    assert_eq!(compare(&old, &slower, 0.25)[0].verdict, Verdict::Same);
    Ok(())
}

/// The convolution benchmarks against `benches/peers/torch_conv.py`'s file: each pass and
/// dtype matched to its own key twice, cuDNN's figure at most 1/0.95 of PyTorch's time and
/// the fallback's at most twice it; a batch of another size is not judged (the shape is
/// matched as text: `8x64x112x112` holds the number 64 too).
fn conv_peers_judged() -> TestResult {
    let shape = "64x64x56x56 k64 3x3";
    let figs: Vec<Value> = [
        ("bf16 forward cudnn", 1.05),
        ("bf16 backward_input cudnn", 1.06),
        ("bf16 backward_weight cudnn", 0.5),
        ("f32 forward cudnn", 2.1),
        ("f32 backward_input cudnn", 2.2),
        ("f32 backward_weight cudnn", 2.0),
        ("bf16 forward fallback", 1.5),
        ("bf16 backward_input fallback", 2.5),
        ("bf16 backward_weight fallback", 1.0),
        ("f32 forward fallback", 3.0),
        ("f32 backward_input fallback", 4.0),
        ("f32 backward_weight fallback", 4.1),
    ]
    .iter()
    .map(|(what, ms)| fig(&format!("conv2d {what} {shape}"), "ms", *ms, vec![]))
    .collect();
    let ours = report(&[
        ("conv/conv2d", figs),
        (
            "conv/max_pool2d",
            vec![fig(
                "max_pool2d 2x2 f32 forward 8x64x112x112",
                "ms",
                0.1,
                vec![],
            )],
        ),
    ]);
    let peer = same_call(json!({
        "peer": "PyTorch (test)",
        "conv2d_bf16_forward_ms": 1.0,
        "conv2d_bf16_backward_input_ms": 1.0,
        "conv2d_bf16_backward_weight_ms": 1.0,
        "conv2d_f32_forward_ms": 2.0,
        "conv2d_f32_backward_input_ms": 2.0,
        "conv2d_f32_backward_weight_ms": 2.0,
        "max_pool2d_f32_ms": 0.1,
        "sizes": {"conv2d": " 64x64x56x56 ", "max_pool2d": " 64x64x112x112"},
    }));
    let rows = judge_peers(&ours, &peer)?;
    let find_path = |k: &str, path: &str| {
        rows.iter()
            .find(|r| r.key == k && r.what.contains(path))
            .ok_or(format!("no row {k} {path}"))
    };
    let find = |k: &str| find_path(k, "");
    for (key, path, ratio, met) in [
        ("conv2d_bf16_forward_ms", "cuDNN vs", 1.05, true),
        ("conv2d_bf16_backward_input_ms", "cuDNN vs", 1.06, false),
        ("conv2d_bf16_backward_weight_ms", "cuDNN vs", 0.5, true),
        ("conv2d_f32_forward_ms", "cuDNN vs", 1.05, true),
        ("conv2d_f32_backward_input_ms", "cuDNN vs", 1.1, false),
        ("conv2d_f32_backward_weight_ms", "cuDNN vs", 1.0, true),
        ("conv2d_bf16_forward_ms", "fallback", 1.5, true),
        ("conv2d_bf16_backward_input_ms", "fallback", 2.5, false),
        ("conv2d_bf16_backward_weight_ms", "fallback", 1.0, true),
        ("conv2d_f32_forward_ms", "fallback", 1.5, true),
        ("conv2d_f32_backward_input_ms", "fallback", 2.0, true),
        ("conv2d_f32_backward_weight_ms", "fallback", 2.05, false),
    ] {
        let r = find_path(key, path)?;
        assert!((r.ratio.ok_or("ratio")? - ratio).abs() < 1e-12, "{r:?}");
        assert_eq!(r.met, Some(met), "{r:?}");
    }
    // The pooling figure of a batch of 8 is not judged against the peer's batch of 64.
    let p = find("max_pool2d_f32_ms")?;
    assert_eq!((p.ratio, p.met), (None, None), "{p:?}");
    Ok(())
}

/// The sort benchmarks against `benches/peers/torch_sort.py`'s file (its flat keys and sizes):
/// lower times are better; rows are matched by their size.
fn sort_peers_judged() -> TestResult {
    let ours = report(&[
        (
            "sort/f32_2^26_with_indices",
            vec![fig("sort 67108864 f32 with indices", "ms", 7.0, vec![])],
        ),
        (
            "sort/rows_4096x4096_f32",
            vec![fig(
                "sort 4096 rows of 4096 f32 (last axis) with indices",
                "ms",
                0.5,
                vec![],
            )],
        ),
        (
            "sort/median_2^26_f32",
            vec![fig("median of 1024 f32", "ms", 1.0, vec![])],
        ),
        (
            "sort/unique_2^24_i64",
            vec![fig(
                "unique values of 16777216 i64 in [0, n/2) (`unique_values`)",
                "ms",
                1.1,
                vec![],
            )],
        ),
    ]);
    let peer = same_call(json!({
        "peer": "PyTorch (test)",
        "sort_f32_2p26_with_indices_ms": 3.5,
        "sort_rows_4096x4096_f32_ms": 0.625,
        "median_2p26_f32_ms": 3.0,
        "unique_2p24_i64_ms": 1.25,
        "unique_2p24_i64_inverse_counts_ms": 3.5,
        "sizes": {"sort": 67108864, "rows": 4096, "unique": 16777216},
    }));
    let rows = judge_peers(&ours, &peer)?;
    let find = |k: &str| {
        rows.iter()
            .find(|r| r.key == k)
            .ok_or(format!("no row {k}"))
    };
    let f = find("sort_f32_2p26_with_indices_ms")?;
    assert!((f.ratio.ok_or("ratio")? - 2.0).abs() < 1e-12, "{f:?}");
    assert_eq!(f.met, Some(false));
    let r = find("sort_rows_4096x4096_f32_ms")?;
    assert!((r.ratio.ok_or("ratio")? - 0.8).abs() < 1e-12, "{r:?}");
    assert_eq!(r.met, Some(true));
    // A median of another size is not judged against the 2^26 one.
    let m = find("median_2p26_f32_ms")?;
    assert_eq!((m.ratio, m.met), (None, None), "{m:?}");
    // The values-only unique is judged against torch's values-only figure; the figure with
    // every output ("unique of") is absent, so its rule is not matched to the values-only one.
    let u = find("unique_2p24_i64_ms")?;
    assert!((u.ratio.ok_or("ratio")? - 0.88).abs() < 1e-12, "{u:?}");
    assert_eq!(u.met, Some(true));
    let ui = find("unique_2p24_i64_inverse_counts_ms")?;
    assert_eq!((ui.ratio, ui.met), (None, None), "{ui:?}");
    // Every sort rule is listed, the ones without a figure with a note.
    assert_eq!(rows.len(), 7, "{rows:?}");
    assert!(
        rows.iter()
            .filter(|r| r.ratio.is_none())
            .all(|r| r.note.is_some())
    );
    Ok(())
}

/// The random sparse benchmarks against `benches/peers/sparse_peers.py`'s file: each rule
/// finds its figure by name in its own benchmark (not the canonical-COO figure beside the
/// conversion), lower times are better, and a peer run of other sizes is not judged.
fn sparse_peers_judged() -> TestResult {
    let ours = report(&[
        (
            "sparse/spmv_random",
            vec![fig(
                "SpMV time, random 1048576² with 16777216 nonzeros (16 a row, f32, CSR) ",
                "ms",
                0.2,
                vec![],
            )],
        ),
        (
            "sparse/spgemm_random",
            vec![fig(
                "SpGEMM A·A, random 65536² at density 0.001 (4294967 nonzeros, f32, CSR) ",
                "ms",
                150.0,
                vec![],
            )],
        ),
        (
            "sparse/coo_to_csr",
            vec![
                fig(
                    "to_csr of a canonical COO, 16777088 elements in a 1048576² matrix (f32) ",
                    "ms",
                    0.1,
                    vec![],
                ),
                fig(
                    "COO → CSR, 16777216 triplets in a 1048576² matrix (f32, duplicates summed) ",
                    "ms",
                    900.0,
                    vec![],
                ),
            ],
        ),
    ]);
    let peer = same_call(json!({
        "peer": "PyTorch (test), CuPy (test)",
        "cupyx_spmv_random_ms": 0.25,
        "cupyx_spgemm_random_ms": 100.0,
        "cupyx_coo_to_csr_ms": 6.0,
        "sizes": {"spmv_random": 1048576, "spgemm": 65536, "coo_triplets": 16777216},
    }));
    let rows = judge_peers(&ours, &peer)?;
    let find = |rows: &[cuprite_cli::bench::report::PeerRow], k: &str| {
        rows.iter()
            .find(|r| r.key == k)
            .cloned()
            .ok_or(format!("no row {k}"))
    };
    let spmv = find(&rows, "cupyx_spmv_random_ms")?;
    assert!((spmv.ratio.ok_or("ratio")? - 0.8).abs() < 1e-12, "{spmv:?}");
    assert_eq!(spmv.met, Some(true));
    let spgemm = find(&rows, "cupyx_spgemm_random_ms")?;
    assert!(
        (spgemm.ratio.ok_or("ratio")? - 1.5).abs() < 1e-12,
        "{spgemm:?}"
    );
    assert_eq!(spgemm.met, Some(false));
    let coo = find(&rows, "cupyx_coo_to_csr_ms")?;
    assert!((coo.ratio.ok_or("ratio")? - 150.0).abs() < 1e-9, "{coo:?}");
    assert_eq!((coo.cuprite, coo.met), (Some(900.0), Some(false)));
    // Every rule of the script is listed; the Laplacian and cg rows have no figure here.
    assert_eq!(rows.len(), 9, "{rows:?}");
    // A peer run at the quick sizes is not judged against the full-size figures.
    let mut quick = peer.clone();
    quick["sizes"] = json!({"spmv_random": 16384, "spgemm": 4096, "coo_triplets": 65536});
    let rows = judge_peers(&ours, &quick)?;
    for k in [
        "cupyx_spmv_random_ms",
        "cupyx_spgemm_random_ms",
        "cupyx_coo_to_csr_ms",
    ] {
        let r = find(&rows, k)?;
        assert_eq!((r.ratio, r.met), (None, None), "{r:?}");
        assert!(
            r.note
                .as_deref()
                .is_some_and(|n| n.contains("sizes differ")),
            "{r:?}"
        );
    }
    Ok(())
}

fn peers_judged_in_code() -> TestResult {
    let ours = report(&[
        (
            "array/fused_chain",
            vec![fig(
                "fused 8-op chain (x) over 1024 f32, one kernel",
                "TB/s",
                3.0,
                vec![],
            )],
        ),
        (
            "array/sum",
            vec![fig("sum of 4096 f32 (reads)", "TB/s", 2.0, vec![])],
        ),
        (
            "array/small_op_host",
            vec![fig("host time of one small op (a + 1)", "µs", 4.0, vec![])],
        ),
    ]);
    let peer = same_call(json!({
        "peer": "test peer",
        "figures": {"chain_compile_TBps": 2.5, "chain_eager_TBps": 1.2, "sum_TBps": 2.5,
                    "small_op_host_us": 8.0},
        "sizes": {"chain": 1024, "sum": 2048, "dot": 1024},
    }));
    let rows = judge_peers(&ours, &peer)?;
    let find = |k: &str| {
        rows.iter()
            .find(|r| r.key == k)
            .ok_or(format!("no row {k}"))
    };
    let c = find("chain_compile_TBps")?;
    assert!((c.ratio.ok_or("ratio")? - 1.2).abs() < 1e-12);
    assert_eq!(c.met, Some(true));
    // 3.0 / 1.2 = 2.5: below the 3x target against eager.
    let e = find("chain_eager_TBps")?;
    assert!((e.ratio.ok_or("ratio")? - 2.5).abs() < 1e-12);
    assert_eq!(e.met, Some(false));
    // Sizes differ (4096 against 2048): not judged, and the note says why.
    let s = find("sum_TBps")?;
    assert_eq!((s.ratio, s.met), (None, None));
    assert!(
        s.note.as_deref().is_some_and(|n| n.contains("2048")),
        "{s:?}"
    );
    // Lower is better for host time: 4 / 8 = 0.5 meets "at most 1x".
    let h = find("small_op_host_us")?;
    assert!((h.ratio.ok_or("ratio")? - 0.5).abs() < 1e-12);
    assert_eq!(h.met, Some(true));
    // The dot product did not run and the peer has no figure for it.
    let d = find("dot_TBps")?;
    assert_eq!(d.met, None);
    assert!(d.note.is_some());
    // Only the rules of the script this file came from.
    assert_eq!(rows.len(), 5, "{rows:?}");
    assert!(rows.iter().all(|r| !r.key.contains("fft")), "{rows:?}");

    // An FFT peer file: a time, lower is better; matched by size.
    let ours = report(&[(
        "fft/c2c_2p24",
        vec![fig(
            "FFT of 65536 Complex<f32> (C2C): cuprite fft::Plan from a PlanCache",
            "ms",
            0.05,
            vec![],
        )],
    )]);
    let peer = same_call(json!({"fft_c64_2p24_best_ms": 0.1, "sizes": {"fft": 65536}}));
    let rows = judge_peers(&ours, &peer)?;
    assert_eq!(rows.len(), 4, "{rows:?}");
    let f = rows
        .iter()
        .find(|r| r.key == "fft_c64_2p24_best_ms")
        .ok_or("no fft row")?;
    assert!((f.ratio.ok_or("ratio")? - 0.5).abs() < 1e-12);
    assert_eq!(f.met, Some(true));
    let peer = same_call(json!({"fft_c64_2p24_best_ms": 0.1, "sizes": {"fft": 1024}}));
    assert_eq!(judge_peers(&ours, &peer)?[0].met, None, "sizes differ");
    Ok(())
}

/// A peer file judges a report only when both come from one call: the same device (name and
/// UUID), driver and quick flag, with PyTorch's versions recorded, and every file of one list
/// from the same PyTorch and CUDA. A refusal judges nothing and says what differs.
fn peers_refused_unless_same_call() -> TestResult {
    let ours = report(&[(
        "sort/f32_2^26_with_indices",
        vec![fig("sort 67108864 f32 with indices", "ms", 7.0, vec![])],
    )]);
    let good = same_call(json!({
        "sort_f32_2p26_with_indices_ms": 3.5,
        "sizes": {"sort": 67108864},
    }));
    let rows = judge_peers(&ours, &good)?;
    assert_eq!(rows[0].ratio, Some(2.0), "{rows:?}");
    assert_eq!(peer_refusal(&ours, &good), None);
    // (what is changed in the peer file, its new value, a needle the refusal must hold)
    let cases: [(&str, Value, &str); 9] = [
        ("device", json!("other device"), "\"other device\""),
        (
            "device_uuid",
            json!("GPU-ffffffff-0000-1111-2222-333344445555"),
            "GPU-ffffffff",
        ),
        ("device_uuid", Value::Null, "no device_uuid"),
        ("device", Value::Null, "names no device"),
        ("driver", json!("12.8"), "CUDA 12.8"),
        ("driver", Value::Null, "no driver version"),
        ("torch", Value::Null, "no torch version"),
        ("cuda", Value::Null, "no cuda version"),
        ("quick", json!(true), "the peer --quick"),
    ];
    for (key, value, needle) in cases {
        let mut peer = good.clone();
        peer[key] = value.clone();
        let why = judge_peers(&ours, &peer)
            .err()
            .ok_or(format!("{key} = {value} was judged"))?;
        assert!(why.contains(needle), "{key} = {value}: {why}");
    }
    // cuprite's side: a run on the CPU only, a quick run, a report without the UUID.
    let mut cpu = ours.clone();
    cpu["gpu"] = json!(false);
    let why = judge_peers(&cpu, &good)
        .err()
        .ok_or("a CPU run was judged")?;
    assert!(why.contains("no GPU"), "{why}");
    let mut quick = ours.clone();
    quick["quick"] = json!(true);
    let why = judge_peers(&quick, &good).err().ok_or("quick was judged")?;
    assert!(
        why.contains("cuprite ran --quick, the peer full size"),
        "{why}"
    );
    let mut old = ours.clone();
    old["device_uuid"] = Value::Null;
    let why = judge_peers(&old, &good).err().ok_or("no uuid was judged")?;
    assert!(
        why.contains("cuprite's report records no device_uuid"),
        "{why}"
    );
    // Several files: the first accepted one fixes PyTorch's versions for the rest.
    let mut other_torch = good.clone();
    other_torch["torch"] = json!("2.10.0+cu128");
    let mut refused = good.clone();
    refused["driver"] = json!("12.0");
    let all = judge_peer_files(&ours, &[refused, good.clone(), other_torch, good]);
    assert!(
        all[0].is_err() && all[1].is_ok() && all[3].is_ok(),
        "{all:?}"
    );
    let why = all[2].as_ref().err().ok_or("another torch was judged")?;
    assert!(why.contains("torch \"2.10.0+cu128\""), "{why}");
    Ok(())
}

/// Like with like: x[idx] (which checks every index) is paired with cuprite's checked gather,
/// never with the gather whose check is elided; a GEMM is judged at the peer's own problem
/// (written as the figure names write it), so a quick product is not judged against a
/// full-size one.
fn peers_pair_like_with_like() -> TestResult {
    let n = 67108864;
    let ours = report(&[
        (
            "index/gather",
            vec![
                fig(
                    &format!("gather of {n} f32 at random i64 indices (checked on the device)"),
                    "ms",
                    1.5,
                    vec![],
                ),
                fig(
                    &format!("gather (check elided: randint indices, range known) of {n} f32"),
                    "ms",
                    0.5,
                    vec![],
                ),
            ],
        ),
        (
            "blas/gemm_bf16_8192",
            vec![
                fig(
                    "bf16 GEMM 8192×8192×8192, Default compute (cuBLASLt)",
                    "TFLOP/s",
                    700.0,
                    vec![],
                ),
                fig(
                    "bf16 GEMM 8192×8192×8192, Default compute (cuBLASLt, tuned)",
                    "TFLOP/s",
                    900.0,
                    vec![],
                ),
            ],
        ),
        (
            "array/matmul_bf16_8192",
            vec![fig(
                "Array::matmul bf16 1 × 2048×8192 · 8192×2048 (one cuBLASLt call per evaluation)",
                "TFLOP/s",
                600.0,
                vec![],
            )],
        ),
    ]);
    let index = same_call(json!({
        "figures": {"gather_f32_2p26_ms": 1.0, "index_add_f32_2p26_into_2p20_ms": 1.0},
        "sizes": {"gather": n, "index_add": n},
    }));
    let rows = judge_peers(&ours, &index)?;
    let gathers: Vec<_> = rows
        .iter()
        .filter(|r| r.key == "gather_f32_2p26_ms")
        .collect();
    assert_eq!(gathers.len(), 1, "one pair for x[idx]: {rows:?}");
    assert_eq!(
        (gathers[0].cuprite, gathers[0].met),
        (Some(1.5), Some(false)),
        "the checked gather: {rows:?}"
    );
    assert!(gathers[0].what.contains("checked"), "{:?}", gathers[0]);
    let blas = same_call(json!({
        "figures": {"gemm_bf16_8192_TFLOPs": 750.0},
        "sizes": {"gemm_bf16_8192_TFLOPs": "8192×8192×8192",
                  "gemm_bf16_8192_TFLOPs_array": "1 × 8192×8192 · 8192×8192"},
    }));
    let rows = judge_peers(&ours, &blas)?;
    let lt = rows
        .iter()
        .find(|r| r.key == "gemm_bf16_8192_TFLOPs" && r.what.contains("BlasLt"))
        .ok_or("no BlasLt row")?;
    // 700 / 750: the first (untuned) figure, under 0.98×.
    assert!(
        (lt.ratio.ok_or("ratio")? - 700.0 / 750.0).abs() < 1e-12,
        "{lt:?}"
    );
    assert_eq!(lt.met, Some(false));
    let arr = rows
        .iter()
        .find(|r| r.key == "gemm_bf16_8192_TFLOPs" && r.what.contains("Array::matmul"))
        .ok_or("no Array::matmul row")?;
    assert_eq!((arr.ratio, arr.met), (None, None), "{arr:?}");
    assert!(
        arr.note
            .as_deref()
            .is_some_and(|n| n.contains("1 × 8192×8192 · 8192×8192")),
        "{arr:?}"
    );
    // A number is matched whole: 819 is not in "8192×8192×8192".
    let mut small = blas.clone();
    small["sizes"]["gemm_bf16_8192_TFLOPs"] = json!(819);
    let rows = judge_peers(&ours, &small)?;
    assert!(
        rows.iter()
            .filter(|r| r.key == "gemm_bf16_8192_TFLOPs")
            .all(|r| r.met.is_none()),
        "{rows:?}"
    );
    Ok(())
}

/// Through the binary: a peer file from another device is refused, named in the output, left
/// off the charts, and the run fails.
fn refused_peer_fails_the_run() -> TestResult {
    let dir = empty_dir("benchrefused");
    let ours = report(&[(
        "sort/f32_2^26_with_indices",
        vec![fig("sort 67108864 f32 with indices", "ms", 7.0, vec![])],
    )]);
    let mut peer = same_call(json!({
        "peer": "Peer 1.0",
        "sort_f32_2p26_with_indices_ms": 3.5,
        "sizes": {"sort": 67108864},
    }));
    peer["device"] = json!("NVIDIA H100 80GB HBM3");
    let (ours_p, peer_p) = (dir.join("ours.json"), dir.join("peer.json"));
    std::fs::write(&ours_p, ours.to_string())?;
    std::fs::write(&peer_p, peer.to_string())?;
    let out = Command::new(cuprite_bin()?)
        .args(["bench", "--from"])
        .arg(&ours_p)
        .arg("--peers")
        .arg(&peer_p)
        .env("CUPRITE_CUDA_PATH", &dir)
        .output_within(CHILD_LIMIT)?;
    let text = String::from_utf8(out.stdout)?;
    assert!(
        !out.status.success(),
        "a refused peer must fail the run: {text}"
    );
    assert!(
        text.contains("REFUSED") && text.contains("\"NVIDIA H100 80GB HBM3\""),
        "{text}"
    );
    assert!(
        !text.contains("ratio = cuprite / peer"),
        "nothing judged: {text}"
    );
    std::fs::remove_dir_all(&dir)?;
    Ok(())
}

/// `--from` a saved report: `--plot` writes one SVG per chart (peer curves included),
/// `--compare` and `--peers` print their verdicts, and nothing is run.
fn plot_from_report() -> TestResult {
    let dir = empty_dir("benchplot");
    let point = |chart: &str, series: &str, x: f64, y: f64| json!({"chart": chart, "series": series, "x": x, "x_label": "bytes", "log_x": true, "y": y});
    let mut figs = Vec::new();
    for k in 0..5 {
        let x = f64::from(1u32 << (16 + 2 * k));
        let y = 50.0 * x / (x + 1e6);
        figs.push(fig(
            &format!("H2D {x}"),
            "GB/s",
            y,
            vec![point("copies", "H2D", x, y)],
        ));
    }
    figs.push(fig(
        "host",
        "µs",
        3.0,
        vec![
            json!({"chart": "host time", "series": "raw", "x": 0.0, "x_label": "sample",
                    "log_x": false, "y": 3.0}),
            json!({"chart": "host time", "series": "raw", "x": 1.0, "x_label": "sample",
                    "log_x": false, "y": 3.2}),
        ],
    ));
    let new = report(&[("curves/copies", figs.clone())]);
    figs[4]["median"] = json!(100.0);
    let old = report(&[("curves/copies", figs)]);
    let peer = same_call(
        json!({"peer": "Peer 1.0", "figures": {"chain_compile_TBps": 2.0}, "curves": [
        {"chart": "copies", "series": "H2D", "x": 65536.0, "y": 10.0, "unit": "GB/s"},
        {"chart": "copies", "series": "H2D", "x": 1048576.0, "y": 20.0, "unit": "GB/s"}]}),
    );
    let (new_p, old_p, peer_p) = (
        dir.join("new.json"),
        dir.join("old.json"),
        dir.join("peer.json"),
    );
    std::fs::write(&new_p, new.to_string())?;
    std::fs::write(&old_p, old.to_string())?;
    std::fs::write(&peer_p, peer.to_string())?;
    let plots = dir.join("plots");
    let out = Command::new(cuprite_bin()?)
        .args(["bench", "--from"])
        .arg(&new_p)
        .arg("--compare")
        .arg(&old_p)
        .arg("--peers")
        .arg(&peer_p)
        .arg("--plot")
        .arg(&plots)
        .env("CUPRITE_CUDA_PATH", &dir)
        .output_within(CHILD_LIMIT)?;
    let text = String::from_utf8(out.stdout)?;
    assert!(
        out.status.success(),
        "{text}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        text.contains("REGRESSION") && text.contains("regressions: 1,"),
        "{text}"
    );
    assert!(text.contains("not judged"), "{text}");
    assert!(
        !text.contains("cuprite bench, "),
        "nothing may run with --from: {text}"
    );
    let copies = std::fs::read_to_string(plots.join("copies.svg"))?;
    assert!(
        copies.starts_with("<svg"),
        "{}",
        &copies[..80.min(copies.len())]
    );
    assert!(
        copies.contains("H2D") && copies.contains("Peer 1.0: H2D"),
        "legend missing"
    );
    assert!(copies.contains("bytes (log scale)") && copies.contains("GB/s"));
    let host = std::fs::read_to_string(plots.join("host-time.svg"))?;
    assert!(host.contains("µs") && host.contains("raw"));
    let n = std::fs::read_dir(&plots)?.count();
    assert_eq!(n, 2, "one SVG per chart");
    std::fs::remove_dir_all(&dir)?;
    Ok(())
}

/// The benchmarks `filter` selects (a group, or one benchmark's name) once with `--quick`,
/// through the binary as a user runs it: all run (none fails or is skipped on a GPU machine),
/// every figure is finite and positive (counts may be 0), the JSON parses and the charts are
/// written, one file for each chart of the report.
fn quick_smoke(filter: &str) -> TestResult {
    let group = filter.split('/').next().unwrap_or(filter);
    let dir = empty_dir(&format!("benchsmoke-{}", filter.replace('/', "-")));
    let json_path = dir.join("quick.json");
    let plots = dir.join("plots");
    let mut cmd = Command::new(cuprite_bin()?);
    cmd.args(["bench", "--quick", "--json"])
        .arg(&json_path)
        .arg("--plot")
        .arg(&plots)
        .arg(filter);
    if cuprite_testkit::under_sanitizer() {
        // Every kernel instrumented: sizes an eighth of the quick ones, two repeats.
        cmd.env("CUPRITE_BENCH_QUICK_DIVISOR", "8")
            .args(["--repeats", "2"]);
    }
    let out = cmd.output_within(CHILD_LIMIT)?;
    let text = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(
        out.status.success(),
        "{text}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v: Value = serde_json::from_str(&std::fs::read_to_string(&json_path)?)?;
    let results = v["results"].as_array().ok_or("no results")?;
    // The filter selects the group and any benchmark whose name contains its name.
    let selected: Vec<&str> = all()
        .iter()
        .filter(|b| b.group == filter || b.name.contains(filter))
        .map(|b| b.name)
        .collect();
    assert!(selected.iter().any(|n| n.starts_with(filter)));
    assert_eq!(results.len(), selected.len(), "every benchmark reported");
    // The groups of this harness must all run on a GPU machine; a benchmark of another topic
    // may be skipped where a second GPU is missing, and any may be skipped where an optional
    // library (cuFFT...) is not installed; none may fail.
    let must_run = ["ceiling", "memory", "launch", "array", "interop", "curves"];
    let mut charted = false;
    for r in results {
        assert_ne!(r["status"], "failed", "{r}");
        let name = r["name"].as_str().unwrap_or("");
        assert!(selected.contains(&name), "{name} was not asked for");
        let group = r["group"].as_str().unwrap_or("");
        let missing_library = r["reason"]
            .as_str()
            .is_some_and(|x| x.contains("not found"));
        if r["status"] == "skipped" && (missing_library || !must_run.contains(&group)) {
            println!("skipped {}: {}", r["name"], r["reason"]);
            continue;
        }
        assert_eq!(r["status"], "ran", "{r}");
        charted |= ["curves", "array", "launch"].contains(&group);
        let figs = r["figures"].as_array().ok_or("no figures")?;
        assert!(!figs.is_empty(), "{r}");
        for f in figs {
            let m = f["median"].as_f64().ok_or("median")?;
            let ok = m.is_finite() && (m > 0.0 || (f["unit"] == "count" && m == 0.0));
            assert!(ok, "{} / {}: {m}", r["name"], f["name"]);
        }
    }
    let svgs: Vec<_> = match std::fs::read_dir(&plots) {
        Ok(d) => d.flatten().collect(),
        Err(_) => Vec::new(),
    };
    // One file per chart of the report; the groups whose figures go on charts (sweeps, launch
    // and array timings) have some, and every sweep of `curves` has its own.
    let expected = cuprite_cli::bench::plot::charts(&v, &[]).len();
    assert_eq!(svgs.len(), expected, "charts written for {filter}");
    if charted && filter == group {
        assert!(!svgs.is_empty(), "no chart from {group}");
    }
    if group == "curves" {
        let least = if filter == group { 2 } else { 1 };
        assert!(svgs.len() >= least, "{} charts", svgs.len());
    }
    for e in svgs {
        let s = std::fs::read_to_string(e.path())?;
        assert!(
            s.starts_with("<svg") && s.contains("<polyline"),
            "{:?}",
            e.path()
        );
    }
    println!("{text}");
    std::fs::remove_dir_all(&dir)?;
    Ok(())
}

/// The graph benchmarks against `benches/peers/torch_graphs.py`'s file: replayed steps judged
/// against torch.cuda.graph replays (lower is better), matched by width and op count.
fn graph_peers_judged() -> TestResult {
    let ours = report(&[
        (
            "graphs/mlp_step",
            vec![
                fig(
                    "4-layer MLP step, width 256, batch 64, replayed ",
                    "µs",
                    30.0,
                    vec![],
                ),
                fig(
                    "4-layer MLP step, width 256, batch 64, eager ",
                    "µs",
                    120.0,
                    vec![],
                ),
            ],
        ),
        (
            "graphs/tiny_ops",
            vec![fig(
                "200 tiny element-wise ops on 4096 f32, replayed ",
                "µs",
                500.0,
                vec![],
            )],
        ),
    ]);
    let peer = same_call(json!({
        "peer": "PyTorch (test)",
        "mlp_step_graph_us": 40.0, "mlp_step_eager_us": 80.0,
        "tiny_ops_graph_us": 400.0, "tiny_ops_eager_us": 1500.0,
        "sizes": {"mlp": 256, "tiny_ops": 200},
    }));
    let rows = judge_peers(&ours, &peer)?;
    let find = |k: &str| {
        rows.iter()
            .find(|r| r.key == k)
            .ok_or(format!("no row {k}"))
    };
    let g = find("mlp_step_graph_us")?;
    assert!((g.ratio.ok_or("ratio")? - 0.75).abs() < 1e-12, "{g:?}");
    assert_eq!(g.met, Some(true));
    // 30 / 80 = 0.375: no slower than PyTorch eager (the 3x target is against cuprite's own
    // eager step, judged in the benchmark).
    let e = find("mlp_step_eager_us")?;
    assert!((e.ratio.ok_or("ratio")? - 0.375).abs() < 1e-12, "{e:?}");
    assert_eq!(e.met, Some(true));
    let t = find("tiny_ops_graph_us")?;
    assert!((t.ratio.ok_or("ratio")? - 1.25).abs() < 1e-12, "{t:?}");
    assert_eq!(t.met, Some(false));
    assert_eq!(rows.len(), 3, "{rows:?}");
    // Every key the rules name is one the script writes.
    // Test binaries run from their package's folder (cargo and scripts/gpu-check.sh alike).
    let script = std::fs::read_to_string("../../benches/peers/torch_graphs.py")?;
    for k in [
        "mlp_step_graph_us",
        "mlp_step_eager_us",
        "tiny_ops_graph_us",
    ] {
        assert!(
            script.contains(&format!("\"{k}\"")),
            "torch_graphs.py writes no {k}"
        );
    }
    Ok(())
}
