//! A minimal reader and writer of zip archives with stored (uncompressed) entries, as NumPy's
//! `savez` writes them: local headers, a central directory and its end record, CRC-32
//! checked. Zip64 sizes are read from the central directory's extra field; compressed
//! entries, encryption and archives past 4 GiB on writing are an `Err`.

use crate::error::{Error, Result};

const LOCAL: u32 = 0x0403_4b50;
const CENTRAL: u32 = 0x0201_4b50;
const END: u32 = 0x0605_4b50;

/// The CRC-32 (IEEE, reflected polynomial `0xEDB88320`) of `data`.
pub(crate) fn crc32(data: &[u8]) -> u32 {
    static TABLE: std::sync::OnceLock<[u32; 256]> = std::sync::OnceLock::new();
    let t = TABLE.get_or_init(|| {
        let mut t = [0u32; 256];
        for (i, e) in t.iter_mut().enumerate() {
            let mut c = i as u32;
            for _ in 0..8 {
                c = if c & 1 != 0 {
                    0xEDB8_8320 ^ (c >> 1)
                } else {
                    c >> 1
                };
            }
            *e = c;
        }
        t
    });
    !data.iter().fold(!0u32, |c, &b| {
        t[((c ^ b as u32) & 0xff) as usize] ^ (c >> 8)
    })
}

fn bad(msg: impl Into<String>) -> Error {
    Error::Io(format!("zip archive: {}", msg.into()))
}

/// Builds a stored archive in memory.
#[derive(Default, Debug)]
pub(crate) struct ZipWriter {
    out: Vec<u8>,
    central: Vec<u8>,
    count: u16,
}

impl ZipWriter {
    /// Appends the entry `name` holding `data`.
    pub(crate) fn add(&mut self, name: &str, data: &[u8]) -> Result<()> {
        let (size, offset) = (u32::try_from(data.len()), u32::try_from(self.out.len()));
        let (Ok(size), Ok(offset), Ok(nlen)) = (size, offset, u16::try_from(name.len())) else {
            return Err(bad(format!(
                "entry {name:?} of {} bytes at offset {}: past the 4 GiB a zip without zip64 holds",
                data.len(),
                self.out.len()
            )));
        };
        self.count = self
            .count
            .checked_add(1)
            .ok_or_else(|| bad("more than 65535 entries"))?;
        let crc = crc32(data);
        // version 20, no flags, method 0 (stored), time and date 0 (1980-01-01).
        let common = |v: &mut Vec<u8>| {
            for x in [20u16, 0, 0, 0, 0x21] {
                v.extend_from_slice(&x.to_le_bytes());
            }
            for x in [crc, size, size] {
                v.extend_from_slice(&x.to_le_bytes());
            }
            v.extend_from_slice(&nlen.to_le_bytes());
            v.extend_from_slice(&0u16.to_le_bytes());
        };
        self.out.extend_from_slice(&LOCAL.to_le_bytes());
        common(&mut self.out);
        self.out.extend_from_slice(name.as_bytes());
        self.out.extend_from_slice(data);
        let c = &mut self.central;
        c.extend_from_slice(&CENTRAL.to_le_bytes());
        c.extend_from_slice(&20u16.to_le_bytes()); // made by
        common(c);
        for x in [0u16, 0, 0] {
            c.extend_from_slice(&x.to_le_bytes()); // comment length, disk, internal attributes
        }
        c.extend_from_slice(&0u32.to_le_bytes()); // external attributes
        c.extend_from_slice(&offset.to_le_bytes());
        c.extend_from_slice(name.as_bytes());
        Ok(())
    }

    /// The finished archive.
    pub(crate) fn finish(mut self) -> Result<Vec<u8>> {
        let (Ok(at), Ok(len)) = (
            u32::try_from(self.out.len()),
            u32::try_from(self.central.len()),
        ) else {
            return Err(bad("the archive passes 4 GiB"));
        };
        self.out.extend_from_slice(&self.central);
        self.out.extend_from_slice(&END.to_le_bytes());
        for x in [0u16, 0, self.count, self.count] {
            self.out.extend_from_slice(&x.to_le_bytes());
        }
        self.out.extend_from_slice(&len.to_le_bytes());
        self.out.extend_from_slice(&at.to_le_bytes());
        self.out.extend_from_slice(&0u16.to_le_bytes());
        Ok(self.out)
    }
}

