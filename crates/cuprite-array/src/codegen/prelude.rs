//! The helper functions generated kernels may use, prepended only when a kernel needs them
//! (generated kernels include no header). Which ones a kernel needs is a fact its emitter
//! states as a [`Helpers`] set, derived from the dtypes and steps it emits code for; the
//! emitted text is never searched for it.

use crate::dtype::DType;
use crate::graph::{Program, Step};
use crate::op::{BinaryOp, UnaryOp};

/// Always included. `cu_iabs64`/`cu_iabs32` are the wrapping absolute values of signed integers
/// (`MIN` stays `MIN`), negated by a PTX `neg` in inline assembly so that the compiler forms no
/// `abs` instruction: ptxas takes the result of `abs.s64` as non-negative
/// and removes later tests of its sign, so `pow(x, abs(i64::MIN))` skipped the negative
/// exponent's branch.
const PRELUDE_BASE: &str = r#"
typedef unsigned long long u64t;
typedef long long i64t;
template<typename T, int N> struct __align__(sizeof(T) * N) VecN { T v[N]; };
__device__ __forceinline__ float finf() { return __int_as_float(0x7f800000); }
__device__ __forceinline__ double dinf() { return __longlong_as_double(0x7ff0000000000000LL); }
template<typename T> __device__ __forceinline__ T nmin(T a, T b) { return (a != a) ? a : ((b != b || b < a || (b == a && signbit(b))) ? b : a); }
template<typename T> __device__ __forceinline__ T nmax(T a, T b) { return (a != a) ? a : ((b != b || b > a || (b == a && !signbit(b))) ? b : a); }
__device__ __forceinline__ i64t cu_iabs64(i64t a) { i64t n; asm("neg.s64 %0, %1;" : "=l"(n) : "l"(a)); return a < 0 ? n : a; }
__device__ __forceinline__ int cu_iabs32(int a) { int n; asm("neg.s32 %0, %1;" : "=r"(n) : "r"(a)); return a < 0 ? n : a; }
template<typename T> __device__ __forceinline__ T fsign(T x) { return (x != x || x == (T)0) ? x : (x > (T)0 ? (T)1 : (T)-1); }
template<typename T, typename F> __device__ __forceinline__ T f2i(F x, T lo, T hi) {
  return x != x ? (T)0 : (x <= (F)lo ? lo : (x >= (F)hi ? hi : (T)x));
}
"#;
const PRELUDE_HALF: &str = r#"
__device__ __forceinline__ float h2f(unsigned short h) { float f; asm("cvt.f32.f16 %0, %1;" : "=f"(f) : "h"(h)); return f; }
__device__ __forceinline__ unsigned short f2h(float f) { unsigned short h; asm("cvt.rn.f16.f32 %0, %1;" : "=h"(h) : "f"(f)); return h; }
__device__ __forceinline__ float bf2f(unsigned short h) { return __uint_as_float(((unsigned)h) << 16); }
__device__ __forceinline__ unsigned short f2bf(float f) {
  unsigned u = __float_as_uint(f);
  if ((u & 0x7fffffffu) > 0x7f800000u) return (unsigned short)((u >> 16) | 0x40u);
#if __CUDA_ARCH__ >= 800
  unsigned short h; asm("cvt.rn.bf16.f32 %0, %1;" : "=h"(h) : "f"(f)); return h;
#else
  u += 0x7fffu + ((u >> 16) & 1u);
  return (unsigned short)(u >> 16);
#endif
}
__device__ __forceinline__ float rh(float x) { return h2f(f2h(x)); }
__device__ __forceinline__ float rbf(float x) { return bf2f(f2bf(x)); }
"#;
/// Wrapping negation of a 16-bit signed value, computed in 32 bits behind inline PTX so that
/// neither `neg.s16` nor `abs.s16` reaches ptxas (which leaves their 32-bit results without the
/// sign extension a later widening relies on).
const PRELUDE_NEG16: &str = r#"
__device__ __forceinline__ short neg16(short a) { unsigned r; asm("sub.u32 %0, 0, %1;" : "=r"(r) : "r"((unsigned)a)); return (short)r; }
"#;
/// NumPy's `//` and `%` on signed integers (floor; the remainder takes the divisor's sign; by
/// zero both give 0; `MIN // -1` wraps to `MIN`), and the float remainder's sign fix applied
/// to C's `fmod` result `m` (a zero result is a zero of the divisor's sign; NaN stays NaN).
const PRELUDE_FLOOR: &str = r#"
__device__ __forceinline__ i64t floordiv_s(i64t a, i64t b) {
  if (b == 0) return 0;
  if (b == -1) return (i64t)(0ULL - (u64t)a);
  const i64t q = a / b;
  return (a % b != 0 && ((a < 0) != (b < 0))) ? q - 1 : q;
}
__device__ __forceinline__ i64t floormod_s(i64t a, i64t b) {
  if (b == 0 || b == -1) return 0;
  const i64t r = a % b;
  return (r != 0 && ((r < 0) != (b < 0))) ? r + b : r;
}
template<typename T> __device__ __forceinline__ T fmod_floor(T m, T b) {
  return m != (T)0 ? (((m < (T)0) != (b < (T)0)) ? m + b : m) : (b < (T)0 ? -(T)0 : (T)0);
}
"#;
const PRELUDE_IPOW: &str = r#"
__device__ __forceinline__ i64t ipow_s(i64t b, i64t e) {
  if (e < 0) return b == 1 ? 1 : (b == -1 ? ((e & 1) ? -1 : 1) : 0);
  u64t r = 1, x = (u64t)b, k = (u64t)e;
  while (k) { if (k & 1) r *= x; x *= x; k >>= 1; }
  return (i64t)r;
}
__device__ __forceinline__ u64t ipow_u(u64t b, u64t e) {
  u64t r = 1;
  while (e) { if (e & 1) r *= b; b *= b; e >>= 1; }
  return r;
}
"#;
/// A checked index (`Step::Check`): negative values counted from the end when `sgn`, a value
/// still outside `[0, n)` raises the flag and reads as 0 (the flag is only written, so any
/// number of threads may raise it).
const PRELUDE_CHECK: &str = r#"
__device__ __forceinline__ i64t check_idx_(unsigned int *flag, i64t v, i64t n, int sgn) {
  const i64t w = (sgn && v < 0) ? v + n : v;
  if (w < 0 || w >= n) { *flag = 1u; return 0; }
  return w;
}
"#;
/// Complex arithmetic, and `cldcg`: a complex value loaded through L2 (`__ldcg` of the vector
/// type of the same size and alignment, which the structs match). `cmul` rounds each of its four products (`__fmul_rn`, `__dmul_rn`: no
/// fused multiply-add), as NumPy and the CPU backend compute them, so that a product whose
/// terms overflow gives the same infinities and NaNs on both backends.
const PRELUDE_CPLX: &str = r#"
struct __align__(8) cf32 { float re, im; };
struct __align__(16) cf64 { double re, im; };
#define CPLX(C, F, SQRT, HYPOT, ATAN2, EXP, LOG, COS, SIN, FABS, MUL) \
__device__ __forceinline__ C mkc(F re, F im, C*) { C z; z.re = re; z.im = im; return z; } \
__device__ __forceinline__ C cadd(C a, C b) { C z; z.re = a.re + b.re; z.im = a.im + b.im; return z; } \
__device__ __forceinline__ C csub(C a, C b) { C z; z.re = a.re - b.re; z.im = a.im - b.im; return z; } \
__device__ __forceinline__ C cmul(C a, C b) { C z; z.re = MUL(a.re, b.re) - MUL(a.im, b.im); z.im = MUL(a.re, b.im) + MUL(a.im, b.re); return z; } \
__device__ __forceinline__ C cdiv(C a, C b) { F d = b.re * b.re + b.im * b.im; C z; z.re = (a.re * b.re + a.im * b.im) / d; z.im = (a.im * b.re - a.re * b.im) / d; return z; } \
__device__ __forceinline__ C cneg(C a) { C z; z.re = -a.re; z.im = -a.im; return z; } \
__device__ __forceinline__ C cconj(C a) { C z; z.re = a.re; z.im = -a.im; return z; } \
__device__ __forceinline__ F cabs_(C a) { return HYPOT(a.re, a.im); } \
__device__ __forceinline__ F carg(C a) { return ATAN2(a.im, a.re); } \
__device__ __forceinline__ C cexp_(C a) { F e = EXP(a.re); C z; z.re = e * COS(a.im); z.im = e * SIN(a.im); return z; } \
__device__ __forceinline__ C clog_(C a) { C z; z.re = LOG(HYPOT(a.re, a.im)); z.im = ATAN2(a.im, a.re); return z; } \
__device__ __forceinline__ C csqrt_(C a) { F r = HYPOT(a.re, a.im); C z; \
  if (r == (F)0) { z.re = 0; z.im = a.im; } \
  else if (a.re >= (F)0) { F t = SQRT((r + a.re) * (F)0.5); z.re = t; z.im = a.im / ((F)2 * t); } \
  else { F t = SQRT((r - a.re) * (F)0.5); z.re = FABS(a.im) / ((F)2 * t); z.im = copysign(t, a.im); } \
  return z; } \
