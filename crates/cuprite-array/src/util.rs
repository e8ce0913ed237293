//! Small tools used across the crate: stable and fast hashers, a vector that keeps its first
//! few elements inline (no allocation on hot paths), fallible host vectors, and process-wide
//! switches read first from the environment.

use crate::error::{Error, Result};
use std::collections::HashMap;
use std::hash::Hasher;
use std::sync::atomic::{AtomicU8, Ordering};

/// An empty vector with room for `len` values, or an `Err` naming `what` (not an abort) when
/// the host cannot hold them. The callers fill what they reserve, so a reservation larger
/// than the host's physical memory is refused too: where the kernel overcommits memory, the
/// reservation itself would succeed and filling it would get the process killed.
pub(crate) fn host_vec<T>(len: usize, what: &str) -> Result<Vec<T>> {
    host_fits::<T>(len, what)?;
    let mut v = Vec::new();
    v.try_reserve_exact(len).map_err(|_| {
        Error::InvalidArgument(format!(
            "{what}: cannot allocate host memory for {len} values of {} bytes",
            std::mem::size_of::<T>()
        ))
    })?;
    Ok(v)
}

/// `Ok` where `len` values of `T` are no more bytes than the address space and the host's
/// physical memory hold, else an `Err` naming `what` and `len` ([`host_vec`]'s test, for
/// the callers that collect their values instead of reserving them).
pub(crate) fn host_fits<T>(len: usize, what: &str) -> Result<()> {
    let size = std::mem::size_of::<T>();
    let bytes = len
        .checked_mul(size)
        .filter(|&b| b <= isize::MAX as usize)
        .ok_or_else(|| {
            Error::InvalidArgument(format!(
                "{what}: cannot allocate host memory for {len} values of {size} bytes"
            ))
        })?;
    if let Some(total) = host_memory_bytes() {
        if bytes as u64 > total {
            return Err(Error::InvalidArgument(format!(
                "{what}: {len} values of {size} bytes ({bytes} bytes) exceed the host's \
                 {total} bytes of memory"
            )));
        }
    }
    Ok(())
}

/// `v` as a signed 64-bit kernel parameter (the kernels index in `long long`), or an `Err`
/// naming `what` and the value where it does not fit.
pub(crate) fn kernel_i64(v: usize, what: &str) -> Result<i64> {
    i64::try_from(v).map_err(|_| {
        Error::InvalidArgument(format!(
            "{what} {v} is larger than a kernel's signed 64-bit parameter ({})",
            i64::MAX
        ))
    })
}

/// The host's physical memory in bytes (`MemTotal` of `/proc/meminfo`), read once; `None`
/// where that is not known.
pub(crate) fn host_memory_bytes() -> Option<u64> {
    static TOTAL: std::sync::OnceLock<Option<u64>> = std::sync::OnceLock::new();
    *TOTAL.get_or_init(|| {
        let text = std::fs::read_to_string("/proc/meminfo").ok()?;
        let line = text.lines().find(|l| l.starts_with("MemTotal:"))?;
        let kib: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
        kib.checked_mul(1024)
    })
}

/// A `HashMap` with [`FastHasher`].
pub(crate) type FastMap<K, V> = HashMap<K, V, std::hash::BuildHasherDefault<FastHasher>>;

/// FNV-1a, a small stable hasher (the std `DefaultHasher` is not stable across releases, and
/// the disk cache must be).
#[derive(Debug, Clone)]
pub(crate) struct Fnv(pub u64);

impl Hasher for Fnv {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, bytes: &[u8]) {
        for b in bytes {
            self.0 ^= *b as u64;
            self.0 = self.0.wrapping_mul(0x0100_0000_01b3);
        }
    }
}

/// A fast, non-cryptographic hasher for in-process maps whose keys are small (pointers,
/// instructions, sizes, kernel keys that are already hashes): no per-map random state, one
/// multiply per word. Not for anything persisted (see [`Fnv`]).
#[derive(Default)]
pub(crate) struct FastHasher(u64);

