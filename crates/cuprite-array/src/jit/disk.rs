//! The disk cache of compiled kernels: one file per kernel, named by a 128-bit hash of the
//! source, the exact NVRTC option list, the architecture and the NVRTC version; written
//! atomically, checked on read (magic, length, checksum).

use crate::util::Fnv;
use std::hash::Hasher;
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::sync::atomic::Ordering;

const MAGIC: &[u8; 8] = b"CPRTKRN2";

static DIR_OVERRIDE: Mutex<Option<PathBuf>> = Mutex::new(None);

/// Overrides the disk cache folder for this process (`None`: back to the environment and
/// platform default). Useful in tests and for applications that manage their own folders.
pub fn set_cache_dir(dir: Option<PathBuf>) {
    *DIR_OVERRIDE.lock().unwrap_or_else(|e| e.into_inner()) = dir;
}

/// The disk cache folder, when one can be determined.
pub fn cache_dir() -> Option<PathBuf> {
    if let Some(d) = DIR_OVERRIDE
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .clone()
    {
        return Some(d);
    }
    if let Some(d) = std::env::var_os("CUPRITE_CACHE_DIR") {
        if !d.is_empty() {
            return Some(PathBuf::from(d));
        }
    }
    if cfg!(windows) {
        return std::env::var_os("LOCALAPPDATA").map(|d| PathBuf::from(d).join("cuprite"));
    }
    if cfg!(target_os = "macos") {
        return std::env::var_os("HOME").map(|h| PathBuf::from(h).join("Library/Caches/cuprite"));
    }
    if let Some(x) = std::env::var_os("XDG_CACHE_HOME") {
        if !x.is_empty() {
            return Some(PathBuf::from(x).join("cuprite"));
        }
    }
    std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".cache/cuprite"))
}

fn hash128(parts: &[&[u8]]) -> u128 {
    let mut a = Fnv(0xcbf2_9ce4_8422_2325);
    let mut b = Fnv(0x6c62_272e_07bb_0142);
    for p in parts {
        a.write(p);
        a.write(&[0xff]);
        b.write(&(p.len() as u64).to_le_bytes());
        b.write(p);
    }
    ((a.finish() as u128) << 64) | b.finish() as u128
}

/// The corruption check of a file's body: four lanes of 8-byte words, each step a xor, a
/// multiply by the FNV prime and a rotation (any one changed word changes its lane), then the
/// lanes, the tail and the length through [`Fnv`]. The lanes are independent, so a multi-MB
/// CUBIN (the interpreter's) is checked in a fraction of bytewise FNV's time.
fn checksum(b: &[u8]) -> u64 {
    const PRIME: u64 = 0x0100_0000_01b3;
    let mut lanes: [u64; 4] = [
        0xcbf2_9ce4_8422_2325,
        0x6c62_272e_07bb_0142,
        0x1234_5678_9abc_def1,
        0x0f1e_2d3c_4b5a_6978,
    ];
    let mut chunks = b.chunks_exact(32);
    for chunk in &mut chunks {
        for (lane, word) in lanes.iter_mut().zip(chunk.chunks_exact(8)) {
            let w = u64::from_le_bytes(word.try_into().unwrap_or_default());
            *lane = (*lane ^ w).wrapping_mul(PRIME).rotate_left(29);
        }
    }
    let mut h = Fnv(0x1234_5678_9abc_def1);
    for lane in lanes {
        h.write(&lane.to_le_bytes());
    }
    h.write(chunks.remainder());
    h.write(&(b.len() as u64).to_le_bytes());
    h.finish()
}

/// Reads a cache file; `None` when missing or corrupt.
pub(crate) fn read_entry(path: &Path) -> Option<Vec<u8>> {
    let data = std::fs::read(path).ok()?;
    if data.len() < 24 || &data[..8] != MAGIC {
        return None;
    }
    let len = u64::from_le_bytes(data[8..16].try_into().ok()?) as usize;
    let sum = u64::from_le_bytes(data[16..24].try_into().ok()?);
    let mut data = data;
    if data.len() - 24 != len || checksum(&data[24..]) != sum {
        return None;
    }
    data.drain(..24);
    Some(data)
}

