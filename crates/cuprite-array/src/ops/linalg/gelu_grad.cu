// The GELU gradient's element-wise step and its column sums (`linalg::matmul_gelu_grad`):
// for a `rows x cols` row-major product P (already scaled) and the pre-activation Z of the same
// shape, `g = P * gelu'(Z)` rounded to the element type, and the column sums of the rounded g
// (the bias gradient). `gelu_grad.rs` instantiates the templates from `extern "C"` entries whose
// parameters come from the kernel's typed description (`void` pointers, cast here):
//
// - `T`: the element traits (`GgF32`, `GgF16`, `GgBF16`): storage type `S`, conversions to and
//   from `float`, in which everything is computed.
// - `LANES`: consecutive columns a thread takes, loaded and stored as one vector of `LANES`
//   storage values (16 bytes for `LANES > 1`; the host sets it only where `cols % LANES == 0` and
//   every base address is 16-byte aligned, so a row's vectors are aligned too). 1: scalar.
// - `TX`, `RY`: a block is `TX` lanes (consecutive column groups) by `RY` lane rows.
// - `DERIV`: 1 computes and writes g from P and Z; 0 only sums P's columns (g is P).
// - `FAST`: GELU's tanh as `1 - 2 / (e^(2u) + 1)` by the hardware's base-2 exponential and a
//   fast division (absolute error a few units of 2^-23, for the half types, whose rounding is
//   far coarser); else `tanhf`.
//
// `gelu_grad_part`: block (x, y) takes columns `[x * TX * LANES, (x + 1) * TX * LANES)` (those
// below `cols`) and chunk y of the rows, `[y * per, min((y + 1) * per, rows))` with
// `per = ceil(rows / chunks)`, lane row `t` taking every RY-th row from the chunk's start + t.
// Each thread accumulates its columns in `float`, the lane rows are summed in shared memory in
// a fixed order and the block writes `part[y * cols + col]`. `gelu_grad_finish` (blocks of 32
// lanes by GG_FINISH_ROWS rows): lane row `t` of column `c` sums `part[ch][c]` for the chunks
// `ch = t, t + GG_FINISH_ROWS, ...` in order, the rows are summed in shared memory in order and
// the bias gradient `db[c]` written. The order of every
// sum depends on the sizes only.

#define GG_FINISH_ROWS 8

struct GgF32 {
  typedef float S;
  static __device__ __forceinline__ float ld(S x) { return x; }
  static __device__ __forceinline__ S st(float x) { return x; }
};
struct GgF16 {
  typedef unsigned short S;
  static __device__ __forceinline__ float ld(S x) { return h2f(x); }
  static __device__ __forceinline__ S st(float x) { return f2h(x); }
};
struct GgBF16 {
  typedef unsigned short S;
  static __device__ __forceinline__ float ld(S x) { return bf2f(x); }
  static __device__ __forceinline__ S st(float x) { return f2bf(x); }
};

// GELU's derivative in its tanh form: with t = tanh(c (z + a z^3)),
// (1 + t) / 2 + z (1 - t^2) c (1 + 3 a z^2) / 2.
template <int FAST>
__device__ __forceinline__ float gg_dgelu(float z) {
  const float c = 0.7978845608028654f, a = 0.044715f;
  const float z2 = z * z;
  const float u = c * z * fmaf(a, z2, 1.0f);
  float t;
  if (FAST) {
    t = 1.0f - __fdividef(2.0f, __expf(2.0f * u) + 1.0f);
  } else {
    t = tanhf(u);
  }
  const float du = c * fmaf(3.0f * a, z2, 1.0f);
  return fmaf(0.5f, 1.0f + t, 0.5f * z * fmaf(-t, t, 1.0f) * du);
}

template <typename T, int LANES, int TX, int RY, int DERIV, int FAST>
__device__ __forceinline__ void gelu_grad_part(const void *__restrict__ prod_, const void *__restrict__ pre_,
                                               void *__restrict__ g_, float *__restrict__ part, i64t rows,
                                               i64t cols, i64t chunks) {
  typedef typename T::S S;
  typedef VecN<S, LANES> V;
  const S *__restrict__ prod = static_cast<const S *>(prod_);
  const S *__restrict__ pre = static_cast<const S *>(pre_);
  S *__restrict__ g = static_cast<S *>(g_);
  __shared__ float sh[RY][TX * LANES + 1];
  const int tx = (int)threadIdx.x % TX, ty = (int)threadIdx.x / TX;
  const i64t col0 = ((i64t)blockIdx.x * TX + tx) * LANES;
  const i64t per = (rows + chunks - 1) / chunks;
  const i64t r0 = (i64t)blockIdx.y * per;
  const i64t r1 = r0 + per < rows ? r0 + per : rows;
  float acc[LANES];
#pragma unroll
  for (int q = 0; q < LANES; ++q) acc[q] = 0.0f;
  if (col0 < cols) {
#pragma unroll 4
    for (i64t r = r0 + ty; r < r1; r += RY) {
      const i64t o = r * cols + col0;
      const V p = *reinterpret_cast<const V *>(prod + o);
      if (DERIV) {
        const V z = *reinterpret_cast<const V *>(pre + o);
        V out;
#pragma unroll
        for (int q = 0; q < LANES; ++q) {
          out.v[q] = T::st(T::ld(p.v[q]) * gg_dgelu<FAST>(T::ld(z.v[q])));
          acc[q] += T::ld(out.v[q]);
        }
        *reinterpret_cast<V *>(g + o) = out;
      } else {
#pragma unroll
        for (int q = 0; q < LANES; ++q) acc[q] += T::ld(p.v[q]);
      }
    }
  }
#pragma unroll
  for (int q = 0; q < LANES; ++q) sh[ty][tx * LANES + q] = acc[q];
  __syncthreads();
  const i64t base = (i64t)blockIdx.x * TX * LANES;
  for (int i = (int)threadIdx.x; i < TX * LANES; i += TX * RY) {
    float s = 0.0f;
#pragma unroll
    for (int y = 0; y < RY; ++y) s += sh[y][i];
    if (base + i < cols) part[(i64t)blockIdx.y * cols + base + i] = s;
  }
}

template <typename T>
__device__ __forceinline__ void gelu_grad_finish(const float *__restrict__ part, void *__restrict__ db_, i64t cols,
                                                 i64t chunks) {
  typedef typename T::S S;
  S *__restrict__ db = static_cast<S *>(db_);
  __shared__ float sh[GG_FINISH_ROWS][33];
  const int tx = (int)threadIdx.x % 32, ty = (int)threadIdx.x / 32;
  const i64t c = (i64t)blockIdx.x * 32 + tx;
  float s = 0.0f;
  if (c < cols)
    for (i64t ch = ty; ch < chunks; ch += GG_FINISH_ROWS) s += part[ch * cols + c];
  sh[ty][tx] = s;
  __syncthreads();
  if (ty == 0 && c < cols) {
    float t = 0.0f;
#pragma unroll
    for (int y = 0; y < GG_FINISH_ROWS; ++y) t += sh[y][tx];
    db[c] = T::st(t);
  }
}
