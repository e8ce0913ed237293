//! `cuprite bench`: the benchmark harness.
//!
//! This module owns running benchmarks (selection, warm-up and repeat settings, progress,
//! the table, JSON) and the timing helpers they share. It must not hold any benchmark itself:
//! each topic has its own file `bench/<topic>.rs` exposing `pub fn benchmarks() -> Vec<Benchmark>`,
//! and [`all`] concatenates them. Topic files take the names they share from [`kit`] (which
//! gathers them from `context`, `figure` and `registry`), so nothing below this module imports
//! it back.
//!
//! A benchmark returns [`Figure`]s. Each figure carries its median, min and max, its unit, and,
//! where it has one, the ceiling it is compared to *measured in the same run* (device copy
//! bandwidth from [`BenchCtx::device_copy_ceiling`], host memcpy bandwidth, the cost of a raw
//! driver call...), the ratio to it, and its target with whether it was met.
//!
//! Timing: warm up first, time device work with events (see [`BenchCtx::time_device`];
//! [`curves::per_call`] for K back-to-back calls per event pair), host costs with `Instant`
//! ([`BenchCtx::time_host`]), repeat, take the median; never time zeros.
//!
//! After a run (or on a saved JSON report, `--from`), [`report`] compares with a saved run
//! (`--compare`) and with a peer library's figures (`--peers`), and [`plot`] draws the figures
//! that carry [`PlotPoint`]s as SVG charts (`--plot`).

pub mod array;
pub mod blas;
pub mod ceiling;
pub mod conv_nn;
pub mod curves;
pub mod fft;
pub mod graphs;
pub mod headline;
pub mod host_flops;
pub mod image;
pub mod image_geometry;
pub mod image_morph;
pub mod image_vision;
pub mod index;
pub mod interop;
pub mod launch;
pub mod linalg;
pub mod memory;
pub mod mesh;
pub mod nccl;
pub mod numpy;
pub mod plot;
pub mod report;
pub mod scan;
pub mod signal;
pub mod sort;
pub mod sparse;
pub mod workloads;

mod context;
mod figure;
pub mod kit;
mod registry;
mod table;

pub use context::{BenchCtx, BenchError, check};
pub use figure::{
    Ceiling, Figure, PlotPoint, Samples, Target, TimeUnit, fmt_num, unit_higher_is_better,
};
use registry::Outcome;
pub use registry::{BenchResult, Benchmark, RunOptions};
use table::{json_report, markdown_rows, print_table};
pub use table::{utc_now, write_json};
pub mod rowstats;

use indicatif::{ProgressBar, ProgressStyle};
use std::time::Instant;

/// Every benchmark of every topic, in a stable order.
pub fn all() -> Vec<Benchmark> {
    let mut v = Vec::new();
    v.extend(ceiling::benchmarks());
    v.extend(host_flops::benchmarks());
    v.extend(memory::benchmarks());
    v.extend(launch::benchmarks());
    v.extend(array::benchmarks());
    v.extend(linalg::benchmarks());
    v.extend(interop::benchmarks());
    v.extend(curves::benchmarks());
    v.extend(fft::benchmarks());
    v.extend(sort::benchmarks());
    v.extend(index::benchmarks());
    v.extend(nccl::benchmarks());
    v.extend(numpy::benchmarks());
    v.extend(mesh::benchmarks());
    v.extend(blas::benchmarks());
    v.extend(scan::benchmarks());
    v.extend(sparse::benchmarks());
    v.extend(rowstats::benchmarks());
    v.extend(workloads::benchmarks());
    v.extend(graphs::benchmarks());
    v.extend(signal::benchmarks());
    v.extend(conv_nn::benchmarks());
    v.extend(image_morph::benchmarks());
    v.extend(image_vision::benchmarks());
    v.extend(image::benchmarks());
    v.extend(image_geometry::benchmarks());
    v
}