__device__ __forceinline__ unsigned char ceq(C a, C b) { return a.re == b.re && a.im == b.im; } \
__device__ __forceinline__ unsigned char cnz(C a) { return a.re != (F)0 || a.im != (F)0; }
CPLX(cf32, float, sqrtf, hypotf, atan2f, expf, logf, cosf, sinf, fabsf, __fmul_rn)
CPLX(cf64, double, sqrt, hypot, atan2, exp, log, cos, sin, fabs, __dmul_rn)
__device__ __forceinline__ cf32 cldcg(const cf32* p) { float2 v = __ldcg(reinterpret_cast<const float2*>(p)); return mkc(v.x, v.y, (cf32*)0); }
__device__ __forceinline__ cf64 cldcg(const cf64* p) { double2 v = __ldcg(reinterpret_cast<const double2*>(p)); return mkc(v.x, v.y, (cf64*)0); }
"#;
/// `frexp`, `i0`, `gcd`/`lcm` and integer magnitudes (see the CPU twins in
/// `backend::cpu::mathx`, which compute the same values).
const PRELUDE_MATHX: &str = r#"
__device__ __forceinline__ u64t cu_uabs(i64t a) { return (u64t)cu_iabs64(a); }
__device__ __forceinline__ u64t cu_gcd(u64t a, u64t b) { while (b) { u64t t = a % b; a = b; b = t; } return a; }
__device__ __forceinline__ u64t cu_lcm(u64t a, u64t b) { u64t g = cu_gcd(a, b); return g ? (a / g) * b : 0ull; }
__device__ __forceinline__ double cu_frexpm(double x) { int e; return (x == 0.0 || !(fabs(x) < dinf())) ? x : frexp(x, &e); }
__device__ __forceinline__ float cu_frexpmf(float x) { int e; return (x == 0.0f || !(fabsf(x) < finf())) ? x : frexpf(x, &e); }
__device__ __forceinline__ int cu_frexpe(double x) { int e = 0; if (x != 0.0 && fabs(x) < dinf()) frexp(x, &e); return e; }
__device__ __forceinline__ int cu_frexpef(float x) { int e = 0; if (x != 0.0f && fabsf(x) < finf()) frexpf(x, &e); return e; }
__device__ __noinline__ double cu_i0(double x) {
  double ax = fabs(x);
  if (!(ax < dinf())) return ax;
  double term = 1.0, sum = 1.0;
  if (ax <= 30.0) {
    double q = 0.25 * ax * ax;
    for (int k = 1; k < 200; k++) { term *= q / ((double)k * (double)k); sum += term; if (term < sum * 1e-17) break; }
    return sum;
  }
  for (int k = 1; k < 40; k++) { double j = (double)(2 * k - 1); term *= j * j / (8.0 * (double)k * ax); sum += term; if (term < sum * 1e-17) break; }
  double h = exp(0.5 * ax);
  return h * (h / sqrt(2.0 * 3.14159265358979323846 * ax)) * sum;
}
__device__ __forceinline__ float cu_i0f(float x) { return (float)cu_i0((double)x); }
"#;
/// `nextafter` in the half types' own precision (values held as `float`).
const PRELUDE_NEXT_HALF: &str = r#"
template<typename B, typename F> __device__ __forceinline__ float cu_next16(float x, float y, B to, F from) {
  if (x != x || y != y) return x + y;
  if (x == y) return y;
  if (x == 0.0f) return y > 0.0f ? from(1) : from(0x8001);
  unsigned short b = to(x);
  return from((unsigned short)(((y > x) == (x > 0.0f)) ? b + 1 : b - 1));
}
struct CuH2B_ { __device__ unsigned short operator()(float v) const { return f2h(v); } };
struct CuB2H_ { __device__ float operator()(unsigned short b) const { return h2f(b); } };
struct CuBf2B_ { __device__ unsigned short operator()(float v) const { return f2bf(v); } };
struct CuB2Bf_ { __device__ float operator()(unsigned short b) const { return bf2f(b); } };
__device__ __forceinline__ float cu_nexth(float x, float y) { return cu_next16(x, y, CuH2B_(), CuB2H_()); }
__device__ __forceinline__ float cu_nextbf(float x, float y) { return cu_next16(x, y, CuBf2B_(), CuB2Bf_()); }
"#;
/// The one C definition of the Philox4x32-10 generator (`cu_philox4x32_10`), guarded so that a
/// kernel may include it more than once; its Rust twin is `random::philox4x32_10_full`.
pub(crate) const PHILOX_C: &str = include_str!("philox.cu");

