// The index inside [0, n) whose value stands at index i of a line of n values, or -1 where the
// value is the constant; `mode` is `Boundary::code` (0 reflect, 1 constant, 2 nearest, 3
// mirror, 4 wrap, 5 grid-constant, 6 grid-wrap). The twin of `Boundary::map` in boundary.rs.
__device__ __forceinline__ long long img_map(long long i, long long n, int mode) {
  if (i >= 0 && i < n) return i;
  if (n <= 0) return -1;
  switch (mode) {
  case 0: {
    long long p = 2 * n, r = i % p;
    if (r < 0) r += p;
    return r < n ? r : p - 1 - r;
  }
  case 2:
    return i < 0 ? 0 : n - 1;
  case 3: {
    if (n == 1) return 0;
    long long p = 2 * n - 2, r = i % p;
    if (r < 0) r += p;
    return r < n ? r : p - r;
  }
  case 4:
  case 6: {
    long long r = i % n;
    if (r < 0) r += n;
    return r;
  }
  default:
    return -1;
  }
}
