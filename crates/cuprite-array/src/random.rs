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
//!
//! On top of it, NumPy's object API: [`Generator`] (made by [`default_rng`]) over a
//! [`BitGenerator`] (Philox 4x32-10, XORWOW or MRG32k3a), with a method per distribution; the
//! legacy [`RandomState`] and the process-wide state of [`seed`], [`get_random_state`],
//! [`set_random_state`] and [`bytes`].
//!
//! - Transforms of uniforms, normals and gammas (log-normal, Laplace, logistic, Gumbel, Pareto,
//!   power, Rayleigh, Weibull, triangular, Wald, geometric, chi-square, F, t, Cauchy) are array
//!   expressions on Philox draws: they fuse into the kernels of what consumes them.
//! - Poisson, binomial, hypergeometric, logarithmic series, Zipf, von Mises (and gamma with a
//!   per-element shape) loop per element; one library call runs them, element `i` drawing 64-bit
//!   words from Philox counters `(i, block, 2)` under the draw's key, with the same arithmetic on
//!   the CPU and in its CUDA kernel. Their loops are bounded, each with a documented fallback.
//! - With XORWOW or MRG32k3a, whose streams are sequential, a draw's base numbers (or whole
//!   samples, for the looping samplers) are made in order on the host and uploaded; the
//!   transforms above then run on the device as for Philox.

use crate::codegen::GAMMA_TRIES;
use crate::graph::Dist;

mod bitgen;
mod call;
mod continuous;
mod discrete;
pub(crate) mod dists;
mod generator;
mod kernels;

pub use bitgen::{BitGenerator, Mrg32k3a, Philox4x3210, Xorwow};
pub use discrete::{COUNT_MAX, POISSON_LAM_MAX};
pub use generator::{
    Generator, RandomState, bytes, default_rng, get_random_state, seed, set_random_state,
    with_random_state,
};

const M0: u32 = 0xD251_1F53;
const M1: u32 = 0xCD9E_8D57;
const W0: u32 = 0x9E37_79B9;
const W1: u32 = 0xBB67_AE85;

/// Philox 4x32 with 10 rounds: the four words for counter `ctr` and key `key`.
pub fn philox4x32_10(key: u64, ctr: u64) -> [u32; 4] {
    philox4x32_10_full(key, [ctr as u32, (ctr >> 32) as u32, 0, 0])
}