const PRELUDE_RAND: &str = concat!(
    include_str!("philox.cu"),
    r#"
__device__ __forceinline__ void philox(u64t key, u64t ctr, unsigned out[4]) {
  cu_philox4x32_10(key, (unsigned)ctr, (unsigned)(ctr >> 32), 0u, 0u, out);
}
__device__ __forceinline__ float u01f(unsigned w) { return (float)(w >> 8) * (1.0f / 16777216.0f); }
__device__ __forceinline__ double u01d(unsigned hi, unsigned lo) { return (double)((((u64t)hi << 32) | lo) >> 11) * (1.0 / 9007199254740992.0); }
__device__ __forceinline__ float rand_f32(u64t key, u64t i, int normal) {
  unsigned w[4];
  if (!normal) { philox(key, i / 4, w); return u01f(w[i % 4]); }
  philox(key, i / 2, w);
  float u1 = 1.0f - u01f(w[0]), u2 = u01f(w[1]);
  float r = sqrtf(-2.0f * logf(u1)), t = 2.0f * 3.14159265358979323846f * u2;
  return (i % 2 == 0) ? r * cosf(t) : r * sinf(t);
}
__device__ __forceinline__ double rand_f64(u64t key, u64t i, int normal) {
  unsigned w[4];
  philox(key, i / 2, w);
  if (!normal) { int j = 2 * (int)(i % 2); return u01d(w[j], w[j + 1]); }
  double u1 = 1.0 - u01d(w[0], w[1]), u2 = u01d(w[2], w[3]);
  double r = sqrt(-2.0 * log(u1)), t = 2.0 * 3.14159265358979323846 * u2;
  return (i % 2 == 0) ? r * cos(t) : r * sin(t);
}
"#
);