impl Hasher for FastHasher {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, bytes: &[u8]) {
        for b in bytes {
            self.0 = (self.0.rotate_left(8) ^ *b as u64).wrapping_mul(0x9e37_79b9_7f4a_7c15);
        }
    }
    fn write_u64(&mut self, v: u64) {
        self.0 = (self.0.rotate_left(5) ^ v).wrapping_mul(0x9e37_79b9_7f4a_7c15);
    }
    fn write_usize(&mut self, v: usize) {
        self.write_u64(v as u64);
    }
    fn write_u32(&mut self, v: u32) {
        self.write_u64(v as u64);
    }
}

/// The hasher of in-memory kernel keys ([`Program::structure_hash`]): one strong 64-bit mix
/// (the SplitMix64 finaliser) per word written, instead of FNV's one multiply per byte. Not
/// persisted (the disk cache is keyed by the source text).
pub(crate) struct KeyHasher(pub u64);

impl KeyHasher {
    #[inline]
    fn mix(mut z: u64) -> u64 {
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }
}

impl Hasher for KeyHasher {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, bytes: &[u8]) {
        for c in bytes.chunks(8) {
            let mut w = [0u8; 8];
            w[..c.len()].copy_from_slice(c);
            self.write_u64(u64::from_le_bytes(w) ^ ((c.len() as u64) << 56));
        }
    }
    #[inline]
    fn write_u64(&mut self, v: u64) {
        self.0 = Self::mix(self.0.wrapping_add(0x9e37_79b9_7f4a_7c15) ^ v);
    }
    fn write_u8(&mut self, v: u8) {
        self.write_u64(v as u64);
    }
    fn write_u16(&mut self, v: u16) {
        self.write_u64(v as u64);
    }
    fn write_u32(&mut self, v: u32) {
        self.write_u64(v as u64);
    }
    fn write_usize(&mut self, v: usize) {
        self.write_u64(v as u64);
    }
    fn write_i64(&mut self, v: i64) {
        self.write_u64(v as u64);
    }
    fn write_isize(&mut self, v: isize) {
        self.write_u64(v as u64);
    }
}

/// Up to `N` values inline, more on the heap: the per-launch lists (inputs, pointers) and a
/// layout's strides without an allocation in the common case.
#[derive(Clone)]
pub(crate) struct Inline<T: Copy, const N: usize> {
    inline: Option<[T; N]>,
    heap: Vec<T>,
    len: usize,
}

impl<T: Copy, const N: usize> Inline<T, N> {
    #[inline]
    pub(crate) fn new() -> Self {
        Inline {
            inline: None,
            heap: Vec::new(),
            len: 0,
        }
    }

    #[inline]
    pub(crate) fn push(&mut self, x: T) {
        if self.len < N {
            match self.inline.as_mut() {
                Some(a) => a[self.len] = x,
                None => self.inline = Some([x; N]),
            }
        } else {
            if self.len == N {
                self.heap
                    .extend_from_slice(self.inline.as_ref().map_or(&[][..], |a| &a[..]));
            }
            self.heap.push(x);
        }
        self.len += 1;
    }

    pub(crate) fn extend_from_slice(&mut self, xs: &[T]) {
        for &x in xs {
            self.push(x);
        }
    }

    #[inline]
    pub(crate) fn as_slice(&self) -> &[T] {
        if self.len > N {
            &self.heap
        } else {
            self.inline.as_ref().map_or(&[][..], |a| &a[..self.len])
        }
    }
}

impl<T: Copy, const N: usize> FromIterator<T> for Inline<T, N> {
    fn from_iter<I: IntoIterator<Item = T>>(iter: I) -> Self {
        let mut v = Inline::new();
        for x in iter {
            v.push(x);
        }
        v
    }
}

impl<T: Copy, const N: usize> std::ops::Deref for Inline<T, N> {
    type Target = [T];
    #[inline]
    fn deref(&self) -> &[T] {
        self.as_slice()
    }
}

impl<T: Copy, const N: usize> std::ops::DerefMut for Inline<T, N> {
    #[inline]
    fn deref_mut(&mut self) -> &mut [T] {
        if self.len > N {
            &mut self.heap
        } else {
            match self.inline.as_mut() {
                Some(a) => &mut a[..self.len],
                None => &mut [],
            }
        }
    }
}

impl<T: Copy, const N: usize> Default for Inline<T, N> {
    fn default() -> Self {
        Inline::new()
    }
}

