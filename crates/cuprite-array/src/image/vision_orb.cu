// ORB's per-keypoint steps (Rublee et al.; ArrayFire's `orb`) on one `h x w` image: the
// orientation of each keypoint by the intensity centroid of the disc of radius ORB_R round it
// (atan2(m01, m10) with m10 = sum dx I, m01 = sum dy I over dx^2 + dy^2 <= ORB_R^2), and its
// 256-bit rBRIEF descriptor: bit k (of word k / 32, bit k % 32) is I(p_k) < I(q_k) for the
// pair k of ORB_PAT (px, py, qx, qy) rotated by the keypoint's orientation and rounded to the
// nearest pixel (halves to even). Every read is clamped into the image (the callers' keypoints
// are whole pixels more than ORB_R from every border, where no clamp acts). One thread a
// keypoint, grid-stride.
// See `vision_orb.rs` for the parameters (one typed description each) and the CPU twins.
//
// Built after a typed header that defines `T` (float), `i64t`, ORB_R and the pattern
// ORB_PAT[1024] (every point within ORB_R of the centre).

__device__ __forceinline__ i64t orb_clamp(i64t v, i64t n) { return v < 0 ? 0 : (v >= n ? n - 1 : v); }

__device__ __forceinline__ void orb_angle(const T *__restrict__ img, const T *__restrict__ kx,
                                          const T *__restrict__ ky, T *__restrict__ ang, i64t n,
                                          i64t h, i64t w) {
  for (i64t i = (i64t)blockIdx.x * blockDim.x + threadIdx.x; i < n;
       i += (i64t)gridDim.x * blockDim.x) {
    const i64t x = orb_clamp((i64t)kx[i], w), y = orb_clamp((i64t)ky[i], h);
    T m01 = (T)0, m10 = (T)0;
    for (int dy = -ORB_R; dy <= ORB_R; ++dy)
      for (int dx = -ORB_R; dx <= ORB_R; ++dx) {
        if (dx * dx + dy * dy > ORB_R * ORB_R) continue;
        const T v = img[orb_clamp(y + dy, h) * w + orb_clamp(x + dx, w)];
        m10 += (T)dx * v;
        m01 += (T)dy * v;
      }
    ang[i] = atan2(m01, m10);
  }
}

__device__ __forceinline__ void orb_desc(const T *__restrict__ img, const T *__restrict__ kx,
                                         const T *__restrict__ ky, const T *__restrict__ ang,
                                         unsigned *__restrict__ desc, i64t n, i64t h, i64t w) {
  for (i64t i = (i64t)blockIdx.x * blockDim.x + threadIdx.x; i < n;
       i += (i64t)gridDim.x * blockDim.x) {
    const i64t x = orb_clamp((i64t)kx[i], w), y = orb_clamp((i64t)ky[i], h);
    const T c = cos(ang[i]), s = sin(ang[i]);
    for (int word = 0; word < 8; ++word) {
      unsigned bits = 0u;
      for (int b = 0; b < 32; ++b) {
        const int *p = ORB_PAT + 4 * (32 * word + b);
        const i64t ax = orb_clamp(x + (i64t)rint(c * (T)p[0] - s * (T)p[1]), w);
        const i64t ay = orb_clamp(y + (i64t)rint(s * (T)p[0] + c * (T)p[1]), h);
        const i64t bx = orb_clamp(x + (i64t)rint(c * (T)p[2] - s * (T)p[3]), w);
        const i64t by = orb_clamp(y + (i64t)rint(s * (T)p[2] + c * (T)p[3]), h);
        if (img[ay * w + ax] < img[by * w + bx]) bits |= 1u << b;
      }
      desc[i * 8 + word] = bits;
    }
  }
}
