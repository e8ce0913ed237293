//! `cuprite bench-report`: the headline table of docs/PERFORMANCE.md, from a small report.

use crate::cuprite_bin;
use cuprite_cli::bench::headline::{
    BEGIN_MARKER, END_MARKER, markdown, merged_markdown, replace_between_markers, rows,
};
use cuprite_testkit::temp_dir as empty_dir;
use cuprite_testkit::{Test, TestResult};
use serde_json::Value;
use std::process::Command;

/// A report as `cuprite bench --json --peers` writes it: a rate, a host time, a row not judged
/// (no cuprite figure) and a second peer file's time row whose description holds a `|`.
const FIXTURE: &str = include_str!("data/headline_report.json");

pub fn tests() -> Vec<Test> {
    vec![
        Test::cpu("headline::rows_and_ratios", rows_and_ratios),
        Test::cpu("headline::markdown_table", markdown_table),
        Test::cpu("headline::markers", markers),
        Test::cpu("headline::merge_keeps_other_rows", merge_keeps_other_rows),
        Test::cpu("headline::command_rewrites_file", command_rewrites_file),
        Test::cpu(
            "headline::workload_peers_to_headline",
            workload_peers_to_headline,
        ),
        Test::cpu(
            "headline::workload_rows_from_a_saved_report",
            workload_rows_from_a_saved_report,
        ),
    ]
}

fn fixture() -> Result<Value, serde_json::Error> {
    serde_json::from_str(FIXTURE)
}

fn rows_and_ratios() -> TestResult {
    let r = rows(&fixture()?)?;
    let names: Vec<&str> = r.iter().map(|r| r.figure.as_str()).collect();
    assert_eq!(
        names,
        [
            "fused 8-op chain vs torch.compile",
            "small op host time, Rust call vs Python dispatch (torch eager s + 1)",
            "sort 2^26 f32 with indices | torch.sort",
        ],
        "the row without a cuprite figure is left out, the order kept"
    );
    // Higher is better for cuprite: a rate divides ours by theirs, a time theirs by ours.
    let expect = [4.359 / 4.183, 12.0 / 4.5, 3.479 / 2.907];
    for (row, want) in r.iter().zip(expect) {
        assert!(
            (row.ratio - want).abs() < 1e-12,
            "{}: {} != {want}",
            row.figure,
            row.ratio
        );
        assert_eq!(row.device, "NVIDIA H200");
        assert_eq!(row.date, "2026-11-29", "the date without the time");
        assert_eq!(row.peer_name, "PyTorch 2.11.0");
    }
    let mut no_peers = fixture()?;
    no_peers
        .as_object_mut()
        .ok_or("the fixture is an object")?
        .remove("peers");
    let e = rows(&no_peers).expect_err("a report without peers has no headline");
    assert!(e.to_string().contains("--peers"), "{e}");
    Ok(())
}

fn markdown_table() -> TestResult {
    let t = markdown(&rows(&fixture()?)?);
    let lines: Vec<&str> = t.lines().collect();
    assert_eq!(lines.len(), 2 + 3, "{t}");
    assert_eq!(
        lines[0],
        "| figure | cuprite | peer | ratio (higher is better) | device | date |"
    );
    assert_eq!(
        lines[2],
        concat!(
            "| fused 8-op chain vs torch.compile | 4.359 TB/s | PyTorch 2.11.0 4.183 TB/s ",
            "| 1.042× | NVIDIA H200 | 2026-11-29 |"
        )
    );
    // 12 / 4.5 = 2.667; the `|` of a description is escaped so the row keeps six cells.
    assert!(
        lines[3].contains("| 4.500 µs | PyTorch 2.11.0 12.00 µs | 2.667× |"),
        "{t}"
    );
    assert!(
        lines[4].starts_with("| sort 2^26 f32 with indices \\| torch.sort | 2.907 ms |"),
        "{t}"
    );
    assert!(lines[4].contains("| 1.197× |"), "{t}");
    Ok(())
}

