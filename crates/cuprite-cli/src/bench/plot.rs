//! `cuprite bench --plot DIR`: SVG charts of a run's figures.
//!
//! This module owns turning a JSON report's [`PlotPoint`](super::PlotPoint)s (and a peer
//! file's curves) into one SVG file per chart, with `plotters`' SVG backend (no system
//! library, no font file: the SVG names a sans-serif font and the viewer draws the text). It
//! measures nothing and judges nothing.
//!
//! A chart holds named series, one line each, sorted by x. Size axes are logarithmic (drawn as
//! log2 of the size, labelled in K/M/G); sample axes are linear. cuprite's series are solid
//! lines; a peer library's series are dashed, in the colour of the cuprite series of the same
//! name when there is one.

use super::context::BenchError;
use plotters::prelude::*;
use serde_json::Value;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// The points of one line.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Series {
    /// `(x, y)` pairs, sorted by x when drawn.
    pub points: Vec<(f64, f64)>,
    /// Whether it comes from a peer library (drawn dashed).
    pub peer: bool,
}

/// One chart: its axes and its lines.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Chart {
    /// What x counts (`bytes`, `f32 elements`, `sample`...).
    pub x_label: String,
    /// Whether x is a size, drawn on a logarithmic axis.
    pub log_x: bool,
    /// The unit of y (the figures' unit).
    pub unit: String,
    /// The lines, by name.
    pub series: BTreeMap<String, Series>,
}

/// Collects the charts of a JSON report (figures' `plot` entries, from benchmarks that ran)
/// and of peer files (`curves`: `{chart, series, x, y, x_label, log_x?, unit?}`), by title.
pub fn charts(report: &Value, peers: &[Value]) -> BTreeMap<String, Chart> {
    let mut out: BTreeMap<String, Chart> = BTreeMap::new();
    let results = report["results"]
        .as_array()
        .map(Vec::as_slice)
        .unwrap_or(&[]);
    for r in results.iter().filter(|r| r["status"] == "ran") {
        for f in r["figures"].as_array().map(Vec::as_slice).unwrap_or(&[]) {
            let unit = f["unit"].as_str().unwrap_or("");
            for p in f["plot"].as_array().map(Vec::as_slice).unwrap_or(&[]) {
                add_point(&mut out, p, unit, None);
            }
        }
    }
    for peer in peers {
        let label = peer["peer"].as_str().unwrap_or("peer").to_string();
        for p in peer["curves"].as_array().map(Vec::as_slice).unwrap_or(&[]) {
            let unit = p["unit"].as_str().unwrap_or("");
            add_point(&mut out, p, unit, Some(&label));
        }
    }
    out
}

fn add_point(out: &mut BTreeMap<String, Chart>, p: &Value, unit: &str, peer: Option<&str>) {
    let (Some(chart), Some(series), Some(x), Some(y)) = (
        p["chart"].as_str(),
        p["series"].as_str(),
        p["x"].as_f64(),
        p["y"].as_f64(),
    ) else {
        return;
    };
    if !x.is_finite() || !y.is_finite() {
        return;
    }
    let log_x = p["log_x"].as_bool().unwrap_or(true);
    if log_x && x <= 0.0 {
        return;
    }
    let c = out.entry(chart.to_string()).or_insert_with(|| Chart {
        x_label: p["x_label"].as_str().unwrap_or("").to_string(),
        log_x,
        unit: unit.to_string(),
        series: BTreeMap::new(),
    });
    if c.unit.is_empty() {
        c.unit = unit.to_string();
    }
    let name = match peer {
        Some(label) => format!("{label}: {series}"),
        None => series.to_string(),
    };
    let s = c.series.entry(name).or_default();
    s.peer = peer.is_some();
    s.points.push((x, y));
}

