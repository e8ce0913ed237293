//! The benchmark harness: its statistics and judgement, and `cuprite bench` as a user runs it.

use crate::cuprite_bin;
use cuprite_cli::bench::{BenchCtx, Figure, Samples, Target, TimeUnit, all, utc_now};
use cuprite_testkit::temp_dir as empty_dir;
use cuprite_testkit::{Rng, Test, TestResult};
use std::process::Command;

pub fn tests() -> Vec<Test> {
    vec![
        Test::cpu("bench::samples_statistics", samples_statistics),
        Test::cpu(
            "bench::figures_ratio_and_targets",
            figures_ratio_and_targets,
        ),
        Test::cpu("bench::registry_names_unique", registry_names_unique),
        Test::cpu("bench::host_timing_helpers", host_timing_helpers),
        Test::cpu("bench::date_format", date_format),
        Test::cpu("bench::without_gpu_runs_cpu_and_skips_gpu", without_gpu),
        Test::gpu("bench::device_copy_ceiling", device_copy_ceiling),
    ]
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

fn without_gpu() -> TestResult {
    let dir = empty_dir("bench");
    let json = dir.join("out.json");
    let out = Command::new(cuprite_bin()?)
        .args(["bench", "--quick", "ceiling", "--json"])
        .arg(&json)
        .env("CUPRITE_CUDA_PATH", &dir)
        .output()?;
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
    // A filter selects: only the host benchmark runs, nothing is skipped.
    let out = Command::new(cuprite_bin()?)
        .args(["bench", "--quick", "host"])
        .env("CUPRITE_CUDA_PATH", &dir)
        .output()?;
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
        .output()?;
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("ceiling/host_copy"));
    std::fs::remove_dir_all(&dir)?;
    Ok(())
}

fn device_copy_ceiling() -> TestResult {
    let mut ctx = BenchCtx::new(1, 5, true);
    let c = ctx.device_copy_ceiling()?;
    // Any CUDA GPU copies faster than 50 GB/s and slower than 20 TB/s.
    assert!(c.value > 0.05 && c.value < 20.0, "{c:?}");
    // Measured once per run: asking again returns the same value.
    assert_eq!(ctx.device_copy_ceiling()?.value, c.value);
    println!("device copy ceiling (quick): {:.3} TB/s", c.value);
    Ok(())
}
