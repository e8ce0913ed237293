// The resampler's form for a diagonal affine map (zoom, shift: each coordinate follows only
// its own output index, `c[a] = m[a][a] o[a] + m[a][3]`) and SciPy's splines of order 0 or 1.
// Built after sample.cu (its typed header, `geo_axis`, `geo_sum`, `geo_ld`, `geo_st`), with
// GEO_ROWS (output rows a thread takes) added to the header; GEO_KIND is 0 and GEO_ORDER 0 or
// 1. The taps and weights are those of `geo_sample`'s general form (the same device functions,
// the coordinate rounded as there) and the sums run over the taps in `geo_sum`'s order with its
// products, so both forms give the same values.
//
// The output is seen as `planes x rows x last`: rank 1 `1 x batch x l0`, rank 2 `batch x l0 x
// l1`, rank 3 `(batch l0) x l1 x l2`. A block covers GEO_THREADS * GEO_PER outputs along the
// last axis (thread t the columns `k0 + t + j GEO_THREADS`, j < GEO_PER, so that each round of
// stores is coalesced) in GEO_ROWS consecutive rows of one plane; blocks stride over rows by
// gridDim.y and over planes by gridDim.z. A thread takes its columns' taps once (reused for
// every row), each row's taps once (reused for its GEO_PER columns) and, in rank 3, each
// plane's taps once: no division per output, and the coordinate arithmetic is spread over
// many outputs. Rows whose taps all lie inside the image sum without the constant's tests.

