//! What `cuprite bench` does with a JSON report after a run (or on a saved one, `--from`):
//! judging a peer library's figures (`--peers`), writing the JSON (`--json`), drawing the
//! charts (`--plot`, see [`super::plot`]) and comparing with a saved run (`--compare`).
//!
//! Every ratio printed here is computed here, from the figures' medians: nothing is typed in
//! by hand. Peer figures are matched to cuprite's by the rules of [`PEER_RULES`].

use super::context::BenchError;
use super::figure::{Target, fmt_num, unit_higher_is_better};
use super::registry::RunOptions;
use serde_json::Value;
use std::path::Path;

/// Reads a JSON file (a report of `cuprite bench --json`, or a peer file).
pub fn load(path: &Path) -> Result<Value, BenchError> {
    let text = std::fs::read_to_string(path)
        .map_err(|e| format!("cannot read {}: {e}", path.display()))?;
    serde_json::from_str(&text).map_err(|e| format!("{} is not JSON: {e}", path.display()).into())
}

/// `device, date, N figures` of a report.
pub fn describe(report: &Value) -> String {
    format!(
        "{}, {}, {} figures",
        report["device"].as_str().unwrap_or("unknown device"),
        report["date"].as_str().unwrap_or("unknown date"),
        figures(report).len()
    )
}

/// One figure of a report: the benchmark it belongs to, and its JSON.
#[derive(Clone, Debug)]
pub struct ReportFigure<'a> {
    /// The benchmark's name, e.g. `array/sum`.
    pub benchmark: &'a str,
    /// The figure's name.
    pub name: &'a str,
    /// Its unit.
    pub unit: &'a str,
    /// Its median.
    pub median: f64,
}

/// Every figure of the benchmarks that ran, in report order.
pub fn figures(report: &Value) -> Vec<ReportFigure<'_>> {
    let mut out = Vec::new();
    for r in report["results"]
        .as_array()
        .map(Vec::as_slice)
        .unwrap_or(&[])
    {
        if r["status"] != "ran" {
            continue;
        }
        let benchmark = r["name"].as_str().unwrap_or("");
        for f in r["figures"].as_array().map(Vec::as_slice).unwrap_or(&[]) {
            if let (Some(name), Some(median)) = (f["name"].as_str(), f["median"].as_f64()) {
                out.push(ReportFigure {
                    benchmark,
                    name,
                    unit: f["unit"].as_str().unwrap_or(""),
                    median,
                });
            }
        }
    }
    out
}

/// How a figure moved against a saved run.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Verdict {
    /// Better by more than the threshold.
    Better,
    /// Within the threshold.
    Same,
    /// Worse by more than the threshold: a regression.
    Regression,
    /// Only in the new run.
    New,
    /// Only in the saved run.
    Missing,
}

/// One row of `--compare`.
#[derive(Clone, Debug, PartialEq)]
pub struct CompareRow {
    /// The benchmark.
    pub benchmark: String,
    /// The figure.
    pub figure: String,
    /// The unit of both medians.
    pub unit: String,
    /// The saved run's median.
    pub old: Option<f64>,
    /// This run's median.
    pub new: Option<f64>,
    /// `new / old`.
    pub ratio: Option<f64>,
    /// What the ratio means, given the unit's direction and the threshold.
    pub verdict: Verdict,
}

/// Compares every figure of `new` with the figure of the same benchmark and name in `old`.
/// A rate (`.../s`) regresses when `new/old < 1 - threshold`; a time or count when
/// `new/old > 1 + threshold`. Figures whose units differ between the runs are compared as
/// missing and new.
pub fn compare(old: &Value, new: &Value, threshold: f64) -> Vec<CompareRow> {
    let old_figs = figures(old);
    let mut used = vec![false; old_figs.len()];
    let mut rows = Vec::new();
    for f in figures(new) {
        let found = old_figs.iter().enumerate().find(|(i, o)| {
            !used[*i] && o.benchmark == f.benchmark && o.name == f.name && o.unit == f.unit
        });
        let (old_median, ratio, verdict) = match found {
            Some((i, o)) => {
                used[i] = true;
                let ratio = if o.median != 0.0 {
                    Some(f.median / o.median)
                } else if f.median == 0.0 {
                    Some(1.0)
                } else {
                    None
                };
                let verdict = match ratio {
                    Some(r) => judge(r, unit_higher_is_better(f.unit), threshold),
                    // From zero to something: only a count or time can do that, and it is worse.
                    None => Verdict::Regression,
                };
                (Some(o.median), ratio, verdict)
            }
            None => (None, None, Verdict::New),
        };
        rows.push(CompareRow {
            benchmark: f.benchmark.to_string(),
            figure: f.name.to_string(),
            unit: f.unit.to_string(),
            old: old_median,
            new: Some(f.median),
            ratio,
            verdict,
        });
    }
    for (i, o) in old_figs.iter().enumerate() {
        if !used[i] {
            rows.push(CompareRow {
                benchmark: o.benchmark.to_string(),
                figure: o.name.to_string(),
                unit: o.unit.to_string(),
                old: Some(o.median),
                new: None,
                ratio: None,
                verdict: Verdict::Missing,
            });
        }
    }
    rows
}

