//! printf-style formatting of elements as Python's `%` operator does it (what NumPy's
//! `savetxt` and `tofile` apply), and NumPy's `str` of a scalar.

use super::floatfmt::py_repr;
use crate::dtype::{DType, Element, Scalar};
use crate::error::{Error, Result};

/// One printf conversion: `%[flags][width][.precision]type`.
#[derive(Clone, Debug)]
pub(crate) struct Spec {
    left: bool,
    plus: bool,
    space: bool,
    zero: bool,
    alt: bool,
    width: usize,
    prec: Option<usize>,
    conv: char,
}

/// The largest width and precision of a conversion (each pads or prints that many
/// characters a value).
const PRINTF_MAX: usize = 10_000;

/// Splits a printf format into literal text and conversions (`%%` is a literal `%`), or an
/// `Err` naming the format where a conversion is unsupported or its width or precision is
/// above [`PRINTF_MAX`].
pub(crate) fn parse_format(fmt: &str) -> Result<Vec<std::result::Result<String, Spec>>> {
    let bad = || Error::InvalidArgument(format!("savetxt: unsupported format {fmt:?}"));
    let mut out = Vec::new();
    let mut lit = String::new();
    let mut it = fmt.chars().peekable();
    while let Some(c) = it.next() {
        if c != '%' {
            lit.push(c);
            continue;
        }
        if it.peek() == Some(&'%') {
            it.next();
            lit.push('%');
            continue;
        }
        out.push(Ok(std::mem::take(&mut lit)));
        let mut s = Spec {
            left: false,
            plus: false,
            space: false,
            zero: false,
            alt: false,
            width: 0,
            prec: None,
            conv: 'e',
        };
        while let Some(&f) = it.peek() {
            match f {
                '-' => s.left = true,
                '+' => s.plus = true,
                ' ' => s.space = true,
                '0' => s.zero = true,
                '#' => s.alt = true,
                _ => break,
            }
            it.next();
        }
        let too_big = || {
            Error::InvalidArgument(format!(
                "savetxt: format {fmt:?} has a width or precision above {PRINTF_MAX}"
            ))
        };
        // Digits while the number stays at most `PRINTF_MAX` (checked: no overflow).
        let number = |it: &mut std::iter::Peekable<std::str::Chars<'_>>| {
            let mut v = 0usize;
            while let Some(d) = it.peek().and_then(|c| c.to_digit(10)) {
                v = v * 10 + d as usize;
                if v > PRINTF_MAX {
                    return Err(too_big());
                }
                it.next();
            }
            Ok(v)
        };
        s.width = number(&mut it)?;
        if it.peek() == Some(&'.') {
            it.next();
            s.prec = Some(number(&mut it)?);
        }
        s.conv = it
            .next()
            .filter(|c| "diueEfFgGs".contains(*c))
            .ok_or_else(bad)?;
        out.push(Err(s));
    }
    out.push(Ok(lit));
    Ok(out)
}

/// C's `%e` mantissa and exponent with at least two exponent digits.
pub(crate) fn c_exp(v: f64, prec: usize, upper: bool) -> String {
    let s = format!("{:.*e}", prec, v);
    let (m, e) = s.split_once('e').unwrap_or((&s, "0"));
    let e: i32 = e.parse().unwrap_or(0);
    let t = format!(
        "{m}e{}{:02}",
        if e < 0 { '-' } else { '+' },
        e.unsigned_abs()
    );
    if upper { t.to_uppercase() } else { t }
}

