//! The counter-based random generator: Philox 4x32-10 (Salmon et al., SC'11).
//!
//! Element `i` of a random array with seed `s` is a pure function of `(s, i)`, computed the
//! same way on the CPU and in generated CUDA code, so both backends give the same numbers:
//! uniform values bit for bit, normal values up to the last bits of `log`/`sqrt`/`cos`.
//!
//! - `f32` uniform: counter `i / 4`, word `i % 4`, `(w >> 8) · 2⁻²⁴` in `[0, 1)`.
//! - `f64` uniform: counter `i / 2`, words `2(i % 2)`, `2(i % 2) + 1` joined to 64 bits,
//!   `(x >> 11) · 2⁻⁵³`.
//! - normal: Box–Muller on a pair of uniforms in `(0, 1]`; `f32` uses counter `i / 2` (words 0,1
//!   for even `i` with cos, and the same pair with sin for odd `i`); `f64` uses counter `i / 2`
//!   (all four words) likewise.

use crate::graph::Dist;

const M0: u32 = 0xD251_1F53;
const M1: u32 = 0xCD9E_8D57;
const W0: u32 = 0x9E37_79B9;
const W1: u32 = 0xBB67_AE85;

/// Philox 4x32 with 10 rounds: the four words for counter `ctr` and key `key`.
pub fn philox4x32_10(key: u64, ctr: u64) -> [u32; 4] {
    let mut c = [ctr as u32, (ctr >> 32) as u32, 0, 0];
    let mut k = [key as u32, (key >> 32) as u32];
    for r in 0..10 {
        if r > 0 {
            k[0] = k[0].wrapping_add(W0);
            k[1] = k[1].wrapping_add(W1);
        }
        let p0 = (M0 as u64) * (c[0] as u64);
        let p1 = (M1 as u64) * (c[2] as u64);
        c = [
            ((p1 >> 32) as u32) ^ c[1] ^ k[0],
            p1 as u32,
            ((p0 >> 32) as u32) ^ c[3] ^ k[1],
            p0 as u32,
        ];
    }
    c
}

fn u01_f32(w: u32) -> f32 {
    (w >> 8) as f32 * (1.0 / 16_777_216.0)
}
fn u01_f64(hi: u32, lo: u32) -> f64 {
    ((((hi as u64) << 32) | lo as u64) >> 11) as f64 * (1.0 / 9_007_199_254_740_992.0)
}

/// Sample `i` as `f32`.
pub(crate) fn sample_f32(key: u64, i: u64, dist: Dist) -> f32 {
    match dist {
        Dist::Uniform => philox4x32_10(key, i / 4)[(i % 4) as usize].pipe(u01_f32),
        Dist::Normal => {
            let w = philox4x32_10(key, i / 2);
            let u1 = 1.0 - u01_f32(w[0]);
            let u2 = u01_f32(w[1]);
            let r = (-2.0 * u1.ln()).sqrt();
            let t = 2.0 * std::f32::consts::PI * u2;
            if i % 2 == 0 { r * t.cos() } else { r * t.sin() }
        }
    }
}

/// Sample `i` as `f64`.
pub(crate) fn sample_f64(key: u64, i: u64, dist: Dist) -> f64 {
    match dist {
        Dist::Uniform => {
            let w = philox4x32_10(key, i / 2);
            let j = (2 * (i % 2)) as usize;
            u01_f64(w[j], w[j + 1])
        }
        Dist::Normal => {
            let w = philox4x32_10(key, i / 2);
            let u1 = 1.0 - u01_f64(w[0], w[1]);
            let u2 = u01_f64(w[2], w[3]);
            let r = (-2.0 * u1.ln()).sqrt();
            let t = 2.0 * std::f64::consts::PI * u2;
            if i % 2 == 0 { r * t.cos() } else { r * t.sin() }
        }
    }
}

trait Pipe: Sized {
    fn pipe<R>(self, f: impl FnOnce(Self) -> R) -> R {
        f(self)
    }
}
impl Pipe for u32 {}
