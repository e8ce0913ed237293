// The pipelined tile kernel of the separable filters: rows first, at most 17 taps a pass,
// 4-byte working values (`f16`, `f32` images). It computes what the tiled kernel
// (`filters_sep.cu`) does rows first, with the same sums in the same order: the correlation
// along the rows axis (`wy`, PT_MY taps, centre `cy`), its result stored in the image's type
// and read back, then the correlation along the columns axis (`wx`, PT_MX taps, centre PT_CX)
// of that intermediate extended by the boundary mode (with the constant modes, intermediate
// values outside the image are `cval`), each pass divided by its `div`.
//
// Each block stays resident and walks the output tiles of PT_TW x PT_TH (columns x rows)
// `blockIdx.x`, `blockIdx.x + gridDim.x`, ... For each tile the block
//
// 1. has already copied the tile's input window, PT_RH rows of PT_RS values starting PT_CXR
//    columns left of the tile, into one of two shared buffers with asynchronous copies
//    (`cp.async`) issued during the previous tile: 16-byte copies where the whole window lies
//    inside a row-aligned image, else one copy per value from the index `img_map` gives it
//    (one load and store per value for 2-byte images, as `cp.async` copies at least 4 bytes);
//    it issues the next tile's copies into the other buffer before waiting for this one's;
// 2. runs the pass along rows from that buffer into the intermediate (shared, PT_TH rows of
//    PT_MS working values): a thread computes PT_S consecutive rows of one of the
//    PT_TW + PT_MX - 1 intermediate columns from PT_S + PT_MY - 1 values, lanes on consecutive
//    columns (conflict-free shared loads and stores);
// 3. runs the pass along columns from the intermediate and stores the outputs: a thread gives
//    8 consecutive outputs of a row from 16-byte shared loads, a warp 8 rows of 32 columns (4
//    lanes a row; PT_MS is 4 modulo 8 values, so that the two rows that each quarter-warp loads
//    cover distinct banks); its outputs go out as vectors where the address allows.
//
// Barriers: after the wait (the window is complete and every thread is done with the
// intermediate of the previous tile) and between the two passes (the intermediate is
// complete). The copies into a buffer are issued only after the barrier that follows the last
// pass that read it. The taps are the launch's float parameters (`img_ftaps`,
// `filters_taps.cu`), read as operands rather than held in registers.
//
// Built after `boundary.cu`, a typed header defining `T` (4 or 2 bytes), `C` (float),
// `img_ld`, `img_st`, `img_fma` (`filters_elem.rs`), `filters_taps.cu`, and PT_MY, PT_MX
// (1 to 17), PT_SYMY, PT_SYMX, PT_CX (0 to PT_MX - 1), PT_TW (a multiple of 8), PT_TH (a
// multiple of 8 and of PT_S), PT_S. The shared bytes it needs are `filters_pipe.rs`'s
// `shared_bytes`, which mirrors PT_RAW, PT_TH and PT_MS below.

constexpr int PT_THREADS = 256;
// Image values a 16-byte copy moves; the window starts PT_CXR columns left of the tile (a
// whole number of copies) and the intermediate's first column is its column PT_OFF.
constexpr int PT_V = 16 / (int)sizeof(T);
constexpr int PT_CXR = (PT_CX + PT_V - 1) / PT_V * PT_V;
constexpr int PT_OFF = PT_CXR - PT_CX;
// Intermediate columns; window rows and row stride (whole 16-byte copies); one buffer's values.
constexpr int PT_SW = PT_TW + PT_MX - 1;
constexpr int PT_RH = PT_TH + PT_MY - 1;
constexpr int PT_RS = (PT_OFF + PT_SW + PT_V - 1) / PT_V * PT_V;
constexpr int PT_RAW = PT_RH * PT_RS;
// Values a thread of the pass along columns loads (whole 16-byte loads), and the
// intermediate's row stride: every such load inside it, 4 modulo 8.
constexpr int PT_NL = (8 + PT_MX - 1 + 3) / 4 * 4;
constexpr int PT_MS = (PT_TW - 8 + PT_NL + 3) / 8 * 8 + 4;
static_assert(sizeof(C) == 4 && (sizeof(T) == 4 || sizeof(T) == 2), "4-byte working values");
static_assert(PT_TW % 8 == 0 && PT_TH % 8 == 0 && PT_TH % PT_S == 0, "tiling");
static_assert(PT_MY >= 1 && PT_MY <= 17 && PT_MX >= 1 && PT_MX <= 17, "taps");
static_assert(PT_CX >= 0 && PT_CX < PT_MX, "centre");