fn judge(ratio: f64, higher_is_better: bool, threshold: f64) -> Verdict {
    let gain = if higher_is_better {
        ratio - 1.0
    } else {
        1.0 / ratio - 1.0
    };
    // Symmetric in the direction that matters: 10% slower is 1/1.1 of the speed.
    let loss = if higher_is_better {
        1.0 - ratio
    } else {
        ratio - 1.0
    };
    if loss > threshold {
        Verdict::Regression
    } else if gain > threshold {
        Verdict::Better
    } else {
        Verdict::Same
    }
}

/// How a peer library's figure is matched to cuprite's and judged.
#[derive(Clone, Copy, Debug)]
pub struct PeerRule {
    /// The peer script whose files hold this key: a file is judged against the rules of the
    /// scripts it has at least one key of.
    pub script: &'static str,
    /// The key of the figure in the peer file's `figures`.
    pub key: &'static str,
    /// What is compared, for the table.
    pub what: &'static str,
    /// The cuprite benchmark holding the figure.
    pub benchmark: &'static str,
    /// The start of the cuprite figure's name.
    pub figure: &'static str,
    /// The unit both are in.
    pub unit: &'static str,
    /// The key of the problem size in the peer file's `sizes`: the cuprite figure's name must
    /// contain the same number, or the pair is not judged.
    pub size: Option<&'static str>,
    /// The target for `cuprite / peer`.
    pub target: Target,
}

