// A separable filter of the last two axes, rows first, streamed down column strips: the
// filter of `filters_sep.cu` (same sums, same rounding of the intermediate, same boundaries)
// for windows of at most 17 taps a pass with 4-byte working values, reading each input value
// about once. A block owns ST_W output columns of one image and a segment of `seg` rows (a
// multiple of ST_U), and walks the segment ST_U rows a step.
//
// Each of the first ST_W threads owns one intermediate column (the strip's columns shifted
// left by the columns pass's centre ST_CX); lanes of the last warp own the ST_MX - 1 halo
// columns (ST_CX left of the strip, the rest right of it) and its other lanes idle in the pass
// along rows. A thread keeps a window of ST_U + ST_MY - 1 consecutive input values of its
// column in registers. A step computes ST_U rows of the pass along rows from the window and
// stores them in one of two shared buffers; the window then moves on by ST_U rows and the new
// rows' loads are issued, to be in flight while, after a barrier, the first ST_W threads
// compute the pass along columns of that buffer (ST_R consecutive outputs of a row a thread,
// from 16-byte shared loads; lanes on consecutive groups of a row: conflict-free reads,
// coalesced stores). Two buffers need one barrier a step: a buffer is written again only after
// the next step's barrier, which every thread reaches after reading it.
//
// Odd segments walk upwards, so that the rows two neighbouring segments both read (the
// ST_MY - 1 rows around their border) are read by both at about the same time: both at their
// start, or both at their end.
//
// Boundaries: rows and columns outside the image map through `img_map`; with the constant
// modes input values outside are `cval`, and so are intermediate columns outside (SciPy's
// second pass sees the intermediate extended by the mode). Windows reaching past the image
// load through `st_at`, out of line; the others index the image directly. Columns that no
// output inside the image needs (past its right edge by more than the halo) load nothing.
//
// Built after `boundary.cu`, the typed header (`T`, `C` of 4 bytes, `img_ld`, `img_st`,
// `img_fma`, `filters_elem.rs`), `filters_taps.cu`, and ST_MY (1 to 17), ST_MX (1 to 17),
// ST_SYMY, ST_SYMX (as SEP_SYMY/SEP_SYMX), ST_CX (in [0, ST_MX)), ST_W (a multiple of 32 and
// of ST_R), ST_U (ST_U * ST_W / ST_R a multiple of ST_W), ST_R (4 or 8). The launch has
// ST_THREADS threads and 2 * ST_U * ST_MS values of C of dynamic shared memory
// (`filters_strip.rs`'s `shared_bytes` mirrors it).

constexpr int ST_HALO = ST_MX - 1;
constexpr int ST_THREADS = ST_W + 32;
// Window values a thread holds.
constexpr int ST_NW = ST_U + ST_MY - 1;
// Working values per 16-byte shared access.
constexpr int ST_V = 16 / (int)sizeof(C);
// Values a thread of the pass along columns loads: its ST_R + ST_MX - 1, rounded up to whole
// 16-byte loads.
constexpr int ST_NL = (ST_R + ST_MX - 1 + ST_V - 1) / ST_V * ST_V;
// A buffer row's stride: every load of the pass along columns inside it. Its first
// ST_W + ST_MX - 1 values are the intermediate columns; the rest (loaded, never used in a sum)
// are zeroed once.
constexpr int ST_MS = ST_W - ST_R + ST_NL;
// Groups of ST_R outputs a row; outputs of a step.
constexpr int ST_G = ST_W / ST_R;
constexpr int ST_N2 = ST_U * ST_G;
static_assert(sizeof(C) == 4, "4-byte working values");
static_assert(ST_HALO < 32, "the halo columns fit one warp");
static_assert(ST_W % 32 == 0 && ST_W % ST_R == 0, "strip width");
static_assert(ST_N2 % ST_W == 0, "whole rounds of the pass along columns a step");
static_assert(ST_R == 4 || ST_R == 8, "4 or 8 outputs a thread along columns");

// The value at row `yy` (any row: mapped by the boundary mode) of the column at `xc`, or `cv`
// where the mode's value is the constant. Out of line: only windows reaching past the image
// load through it.
__device__ __noinline__ C st_at(const T *xc, i64t yy, i64t h, i64t w, i64t mode, C cv) {
  const i64t m = img_map(yy, h, (int)mode);
  return m >= 0 ? img_ld(xc[m * w]) : cv;
}

