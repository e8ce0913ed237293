//! The headline table of `docs/PERFORMANCE.md` (`cuprite bench-report`): every peer figure of a
//! `cuprite bench --json` report (written with `--peers`) as one row of cuprite's figure, the
//! peer's, their ratio written one way (higher is better for cuprite), the device and the date.
//!
//! The table sits between [`BEGIN_MARKER`] and [`END_MARKER`] in the Markdown file; everything
//! outside the markers is left byte for byte as it was. Nothing in a row is typed in by hand:
//! the ratio is computed here from the two medians the report holds.

use super::context::BenchError;
use super::figure::{fmt_num, unit_higher_is_better};
use serde_json::Value;

/// The line after which the generated table starts.
pub const BEGIN_MARKER: &str = "<!-- headline-table:begin (cuprite bench-report) -->";
/// The line before which the generated table ends.
pub const END_MARKER: &str = "<!-- headline-table:end -->";

/// One row of the headline table.
#[derive(Clone, Debug, PartialEq)]
pub struct HeadlineRow {
    /// What is compared (the peer rule's description).
    pub figure: String,
    /// cuprite's median.
    pub cuprite: f64,
    /// The peer library's name and version (the peer file's `peer`).
    pub peer_name: String,
    /// The peer's figure.
    pub peer: f64,
    /// The unit both are in.
    pub unit: String,
    /// How many times better cuprite is: `cuprite / peer` for a rate, `peer / cuprite` for a
    /// time; above 1 cuprite is ahead.
    pub ratio: f64,
    /// The device of the run.
    pub device: String,
    /// The date of the run (`YYYY-MM-DD`).
    pub date: String,
}

/// `cuprite / peer` for a rate (a unit ending in `/s`), `peer / cuprite` otherwise: the factor
/// by which cuprite is better. `None` when either value is not a positive finite number.
pub fn better_ratio(cuprite: f64, peer: f64, unit: &str) -> Option<f64> {
    let ok = |x: f64| x.is_finite() && x > 0.0;
    if !ok(cuprite) || !ok(peer) {
        return None;
    }
    Some(if unit_higher_is_better(unit) {
        cuprite / peer
    } else {
        peer / cuprite
    })
}

/// Every judged peer row of `report` (its `peers` section, written by `cuprite bench --peers`),
/// in report order. Rows without both figures are left out.
///
/// Returns an `Err` when the report has no `peers` section, or none of its rows has both
/// figures: a headline table needs at least one comparison.
pub fn rows(report: &Value) -> Result<Vec<HeadlineRow>, BenchError> {
    let peers = report["peers"].as_array().ok_or(
        "the report has no peer figures: run `cuprite bench --json FILE --peers PEER.json` \
         (or `--from FILE --peers PEER.json --json FILE` on a saved report)",
    )?;
    let device = report["device"].as_str().unwrap_or("unknown device");
    let date = report["date"]
        .as_str()
        .map(|d| d.split_whitespace().next().unwrap_or(d))
        .unwrap_or("unknown date");
    let mut out = Vec::new();
    for p in peers {
        let peer_name = p["peer"].as_str().unwrap_or("peer");
        for r in p["rows"].as_array().map(Vec::as_slice).unwrap_or(&[]) {
            let (Some(c), Some(v)) = (r["cuprite"].as_f64(), r["peer"].as_f64()) else {
                continue;
            };
            let unit = r["unit"].as_str().unwrap_or("");
            let Some(ratio) = better_ratio(c, v, unit) else {
                continue;
            };
            out.push(HeadlineRow {
                figure: r["what"].as_str().unwrap_or("?").to_string(),
                cuprite: c,
                peer_name: peer_name.to_string(),
                peer: v,
                unit: unit.to_string(),
                ratio,
                device: device.to_string(),
                date: date.to_string(),
            });
        }
    }
    if out.is_empty() {
        return Err("the report's peer section has no row with both figures".into());
    }
    Ok(out)
}

/// The header of the table: its column names and the separator line.
const HEADER: &str = "| figure | cuprite | peer | ratio (higher is better) | device | date |\n\
                      |---|---|---|---|---|---|\n";