fn markers() -> TestResult {
    let doc = format!("# Title\n\nintro\n{BEGIN_MARKER}\n| old | table |\n{END_MARKER}\n\nrest\n");
    let new = replace_between_markers(&doc, "| new |\n")?;
    assert_eq!(
        new,
        format!("# Title\n\nintro\n{BEGIN_MARKER}\n| new |\n{END_MARKER}\n\nrest\n")
    );
    // Idempotent: a second write of the same table changes nothing.
    assert_eq!(replace_between_markers(&new, "| new |\n")?, new);
    for bad in [
        "no markers".to_string(),
        format!("{BEGIN_MARKER}\nonly the start"),
        format!("{END_MARKER}\n{BEGIN_MARKER}\n"),
        format!("{BEGIN_MARKER}\n{END_MARKER}\n{BEGIN_MARKER}\n{END_MARKER}\n"),
    ] {
        assert!(replace_between_markers(&bad, "| x |").is_err(), "{bad:?}");
    }
    Ok(())
}

/// A merge replaces the rows the reports measure in place, keeps the others byte for byte,
/// and appends the new ones.
fn merge_keeps_other_rows() -> TestResult {
    let new = rows(&fixture()?)?;
    let kept =
        "| gemm 8192³ vs torch | 1.000 TFLOP/s | PyTorch 1.000 TFLOP/s | 1.000× | X | 2026-11-01 |";
    let stale = "| fused 8-op chain vs torch.compile | 1.000 TB/s | PyTorch 9.000 TB/s | 0.111× | X | 2026-11-01 |";
    let escaped = "| sort 2^26 f32 with indices \\| torch.sort | 9.000 ms | PyTorch 1.000 ms | 0.111× | X | 2026-11-01 |";
    let doc = format!(
        "intro\n{BEGIN_MARKER}\n| figure | cuprite | peer | ratio (higher is better) | device | date |\n|---|---|---|---|---|---|\n{stale}\n{kept}\n{escaped}\n{END_MARKER}\nrest\n"
    );
    let t = merged_markdown(&doc, &new)?;
    let lines: Vec<&str> = t.lines().collect();
    let fresh = markdown(&new);
    let fresh: Vec<&str> = fresh.lines().collect();
    // Header, the replaced first row, the kept row, the replaced escaped row, then the one
    // row of the reports that the old table did not have.
    assert_eq!(lines.len(), 2 + 4, "{t}");
    assert_eq!(lines[..2], fresh[..2]);
    assert_eq!(lines[2], fresh[2], "replaced in place");
    assert_eq!(lines[3], kept, "kept as it was");
    assert_eq!(lines[4], fresh[4], "a figure with an escaped | is matched");
    assert_eq!(lines[5], fresh[3], "the new row follows");
    assert!(merged_markdown("no markers", &new).is_err());
    Ok(())
}

fn command_rewrites_file() -> TestResult {
    let dir = empty_dir("headline");
    let report = dir.join("report.json");
    let doc = dir.join("PERFORMANCE.md");
    std::fs::write(&report, FIXTURE)?;
    std::fs::write(
        &doc,
        format!("before\n{BEGIN_MARKER}\nstale\n{END_MARKER}\nafter\n"),
    )?;
    let out = Command::new(cuprite_bin()?)
        .args(["bench-report"])
        .arg(&report)
        .arg("--markdown")
        .arg(&doc)
        .output()?;
    assert!(out.status.success(), "{out:?}");
    let written = std::fs::read_to_string(&doc)?;
    assert!(!written.contains("stale"), "{written}");
    assert!(written.starts_with(&format!("before\n{BEGIN_MARKER}\n| figure |")));
    assert!(written.ends_with(&format!("{END_MARKER}\nafter\n")));
    assert!(written.contains("| 1.042× | NVIDIA H200 | 2026-11-29 |"));
    // Several reports (one per benchmark group): every row of each, in the order given, each
    // with its own report's date.
    let second = dir.join("second.json");
    std::fs::write(&second, FIXTURE.replace("2026-11-29", "2026-12-02"))?;
    let out = Command::new(cuprite_bin()?)
        .args(["bench-report"])
        .arg(&report)
        .arg(&second)
        .arg("--markdown")
        .arg(&doc)
        .output()?;
    assert!(out.status.success(), "{out:?}");
    let both = std::fs::read_to_string(&doc)?;
    let rows_of = |d: &str| {
        both.lines()
            .filter(|l| l.ends_with(&format!("| {d} |")))
            .count()
    };
    let first_rows = written
        .lines()
        .filter(|l| l.ends_with("| 2026-11-29 |"))
        .count();
    assert!(first_rows > 0, "{written}");
    assert_eq!(
        (rows_of("2026-11-29"), rows_of("2026-12-02")),
        (first_rows, first_rows)
    );
    assert!(both.find("2026-11-29").unwrap_or(usize::MAX) < both.find("2026-12-02").unwrap_or(0));
    // A file without the markers is an error that names the file, and is left unchanged.
    std::fs::write(&doc, "no markers\n")?;
    let out = Command::new(cuprite_bin()?)
        .args(["bench-report"])
        .arg(&report)
        .arg("--markdown")
        .arg(&doc)
        .output()?;
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("PERFORMANCE.md") && err.contains("marker"),
        "{err}"
    );
    assert_eq!(std::fs::read_to_string(&doc)?, "no markers\n");
    let _ = std::fs::remove_dir_all(&dir);
    Ok(())
}

