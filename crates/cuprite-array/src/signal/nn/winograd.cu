// Winograd's minimal filtering F(2 x 2, 3 x 3) for the fallback's forward pass of a 3 x 3
// kernel at stride 1 (Lavin and Gray, "Fast Algorithms for Convolutional Neural Networks",
// 2016): each 2 x 2 block of outputs ("tile") of a plane is `A^T [(G g G^T) . (B^T d B)] A`,
// `g` the 3 x 3 kernel and `d` the 4 x 4 input window the tile reads, so the sum over channels
// is 16 products (`[16, k, c]` by `[16, c, tiles]`, cuBLASLt's) instead of 36 multiplies a
// tile and channel. `winograd.rs` runs the passes; `kernels.rs` holds the parameters.
//
//   G = [1 0 0; 1/2 1/2 1/2; 1/2 -1/2 1/2; 0 0 1]
//   B^T = [1 0 -1 0; 0 1 1 0; 0 -1 1 0; 0 1 0 -1]
//   A^T = [1 1 1 0; 0 1 -1 -1]
//
// Layouts. The kernels `u` are `[16, k, c]` (transformed element `e = 4 a + b` of filter `f`
// over channel `ch` at `e k c + f c + ch`), the transformed windows `v` `[16, c, tiles]`, the
// products `m` `[16, k, tiles]`. Tile `t` of a chunk is image `t / (th tw)`, tile row `ty`
// and column `tx` of its `th x tw` tiles; its window starts at input row `2 ty - p0` and column
// `2 tx - p1` (zero outside the `h x w` plane), its outputs at row `2 ty` and column `2 tx`
// (those past `oh x ow` not written). Tap `(a, b)` of filter `f` over channel `ch` is
// `w[f ld + ch cs + 3 a + b]`. Input plane `(n, ch)` starts at `(n c + ch) h w`, output
// plane `(n, f)` at `(n k + f) oh ow`. A flipped axis (`flip0`, `flip1`) reads the kernel
// reversed along it (the input's gradient runs the forward pass with the taps reversed).
//
// Threads. `x` of a block runs over the items of a plane (channels for the kernels, tiles for
// the windows and the outputs), `y` over planes (filters, channels, filters), each a
// grid-stride loop. Ranges (checked on the host, `winograd.rs`): every buffer's size, `16 k c`,
// `16 c tiles` and `16 k tiles`, is below `2^62`, and the padding and extents below `2^31`, so
// `i64t` indices do not overflow.
//
// Built after a typed header defining `S` (storage), `A` (working type: `S` itself, `f32` or
// `f64`), `nn_ld`, `nn_st`.

__device__ __forceinline__ void nn_wino_filter(const S *__restrict__ w, S *__restrict__ u, i64t k,
                                               i64t c, i64t ld, i64t cs, i64t flip0,
                                               i64t flip1) {
  const i64t kc = k * c;
  for (i64t f = (i64t)blockIdx.y * blockDim.y + threadIdx.y; f < k;
       f += (i64t)gridDim.y * blockDim.y) {
    for (i64t ch = (i64t)blockIdx.x * blockDim.x + threadIdx.x; ch < c;
         ch += (i64t)gridDim.x * blockDim.x) {
      const S *src = w + f * ld + ch * cs;
      A g[3][3];
#pragma unroll
      for (int a = 0; a < 3; ++a) {
#pragma unroll
        for (int b = 0; b < 3; ++b) {
          g[a][b] = nn_ld(src[(flip0 ? 2 - a : a) * 3 + (flip1 ? 2 - b : b)]);
        }
      }
      const A h = (A)0.5;
      A t[4][3];
#pragma unroll
      for (int b = 0; b < 3; ++b) {
        t[0][b] = g[0][b];
        t[1][b] = (g[0][b] + g[1][b] + g[2][b]) * h;
        t[2][b] = (g[0][b] - g[1][b] + g[2][b]) * h;
        t[3][b] = g[2][b];
      }
      S *dst = u + f * c + ch;
#pragma unroll
      for (int a = 0; a < 4; ++a) {
        dst[(4 * a + 0) * kc] = nn_st(t[a][0]);
        dst[(4 * a + 1) * kc] = nn_st((t[a][0] + t[a][1] + t[a][2]) * h);
        dst[(4 * a + 2) * kc] = nn_st((t[a][0] - t[a][1] + t[a][2]) * h);
        dst[(4 * a + 3) * kc] = nn_st(t[a][2]);
      }
    }
  }
}

