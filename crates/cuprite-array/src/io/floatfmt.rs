//! NumPy's `format_float_positional` and `format_float_scientific`: decimal strings of a float
//! with NumPy's digit rules. "Unique" digits are the shortest that read back to the same value
//! of the float's own type (the nearest such string, as NumPy's Dragon4 picks); cut-offs and
//! non-unique digits round the exact binary value, ties to even (Rust's formatting is exact).

use crate::dtype::{DType, Float, Scalar};
use crate::error::{Error, Result};

/// How trailing zeros and the decimal point are trimmed (NumPy's `trim=`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum TrimMode {
    /// `'k'`: keep trailing zeros and the decimal point.
    #[default]
    Keep,
    /// `'.'`: trim trailing zeros, keep the decimal point.
    Point,
    /// `'0'`: trim trailing zeros but leave one after the point.
    Zero,
    /// `'-'`: trim trailing zeros and the decimal point.
    Minus,
}

/// The options of [`format_float_positional`] and [`format_float_scientific`], with NumPy's
/// defaults (`FloatFormat::default()`: unique digits, fractional precision, `trim='k'`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FloatFormat {
    /// Maximum digits: after the point (positional with `fractional`, scientific) or
    /// significant (positional without `fractional`). Needed when `unique` is false.
    pub precision: Option<usize>,
    /// Shortest digits that identify the value (else exact digits cut at `precision`).
    pub unique: bool,
    /// Whether `precision` and `min_digits` count digits after the point (positional only).
    pub fractional: bool,
    /// Trailing-zero trimming.
    pub trim: TrimMode,
    /// Print `+` for positive values.
    pub sign: bool,
    /// Pad with spaces until this many characters are left of the point.
    pub pad_left: Option<usize>,
    /// Pad with spaces until this many characters are right of the point (positional only).
    pub pad_right: Option<usize>,
    /// Minimum exponent digits (scientific only; NumPy's default 2).
    pub exp_digits: Option<usize>,
    /// Minimum digits in unique mode (extra exact digits, rounded).
    pub min_digits: Option<usize>,
}

impl Default for FloatFormat {
    fn default() -> Self {
        FloatFormat {
            precision: None,
            unique: true,
            fractional: true,
            trim: TrimMode::Keep,
            sign: false,
            pad_left: None,
            pad_right: None,
            exp_digits: None,
            min_digits: None,
        }
    }
}

/// Decimal digits `d[0] d[1] ...` (no trailing zeros, `"0"` for zero) and the exponent `e` of
/// the first: the value is `0.d × 10^(e+1)`, i.e. `d[0].d[1..] × 10^e`.
struct Digits {
    d: Vec<u8>,
    e: i32,
}

/// Parses Rust's `{:e}` output (`"1.2345e-7"`), stripping trailing zeros of the mantissa.
fn parse_sci(s: &str) -> Digits {
    let s = s.trim_start_matches('-');
    let (m, e) = s.split_once('e').unwrap_or((s, "0"));
    let mut d: Vec<u8> = m
        .bytes()
        .filter(u8::is_ascii_digit)
        .map(|b| b - b'0')
        .collect();
    while d.len() > 1 && d.last() == Some(&0) {
        d.pop();
    }
    let e = e.parse().unwrap_or(0);
    if d.iter().all(|&x| x == 0) {
        return Digits { d: vec![0], e: 0 };
    }
    Digits { d, e }
}

/// The shortest digits that read back as `x` in its own type.
fn shortest<T: Float>(x: T) -> Digits {
    let v = x.to_scalar().to_f64_lossy().abs();
    if v == 0.0 {
        return Digits { d: vec![0], e: 0 };
    }
    for p in 1..=17usize {
        let s = format!("{:.*e}", p - 1, v);
        let back: f64 = s.parse().unwrap_or(f64::NAN);
        let same = match T::DTYPE {
            DType::F32 => s.parse::<f32>().map(|b| b as f64 == v).unwrap_or(false),
            DType::F64 => back == v,
            _ => T::from_scalar(Scalar::F64(back)).to_scalar().to_f64_lossy() == v,
        };
        if same {
            return parse_sci(&s);
        }
    }
    parse_sci(&format!("{v:e}"))
}

/// Exact digits of `v` rounded to `sig` significant digits (ties to even), zeros stripped.
fn exact_sig(v: f64, sig: usize) -> Digits {
    parse_sci(&format!("{:.*e}", sig.max(1) - 1, v.abs()))
}

/// Exact digits of `v` rounded to `frac` digits after the point, zeros stripped.
fn exact_frac(v: f64, frac: usize) -> Digits {
    let s = format!("{:.*}", frac, v.abs());
    let (i, f) = s.split_once('.').unwrap_or((&s, ""));
    let all: Vec<u8> = i.bytes().chain(f.bytes()).map(|b| b - b'0').collect();
    let lead = all.iter().take_while(|&&b| b == 0).count();
    if lead == all.len() {
        return Digits { d: vec![0], e: 0 };
    }
    let mut d = all[lead..].to_vec();
    while d.len() > 1 && d.last() == Some(&0) {
        d.pop();
    }
    Digits {
        d,
        e: i.len() as i32 - 1 - lead as i32,
    }
}