/// The peer comparisons `--peers` judges: PyTorch's `benches/peers/torch_array.py`,
/// `benches/peers/torch_fft.py` and `benches/peers/torch_index.py` (a peer file holds the keys of one of them; the others' rows
/// are reported as not judged).
pub const PEER_RULES: &[PeerRule] = &[
    PeerRule {
        script: "torch_array.py",
        key: "chain_compile_TBps",
        what: "fused 8-op chain vs torch.compile",
        benchmark: "array/fused_chain",
        figure: "fused 8-op chain",
        unit: "TB/s",
        size: Some("chain"),
        target: Target::RatioAtLeast(1.0),
    },
    PeerRule {
        script: "torch_array.py",
        key: "chain_eager_TBps",
        what: "fused 8-op chain vs PyTorch eager",
        benchmark: "array/fused_chain",
        figure: "fused 8-op chain",
        unit: "TB/s",
        size: Some("chain"),
        target: Target::RatioAtLeast(3.0),
    },
    PeerRule {
        script: "torch_array.py",
        key: "sum_TBps",
        what: "sum vs torch.sum",
        benchmark: "array/sum",
        figure: "sum of ",
        unit: "TB/s",
        size: Some("sum"),
        target: Target::RatioAtLeast(1.0),
    },
    PeerRule {
        script: "torch_array.py",
        key: "dot_TBps",
        what: "fused sum(a*b) vs torch.dot",
        benchmark: "array/sum",
        figure: "fused sum(a*b)",
        unit: "TB/s",
        size: Some("dot"),
        target: Target::RatioAtLeast(1.0),
    },
    PeerRule {
        script: "torch_array.py",
        key: "small_op_host_us",
        what: "small op host time, Rust call vs Python dispatch (torch eager s + 1)",
        benchmark: "array/small_op_host",
        figure: "host time of one small op",
        unit: "µs",
        size: None,
        target: Target::RatioAtMost(1.0),
    },
    PeerRule {
        script: "torch_fft.py",
        key: "fft_c64_2p24_best_ms",
        what: "C2C FFT vs torch.fft.fft (faster of plain and out=)",
        benchmark: "fft/c2c_2p24",
        figure: "FFT of ",
        unit: "ms",
        size: Some("fft"),
        target: Target::RatioAtMost(1.0),
    },
    PeerRule {
        script: "torch_fft.py",
        key: "rfft_f32_1024x4096_best_ms",
        what: "batched R2C FFT vs torch.fft.rfft (faster of plain and out=)",
        benchmark: "fft/rfft_batched",
        figure: "batched rfft of ",
        unit: "ms",
        size: Some("rfft_rows"),
        target: Target::RatioAtMost(1.0),
    },
    PeerRule {
        script: "torch_fft.py",
        key: "fft2_c64_4096sq_best_ms",
        what: "2-D C2C FFT vs torch.fft.fft2 (faster of plain and out=)",
        benchmark: "fft/fft2_4096",
        figure: "fft2 of ",
        unit: "ms",
        size: Some("fft2"),
        target: Target::RatioAtMost(1.0),
    },
    PeerRule {
        script: "torch_fft.py",
        key: "small_fft_host_us",
        what: "small FFT host time, Rust call vs Python dispatch (torch.fft.fft of 256)",
        benchmark: "fft/host_per_call",
        figure: "host time per small FFT",
        unit: "µs",
        size: None,
        target: Target::RatioAtMost(1.0),
    },
    PeerRule {
        script: "torch_scan.py",
        key: "cumsum_f32_ms",
        what: "cumsum vs torch.cumsum",
        benchmark: "scan/cumsum",
        figure: "cumsum time of",
        unit: "ms",
        size: Some("cumsum"),
        target: Target::RatioAtMost(1.0),
    },
    PeerRule {
        script: "torch_scan.py",
        key: "nonzero_ms",
        what: "nonzero (argwhere) vs torch.nonzero",
        benchmark: "scan/compact",
        figure: "nonzero (argwhere) of",
        unit: "ms",
        size: Some("nonzero"),
        target: Target::RatioAtMost(1.0),
    },
    PeerRule {
        script: "torch_scan.py",
        key: "masked_select_ms",
        what: "masked_select vs torch.masked_select",
        benchmark: "scan/compact",
        figure: "masked_select of",
        unit: "ms",
        size: Some("masked_select"),
        target: Target::RatioAtMost(1.0),
    },
    PeerRule {
        script: "torch_scan.py",
        key: "searchsorted_ms",
        what: "searchsorted vs torch.searchsorted",
        benchmark: "scan/searchsorted",
        figure: "searchsorted of",
        unit: "ms",
        size: Some("searchsorted"),
        target: Target::RatioAtMost(1.0),
    },
    PeerRule {
        script: "torch_rows.py",
        key: "softmax_f32_TBps",
        what: "softmax f32 16384 × 4096 vs torch",
        benchmark: "rowops/softmax",
        figure: "softmax f32 ",
        unit: "TB/s",
        size: Some("rows"),
        target: Target::RatioAtLeast(1.0),
    },
    PeerRule {
        script: "torch_rows.py",
        key: "softmax_bf16_TBps",
        what: "softmax bf16 16384 × 4096 vs torch",
        benchmark: "rowops/softmax",
        figure: "softmax bf16 ",
        unit: "TB/s",
        size: Some("rows"),
        target: Target::RatioAtLeast(1.0),
    },
    PeerRule {
        script: "torch_rows.py",
        key: "layer_norm_f32_TBps",
        what: "layer_norm f32 16384 × 4096 vs torch",
        benchmark: "rowops/layer_norm",
        figure: "layer_norm f32 ",
        unit: "TB/s",
        size: Some("rows"),
        target: Target::RatioAtLeast(1.0),
    },
    PeerRule {
        script: "torch_rows.py",
        key: "layer_norm_bf16_TBps",
        what: "layer_norm bf16 16384 × 4096 vs torch",
        benchmark: "rowops/layer_norm",
        figure: "layer_norm bf16 ",
        unit: "TB/s",
        size: Some("rows"),
        target: Target::RatioAtLeast(1.0),
    },
    PeerRule {
        script: "torch_rows.py",
        key: "logsumexp_f32_TBps",
        what: "logsumexp f32 16384 × 4096 vs torch",
        benchmark: "rowops/logsumexp",
        figure: "logsumexp f32 ",
        unit: "TB/s",
        size: Some("rows"),
        target: Target::RatioAtLeast(1.0),
    },
    PeerRule {
        script: "torch_rows.py",
        key: "logsumexp_bf16_TBps",
        what: "logsumexp bf16 16384 × 4096 vs torch",
        benchmark: "rowops/logsumexp",
        figure: "logsumexp bf16 ",
        unit: "TB/s",
        size: Some("rows"),
        target: Target::RatioAtLeast(1.0),
    },
    PeerRule {
        script: "torch_rows.py",
        key: "softmax_masked_f32_TBps",
        what: "softmax(x * scale + mask) f32 vs torch eager",
        benchmark: "rowops/softmax",
        figure: "softmax(x * scale + mask) f32",
        unit: "TB/s",
        size: Some("rows"),
        target: Target::RatioAtLeast(1.0),
    },
    PeerRule {
        script: "torch_stats.py",
        key: "histc_256_ms",
        what: "256-bin histogram of 2^26 f32 vs torch.histc",
        benchmark: "stats/histogram",
        figure: "histogram of ",
        unit: "ms",
        size: Some("histogram"),
        target: Target::RatioAtMost(1.0),
    },
    PeerRule {
        script: "torch_stats.py",
        key: "cov_1024x65536_ms",
        what: "cov of 1024 × 65536 f32 vs torch.cov",
        benchmark: "stats/cov",
        figure: "cov of ",
        unit: "ms",
        size: Some("cov"),
        target: Target::RatioAtMost(1.0),
    },
    PeerRule {
        script: "torch_index.py",
        key: "gather_f32_2p26_ms",
        what: "gather of 2^26 f32 at randint indices vs x[idx] (checked mode; range known)",
        benchmark: "index/gather",
        figure: "gather of ",
        unit: "ms",
        size: Some("gather"),
        target: Target::RatioAtMost(1.0),
    },
    PeerRule {
        script: "torch_index.py",
        key: "gather_f32_2p26_ms",
        what: "gather of 2^26 f32 at uploaded indices vs x[idx] (checked in the kernel)",
        benchmark: "index/gather",
        figure: "gather (index range unknown) of ",
        unit: "ms",
        size: Some("gather"),
        target: Target::RatioAtMost(1.0),
    },
    PeerRule {
        script: "torch_index.py",
        key: "index_add_f32_2p26_into_2p20_ms",
        what: "index_add of 2^26 f32 into 2^20 vs index_add_ (atomic, checked indices)",
        benchmark: "index/index_add",
        figure: "index_add of ",
        unit: "ms",
        size: Some("index_add"),
        target: Target::RatioAtMost(1.0),
    },
    PeerRule {
        script: "torch_sort.py",
        key: "sort_f32_2p26_with_indices_ms",
        what: "sort f32 with indices vs torch.sort",
        benchmark: "sort/f32_2^26_with_indices",
        figure: "sort ",
        unit: "ms",
        size: Some("sort"),
        target: Target::RatioAtMost(1.0),
    },
    PeerRule {
        script: "torch_sort.py",
        key: "sort_i32_2p26_with_indices_ms",
        what: "sort i32 with indices vs torch.sort",
        benchmark: "sort/i32_2^26_with_indices",
        figure: "sort ",
        unit: "ms",
        size: Some("sort"),
        target: Target::RatioAtMost(1.0),
    },
    PeerRule {
        script: "torch_sort.py",
        key: "sort_rows_4096x4096_f32_ms",
        what: "row sort 4096 × 4096 f32 vs torch.sort(dim=-1)",
        benchmark: "sort/rows_4096x4096_f32",
        figure: "sort ",
        unit: "ms",
        size: Some("rows"),
        target: Target::RatioAtMost(1.0),
    },
    PeerRule {
        script: "torch_sort.py",
        key: "topk_64_of_2p26_f32_ms",
        what: "topk 64 vs torch.topk",
        benchmark: "sort/topk_64_of_2^26_f32",
        figure: "topk 64 of",
        unit: "ms",
        size: Some("sort"),
        target: Target::RatioAtMost(1.0),
    },
    PeerRule {
        script: "torch_sort.py",
        key: "median_2p26_f32_ms",
        what: "median vs torch.median",
        benchmark: "sort/median_2^26_f32",
        figure: "median of",
        unit: "ms",
        size: Some("sort"),
        target: Target::RatioAtMost(1.0),
    },
    PeerRule {
        script: "torch_sort.py",
        key: "unique_2p24_i64_ms",
        what: "unique values vs torch.unique",
        benchmark: "sort/unique_2^24_i64",
        figure: "unique values of",
        unit: "ms",
        size: Some("unique"),
        target: Target::RatioAtMost(1.0),
    },
    PeerRule {
        script: "torch_sort.py",
        key: "unique_2p24_i64_inverse_counts_ms",
        what: "unique (inverse, counts) vs torch.unique",
        benchmark: "sort/unique_2^24_i64",
        figure: "unique of",
        unit: "ms",
        size: Some("unique"),
        target: Target::RatioAtMost(1.0),
    },
    PeerRule {
        script: "torch_numpy.py",
        key: "isin_2p24_in_2p16_ms",
        what: "isin vs torch.isin",
        benchmark: "numpy/isin_lexsort",
        figure: "isin of",
        unit: "ms",
        size: Some("isin"),
        target: Target::RatioAtMost(1.0),
    },
    PeerRule {
        script: "torch_numpy.py",
        key: "lexsort_2p24_x2_ms",
        what: "lexsort of two keys vs two stable torch.sort passes",
        benchmark: "numpy/isin_lexsort",
        figure: "lexsort of",
        unit: "ms",
        size: Some("lexsort"),
        target: Target::RatioAtMost(1.0),
    },
];

