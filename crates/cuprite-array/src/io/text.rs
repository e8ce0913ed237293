//! Text tables on the host, NumPy's way: `loadtxt`, `genfromtxt` (missing values filled) and
//! `savetxt` (printf-style formats). Parsed data is uploaded to the current device; written
//! data is read back from the array's device first.

use super::printf::{format_elem, parse_format};
use crate::array::Array;
use crate::dtype::{DType, Element, Scalar, c32, c64};
use crate::error::{Error, Result};
use std::io::{Read, Write};

pub(crate) fn io_err(what: &str, e: impl std::fmt::Display) -> Error {
    Error::Io(format!("{what}: {e}"))
}

/// Parses a Python-style complex number (`1+2j`, `(1-2.5e3j)`, `2j`, `3`).
fn parse_complex(s: &str) -> Option<(f64, f64)> {
    let s = s.trim().trim_start_matches('(').trim_end_matches(')');
    let Some(body) = s.strip_suffix(['j', 'J']) else {
        return Some((s.parse().ok()?, 0.0));
    };
    let b = body.as_bytes();
    // The split is the last sign that is neither leading nor part of an exponent.
    let split = (1..b.len())
        .rev()
        .find(|&i| (b[i] == b'+' || b[i] == b'-') && !matches!(b[i - 1], b'e' | b'E'));
    match split {
        Some(i) => Some((body[..i].parse().ok()?, body[i..].parse().ok()?)),
        None => {
            let im = match body {
                "" | "+" => 1.0,
                "-" => -1.0,
                _ => body.parse().ok()?,
            };
            Some((0.0, im))
        }
    }
}

/// One field as an element of type `T`: integers exactly (out of range is `None`), floats by
/// Rust's parser (`nan`, `inf`, `1e5`, `.5`), complex in Python's form, `bool` as `0`/`1`
/// or `true`/`false`.
pub(crate) fn parse_elem<T: Element>(field: &str) -> Option<T> {
    let f = field.trim();
    let d = T::DTYPE;
    let s = if d == DType::Bool {
        match f.to_ascii_lowercase().as_str() {
            "1" | "true" => Scalar::U64(1),
            "0" | "false" => Scalar::U64(0),
            _ => return None,
        }
    } else if d.is_int() {
        let v: i128 = f.parse().ok()?;
        let (lo, hi): (i128, i128) = match d {
            DType::U8 => (0, u8::MAX as i128),
            DType::U16 => (0, u16::MAX as i128),
            DType::U32 => (0, u32::MAX as i128),
            DType::U64 => (0, u64::MAX as i128),
            DType::I8 => (i8::MIN as i128, i8::MAX as i128),
            DType::I16 => (i16::MIN as i128, i16::MAX as i128),
            DType::I32 => (i32::MIN as i128, i32::MAX as i128),
            _ => (i64::MIN as i128, i64::MAX as i128),
        };
        if v < lo || v > hi {
            return None;
        }
        if d.is_unsigned_int() {
            Scalar::U64(v as u64)
        } else {
            Scalar::I64(v as i64)
        }
    } else if d == DType::F32 {
        Scalar::F32(f.parse().ok()?)
    } else if d.is_float() {
        Scalar::F64(f.parse().ok()?)
    } else {
        let (re, im) = parse_complex(f)?;
        if d == DType::C32 {
            Scalar::C32(c32::new(re as f32, im as f32))
        } else {
            Scalar::C64(c64::new(re, im))
        }
    };
    Some(T::from_scalar(s))
}

/// The options of [`loadtxt`] and [`genfromtxt`] (NumPy's keyword arguments of the same names;
/// `Default` gives NumPy's defaults).
#[derive(Clone, Debug)]
pub struct LoadTxt {
    /// The field separator; `None` splits on runs of whitespace.
    pub delimiter: Option<String>,
    /// Markers that start a comment (the rest of the line is ignored).
    pub comments: Vec<String>,
    /// Lines skipped at the start (NumPy's `skiprows`, genfromtxt's `skip_header`).
    pub skiprows: usize,
    /// Lines skipped at the end (genfromtxt's `skip_footer`).
    pub skip_footer: usize,
    /// Columns kept, in this order (negative from the end); `None` keeps all.
    pub usecols: Option<Vec<isize>>,
    /// At most this many data rows are read.
    pub max_rows: Option<usize>,
    /// The minimum number of axes of the result (0, 1 or 2).
    pub ndmin: usize,
    /// Transpose the result, so that columns come out as rows (NumPy's `unpack`).
    pub unpack: bool,
    /// Fields between two of these may hold the delimiter and comment markers; a doubled
    /// quote inside is one quote character (NumPy's `quotechar`, off by default).
    pub quotechar: Option<char>,
    /// A row with the wrong number of columns is an `Err` (else it is skipped: genfromtxt's
    /// `invalid_raise=False`).
    pub invalid_raise: bool,
}

