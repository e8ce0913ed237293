//! `cuprite bench`: the benchmark harness.
//!
//! This module owns running benchmarks (selection, warm-up and repeat settings, progress,
//! the table, JSON) and the timing helpers they share. It must not hold any benchmark itself:
//! each topic has its own file `bench/<topic>.rs` exposing `pub fn benchmarks() -> Vec<Benchmark>`,
//! and [`all`] concatenates them.
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
pub mod curves;
pub mod fft;
pub mod interop;
pub mod launch;
pub mod linalg;
pub mod memory;
pub mod mesh;
pub mod nccl;
pub mod plot;
pub mod report;

use cuprite_sys::driver::{self as sys, CUevent, CUstream};
use indicatif::{ProgressBar, ProgressStyle};
use std::collections::HashMap;
use std::time::{Duration, Instant};

/// The error a benchmark returns: anything, so `?` works on every error type.
pub type BenchError = Box<dyn std::error::Error + Send + Sync>;

/// What a benchmark returns: its figures.
pub type BenchResult = Result<Vec<Figure>, BenchError>;

/// One named benchmark.
#[derive(Clone, Copy)]
pub struct Benchmark {
    /// Unique name, `<group>/<what>`, e.g. `ceiling/device_copy`. Filters match on it.
    pub name: &'static str,
    /// The topic it belongs to (its file's name), e.g. `ceiling`, `launch`, `array`.
    pub group: &'static str,
    /// Whether it needs a CUDA device (skipped, and reported as skipped, without one).
    pub needs_gpu: bool,
    /// The benchmark itself.
    pub run: fn(&mut BenchCtx) -> BenchResult,
}

impl std::fmt::Debug for Benchmark {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Benchmark")
            .field("name", &self.name)
            .field("group", &self.group)
            .field("needs_gpu", &self.needs_gpu)
            .finish()
    }
}

/// Every benchmark of every topic, in a stable order.
pub fn all() -> Vec<Benchmark> {
    let mut v = Vec::new();
    v.extend(ceiling::benchmarks());
    v.extend(memory::benchmarks());
    v.extend(launch::benchmarks());
    v.extend(array::benchmarks());
    v.extend(linalg::benchmarks());
    v.extend(interop::benchmarks());
    v.extend(curves::benchmarks());
    v.extend(fft::benchmarks());
    v.extend(nccl::benchmarks());
    v.extend(mesh::benchmarks());
    v.extend(blas::benchmarks());
    v
}

/// Samples of one measurement, in seconds.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Samples(pub Vec<f64>);

impl Samples {
    /// The median (mean of the two middle values for an even count); 0 when empty.
    pub fn median(&self) -> f64 {
        let mut v = self.0.clone();
        if v.is_empty() {
            return 0.0;
        }
        v.sort_by(f64::total_cmp);
        let n = v.len();
        if n % 2 == 1 {
            v[n / 2]
        } else {
            (v[n / 2 - 1] + v[n / 2]) / 2.0
        }
    }
    /// The smallest sample; 0 when empty.
    pub fn min(&self) -> f64 {
        self.0.iter().copied().reduce(f64::min).unwrap_or(0.0)
    }
    /// The largest sample; 0 when empty.
    pub fn max(&self) -> f64 {
        self.0.iter().copied().reduce(f64::max).unwrap_or(0.0)
    }
    /// Number of samples.
    pub fn len(&self) -> usize {
        self.0.len()
    }
    /// Whether there are none.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
}

/// A figure's target, and how it is judged.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Target {
    /// The ratio to the ceiling must be at most this (e.g. host cost ≤ 1.10× raw).
    RatioAtMost(f64),
    /// The ratio to the ceiling must be at least this (e.g. ≥ 0.8 of copy bandwidth).
    RatioAtLeast(f64),
    /// The median itself, in the figure's unit, must be at most this (e.g. ≤ 40 ms).
    AtMost(f64),
    /// The median itself must be at least this.
    AtLeast(f64),
}

impl std::fmt::Display for Target {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Target::RatioAtMost(x) => write!(f, "≤ {x}×"),
            Target::RatioAtLeast(x) => write!(f, "≥ {x}×"),
            Target::AtMost(x) => write!(f, "≤ {}", fmt_num(*x)),
            Target::AtLeast(x) => write!(f, "≥ {}", fmt_num(*x)),
        }
    }
}

