//! Raw bytes and simple separated text, NumPy's `frombuffer`, `fromstring`, `fromfile` and
//! `ndarray.tofile`.

use super::printf::{Spec, elem_repr, format_elem, parse_format};
use super::text::{io_err, parse_elem};
use crate::array::Array;
use crate::dtype::Element;
use crate::error::{Error, Result};
use std::io::Write;
use std::path::Path;

/// NumPy's `fromstring(string, dtype=T, count, sep)` (text mode; NumPy's binary mode is
/// removed, use [`frombuffer`]): values separated by `sep` (whitespace around it ignored; a
/// separator of spaces matches any run of whitespace), at most `count` of them.
///
/// ```
/// use cuprite_array::io::fromstring;
/// assert_eq!(fromstring::<i64>("1, 2, 3", ",", None)?.to_vec()?, [1, 2, 3]);
/// assert_eq!(fromstring::<f32>("1 2.5\n4", " ", Some(2))?.to_vec()?, [1.0, 2.5]);
/// assert!(fromstring::<f32>("1 2", "", None).is_err());
/// # Ok::<(), cuprite_array::Error>(())
/// ```
pub fn fromstring<T: Element>(s: &str, sep: &str, count: Option<usize>) -> Result<Array<T>> {
    if sep.is_empty() {
        return Err(Error::InvalidArgument(
            "fromstring: the binary mode (empty sep) is removed in NumPy; use frombuffer".into(),
        ));
    }
    let items: Vec<&str> = if sep.trim().is_empty() {
        s.split_whitespace().collect()
    } else {
        s.split(sep.trim())
            .map(str::trim)
            .filter(|t| !t.is_empty())
            .collect()
    };
    let n = count.map_or(items.len(), |c| c.min(items.len()));
    if count.is_some_and(|c| c > items.len()) {
        return Err(Error::InvalidArgument(format!(
            "fromstring: count {} but only {} values",
            count.unwrap_or(0),
            items.len()
        )));
    }
    let vals = items[..n]
        .iter()
        .enumerate()
        .map(|(i, t)| {
            parse_elem::<T>(t).ok_or_else(|| {
                Error::InvalidArgument(format!("fromstring: item {i} {t:?} is not a {}", T::DTYPE))
            })
        })
        .collect::<Result<Vec<T>>>()?;
    Array::from_slice(&vals, &[n])
}

/// NumPy's `frombuffer(buffer, dtype=T, count, offset)`: the bytes from `offset` read as
/// native-endian (little-endian) elements, `count` of them (`None`: all; then the length must
/// be a multiple of the element size). A count past the end is an `Err`.
///
/// ```
/// use cuprite_array::io::frombuffer;
/// let bytes = [1u8, 0, 2, 0, 255, 255];
/// assert_eq!(frombuffer::<i16>(&bytes, None, 0)?.to_vec()?, [1, 2, -1]);
/// assert_eq!(frombuffer::<u8>(&bytes, Some(2), 1)?.to_vec()?, [0, 2]);
/// assert!(frombuffer::<i32>(&bytes, None, 0).is_err());
/// # Ok::<(), cuprite_array::Error>(())
/// ```
pub fn frombuffer<T: Element>(buf: &[u8], count: Option<usize>, offset: usize) -> Result<Array<T>> {
    let size = T::DTYPE.size();
    let rest = buf.get(offset..).ok_or_else(|| {
        Error::InvalidArgument(format!(
            "frombuffer: offset {offset} is past the {} bytes",
            buf.len()
        ))
    })?;
    let n = match count {
        Some(c) => c,
        None if rest.len() % size != 0 => {
            return Err(Error::InvalidArgument(format!(
                "frombuffer: {} bytes are not a multiple of the element size {size}",
                rest.len()
            )));
        }
        None => rest.len() / size,
    };
    let bytes = n.checked_mul(size).filter(|&b| b <= rest.len()).ok_or_else(|| {
        Error::InvalidArgument(format!(
            "frombuffer: {n} elements of {size} bytes do not fit the {} bytes after offset {offset}",
            rest.len()
        ))
    })?;
    Array::from_slice(&T::from_bytes(&rest[..bytes]), &[n])
}

/// NumPy's `fromfile(file, dtype=T, count, sep, offset)`: with `sep` empty the raw bytes
/// after `offset` (see [`frombuffer`]), else text as [`fromstring`]. `count` `None` reads
/// everything.
///
/// ```
/// use cuprite_array::{Array, io::fromfile};
/// let dir = std::env::temp_dir().join(format!("cuprite-doc-fromfile-{}", std::process::id()));
/// let a = Array::from_slice(&[1.5f32, -2.0, 8.0], &[3])?;
/// a.tofile(&dir, "", "")?;
/// assert_eq!(fromfile::<f32>(&dir, "", None, 4)?.to_vec()?, [-2.0, 8.0]);
/// a.tofile(&dir, ", ", "%.1f")?;
/// assert_eq!(std::fs::read_to_string(&dir).unwrap(), "1.5, -2.0, 8.0");
/// assert_eq!(fromfile::<f32>(&dir, ",", None, 0)?.to_vec()?, [1.5, -2.0, 8.0]);
/// std::fs::remove_file(&dir).ok();
/// # Ok::<(), cuprite_array::Error>(())
/// ```
pub fn fromfile<T: Element>(
    path: impl AsRef<Path>,
    sep: &str,
    count: Option<usize>,
    offset: usize,
) -> Result<Array<T>> {
    let p = path.as_ref();
    let bytes = std::fs::read(p).map_err(|e| io_err(&format!("reading {}", p.display()), e))?;
    if sep.is_empty() {
        return frombuffer(&bytes, count, offset);
    }
    let rest = bytes.get(offset..).unwrap_or(&[]);
    let text = std::str::from_utf8(rest).map_err(|e| io_err("fromfile", e))?;
    fromstring(text, sep, count)
}

impl<T: Element> Array<T> {
    /// NumPy's `ndarray.tofile(fid, sep, format)`: with `sep` empty the raw native-endian bytes
    /// in row-major order; else the values as text joined by `sep`, each by the printf
    /// `format` (one conversion, see [`SaveTxt::fmt`](crate::io::SaveTxt::fmt)) or, when `format` is empty, as NumPy's
    /// `str` of the scalar (shortest digits). See [`fromfile`] for an example.
    pub fn tofile(&self, path: impl AsRef<Path>, sep: &str, format: &str) -> Result<()> {
        let p = path.as_ref();
        let v = self.to_vec()?;
        let bytes: Vec<u8> = if sep.is_empty() {
            T::slice_bytes(&v).to_vec()
        } else {
            let spec = if format.is_empty() {
                None
            } else {
                let parts = parse_format(format)?;
                let specs: Vec<Spec> = parts.iter().filter_map(|q| q.clone().err()).collect();
                if specs.len() != 1 {
                    return Err(Error::InvalidArgument(format!(
                        "tofile: format {format:?} must hold one conversion"
                    )));
                }
                Some(parts)
            };
            let mut items = Vec::with_capacity(v.len());
            for &x in &v {
                items.push(match &spec {
                    None => elem_repr(x),
                    Some(parts) => {
                        let mut t = String::new();
                        for q in parts {
                            match q {
                                Ok(l) => t.push_str(l),
                                Err(s) => t.push_str(&format_elem(s, x)?),
                            }
                        }
                        t
                    }
                });
            }
            items.join(sep).into_bytes()
        };
        std::fs::File::create(p)
            .and_then(|mut f| f.write_all(&bytes))
            .map_err(|e| io_err(&format!("writing {}", p.display()), e))
    }
}