/// Whole and fractional digit strings of `dg` in positional notation.
fn layout(dg: &Digits) -> (String, String) {
    let s: String = dg.d.iter().map(|&b| char::from(b'0' + b)).collect();
    if dg.d == [0] {
        return ("0".into(), String::new());
    }
    if dg.e >= 0 {
        let w = dg.e as usize + 1;
        if s.len() <= w {
            (format!("{s}{}", "0".repeat(w - s.len())), String::new())
        } else {
            (s[..w].to_string(), s[w..].to_string())
        }
    } else {
        (
            "0".into(),
            format!("{}{s}", "0".repeat((-dg.e - 1) as usize)),
        )
    }
}

/// `nan`, `inf`, `-inf` (`+inf` with `sign`), as NumPy prints them (NaN never has a sign).
fn special(v: f64, sign: bool) -> Option<String> {
    if v.is_nan() {
        Some("nan".into())
    } else if v.is_infinite() {
        Some(match (v < 0.0, sign) {
            (true, _) => "-inf".into(),
            (false, true) => "+inf".into(),
            _ => "inf".into(),
        })
    } else {
        None
    }
}

fn check(o: &FloatFormat) -> Result<()> {
    if !o.unique && o.precision.is_none() {
        return Err(Error::InvalidArgument(
            "float formatting: precision is required when unique is false".into(),
        ));
    }
    Ok(())
}

/// Applies NumPy's trim rules to the fraction and says whether the point is printed.
fn trim_fraction(frac: &mut String, o: &FloatFormat, desired: Option<usize>) -> bool {
    let mut point = !(frac.is_empty() && o.trim == TrimMode::Minus);
    if o.trim == TrimMode::Zero && frac.is_empty() {
        frac.push('0');
    } else if o.trim == TrimMode::Keep && !o.unique {
        if let Some(want) = desired.filter(|&w| w > frac.len()) {
            frac.push_str(&"0".repeat(want - frac.len()));
        }
    }
    if o.precision.is_some() && o.trim != TrimMode::Keep && !frac.is_empty() {
        while frac.ends_with('0') {
            frac.pop();
        }
        match o.trim {
            TrimMode::Zero if frac.is_empty() => frac.push('0'),
            TrimMode::Minus if frac.is_empty() => point = false,
            _ => {}
        }
    }
    point
}

/// NumPy's `format_float_positional(x, precision, unique, fractional, trim, sign, pad_left,
/// pad_right, min_digits)` for `f16`, `bf16`, `f32` and `f64` values.
///
/// ```
/// use cuprite_array::{f16, io::{FloatFormat, TrimMode, format_float_positional as fp}};
/// assert_eq!(fp(f16::from_f64(std::f64::consts::PI), &FloatFormat::default())?, "3.14");
/// let exact = FloatFormat { unique: false, precision: Some(10), ..Default::default() };
/// assert_eq!(fp(f16::from_f64(0.3), &exact)?, "0.3000488281");
/// assert_eq!(fp(1.0f64, &FloatFormat::default())?, "1.");
/// let minus = FloatFormat { trim: TrimMode::Minus, ..Default::default() };
/// assert_eq!(fp(1.0f64, &minus)?, "1");
/// # Ok::<(), cuprite_array::Error>(())
/// ```
pub fn format_float_positional<T: Float>(x: T, o: &FloatFormat) -> Result<String> {
    check(o)?;
    let v = x.to_scalar().to_f64_lossy();
    if let Some(s) = special(v, o.sign) {
        return Ok(s);
    }
    let sig = |dg: &Digits| dg.d.len();
    let frac_len = |dg: &Digits| layout(dg).1.len();
    let mut dg = if o.unique {
        shortest(x)
    } else if o.fractional {
        exact_frac(v, o.precision.unwrap_or(0))
    } else {
        exact_sig(v, o.precision.unwrap_or(1))
    };
    if let (true, Some(p)) = (o.unique, o.precision) {
        if o.fractional && frac_len(&dg) > p {
            dg = exact_frac(v, p);
        } else if !o.fractional && sig(&dg) > p {
            dg = exact_sig(v, p);
        }
    }
    let (int, mut frac) = layout(&dg);
    if let (true, Some(m)) = (o.unique, o.min_digits) {
        if o.fractional && frac.len() < m {
            frac = format!("{:.*}", m, v.abs())
                .split_once('.')
                .map(|p| p.1.to_string())
                .unwrap_or_default();
        } else if !o.fractional && sig(&dg) < m {
            let (i2, f2) = layout(&exact_sig(v, m));
            let need = m.saturating_sub(i2.trim_start_matches('0').len() + f2.len());
            frac = format!("{f2}{}", "0".repeat(need));
        }
    }
    let whole = int.len();
    let desired = o.precision.map(|p| {
        if o.fractional {
            p
        } else {
            p.saturating_sub(whole)
        }
    });
    let point = trim_fraction(&mut frac, o, desired);
    let neg = v.is_sign_negative();
    let signch = if neg {
        "-"
    } else if o.sign {
        "+"
    } else {
        ""
    };
    let mut out = format!("{signch}{int}{}{frac}", if point { "." } else { "" });
    if let Some(r) = o.pad_right.filter(|&r| r >= frac.len()) {
        if !point {
            out.push(' ');
        }
        out.push_str(&" ".repeat(r - frac.len()));
    }
    if let Some(l) = o.pad_left.filter(|&l| l > whole + signch.len()) {
        out = format!("{}{out}", " ".repeat(l - whole - signch.len()));
    }
    Ok(out)
}