/// A ceiling a figure is compared with: measured in the same run, in the figure's unit.
#[derive(Clone, Debug, PartialEq)]
pub struct Ceiling {
    /// What it is, e.g. `device copy bandwidth` or `raw cuLaunchKernel`.
    pub name: String,
    /// Its value in the figure's unit.
    pub value: f64,
}

/// One reported number.
#[derive(Clone, Debug, PartialEq)]
pub struct Figure {
    /// What was measured, e.g. `device copy bandwidth (1 GiB, read+write)`.
    pub name: String,
    /// Unit of median/min/max, e.g. `TB/s`, `GB/s`, `µs`, `ms`.
    pub unit: String,
    /// Median over the repeats.
    pub median: f64,
    /// Smallest value seen.
    pub min: f64,
    /// Largest value seen.
    pub max: f64,
    /// Number of samples behind median/min/max.
    pub samples: usize,
    /// The ceiling measured in the same run, if this figure has one.
    pub ceiling: Option<Ceiling>,
    /// The target, if the project set one.
    pub target: Option<Target>,
    /// A free remark (sizes, what the ceiling means...).
    pub note: Option<String>,
    /// Where this figure appears on the charts of `--plot` (none: not drawn).
    pub plot: Vec<PlotPoint>,
}

/// One point of a chart drawn by `cuprite bench --plot` (see [`plot`]): the charts are named,
/// each holds named series (one line each), and a series' points are sorted by `x`.
#[derive(Clone, Debug, PartialEq)]
pub struct PlotPoint {
    /// The chart's title; also names its file.
    pub chart: String,
    /// The line this point belongs to, e.g. `H2D (pinned)`.
    pub series: String,
    /// The x value, e.g. bytes or elements.
    pub x: f64,
    /// What x counts, e.g. `bytes`.
    pub x_label: String,
    /// Whether the x axis is logarithmic (sizes) or linear (sample index).
    pub log_x: bool,
    /// The y value in the figure's unit.
    pub y: f64,
}

/// Units for times.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TimeUnit {
    /// Nanoseconds.
    Ns,
    /// Microseconds.
    Us,
    /// Milliseconds.
    Ms,
    /// Seconds.
    S,
}

impl TimeUnit {
    fn per_second(self) -> f64 {
        match self {
            TimeUnit::Ns => 1e9,
            TimeUnit::Us => 1e6,
            TimeUnit::Ms => 1e3,
            TimeUnit::S => 1.0,
        }
    }
    fn label(self) -> &'static str {
        match self {
            TimeUnit::Ns => "ns",
            TimeUnit::Us => "µs",
            TimeUnit::Ms => "ms",
            TimeUnit::S => "s",
        }
    }
}

impl Figure {
    /// A figure from already computed values.
    pub fn new(
        name: impl Into<String>,
        unit: impl Into<String>,
        median: f64,
        min: f64,
        max: f64,
    ) -> Self {
        Figure {
            name: name.into(),
            unit: unit.into(),
            median,
            min,
            max,
            samples: 0,
            ceiling: None,
            target: None,
            note: None,
            plot: Vec::new(),
        }
    }

    /// Puts the median on chart `chart`, line `series`, at `x` (a size: the x axis is
    /// logarithmic), counted in `x_label`.
    pub fn plot_at(
        mut self,
        chart: impl Into<String>,
        series: impl Into<String>,
        x_label: impl Into<String>,
        x: f64,
    ) -> Self {
        self.plot.push(PlotPoint {
            chart: chart.into(),
            series: series.into(),
            x,
            x_label: x_label.into(),
            log_x: true,
            y: self.median,
        });
        self
    }

    /// Puts every sample on chart `chart`, line `series`, in the order taken (x: the sample's
    /// index); `scale` converts seconds to the figure's unit (e.g. `1e6` for µs).
    pub fn plot_samples(
        mut self,
        chart: impl Into<String>,
        series: impl Into<String>,
        samples: &Samples,
        scale: f64,
    ) -> Self {
        let (chart, series) = (chart.into(), series.into());
        for (i, s) in samples.0.iter().enumerate() {
            self.plot.push(PlotPoint {
                chart: chart.clone(),
                series: series.clone(),
                x: i as f64,
                x_label: "sample (in the order taken)".into(),
                log_x: false,
                y: s * scale,
            });
        }
        self
    }