impl Default for LoadTxt {
    fn default() -> Self {
        LoadTxt {
            delimiter: None,
            comments: vec!["#".into()],
            skiprows: 0,
            skip_footer: 0,
            usecols: None,
            max_rows: None,
            ndmin: 0,
            unpack: false,
            quotechar: None,
            invalid_raise: true,
        }
    }
}

/// Splits one line into fields, honouring quotes; the comment markers end the line outside
/// quotes.
fn split_line(line: &str, o: &LoadTxt) -> Vec<String> {
    let mut out = Vec::new();
    let mut cur = String::new();
    let mut quoted = false;
    let mut was_quoted = false;
    let mut rest = line;
    let delim = o.delimiter.as_deref();
    let push = |cur: &mut String, out: &mut Vec<String>, was: bool| {
        let f = std::mem::take(cur);
        if was || delim.is_some() || !f.trim().is_empty() {
            out.push(if was { f } else { f.trim().to_string() });
        }
    };
    while let Some(c) = rest.chars().next() {
        if Some(c) == o.quotechar {
            if quoted && rest[c.len_utf8()..].starts_with(c) {
                cur.push(c);
                rest = &rest[2 * c.len_utf8()..];
                continue;
            }
            quoted = !quoted;
            was_quoted = true;
            rest = &rest[c.len_utf8()..];
            continue;
        }
        if !quoted {
            if o.comments
                .iter()
                .any(|m| !m.is_empty() && rest.starts_with(m.as_str()))
            {
                break;
            }
            let sep = match delim {
                Some(d) => rest.starts_with(d).then_some(d.len()),
                None => c.is_whitespace().then_some(c.len_utf8()),
            };
            if let Some(n) = sep {
                push(&mut cur, &mut out, was_quoted);
                was_quoted = false;
                rest = &rest[n..];
                continue;
            }
        }
        cur.push(c);
        rest = &rest[c.len_utf8()..];
    }
    push(&mut cur, &mut out, was_quoted);
    out
}

/// The data lines of `text` as fields: comments cut, blank lines skipped, columns selected.
fn fields(text: &str, o: &LoadTxt) -> Result<Vec<(usize, Vec<String>)>> {
    let lines: Vec<&str> = text.lines().collect();
    let end = lines.len().saturating_sub(o.skip_footer);
    let mut rows = Vec::new();
    for (no, line) in lines.iter().enumerate().take(end).skip(o.skiprows) {
        if o.max_rows.is_some_and(|m| rows.len() >= m) {
            break;
        }
        let all = split_line(line, o);
        if all.is_empty() || (all.len() == 1 && all[0].is_empty() && o.delimiter.is_some()) {
            continue;
        }
        let picked = match &o.usecols {
            None => all,
            Some(cols) => cols
                .iter()
                .map(|&c| {
                    let i = if c < 0 { c + all.len() as isize } else { c };
                    all.get(usize::try_from(i).unwrap_or(usize::MAX))
                        .cloned()
                        .ok_or_else(|| {
                            Error::Io(format!(
                                "line {}: column {c} does not exist in a row of {} columns",
                                no + 1,
                                all.len()
                            ))
                        })
                })
                .collect::<Result<_>>()?,
        };
        rows.push((no + 1, picked));
    }
    Ok(rows)
}

/// Builds the array from parsed rows with NumPy's `ndmin` squeezing and `unpack`.
fn shape_rows<T: Element>(
    vals: Vec<T>,
    nrows: usize,
    ncols: usize,
    o: &LoadTxt,
) -> Result<Array<T>> {
    let mut shape: Vec<usize> = if nrows == 0 {
        vec![0]
    } else {
        vec![nrows, ncols]
    };
    if shape.len() > o.ndmin {
        shape.retain(|&d| d != 1);
    }
    while shape.len() < o.ndmin.min(2) {
        // NumPy: atleast_1d, then a 1-D result becomes a column for ndmin 2.
        shape.push(1);
    }
    if o.ndmin > 2 {
        return Err(Error::InvalidArgument(format!(
            "loadtxt: ndmin {} must be 0, 1 or 2",
            o.ndmin
        )));
    }
    let a = Array::from_slice(&vals, &shape)?;
    Ok(if o.unpack && a.ndim() == 2 {
        a.t().contiguous()?
    } else {
        a
    })
}