/// Philox 4x32-10 on a full 128-bit counter (the generators that draw a variable number of
/// values per element, such as gamma's rejection loop, use the high words for the attempt).
pub fn philox4x32_10_full(key: u64, ctr: [u32; 4]) -> [u32; 4] {
    let mut c = ctr;
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

fn u53(w: [u32; 4], j: usize) -> f64 {
    u01_f64(w[j], w[j + 1])
}

/// Sample `i` of the standard gamma distribution with shape `alpha` (> 0), Marsaglia and
/// Tsang's method (ACM TOMS 26(3), 2000): attempt `r` draws its normal from counter
/// `(i, 2r, 0)` (Box–Muller, cosine branch) and its uniform from `(i, 2r + 1, 0)`; for
/// `alpha < 1` the sample for `alpha + 1` is scaled by `u^(1/alpha)`, `u` from `(i, 0, 1)`.
/// The CUDA kernel of `codegen::gamma_kernel` spells out the same arithmetic.
pub(crate) fn gamma_f64(key: u64, i: u64, alpha: f64) -> f64 {
    let (lo, hi) = (i as u32, (i >> 32) as u32);
    let boost = alpha < 1.0;
    let a = if boost { alpha + 1.0 } else { alpha };
    let d = a - 1.0 / 3.0;
    let c = 1.0 / (9.0 * d).sqrt();
    for r in 0..GAMMA_TRIES {
        let w = philox4x32_10_full(key, [lo, hi, 2 * r, 0]);
        let u1 = 1.0 - u53(w, 0);
        let u2 = u53(w, 2);
        let x = (-2.0 * u1.ln()).sqrt() * (2.0 * std::f64::consts::PI * u2).cos();
        let v = 1.0 + c * x;
        if v <= 0.0 {
            continue;
        }
        let v = v * v * v;
        let u = u53(philox4x32_10_full(key, [lo, hi, 2 * r + 1, 0]), 0);
        let x2 = x * x;
        if u < 1.0 - 0.0331 * (x2 * x2) || u.ln() < 0.5 * x2 + d * (1.0 - v + v.ln()) {
            let g = d * v;
            if boost {
                let ub = 1.0 - u53(philox4x32_10_full(key, [lo, hi, 0, 1]), 0);
                return g * ub.powf(1.0 / alpha);
            }
            return g;
        }
    }
    f64::NAN
}

/// Where the random draws of the calling thread take their key from, besides their seed: a
/// compiled program (`crate::compile`) gives each call its own key, so that two calls do not
/// draw the same numbers. Outside one, the seed is the key.
#[derive(Clone, Default)]
pub(crate) enum CallKey {
    /// The seed is the key.
    #[default]
    Seed,
    /// The key is `seed ^ w`, `w` the `u64` in the one-element buffer `word`, read when the
    /// kernel runs (a captured graph: the word is rewritten before each replay); `offset` is
    /// its value now, used directly by draws on another device than the word's.
    #[cfg_attr(not(feature = "capture"), allow(dead_code))]
    Device {
        word: std::sync::Arc<crate::storage::Storage>,
        offset: u64,
    },
}

thread_local! {
    static CALL_KEY: std::cell::RefCell<CallKey> = const { std::cell::RefCell::new(CallKey::Seed) };
}

thread_local! {
    /// How many draws of this thread took a [`CallKey::Device`] key.
    static KEYED_DRAWS: std::cell::Cell<u64> = const { std::cell::Cell::new(0) };
}

/// The calling thread's [`CallKey`]. Each call that returns [`CallKey::Device`] counts as a
/// keyed draw ([`keyed_draws`]).
pub(crate) fn call_key() -> CallKey {
    let key = CALL_KEY
        .try_with(|k| k.try_borrow().map(|k| k.clone()).unwrap_or_default())
        .unwrap_or_default();
    if matches!(key, CallKey::Device { .. }) {
        let _ = KEYED_DRAWS.try_with(|n| n.set(n.get().wrapping_add(1)));
    }
    key
}

/// The seed and key-word input of a library call's draws of `seed` on `device`, keyed as the
/// calling thread's [`CallKey`] says: `(seed, Some(word))` inside a compiled program whose key
/// word lies on `device` (the call's kernel XORs `seed` with the word when it runs, so that each
/// replay draws anew), `(seed ^ offset, None)` where the word lies on another device, and
/// `(seed, None)` outside one.
pub(crate) fn keyed_seed(
    seed: u64,
    device: crate::device::Device,
) -> (u64, Option<std::sync::Arc<crate::graph::Node>>) {
    match call_key() {
        CallKey::Device { word, .. } if word.is_on(device) => {
            let leaf = crate::graph::Node::new(
                crate::graph::Op::Leaf(word, crate::shape::Layout::contiguous(&[1])),
                crate::dtype::DType::U64,
                vec![1],
                device,
            );
            (seed, Some(leaf))
        }
        CallKey::Device { offset, .. } => (seed ^ offset, None),
        CallKey::Seed => (seed, None),
    }
}

/// The `u64` a library call's key-word input (made by [`keyed_seed`]) holds on the host, or
/// an `Err` naming `what` where its element lies past the buffer.
pub(crate) fn host_key_word(
    w: &crate::graph::CallInput<'_, crate::storage::HostBuf>,
    what: &str,
) -> crate::error::Result<u64> {
    let bytes = w.buf.bytes();
    let at = w.layout.offset.checked_mul(8);
    let word = at
        .and_then(|a| bytes.get(a..a.checked_add(8)?))
        .and_then(|b| <[u8; 8]>::try_from(b).ok())
        .ok_or_else(|| {
            crate::error::Error::InvalidArgument(format!(
                "{what}'s key word at element {} lies past its {} bytes",
                w.layout.offset,
                bytes.len()
            ))
        })?;
    Ok(u64::from_ne_bytes(word))
}

/// How many random draws of the calling thread have read a device key word so far: a capture
/// that did not change it recorded no kernel that reads the word.
#[cfg_attr(not(feature = "capture"), allow(dead_code))]
pub(crate) fn keyed_draws() -> u64 {
    KEYED_DRAWS.try_with(|n| n.get()).unwrap_or(0)
}

/// Runs `f` with the calling thread's draws keyed by `key` (restored afterwards, also on a
/// panic).
#[cfg_attr(not(feature = "capture"), allow(dead_code))]
pub(crate) fn with_call_key<R>(key: CallKey, f: impl FnOnce() -> R) -> R {
    struct Restore(Option<CallKey>);
    impl Drop for Restore {
        fn drop(&mut self) {
            if let Some(k) = self.0.take() {
                let _ = CALL_KEY.try_with(|c| c.replace(k));
            }
        }
    }
    let prev = CALL_KEY.try_with(|c| c.replace(key)).ok();
    let _r = Restore(prev);
    f()
}

/// The key offset of call `n` (from 0) of a compiled program: 0 for the first call, so that it
/// draws what an eager run with the same seeds draws; then the golden-ratio multiples (odd, so
/// distinct for every `n` below 2⁶⁴).
///
/// ```
/// use cuprite_array::random::call_key_offset;
/// assert_eq!(call_key_offset(0), 0);
/// assert_eq!(call_key_offset(1), 0x9E37_79B9_7F4A_7C15);
/// ```
pub fn call_key_offset(n: u64) -> u64 {
    n.wrapping_mul(0x9E37_79B9_7F4A_7C15)
}