__device__ __forceinline__ void geo_diag(const TI *__restrict__ x, TO *__restrict__ y, i64t batch,
                                         i64t n0, i64t n1, i64t n2, i64t l0, i64t l1, i64t l2,
                                         i64t mode, i64t npad, double cval, double s0, double s1,
                                         double s2, double t0, double t1, double t2) {
  const IX n[3] = {(IX)n0, (IX)n1, (IX)n2};
  const IX l[3] = {(IX)l0, (IX)l1, (IX)l2};
  const double s[3] = {s0, s1, s2};
  const double t[3] = {t0, t1, t2};
  const int md = (int)mode;
  const IX pad = (IX)npad;
  const IX last = l[GEO_RANK - 1];
  IX npix = 1;
#pragma unroll
  for (int a = 0; a < GEO_RANK; ++a) npix *= n[a];
#if GEO_RANK == 1
  const IX rows = (IX)batch, planes = 1;
#elif GEO_RANK == 2
  const IX rows = l[0], planes = (IX)batch;
#else
  const IX rows = l[1], planes = (IX)batch * l[0];
#endif
  const IX k0 = (IX)blockIdx.x * (GEO_THREADS * GEO_PER) + (IX)threadIdx.x;
  if (k0 >= last) return;

  // The last axis's taps of this thread's columns; `edge` where one of them takes the
  // constant or lies past the line's end.
  IX cidx[GEO_PER][GEO_TAPS];
  W cw[GEO_PER][GEO_TAPS];
  bool cin[GEO_PER];
  bool edge = false;
#pragma unroll
  for (int j = 0; j < GEO_PER; ++j) {
    const IX k = k0 + j * GEO_THREADS;
    const double c = __dadd_rn(t[GEO_RANK - 1], __dmul_rn(s[GEO_RANK - 1], (double)k));
    cin[j] = k < last && geo_axis(c, n[GEO_RANK - 1], md, pad, cidx[j], cw[j]);
    if (cin[j]) {
#pragma unroll
      for (int q = 0; q < GEO_TAPS; ++q) edge = edge || cidx[j][q] < 0;
    } else {
      edge = true;
    }
  }

  IX idx[3][GEO_TAPS];
  W w[3][GEO_TAPS];
  for (IX z = (IX)blockIdx.z; z < planes; z += (IX)gridDim.z) {
#if GEO_RANK == 3
    // The plane's leading output index and image; its taps serve the plane's rows.
    const IX b = z / l[0], o0 = z - b * l[0];
    const double c0 = __dadd_rn(t[0], __dmul_rn(s[0], (double)o0));
    const bool pin = geo_axis(c0, n[0], md, pad, idx[0], w[0]);
    bool pedge = !pin;
    if (pin) {
#pragma unroll
      for (int q = 0; q < GEO_TAPS; ++q) pedge = pedge || idx[0][q] < 0;
    }
#elif GEO_RANK == 2
    const IX b = z;
    const bool pin = true, pedge = false;
#else
    const bool pin = true, pedge = false;
#endif
    for (IX r0 = (IX)blockIdx.y * GEO_ROWS; r0 < rows; r0 += (IX)gridDim.y * GEO_ROWS) {
#pragma unroll 1
      for (int rr = 0; rr < GEO_ROWS; ++rr) {
        const IX row = r0 + rr;
        if (row >= rows) break;
#if GEO_RANK == 1
        const IX b = row;
        const bool rin = true, redge = false;
#else
        // The row's taps (the axis before the last), shared by this thread's columns.
        const double cr = __dadd_rn(t[GEO_RANK - 2], __dmul_rn(s[GEO_RANK - 2], (double)row));
        const bool rin = geo_axis(cr, n[GEO_RANK - 2], md, pad, idx[GEO_RANK - 2], w[GEO_RANK - 2]);
        bool redge = !rin;
        if (rin) {
#pragma unroll
          for (int q = 0; q < GEO_TAPS; ++q) redge = redge || idx[GEO_RANK - 2][q] < 0;
        }
#endif
        const TI *xb = x + (long long)b * npix;
        TO *yl = y + ((long long)z * rows + row) * last;
        if (!(edge || redge || pedge)) {
          // Every tap of every column lies inside the image: `geo_sum` without the
          // constant's tests, the leading axes' taps folded into line pointers `lp` (row-major
          // over those taps, as `geo_sum` runs) with their weight products `lw`.
#if GEO_RANK == 1
          const TI *lp[1] = {xb};
#elif GEO_RANK == 2
          const TI *lp[GEO_TAPS];
          W lw[GEO_TAPS];
#pragma unroll
          for (int p = 0; p < GEO_TAPS; ++p) {
            lp[p] = xb + (long long)idx[0][p] * n[1];
            lw[p] = w[0][p];
          }
#else
          const TI *lp[GEO_TAPS * GEO_TAPS];
          W lw[GEO_TAPS * GEO_TAPS];
#pragma unroll
          for (int p0 = 0; p0 < GEO_TAPS; ++p0) {
#pragma unroll
            for (int p1 = 0; p1 < GEO_TAPS; ++p1) {
              lp[p0 * GEO_TAPS + p1] = xb + ((long long)idx[0][p0] * n[1] + idx[1][p1]) * n[2];
              lw[p0 * GEO_TAPS + p1] = w[0][p0] * w[1][p1];
            }
          }
#endif
          constexpr int LEAD = GEO_RANK == 1 ? 1 : (GEO_RANK == 2 ? GEO_TAPS : GEO_TAPS * GEO_TAPS);
#pragma unroll
          for (int j = 0; j < GEO_PER; ++j) {
            W acc = (W)0;
#pragma unroll
            for (int p = 0; p < LEAD; ++p) {
#pragma unroll
              for (int q = 0; q < GEO_TAPS; ++q) {
                const W v = geo_ld(lp[p][cidx[j][q]]);
#if GEO_ORDER == 0
                acc += v;
#elif GEO_RANK == 1
                acc += v * cw[j][q];
#else
                acc += v * (lw[p] * cw[j][q]);
#endif
              }
            }
            yl[k0 + j * GEO_THREADS] = geo_st(acc);
          }
        } else {
#pragma unroll
          for (int j = 0; j < GEO_PER; ++j) {
            const IX k = k0 + j * GEO_THREADS;
            if (k >= last) break;
            W v = (W)cval;
            if (pin && rin && cin[j]) {
#pragma unroll
              for (int q = 0; q < GEO_TAPS; ++q) {
                idx[GEO_RANK - 1][q] = cidx[j][q];
                w[GEO_RANK - 1][q] = cw[j][q];
              }
              v = geo_sum(xb, n, idx, w, cval);
            }
            yl[k] = geo_st(v);
          }
        }
      }
    }
  }
}