/// One judged peer comparison.
#[derive(Clone, Debug, PartialEq)]
pub struct PeerRow {
    /// The peer file's key.
    pub key: String,
    /// What is compared.
    pub what: String,
    /// cuprite's median.
    pub cuprite: Option<f64>,
    /// The peer's value.
    pub peer: Option<f64>,
    /// The unit of both.
    pub unit: String,
    /// `cuprite / peer`.
    pub ratio: Option<f64>,
    /// The target for the ratio.
    pub target: Target,
    /// Whether it was met (`None`: not judged, see `note`).
    pub met: Option<bool>,
    /// Why it was not judged, when it was not.
    pub note: Option<String>,
}

/// Matches every rule's peer figure with cuprite's and judges the ratio.
pub fn judge_peers(report: &Value, peer: &Value) -> Vec<PeerRow> {
    let figs = figures(report);
    let value = |key: &str| peer["figures"][key].as_f64().or_else(|| peer[key].as_f64());
    let mut rows = Vec::new();
    for rule in PEER_RULES {
        let this_script = PEER_RULES
            .iter()
            .any(|r| r.script == rule.script && value(r.key).is_some());
        if !this_script {
            continue;
        }
        let peer_value = value(rule.key);
        let ours = figs
            .iter()
            .find(|f| f.benchmark == rule.benchmark && f.name.starts_with(rule.figure));
        let mut note = None;
        if peer_value.is_none() {
            note = Some(format!("the peer file has no {}", rule.key));
        }
        let ours = match ours {
            Some(f) if f.unit == rule.unit => Some(f),
            Some(f) => {
                note = Some(format!(
                    "cuprite's figure is in {}, not {}",
                    f.unit, rule.unit
                ));
                None
            }
            None => {
                note.get_or_insert_with(|| format!("{} did not run", rule.benchmark));
                None
            }
        };
        if let (Some(size_key), Some(f)) = (rule.size, ours) {
            match peer["sizes"][size_key].as_u64() {
                Some(n) if f.name.contains(&format!(" {n} ")) => {}
                Some(n) => {
                    note = Some(format!(
                        "sizes differ: the peer ran {n} elements, cuprite's figure is \"{}\"",
                        f.name
                    ))
                }
                None => note = Some(format!("the peer file gives no size {size_key}")),
            }
        }
        let (cuprite, ratio, met) = match (ours, peer_value, &note) {
            (Some(f), Some(p), None) if p > 0.0 => {
                let r = f.median / p;
                let met = match rule.target {
                    Target::RatioAtLeast(x) => r >= x,
                    Target::RatioAtMost(x) => r <= x,
                    Target::AtLeast(x) => f.median >= x,
                    Target::AtMost(x) => f.median <= x,
                };
                (Some(f.median), Some(r), Some(met))
            }
            (f, _, _) => (f.map(|f| f.median), None, None),
        };
        rows.push(PeerRow {
            key: rule.key.to_string(),
            what: rule.what.to_string(),
            cuprite,
            peer: peer_value,
            unit: rule.unit.to_string(),
            ratio,
            target: rule.target,
            met,
            note,
        });
    }
    rows
}

