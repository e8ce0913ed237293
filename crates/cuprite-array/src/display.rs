//! `Display` of arrays, as NumPy prints them; arrays of more than 1000 elements are
//! abbreviated to their first and last 3 entries along each long axis.

use crate::array::Array;
use crate::dtype::Element;
use std::fmt;

const THRESHOLD: usize = 1000;
const EDGE: usize = 3;

fn indices(n: usize, abbreviate: bool) -> Vec<Option<usize>> {
    if abbreviate && n > 2 * EDGE {
        (0..EDGE)
            .map(Some)
            .chain(std::iter::once(None))
            .chain((n - EDGE..n).map(Some))
            .collect()
    } else {
        (0..n).map(Some).collect()
    }
}

fn render(
    out: &mut String,
    cells: &[String],
    shape: &[usize],
    strides: &[usize],
    base: usize,
    depth: usize,
    width: usize,
    abbreviate: bool,
) {
    if shape.is_empty() {
        out.push_str(&format!("{:>width$}", cells[base]));
        return;
    }
    out.push('[');
    let idx = indices(shape[0], abbreviate);
    for (k, i) in idx.iter().enumerate() {
        if k > 0 {
            if shape.len() == 1 {
                out.push(' ');
            } else {
                out.push_str(&"\n".repeat(shape.len() - 1));
                out.push_str(&" ".repeat(depth + 1));
            }
        }
        match i {
            Some(i) => render(
                out,
                cells,
                &shape[1..],
                &strides[1..],
                base + i * strides[0],
                depth + 1,
                width,
                abbreviate,
            ),
            None => out.push_str("..."),
        }
    }
    out.push(']');
}

/// Pads float cells so their decimal points line up (NumPy style).
fn align_decimal_points(cells: &mut [String]) {
    let plain = |c: &String| c.contains('.') && !c.contains('e') && !c.contains('j');
    if cells.is_empty() || !cells.iter().all(plain) {
        return;
    }
    let split = |c: &String| {
        let i = c.find('.').unwrap_or(c.len());
        (c[..i].len(), c[i + 1..].len())
    };
    let left = cells.iter().map(|c| split(c).0).max().unwrap_or(0);
    let right = cells.iter().map(|c| split(c).1).max().unwrap_or(0);
    for c in cells.iter_mut() {
        let (l, r) = split(c);
        *c = format!("{}{}{}", " ".repeat(left - l), c, " ".repeat(right - r));
    }
}

impl<T: Element> fmt::Display for Array<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let data = match self.to_vec() {
            Ok(d) => d,
            Err(e) => return write!(f, "<array of shape {:?}: {e}>", self.shape()),
        };
        let abbreviate = data.len() > THRESHOLD;
        let mut cells: Vec<String> = data.iter().map(|x| x.fmt_elem()).collect();
        align_decimal_points(&mut cells);
        let shape = self.shape();
        let mut strides = vec![1usize; shape.len()];
        for i in (0..shape.len().saturating_sub(1)).rev() {
            strides[i] = strides[i + 1] * shape[i + 1];
        }
        // Width from the cells that are shown.
        let width = cells.iter().map(|c| c.len()).max().unwrap_or(0);
        let mut out = String::new();
        if data.is_empty() {
            return write!(f, "[]");
        }
        render(&mut out, &cells, shape, &strides, 0, 0, width, abbreviate);
        f.write_str(&out)
    }
}
