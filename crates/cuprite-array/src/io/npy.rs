//! NumPy's `.npy` format (one array) and `.npz` archives of them (stored zip entries), read
//! and written on the host: an array is read back to the host before saving, and a loaded
//! array is created on the current device.
//!
//! Reading takes format versions 1 to 3, either byte order, and Fortran order (transposed
//! back to row-major); writing gives version 1 (version 2 when the header needs it),
//! little-endian, row-major. `bf16` has no NumPy type and is an `Err` both ways.

use super::zip::{ZipWriter, read_entries};
use crate::array::Array;
use crate::dtype::{DType, Element};
use crate::error::{Error, Result};
use std::path::Path;

const MAGIC: &[u8] = b"\x93NUMPY";

/// NumPy's type string for `d` (little-endian), and the size of the parts a byte swap
/// reverses (half the element for complex numbers).
fn descr(d: DType) -> Result<(&'static str, usize)> {
    Ok(match d {
        DType::Bool => ("|b1", 1),
        DType::I8 => ("|i1", 1),
        DType::U8 => ("|u1", 1),
        DType::I16 => ("<i2", 2),
        DType::U16 => ("<u2", 2),
        DType::I32 => ("<i4", 4),
        DType::U32 => ("<u4", 4),
        DType::I64 => ("<i8", 8),
        DType::U64 => ("<u8", 8),
        DType::F16 => ("<f2", 2),
        DType::F32 => ("<f4", 4),
        DType::F64 => ("<f8", 8),
        DType::C32 => ("<c8", 4),
        DType::C64 => ("<c16", 8),
        other => {
            return Err(Error::Io(format!(
                "{other} has no NumPy type: cast it (to f32, say) before saving"
            )));
        }
    })
}

fn bad(msg: impl Into<String>) -> Error {
    Error::Io(format!("npy: {}", msg.into()))
}

/// The value of `key` in a header dict such as `{'descr': '<f4', 'shape': (2, 3), }`.
fn field<'a>(h: &'a str, key: &str) -> Result<&'a str> {
    let k = format!("'{key}':");
    let at = h
        .find(&k)
        .ok_or_else(|| bad(format!("header has no {key:?}: {h}")))?;
    let rest = h[at + k.len()..].trim_start();
    let end = if rest.starts_with('(') {
        rest.find(')').map(|i| i + 1)
    } else if let Some(r) = rest.strip_prefix('\'') {
        r.find('\'').map(|i| i + 2)
    } else {
        rest.find([',', '}'])
    };
    end.map(|e| rest[..e].trim())
        .ok_or_else(|| bad(format!("header field {key:?} is unterminated: {h}")))
}

/// The element type, Fortran order, shape and data of a `.npy` image.
fn parse(b: &[u8]) -> Result<(String, bool, Vec<usize>, &[u8])> {
    if b.len() < 10 || &b[..6] != MAGIC {
        return Err(bad("not an .npy file (no \\x93NUMPY magic)"));
    }
    let (hlen, start) = match b[6] {
        1 => (u16::from_le_bytes([b[8], b[9]]) as usize, 10),
        2 | 3 if b.len() >= 12 => (u32::from_le_bytes([b[8], b[9], b[10], b[11]]) as usize, 12),
        v => return Err(bad(format!("format version {v} is not supported"))),
    };
    let h = b
        .get(start..start + hlen)
        .ok_or_else(|| bad("the header runs past the end"))?;
    let h = std::str::from_utf8(h).map_err(|_| bad("the header is not text"))?;
    let d = field(h, "descr")?.trim_matches('\'').to_string();
    let fortran = match field(h, "fortran_order")? {
        "True" => true,
        "False" => false,
        v => return Err(bad(format!("fortran_order {v:?}"))),
    };
    let s = field(h, "shape")?;
    let shape = s
        .trim_matches(|c| c == '(' || c == ')')
        .split(',')
        .map(str::trim)
        .filter(|t| !t.is_empty())
        .map(|t| t.parse::<usize>().map_err(|_| bad(format!("shape {s}"))))
        .collect::<Result<Vec<_>>>()?;
    Ok((d, fortran, shape, &b[start + hlen..]))
}

