// The taps and memory helpers of the separable filters (`filters_sep.cu`, `filters_sep3.cu`):
// a pass's output in SciPy's summation order, its divisor, 16-byte shared loads, 4-value
// vector loads of the image and stores of outputs; and the taps of a pass as the launch
// passes them (doubles, or floats two a word). Built after the typed header defining `T`, `C`,
// `img_ld`, `img_st`, `img_fma` (`filters_elem.rs`), and IMG_TAPS.

// The taps of one pass by value: the launch's IMG_TAPS double parameters of the pass (the first
// SEP_MY/SEP_MX or S3_MY/S3_MX of them used), so that no call uploads taps.
struct img_taps {
  double v[IMG_TAPS];
};

// The taps of a pass of at most 17 taps for 4-byte working values: the launch's words of two
// float taps each (the first in the low half), so that the taps are read as operands rather
// than converted into registers.
struct img_ftaps {
  float v[18];
};
__device__ __forceinline__ float img_flo(u64t w) { return __uint_as_float((unsigned)w); }
__device__ __forceinline__ float img_fhi(u64t w) { return __uint_as_float((unsigned)(w >> 32)); }

// Output `p` from the values `v` (output p's taps are v[p .. p + M - 1]).
template <int M, int SYM, int N>
__device__ __forceinline__ C sep_out(const C (&v)[N], const C (&w)[M], int p) {
  constexpr int H = M / 2;
  C acc;
  if (SYM == 1) {
    acc = v[p + H] * w[H];
#pragma unroll
    for (int t = 0; t < H; ++t) acc = img_fma(acc, w[t], v[p + t] + v[p + M - 1 - t]);
  } else if (SYM == -1) {
    acc = v[p + H] * w[H];
#pragma unroll
    for (int t = 0; t < H; ++t) acc = img_fma(acc, w[t], v[p + t] - v[p + M - 1 - t]);
  } else {
    acc = v[p + M - 1] * w[M - 1];
#pragma unroll
    for (int t = 0; t < M - 1; ++t) acc = img_fma(acc, w[t], v[p + t]);
  }
  return acc;
}

// A pass's sum divided by its `div` (the divisor 1 leaves it as it is).
__device__ __forceinline__ C sep_div(C a, double div) { return div != 1.0 ? a / (C)div : a; }
// The same where the kernel was built knowing whether the divisor is 1 (`D` false: it is).
template <bool D> __device__ __forceinline__ C sep_div(C a, double div) {
  return D ? a / (C)div : a;
}

// 16 bytes of shared working values at `p` (16-byte aligned) into v[0 .. 16 / sizeof(C)).
__device__ __forceinline__ void sep_ld16(const float *p, float *v) {
  const float4 q = *reinterpret_cast<const float4 *>(p);
  v[0] = q.x;
  v[1] = q.y;
  v[2] = q.z;
  v[3] = q.w;
}
__device__ __forceinline__ void sep_ld16(const double *p, double *v) {
  const double2 q = *reinterpret_cast<const double2 *>(p);
  v[0] = q.x;
  v[1] = q.y;
}

// Four stored values at `p`, aligned to their vector's size (16 bytes for doubles).
__device__ __forceinline__ void sep_st4(float *p, const float (&s)[4]) {
  *reinterpret_cast<float4 *>(p) = make_float4(s[0], s[1], s[2], s[3]);
}
__device__ __forceinline__ void sep_st4(double *p, const double (&s)[4]) {
  reinterpret_cast<double2 *>(p)[0] = make_double2(s[0], s[1]);
  reinterpret_cast<double2 *>(p)[1] = make_double2(s[2], s[3]);
}
__device__ __forceinline__ void sep_st4(unsigned short *p, const unsigned short (&s)[4]) {
  *reinterpret_cast<ushort4 *>(p) = make_ushort4(s[0], s[1], s[2], s[3]);
}
__device__ __forceinline__ void sep_st4(unsigned char *p, const unsigned char (&s)[4]) {
  *reinterpret_cast<uchar4 *>(p) = make_uchar4(s[0], s[1], s[2], s[3]);
}

