// The fallback kernels of the neural-network convolution: the lowering of an input into its
// patches (`nn_im2col`), the gather of lowered gradients back onto the input (`nn_col2im`), the
// exchange of the first two axes of a batch of planes (`nn_swap`), and the bias and activation
// applied to a result in place (`nn_bias_act`). The products between them are cuBLASLt's. See
// `kernels.rs` for the parameters (one typed description each) and `cuda.rs` for the passes.
//
// Layouts. An input `x` is `planes = n c` planes of `i0 i1 i2` values. The patches of image
// `n`, channel `ch`, tap `(j0, j1, j2)` (row `ch rs + j`, `rs = r0 r1 r2`) at output position
// `q` lie at `col[n sn + (ch rs + j) sr + q]`: `sn = c rs P, sr = P` lays each image's patches
// as a `c rs x P` matrix (the forward product's operand), `sn = P, sr = nb P` lays every
// image's patches side by side in one `c rs x nb P` matrix (the weight gradient's operand).
// Tap `j` of output `q` reads input `q s - p + j d` along each axis; outside the input it
// reads zero.
//
// Threads. `x` of a block runs over positions within a plane (output positions for the
// lowering, input positions for the gather), `y` over planes, each a grid-stride loop; a
// thread splits its position once and then walks every plane and tap, so no division runs per
// element. Indices within a plane fit `int` (checked on the host); plane offsets are `i64t`.
//
// Built after a typed header defining `S` (storage), `A` (working type), `nn_ld`, `nn_st`.

__device__ __forceinline__ void nn_im2col(const S *__restrict__ x, S *__restrict__ col,
                                          i64t planes, i64t c, i64t i0, i64t i1, i64t i2, i64t r0,
                                          i64t r1, i64t r2, i64t o0, i64t o1, i64t o2, i64t st0,
                                          i64t st1, i64t st2, i64t pd0, i64t pd1, i64t pd2,
                                          i64t dl0, i64t dl1, i64t dl2, i64t sn, i64t sr) {
  const i64t P = o0 * o1 * o2;
  const i64t ip = i0 * i1 * i2;
  const i64t rs = r0 * r1 * r2;
  for (i64t p = (i64t)blockIdx.x * blockDim.x + threadIdx.x; p < P;
       p += (i64t)gridDim.x * blockDim.x) {
    const int pi = (int)p;
    const int q2 = pi % (int)o2;
    const int t = pi / (int)o2;
    const int q1 = t % (int)o1;
    const int q0 = t / (int)o1;
    const i64t b0 = (i64t)q0 * st0 - pd0;
    const i64t b1 = (i64t)q1 * st1 - pd1;
    const i64t b2 = (i64t)q2 * st2 - pd2;
    for (i64t pl = (i64t)blockIdx.y * blockDim.y + threadIdx.y; pl < planes;
         pl += (i64t)gridDim.y * blockDim.y) {
      const i64t n = pl / c;
      const i64t ch = pl - n * c;
      const S *xp = x + pl * ip;
      S *dst = col + n * sn + ch * rs * sr + p;
      for (i64t j0 = 0; j0 < r0; ++j0) {
        const i64t a0 = b0 + j0 * dl0;
        const bool in0 = a0 >= 0 && a0 < i0;
        for (i64t j1 = 0; j1 < r1; ++j1) {
          const i64t a1 = b1 + j1 * dl1;
          const bool in1 = in0 && a1 >= 0 && a1 < i1;
          const i64t line = in1 ? (a0 * i1 + a1) * i2 : 0;
          for (i64t j2 = 0; j2 < r2; ++j2) {
            const i64t a2 = b2 + j2 * dl2;
            *dst = (in1 && a2 >= 0 && a2 < i2) ? xp[line + a2] : (S)0;
            dst += sr;
          }
        }
      }
    }
  }
}

// The output index along one axis whose tap `j` reads input `e`: `(e + pd - j dl) / st` when
// that divides exactly and lies in `[0, o)`, else -1. `e + pd` and `j dl` are below 2^32
// (checked on the host), so the division runs in 32 bits.
__device__ __forceinline__ int nn_src(i64t e, i64t pd, i64t j, i64t dl, i64t st, i64t o) {
  const i64t u = e + pd - j * dl;
  if (u < 0) return -1;
  const unsigned uu = (unsigned)u;
  const unsigned su = (unsigned)st;
  const unsigned q = su == 1u ? uu : uu / su;
  return (q * su == uu && (i64t)q < o) ? (int)q : -1;
}