__device__ __forceinline__ void nn_wino_input(const S *__restrict__ x, S *__restrict__ v, i64t c,
                                              i64t h, i64t w, i64t th, i64t tw, i64t tiles,
                                              i64t p0, i64t p1) {
  const i64t per = th * tw, hw = h * w, ct = c * tiles;
  for (i64t t = (i64t)blockIdx.x * blockDim.x + threadIdx.x; t < tiles;
       t += (i64t)gridDim.x * blockDim.x) {
    const i64t n = t / per, r = t - n * per, ty = r / tw, tx = r - ty * tw;
    const i64t y0 = 2 * ty - p0, x0 = 2 * tx - p1;
    bool ry[4], rx[4];
#pragma unroll
    for (int a = 0; a < 4; ++a) {
      ry[a] = y0 + a >= 0 && y0 + a < h;
      rx[a] = x0 + a >= 0 && x0 + a < w;
    }
    for (i64t ch = (i64t)blockIdx.y * blockDim.y + threadIdx.y; ch < c;
         ch += (i64t)gridDim.y * blockDim.y) {
      const S *src = x + (n * c + ch) * hw;
      A d[4][4];
#pragma unroll
      for (int a = 0; a < 4; ++a) {
#pragma unroll
        for (int b = 0; b < 4; ++b) {
          d[a][b] = ry[a] && rx[b] ? nn_ld(src[(y0 + a) * w + x0 + b]) : (A)0;
        }
      }
      A q[4][4];
#pragma unroll
      for (int b = 0; b < 4; ++b) {
        q[0][b] = d[0][b] - d[2][b];
        q[1][b] = d[1][b] + d[2][b];
        q[2][b] = d[2][b] - d[1][b];
        q[3][b] = d[1][b] - d[3][b];
      }
      S *dst = v + ch * tiles + t;
#pragma unroll
      for (int a = 0; a < 4; ++a) {
        dst[(4 * a + 0) * ct] = nn_st(q[a][0] - q[a][2]);
        dst[(4 * a + 1) * ct] = nn_st(q[a][1] + q[a][2]);
        dst[(4 * a + 2) * ct] = nn_st(q[a][2] - q[a][1]);
        dst[(4 * a + 3) * ct] = nn_st(q[a][1] - q[a][3]);
      }
    }
  }
}

__device__ __forceinline__ void nn_wino_output(const S *__restrict__ m, S *__restrict__ y, i64t k,
                                               i64t oh, i64t ow, i64t th, i64t tw, i64t tiles) {
  const i64t per = th * tw, ohw = oh * ow, kt = k * tiles;
  for (i64t t = (i64t)blockIdx.x * blockDim.x + threadIdx.x; t < tiles;
       t += (i64t)gridDim.x * blockDim.x) {
    const i64t n = t / per, r = t - n * per, ty = r / tw, tx = r - ty * tw;
    const i64t y0 = 2 * ty, x0 = 2 * tx;
    const bool row1 = y0 + 1 < oh, col1 = x0 + 1 < ow;
    for (i64t f = (i64t)blockIdx.y * blockDim.y + threadIdx.y; f < k;
         f += (i64t)gridDim.y * blockDim.y) {
      const S *src = m + f * tiles + t;
      A e[4][4];
#pragma unroll
      for (int a = 0; a < 4; ++a) {
#pragma unroll
        for (int b = 0; b < 4; ++b) {
          e[a][b] = nn_ld(src[(4 * a + b) * kt]);
        }
      }
      A s[2][4];
#pragma unroll
      for (int b = 0; b < 4; ++b) {
        s[0][b] = e[0][b] + e[1][b] + e[2][b];
        s[1][b] = e[1][b] - e[2][b] - e[3][b];
      }
      S *dst = y + (n * k + f) * ohw + y0 * ow + x0;
      dst[0] = nn_st(s[0][0] + s[0][1] + s[0][2]);
      if (col1) dst[1] = nn_st(s[0][1] - s[0][2] - s[0][3]);
      if (row1) {
        dst[ow] = nn_st(s[1][0] + s[1][1] + s[1][2]);
        if (col1) dst[ow + 1] = nn_st(s[1][1] - s[1][2] - s[1][3]);
      }
    }
  }
}