__device__ __forceinline__ void img_strip(const T *__restrict__ x, const img_taps wy,
                                          const img_taps wx, T *__restrict__ y, i64t batch,
                                          i64t h, i64t w, i64t cy, i64t seg, i64t mode,
                                          double cval, double divy, double divx) {
  extern __shared__ __align__(16) double img_strip_smem[];
  C *const mid = reinterpret_cast<C *>(img_strip_smem);
  const bool cst = mode == 1 || mode == 5;
  const C cv = (C)cval;
  const int tid = threadIdx.x;
  C wr[ST_MY], wc[ST_MX];
#pragma unroll
  for (int j = 0; j < ST_MY; ++j) wr[j] = (C)wy.v[j];
#pragma unroll
  for (int j = 0; j < ST_MX; ++j) wc[j] = (C)wx.v[j];
  // The padding of the buffer rows, read by the last groups' 16-byte loads: zero, so that
  // every shared value read was written (ordered before any read by the first step's barrier).
  constexpr int PAD = ST_MS - (ST_W + ST_MX - 1);
  constexpr int PADQ = PAD > 0 ? PAD : 1;
  for (int q = tid; q < 2 * ST_U * PAD; q += ST_THREADS)
    mid[(q / PADQ) * ST_MS + ST_W + ST_MX - 1 + q % PADQ] = (C)0;
  // This thread's intermediate column: `jc` in a buffer row; `act` whether it has one.
  int jc;
  bool act;
  if (tid < ST_W) {
    jc = tid + ST_CX;
    act = true;
  } else {
    const int l = tid - ST_W;
    act = l < ST_HALO;
    jc = l < ST_CX ? l : ST_W + l;
  }
  const i64t ns = (w + ST_W - 1) / ST_W;
  const i64t ng = (h + seg - 1) / seg;
  const i64t total = batch * ns * ng;
  int buf = 0;
  for (i64t b = blockIdx.x; b < total; b += gridDim.x) {
    const i64t sx = b % ns;
    const i64t r = b / ns;
    const i64t sg = r % ng;
    const T *xb = x + (r / ng) * h * w;
    T *yb = y + (r / ng) * h * w;
    const i64t c0 = sx * ST_W;
    const i64t col = c0 - ST_CX + jc;
    // Whether an output inside the image needs this column; `gx` its image column (-1: the
    // constant, or not needed), `ld` whether it loads.
    const bool live = act && col < w + (ST_MX - 1 - ST_CX);
    const i64t gx = live ? img_map(col, w, (int)mode) : -1;
    const bool ld = gx >= 0;
    const T *xc = xb + (ld ? gx : 0);
    const i64t s0 = sg * seg;
    const i64t s1 = s0 + seg < h ? s0 + seg : h;
    const int nsteps = (int)((s1 - s0 + ST_U - 1) / ST_U);
    const bool up = (sg & 1) != 0;
    // The window of the first step: input rows r0 .. r0 + ST_NW - 1 of this column.
    C v[ST_NW];
    {
      const i64t r0 = s0 + (up ? (i64t)(nsteps - 1) * ST_U : 0) - cy;
      if (ld && r0 >= 0 && r0 + ST_NW <= h) {
        const T *p = xc + r0 * w;
#pragma unroll
        for (int i = 0; i < ST_NW; ++i) v[i] = img_ld(__ldg(p + i * w));
      } else {
#pragma unroll
        for (int i = 0; i < ST_NW; ++i) v[i] = ld ? st_at(xc, r0 + i, h, w, mode, cv) : cv;
      }
    }
    for (int t = 0; t < nsteps; ++t) {
      // Step t outputs rows s0 + k ST_U .. + ST_U - 1.
      const int k = up ? nsteps - 1 - t : t;
      C *mb = mid + buf * (ST_U * ST_MS);
      if (act) {
#pragma unroll
        for (int p = 0; p < ST_U; ++p)
          mb[p * ST_MS + jc] =
              (cst && !ld) ? cv : img_ld(img_st(sep_div(sep_out<ST_MY, ST_SYMY>(v, wr, p), divy)));
      }
      // The window moves on to the next step's rows: its ST_MY - 1 kept values shift, and the
      // ST_U new rows (below it walking down, above it walking up) are loaded.
      if (t + 1 < nsteps) {
        const i64t n0 = up ? s0 + (i64t)(k - 1) * ST_U - cy
                           : s0 + (i64t)(k + 1) * ST_U - cy + ST_MY - 1;
        if (!up) {
#pragma unroll
          for (int i = 0; i < ST_MY - 1; ++i) v[i] = v[i + ST_U];
        } else {
#pragma unroll
          for (int i = ST_MY - 2; i >= 0; --i) v[i + ST_U] = v[i];
        }
        if (ld && n0 >= 0 && n0 + ST_U <= h) {
          const T *p = xc + n0 * w;
          if (!up) {
#pragma unroll
            for (int i = 0; i < ST_U; ++i) v[ST_MY - 1 + i] = img_ld(__ldg(p + i * w));
          } else {
#pragma unroll
            for (int i = 0; i < ST_U; ++i) v[i] = img_ld(__ldg(p + i * w));
          }
        } else {
          if (!up) {
#pragma unroll
            for (int i = 0; i < ST_U; ++i)
              v[ST_MY - 1 + i] = ld ? st_at(xc, n0 + i, h, w, mode, cv) : cv;
          } else {
#pragma unroll
            for (int i = 0; i < ST_U; ++i) v[i] = ld ? st_at(xc, n0 + i, h, w, mode, cv) : cv;
          }
        }
      }
      __syncthreads();
      if (tid < ST_W) {
        const i64t ry = s0 + (i64t)k * ST_U;
#pragma unroll 2
        for (int q0 = 0; q0 < ST_N2; q0 += ST_W) {
          const int q = q0 + tid;
          const int rr = q / ST_G, g = q - rr * ST_G;
          const i64t oy = ry + rr, ox = c0 + g * ST_R;
          if (oy < s1 && ox < w) {
            C u[ST_NL];
#pragma unroll
            for (int j = 0; j < ST_NL; j += ST_V) sep_ld16(mb + rr * ST_MS + g * ST_R + j, u + j);
            C a[ST_R];
#pragma unroll
            for (int p = 0; p < ST_R; ++p) a[p] = sep_div(sep_out<ST_MX, ST_SYMX>(u, wc, p), divx);
            T *o = yb + oy * w + ox;
#pragma unroll
            for (int kk = 0; kk < ST_R; kk += 4)
              sep_store(o + kk, a[kk], a[kk + 1], a[kk + 2], a[kk + 3], w - ox - kk);
          }
        }
      }
      buf ^= 1;
    }
  }
}