// dx[n, ch, e] = sum over taps j (ascending, row-major) of col[n, ch rs + j, q(e, j)], in `A`.
__device__ __forceinline__ void nn_col2im(const S *__restrict__ col, S *__restrict__ dx,
                                          i64t planes, i64t c, i64t i0, i64t i1, i64t i2, i64t r0,
                                          i64t r1, i64t r2, i64t o0, i64t o1, i64t o2, i64t st0,
                                          i64t st1, i64t st2, i64t pd0, i64t pd1, i64t pd2,
                                          i64t dl0, i64t dl1, i64t dl2, i64t sn, i64t sr) {
  const i64t ip = i0 * i1 * i2;
  const i64t rs = r0 * r1 * r2;
  for (i64t e = (i64t)blockIdx.x * blockDim.x + threadIdx.x; e < ip;
       e += (i64t)gridDim.x * blockDim.x) {
    const int ei = (int)e;
    const int e2 = ei % (int)i2;
    const int t = ei / (int)i2;
    const int e1 = t % (int)i1;
    const int e0 = t / (int)i1;
    for (i64t pl = (i64t)blockIdx.y * blockDim.y + threadIdx.y; pl < planes;
         pl += (i64t)gridDim.y * blockDim.y) {
      const i64t n = pl / c;
      const i64t ch = pl - n * c;
      const S *src = col + n * sn + ch * rs * sr;
      A acc = (A)0;
      for (i64t j0 = 0; j0 < r0; ++j0) {
        const int q0 = nn_src(e0, pd0, j0, dl0, st0, o0);
        if (q0 < 0) continue;
        for (i64t j1 = 0; j1 < r1; ++j1) {
          const int q1 = nn_src(e1, pd1, j1, dl1, st1, o1);
          if (q1 < 0) continue;
          for (i64t j2 = 0; j2 < r2; ++j2) {
            const int q2 = nn_src(e2, pd2, j2, dl2, st2, o2);
            if (q2 < 0) continue;
            const i64t row = (j0 * r1 + j1) * r2 + j2;
            acc += nn_ld(src[row * sr + ((i64t)q0 * o1 + q1) * o2 + q2]);
          }
        }
      }
      dx[pl * ip + e] = nn_st(acc);
    }
  }
}

// dst[b, a, q] = src[a, b, q] for `a x b` planes of `p` values (threads: `x` over `q`, `y`
// over the `a b` planes of the source).
__device__ __forceinline__ void nn_swap(const S *__restrict__ src, S *__restrict__ dst, i64t a,
                                        i64t b, i64t p) {
  for (i64t q = (i64t)blockIdx.x * blockDim.x + threadIdx.x; q < p;
       q += (i64t)gridDim.x * blockDim.x) {
    for (i64t pl = (i64t)blockIdx.y * blockDim.y + threadIdx.y; pl < a * b;
         pl += (i64t)gridDim.y * blockDim.y) {
      const i64t ia = pl / b;
      const i64t ib = pl - ia * b;
      dst[(ib * a + ia) * p + q] = src[pl * p + q];
    }
  }
}

// y[pl, q] = act(y[pl, q] + bias[pl % k]) over `planes` planes of `p` values (`bias` may be
// null: no bias). `relu` nonzero: negative values become zero, NaN stays NaN.
__device__ __forceinline__ void nn_bias_act(S *__restrict__ y, const S *__restrict__ bias,
                                            i64t planes, i64t k, i64t p, i64t relu) {
  for (i64t q = (i64t)blockIdx.x * blockDim.x + threadIdx.x; q < p;
       q += (i64t)gridDim.x * blockDim.x) {
    for (i64t pl = (i64t)blockIdx.y * blockDim.y + threadIdx.y; pl < planes;
         pl += (i64t)gridDim.y * blockDim.y) {
      A v = nn_ld(y[pl * p + q]);
      if (bias) v += nn_ld(bias[pl % k]);
      if (relu && v < (A)0) v = (A)0;
      y[pl * p + q] = nn_st(v);
    }
  }
}