// An asynchronous copy of 16 (or 4) bytes from global `src` to shared `dst`, both aligned.
__device__ __forceinline__ void pt_cp16(void *dst, const void *src) {
  const unsigned d = (unsigned)__cvta_generic_to_shared(dst);
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16;\n" ::"r"(d), "l"(src) : "memory");
}
__device__ __forceinline__ void pt_cp4(void *dst, const void *src) {
  const unsigned d = (unsigned)__cvta_generic_to_shared(dst);
  asm volatile("cp.async.ca.shared.global [%0], [%1], 4;\n" ::"r"(d), "l"(src) : "memory");
}

__device__ __forceinline__ void img_pipe(const T *__restrict__ x, const img_ftaps wy,
                                         const img_ftaps wx, T *__restrict__ y, i64t batch,
                                         i64t h, i64t w, i64t cy, i64t mode, double cval,
                                         double divy, double divx) {
  extern __shared__ __align__(16) double img_pipe_smem[];
  T *const raw = reinterpret_cast<T *>(img_pipe_smem);
  C *const mid = reinterpret_cast<C *>(raw + 2 * PT_RAW);
  const bool cst = mode == 1 || mode == 5;
  const C cv = (C)cval;
  const int tid = threadIdx.x;
  // Windows copied 16 bytes at a time: rows a whole number of copies long, `x` aligned.
  const bool xvec = w % PT_V == 0 && reinterpret_cast<unsigned long long>(x) % 16 == 0;
  const i64t tn_y = (h + PT_TH - 1) / PT_TH, tn_x = (w + PT_TW - 1) / PT_TW;
  const i64t total = batch * tn_y * tn_x;
  // Issues the copies of tile `t`'s window into `dst`, as one group.
  auto issue = [&](i64t t, T *dst) {
    const i64t tx0 = (t % tn_x) * PT_TW;
    const i64t r = t / tn_x;
    const T *xb = x + (r / tn_y) * h * w;
    const i64t y0 = (r % tn_y) * PT_TH - cy, xs = tx0 - PT_CXR;
    if (xvec && y0 >= 0 && y0 + PT_RH <= h && xs >= 0 && xs + PT_RS <= w) {
      constexpr int CH = PT_RS / PT_V, N = PT_RH * CH;
      const T *src = xb + y0 * w + xs;
#pragma unroll 4
      for (int q = tid; q < N; q += PT_THREADS) {
        const int rr = q / CH, k = q - rr * CH;
        pt_cp16(dst + rr * PT_RS + k * PT_V, src + rr * w + k * PT_V);
      }
    } else {
      for (int q = tid; q < PT_RAW; q += PT_THREADS) {
        const int rr = q / PT_RS, c = q - rr * PT_RS;
        const i64t gy = img_map(y0 + rr, h, (int)mode), gx = img_map(xs + c, w, (int)mode);
        if (gy >= 0 && gx >= 0) {
          if (sizeof(T) == 4)
            pt_cp4(dst + q, xb + gy * w + gx);
          else
            dst[q] = xb[gy * w + gx];
        } else {
          // Constant modes: the first pass reads `cval` here instead.
          dst[q] = img_st(cv);
        }
      }
    }
    asm volatile("cp.async.commit_group;\n" ::: "memory");
  };
  C wr[PT_MY], wc[PT_MX];
#pragma unroll
  for (int j = 0; j < PT_MY; ++j) wr[j] = wy.v[j];
#pragma unroll
  for (int j = 0; j < PT_MX; ++j) wc[j] = wx.v[j];
  i64t t = blockIdx.x;
  if (t < total) issue(t, raw);
  int buf = 0;
  for (; t < total; t += gridDim.x) {
    const i64t tn = t + gridDim.x;
    if (tn < total)
      issue(tn, raw + (buf ^ 1) * PT_RAW);
    else
      asm volatile("cp.async.commit_group;\n" ::: "memory");
    // This tile's group is complete (the next one's may still be in flight).
    asm volatile("cp.async.wait_group 1;\n" ::: "memory");
    __syncthreads();
    const T *rb = raw + buf * PT_RAW;
    const i64t tx0 = (t % tn_x) * PT_TW;
    const i64t r = t / tn_x;
    const i64t ty0 = (r % tn_y) * PT_TH;
    T *yb = y + (r / tn_y) * h * w;
    const i64t y0 = ty0 - cy, x0 = tx0 - PT_CX;
    constexpr int N1 = PT_SW * (PT_TH / PT_S);
    constexpr int NV = PT_S + PT_MY - 1;
    if (!cst || (y0 >= 0 && y0 + PT_RH <= h && x0 >= 0 && x0 + PT_SW <= w)) {
      // Every value of the window is the image's (or the boundary mode's copy of one).
#pragma unroll
      for (int q0 = 0; q0 < N1; q0 += PT_THREADS) {
        const int q = q0 + tid;
        if (N1 % PT_THREADS == 0 || q < N1) {
          const int g = q / PT_SW, c = q - g * PT_SW;
          const T *s = rb + g * PT_S * PT_RS + PT_OFF + c;
          C v[NV];
#pragma unroll
          for (int j = 0; j < NV; ++j) v[j] = img_ld(s[j * PT_RS]);
#pragma unroll
          for (int p = 0; p < PT_S; ++p)
            mid[(g * PT_S + p) * PT_MS + c] =
                img_ld(img_st(sep_div(sep_out<PT_MY, PT_SYMY>(v, wr, p), divy)));
        }
      }
    } else {
      // Constant modes at the image's edge: input rows outside are `cval`, and so are
      // intermediate columns outside.
      for (int q = tid; q < N1; q += PT_THREADS) {
        const int g = q / PT_SW, c = q - g * PT_SW;
        const bool out = x0 + c < 0 || x0 + c >= w;
        const T *s = rb + g * PT_S * PT_RS + PT_OFF + c;
        C v[NV];
#pragma unroll
        for (int j = 0; j < NV; ++j) {
          const i64t gy = y0 + g * PT_S + j;
          v[j] = gy >= 0 && gy < h ? img_ld(s[j * PT_RS]) : cv;
        }
#pragma unroll
        for (int p = 0; p < PT_S; ++p)
          mid[(g * PT_S + p) * PT_MS + c] =
              out ? cv : img_ld(img_st(sep_div(sep_out<PT_MY, PT_SYMY>(v, wr, p), divy)));
      }
    }
    __syncthreads();
    // The pass along columns: a warp 8 rows of 32 columns, a thread 8 outputs of a row.
    constexpr int CB = (PT_TW + 31) / 32, NW = (PT_TH / 8) * CB;
    const int lane = tid & 31;
#pragma unroll 1
    for (int b = tid >> 5; b < NW; b += PT_THREADS / 32) {
      const int rb8 = b / CB, cb = b - rb8 * CB;
      const int row = rb8 * 8 + (lane >> 2), col = cb * 32 + (lane & 3) * 8;
      if (PT_TW % 32 == 0 || col < PT_TW) {
        C v[PT_NL];
#pragma unroll
        for (int j = 0; j < PT_NL; j += 4) sep_ld16(mid + row * PT_MS + col + j, v + j);
        C a[8];
#pragma unroll
        for (int p = 0; p < 8; ++p) a[p] = sep_div(sep_out<PT_MX, PT_SYMX>(v, wc, p), divx);
        const i64t oy = ty0 + row, ox = tx0 + col;
        if (oy < h && ox < w) {
          T *o = yb + oy * w + ox;
          sep_store(o, a[0], a[1], a[2], a[3], w - ox);
          sep_store(o + 4, a[4], a[5], a[6], a[7], w - ox - 4);
        }
      }
    }
    buf ^= 1;
  }
  asm volatile("cp.async.wait_group 0;\n" ::: "memory");
}