impl<T: Copy + std::fmt::Debug, const N: usize> std::fmt::Debug for Inline<T, N> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        self.as_slice().fmt(f)
    }
}

/// Up to `N` plain values inline, more on the heap: a node's extents and a layout's strides.
/// Leaner than [`Inline`] (no second allocation slot, compared without a call to `memcmp`),
/// for the types that have a default value to fill the unused places with.
#[derive(Clone)]
pub(crate) enum Small<T: Copy + Default, const N: usize> {
    /// `len` values at the front of the array, the rest default.
    Inline(u8, [T; N]),
    /// More than `N` values.
    Heap(Vec<T>),
}

impl<T: Copy + Default, const N: usize> Small<T, N> {
    const FITS: () = assert!(N <= u8::MAX as usize, "an inline length is a u8");

    #[inline]
    pub(crate) fn new() -> Self {
        let () = Self::FITS;
        Small::Inline(0, [T::default(); N])
    }

    /// `n` copies of `x`.
    pub(crate) fn repeat(x: T, n: usize) -> Self {
        let () = Self::FITS;
        if n <= N {
            let mut a = [T::default(); N];
            a[..n].fill(x);
            Small::Inline(n as u8, a)
        } else {
            Small::Heap(vec![x; n])
        }
    }

    #[inline]
    pub(crate) fn push(&mut self, x: T) {
        match self {
            Small::Inline(len, a) if (*len as usize) < N => {
                a[*len as usize] = x;
                *len += 1;
            }
            Small::Inline(len, a) => {
                let mut v = a[..*len as usize].to_vec();
                v.push(x);
                *self = Small::Heap(v);
            }
            Small::Heap(v) => v.push(x),
        }
    }

    #[inline]
    pub(crate) fn as_slice(&self) -> &[T] {
        match self {
            Small::Inline(len, a) => &a[..*len as usize],
            Small::Heap(v) => v,
        }
    }
}

impl<T: Copy + Default, const N: usize> From<&[T]> for Small<T, N> {
    #[inline]
    fn from(xs: &[T]) -> Self {
        let () = Self::FITS;
        if xs.len() <= N {
            let mut a = [T::default(); N];
            a[..xs.len()].copy_from_slice(xs);
            Small::Inline(xs.len() as u8, a)
        } else {
            Small::Heap(xs.to_vec())
        }
    }
}

impl<T: Copy + Default, const N: usize> From<Vec<T>> for Small<T, N> {
    fn from(xs: Vec<T>) -> Self {
        if xs.len() > N {
            Small::Heap(xs)
        } else {
            Small::from(&xs[..])
        }
    }
}

impl<T: Copy + Default, const N: usize> FromIterator<T> for Small<T, N> {
    fn from_iter<I: IntoIterator<Item = T>>(iter: I) -> Self {
        let mut v = Small::new();
        for x in iter {
            v.push(x);
        }
        v
    }
}

impl<T: Copy + Default, const N: usize> std::ops::Deref for Small<T, N> {
    type Target = [T];
    #[inline]
    fn deref(&self) -> &[T] {
        self.as_slice()
    }
}

impl<T: Copy + Default, const N: usize> std::ops::DerefMut for Small<T, N> {
    #[inline]
    fn deref_mut(&mut self) -> &mut [T] {
        match self {
            Small::Inline(len, a) => &mut a[..*len as usize],
            Small::Heap(v) => v,
        }
    }
}

impl<T: Copy + Default, const N: usize> Default for Small<T, N> {
    fn default() -> Self {
        Small::new()
    }
}

impl<T: Copy + Default + std::fmt::Debug, const N: usize> std::fmt::Debug for Small<T, N> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        self.as_slice().fmt(f)
    }
}

/// Whether two short slices hold the same values, compared in place (a shape or strides
/// comparison is a few words: a call to `memcmp` costs more than the loop).
#[inline]
pub(crate) fn same<T: Copy + PartialEq>(a: &[T], b: &[T]) -> bool {
    a.len() == b.len() && a.iter().zip(b).all(|(x, y)| x == y)
}

impl<T: Copy + Default + PartialEq, const N: usize> PartialEq for Small<T, N> {
    #[inline]
    fn eq(&self, other: &Self) -> bool {
        same(self, other)
    }
}

