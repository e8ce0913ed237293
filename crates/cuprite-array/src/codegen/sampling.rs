//! The gamma sampler kernel of a library call: one thread per element, Marsaglia and Tsang's
//! rejection loop on Philox counters `(i, attempt, stream)`, the arithmetic of
//! the CPU sampler (`random::gamma_f64`) with every product and sum explicitly rounded (`__dmul_rn`,
//! `__dadd_rn`: no fused multiply-adds), so that the two backends differ only where `log`,
//! `cos` and `pow` do (the last bits).

use super::prelude::PHILOX_C;
use super::signature::{KernelParams, ReadBuf, WriteBuf, head, kernel_params};
use super::{BLOCK, Helpers, KernelSource, MathUse};

kernel_params! {
    /// The gamma kernel's parameters: `n` `f64` outputs, the Philox key, the shape `alpha`.
    pub(crate) struct GammaParams<'a> {
        out: WriteBuf<'a> as "double",
        n: i64,
        key: u64,
        alpha: f64,
    }
}

kernel_params! {
    /// The keyed gamma kernel's parameters: those of [`GammaParams`] with `seed` for `key`, and
    /// the one-word buffer `word` of a compiled program's call key; the draws' Philox key is
    /// `seed ^ word[0]` (or that through SplitMix64's finaliser), read when the kernel runs.
    pub(crate) struct GammaKeyedParams<'a> {
        out: WriteBuf<'a> as "double",
        word: ReadBuf<'a> as "u64t",
        n: i64,
        seed: u64,
        alpha: f64,
    }
}

/// Attempts of gamma's rejection loop before giving NaN (each accepts with probability
/// above 0.95: never reached in practice).
pub(crate) const GAMMA_TRIES: u32 = 256;

/// The gamma kernel (parameters: [`GammaParams`]).
pub(crate) fn gamma_kernel() -> KernelSource {
    gamma_source::<GammaParams>("cuprite_gamma_f64", "key")
}

/// The gamma kernel of a compiled program's keyed draws (parameters: [`GammaKeyedParams`]):
/// the key `seed ^ word[0]`, through SplitMix64's finaliser when `derived` (the second key of
/// `ops::sampling`'s `derive_key`).
pub(crate) fn gamma_keyed_kernel(derived: bool) -> KernelSource {
    if derived {
        gamma_source::<GammaKeyedParams>(
            "cuprite_gamma_keyed_derived_f64",
            "cu_gamma_derive(seed ^ word[0])",
        )
    } else {
        gamma_source::<GammaKeyedParams>("cuprite_gamma_keyed_f64", "seed ^ word[0]")
    }
}

/// The gamma kernel named `name` with parameters `P`, its Philox key the C expression `key`
/// (of `P`'s parameters).
fn gamma_source<'a, P: KernelParams<'a>>(name: &str, key: &str) -> KernelSource {
    let name = name.to_string();
    let head = head::<P>(&name, &BLOCK.to_string());
    let tries = GAMMA_TRIES;
    let philox = PHILOX_C;
    let body = format!(
        r#"{philox}
__device__ __forceinline__ double u53(unsigned hi, unsigned lo) {{
  return (double)((((u64t)hi << 32) | lo) >> 11) * (1.0 / 9007199254740992.0);
}}
__device__ __forceinline__ u64t cu_gamma_derive(u64t z) {{
  z += 0x9E3779B97F4A7C15ull;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}}
{head} {{
  const u64t k0 = {key};
  for (i64t i = (i64t)blockIdx.x * {BLOCK} + threadIdx.x; i < n; i += (i64t)gridDim.x * {BLOCK}) {{
    const unsigned lo = (unsigned)(u64t)i, hi = (unsigned)((u64t)i >> 32);
    const bool boost = alpha < 1.0;
    const double a = boost ? __dadd_rn(alpha, 1.0) : alpha;
    const double d = __dsub_rn(a, 1.0 / 3.0);
    const double c = __ddiv_rn(1.0, __dsqrt_rn(__dmul_rn(9.0, d)));
    double g = __longlong_as_double(0x7ff8000000000000LL);
    unsigned w[4];
    for (unsigned r = 0; r < {tries}u; r++) {{
      cu_philox4x32_10(k0, lo, hi, 2u * r, 0u, w);
      const double u1 = __dsub_rn(1.0, u53(w[0], w[1]));
      const double u2 = u53(w[2], w[3]);
      const double x = __dmul_rn(__dsqrt_rn(__dmul_rn(-2.0, log(u1))), cos(__dmul_rn(2.0 * 3.14159265358979323846, u2)));
      double v = __dadd_rn(1.0, __dmul_rn(c, x));
      if (v <= 0.0) continue;
      v = __dmul_rn(__dmul_rn(v, v), v);
      cu_philox4x32_10(k0, lo, hi, 2u * r + 1u, 0u, w);
      const double u = u53(w[0], w[1]);
      const double x2 = __dmul_rn(x, x);
      if (u < __dsub_rn(1.0, __dmul_rn(0.0331, __dmul_rn(x2, x2))) ||
          log(u) < __dadd_rn(__dmul_rn(0.5, x2), __dmul_rn(d, __dadd_rn(__dsub_rn(1.0, v), log(v))))) {{
        g = __dmul_rn(d, v);
        if (boost) {{
          cu_philox4x32_10(k0, lo, hi, 0u, 1u, w);
          const double ub = __dsub_rn(1.0, u53(w[0], w[1]));
          g = __dmul_rn(g, pow(ub, __ddiv_rn(1.0, alpha)));
        }}
        break;
      }}
    }}
    out[i] = g;
  }}
}}
"#
    );
    // Its `log` and `pow` are `f64` math library calls.
    KernelSource::generated(name, &body, Helpers::default()).with_math(MathUse {
        f32: false,
        f64: true,
    })
}
