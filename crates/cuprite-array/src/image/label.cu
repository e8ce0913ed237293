// Connected components of a batch of binary volumes by union-find on the device (Playne and
// Hawick's scheme): `lab[p]` of a set pixel points to a pixel of its component with a smaller
// (or equal) index inside its image, a root points to itself, and a background pixel holds -1.
// Every union links the larger root to the smaller one, so that once all unions are done the
// root of a component is its first pixel in raster order: the CPU twin (`label.rs`) builds
// the same roots sequentially, and the relabelling to SciPy's numbering follows from them.
//
// Three passes, each one thread a pixel (grid-stride): `label_init` (every set pixel its own
// root), `label_merge` (a set pixel joins each set neighbour at an earlier offset of the
// structure: `nb` holds four words a neighbour, the offsets along the three axes and the
// linear one) and `label_compress` (every set pixel points at its root). A union retries
// with atomicMin until the link it made is the one that holds; roots only decrease, so the
// loop ends. `lab` is read and written by several threads at once (no `__restrict__`); reads
// go through `volatile` so that a thread sees the links others made.
//
// Built after a typed header that defines `i64t`.

__device__ __forceinline__ int label_find(volatile int *lab, int a) {
  int p = lab[a];
  while (p != a) {
    a = p;
    p = lab[a];
  }
  return a;
}

__device__ __forceinline__ void label_union(int *lab, int a, int b) {
  volatile int *v = lab;
  for (;;) {
    a = label_find(v, a);
    b = label_find(v, b);
    if (a == b) return;
    if (a < b) {
      const int t = a;
      a = b;
      b = t;
    }
    // a > b: link root a below b, unless another thread moved it first.
    const int old = atomicMin(lab + a, b);
    if (old == a) return;
    a = old;
  }
}

__device__ __forceinline__ void label_init(const unsigned char *__restrict__ m, int *lab,
                                           i64t batch, i64t per) {
  const i64t total = batch * per;
  for (i64t p = (i64t)blockIdx.x * blockDim.x + threadIdx.x; p < total;
       p += (i64t)gridDim.x * blockDim.x) {
    lab[p] = m[p] ? (int)(p % per) : -1;
  }
}

__device__ __forceinline__ void label_merge(const unsigned char *__restrict__ m, int *lab,
                                            const i64t *__restrict__ nb, i64t nnb, i64t batch,
                                            i64t n0, i64t n1, i64t n2) {
  const i64t per = n0 * n1 * n2;
  const i64t total = batch * per;
  for (i64t p = (i64t)blockIdx.x * blockDim.x + threadIdx.x; p < total;
       p += (i64t)gridDim.x * blockDim.x) {
    if (!m[p]) continue;
    const i64t b = p / per;
    const i64t r = p - b * per;
    const i64t i2 = r % n2;
    const i64t i1 = (r / n2) % n1;
    const i64t i0 = r / (n1 * n2);
    int *img = lab + b * per;
    for (i64t t = 0; t < nnb; ++t) {
      const i64t j0 = i0 + nb[4 * t], j1 = i1 + nb[4 * t + 1], j2 = i2 + nb[4 * t + 2];
      if (j0 < 0 || j0 >= n0 || j1 < 0 || j1 >= n1 || j2 < 0 || j2 >= n2) continue;
      const i64t q = r + nb[4 * t + 3];
      if (!m[b * per + q]) continue;
      label_union(img, (int)r, (int)q);
    }
  }
}

__device__ __forceinline__ void label_compress(int *lab, i64t batch, i64t per) {
  const i64t total = batch * per;
  for (i64t p = (i64t)blockIdx.x * blockDim.x + threadIdx.x; p < total;
       p += (i64t)gridDim.x * blockDim.x) {
    if (lab[p] < 0) continue;
    const i64t b = p / per;
    lab[p] = label_find(lab + b * per, (int)(p - b * per));
  }
}
