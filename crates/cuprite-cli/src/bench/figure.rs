//! What a benchmark returns: [`Figure`]s with their samples, unit, ceiling, target and chart
//! points.

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
///
/// [`plot`]: super::plot
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

    pub(super) fn to_json(&self) -> serde_json::Value {
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