/// `s` escaped for one cell of a Markdown table.
fn cell(s: &str) -> String {
    s.replace('|', "\\|")
}

/// One row as a line of the table (without its newline).
fn line(r: &HeadlineRow) -> String {
    format!(
        "| {} | {} {} | {} {} {} | {:.3}× | {} | {} |",
        cell(&r.figure),
        fmt_num(r.cuprite),
        r.unit,
        cell(&r.peer_name),
        fmt_num(r.peer),
        r.unit,
        r.ratio,
        cell(&r.device),
        r.date
    )
}

/// The rows as a Markdown table (a header, then one line a row, ending with a newline).
pub fn markdown(rows: &[HeadlineRow]) -> String {
    let mut t = String::from(HEADER);
    for r in rows {
        t.push_str(&line(r));
        t.push('\n');
    }
    t
}

/// The table of `rows` merged into the one already between the markers of `doc`: a row of
/// the old table whose figure (its first cell) is among `rows` is replaced in place by the new
/// row, the other old rows are kept as they were (written by an earlier run of this command),
/// and the new rows not in the old table follow, in their order.
///
/// Returns an `Err` when the markers are missing or out of order (see
/// [`replace_between_markers`]).
pub fn merged_markdown(doc: &str, rows: &[HeadlineRow]) -> Result<String, BenchError> {
    let begin = doc
        .find(BEGIN_MARKER)
        .ok_or_else(|| format!("the marker {BEGIN_MARKER} is not in the file"))?;
    let body = &doc[begin + BEGIN_MARKER.len()..];
    let end = body
        .find(END_MARKER)
        .ok_or_else(|| format!("the marker {END_MARKER} is not in the file"))?;
    let key = |r: &HeadlineRow| cell(&r.figure);
    let mut used = vec![false; rows.len()];
    let mut t = String::from(HEADER);
    for old in body[..end]
        .lines()
        .skip_while(|l| !l.starts_with("|---"))
        .skip(1)
    {
        // The first cell: the text up to the first unescaped `|` after the leading one.
        let Some(rest) = old.strip_prefix("| ") else {
            continue;
        };
        let figure = first_cell(rest);
        match rows.iter().position(|r| key(r) == figure) {
            Some(i) => {
                used[i] = true;
                t.push_str(&line(&rows[i]));
            }
            None => t.push_str(old),
        }
        t.push('\n');
    }
    for (r, _) in rows.iter().zip(&used).filter(|(_, u)| !**u) {
        t.push_str(&line(r));
        t.push('\n');
    }
    Ok(t)
}

/// The first cell of a table line whose leading `| ` is removed: the text before the first
/// ` | ` that is not escaped.
fn first_cell(rest: &str) -> &str {
    let mut prev_backslash = false;
    for (i, ch) in rest.char_indices() {
        if ch == '|' && !prev_backslash {
            return rest[..i].trim_end();
        }
        prev_backslash = ch == '\\';
    }
    rest.trim_end()
}

/// `doc` with the lines between [`BEGIN_MARKER`] and [`END_MARKER`] replaced by `table`.
///
/// Returns an `Err` when a marker is missing, appears twice, or the end comes before the
/// beginning.
pub fn replace_between_markers(doc: &str, table: &str) -> Result<String, BenchError> {
    let find_once = |m: &str| -> Result<usize, BenchError> {
        let mut hits = doc.match_indices(m).map(|(i, _)| i);
        match (hits.next(), hits.next()) {
            (Some(i), None) => Ok(i),
            (None, _) => Err(format!("the marker {m} is not in the file").into()),
            (Some(_), Some(_)) => Err(format!("the marker {m} is in the file twice").into()),
        }
    };
    let begin = find_once(BEGIN_MARKER)?;
    let end = find_once(END_MARKER)?;
    let body_start = begin + BEGIN_MARKER.len();
    if end < body_start {
        return Err(format!("{END_MARKER} comes before {BEGIN_MARKER}").into());
    }
    let table = table.trim_end_matches('\n');
    Ok(format!(
        "{}\n{}\n{}",
        &doc[..body_start],
        table,
        &doc[end..]
    ))
}
