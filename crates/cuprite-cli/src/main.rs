//! `cuprite`: a demo of the stack, information about this machine's CUDA setup, and benchmarks.
//!
//! ```text
//! cuprite demo [--n N]
//! cuprite info [--json] [--all-attributes]
//! cuprite fuzz [--programs N] [--seed S] [--structures K] [--cpu] [--only K] [--threads N]
//! cuprite stress [--threads N] [--streams M] [--seconds T] [--cpu]
//! cuprite bench [FILTER]... [--json FILE] [--warmup N] [--repeats N] [--quick] [--list] [--markdown]
//!               [--plot DIR] [--compare OLD.json] [--threshold F] [--peers FILE]... [--from FILE]
//! cuprite bench-report REPORT.json [--markdown DOC.md [--merge]]
//! ```

use clap::{Parser, Subcommand};
use cuprite_cli::{bench, demo, fuzz, info, stress};
use std::path::PathBuf;
use std::process::ExitCode;

#[derive(Debug, Parser)]
#[command(
    name = "cuprite",
    version,
    about = "Safe, fast GPU computing for Rust: tools"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Show the stack at work: arrays, a fused expression, a custom NVRTC kernel on the array
    /// stream and a fused reduction, each step timed (the array part runs on the CPU without a
    /// GPU).
    Demo {
        /// Number of elements (default 2^24 on a GPU, 2^22 on the CPU).
        #[arg(long)]
        n: Option<usize>,
    },
    /// Show the CUDA driver, devices, libraries found, and the array backend that would be used.
    Info {
        /// Print JSON instead of text.
        #[arg(long)]
        json: bool,
        /// Also list every device attribute the driver answers.
        #[arg(long)]
        all_attributes: bool,
    },
    /// Differential fuzzing: random array programs run on CUDA and on the CPU, compared within
    /// each program's error bound; a mismatch prints a shrunk Rust reproducer. Exits non-zero
    /// on any mismatch.
    Fuzz {
        /// Number of programs.
        #[arg(long, default_value_t = 10_000)]
        programs: usize,
        /// Seed of the run (the same seed gives the same programs).
        #[arg(long, default_value_t = 1)]
        seed: u64,
        /// Number of distinct program structures drawn from (kernels are shared within one).
        #[arg(long, default_value_t = 300)]
        structures: u64,
        /// Compare the CPU backend with itself (views against copied leaves): no GPU needed.
        #[arg(long)]
        cpu: bool,
        /// Compare each program's eager run with the same program compiled
        /// (`cuprite_array::compile`), captured and replayed twice, bit for bit (on the CPU
        /// backend with --cpu).
        #[arg(long)]
        replay: bool,
        /// Run only program K of the seed (to replay a mismatch).
        #[arg(long, value_name = "K")]
        only: Option<u64>,
        /// Stop after this many mismatches.
        #[arg(long, default_value_t = 5)]
        max_failures: usize,
        /// Start no new program after this many seconds (the report says how many ran).
        #[arg(long, value_name = "SECONDS")]
        max_seconds: Option<f64>,
        /// Threads checking programs at once (0: one per core).
        #[arg(long, default_value_t = 0)]
        threads: usize,
    },
    /// Stress test: threads × streams of mixed array work, custom kernels on array memory,
    /// cross-stream hand-offs and drops, every value checked exactly; fails on any error, wrong
    /// value, leaked memory or stall.
    Stress {
        /// Worker threads.
        #[arg(long, default_value_t = 16)]
        threads: usize,
        /// Streams per device shared by the threads (the array stream included).
        #[arg(long, default_value_t = 4)]
        streams: usize,
        /// Duration in seconds.
        #[arg(long, default_value_t = 60.0)]
        seconds: f64,
        /// Run on the CPU backend even with a GPU (no custom kernels there).
        #[arg(long)]
        cpu: bool,
        /// Seconds without progress after which the watchdog fails the run.
        #[arg(long, default_value_t = 60.0)]
        watchdog: f64,
    },
    /// Run benchmarks (all, or those whose name or group contains a FILTER).
    Bench {
        /// Substrings selecting benchmarks by name or group.
        filters: Vec<String>,
        /// Also write the results as JSON to this file.
        #[arg(long, value_name = "FILE")]
        json: Option<PathBuf>,
        /// Untimed warm-up runs per measurement.
        #[arg(long, default_value_t = 3)]
        warmup: usize,
        /// Timed repeats per measurement (the median is reported).
        #[arg(long, default_value_t = 20)]
        repeats: usize,
        /// Smaller sizes and 5 repeats: a quick smoke run, not for reporting.
        #[arg(long)]
        quick: bool,
        /// List the selected benchmarks and exit.
        #[arg(long)]
        list: bool,
        /// Also print every figure as a Markdown table row (device, date, figure, median with
        /// min and max, ceiling, ratio, target, met), for notes in docs/perf-log/. The headline
        /// table of docs/PERFORMANCE.md is not made from these rows: `cuprite bench-report`
        /// writes it from a `--json` report taken with `--peers`.
        #[arg(long)]
        markdown: bool,
        /// Write SVG charts (bandwidth against size, host time against the raw call, peers
        /// beside) into this folder.
        #[arg(long, value_name = "DIR")]
        plot: Option<PathBuf>,
        /// Print each figure's ratio to this saved JSON report (`--json` of an earlier run) and
        /// flag regressions.
        #[arg(long, value_name = "OLD.json")]
        compare: Option<PathBuf>,
        /// With --compare: a figure this fraction worse than before is a regression.
        #[arg(long, default_value_t = 0.10, value_name = "F")]
        threshold: f64,
        /// A peer library's figures (JSON written by a script of benches/peers/): each ratio
        /// is computed and judged, and the peer's curves are drawn beside cuprite's.
        /// Repeatable (one file per peer script).
        #[arg(long, value_name = "FILE")]
        peers: Vec<PathBuf>,
        /// Read the results from this saved JSON report instead of running benchmarks. With
        /// `--peers` and `--json` naming the same file, the judged peers are written into it
        /// (what `cuprite bench-report` makes the headline table from).
        #[arg(long, value_name = "FILE")]
        from: Option<PathBuf>,
    },
    /// The headline table of a saved `cuprite bench --json` report written with `--peers`:
    /// each figure beside its peer, the ratio with higher meaning better for cuprite, device
    /// and date. Printed, or written between the markers of a Markdown file.
    BenchReport {
        /// The JSON reports (one or more, such as one per benchmark group): their rows are
        /// listed in the order given, each with its own report's device and date.
        #[arg(required = true)]
        report: Vec<PathBuf>,
        /// Rewrite the table between the headline markers of this Markdown file (for example
        /// docs/PERFORMANCE.md) instead of printing it.
        #[arg(long, value_name = "DOC.md")]
        markdown: Option<PathBuf>,
        /// With `--markdown`: keep the rows of the table already there whose figure these
        /// reports do not measure, replace those they do, and add the new ones after.
        #[arg(long, requires = "markdown")]
        merge: bool,
    },
}

