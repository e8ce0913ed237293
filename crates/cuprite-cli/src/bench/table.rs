//! The results of a run as a table, Markdown rows and JSON, and the number and time formats
//! they use.

use super::context::BenchCtx;
use super::context::BenchError;
use super::figure::Figure;
use super::figure::fmt_num;
use super::registry::{Benchmark, Outcome};

/// Writes `report` as pretty JSON to `path`.
pub fn write_json(path: &std::path::Path, report: &serde_json::Value) -> Result<(), BenchError> {
    let text = serde_json::to_string_pretty(report)?;
    std::fs::write(path, text + "\n")
        .map_err(|e| format!("cannot write {}: {e}", path.display()))?;
    crate::outln!("JSON report written to {}", path.display());
    Ok(())
}

pub(super) fn print_table(device: &str, outcomes: &[(Benchmark, Outcome)]) {
    let header = [
        "benchmark",
        "figure",
        "median",
        "min",
        "max",
        "unit",
        "reference (same run)",
        "ratio",
        "target",
        "met",
    ];
    let mut rows: Vec<[String; 10]> = Vec::new();
    for (b, o) in outcomes {
        if let Outcome::Ran(figs, _) = o {
            for f in figs {
                rows.push([
                    b.name.to_string(),
                    f.name.clone(),
                    fmt_num(f.median),
                    fmt_num(f.min),
                    fmt_num(f.max),
                    f.unit.clone(),
                    f.ceiling
                        .as_ref()
                        .map(|c| format!("{} {}", fmt_num(c.value), c.name))
                        .unwrap_or_else(|| "-".into()),
                    f.ratio_text(),
                    f.target_text(),
                    f.met_text().into(),
                ]);
            }
        }
    }
    crate::outln!("cuprite bench, {}, on {device}", utc_now());
    crate::outln!(
        "(median, min and max of the samples; ratio = median / reference; time units: lower is better, /s units: higher)"
    );
    let mut width = header.map(|h| h.chars().count());
    for r in &rows {
        for (w, c) in width.iter_mut().zip(r) {
            *w = (*w).max(c.chars().count());
        }
    }
    let line = |cells: &[String]| {
        let parts: Vec<String> = cells
            .iter()
            .zip(width)
            .enumerate()
            .map(|(i, (c, w))| {
                let pad = w.saturating_sub(c.chars().count());
                if (2..5).contains(&i) || i == 7 {
                    format!("{}{c}", " ".repeat(pad))
                } else {
                    format!("{c}{}", " ".repeat(pad))
                }
            })
            .collect();
        crate::outln!("{}", parts.join("  ").trim_end());
    };
    if rows.is_empty() {
        crate::outln!("(no figures)");
    } else {
        line(&header.map(String::from));
        line(&width.map(|w| "-".repeat(w)));
        for r in &rows {
            line(r);
        }
    }
    for (b, o) in outcomes {
        match o {
            Outcome::Skipped(why) => crate::outln!("skipped {}: {why}", b.name),
            Outcome::Failed(e) => crate::outln!("FAILED {}: {e}", b.name),
            Outcome::Ran(..) => {}
        }
    }
}

/// The figures as Markdown table rows (`--markdown`, for notes in `docs/perf-log/`):
/// `| device | date | figure | value | ceiling | ratio | target | met |`.
pub(super) fn markdown_rows(device: &str, outcomes: &[(Benchmark, Outcome)]) -> Vec<String> {
    let date = utc_now();
    let date = date.trim_end_matches(" UTC");
    let mut rows = Vec::new();
    for (b, o) in outcomes {
        let Outcome::Ran(figs, _) = o else { continue };
        for f in figs {
            rows.push(format!(
                "| {device} | {date} | {} (`{}`) | {} {} (min {}, max {}) | {} | {} | {} | {} |",
                f.name,
                b.name,
                fmt_num(f.median),
                f.unit,
                fmt_num(f.min),
                fmt_num(f.max),
                f.ceiling
                    .as_ref()
                    .map(|c| format!("{} {} ({})", fmt_num(c.value), f.unit, c.name))
                    .unwrap_or_else(|| "-".into()),
                f.ratio_text(),
                f.target_text(),
                f.met_text(),
            ));
        }
    }
    rows
}

pub(super) fn json_report(
    device: &str,
    ctx: &BenchCtx,
    outcomes: &[(Benchmark, Outcome)],
) -> serde_json::Value {
    let results: Vec<serde_json::Value> = outcomes
        .iter()
        .map(|(b, o)| {
            let mut v = serde_json::json!({
                "name": b.name,
                "group": b.group,
                "needs_gpu": b.needs_gpu,
            });
            match o {
                Outcome::Ran(figs, took) => {
                    v["status"] = "ran".into();
                    v["seconds"] = took.as_secs_f64().into();
                    v["figures"] = figs.iter().map(Figure::to_json).collect();
                }
                Outcome::Skipped(why) => {
                    v["status"] = "skipped".into();
                    v["reason"] = why.clone().into();
                }
                Outcome::Failed(e) => {
                    v["status"] = "failed".into();
                    v["error"] = e.clone().into();
                }
            }
            v
        })
        .collect();
    serde_json::json!({
        "tool": "cuprite bench",
        "version": env!("CARGO_PKG_VERSION"),
        "date": utc_now(),
        "device": device,
        "driver": cuprite_driver::driver_version().ok().map(|(a, b)| format!("{a}.{b}")),
        "warmup": ctx.warmup,
        "repeats": ctx.repeats,
        "quick": ctx.quick,
        "results": results,
    })
}

/// The current UTC time as `YYYY-MM-DD HH:MM UTC`.
pub fn utc_now() -> String {
    let secs = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs());
    let (y, m, d) = civil_from_days((secs / 86_400) as i64);
    let rem = secs % 86_400;
    format!(
        "{y:04}-{m:02}-{d:02} {:02}:{:02} UTC",
        rem / 3600,
        rem % 3600 / 60
    )
}

/// Days since 1970-01-01 to a (year, month, day) of the proleptic Gregorian calendar.
fn civil_from_days(z: i64) -> (i64, u32, u32) {
    let z = z + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let m = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    let y = yoe + era * 400 + i64::from(m <= 2);
    (y, m, d)
}