impl<T: Copy + Default + Eq, const N: usize> Eq for Small<T, N> {}

impl<T: Copy + Default + PartialEq, const N: usize> PartialEq<[T]> for Small<T, N> {
    #[inline]
    fn eq(&self, other: &[T]) -> bool {
        same(self, other)
    }
}

impl<T: Copy + Default + PartialEq, const N: usize> PartialEq<&[T]> for Small<T, N> {
    #[inline]
    fn eq(&self, other: &&[T]) -> bool {
        same(self, other)
    }
}

impl<T: Copy + Default + PartialEq, const N: usize> PartialEq<Vec<T>> for Small<T, N> {
    fn eq(&self, other: &Vec<T>) -> bool {
        same(self, other)
    }
}

impl<T: Copy + Default + std::hash::Hash, const N: usize> std::hash::Hash for Small<T, N> {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        self.as_slice().hash(state)
    }
}

impl<'a, T: Copy + Default, const N: usize> IntoIterator for &'a Small<T, N> {
    type Item = &'a T;
    type IntoIter = std::slice::Iter<'a, T>;
    fn into_iter(self) -> Self::IntoIter {
        self.as_slice().iter()
    }
}

/// A process-wide on/off switch: `default` until the first reading, which takes environment
/// variable `var` (set to the value that is not the default's, `"0"` for an on-by-default
/// switch, `"1"` for an off-by-default one, it starts the other way); [`set`](Self::set)
/// overrides it for readings after the call, a `set` racing the first reading included.
pub(crate) struct EnvSwitch {
    /// 2: not yet read from the environment; else 0 or 1.
    state: AtomicU8,
    var: &'static str,
    default: bool,
}

impl EnvSwitch {
    pub(crate) const fn new(var: &'static str, default: bool) -> Self {
        EnvSwitch {
            state: AtomicU8::new(2),
            var,
            default,
        }
    }

    pub(crate) fn set(&self, on: bool) {
        self.state.store(on as u8, Ordering::Relaxed);
    }

    pub(crate) fn get(&self) -> bool {
        match self.state.load(Ordering::Relaxed) {
            2 => {
                let flip = if self.default { "0" } else { "1" };
                let on =
                    std::env::var(self.var).map_or(self.default, |v| (v == flip) != self.default);
                // Another thread's `set` since the load wins.
                let _ =
                    self.state
                        .compare_exchange(2, on as u8, Ordering::Relaxed, Ordering::Relaxed);
                self.state.load(Ordering::Relaxed) == 1
            }
            v => v == 1,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::Small;
    use std::hash::{Hash, Hasher};

    fn hash_of(x: &impl Hash) -> u64 {
        let mut h = std::collections::hash_map::DefaultHasher::new();
        x.hash(&mut h);
        h.finish()
    }

    #[test]
    fn small_moves_to_the_heap_past_its_inline_length() {
        let mut s: Small<usize, 3> = Small::new();
        for i in 0..5 {
            s.push(10 + i);
        }
        assert!(matches!(s, Small::Heap(_)));
        assert_eq!(&s[..], &[10, 11, 12, 13, 14]);
        let t: Small<usize, 3> = (10..15).collect();
        assert_eq!(s, t);
        let short: Small<usize, 3> = Small::from(&[4usize, 5][..]);
        assert!(matches!(short, Small::Inline(2, [4, 5, 0])));
        assert_ne!(short, s);
        assert_eq!(short, vec![4, 5]);
        assert_eq!(hash_of(&short), hash_of(&&[4usize, 5][..]));
    }

    #[test]
    fn small_repeat_and_write_in_place() {
        let mut s: Small<isize, 4> = Small::repeat(7, 3);
        s[1] = -2;
        assert_eq!(&s[..], &[7, -2, 7]);
        let mut h: Small<isize, 4> = Small::repeat(1, 6);
        h[5] = 9;
        assert_eq!(&h[..], &[1, 1, 1, 1, 1, 9]);
        assert_eq!(Small::<isize, 4>::from(vec![1, 1, 1, 1, 1, 9]), h);
        assert!(Small::<isize, 4>::new().is_empty());
    }
}