fn opt(x: Option<f64>) -> String {
    x.map(fmt_num).unwrap_or_else(|| "-".into())
}

/// Judges peers, writes the JSON, draws the charts and compares, as `opts` asks. `loaded`:
/// the report came from `--from` (not this run). Returns false when a file could not be
/// used, true otherwise (regressions and missed peer targets are flagged, not failures).
pub fn post_process(
    opts: &RunOptions,
    mut report: Value,
    loaded: bool,
) -> Result<bool, BenchError> {
    let peers = opts
        .peers
        .iter()
        .map(|p| load(p))
        .collect::<Result<Vec<_>, _>>()?;
    let mut judged = Vec::new();
    for peer in &peers {
        let label = peer["peer"].as_str().unwrap_or("peer");
        let rows = judge_peers(&report, peer);
        crate::outln!(
            "\npeer figures ({label}{}), ratio = cuprite / peer:",
            peer["method"]
                .as_str()
                .map(|m| format!("; {m}"))
                .unwrap_or_default()
        );
        for r in &rows {
            crate::outln!(
                "  {:<68} cuprite {:>8} {:<5} peer {:>8}  ratio {:>6}  target {:<7} {}",
                r.what,
                opt(r.cuprite),
                r.unit,
                opt(r.peer),
                r.ratio
                    .map(|x| format!("{x:.3}"))
                    .unwrap_or_else(|| "-".into()),
                r.target.to_string(),
                match (r.met, &r.note) {
                    (Some(true), _) => "met".to_string(),
                    (Some(false), _) => "NOT MET".to_string(),
                    (None, Some(n)) => format!("not judged: {n}"),
                    (None, None) => "not judged".to_string(),
                }
            );
        }
        judged.push(serde_json::json!({
            "peer": label,
            "rows": rows.iter().map(|r| serde_json::json!({
                "key": r.key,
                "what": r.what,
                "cuprite": r.cuprite,
                "peer": r.peer,
                "unit": r.unit,
                "ratio": r.ratio,
                "target": r.target.to_string(),
                "met": r.met,
                "note": r.note,
            })).collect::<Vec<_>>(),
        }));
    }
    if !judged.is_empty() {
        report["peers"] = judged.into();
    }
    if let Some(path) = &opts.json
        && !(loaded && opts.from.as_deref() == Some(path.as_path()))
    {
        super::table::write_json(path, &report)?;
    }
    if let Some(dir) = &opts.plot {
        let files = super::plot::write_charts(&report, &peers, dir)?;
        if files.is_empty() {
            crate::outln!(
                "no chart: none of the figures that ran is drawn (copies, array curves and host-time samples are)"
            );
        }
        for f in files {
            crate::outln!("chart written to {}", f.display());
        }
    }
    if let Some(path) = &opts.compare {
        let old = load(path)?;
        let rows = compare(&old, &report, opts.threshold);
        crate::outln!(
            "\ncompared with {} ({}); ratio = new / old, regression: {:.0}% worse",
            path.display(),
            describe(&old),
            opts.threshold * 100.0
        );
        let mut regressions = 0;
        for r in &rows {
            let verdict = match r.verdict {
                Verdict::Better => "better",
                Verdict::Same => "same",
                Verdict::Regression => {
                    regressions += 1;
                    "REGRESSION"
                }
                Verdict::New => "new",
                Verdict::Missing => "missing",
            };
            crate::outln!(
                "  {:<10} {:>8} -> {:>8} {:<6} {:>7}  {} ({})",
                verdict,
                opt(r.old),
                opt(r.new),
                r.unit,
                r.ratio
                    .map(|x| format!("{x:.3}"))
                    .unwrap_or_else(|| "-".into()),
                r.figure,
                r.benchmark
            );
        }
        crate::outln!(
            "regressions: {regressions}, figures compared: {}",
            rows.iter().filter(|r| r.ratio.is_some()).count()
        );
    }
    Ok(true)
}