/// NumPy's `loadtxt(fname, dtype=T, ...)` from any reader: one row per data line, every row
/// with the same number of columns (else an `Err` naming the line), each field parsed as `T`
/// (a field that does not parse is an `Err` naming line and column). A single row or column
/// comes out 1-D and a single value 0-D unless `ndmin` asks for more; `unpack` transposes.
///
/// ```
/// use cuprite_array::io::{LoadTxt, loadtxt};
/// let text = "# x y\n1 2\n3 4 # end\n\n5 6\n";
/// let a = loadtxt::<f64>(text.as_bytes(), &LoadTxt::default())?;
/// assert_eq!((a.shape(), a.to_vec()?), (&[3, 2][..], vec![1., 2., 3., 4., 5., 6.]));
/// let o = LoadTxt { delimiter: Some(",".into()), usecols: Some(vec![-1]), ..Default::default() };
/// assert_eq!(loadtxt::<i32>("1,2,3\n4,5,6".as_bytes(), &o)?.to_vec()?, [3, 6]);
/// # Ok::<(), cuprite_array::Error>(())
/// ```
pub fn loadtxt<T: Element>(mut reader: impl Read, o: &LoadTxt) -> Result<Array<T>> {
    let mut text = String::new();
    reader
        .read_to_string(&mut text)
        .map_err(|e| io_err("loadtxt", e))?;
    let rows = fields(&text, o)?;
    table(rows, o, "loadtxt", |_, _| None)
}

/// [`loadtxt`] with NumPy's `converters`: `convert(column, field)` gives the value of a field
/// (`column` counts the kept columns), or `None` to parse it as usual.
///
/// ```
/// use cuprite_array::io::{LoadTxt, loadtxt_with};
/// let o = LoadTxt { delimiter: Some(",".into()), quotechar: Some('"'), ..Default::default() };
/// let pct = |c: usize, f: &str| (c == 1).then(|| f.trim_end_matches('%').parse::<f64>().ok().map(|v| v / 100.0)).flatten();
/// let a = loadtxt_with::<f64>("1.5,\"25%\"\n2,50%".as_bytes(), &o, pct)?;
/// assert_eq!(a.to_vec()?, [1.5, 0.25, 2.0, 0.5]);
/// # Ok::<(), cuprite_array::Error>(())
/// ```
pub fn loadtxt_with<T: Element>(
    mut reader: impl Read,
    o: &LoadTxt,
    convert: impl Fn(usize, &str) -> Option<T>,
) -> Result<Array<T>> {
    let mut text = String::new();
    reader
        .read_to_string(&mut text)
        .map_err(|e| io_err("loadtxt", e))?;
    let rows = fields(&text, o)?;
    table(rows, o, "loadtxt", convert)
}

/// Parses `rows` into an array; `fill(column, field)` may supply a field's value (a missing
/// value's filling, a converter) before parsing is tried.
fn table<T: Element>(
    rows: Vec<(usize, Vec<String>)>,
    o: &LoadTxt,
    call: &str,
    fill: impl Fn(usize, &str) -> Option<T>,
) -> Result<Array<T>> {
    let ncols = rows.first().map_or(0, |r| r.1.len());
    let rows: Vec<_> = if o.invalid_raise {
        rows
    } else {
        rows.into_iter().filter(|r| r.1.len() == ncols).collect()
    };
    let mut vals = Vec::with_capacity(rows.len() * ncols);
    for (line, fs) in &rows {
        if fs.len() != ncols {
            return Err(Error::Io(format!(
                "{call}: line {line} has {} columns, the first data line {ncols}",
                fs.len()
            )));
        }
        for (c, f) in fs.iter().enumerate() {
            let v = match fill(c, f) {
                Some(v) => v,
                None => parse_elem::<T>(f).ok_or_else(|| {
                    Error::Io(format!(
                        "{call}: line {line}, column {c}: {f:?} is not a {}",
                        T::DTYPE
                    ))
                })?,
            };
            vals.push(v);
        }
    }
    shape_rows(vals, rows.len(), ncols, o)
}

/// NumPy's `genfromtxt(fname, dtype=T, missing_values=..., filling_values=...)`: as
/// [`loadtxt`], but an empty field or one listed in `missing` is replaced by `filling`
/// (NumPy's default for floats is NaN). Fields that are present must parse.
///
/// ```
/// use cuprite_array::io::{LoadTxt, genfromtxt};
/// let o = LoadTxt { delimiter: Some(",".into()), ..Default::default() };
/// let a = genfromtxt::<f64>("1,,3\n4,N/A,6".as_bytes(), &o, &["N/A"], f64::NAN)?;
/// let v = a.to_vec()?;
/// assert_eq!((v[0], v[2], v[3], v[5]), (1.0, 3.0, 4.0, 6.0));
/// assert!(v[1].is_nan() && v[4].is_nan());
/// # Ok::<(), cuprite_array::Error>(())
/// ```
pub fn genfromtxt<T: Element>(
    mut reader: impl Read,
    o: &LoadTxt,
    missing: &[&str],
    filling: T,
) -> Result<Array<T>> {
    let mut text = String::new();
    reader
        .read_to_string(&mut text)
        .map_err(|e| io_err("genfromtxt", e))?;
    let rows = fields(&text, o)?;
    table(rows, o, "genfromtxt", |_, f| {
        (f.trim().is_empty() || missing.contains(&f.trim())).then_some(filling)
    })
}