/// A file name for a chart title: lower-case letters, digits and dashes.
pub fn file_name(title: &str) -> String {
    let mut s = String::new();
    for c in title.chars() {
        if c.is_ascii_alphanumeric() {
            s.push(c.to_ascii_lowercase());
        } else if !s.ends_with('-') && !s.is_empty() {
            s.push('-');
        }
    }
    format!("{}.svg", s.trim_end_matches('-'))
}

/// `65536` → `64K`, `3221225472` → `3G`: sizes in powers of 1024.
pub fn size_label(x: f64) -> String {
    let units = [("G", 1u64 << 30), ("M", 1 << 20), ("K", 1 << 10)];
    for (u, v) in units {
        let v = v as f64;
        if x >= v {
            let q = x / v;
            return if (q - q.round()).abs() < 1e-9 {
                format!("{}{u}", q.round())
            } else {
                format!("{q:.1}{u}")
            };
        }
    }
    format!("{}", x.round())
}

/// An axis label: no trailing zeros (`2.5`, `3000`, `0.125`).
pub fn axis_number(v: f64) -> String {
    if v.abs() >= 100.0 {
        format!("{v:.0}")
    } else {
        let s = format!("{v:.3}");
        s.trim_end_matches('0').trim_end_matches('.').to_string()
    }
}

const PALETTE: [RGBColor; 8] = [
    RGBColor(31, 119, 180),
    RGBColor(214, 39, 40),
    RGBColor(44, 160, 44),
    RGBColor(255, 127, 14),
    RGBColor(148, 103, 189),
    RGBColor(140, 86, 75),
    RGBColor(23, 190, 207),
    RGBColor(127, 127, 127),
];

/// Draws every chart of `report` (and `peers`) into `dir` (created if needed); returns the
/// files written. Each title has the report's device and date under it.
pub fn write_charts(
    report: &Value,
    peers: &[Value],
    dir: &Path,
) -> Result<Vec<PathBuf>, BenchError> {
    std::fs::create_dir_all(dir).map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
    let subtitle = format!(
        "{}, {}",
        report["device"].as_str().unwrap_or("unknown device"),
        report["date"].as_str().unwrap_or("")
    );
    let mut files = Vec::new();
    for (title, chart) in charts(report, peers) {
        let path = dir.join(file_name(&title));
        draw(&path, &title, &subtitle, &chart)
            .map_err(|e| format!("cannot draw {}: {e}", path.display()))?;
        files.push(path);
    }
    Ok(files)
}