    /// Whether a larger median is better: rates (units ending in `/s`) are, times and counts
    /// are not.
    pub fn higher_is_better(&self) -> bool {
        unit_higher_is_better(&self.unit)
    }

    /// A time figure (lower is better) from samples in seconds, shown in `unit`.
    pub fn time(name: impl Into<String>, samples: &Samples, unit: TimeUnit) -> Self {
        let k = unit.per_second();
        let mut f = Figure::new(
            name,
            unit.label(),
            samples.median() * k,
            samples.min() * k,
            samples.max() * k,
        );
        f.samples = samples.len();
        f
    }

    /// A rate figure (higher is better): `amount` units of work per sample (e.g. bytes moved,
    /// expressed in the unit's scale: `2.0 * GiB / 1e12` for TB/s) over each sample's time.
    /// The median rate is `amount / median time`; min and max come from the slowest and fastest
    /// samples.
    pub fn rate(
        name: impl Into<String>,
        unit: impl Into<String>,
        amount: f64,
        samples: &Samples,
    ) -> Self {
        let r = |t: f64| if t > 0.0 { amount / t } else { 0.0 };
        let mut f = Figure::new(
            name,
            unit,
            r(samples.median()),
            r(samples.max()),
            r(samples.min()),
        );
        f.samples = samples.len();
        f
    }

    /// Sets the ceiling (same unit as the figure).
    pub fn with_ceiling(mut self, name: impl Into<String>, value: f64) -> Self {
        self.ceiling = Some(Ceiling {
            name: name.into(),
            value,
        });
        self
    }

    /// Sets the ceiling from a [`Ceiling`].
    pub fn against(mut self, ceiling: &Ceiling) -> Self {
        self.ceiling = Some(ceiling.clone());
        self
    }

    /// Sets the target.
    pub fn with_target(mut self, target: Target) -> Self {
        self.target = Some(target);
        self
    }

    /// Sets the note.
    pub fn with_note(mut self, note: impl Into<String>) -> Self {
        self.note = Some(note.into());
        self
    }

    /// `median / ceiling`, when there is a ceiling.
    pub fn ratio(&self) -> Option<f64> {
        self.ceiling
            .as_ref()
            .filter(|c| c.value != 0.0)
            .map(|c| self.median / c.value)
    }

    /// Whether the target was met; `None` without a target (or a ratio target without a ceiling).
    pub fn met(&self) -> Option<bool> {
        match self.target? {
            Target::RatioAtMost(x) => self.ratio().map(|r| r <= x),
            Target::RatioAtLeast(x) => self.ratio().map(|r| r >= x),
            Target::AtMost(x) => Some(self.median <= x),
            Target::AtLeast(x) => Some(self.median >= x),
        }
    }

    /// The ratio as the table shows it (`-` without a ceiling).
    pub fn ratio_text(&self) -> String {
        self.ratio()
            .map(|r| format!("{r:.3}"))
            .unwrap_or_else(|| "-".into())
    }

    /// The target as the table shows it (`-` without one).
    pub fn target_text(&self) -> String {
        self.target
            .map(|t| t.to_string())
            .unwrap_or_else(|| "-".into())
    }

    /// `yes`, `NO`, or `-` when there is nothing to judge.
    pub fn met_text(&self) -> &'static str {
        match self.met() {
            Some(true) => "yes",
            Some(false) => "NO",
            None => "-",
        }
    }

    fn to_json(&self) -> serde_json::Value {
        serde_json::json!({
            "name": self.name,
            "unit": self.unit,
            "median": self.median,
            "min": self.min,
            "max": self.max,
            "samples": self.samples,
            "ceiling": self.ceiling.as_ref().map(|c| serde_json::json!({"name": c.name, "value": c.value})),
            "ratio": self.ratio(),
            "target": self.target.map(|t| t.to_string()),
            "met": self.met(),
            "note": self.note,
            "plot": self.plot.iter().map(|p| serde_json::json!({
                "chart": p.chart,
                "series": p.series,
                "x": p.x,
                "x_label": p.x_label,
                "log_x": p.log_x,
                "y": p.y,
            })).collect::<Vec<_>>(),
        })
    }
}

/// Whether a larger value in `unit` is better: rates (`GB/s`, `TFLOP/s`...) are; times
/// (`µs`, `ms`...) and counts are not.
pub fn unit_higher_is_better(unit: &str) -> bool {
    unit.ends_with("/s")
}