/// The workload benchmarks' peer rules, through to the headline: a report as
/// `cuprite bench workloads --json` writes it, judged against a `torch_workloads.py` file.
fn workload_peers_to_headline() -> TestResult {
    let n = 1u64 << 24;
    let id = serde_json::json!({
        "device": "GPU", "device_uuid": "GPU-0123", "driver": "13.0", "quick": false
    });
    let report = serde_json::json!({
        "device": id["device"], "device_uuid": id["device_uuid"], "driver": id["driver"],
        "quick": id["quick"], "date": "2026-12-01 12:00 UTC",
        "results": [{"name": "workloads/black_scholes", "status": "ran", "figures": [
            {"name": format!("black_scholes of {n} options "), "unit": "ms", "median": 2.0}
        ]}]
    });
    let peer = serde_json::json!({
        "device": id["device"], "device_uuid": id["device_uuid"], "driver": id["driver"],
        "quick": id["quick"], "torch": "9.0", "cuda": "13.0",
        "peer": "PyTorch 9", "black_scholes_compile_ms": 2.5, "black_scholes_eager_ms": 10.0,
        "kmeans_eager_ms": 3.0, "sizes": {"black_scholes": n, "kmeans": 1u64 << 22}
    });
    let judged = cuprite_cli::bench::report::judge_peers(&report, &peer)?;
    let row = |key: &str| {
        judged
            .iter()
            .find(|r| r.key == key)
            .ok_or(format!("no row {key}"))
    };
    let compile = row("black_scholes_compile_ms")?;
    assert_eq!((compile.ratio, compile.met), (Some(0.8), Some(true)));
    let eager = row("black_scholes_eager_ms")?;
    assert_eq!((eager.ratio, eager.met), (Some(0.2), Some(true)));
    assert_eq!(row("kmeans_eager_ms")?.ratio, None, "kmeans did not run");
    let mut with_peers = report.clone();
    with_peers["peers"] = serde_json::json!([{"peer": "PyTorch 9", "rows": judged.iter().map(|r| {
        serde_json::json!({"what": r.what, "cuprite": r.cuprite, "peer": r.peer, "unit": r.unit})
    }).collect::<Vec<_>>()}]);
    let rows = rows(&with_peers)?;
    let ratios: Vec<f64> = rows.iter().map(|r| r.ratio).collect();
    // Higher is better: PyTorch's time over cuprite's.
    assert_eq!(ratios, [2.5 / 2.0, 10.0 / 2.0]);
    Ok(())
}