/// Draws one chart as an SVG file.
pub fn draw(
    path: &Path,
    title: &str,
    subtitle: &str,
    chart: &Chart,
) -> Result<(), Box<dyn std::error::Error>> {
    // Times against size span decades: a logarithmic y axis (drawn as log10). Rates and
    // samples keep a linear one from 0.
    let log_y = chart.log_x
        && !super::figure::unit_higher_is_better(&chart.unit)
        && chart
            .series
            .values()
            .all(|s| s.points.iter().all(|&(_, y)| y > 0.0));
    let tx = |x: f64| if chart.log_x { x.log2() } else { x };
    let ty = |y: f64| if log_y { y.log10() } else { y };
    let all: Vec<(f64, f64)> = chart
        .series
        .values()
        .flat_map(|s| s.points.iter().map(|&(x, y)| (tx(x), ty(y))))
        .collect();
    if all.is_empty() {
        return Err("no points".into());
    }
    let (mut x0, mut x1) = all
        .iter()
        .fold((f64::MAX, f64::MIN), |(a, b), &(x, _)| (a.min(x), b.max(x)));
    if x1 - x0 < 1e-9 {
        x0 -= 1.0;
        x1 += 1.0;
    }
    let top = all.iter().map(|&(_, y)| y).fold(f64::MIN, f64::max);
    let (y0, y1) = if log_y {
        let low = all.iter().map(|&(_, y)| y).fold(f64::MAX, f64::min);
        (low.floor(), top.ceil().max(low.floor() + 1.0))
    } else if top > 0.0 {
        (0.0, top * 1.12)
    } else {
        (0.0, 1.0)
    };

    let root = SVGBackend::new(path, (960, 600)).into_drawing_area();
    root.fill(&WHITE)?;
    let (top, body) = root.split_vertically(56);
    top.draw(&Text::new(
        title.to_string(),
        (16, 8),
        ("sans-serif", 22).into_font().color(&BLACK),
    ))?;
    top.draw(&Text::new(
        subtitle.to_string(),
        (16, 34),
        ("sans-serif", 14).into_font().color(&RGBColor(90, 90, 90)),
    ))?;
    let mut c = ChartBuilder::on(&body)
        .margin(14)
        .x_label_area_size(46)
        .y_label_area_size(70)
        .build_cartesian_2d(x0..x1, y0..y1)?;
    let xfmt = |v: &f64| {
        if chart.log_x {
            size_label(v.exp2())
        } else {
            format!("{}", v.round())
        }
    };
    let yfmt = |v: &f64| {
        if log_y {
            axis_number(10f64.powf(*v))
        } else {
            axis_number(*v)
        }
    };
    c.configure_mesh()
        .x_desc(if chart.log_x {
            format!("{} (log scale)", chart.x_label)
        } else {
            chart.x_label.clone()
        })
        .y_desc(if log_y {
            format!("{} (log scale)", chart.unit)
        } else {
            chart.unit.clone()
        })
        .x_label_formatter(&xfmt)
        .y_label_formatter(&yfmt)
        .x_labels(12)
        // Log y: one label per decade.
        .y_labels(if log_y {
            (y1 - y0).round() as usize + 1
        } else {
            10
        })
        .light_line_style(RGBColor(235, 235, 235))
        .label_style(("sans-serif", 14))
        .axis_desc_style(("sans-serif", 16))
        .draw()?;

    // A cuprite series and the peer series of the same name share a colour.
    let mut colours: BTreeMap<String, RGBColor> = BTreeMap::new();
    let mut next = 0usize;
    let mut colour_of = |name: &str| -> RGBColor {
        let key = name.rsplit(": ").next().unwrap_or(name).to_string();
        *colours.entry(key).or_insert_with(|| {
            let c = PALETTE[next % PALETTE.len()];
            next += 1;
            c
        })
    };
    for (name, s) in chart.series.iter().filter(|(_, s)| !s.peer) {
        let colour = colour_of(name);
        let mut pts: Vec<(f64, f64)> = s.points.iter().map(|&(x, y)| (tx(x), ty(y))).collect();
        pts.sort_by(|a, b| a.0.total_cmp(&b.0));
        let style = ShapeStyle::from(colour).stroke_width(2);
        c.draw_series(LineSeries::new(pts, style))?
            .label(name.clone())
            .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 24, y)], style));
    }
    for (name, s) in chart.series.iter().filter(|(_, s)| s.peer) {
        let colour = colour_of(name);
        let mut pts: Vec<(f64, f64)> = s.points.iter().map(|&(x, y)| (tx(x), ty(y))).collect();
        pts.sort_by(|a, b| a.0.total_cmp(&b.0));
        let style = ShapeStyle::from(colour).stroke_width(2);
        c.draw_series(DashedLineSeries::new(pts, 8, 5, style))?
            .label(format!("{name} (dashed)"))
            .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 8, y)], style));
    }
    c.configure_series_labels()
        // Sizes: curves rise to the right, the upper left is free. Samples: flat lines over a
        // y axis from 0, the lower right is free.
        .position(if chart.log_x {
            SeriesLabelPosition::UpperLeft
        } else {
            SeriesLabelPosition::LowerRight
        })
        .background_style(WHITE.mix(0.85))
        .border_style(RGBColor(180, 180, 180))
        .label_font(("sans-serif", 14))
        .draw()?;
    root.present()?;
    Ok(())
}