impl<T: Element> Array<T> {
    /// The array as the bytes of a `.npy` file (NumPy's `save` to memory).
    ///
    /// ```
    /// use cuprite_array::Array;
    /// let a = Array::from_slice(&[1.5f32, 2.5], &[2])?;
    /// let b = Array::<f32>::from_npy_bytes(&a.to_npy_bytes()?)?;
    /// assert_eq!(b.to_vec()?, vec![1.5, 2.5]);
    /// # Ok::<(), cuprite_array::Error>(())
    /// ```
    pub fn to_npy_bytes(&self) -> Result<Vec<u8>> {
        let (d, _) = descr(T::DTYPE)?;
        let shape = match self.shape() {
            [n] => format!("({n},)"),
            s => format!(
                "({})",
                s.iter()
                    .map(|x| x.to_string())
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
        };
        let mut h = format!("{{'descr': '{d}', 'fortran_order': False, 'shape': {shape}, }}");
        // Header length so that the data starts at a multiple of 64, ending in '\n'.
        let v1 = 10 + h.len() < u16::MAX as usize;
        let pre = if v1 { 10 } else { 12 };
        let total = (pre + h.len() + 1).div_ceil(64) * 64;
        h.push_str(&" ".repeat(total - pre - h.len() - 1));
        h.push('\n');
        let data = self.to_vec()?;
        let mut out = Vec::with_capacity(total + data.len() * T::DTYPE.size());
        out.extend_from_slice(MAGIC);
        if v1 {
            out.extend_from_slice(&[1, 0]);
            out.extend_from_slice(&(h.len() as u16).to_le_bytes());
        } else {
            out.extend_from_slice(&[2, 0]);
            let n = u32::try_from(h.len()).map_err(|_| bad("header past 4 GiB"))?;
            out.extend_from_slice(&n.to_le_bytes());
        }
        out.extend_from_slice(h.as_bytes());
        out.extend_from_slice(T::slice_bytes(&data));
        Ok(out)
    }

    /// An array from the bytes of a `.npy` file; an element type other than `T`'s is an `Err`
    /// naming both.
    ///
    /// ```
    /// use cuprite_array::Array;
    /// let bytes = Array::from_slice(&[7i16, 8, 9, 10], &[2, 2])?.to_npy_bytes()?;
    /// assert_eq!(Array::<i16>::from_npy_bytes(&bytes)?.shape(), &[2, 2]);
    /// assert!(Array::<f32>::from_npy_bytes(&bytes).is_err());
    /// # Ok::<(), cuprite_array::Error>(())
    /// ```
    pub fn from_npy_bytes(b: &[u8]) -> Result<Array<T>> {
        let (d, fortran, shape, data) = parse(b)?;
        let (want, part) = descr(T::DTYPE)?;
        // The byte-order mark is the first character (split on its boundary: a descr is any
        // text of the header, and a non-ASCII first character matches no type).
        let (order, code) = d.split_at(d.chars().next().map_or(0, char::len_utf8));
        if code != &want[1..] || !matches!(order, "<" | ">" | "|" | "=") {
            return Err(bad(format!(
                "the file holds {d:?}, not {} ({want:?})",
                T::DTYPE
            )));
        }
        let n = crate::shape::checked_numel(&shape)?;
        let bytes = n
            .checked_mul(T::DTYPE.size())
            .filter(|&m| m <= data.len())
            .ok_or_else(|| {
                bad(format!(
                    "{} data bytes for shape {shape:?} of {d}",
                    data.len()
                ))
            })?;
        let mut raw = data[..bytes].to_vec();
        if order == ">" && part > 1 {
            raw.chunks_exact_mut(part).for_each(|c| c.reverse());
        }
        let v = T::from_bytes(&raw);
        if fortran && shape.len() > 1 {
            let rev: Vec<usize> = shape.iter().rev().copied().collect();
            let perm: Vec<usize> = (0..shape.len()).rev().collect();
            return Array::from_slice(&v, &rev)?.permute(&perm)?.contiguous();
        }
        Array::from_slice(&v, &shape)
    }

    /// Writes the array to a `.npy` file at `path` (NumPy's `save`).
    ///
    /// ```
    /// use cuprite_array::Array;
    /// let p = std::env::temp_dir().join(format!("cuprite-doc-{}.npy", std::process::id()));
    /// Array::from_slice(&[1u8, 2, 3], &[3])?.save_npy(&p)?;
    /// assert_eq!(Array::<u8>::load_npy(&p)?.to_vec()?, vec![1, 2, 3]);
    /// # std::fs::remove_file(&p).ok();
    /// # Ok::<(), cuprite_array::Error>(())
    /// ```
    pub fn save_npy(&self, path: impl AsRef<Path>) -> Result<()> {
        let p = path.as_ref();
        std::fs::write(p, self.to_npy_bytes()?)
            .map_err(|e| Error::Io(format!("writing {}: {e}", p.display())))
    }

    /// Reads a `.npy` file (NumPy's `load`); see [`from_npy_bytes`](Self::from_npy_bytes).
    pub fn load_npy(path: impl AsRef<Path>) -> Result<Array<T>> {
        let p = path.as_ref();
        let b = std::fs::read(p).map_err(|e| Error::Io(format!("reading {}: {e}", p.display())))?;
        Array::from_npy_bytes(&b)
    }
}

/// Builds an `.npz` archive (NumPy's `savez`: stored entries `name.npy`).
///
/// ```
/// use cuprite_array::{Array, io::{NpzWriter, Npz}};
/// let mut w = NpzWriter::new();
/// w.add("x", &Array::from_slice(&[1.0f64, 2.0], &[2])?)?;
/// w.add("n", &Array::from_slice(&[3i64], &[1])?)?;
/// let z = Npz::from_bytes(w.finish()?)?;
/// assert_eq!(z.names(), vec!["x", "n"]);
/// assert_eq!(z.get::<i64>("n")?.to_vec()?, vec![3]);
/// # Ok::<(), cuprite_array::Error>(())
/// ```
#[derive(Default, Debug)]
pub struct NpzWriter {
    zip: ZipWriter,
}

impl NpzWriter {
    /// An empty archive.
    pub fn new() -> Self {
        Self::default()
    }