/// `cuprite bench-report`: the headline table of `reports`, printed or written into
/// `markdown`.
fn bench_report(
    reports: &[PathBuf],
    markdown: Option<&std::path::Path>,
    merge: bool,
) -> Result<(), bench::BenchError> {
    let mut rows = Vec::new();
    for report in reports {
        let json = bench::report::load(report)?;
        rows.extend(
            bench::headline::rows(&json).map_err(|e| format!("{}: {e}", report.display()))?,
        );
    }
    let table = bench::headline::markdown(&rows);
    match markdown {
        None => cuprite_cli::outln!("{}", table.trim_end()),
        Some(path) => {
            let doc = std::fs::read_to_string(path)
                .map_err(|e| format!("cannot read {}: {e}", path.display()))?;
            let table = if merge {
                bench::headline::merged_markdown(&doc, &rows)
                    .map_err(|e| format!("{}: {e}", path.display()))?
            } else {
                table
            };
            let new = bench::headline::replace_between_markers(&doc, &table)
                .map_err(|e| format!("{}: {e}", path.display()))?;
            std::fs::write(path, new)
                .map_err(|e| format!("cannot write {}: {e}", path.display()))?;
            cuprite_cli::outln!("headline table written to {}", path.display());
        }
    }
    Ok(())
}

