// ArrayFire's interpolation weights (its `linearInterpFunc` and `cubicInterpFunc` written as
// tap weights), shared by the resampler (`sample.cu`) and `approx1`/`approx2` (`approx.cu`);
// `af_weights.rs` holds the CPU twins, which compute the same arithmetic in the same order.
// `t` is the coordinate's fraction above its floor `g`, in the working type `W`.

// The two taps `g`, `g + 1`: `1 - t` and `t`; with `cosine`, `t` first smoothed to
// `(1 - cos(pi t)) / 2` (computed in double, as ArrayFire does).
template <typename W>
__device__ __forceinline__ void af_linear_weights(W t, bool cosine, W *w) {
  if (cosine) t = (W)((1.0 - cos((double)t * 3.141592653589793)) / 2.0);
  w[0] = (W)1 - t;
  w[1] = t;
}

// The four taps `g - 1 .. g + 2`: ArrayFire's cubic (`a = v3 - v2 - v0 + v1`, `b = v0 - v1 -
// a`, `c = v2 - v0`, `d = v1`) or, with `spline`, Catmull-Rom.
template <typename W>
__device__ __forceinline__ void af_cubic_weights(W t, bool spline, W *w) {
  const W t2 = t * t, t3 = t2 * t;
  if (!spline) {
    w[0] = -t3 + (W)2 * t2 - t;
    w[1] = t3 - (W)2 * t2 + (W)1;
    w[2] = -t3 + t2 + t;
    w[3] = t3 - t2;
  } else {
    w[0] = (W)-0.5 * t3 + t2 - (W)0.5 * t;
    w[1] = (W)1.5 * t3 - (W)2.5 * t2 + (W)1;
    w[2] = (W)-1.5 * t3 + (W)2 * t2 + (W)0.5 * t;
    w[3] = (W)0.5 * t3 - (W)0.5 * t2;
  }
}