/// The prelude helpers a kernel calls beside the base ones (`VecN`, `finf`, `nmin`, ...,
/// always present).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub(crate) struct Helpers {
    /// `h2f`, `f2h`, `bf2f`, `f2bf`, `rh`, `rbf`: half and bfloat16 conversions.
    pub half: bool,
    /// `neg16`: the wrapping negation of 16-bit integers.
    pub neg16: bool,
    /// `ipow_s`, `ipow_u`: integer powers.
    pub ipow: bool,
    /// `floordiv_s`, `floormod_s`, `fmod_floor`: division and remainder rounded to minus
    /// infinity (NumPy's `//` and `%`).
    pub floor: bool,
    /// `check_idx_`: checked indices.
    pub check: bool,
    /// `cf32`, `cf64` and their arithmetic.
    pub complex: bool,
    /// `rand_f32`, `rand_f64`: counter-based random numbers.
    pub rand: bool,
    /// `cu_frexpm`, `cu_frexpe`, `cu_i0`, `cu_gcd`, `cu_lcm`, `cu_uabs`; with `half`, also
    /// `cu_nexth`, `cu_nextbf`.
    pub mathx: bool,
}

impl Helpers {
    /// Every helper (kernels that interpret any program).
    pub(crate) const ALL: Helpers = Helpers {
        half: true,
        neg16: true,
        ipow: true,
        floor: true,
        check: true,
        complex: true,
        rand: true,
        mathx: true,
    };