    /// Adds `a` as entry `name` (`name.npy` in the archive).
    pub fn add<T: Element>(&mut self, name: &str, a: &Array<T>) -> Result<()> {
        self.zip.add(&format!("{name}.npy"), &a.to_npy_bytes()?)
    }

    /// The archive's bytes.
    pub fn finish(self) -> Result<Vec<u8>> {
        self.zip.finish()
    }

    /// Writes the archive to `path`.
    pub fn save(self, path: impl AsRef<Path>) -> Result<()> {
        let p = path.as_ref();
        std::fs::write(p, self.finish()?)
            .map_err(|e| Error::Io(format!("writing {}: {e}", p.display())))
    }
}

/// An `.npz` archive read into memory (NumPy's `load` of an `.npz`); entries are decoded by
/// [`get`](Self::get).
pub struct Npz {
    bytes: Vec<u8>,
    names: Vec<String>,
}

impl std::fmt::Debug for Npz {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Npz").field("names", &self.names).finish()
    }
}

impl Npz {
    /// Parses an archive's bytes (stored entries only: `savez_compressed` output is an
    /// `Err`).
    pub fn from_bytes(bytes: Vec<u8>) -> Result<Npz> {
        let names = read_entries(&bytes)?
            .into_iter()
            .map(|(n, _)| n.strip_suffix(".npy").unwrap_or(&n).to_string())
            .collect();
        Ok(Npz { bytes, names })
    }

    /// Reads the archive at `path`.
    pub fn open(path: impl AsRef<Path>) -> Result<Npz> {
        let p = path.as_ref();
        let b = std::fs::read(p).map_err(|e| Error::Io(format!("reading {}: {e}", p.display())))?;
        Npz::from_bytes(b)
    }

    /// The entries' names, in archive order, without `.npy`.
    pub fn names(&self) -> Vec<&str> {
        self.names.iter().map(String::as_str).collect()
    }

    /// The entry `name` as an array of `T`; a missing name or another element type is an
    /// `Err`.
    pub fn get<T: Element>(&self, name: &str) -> Result<Array<T>> {
        let entries = read_entries(&self.bytes)?;
        let (_, data) = entries
            .iter()
            .find(|(n, _)| n.strip_suffix(".npy").unwrap_or(n) == name)
            .ok_or_else(|| {
                Error::Io(format!(
                    "npz: no entry {name:?} (entries: {:?})",
                    self.names
                ))
            })?;
        Array::from_npy_bytes(data)
    }
}