// The outputs a0 .. a3 stored from `p` on, of which the first `room` (if fewer than 4) lie
// inside the image: one vector store when all do and `p` is aligned for it, else one each.
__device__ __forceinline__ void sep_store(T *p, C a0, C a1, C a2, C a3, i64t room) {
  if (room <= 0) return;
  const T s[4] = {img_st(a0), img_st(a1), img_st(a2), img_st(a3)};
  constexpr unsigned long long al = sizeof(T) * 4 > 16 ? 16 : sizeof(T) * 4;
  if (room >= 4 && reinterpret_cast<unsigned long long>(p) % al == 0) {
    sep_st4(p, s);
  } else {
#pragma unroll
    for (int k = 0; k < 4; ++k)
      if (k < room) p[k] = s[k];
  }
}

// Four outputs stored at `p` in global memory, aligned to their vector's size (16 bytes for
// doubles), as vector stores (plain `st.global`, which a struct store may not become).
__device__ __forceinline__ void sep_stg4(float *p, const float (&s)[4]) {
  asm volatile("st.global.v4.f32 [%0], {%1, %2, %3, %4};" ::"l"(p), "f"(s[0]), "f"(s[1]),
               "f"(s[2]), "f"(s[3])
               : "memory");
}
__device__ __forceinline__ void sep_stg4(double *p, const double (&s)[4]) {
  asm volatile("st.global.v2.f64 [%0], {%1, %2};" ::"l"(p), "d"(s[0]), "d"(s[1]) : "memory");
  asm volatile("st.global.v2.f64 [%0], {%1, %2};" ::"l"(p + 2), "d"(s[2]), "d"(s[3]) : "memory");
}
__device__ __forceinline__ void sep_stg4(unsigned short *p, const unsigned short (&s)[4]) {
  asm volatile("st.global.v4.u16 [%0], {%1, %2, %3, %4};" ::"l"(p), "h"(s[0]), "h"(s[1]),
               "h"(s[2]), "h"(s[3])
               : "memory");
}
__device__ __forceinline__ void sep_stg4(unsigned char *p, const unsigned char (&s)[4]) {
  const unsigned v = s[0] | (unsigned)s[1] << 8 | (unsigned)s[2] << 16 | (unsigned)s[3] << 24;
  asm volatile("st.global.u32 [%0], %1;" ::"l"(p), "r"(v) : "memory");
}

// Four image values from `p`, aligned to 4 of them.
__device__ __forceinline__ void sep_ldg4(const float *p, float (&u)[4]) {
  const float4 q = __ldg(reinterpret_cast<const float4 *>(p));
  u[0] = q.x;
  u[1] = q.y;
  u[2] = q.z;
  u[3] = q.w;
}
__device__ __forceinline__ void sep_ldg4(const double *p, double (&u)[4]) {
  const double2 a = __ldg(reinterpret_cast<const double2 *>(p));
  const double2 b = __ldg(reinterpret_cast<const double2 *>(p) + 1);
  u[0] = a.x;
  u[1] = a.y;
  u[2] = b.x;
  u[3] = b.y;
}
__device__ __forceinline__ void sep_ldg4(const unsigned short *p, unsigned short (&u)[4]) {
  const ushort4 q = __ldg(reinterpret_cast<const ushort4 *>(p));
  u[0] = q.x;
  u[1] = q.y;
  u[2] = q.z;
  u[3] = q.w;
}
__device__ __forceinline__ void sep_ldg4(const unsigned char *p, unsigned char (&u)[4]) {
  const uchar4 q = __ldg(reinterpret_cast<const uchar4 *>(p));
  u[0] = q.x;
  u[1] = q.y;
  u[2] = q.z;
  u[3] = q.w;
}