    /// The helpers that loading, storing or computing in `d` uses.
    pub(crate) fn of_dtype(d: DType) -> Helpers {
        Helpers {
            half: matches!(d, DType::F16 | DType::BF16),
            neg16: d == DType::I16,
            complex: d.is_complex(),
            ..Helpers::default()
        }
    }

    /// The helpers the code of `p`'s steps uses (its inputs, constants and instructions).
    pub(crate) fn of_program(p: &Program) -> Helpers {
        let mut h = Helpers::default();
        for i in &p.inputs {
            h = h | Helpers::of_dtype(i.dtype);
        }
        for i in &p.instrs {
            h = h | Helpers::of_dtype(i.dtype);
            match i.kind {
                Step::Binary(BinaryOp::Pow, ..) => h.ipow = true,
                Step::Binary(BinaryOp::Div | BinaryOp::Rem, ..) => h.floor = true,
                Step::Check(..) => h.check = true,
                Step::Rand(..) | Step::RandKeyed(..) => h.rand = true,
                Step::Unary(op, _) if Helpers::mathx_unary(op) => h.mathx = true,
                Step::Binary(op, ..) if Helpers::mathx_binary(op) => h.mathx = true,
                _ => {}
            }
        }
        h
    }

    fn mathx_unary(op: UnaryOp) -> bool {
        matches!(
            op,
            UnaryOp::FrexpMant | UnaryOp::FrexpExp | UnaryOp::I0 | UnaryOp::BitCount
        )
    }

    fn mathx_binary(op: BinaryOp) -> bool {
        matches!(op, BinaryOp::Gcd | BinaryOp::Lcm | BinaryOp::Nextafter)
    }
}

impl std::ops::BitOr for Helpers {
    type Output = Helpers;
    fn bitor(self, o: Helpers) -> Helpers {
        Helpers {
            half: self.half | o.half,
            neg16: self.neg16 | o.neg16,
            ipow: self.ipow | o.ipow,
            floor: self.floor | o.floor,
            check: self.check | o.check,
            complex: self.complex | o.complex,
            rand: self.rand | o.rand,
            mathx: self.mathx | o.mathx,
        }
    }
}

/// Separates the helpers from the kernel in every generated source.
pub(crate) const MARKER: &str = "// ---- cuprite-array kernel ----\n";

/// The base helpers, those of `h`, then the marker, then `body`.
pub(super) fn with_prelude(body: &str, h: Helpers) -> String {
    let mut s = String::from(PRELUDE_BASE);
    for (on, text) in [
        (h.half, PRELUDE_HALF),
        (h.neg16, PRELUDE_NEG16),
        (h.floor, PRELUDE_FLOOR),
        (h.ipow, PRELUDE_IPOW),
        (h.check, PRELUDE_CHECK),
        (h.complex, PRELUDE_CPLX),
        (h.rand, PRELUDE_RAND),
        (h.mathx, PRELUDE_MATHX),
        (h.mathx && h.half, PRELUDE_NEXT_HALF),
    ] {
        if on {
            s.push_str(text);
        }
    }
    s.push_str(MARKER);
    s.push_str(body);
    s
}
