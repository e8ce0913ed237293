//! What `cuprite bench` does with a JSON report after a run (or on a saved one, `--from`):
//! judging a peer library's figures (`--peers`), writing the JSON (`--json`), drawing the
//! charts (`--plot`, see [`super::plot`]) and comparing with a saved run (`--compare`).
//!
//! Every ratio printed here is computed here, from the figures' medians: nothing is typed in
//! by hand. Peer figures are matched to cuprite's by the rules of [`PEER_RULES`].
//!
//! A peer file judges a report only when both were measured in the same call on the same
//! machine ([`peer_refusal`] says why not, and nothing of that file is judged):
//! - the same device: the name and the UUID (`GPU-…`, as `nvidia-smi` prints it) must both be
//!   recorded and equal;
//! - the same driver: the CUDA version the driver supports (`cuDriverGetVersion`, e.g.
//!   `13.0`), recorded by both, must be equal; a peer's libraries (PyTorch's bundled cuBLAS,
//!   cuFFT...) differ from cuprite's by design, so their versions are recorded (`torch`, the
//!   CUDA runtime PyTorch was built with, `cuda`) and must be present, and every peer file of
//!   one `--peers` list must name the same `torch` and `cuda` (one environment);
//! - the same sizes: the `quick` flags must be equal (`--quick` shrinks the problems on both
//!   sides, and each rule's size check then compares like with like).

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
    /// contain the same number (as a whole number: `4096` in `solve 4096² f64`) or, where the
    /// peer gives the size as text (a GEMM's `8192×8192×8192`), that text, or the pair is not
    /// judged.
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
    // Checked against checked: x[idx] checks every index on the device, as cuprite's gather
    // does for indices whose range it does not know. The gather whose check is elided (indices
    // of known range) is a figure of its own, with no peer: PyTorch has no such path.
    PeerRule {
        script: "torch_index.py",
        key: "gather_f32_2p26_ms",
        what: "gather of 2^26 f32, indices checked on the device, vs x[idx] (checked)",
        benchmark: "index/gather",
        figure: "gather of ",
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
        script: "torch_blas.py",
        key: "gemm_bf16_8192_TFLOPs",
        what: "bf16 GEMM 8192³ (BlasLt::matmul) vs torch.matmul",
        benchmark: "blas/gemm_bf16_8192",
        figure: "bf16 GEMM ",
        unit: "TFLOP/s",
        size: Some("gemm_bf16_8192_TFLOPs"),
        target: Target::RatioAtLeast(0.98),
    },
    PeerRule {
        script: "torch_blas.py",
        key: "gemm_bf16_8192_TFLOPs",
        what: "bf16 GEMM 8192³ (Array::matmul) vs torch.matmul",
        benchmark: "array/matmul_bf16_8192",
        figure: "Array::matmul bf16 ",
        unit: "TFLOP/s",
        size: Some("gemm_bf16_8192_TFLOPs_array"),
        target: Target::RatioAtLeast(0.98),
    },
    PeerRule {
        script: "torch_blas.py",
        key: "gemm_f16_8192_TFLOPs",
        what: "f16 GEMM 8192³ (BlasLt::matmul) vs torch.matmul",
        benchmark: "blas/gemm_f16_8192",
        figure: "f16 GEMM ",
        unit: "TFLOP/s",
        size: Some("gemm_f16_8192_TFLOPs"),
        target: Target::RatioAtLeast(0.98),
    },
    PeerRule {
        script: "torch_blas.py",
        key: "gemm_f16_8192_TFLOPs",
        what: "f16 GEMM 8192³ (Array::matmul) vs torch.matmul",
        benchmark: "array/matmul_f16_8192",
        figure: "Array::matmul f16 ",
        unit: "TFLOP/s",
        size: Some("gemm_f16_8192_TFLOPs_array"),
        target: Target::RatioAtLeast(0.98),
    },
    PeerRule {
        script: "torch_blas.py",
        key: "gemm_tf32_8192_TFLOPs",
        what: "TF32 GEMM 8192³ (BlasLt::matmul) vs torch.matmul",
        benchmark: "blas/gemm_tf32_8192",
        figure: "f32 GEMM ",
        unit: "TFLOP/s",
        size: Some("gemm_tf32_8192_TFLOPs"),
        target: Target::RatioAtLeast(0.98),
    },
    PeerRule {
        script: "torch_blas.py",
        key: "gemm_tf32_8192_TFLOPs",
        what: "TF32 GEMM 8192³ (Array::matmul) vs torch.matmul",
        benchmark: "array/matmul_tf32_8192",
        figure: "Array::matmul TF32 ",
        unit: "TFLOP/s",
        size: Some("gemm_tf32_8192_TFLOPs_array"),
        target: Target::RatioAtLeast(0.98),
    },
    PeerRule {
        script: "torch_blas.py",
        key: "gemm_f32_8192_TFLOPs",
        what: "f32 GEMM 8192³ (BlasLt::matmul) vs torch.matmul",
        benchmark: "blas/gemm_f32_8192",
        figure: "f32 GEMM ",
        unit: "TFLOP/s",
        size: Some("gemm_f32_8192_TFLOPs"),
        target: Target::RatioAtLeast(0.98),
    },
    PeerRule {
        script: "torch_blas.py",
        key: "gemm_f32_8192_TFLOPs",
        what: "f32 GEMM 8192³ (Array::matmul) vs torch.matmul",
        benchmark: "array/matmul_f32_8192",
        figure: "Array::matmul f32 ",
        unit: "TFLOP/s",
        size: Some("gemm_f32_8192_TFLOPs_array"),
        target: Target::RatioAtLeast(0.98),
    },
    PeerRule {
        script: "torch_blas.py",
        key: "gemm_f64_4096_TFLOPs",
        what: "f64 GEMM 4096³ (BlasLt::matmul) vs torch.matmul",
        benchmark: "blas/gemm_f64_4096",
        figure: "f64 GEMM ",
        unit: "TFLOP/s",
        size: Some("gemm_f64_4096_TFLOPs"),
        target: Target::RatioAtLeast(0.98),
    },
    PeerRule {
        script: "torch_blas.py",
        key: "gemm_f64_4096_TFLOPs",
        what: "f64 GEMM 4096³ (Array::matmul) vs torch.matmul",
        benchmark: "array/matmul_f64_4096",
        figure: "Array::matmul f64 ",
        unit: "TFLOP/s",
        size: Some("gemm_f64_4096_TFLOPs_array"),
        target: Target::RatioAtLeast(0.98),
    },
    PeerRule {
        script: "torch_blas.py",
        key: "gemm_bf16_4096x11008x4096_TFLOPs",
        what: "bf16 GEMM 4096×11008×4096 (BlasLt::matmul) vs torch.matmul",
        benchmark: "blas/gemm_bf16_4096x11008x4096",
        figure: "bf16 GEMM ",
        unit: "TFLOP/s",
        size: Some("gemm_bf16_4096x11008x4096_TFLOPs"),
        target: Target::RatioAtLeast(0.98),
    },
    PeerRule {
        script: "torch_blas.py",
        key: "gemm_bf16_batched_32x1024x1024x128_TFLOPs",
        what: "bf16 batched GEMM 32 × 1024×1024×128 (BlasLt::matmul) vs torch.bmm",
        benchmark: "blas/gemm_bf16_batched_32x1024x1024x128",
        figure: "bf16 batched GEMM ",
        unit: "TFLOP/s",
        size: Some("gemm_bf16_batched_32x1024x1024x128_TFLOPs"),
        target: Target::RatioAtLeast(0.98),
    },
    PeerRule {
        script: "torch_blas.py",
        key: "gemm_bf16_batched_32x1024x1024x128_TFLOPs",
        what: "bf16 batched GEMM 32 × 1024×1024×128 (Array::matmul) vs torch.bmm",
        benchmark: "array/matmul_bf16_batched",
        figure: "Array::matmul bf16 ",
        unit: "TFLOP/s",
        size: Some("gemm_bf16_batched_32x1024x1024x128_TFLOPs_array"),
        target: Target::RatioAtLeast(0.98),
    },
    PeerRule {
        script: "torch_blas.py",
        key: "bias_gelu_linear_ms",
        what: "gelu(x·w + bias) bf16 (BiasGelu epilogue) vs F.gelu(F.linear)",
        benchmark: "blas/bias_gelu_bf16_8192",
        figure: "gelu(x·w + bias) bf16 ",
        unit: "ms",
        size: Some("gemm"),
        target: Target::RatioAtMost(1.0),
    },
    PeerRule {
        script: "torch_blas.py",
        key: "bias_gelu_eager_ms",
        what: "(a.matmul(w) + bias).gelu() bf16 vs F.gelu(x @ w + bias)",
        benchmark: "array/matmul_bias_gelu_bf16_8192",
        figure: "(a.matmul(w) + bias).gelu() bf16 ",
        unit: "ms",
        size: Some("gemm"),
        target: Target::RatioAtMost(1.0),
    },
    PeerRule {
        script: "torch_blas.py",
        key: "plain_gemm_bf16_8192_ms",
        what: "plain bf16 GEMM (cuBLASLt) vs x @ w",
        benchmark: "blas/bias_gelu_bf16_8192",
        figure: "bf16 GEMM ",
        unit: "ms",
        size: Some("gemm"),
        target: Target::RatioAtMost(1.02),
    },
    PeerRule {
        script: "torch_blas.py",
        key: "matmul_256_f32_host_us",
        what: "host time of a warm 256³ f32 BlasLt::matmul vs torch.matmul",
        benchmark: "blas/lt_host_256_f32",
        figure: "host time of a warm BlasLt::matmul 256³",
        unit: "µs",
        size: None,
        target: Target::RatioAtMost(1.0),
    },
    PeerRule {
        script: "torch_blas.py",
        key: "solve_4096_f64_ms",
        what: "solve 4096² f64, 64 right-hand sides (Solver) vs torch.linalg.solve",
        benchmark: "blas/solve_4096_f64",
        figure: "solve ",
        unit: "ms",
        size: Some("solver"),
        target: Target::RatioAtMost(1.0),
    },
    PeerRule {
        script: "torch_blas.py",
        key: "solve_4096_f64_ms",
        what: "linalg::solve 4096² f64, 64 right-hand sides vs torch.linalg.solve",
        benchmark: "array/solve_4096_f64",
        figure: "linalg::solve ",
        unit: "ms",
        size: Some("solver"),
        target: Target::RatioAtMost(1.0),
    },
    PeerRule {
        script: "torch_blas.py",
        key: "lu_factor_4096_f64_ms",
        what: "LU 4096² f64 (getrf) vs torch.linalg.lu_factor",
        benchmark: "blas/solve_4096_f64",
        figure: "LU ",
        unit: "ms",
        size: Some("solver"),
        target: Target::RatioAtMost(1.0),
    },
    PeerRule {
        script: "torch_blas.py",
        key: "solve_4096_f32_ms",
        what: "solve 4096² f32, 64 right-hand sides (Solver) vs torch.linalg.solve",
        benchmark: "blas/solve_4096_f32",
        figure: "solve ",
        unit: "ms",
        size: Some("solver"),
        target: Target::RatioAtMost(1.0),
    },
    PeerRule {
        script: "torch_blas.py",
        key: "solve_4096_f32_ms",
        what: "linalg::solve 4096² f32, 64 right-hand sides vs torch.linalg.solve",
        benchmark: "array/solve_4096_f32",
        figure: "linalg::solve ",
        unit: "ms",
        size: Some("solver"),
        target: Target::RatioAtMost(1.0),
    },
    PeerRule {
        script: "torch_blas.py",
        key: "lu_factor_4096_f32_ms",
        what: "LU 4096² f32 (getrf) vs torch.linalg.lu_factor",
        benchmark: "blas/solve_4096_f32",
        figure: "LU ",
        unit: "ms",
        size: Some("solver"),
        target: Target::RatioAtMost(1.0),
    },
    PeerRule {
        script: "torch_blas.py",
        key: "cholesky_4096_f64_ms",
        what: "cholesky 4096² f64 vs torch.linalg.cholesky",
        benchmark: "blas/cholesky_4096_f64",
        figure: "cholesky ",
        unit: "ms",
        size: Some("solver"),
        target: Target::RatioAtMost(1.0),
    },
    PeerRule {
        script: "torch_blas.py",
        key: "qr_4096_f64_ms",
        what: "qr 4096² f64 (Q and R) vs torch.linalg.qr",
        benchmark: "blas/qr_4096_f64",
        figure: "qr ",
        unit: "ms",
        size: Some("solver"),
        target: Target::RatioAtMost(1.0),
    },
    PeerRule {
        script: "torch_blas.py",
        key: "geqrf_4096_f64_ms",
        what: "geqrf 4096² f64 vs torch.geqrf",
        benchmark: "blas/qr_4096_f64",
        figure: "geqrf ",
        unit: "ms",
        size: Some("solver"),
        target: Target::RatioAtMost(1.0),
    },
    PeerRule {
        script: "torch_blas.py",
        key: "svd_1024_f64_ms",
        what: "svd 1024² f64, gesvd vs torch.linalg.svd",
        benchmark: "blas/svd_1024_f64",
        figure: "svd ",
        unit: "ms",
        size: Some("svd"),
        target: Target::RatioAtMost(1.0),
    },
    PeerRule {
        script: "torch_blas.py",
        key: "svd_1024_f64_ms",
        what: "svd 1024² f64, gesvdj vs torch.linalg.svd",
        benchmark: "blas/svd_1024_f64",
        figure: "Jacobi svd ",
        unit: "ms",
        size: Some("svd"),
        target: Target::RatioAtMost(1.0),
    },
    PeerRule {
        script: "torch_blas.py",
        key: "eigh_2048_f64_ms",
        what: "eigh 2048² f64 vs torch.linalg.eigh",
        benchmark: "blas/eigh_2048_f64",
        figure: "eigh ",
        unit: "ms",
        size: Some("eigh"),
        target: Target::RatioAtMost(1.0),
    },
    PeerRule {
        script: "torch_workloads.py",
        key: "black_scholes_compile_ms",
        what: "black_scholes (2^24 options) vs torch.compile",
        benchmark: "workloads/black_scholes",
        figure: "black_scholes of",
        unit: "ms",
        size: Some("black_scholes"),
        target: Target::RatioAtMost(1.0),
    },
    PeerRule {
        script: "torch_workloads.py",
        key: "black_scholes_eager_ms",
        what: "black_scholes (2^24 options) vs PyTorch eager",
        benchmark: "workloads/black_scholes",
        figure: "black_scholes of",
        unit: "ms",
        size: Some("black_scholes"),
        target: Target::RatioAtMost(0.5),
    },
    PeerRule {
        script: "torch_workloads.py",
        key: "kmeans_compile_ms",
        what: "kmeans iteration (2^22 points, 16-D, 64 clusters) vs torch.compile",
        benchmark: "workloads/kmeans",
        figure: "kmeans iteration,",
        unit: "ms",
        size: Some("kmeans"),
        target: Target::RatioAtMost(1.0),
    },
    PeerRule {
        script: "torch_workloads.py",
        key: "kmeans_eager_ms",
        what: "kmeans iteration (2^22 points, 16-D, 64 clusters) vs PyTorch eager",
        benchmark: "workloads/kmeans",
        figure: "kmeans iteration,",
        unit: "ms",
        size: Some("kmeans"),
        target: Target::RatioAtMost(0.5),
    },
    PeerRule {
        script: "torch_workloads.py",
        key: "spectral_poisson_compile_ms",
        what: "spectral_poisson (4096² f32) vs torch.compile",
        benchmark: "workloads/spectral_poisson",
        figure: "spectral_poisson solve of",
        unit: "ms",
        size: Some("spectral_poisson"),
        target: Target::RatioAtMost(1.0),
    },
    PeerRule {
        script: "torch_workloads.py",
        key: "spectral_poisson_eager_ms",
        what: "spectral_poisson (4096² f32) vs PyTorch eager",
        benchmark: "workloads/spectral_poisson",
        figure: "spectral_poisson solve of",
        unit: "ms",
        size: Some("spectral_poisson"),
        target: Target::RatioAtMost(0.5),
    },
    PeerRule {
        script: "torch_workloads.py",
        key: "mlp_train_compile_ms",
        what: "mlp_train step (batch 4096, 1024-4096-1024 bf16) vs torch.compile",
        benchmark: "workloads/mlp_train",
        figure: "mlp_train step,",
        unit: "ms",
        size: Some("mlp_train"),
        target: Target::RatioAtMost(1.0),
    },
    PeerRule {
        script: "torch_workloads.py",
        key: "mlp_train_eager_ms",
        what: "mlp_train step (batch 4096, 1024-4096-1024 bf16) vs PyTorch eager",
        benchmark: "workloads/mlp_train",
        figure: "mlp_train step,",
        unit: "ms",
        size: Some("mlp_train"),
        target: Target::RatioAtMost(0.5),
    },
    PeerRule {
        script: "torch_workloads.py",
        key: "nbody_compile_ms",
        what: "nbody step (16384 bodies, f32) vs torch.compile",
        benchmark: "workloads/nbody",
        figure: "nbody step of",
        unit: "ms",
        size: Some("nbody"),
        target: Target::RatioAtMost(1.0),
    },
    PeerRule {
        script: "torch_workloads.py",
        key: "nbody_eager_ms",
        what: "nbody step (16384 bodies, f32) vs PyTorch eager",
        benchmark: "workloads/nbody",
        figure: "nbody step of",
        unit: "ms",
        size: Some("nbody"),
        target: Target::RatioAtMost(0.5),
    },
    PeerRule {
        script: "torch_workloads.py",
        key: "image_pipeline_compile_ms",
        what: "image_pipeline (4096² f32, 256 discs; labels: cuprite union-find, PyTorch \
               max_pool2d propagation) vs torch.compile",
        benchmark: "workloads/image_pipeline",
        figure: "image_pipeline of",
        unit: "ms",
        size: Some("image_pipeline"),
        target: Target::RatioAtMost(1.0),
    },
    PeerRule {
        script: "torch_workloads.py",
        key: "image_pipeline_eager_ms",
        what: "image_pipeline (4096² f32, 256 discs; labels: cuprite union-find, PyTorch \
               max_pool2d propagation) vs PyTorch eager",
        benchmark: "workloads/image_pipeline",
        figure: "image_pipeline of",
        unit: "ms",
        size: Some("image_pipeline"),
        target: Target::RatioAtMost(0.5),
    },
    PeerRule {
        script: "sparse_peers.py",
        key: "cupyx_spmv_laplacian_ms",
        what: "SpMV of the 2048² 5-point Laplacian (f32, CSR) vs cupyx.scipy.sparse (A @ x)",
        benchmark: "sparse/spmv_laplacian",
        figure: "SpMV time, Laplacian",
        unit: "ms",
        size: Some("grid"),
        target: Target::RatioAtMost(1.0),
    },
    PeerRule {
        script: "sparse_peers.py",
        key: "torch_spmv_laplacian_ms",
        what: "SpMV of the 2048² 5-point Laplacian (f32, CSR) vs torch.sparse CSR (A @ x)",
        benchmark: "sparse/spmv_laplacian",
        figure: "SpMV time, Laplacian",
        unit: "ms",
        size: Some("grid"),
        target: Target::RatioAtMost(1.0),
    },
    PeerRule {
        script: "sparse_peers.py",
        key: "cupyx_spmm16_laplacian_ms",
        what: "SpMM of the 2048² Laplacian by 16 columns (f32) vs cupyx.scipy.sparse (A @ B)",
        benchmark: "sparse/spmv_laplacian",
        figure: "SpMM, Laplacian",
        unit: "ms",
        size: Some("grid"),
        target: Target::RatioAtMost(1.0),
    },
    PeerRule {
        script: "sparse_peers.py",
        key: "cupyx_cg200_laplacian_ms",
        what: "cg, 200 iterations on the 2048² Laplacian (f32) vs cupyx.scipy.sparse.linalg.cg",
        benchmark: "sparse/cg_laplacian",
        figure: "cg, 200 iterations",
        unit: "ms",
        size: Some("grid"),
        target: Target::RatioAtMost(1.0 / 1.5),
    },
    PeerRule {
        script: "sparse_peers.py",
        key: "cupyx_spmv_random_ms",
        what: "SpMV of a random 2^20² matrix, 16 nonzeros a row (f32, CSR) vs cupyx.scipy.sparse (A @ x)",
        benchmark: "sparse/spmv_random",
        figure: "SpMV time, random",
        unit: "ms",
        size: Some("spmv_random"),
        target: Target::RatioAtMost(1.0),
    },
    PeerRule {
        script: "sparse_peers.py",
        key: "cupyx_spgemm_random_ms",
        what: "SpGEMM A·A of a random 65536² matrix at density 1e-3 (f32) vs cupyx.scipy.sparse (A @ A)",
        benchmark: "sparse/spgemm_random",
        figure: "SpGEMM A·A, random",
        unit: "ms",
        size: Some("spgemm"),
        target: Target::RatioAtMost(1.0),
    },
    PeerRule {
        script: "sparse_peers.py",
        key: "cupyx_coo_to_csr_ms",
        what: "COO → CSR of 2^24 random triplets, duplicates summed (f32) vs cupyx coo_matrix.tocsr()",
        benchmark: "sparse/coo_to_csr",
        figure: "COO → CSR,",
        unit: "ms",
        size: Some("coo_triplets"),
        target: Target::RatioAtMost(1.0),
    },
    PeerRule {
        script: "sparse_peers.py",
        key: "cupyx_poisson_cg_ms",
        what: "poisson_cg (200 cg iterations, 1024² grid, f64) vs cupyx.scipy.sparse.linalg.cg",
        benchmark: "workloads/poisson_cg",
        figure: "poisson_cg, 200 iterations",
        unit: "ms",
        size: Some("poisson_cg"),
        target: Target::RatioAtMost(1.0 / 1.5),
    },
    PeerRule {
        script: "torch_workloads.py",
        key: "poisson_cg_compile_ms",
        what: "poisson_cg (200 cg iterations, 1024² grid, f64) vs a CG iteration under \
               torch.compile",
        benchmark: "workloads/poisson_cg",
        figure: "poisson_cg, 200 iterations",
        unit: "ms",
        size: Some("poisson_cg"),
        target: Target::RatioAtMost(1.0),
    },
    PeerRule {
        script: "sparse_peers.py",
        key: "torch_poisson_cg_ms",
        what: "poisson_cg (200 cg iterations, 1024² grid, f64) vs a CG loop in PyTorch",
        benchmark: "workloads/poisson_cg",
        figure: "poisson_cg, 200 iterations",
        unit: "ms",
        size: Some("poisson_cg"),
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
    PeerRule {
        script: "torch_numpy.py",
        key: "eig_1024_f64_ms",
        what: "eig (values and vectors) vs torch.linalg.eig",
        benchmark: "numpy/eig",
        figure: "eig of",
        unit: "ms",
        size: Some("eig"),
        target: Target::RatioAtMost(1.0),
    },
    PeerRule {
        script: "torch_numpy.py",
        key: "interp_2p24_in_2p20_ms",
        what: "interp of f32 vs cupy.interp",
        benchmark: "numpy/interp",
        figure: "interp of",
        unit: "ms",
        size: Some("interp"),
        target: Target::RatioAtMost(1.0),
    },
    PeerRule {
        script: "torch_vision.py",
        key: "match_ssd_32_ms",
        what: "match_template SSD 32x32 vs torch conv2d correlations (cuDNN)",
        benchmark: "image/match_template",
        figure: "match_template Ssd 32x32 in",
        unit: "ms",
        size: Some("match"),
        target: Target::RatioAtMost(1.0),
    },
    PeerRule {
        script: "torch_vision.py",
        key: "match_zncc_32_ms",
        what: "match_template ZNCC 32x32 vs torch conv2d correlations and box sums (cuDNN)",
        benchmark: "image/match_template",
        figure: "match_template Zncc 32x32 in",
        unit: "ms",
        size: Some("match"),
        target: Target::RatioAtMost(1.0),
    },
    PeerRule {
        script: "cupy_signal.py",
        key: "conv1d_127_direct_ms",
        what: "convolve 127 taps same vs cupyx.scipy.signal.convolve (direct)",
        benchmark: "conv/convolve1d_127",
        figure: "convolve 127 taps same (auto)",
        unit: "ms",
        size: Some("conv1d"),
        target: Target::RatioAtMost(1.0),
    },
    PeerRule {
        script: "cupy_signal.py",
        key: "conv1d_127_fft_ms",
        what: "convolve 127 taps same vs cupyx.scipy.signal.fftconvolve",
        benchmark: "conv/convolve1d_127",
        figure: "convolve 127 taps same (auto)",
        unit: "ms",
        size: Some("conv1d"),
        target: Target::RatioAtMost(1.0),
    },
    PeerRule {
        script: "cupy_signal.py",
        key: "conv1d_4097_fft_ms",
        what: "convolve 4097 taps same vs cupyx.scipy.signal.fftconvolve",
        benchmark: "conv/convolve1d_4097",
        figure: "convolve 4097 taps same (auto)",
        unit: "ms",
        size: Some("conv1d"),
        target: Target::RatioAtMost(1.0),
    },
    PeerRule {
        script: "cupy_signal.py",
        key: "conv1d_4097_oa_ms",
        what: "convolve 4097 taps same vs cupyx.scipy.signal.oaconvolve",
        benchmark: "conv/convolve1d_4097",
        figure: "convolve 4097 taps same (auto)",
        unit: "ms",
        size: Some("conv1d"),
        target: Target::RatioAtMost(1.0),
    },
    PeerRule {
        script: "cupy_signal.py",
        key: "conv2d_7x7_torch_ms",
        what: "convolve2 7x7 same vs torch conv2d (cuDNN)",
        benchmark: "conv/convolve2d_7x7",
        figure: "convolve2 7x7 same",
        unit: "ms",
        size: Some("conv2d"),
        target: Target::RatioAtMost(1.0),
    },
    PeerRule {
        script: "cupy_signal.py",
        key: "conv2d_7x7_ndimage_ms",
        what: "convolve2 7x7 same vs cupyx.scipy.ndimage.convolve",
        benchmark: "conv/convolve2d_7x7",
        figure: "convolve2 7x7 same",
        unit: "ms",
        size: Some("conv2d"),
        target: Target::RatioAtMost(1.0),
    },
    PeerRule {
        script: "cupy_signal.py",
        key: "lfilter_2p24_ms",
        what: "lfilter order 2 vs cupyx.scipy.signal.lfilter",
        benchmark: "signal/lfilter",
        figure: "lfilter order 2",
        unit: "ms",
        size: Some("lfilter"),
        target: Target::RatioAtMost(0.5),
    },
    PeerRule {
        script: "torch_conv.py",
        key: "conv2d_bf16_forward_ms",
        what: "conv2d bf16 forward, cuDNN vs torch.nn.functional.conv2d (cuDNN): at least 0.95x PyTorch's speed",
        benchmark: "conv/conv2d",
        figure: "conv2d bf16 forward cudnn ",
        unit: "ms",
        size: Some("conv2d"),
        target: Target::RatioAtMost(1.0 / 0.95),
    },
    PeerRule {
        script: "torch_conv.py",
        key: "conv2d_bf16_forward_ms",
        what: "conv2d bf16 forward, fallback (lowered patches + cuBLASLt) vs torch.nn.functional.conv2d (cuDNN): \
               the fallback's target, at least half PyTorch's speed",
        benchmark: "conv/conv2d",
        figure: "conv2d bf16 forward fallback ",
        unit: "ms",
        size: Some("conv2d"),
        target: Target::RatioAtMost(2.0),
    },
    PeerRule {
        script: "torch_conv.py",
        key: "conv2d_bf16_backward_input_ms",
        what: "conv2d bf16 backward_input, cuDNN vs torch.nn.grad.conv2d_input (cuDNN): at least 0.95x PyTorch's speed",
        benchmark: "conv/conv2d",
        figure: "conv2d bf16 backward_input cudnn ",
        unit: "ms",
        size: Some("conv2d"),
        target: Target::RatioAtMost(1.0 / 0.95),
    },
    PeerRule {
        script: "torch_conv.py",
        key: "conv2d_bf16_backward_input_ms",
        what: "conv2d bf16 backward_input, fallback (lowered patches + cuBLASLt) vs torch.nn.grad.conv2d_input (cuDNN): \
               the fallback's target, at least half PyTorch's speed",
        benchmark: "conv/conv2d",
        figure: "conv2d bf16 backward_input fallback ",
        unit: "ms",
        size: Some("conv2d"),
        target: Target::RatioAtMost(2.0),
    },
    PeerRule {
        script: "torch_conv.py",
        key: "conv2d_bf16_backward_weight_ms",
        what: "conv2d bf16 backward_weight, cuDNN vs torch.nn.grad.conv2d_weight (cuDNN): at least 0.95x PyTorch's speed",
        benchmark: "conv/conv2d",
        figure: "conv2d bf16 backward_weight cudnn ",
        unit: "ms",
        size: Some("conv2d"),
        target: Target::RatioAtMost(1.0 / 0.95),
    },
    PeerRule {
        script: "torch_conv.py",
        key: "conv2d_bf16_backward_weight_ms",
        what: "conv2d bf16 backward_weight, fallback (lowered patches + cuBLASLt) vs torch.nn.grad.conv2d_weight (cuDNN): \
               the fallback's target, at least half PyTorch's speed",
        benchmark: "conv/conv2d",
        figure: "conv2d bf16 backward_weight fallback ",
        unit: "ms",
        size: Some("conv2d"),
        target: Target::RatioAtMost(2.0),
    },
    PeerRule {
        script: "torch_conv.py",
        key: "conv2d_f32_forward_ms",
        what: "conv2d f32 forward, cuDNN vs torch.nn.functional.conv2d (cuDNN): at least 0.95x PyTorch's speed",
        benchmark: "conv/conv2d",
        figure: "conv2d f32 forward cudnn ",
        unit: "ms",
        size: Some("conv2d"),
        target: Target::RatioAtMost(1.0 / 0.95),
    },
    PeerRule {
        script: "torch_conv.py",
        key: "conv2d_f32_forward_ms",
        what: "conv2d f32 forward, fallback (Winograd F(2x2, 3x3) + cuBLASLt) vs torch.nn.functional.conv2d (cuDNN): \
               the fallback's target, at least half PyTorch's speed",
        benchmark: "conv/conv2d",
        figure: "conv2d f32 forward fallback ",
        unit: "ms",
        size: Some("conv2d"),
        target: Target::RatioAtMost(2.0),
    },
    PeerRule {
        script: "torch_conv.py",
        key: "conv2d_f32_backward_input_ms",
        what: "conv2d f32 backward_input, cuDNN vs torch.nn.grad.conv2d_input (cuDNN): at least 0.95x PyTorch's speed",
        benchmark: "conv/conv2d",
        figure: "conv2d f32 backward_input cudnn ",
        unit: "ms",
        size: Some("conv2d"),
        target: Target::RatioAtMost(1.0 / 0.95),
    },
    PeerRule {
        script: "torch_conv.py",
        key: "conv2d_f32_backward_input_ms",
        what: "conv2d f32 backward_input, fallback (Winograd F(2x2, 3x3) + cuBLASLt) vs torch.nn.grad.conv2d_input (cuDNN): \
               the fallback's target, at least half PyTorch's speed",
        benchmark: "conv/conv2d",
        figure: "conv2d f32 backward_input fallback ",
        unit: "ms",
        size: Some("conv2d"),
        target: Target::RatioAtMost(2.0),
    },
    PeerRule {
        script: "torch_conv.py",
        key: "conv2d_f32_backward_weight_ms",
        what: "conv2d f32 backward_weight, cuDNN vs torch.nn.grad.conv2d_weight (cuDNN): at least 0.95x PyTorch's speed",
        benchmark: "conv/conv2d",
        figure: "conv2d f32 backward_weight cudnn ",
        unit: "ms",
        size: Some("conv2d"),
        target: Target::RatioAtMost(1.0 / 0.95),
    },
    PeerRule {
        script: "torch_conv.py",
        key: "conv2d_f32_backward_weight_ms",
        what: "conv2d f32 backward_weight, fallback (lowered patches + cuBLASLt) vs torch.nn.grad.conv2d_weight (cuDNN): \
               the fallback's target, at least half PyTorch's speed",
        benchmark: "conv/conv2d",
        figure: "conv2d f32 backward_weight fallback ",
        unit: "ms",
        size: Some("conv2d"),
        target: Target::RatioAtMost(2.0),
    },
    PeerRule {
        script: "torch_conv.py",
        key: "max_pool2d_f32_ms",
        what: "max_pool2d 2x2 f32 vs torch.nn.functional.max_pool2d",
        benchmark: "conv/max_pool2d",
        figure: "max_pool2d 2x2 f32 forward",
        unit: "ms",
        size: Some("max_pool2d"),
        target: Target::RatioAtMost(1.0),
    },
    PeerRule {
        script: "image_morph_peers.py",
        key: "grey_dilation_5x5_ms",
        what: "grey_dilation 5x5 vs cupyx.scipy.ndimage.grey_dilation",
        benchmark: "image/grey_dilation_5x5",
        figure: "grey_dilation 5x5",
        unit: "ms",
        size: Some("image"),
        target: Target::RatioAtMost(1.0),
    },
    PeerRule {
        script: "cupy_ndimage_filters.py",
        key: "gaussian_2_ms",
        what: "gaussian_filter sigma 2 vs cupyx.scipy.ndimage.gaussian_filter",
        benchmark: "image/gaussian_filter",
        figure: "gaussian_filter sigma 2",
        unit: "ms",
        size: Some("image"),
        target: Target::RatioAtMost(1.0),
    },
    PeerRule {
        script: "image_morph_peers.py",
        key: "label_ms",
        what: "label of a 30% random mask vs cupyx.scipy.ndimage.label",
        benchmark: "image/label",
        figure: "label 4-connected",
        unit: "ms",
        size: Some("image"),
        target: Target::RatioAtMost(0.5),
    },
    PeerRule {
        script: "cupy_ndimage_filters.py",
        key: "uniform_9_ms",
        what: "uniform_filter 9 vs cupyx.scipy.ndimage.uniform_filter",
        benchmark: "image/uniform_filter",
        figure: "uniform_filter 9",
        unit: "ms",
        size: Some("image"),
        target: Target::RatioAtMost(1.0),
    },
    PeerRule {
        script: "cupy_ndimage_filters.py",
        key: "median_3_ms",
        what: "median_filter 3x3 vs cupyx.scipy.ndimage.median_filter",
        benchmark: "image/median_filter",
        figure: "median_filter 3x3",
        unit: "ms",
        size: Some("image"),
        target: Target::RatioAtMost(0.667),
    },
    PeerRule {
        script: "cupy_ndimage_filters.py",
        key: "median_7_ms",
        what: "median_filter 7x7 vs cupyx.scipy.ndimage.median_filter",
        benchmark: "image/median_filter",
        figure: "median_filter 7x7",
        unit: "ms",
        size: Some("image"),
        target: Target::RatioAtMost(0.667),
    },
    PeerRule {
        script: "cupy_ndimage_filters.py",
        key: "sobel_ms",
        what: "sobel vs cupyx.scipy.ndimage.sobel",
        benchmark: "image/sobel",
        figure: "sobel axis -1",
        unit: "ms",
        size: Some("image"),
        target: Target::RatioAtMost(1.0),
    },
    PeerRule {
        script: "cupy_ndimage_filters.py",
        key: "gaussian3d_2_ms",
        what: "gaussian_filter 3-d sigma 2 vs cupyx.scipy.ndimage.gaussian_filter",
        benchmark: "image/gaussian_filter_3d",
        figure: "gaussian_filter 3-d sigma 2",
        unit: "ms",
        size: Some("volume"),
        target: Target::RatioAtMost(1.0),
    },
    PeerRule {
        script: "torch_graphs.py",
        key: "mlp_step_graph_us",
        what: "MLP step (4 layers, width 256, batch 64) replayed vs torch.cuda.graph replay",
        benchmark: "graphs/mlp_step",
        figure: "4-layer MLP step, width 256, batch 64, replayed",
        unit: "µs",
        size: Some("mlp"),
        target: Target::RatioAtMost(1.0),
    },
    PeerRule {
        script: "torch_graphs.py",
        key: "mlp_step_eager_us",
        what: "MLP step (4 layers, width 256, batch 64) replayed vs PyTorch eager",
        benchmark: "graphs/mlp_step",
        figure: "4-layer MLP step, width 256, batch 64, replayed",
        unit: "µs",
        size: Some("mlp"),
        // The step's own target (a third of cuprite's eager step) is the figure's, judged
        // against cuprite's eager run in the same benchmark; beside PyTorch eager, replayed
        // is only required to be no slower.
        target: Target::RatioAtMost(1.0),
    },
    PeerRule {
        script: "torch_graphs.py",
        key: "tiny_ops_graph_us",
        what: "200 tiny element-wise ops on 4096 f32 replayed vs torch.cuda.graph replay",
        benchmark: "graphs/tiny_ops",
        figure: "200 tiny element-wise ops on 4096 f32, replayed",
        unit: "µs",
        size: Some("tiny_ops"),
        target: Target::RatioAtMost(1.0),
    },
    PeerRule {
        script: "image_geometry_peers.py",
        key: "zoom2_linear_cupyx_ms",
        what: "zoom x2 order 1 vs cupyx.scipy.ndimage.zoom",
        benchmark: "image/zoom",
        figure: "zoom x2 linear",
        unit: "ms",
        size: Some("zoom"),
        target: Target::RatioAtMost(1.0),
    },
    PeerRule {
        script: "image_geometry_peers.py",
        key: "zoom2_linear_torch_ms",
        what: "zoom x2 order 1 vs torch F.interpolate (bilinear, align_corners)",
        benchmark: "image/zoom",
        figure: "zoom x2 linear",
        unit: "ms",
        size: Some("zoom"),
        target: Target::RatioAtMost(1.0),
    },
    PeerRule {
        script: "image_geometry_peers.py",
        key: "zoom2_cubic_cupyx_ms",
        what: "zoom x2 order 3 vs cupyx.scipy.ndimage.zoom",
        benchmark: "image/zoom",
        figure: "zoom x2 cubic",
        unit: "ms",
        size: Some("zoom"),
        target: Target::RatioAtMost(1.0),
    },
    PeerRule {
        script: "image_geometry_peers.py",
        key: "rotate30_linear_cupyx_ms",
        what: "rotate 30 order 1 vs cupyx.scipy.ndimage.rotate",
        benchmark: "image/rotate",
        figure: "rotate 30 linear",
        unit: "ms",
        size: Some("rotate"),
        target: Target::RatioAtMost(1.0),
    },
    PeerRule {
        script: "image_geometry_peers.py",
        key: "rotate30_linear_torch_ms",
        what: "rotate 30 order 1 vs torch F.affine_grid + F.grid_sample",
        benchmark: "image/rotate",
        figure: "rotate 30 linear",
        unit: "ms",
        size: Some("rotate"),
        target: Target::RatioAtMost(1.0),
    },
    PeerRule {
        script: "image_geometry_peers.py",
        key: "resize_bicubic_torch_ms",
        what: "bicubic resize 3 x 2048² to 4096² vs torch F.interpolate (bicubic)",
        benchmark: "image/resize_bicubic",
        figure: "resize bicubic",
        unit: "ms",
        size: Some("resize"),
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

/// A device UUID as compared: without the `GPU-` prefix, lower case.
fn uuid_key(u: &str) -> String {
    u.trim().trim_start_matches("GPU-").to_ascii_lowercase()
}

/// Why `peer` may not judge `report` (another device, driver or quick flag, or a file that
/// does not say; see the module docs), or `None` when it may.
pub fn peer_refusal(report: &Value, peer: &Value) -> Option<String> {
    let text = |v: &Value, key: &str| v[key].as_str().map(str::to_string);
    if report["gpu"] == false {
        return Some("cuprite's run had no GPU".into());
    }
    let (ours, theirs) = (text(report, "device"), text(peer, "device"));
    match (&ours, &theirs) {
        (Some(a), Some(b)) if a == b => {}
        (Some(a), Some(b)) => {
            return Some(format!(
                "another device: cuprite ran on \"{a}\", the peer on \"{b}\""
            ));
        }
        (None, _) => return Some("cuprite's report names no device".into()),
        (_, None) => return Some("the peer file names no device".into()),
    }
    match (text(report, "device_uuid"), text(peer, "device_uuid")) {
        (Some(a), Some(b)) if uuid_key(&a) == uuid_key(&b) => {}
        (Some(a), Some(b)) => {
            return Some(format!(
                "another device of the same name: cuprite ran on {a}, the peer on {b}"
            ));
        }
        (None, _) => return Some("cuprite's report records no device_uuid".into()),
        (_, None) => {
            return Some(
                "the peer file records no device_uuid (rerun its script: it records one)".into(),
            );
        }
    }
    match (text(report, "driver"), text(peer, "driver")) {
        (Some(a), Some(b)) if a == b => {}
        (Some(a), Some(b)) => {
            return Some(format!(
                "another driver: cuprite's supports CUDA {a}, the peer's CUDA {b}"
            ));
        }
        (None, _) => return Some("cuprite's report records no driver version".into()),
        (_, None) => return Some("the peer file records no driver version".into()),
    }
    for key in ["torch", "cuda"] {
        if text(peer, key).is_none() {
            return Some(format!(
                "the peer file records no {key} version (a CPU-only PyTorch records none)"
            ));
        }
    }
    match (report["quick"].as_bool(), peer["quick"].as_bool()) {
        (Some(a), Some(b)) if a == b => None,
        (Some(a), Some(b)) => Some(format!(
            "another quick flag: cuprite ran {}, the peer {} (sizes differ)",
            if a { "--quick" } else { "full size" },
            if b { "--quick" } else { "full size" }
        )),
        (None, _) => Some("cuprite's report records no quick flag".into()),
        (_, None) => Some("the peer file records no quick flag".into()),
    }
}

/// Judges every peer file against `report`: each is refused as [`peer_refusal`] says, and
/// also when its `torch` or `cuda` version differs from the first accepted file's (the peers
/// of one call come from one environment).
pub fn judge_peer_files(report: &Value, peers: &[Value]) -> Vec<Result<Vec<PeerRow>, String>> {
    let mut first: Option<(Value, Value)> = None;
    let mut out = Vec::new();
    for peer in peers {
        let versions = (peer["torch"].clone(), peer["cuda"].clone());
        let judged = match (&first, judge_peers(report, peer)) {
            (_, Err(e)) => Err(e),
            (Some(f), Ok(_)) if *f != versions => Err(format!(
                "other library versions than the first peer file: torch {} CUDA {}, there torch \
                 {} CUDA {}",
                versions.0, versions.1, f.0, f.1
            )),
            (_, Ok(rows)) => {
                first.get_or_insert(versions);
                Ok(rows)
            }
        };
        out.push(judged);
    }
    out
}

/// Whether `name` holds `n` as a whole number (not as part of a longer one).
fn holds_number(name: &str, n: u64) -> bool {
    name.split(|c: char| !c.is_ascii_digit())
        .any(|t| t.parse::<u64>() == Ok(n))
}

/// Matches every rule's peer figure with cuprite's and judges the ratio; `Err` (nothing
/// judged) when the peer file was not measured with this report, as [`peer_refusal`] says.
pub fn judge_peers(report: &Value, peer: &Value) -> Result<Vec<PeerRow>, String> {
    if let Some(why) = peer_refusal(report, peer) {
        return Err(why);
    }
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
            let size = &peer["sizes"][size_key];
            let held = match (size.as_str(), size.as_u64()) {
                (Some(t), _) => Some((f.name.contains(t), t.to_string())),
                (None, Some(n)) => Some((holds_number(f.name, n), n.to_string())),
                (None, None) => None,
            };
            match held {
                Some((true, _)) => {}
                Some((false, n)) => {
                    note = Some(format!(
                        "sizes differ: the peer ran {n}, cuprite's figure is \"{}\"",
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
    Ok(rows)
}

fn opt(x: Option<f64>) -> String {
    x.map(fmt_num).unwrap_or_else(|| "-".into())
}

/// Judges peers, writes the JSON, draws the charts and compares, as `opts` asks. `loaded`:
/// the report came from `--from` (not this run). Returns false when a file could not be
/// used (a peer file refused included), true otherwise (regressions and missed peer targets
/// are flagged, not failures).
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
    let mut usable = true;
    // Only the accepted peer files are drawn on the charts.
    let mut accepted = Vec::new();
    for ((peer, path), verdict) in peers
        .iter()
        .zip(&opts.peers)
        .zip(judge_peer_files(&report, &peers))
    {
        let label = peer["peer"].as_str().unwrap_or("peer");
        let rows = match verdict {
            Ok(rows) => {
                accepted.push(peer.clone());
                rows
            }
            Err(why) => {
                crate::outln!(
                    "\npeer file {} ({label}) REFUSED, nothing judged: {why}",
                    path.display()
                );
                judged.push(serde_json::json!({"peer": label, "refused": why}));
                usable = false;
                continue;
            }
        };
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
    // A loaded report is written back to its own file only when a peer file was accepted: it
    // then gains the `peers` section the headline table (`cuprite bench-report`) is made from.
    // Otherwise the file is left as it was (a refused peer file does not replace its peers).
    if let Some(path) = &opts.json
        && !(accepted.is_empty() && loaded && opts.from.as_deref() == Some(path.as_path()))
    {
        super::table::write_json(path, &report)?;
    }
    if let Some(dir) = &opts.plot {
        let files = super::plot::write_charts(&report, &accepted, dir)?;
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
    Ok(usable)
}
