//! The gamma sampler kernel of a library call: one thread per element, Marsaglia and Tsang's
//! rejection loop on Philox counters `(i, attempt, stream)`, the arithmetic of
//! the CPU sampler (`random::gamma_f64`) with every product and sum explicitly rounded (`__dmul_rn`,
//! `__dadd_rn`: no fused multiply-adds), so that the two backends differ only where `log`,
//! `cos` and `pow` do (the last bits).

use super::prelude::PHILOX_C;
use super::signature::{WriteBuf, head, kernel_params};
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

/// Attempts of gamma's rejection loop before giving NaN (each accepts with probability
/// above 0.95: never reached in practice).
pub(crate) const GAMMA_TRIES: u32 = 256;

/// The gamma kernel (parameters: [`GammaParams`]).
pub(crate) fn gamma_kernel() -> KernelSource {
    let name = "cuprite_gamma_f64".to_string();
    let head = head::<GammaParams>(&name, &BLOCK.to_string());
    let tries = GAMMA_TRIES;
    let philox = PHILOX_C;
    let body = format!(
        r#"{philox}
__device__ __forceinline__ double u53(unsigned hi, unsigned lo) {{
  return (double)((((u64t)hi << 32) | lo) >> 11) * (1.0 / 9007199254740992.0);
}}
{head} {{
  for (i64t i = (i64t)blockIdx.x * {BLOCK} + threadIdx.x; i < n; i += (i64t)gridDim.x * {BLOCK}) {{
    const unsigned lo = (unsigned)(u64t)i, hi = (unsigned)((u64t)i >> 32);
    const bool boost = alpha < 1.0;
    const double a = boost ? __dadd_rn(alpha, 1.0) : alpha;
    const double d = __dsub_rn(a, 1.0 / 3.0);
    const double c = __ddiv_rn(1.0, __dsqrt_rn(__dmul_rn(9.0, d)));
    double g = __longlong_as_double(0x7ff8000000000000LL);
    unsigned w[4];
    for (unsigned r = 0; r < {tries}u; r++) {{
      cu_philox4x32_10(key, lo, hi, 2u * r, 0u, w);
      const double u1 = __dsub_rn(1.0, u53(w[0], w[1]));
      const double u2 = u53(w[2], w[3]);
      const double x = __dmul_rn(__dsqrt_rn(__dmul_rn(-2.0, log(u1))), cos(__dmul_rn(2.0 * 3.14159265358979323846, u2)));
      double v = __dadd_rn(1.0, __dmul_rn(c, x));
      if (v <= 0.0) continue;
      v = __dmul_rn(__dmul_rn(v, v), v);
      cu_philox4x32_10(key, lo, hi, 2u * r + 1u, 0u, w);
      const double u = u53(w[0], w[1]);
      const double x2 = __dmul_rn(x, x);
      if (u < __dsub_rn(1.0, __dmul_rn(0.0331, __dmul_rn(x2, x2))) ||
          log(u) < __dadd_rn(__dmul_rn(0.5, x2), __dmul_rn(d, __dadd_rn(__dsub_rn(1.0, v), log(v))))) {{
        g = __dmul_rn(d, v);
        if (boost) {{
          cu_philox4x32_10(key, lo, hi, 0u, 1u, w);
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