/// Writes a cache file atomically (temporary file, then rename). Failures are ignored: the
/// cache is an optimisation.
fn write_entry(path: &Path, body: &[u8]) {
    let Some(dir) = path.parent() else { return };
    if std::fs::create_dir_all(dir).is_err() {
        return;
    }
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_nanos())
        .unwrap_or(0);
    let tmp = dir.join(format!(
        ".{}.{}.{nanos}.tmp",
        path.file_name().and_then(|n| n.to_str()).unwrap_or("k"),
        std::process::id()
    ));
    let mut data = Vec::with_capacity(body.len() + 24);
    data.extend_from_slice(MAGIC);
    data.extend_from_slice(&(body.len() as u64).to_le_bytes());
    data.extend_from_slice(&checksum(body).to_le_bytes());
    data.extend_from_slice(body);
    if std::fs::write(&tmp, &data).is_ok() && std::fs::rename(&tmp, path).is_err() {
        let _ = std::fs::remove_file(&tmp);
    }
}

/// The cache file (`<key>.<ext>`) of `src` compiled with exactly `args` (NVRTC's option list,
/// which names the architecture) by NVRTC `version`: any change of the options is a new file.
pub(crate) fn entry_path(
    src: &str,
    args: &[String],
    version: (u32, u32),
    ext: &str,
) -> Option<PathBuf> {
    let key = key(src, args, version);
    cache_dir().map(|d| d.join(format!("{key:032x}.{ext}")))
}

/// The 128-bit disk key of `src` compiled with `args` by NVRTC `version`.
pub(crate) fn key(src: &str, args: &[String], version: (u32, u32)) -> u128 {
    let mut parts: Vec<&[u8]> = Vec::with_capacity(args.len() + 3);
    parts.push(src.as_bytes());
    let v = [version.0.to_le_bytes(), version.1.to_le_bytes()].concat();
    parts.push(&v);
    for a in args {
        parts.push(a.as_bytes());
    }
    hash128(&parts)
}

/// The cached CUBIN at `path` (`None`: missing or corrupt), counted as a disk hit.
pub(crate) fn load(path: Option<&Path>) -> Option<Vec<u8>> {
    let b = read_entry(path?)?;
    crate::stats::DISK_HITS.fetch_add(1, Ordering::Relaxed);
    crate::stats::note_thread_build();
    Some(b)
}

/// Stores `cubin` at `path` (atomically; failures ignored: the cache is an optimisation).
pub(crate) fn store(path: Option<&Path>, cubin: &[u8]) {
    if let Some(p) = path {
        write_entry(p, cubin);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every single-bit change of a body (in each lane, at the top and bottom bits of words,
    /// and in the tail) changes the checksum, as does a change of length; a written entry reads
    /// back as written, and one with a flipped bit does not read at all.
    #[test]
    fn checksum_sees_any_one_bit_and_entries_round_trip() {
        let mut x = 0x9e37_79b9_7f4a_7c15u64 ^ std::process::id() as u64;
        let body: Vec<u8> = (0..1000)
            .map(|_| {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                x as u8
            })
            .collect();
        let sum = checksum(&body);
        for byte in (0..body.len()).step_by(3).chain(990..1000) {
            for bit in [0, 3, 7] {
                let mut b = body.clone();
                b[byte] ^= 1 << bit;
                assert_ne!(checksum(&b), sum, "byte {byte} bit {bit}");
            }
        }
        assert_ne!(checksum(&body[..999]), sum);
        let dir = std::env::temp_dir().join(format!("cuprite-disk-test-{}", std::process::id()));
        let path = dir.join("k.cubin");
        write_entry(&path, &body);
        assert_eq!(read_entry(&path).as_deref(), Some(&body[..]));
        let mut raw = std::fs::read(&path).unwrap();
        raw[24 + 517] ^= 0x80;
        std::fs::write(&path, &raw).unwrap();
        assert_eq!(read_entry(&path), None);
        let _ = std::fs::remove_dir_all(&dir);
    }
}
