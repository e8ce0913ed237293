// Repeated rows. The output is `n_out` elements: rows of `inner` elements, output row J a copy
// of input row J / reps (a repeat along an axis, every axis before it folded into the row
// number: row o·a·reps + j of the output is row o·a + j / reps of the input, and that is
// (o·a·reps + j) / reps). So output element t is input element
// (t / inner / reps) · inner + t % inner.
//
// Elements move as raw words (`WordT`, of the element's size). A thread writes LANES
// consecutive output elements with one store (16 bytes when LANES > 1): it divides once for
// its first element and steps the rest by carrying, so no element costs a division of its own.
// `IdxT` is the unsigned index type: 32-bit where every index and the grid's stride past the
// end fit.
//
// `rowvec` (set only where inner % LANES == 0 and the input is 16-byte aligned): a thread's
// LANES elements then lie in one row of the output and are contiguous in the input too, read
// with one load.

template <typename W, int N> struct __align__(sizeof(W) * N) RepVec { W v[N]; };

__device__ __forceinline__ void repeat_rows(const WordT *__restrict__ src, WordT *__restrict__ dst,
                                            i64t n_out, i64t inner, i64t reps, i64t rowvec) {
  typedef RepVec<WordT, LANES> V;
  const IdxT n = (IdxT)n_out, w = (IdxT)inner, r = (IdxT)reps;
  const IdxT groups = (n + (IdxT)(LANES - 1)) / (IdxT)LANES;
  const IdxT stride = (IdxT)gridDim.x * (IdxT)blockDim.x;
  for (IdxT g = (IdxT)blockIdx.x * (IdxT)blockDim.x + (IdxT)threadIdx.x; g < groups; g += stride) {
    const IdxT t0 = g * (IdxT)LANES;
    const IdxT jr = t0 / w;
    IdxT q = t0 - jr * w;
    IdxT row = jr / r;
    IdxT k = jr - row * r;
    if (rowvec) {
      *reinterpret_cast<V *>(dst + t0) = *reinterpret_cast<const V *>(src + row * w + q);
      continue;
    }
    const IdxT m = n - t0 < (IdxT)LANES ? n - t0 : (IdxT)LANES;
    V y;
#pragma unroll
    for (int l = 0; l < LANES; l++) {
      if ((IdxT)l < m) y.v[l] = src[row * w + q];
      if (++q == w) {
        q = 0;
        if (++k == r) {
          k = 0;
          ++row;
        }
      }
    }
    if (m == (IdxT)LANES) {
      *reinterpret_cast<V *>(dst + t0) = y;
    } else {
      for (IdxT l = 0; l < m; l++) dst[t0 + l] = y.v[l];
    }
  }
}