/// Settings and shared state of one `cuprite bench` run, handed to every benchmark.
pub struct BenchCtx {
    /// Untimed runs before sampling.
    pub warmup: usize,
    /// Timed samples per figure.
    pub repeats: usize,
    /// Smaller sizes and fewer repeats (for tests and smoke runs).
    pub quick: bool,
    progress: ProgressBar,
    ceilings: HashMap<&'static str, Result<Ceiling, String>>,
}

impl std::fmt::Debug for BenchCtx {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("BenchCtx")
            .field("warmup", &self.warmup)
            .field("repeats", &self.repeats)
            .field("quick", &self.quick)
            .finish()
    }
}

impl BenchCtx {
    /// A context with these settings, with no progress display.
    pub fn new(warmup: usize, repeats: usize, quick: bool) -> Self {
        BenchCtx {
            warmup,
            repeats: repeats.max(1),
            quick,
            progress: ProgressBar::hidden(),
            ceilings: HashMap::new(),
        }
    }

    /// `full`, or `quick` in quick mode: for problem sizes.
    pub fn size(&self, full: usize, quick: usize) -> usize {
        if self.quick { quick } else { full }
    }

    /// Shows what is being measured now, beside the progress bar.
    pub fn status(&self, msg: impl Into<String>) {
        self.progress.set_message(msg.into());
    }

    /// Times `f` on the host: `warmup` untimed calls, then `repeats` samples.
    pub fn time_host(&self, mut f: impl FnMut()) -> Samples {
        for _ in 0..self.warmup {
            f();
        }
        Samples(
            (0..self.repeats)
                .map(|_| {
                    let t = Instant::now();
                    f();
                    t.elapsed().as_secs_f64()
                })
                .collect(),
        )
    }

    /// Host time per call of `f`, for calls too cheap to time one by one: each sample runs `f`
    /// `iters` times (passing the index) and divides. Warm-up is `warmup × iters` calls.
    pub fn time_host_per_call(&self, iters: usize, mut f: impl FnMut(usize)) -> Samples {
        let iters = iters.max(1);
        for i in 0..self.warmup * iters {
            f(i);
        }
        Samples(
            (0..self.repeats)
                .map(|_| {
                    let t = Instant::now();
                    for i in 0..iters {
                        f(i);
                    }
                    t.elapsed().as_secs_f64() / iters as f64
                })
                .collect(),
        )
    }

    /// Like [`time_host_per_call`](Self::time_host_per_call) for fallible work: the first
    /// error stops the measurement and is returned.
    pub fn try_time_host_per_call<E: Into<BenchError>>(
        &self,
        iters: usize,
        mut f: impl FnMut(usize) -> Result<(), E>,
    ) -> Result<Samples, BenchError> {
        let iters = iters.max(1);
        for i in 0..self.warmup * iters {
            f(i).map_err(Into::into)?;
        }
        let mut out = Vec::with_capacity(self.repeats);
        for _ in 0..self.repeats {
            let t = Instant::now();
            for i in 0..iters {
                f(i).map_err(Into::into)?;
            }
            out.push(t.elapsed().as_secs_f64() / iters as f64);
        }
        Ok(Samples(out))
    }

    /// Times device work with CUDA events on `stream` (a context must be current on this
    /// thread, as any cuprite call leaves it): `warmup` untimed runs, then `repeats` samples,
    /// each the event time between just before and just after what `enqueue` puts on the
    /// stream. `enqueue` must only enqueue (asynchronous calls on `stream`).
    ///
    /// # Safety
    ///
    /// `stream` must be a live stream of the context current on this thread (e.g.
    /// `cuprite::Stream::raw()` of a stream that outlives the call), or null for the legacy
    /// default stream.
    pub unsafe fn time_device<E: Into<BenchError>>(
        &self,
        stream: CUstream,
        mut enqueue: impl FnMut() -> Result<(), E>,
    ) -> Result<Samples, BenchError> {
        let start = Event::new()?;
        let end = Event::new()?;
        for _ in 0..self.warmup {
            enqueue().map_err(Into::into)?;
        }
        // SAFETY: `stream` is a live stream of the current context (this method's contract).
        let status = unsafe { sys::cuStreamSynchronize(stream) };
        check(status, "cuStreamSynchronize")?;
        let mut out = Vec::with_capacity(self.repeats);
        for _ in 0..self.repeats {
            start.record(stream)?;
            enqueue().map_err(Into::into)?;
            end.record(stream)?;
            end.synchronize()?;
            out.push(end.elapsed_since(&start)?);
        }
        Ok(Samples(out))
    }