/// Formats one real value with a conversion (Python's `%` operator rules).
pub(crate) fn format_real(s: &Spec, v: Scalar, repr: &str) -> Result<String> {
    let x = v.to_f64_lossy();
    let body = match s.conv {
        'd' | 'i' | 'u' => match v {
            Scalar::I64(i) => i.unsigned_abs().to_string(),
            Scalar::U64(u) => u.to_string(),
            _ if x.is_finite() => format!("{}", x.trunc().abs()),
            _ => return Err(Error::InvalidArgument(format!("savetxt: %d of {x}"))),
        },
        _ if !x.is_finite() => {
            let t = if x.is_nan() { "nan" } else { "inf" };
            if s.conv.is_uppercase() {
                t.to_uppercase()
            } else {
                t.into()
            }
        }
        'e' | 'E' => c_exp(x.abs(), s.prec.unwrap_or(6), s.conv == 'E'),
        'f' | 'F' => format!("{:.*}", s.prec.unwrap_or(6), x.abs()),
        'g' | 'G' => {
            let p = s.prec.unwrap_or(6).max(1);
            let e = c_exp(x.abs(), p - 1, false);
            let exp: i32 = e.split_once('e').map_or(0, |q| q.1.parse().unwrap_or(0));
            let mut t = if exp >= -4 && exp < p as i32 {
                format!("{:.*}", (p as i32 - 1 - exp).max(0) as usize, x.abs())
            } else {
                e
            };
            if !s.alt {
                let (m, tail) = match t.find('e') {
                    Some(i) => (t[..i].to_string(), t[i..].to_string()),
                    None => (t.clone(), String::new()),
                };
                let m = if m.contains('.') {
                    m.trim_end_matches('0').trim_end_matches('.').to_string()
                } else {
                    m
                };
                t = m + &tail;
            }
            if s.conv == 'G' { t.to_uppercase() } else { t }
        }
        _ => repr.trim_start_matches('-').to_string(),
    };
    let neg = x.is_sign_negative() && !x.is_nan() || matches!(v, Scalar::I64(i) if i < 0);
    let sign = if neg {
        "-"
    } else if s.plus {
        "+"
    } else if s.space {
        " "
    } else {
        ""
    };
    let n = sign.len() + body.len();
    Ok(if n >= s.width {
        format!("{sign}{body}")
    } else if s.left {
        format!("{sign}{body}{}", " ".repeat(s.width - n))
    } else if s.zero && x.is_finite() {
        format!("{sign}{}{body}", "0".repeat(s.width - n))
    } else {
        format!("{}{sign}{body}", " ".repeat(s.width - n))
    })
}

/// `str()` of one element as NumPy prints a scalar (shortest digits of its own type).
pub(crate) fn elem_repr<T: Element>(v: T) -> String {
    match v.to_scalar() {
        Scalar::I64(i) if T::DTYPE == DType::Bool => (if i != 0 { "True" } else { "False" }).into(),
        Scalar::U64(u) if T::DTYPE == DType::Bool => (if u != 0 { "True" } else { "False" }).into(),
        Scalar::I64(i) => i.to_string(),
        Scalar::U64(u) => u.to_string(),
        Scalar::F32(x) => match T::DTYPE {
            DType::F16 => py_repr(half::f16::from_f32(x)),
            DType::BF16 => py_repr(half::bf16::from_f32(x)),
            _ => py_repr(x),
        },
        Scalar::F64(x) => py_repr(x),
        Scalar::C32(z) => complex_repr(py_repr(z.re), py_repr(z.im)),
        Scalar::C64(z) => complex_repr(py_repr(z.re), py_repr(z.im)),
    }
}

/// Python's `repr` of a complex number from its parts' reprs: `(1.5-2.0j)`.
pub(crate) fn complex_repr(re: String, im: String) -> String {
    let sign = if im.starts_with('-') { "" } else { "+" };
    format!("({re}{sign}{im}j)")
}

/// Formats one element with a conversion; complex values as NumPy's ` (re+imj)`.
pub(crate) fn format_elem<T: Element>(s: &Spec, v: T) -> Result<String> {
    match v.to_scalar() {
        Scalar::C32(z) => Ok(format!(
            " ({}+{}j)",
            format_real(s, Scalar::F32(z.re), "")?,
            format_real(s, Scalar::F32(z.im), "")?
        )),
        Scalar::C64(z) => Ok(format!(
            " ({}+{}j)",
            format_real(s, Scalar::F64(z.re), "")?,
            format_real(s, Scalar::F64(z.im), "")?
        )),
        sc => format_real(s, sc, &elem_repr(v)),
    }
}