/// The options of [`savetxt`] (NumPy's keyword arguments; `Default` gives NumPy's defaults).
#[derive(Clone, Debug)]
pub struct SaveTxt {
    /// A printf format: one conversion for every value (`%.18e`, the default), or one per
    /// column for the whole row (then `delimiter` is not used). Conversions: `d i u e E f F
    /// g G s` with flags `- + space 0 #`, width and precision, as Python's `%` operator.
    pub fmt: String,
    /// Between values of a row.
    pub delimiter: String,
    /// After each row.
    pub newline: String,
    /// Written first, each line prefixed by `comments` (nothing when empty).
    pub header: String,
    /// Written last, each line prefixed by `comments` (nothing when empty).
    pub footer: String,
    /// The prefix of header and footer lines.
    pub comments: String,
}

impl Default for SaveTxt {
    fn default() -> Self {
        SaveTxt {
            fmt: "%.18e".into(),
            delimiter: " ".into(),
            newline: "\n".into(),
            header: String::new(),
            footer: String::new(),
            comments: "# ".into(),
        }
    }
}

/// NumPy's `savetxt(fname, X, fmt, delimiter, newline, header, footer, comments)` into any
/// writer: a 1-D array is written one value per line, a 2-D array one row per line; more
/// axes are an `Err`.
///
/// # Errors
/// An array of more than two axes; a format with an unsupported conversion, or with a width
/// or precision above 10000 (each named); a failed write.
///
/// ```
/// use cuprite_array::{Array, io::{SaveTxt, savetxt}};
/// let a = Array::from_slice(&[1.5f64, -2.0, 3.25, 4.0], &[2, 2])?;
/// let mut out = Vec::new();
/// let o = SaveTxt { fmt: "%.2f".into(), delimiter: ",".into(), header: "a,b".into(), ..Default::default() };
/// savetxt(&mut out, &a, &o)?;
/// assert_eq!(String::from_utf8(out).unwrap(), "# a,b\n1.50,-2.00\n3.25,4.00\n");
/// let mut e = Vec::new();
/// savetxt(&mut e, &Array::from_slice(&[0.1f64], &[1])?, &SaveTxt::default())?;
/// assert_eq!(String::from_utf8(e).unwrap(), "1.000000000000000056e-01\n");
/// # Ok::<(), cuprite_array::Error>(())
/// ```
pub fn savetxt<T: Element>(mut w: impl Write, a: &Array<T>, o: &SaveTxt) -> Result<()> {
    let (rows, cols) = match a.shape() {
        [n] => (*n, 1),
        [r, c] => (*r, *c),
        s => {
            return Err(Error::Shape(format!(
                "savetxt: an array of shape {s:?}; it takes 1-D or 2-D arrays"
            )));
        }
    };
    let parts = parse_format(&o.fmt)?;
    let nspec = parts.iter().filter(|p| p.is_err()).count();
    if nspec != 1 && nspec != cols {
        return Err(Error::InvalidArgument(format!(
            "savetxt: format {:?} has {nspec} conversions for {cols} columns",
            o.fmt
        )));
    }
    let v = a.to_vec()?;
    let mut out = String::new();
    let comment = |out: &mut String, text: &str| {
        for line in text.split('\n') {
            out.push_str(&format!("{}{line}{}", o.comments, o.newline));
        }
    };
    if !o.header.is_empty() {
        comment(&mut out, &o.header);
    }
    for r in 0..rows {
        let row = &v[r * cols..(r + 1) * cols];
        let mut k = 0;
        let mut line = String::new();
        if nspec == 1 {
            for (c, &x) in row.iter().enumerate() {
                if c > 0 {
                    line.push_str(&o.delimiter);
                }
                for p in &parts {
                    match p {
                        Ok(l) => line.push_str(l),
                        Err(s) => line.push_str(&format_elem(s, x)?),
                    }
                }
            }
        } else {
            for p in &parts {
                match p {
                    Ok(l) => line.push_str(l),
                    Err(s) => {
                        line.push_str(&format_elem(s, row[k])?);
                        k += 1;
                    }
                }
            }
        }
        out.push_str(&line);
        out.push_str(&o.newline);
    }
    if !o.footer.is_empty() {
        comment(&mut out, &o.footer);
    }
    w.write_all(out.as_bytes())
        .map_err(|e| io_err("savetxt", e))
}