/// Runs the selected benchmarks, prints the table, writes the JSON. Returns whether every
/// selected benchmark that could run succeeded.
pub fn run(opts: &RunOptions) -> Result<bool, BenchError> {
    if let Some(path) = &opts.from {
        let report = report::load(path)?;
        crate::outln!("report {} ({})", path.display(), report::describe(&report));
        return report::post_process(opts, report, true);
    }
    let selected: Vec<Benchmark> = all()
        .into_iter()
        .filter(|b| {
            opts.filters.is_empty()
                || opts
                    .filters
                    .iter()
                    .any(|f| b.name.contains(f.as_str()) || b.group == f)
        })
        .collect();
    if opts.list {
        for b in &selected {
            crate::outln!(
                "{:<40} {}",
                b.name,
                if b.needs_gpu { "(GPU)" } else { "(CPU)" }
            );
        }
        return Ok(true);
    }
    if selected.is_empty() {
        let names: Vec<&str> = all().iter().map(|b| b.name).collect();
        return Err(format!(
            "no benchmark matches {:?}; there are: {}",
            opts.filters,
            names.join(", ")
        )
        .into());
    }
    let gpu = gpu_presence();
    let mut ctx = BenchCtx::new(opts.warmup, opts.repeats, opts.quick);
    // Progress only on a terminal: piped or logged output stays the table alone.
    let bar = if std::io::IsTerminal::is_terminal(&std::io::stderr()) {
        ProgressBar::new(selected.len() as u64)
    } else {
        ProgressBar::hidden()
    };
    bar.set_style(
        ProgressStyle::with_template("{spinner} [{bar:30}] {pos}/{len} {prefix}: {msg}")
            .unwrap_or_else(|_| ProgressStyle::default_bar())
            .progress_chars("=> "),
    );
    ctx.progress = bar.clone();
    let mut outcomes = Vec::new();
    for b in &selected {
        bar.set_prefix(b.name);
        bar.set_message("");
        let outcome = match (&gpu, b.needs_gpu) {
            (Err(why), true) => Outcome::Skipped(why.clone()),
            _ => {
                let t = Instant::now();
                match (b.run)(&mut ctx) {
                    Ok(figs) => Outcome::Ran(figs, t.elapsed()),
                    // A CUDA library that is not installed (NVRTC on a machine without it)
                    // means "cannot run here", like a missing GPU: skipped, not failed.
                    Err(e) => match e.downcast_ref::<cuprite_driver::Error>() {
                        Some(cuprite_driver::Error::LibraryNotFound { library, tried }) => {
                            Outcome::Skipped(format!(
                                "{library} not found ({} places tried)",
                                tried.len()
                            ))
                        }
                        _ => Outcome::Failed(e.to_string()),
                    },
                }
            }
        };
        outcomes.push((*b, outcome));
        bar.inc(1);
    }
    bar.finish_and_clear();

    let device = match &gpu {
        Ok(name) => name.clone(),
        Err(why) => format!("the CPU only: {why}"),
    };
    print_table(&device, &outcomes);
    if opts.markdown {
        crate::outln!("\nthe figures as Markdown rows (for notes in docs/perf-log/):");
        for row in markdown_rows(&device, &outcomes) {
            crate::outln!("{row}");
        }
    }
    let mut report = json_report(&device, &ctx, &outcomes);
    if gpu.is_err() {
        report["gpu"] = false.into();
    } else if let Ok(uuid) = cuprite_driver::Device::get(0).and_then(|d| d.uuid()) {
        // What `--peers` checks a peer file's device against, beside the name.
        report["device_uuid"] = uuid.into();
    }
    let all_ran = !outcomes
        .iter()
        .any(|(_, o)| matches!(o, Outcome::Failed(_)));
    Ok(report::post_process(opts, report, false)? && all_ran)
}

/// The device 0 name when a GPU can be used, else why not.
fn gpu_presence() -> Result<String, String> {
    match cuprite_driver::Device::count() {
        Ok(0) => Err("the driver reports no CUDA device".into()),
        Ok(_) => cuprite_driver::Device::get(0)
            .and_then(|d| d.name())
            .map_err(|e| e.to_string()),
        Err(cuprite_driver::Error::LibraryNotFound { library, .. }) => {
            Err(format!("no CUDA driver ({library} not found)"))
        }
        Err(e) => Err(format!("no usable CUDA driver: {e}")),
    }
}