/// The documented way to the headline table, through the binary: `cuprite bench --from R
/// --peers P --json R` writes the judged peers back into the saved report R, and
/// `cuprite bench-report R --markdown DOC` then writes the workload rows (named as the
/// `workloads/mlp_train`, `workloads/nbody` and `workloads/image_pipeline` benchmarks name
/// their figures) into DOC.
fn workload_rows_from_a_saved_report() -> TestResult {
    use cuprite_cli::bench::workloads::{image_pipeline_figure, mlp_train_figure, nbody_figure};
    let dir = empty_dir("headlineworkloads");
    let id = serde_json::json!({
        "device": "GPU", "device_uuid": "GPU-00ff", "driver": "13.0", "quick": false
    });
    let fig = |name: String, median: f64| serde_json::json!({"name": format!("{name} "), "unit": "ms", "median": median});
    let report = serde_json::json!({
        "device": id["device"], "device_uuid": id["device_uuid"], "driver": id["driver"],
        "quick": id["quick"], "date": "2026-12-02 01:00 UTC",
        "results": [
            {"name": "workloads/mlp_train", "status": "ran",
             "figures": [fig(mlp_train_figure(4096), 0.4)]},
            {"name": "workloads/nbody", "status": "ran",
             "figures": [fig(nbody_figure(16_384), 0.5)]},
            {"name": "workloads/image_pipeline", "status": "ran",
             "figures": [fig(image_pipeline_figure(4096, 256), 2.0)]}
        ]
    });
    let peer = serde_json::json!({
        "device": id["device"], "device_uuid": id["device_uuid"], "driver": id["driver"],
        "quick": id["quick"], "torch": "9.0", "cuda": "13.0", "peer": "PyTorch 9",
        "mlp_train_compile_ms": 0.5, "mlp_train_eager_ms": 0.6,
        "nbody_compile_ms": 0.4, "nbody_eager_ms": 8.0,
        "image_pipeline_compile_ms": 4.0, "image_pipeline_eager_ms": 10.0,
        "image_pipeline_stages_eager_ms": {"hysteresis": 1.0},
        "sizes": {"mlp_train": "batch 4096, 1024-4096-1024", "nbody": 16_384,
                  "image_pipeline": 4096}
    });
    let (report_p, peer_p, doc_p) = (
        dir.join("report.json"),
        dir.join("peer.json"),
        dir.join("PERFORMANCE.md"),
    );
    std::fs::write(&report_p, report.to_string())?;
    std::fs::write(&peer_p, peer.to_string())?;
    std::fs::write(
        &doc_p,
        format!("intro\n{BEGIN_MARKER}\nold\n{END_MARKER}\nmethod\n"),
    )?;
    let out = Command::new(cuprite_bin()?)
        .args(["bench", "--from"])
        .arg(&report_p)
        .arg("--peers")
        .arg(&peer_p)
        .arg("--json")
        .arg(&report_p)
        .output()?;
    assert!(out.status.success(), "{out:?}");
    let saved: Value = serde_json::from_str(&std::fs::read_to_string(&report_p)?)?;
    assert!(
        saved["peers"].is_array(),
        "the judged peers are written back into the saved report: {saved}"
    );
    let out = Command::new(cuprite_bin()?)
        .arg("bench-report")
        .arg(&report_p)
        .arg("--markdown")
        .arg(&doc_p)
        .output()?;
    assert!(out.status.success(), "{out:?}");
    let doc = std::fs::read_to_string(&doc_p)?;
    assert!(doc.starts_with("intro\n") && doc.ends_with(&format!("{END_MARKER}\nmethod\n")));
    assert!(!doc.contains("\nold\n"), "{doc}");
    // Higher is better: PyTorch's time over cuprite's, one row per peer rule.
    for (what, ratio) in [
        (
            "mlp_train step (batch 4096, 1024-4096-1024 bf16) vs torch.compile",
            "1.250×",
        ),
        (
            "mlp_train step (batch 4096, 1024-4096-1024 bf16) vs PyTorch eager",
            "1.500×",
        ),
        ("nbody step (16384 bodies, f32) vs torch.compile", "0.800×"),
        ("nbody step (16384 bodies, f32) vs PyTorch eager", "16.000×"),
        (
            "image_pipeline (4096² f32, 256 discs; labels: cuprite union-find, PyTorch \
             max_pool2d propagation) vs torch.compile",
            "2.000×",
        ),
        (
            "image_pipeline (4096² f32, 256 discs; labels: cuprite union-find, PyTorch \
             max_pool2d propagation) vs PyTorch eager",
            "5.000×",
        ),
    ] {
        let line = doc
            .lines()
            .find(|l| l.starts_with(&format!("| {what} |")))
            .ok_or(format!("no row {what:?} in {doc}"))?;
        assert!(
            line.contains(&format!("| {ratio} | GPU | 2026-12-02 |")),
            "{line}"
        );
    }
    let _ = std::fs::remove_dir_all(&dir);
    Ok(())
}