fn main() -> ExitCode {
    // The child process of the array benchmark's warm disk-cache figure.
    if let Some(r) = bench::array::warm_child() {
        return match r {
            Ok(ms) => {
                cuprite_cli::outln!("{ms}");
                ExitCode::SUCCESS
            }
            Err(e) => {
                cuprite_cli::outln!("error: {e}");
                ExitCode::FAILURE
            }
        };
    }
    let cli = Cli::parse();
    match cli.command {
        Command::Demo { n } => match demo::run(n) {
            Ok(report) => {
                cuprite_cli::outln!("{}", report.to_text().trim_end());
                ExitCode::SUCCESS
            }
            Err(e) => {
                eprintln!("cuprite demo: {e}");
                ExitCode::FAILURE
            }
        },
        Command::Info {
            json,
            all_attributes,
        } => {
            let report = info::gather_with(all_attributes);
            if json {
                match serde_json::to_string_pretty(&report.to_json()) {
                    Ok(s) => cuprite_cli::outln!("{s}"),
                    Err(e) => {
                        eprintln!("cuprite info: {e}");
                        return ExitCode::FAILURE;
                    }
                }
            } else {
                cuprite_cli::outln!("{}", report.to_text().trim_end());
            }
            ExitCode::SUCCESS
        }
        Command::Fuzz {
            programs,
            seed,
            structures,
            cpu,
            replay,
            only,
            max_failures,
            max_seconds,
            threads,
        } => {
            let cfg = fuzz::Config {
                programs,
                seed,
                structures,
                mode: match (cpu, replay) {
                    (true, false) => fuzz::Mode::CpuLayouts,
                    (false, false) => fuzz::Mode::CudaVsCpu,
                    (true, true) => fuzz::Mode::CpuReplay,
                    (false, true) => fuzz::Mode::Replay,
                },
                max_failures,
                only,
                max_seconds,
                print_failures: true,
                threads,
            };
            // CUDA devices, not the current backend's (the CPU backend counts one device).
            if !cpu && cuprite_driver::Device::count().unwrap_or(0) == 0 {
                eprintln!("cuprite fuzz: no CUDA device (use --cpu to fuzz the CPU backend alone)");
                return ExitCode::FAILURE;
            }
            let bar = indicatif::ProgressBar::new(if only.is_some() { 1 } else { programs as u64 });
            let report = fuzz::run(&cfg, |n| bar.set_position(n as u64));
            bar.finish_and_clear();
            cuprite_cli::outln!("{}", report.to_text().trim_end());
            if report.failures.is_empty() {
                ExitCode::SUCCESS
            } else {
                ExitCode::FAILURE
            }
        }
        Command::Stress {
            threads,
            streams,
            seconds,
            cpu,
            watchdog,
        } => {
            let cfg = stress::Config {
                threads,
                streams,
                seconds,
                cpu,
                watchdog,
            };
            match stress::run(&cfg) {
                Ok(report) => {
                    cuprite_cli::outln!("{}", report.to_text().trim_end());
                    if report.ok() {
                        ExitCode::SUCCESS
                    } else {
                        ExitCode::FAILURE
                    }
                }
                Err(e) => {
                    eprintln!("cuprite stress: {e}");
                    ExitCode::FAILURE
                }
            }
        }
        Command::Bench {
            filters,
            json,
            warmup,
            repeats,
            quick,
            list,
            markdown,
            plot,
            compare,
            threshold,
            peers,
            from,
        } => {
            let opts = bench::RunOptions {
                filters,
                warmup: if quick { warmup.min(1) } else { warmup },
                repeats: if quick { repeats.min(5) } else { repeats },
                quick,
                json,
                list,
                markdown,
                plot,
                compare,
                threshold,
                peers,
                from,
            };
            match bench::run(&opts) {
                Ok(true) => ExitCode::SUCCESS,
                Ok(false) => ExitCode::FAILURE,
                Err(e) => {
                    eprintln!("cuprite bench: {e}");
                    ExitCode::FAILURE
                }
            }
        }
        Command::BenchReport {
            report,
            markdown,
            merge,
        } => match bench_report(&report, markdown.as_deref(), merge) {
            Ok(()) => ExitCode::SUCCESS,
            Err(e) => {
                eprintln!("cuprite bench-report: {e}");
                ExitCode::FAILURE
            }
        },
    }
}
