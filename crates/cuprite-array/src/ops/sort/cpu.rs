//! The CPU side of the sort family, on rayon: the same keys, order, NaN handling and
//! arithmetic as the CUDA kernels, so exact operations agree bit for bit.

use super::gpu::Pick;
use super::keys::KeySpec;
use crate::dtype::DType;
use rayon::prelude::*;

/// Sorts `rows` rows of `n` elements (`bytes`, element bits of `spec`): values as bytes of the
/// input dtype (NaN canonical) and indices within each row (stable).
pub(crate) fn sort_rows(
    spec: KeySpec,
    bytes: &[u8],
    rows: usize,
    n: usize,
    desc: bool,
) -> (Vec<u8>, Vec<i64>) {
    let total = rows * n;
    let keys: Vec<u64> = (0..total)
        .into_par_iter()
        .map(|i| spec.key(spec.load(bytes, i), desc))
        .collect();
    let mut perm = vec![0i64; total];
    if n == 0 {
        return (Vec::new(), perm);
    }
    if rows == 1 {
        perm.par_iter_mut()
            .enumerate()
            .for_each(|(i, p)| *p = i as i64);
        perm.par_sort_by_key(|&i| keys[i as usize]);
    } else {
        perm.par_chunks_mut(n).enumerate().for_each(|(r, p)| {
            for (i, v) in p.iter_mut().enumerate() {
                *v = i as i64;
            }
            let k = &keys[r * n..(r + 1) * n];
            p.sort_by_key(|&i| k[i as usize]);
        });
    }
    let w = spec.bits as usize / 8;
    let mut vals = vec![0u8; total * w];
    vals.par_chunks_mut(n * w).enumerate().for_each(|(r, o)| {
        for j in 0..n {
            let k = keys[r * n + perm[r * n + j] as usize];
            spec.store(o, j, spec.value(k, desc));
        }
    });
    (vals, perm)
}

/// `out[i] = v[row(i) * n + perm[i]]` for elements of `size` bytes.
pub(crate) fn gather(v: &[u8], perm: &[i64], size: usize, n: usize) -> Vec<u8> {
    let mut out = vec![0u8; perm.len() * size];
    if n == 0 {
        return out;
    }
    out.par_chunks_mut(size).enumerate().for_each(|(i, o)| {
        let src = (i / n) * n + perm[i] as usize;
        o.copy_from_slice(&v[src * size..(src + 1) * size]);
    });
    out
}

/// The `f64` result of a quantile as bits of the `out` dtype (the kernel's `outconv`).
fn out_bits(out: DType, r: f64) -> u64 {
    match out {
        DType::F64 => r.to_bits(),
        DType::F32 => (r as f32).to_bits() as u64,
        DType::F16 => {
            if r.is_nan() {
                0x7e00
            } else {
                half::f16::from_f32(r as f32).to_bits() as u64
            }
        }
        _ => {
            if r.is_nan() {
                0x7fc0
            } else {
                let u = (r as f32).to_bits();
                (u.wrapping_add(0x7fff + ((u >> 16) & 1)) >> 16) as u64
            }
        }
    }
}

/// Applies `p` to each sorted row (see `kernels_select::pick`): bytes of the `out` dtype.
pub(crate) fn pick(
    spec: KeySpec,
    sorted: &[u8],
    out: DType,
    rows: usize,
    n: usize,
    p: Pick,
) -> Vec<u8> {
    let ow = out.size();
    let mut o = vec![0u8; rows * ow];
    o.par_chunks_mut(ow).enumerate().for_each(|(r, dst)| {
        let a = spec.to_f64(spec.load(sorted, r * n + p.lo));
        let c = spec.to_f64(spec.load(sorted, r * n + p.hi));
        let v = if spec.is_nan(spec.load(sorted, r * n + n - 1)) {
            f64::NAN
        } else if p.method == 1 {
            a
        } else if p.method == 2 {
            (a + c) * 0.5
        } else {
            let d = c - a;
            if p.t >= 0.5 {
                c - d * (1.0 - p.t)
            } else {
                a + d * p.t
            }
        };
        let b = out_bits(out, v);
        dst.copy_from_slice(&b.to_le_bytes()[..ow]);
    });
    o
}

/// The mode of each sorted row (smallest value among the most frequent) and its count.
pub(crate) fn mode(spec: KeySpec, sorted: &[u8], rows: usize, n: usize) -> (Vec<u8>, Vec<i64>) {
    let w = spec.bits as usize / 8;
    let res: Vec<(u64, i64)> = (0..rows)
        .into_par_iter()
        .map(|r| {
            let e = |i: usize| spec.eq_key(spec.load(sorted, r * n + i));
            let (mut best_c, mut best_s, mut i) = (0usize, 0usize, 0usize);
            while i < n {
                let mut j = i + 1;
                while j < n && e(j) == e(i) {
                    j += 1;
                }
                if j - i > best_c {
                    best_c = j - i;
                    best_s = i;
                }
                i = j;
            }
            (spec.load(sorted, r * n + best_s), best_c as i64)
        })
        .collect();
    let mut v = vec![0u8; rows * w];
    for (r, &(b, _)) in res.iter().enumerate() {
        spec.store(&mut v, r, b);
    }
    (v, res.iter().map(|x| x.1).collect())
}

/// Run flags of sorted values (modes as `kernels_select::run_flags`).
pub(crate) fn flags(
    spec: KeySpec,
    s: &[u8],
    perm: &[i64],
    n: usize,
    mode: u64,
    na: usize,
) -> Vec<bool> {
    (0..n)
        .into_par_iter()
        .map(|i| {
            let e = spec.eq_key(spec.load(s, i));
            let first = i == 0 || spec.eq_key(spec.load(s, i - 1)) != e;
            let more = i + 1 < n && spec.eq_key(spec.load(s, i + 1)) == e;
            match mode {
                1 => first && more,
                2 => first && !more && (perm[i] as usize) < na,
                _ => first,
            }
        })
        .collect()
}

/// `unique` of sorted values `s` with permutation `perm`: (values, first indices, counts,
/// inverse).
pub(crate) fn unique(
    spec: KeySpec,
    s: &[u8],
    perm: &[i64],
    n: usize,
) -> (Vec<u8>, Vec<i64>, Vec<i64>, Vec<i64>) {
    let f = flags(spec, s, perm, n, 0, 0);
    let w = spec.bits as usize / 8;
    let (mut vals, mut first, mut counts) = (Vec::new(), Vec::new(), Vec::new());
    let mut inv = vec![0i64; n];
    let mut id = -1i64;
    for i in 0..n {
        if f[i] {
            id += 1;
            vals.extend_from_slice(&s[i * w..(i + 1) * w]);
            first.push(perm[i]);
            counts.push(0);
        }
        // A run of equal values may hold several bit patterns (±0, NaN payloads), each in
        // original order: its first occurrence is the least index in it.
        let f0 = &mut first[id as usize];
        *f0 = (*f0).min(perm[i]);
        counts[id as usize] += 1;
        inv[perm[i] as usize] = id;
    }
    (vals, first, counts, inv)
}

/// The flagged elements of sorted `s`, in order.
pub(crate) fn compact(
    spec: KeySpec,
    s: &[u8],
    perm: &[i64],
    n: usize,
    mode: u64,
    na: usize,
) -> Vec<u8> {
    let f = flags(spec, s, perm, n, mode, na);
    let w = spec.bits as usize / 8;
    let mut out = Vec::new();
    for i in 0..n {
        if f[i] {
            out.extend_from_slice(&s[i * w..(i + 1) * w]);
        }
    }
    out
}