    /// The device-to-device copy bandwidth of device 0 in TB/s (bytes read plus bytes written),
    /// measured once per run on first request and shared by every benchmark that compares with
    /// it. See [`ceiling::device_copy_figure`].
    pub fn device_copy_ceiling(&mut self) -> Result<Ceiling, BenchError> {
        self.ceiling_once("device copy", |ctx| {
            let (fig, _) = ceiling::device_copy_figure(ctx)?;
            Ok(Ceiling {
                name: "device copy bandwidth (reference)".into(),
                value: fig.median,
            })
        })
    }

    /// The host memcpy bandwidth in GB/s (all threads; read plus write), measured once per run.
    pub fn host_copy_ceiling(&mut self) -> Result<Ceiling, BenchError> {
        self.ceiling_once("host copy", |ctx| {
            let threads = std::thread::available_parallelism().map_or(1, |n| n.get());
            let fig = ceiling::host_copy_figure(ctx, threads)?;
            Ok(Ceiling {
                name: format!("host memcpy bandwidth ({threads} threads)"),
                value: fig.median,
            })
        })
    }

    /// A ceiling computed once per run under `key` (the first caller pays for it; later callers
    /// and later benchmarks get the same value, so every ratio uses the same reference).
    pub fn ceiling_once(
        &mut self,
        key: &'static str,
        measure: impl FnOnce(&mut BenchCtx) -> Result<Ceiling, BenchError>,
    ) -> Result<Ceiling, BenchError> {
        if let Some(c) = self.ceilings.get(key) {
            return c.clone().map_err(Into::into);
        }
        let c = measure(self).map_err(|e| e.to_string());
        self.ceilings.insert(key, c.clone());
        c.map_err(Into::into)
    }
}

/// Rates measured by the ceiling benchmarks are also recorded as ceilings, so a later benchmark
/// in the same run reuses them instead of measuring again.
fn remember(ctx: &mut BenchCtx, key: &'static str, c: Ceiling) {
    ctx.ceilings.entry(key).or_insert(Ok(c));
}

/// A CUDA event with timing, destroyed on drop (raw driver calls: the harness must not depend on
/// the safe layer it measures).
struct Event(CUevent);

impl Event {
    fn new() -> Result<Self, BenchError> {
        let mut e: CUevent = std::ptr::null_mut();
        // SAFETY: `e` is a valid out-pointer; a context is current (caller's contract).
        let status = unsafe { sys::cuEventCreate(&mut e, sys::CUevent_flags::CU_EVENT_DEFAULT.0) };
        check(status, "cuEventCreate")?;
        Ok(Event(e))
    }
    fn record(&self, stream: CUstream) -> Result<(), BenchError> {
        // SAFETY: live event and stream of the current context.
        let status = unsafe { sys::cuEventRecord(self.0, stream) };
        check(status, "cuEventRecord")
    }
    fn synchronize(&self) -> Result<(), BenchError> {
        // SAFETY: live, recorded event.
        let status = unsafe { sys::cuEventSynchronize(self.0) };
        check(status, "cuEventSynchronize")
    }
    /// Seconds from `start` to this event (both recorded and complete).
    fn elapsed_since(&self, start: &Event) -> Result<f64, BenchError> {
        let mut ms = 0f32;
        // SAFETY: both events are live and completed; `ms` is a valid out-pointer.
        let status = unsafe { sys::cuEventElapsedTime(&mut ms, start.0, self.0) };
        check(status, "cuEventElapsedTime")?;
        Ok(f64::from(ms) / 1e3)
    }
}

impl Drop for Event {
    fn drop(&mut self) {
        // SAFETY: the event was created by cuEventCreate and is destroyed once; a failure here
        // can only mean the context is already gone, which leaves nothing to free.
        let _ = unsafe { sys::cuEventDestroy_v2(self.0) };
    }
}

/// Turns a raw driver result into a benchmark error naming the call.
pub fn check(
    r: Result<sys::CUresult, cuprite_sys::LoadError>,
    call: &'static str,
) -> Result<(), BenchError> {
    cuprite::error::check(r, call).map_err(Into::into)
}