/// The `N` bytes at `at` (an offset read from the archive: any value, so the end is a
/// checked sum), or an `Err` naming `at`.
fn bytes_at<const N: usize>(b: &[u8], at: usize) -> Result<[u8; N]> {
    at.checked_add(N)
        .and_then(|end| b.get(at..end))
        .and_then(|s| <[u8; N]>::try_from(s).ok())
        .ok_or_else(|| bad(format!("truncated at byte {at}")))
}

fn u16_at(b: &[u8], at: usize) -> Result<u16> {
    bytes_at(b, at).map(u16::from_le_bytes)
}

fn u32_at(b: &[u8], at: usize) -> Result<u32> {
    bytes_at(b, at).map(u32::from_le_bytes)
}

fn u64_at(b: &[u8], at: usize) -> Result<u64> {
    bytes_at(b, at).map(u64::from_le_bytes)
}

/// The entries of a stored archive, as `(name, data)` slices of `b`, CRCs checked.
pub(crate) fn read_entries(b: &[u8]) -> Result<Vec<(String, &[u8])>> {
    // The end record is in the last 22 + 65535 bytes (its comment is at most 65535).
    let lo = b.len().saturating_sub(22 + 65535);
    let end = (lo..b.len().saturating_sub(21))
        .rev()
        .find(|&i| u32_at(b, i).ok() == Some(END))
        .ok_or_else(|| bad("no end-of-central-directory record"))?;
    let count = u16_at(b, end + 10)? as usize;
    let mut at = u32_at(b, end + 16)? as usize;
    let mut out = Vec::with_capacity(count);
    for _ in 0..count {
        if u32_at(b, at)? != CENTRAL {
            return Err(bad(format!("no central directory entry at byte {at}")));
        }
        let (flags, method) = (u16_at(b, at + 8)?, u16_at(b, at + 10)?);
        let crc = u32_at(b, at + 16)?;
        let mut csize = u32_at(b, at + 20)? as u64;
        let mut usize_ = u32_at(b, at + 24)? as u64;
        let (nlen, xlen, clen) = (
            u16_at(b, at + 28)? as usize,
            u16_at(b, at + 30)? as usize,
            u16_at(b, at + 32)? as usize,
        );
        let mut local = u32_at(b, at + 42)? as u64;
        let name_bytes = b
            .get(at + 46..at + 46 + nlen)
            .ok_or_else(|| bad("truncated name"))?;
        let name = String::from_utf8_lossy(name_bytes).into_owned();
        // Zip64: the fields saturated at 0xFFFFFFFF follow, in order, in extra block 0x0001.
        let extra = b
            .get(at + 46 + nlen..at + 46 + nlen + xlen)
            .ok_or_else(|| bad("truncated extra field"))?;
        let mut x = 0;
        while x + 4 <= extra.len() {
            let (id, len) = (u16_at(extra, x)?, u16_at(extra, x + 2)? as usize);
            if id == 1 {
                let mut p = x + 4;
                for f in [&mut usize_, &mut csize, &mut local] {
                    if *f == 0xFFFF_FFFF {
                        *f = u64_at(extra, p)?;
                        p += 8;
                    }
                }
            }
            x += 4 + len;
        }
        if method != 0 || flags & 1 != 0 {
            return Err(bad(format!(
                "entry {name:?} is compressed (method {method}) or encrypted: only stored entries are read"
            )));
        }
        if csize != usize_ {
            return Err(bad(format!("entry {name:?}: stored sizes differ")));
        }
        let l = usize::try_from(local).map_err(|_| bad("offset overflows"))?;
        if u32_at(b, l)? != LOCAL {
            return Err(bad(format!("no local header for {name:?} at byte {l}")));
        }
        let start = l + 30 + u16_at(b, l + 26)? as usize + u16_at(b, l + 28)? as usize;
        let len = usize::try_from(csize).map_err(|_| bad("size overflows"))?;
        let data = start
            .checked_add(len)
            .and_then(|e| b.get(start..e))
            .ok_or_else(|| bad(format!("entry {name:?} runs past the end of the archive")))?;
        if crc32(data) != crc {
            return Err(bad(format!("entry {name:?}: CRC-32 mismatch")));
        }
        out.push((name, data));
        at += 46 + nlen + xlen + clen;
    }
    Ok(out)
}