/// NumPy's `format_float_scientific(x, precision, unique, trim, sign, pad_left, exp_digits,
/// min_digits)` for `f16`, `bf16`, `f32` and `f64` values.
///
/// ```
/// use cuprite_array::io::{FloatFormat, format_float_scientific as fs};
/// assert_eq!(fs(std::f32::consts::PI, &FloatFormat::default())?, "3.1415927e+00");
/// let s = 1.23e24f32;
/// let exact = FloatFormat { unique: false, precision: Some(15), ..Default::default() };
/// assert_eq!(fs(s, &exact)?, "1.230000071797338e+24");
/// let wide = FloatFormat { exp_digits: Some(4), ..Default::default() };
/// assert_eq!(fs(s, &wide)?, "1.23e+0024");
/// # Ok::<(), cuprite_array::Error>(())
/// ```
pub fn format_float_scientific<T: Float>(x: T, o: &FloatFormat) -> Result<String> {
    check(o)?;
    let v = x.to_scalar().to_f64_lossy();
    if let Some(s) = special(v, o.sign) {
        return Ok(s);
    }
    let mut dg = if o.unique {
        shortest(x)
    } else {
        exact_sig(v, o.precision.unwrap_or(0) + 1)
    };
    if let (true, Some(p)) = (o.unique, o.precision) {
        if dg.d.len() > p + 1 {
            dg = exact_sig(v, p + 1);
        }
    }
    let mut frac: String = dg.d[1..].iter().map(|&b| char::from(b'0' + b)).collect();
    if let (true, Some(m)) = (o.unique, o.min_digits) {
        if frac.len() < m {
            let e = format!("{:.*e}", m, v.abs());
            let (mant, ex) = e.split_once('e').unwrap_or((&e, "0"));
            frac = mant
                .split_once('.')
                .map(|p| p.1.to_string())
                .unwrap_or_default();
            dg.d = vec![mant.as_bytes()[0] - b'0'];
            dg.e = ex.parse().unwrap_or(dg.e);
        }
    }
    let point = trim_fraction(&mut frac, o, o.precision);
    let neg = v.is_sign_negative();
    let signch = if neg {
        "-"
    } else if o.sign {
        "+"
    } else {
        ""
    };
    let exp = format!(
        "e{}{:0w$}",
        if dg.e < 0 { '-' } else { '+' },
        dg.e.unsigned_abs(),
        w = o.exp_digits.unwrap_or(2)
    );
    let lead = o
        .pad_left
        .filter(|&l| l > 1 + signch.len())
        .map(|l| " ".repeat(l - 1 - signch.len()))
        .unwrap_or_default();
    Ok(format!(
        "{lead}{signch}{}{}{frac}{exp}",
        dg.d[0],
        if point { "." } else { "" }
    ))
}

/// Python's `repr` of a float of type `T` (what NumPy's `str` of a scalar prints): the
/// shortest digits, positional for decimal exponents in `-4..16` (with at least one digit
/// after the point), else scientific with a two-digit exponent (`1e-05`, `1.5e+16`).
pub(crate) fn py_repr<T: Float>(x: T) -> String {
    let v = x.to_scalar().to_f64_lossy();
    if v.is_nan() {
        return "nan".into();
    }
    if v.is_infinite() {
        return if v < 0.0 { "-inf".into() } else { "inf".into() };
    }
    let dg = shortest(x);
    let sign = if v.is_sign_negative() { "-" } else { "" };
    if (-4..16).contains(&dg.e) {
        let (i, f) = layout(&dg);
        let f = if f.is_empty() { "0".to_string() } else { f };
        format!("{sign}{i}.{f}")
    } else {
        let frac: String = dg.d[1..].iter().map(|&b| char::from(b'0' + b)).collect();
        let point = if frac.is_empty() { "" } else { "." };
        let es = if dg.e < 0 { '-' } else { '+' };
        format!(
            "{sign}{}{point}{frac}e{es}{:02}",
            dg.d[0],
            dg.e.unsigned_abs()
        )
    }
}