/// Settings of one `cuprite bench` invocation.
#[derive(Clone, Debug, Default)]
pub struct RunOptions {
    /// Substrings: a benchmark runs when its name or group contains any of them (all when empty).
    pub filters: Vec<String>,
    /// Untimed warm-up runs.
    pub warmup: usize,
    /// Timed repeats.
    pub repeats: usize,
    /// Smaller sizes and fewer repeats.
    pub quick: bool,
    /// Where to write the JSON report.
    pub json: Option<std::path::PathBuf>,
    /// Only list the selected benchmarks.
    pub list: bool,
    /// Also print the figures as rows of the table in `docs/PERFORMANCE.md`.
    pub markdown: bool,
    /// Draw the figures' charts as SVG files into this folder.
    pub plot: Option<std::path::PathBuf>,
    /// Print each figure's ratio to this saved JSON report and flag regressions.
    pub compare: Option<std::path::PathBuf>,
    /// A worse ratio than this fraction (0.1: 10% slower or lower) counts as a regression.
    pub threshold: f64,
    /// Peer libraries' figures (JSON files of `benches/peers/` scripts): judged against
    /// cuprite's, and drawn beside them.
    pub peers: Vec<std::path::PathBuf>,
    /// Use this saved JSON report instead of running benchmarks (for `--plot`, `--compare`,
    /// `--peers`).
    pub from: Option<std::path::PathBuf>,
}

/// The outcome of one benchmark.
#[derive(Debug)]
enum Outcome {
    Ran(Vec<Figure>, Duration),
    Skipped(String),
    Failed(String),
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
                    Err(e) => match e.downcast_ref::<cuprite::Error>() {
                        Some(cuprite::Error::LibraryNotFound { library, tried }) => {
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
        crate::outln!("\nrows for docs/PERFORMANCE.md:");
        for row in markdown_rows(&device, &outcomes) {
            crate::outln!("{row}");
        }
    }
    let mut report = json_report(&device, &ctx, &outcomes);
    if gpu.is_err() {
        report["gpu"] = false.into();
    }
    let all_ran = !outcomes
        .iter()
        .any(|(_, o)| matches!(o, Outcome::Failed(_)));
    Ok(report::post_process(opts, report, false)? && all_ran)
}

/// Writes `report` as pretty JSON to `path`.
pub fn write_json(path: &std::path::Path, report: &serde_json::Value) -> Result<(), BenchError> {
    let text = serde_json::to_string_pretty(report)?;
    std::fs::write(path, text + "\n")
        .map_err(|e| format!("cannot write {}: {e}", path.display()))?;
    crate::outln!("JSON report written to {}", path.display());
    Ok(())
}

/// The device 0 name when a GPU can be used, else why not.
fn gpu_presence() -> Result<String, String> {
    match cuprite::Device::count() {
        Ok(0) => Err("the driver reports no CUDA device".into()),
        Ok(_) => cuprite::Device::get(0)
            .and_then(|d| d.name())
            .map_err(|e| e.to_string()),
        Err(cuprite::Error::LibraryNotFound { library, .. }) => {
            Err(format!("no CUDA driver ({library} not found)"))
        }
        Err(e) => Err(format!("no usable CUDA driver: {e}")),
    }
}

/// Formats a number with 3–4 significant digits.
pub fn fmt_num(x: f64) -> String {
    let a = x.abs();
    if a == 0.0 {
        "0".into()
    } else if a >= 1000.0 {
        format!("{x:.0}")
    } else if a >= 100.0 {
        format!("{x:.1}")
    } else if a >= 10.0 {
        format!("{x:.2}")
    } else if a >= 0.01 {
        format!("{x:.3}")
    } else {
        format!("{x:.3e}")
    }
}

fn print_table(device: &str, outcomes: &[(Benchmark, Outcome)]) {
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

/// The figures as rows of the `docs/PERFORMANCE.md` table:
/// `| device | date | figure | value | ceiling | ratio | target | met |`.
fn markdown_rows(device: &str, outcomes: &[(Benchmark, Outcome)]) -> Vec<String> {
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

fn json_report(
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
        "driver": cuprite::driver_version().ok().map(|(a, b)| format!("{a}.{b}")),
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
