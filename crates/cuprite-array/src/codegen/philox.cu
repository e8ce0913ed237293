// Philox4x32-10 (Salmon et al., "Parallel random numbers: as easy as 1, 2, 3"): the one C
// definition of cuprite's counter-based generator, included by every kernel that draws random
// numbers (the prelude's `rand_f32`/`rand_f64`, the gamma kernel, the sampler kernel). Its Rust
// twin is `random::philox4x32_10_full`; the test `random_gen::philox_c_matches_rust` checks that
// the two give the same words on a table of keys and counters.
//
// `out` receives the four words for the 128-bit counter (c0, c1, c2, c3), c0 the lowest, under
// the 64-bit key `key` (its low half the first key word). Self-contained: it names no type of
// the prelude, and the guard lets a kernel include it more than once.
#ifndef CUPRITE_PHILOX_CU
#define CUPRITE_PHILOX_CU
__device__ __forceinline__ void cu_philox4x32_10(unsigned long long key, unsigned c0, unsigned c1,
                                                 unsigned c2, unsigned c3, unsigned out[4]) {
  unsigned k0 = (unsigned)key, k1 = (unsigned)(key >> 32);
  #pragma unroll
  for (int r = 0; r < 10; r++) {
    if (r > 0) { k0 += 0x9E3779B9u; k1 += 0xBB67AE85u; }
    unsigned hi0 = __umulhi(0xD2511F53u, c0), lo0 = 0xD2511F53u * c0;
    unsigned hi1 = __umulhi(0xCD9E8D57u, c2), lo1 = 0xCD9E8D57u * c2;
    unsigned n0 = hi1 ^ c1 ^ k0, n2 = hi0 ^ c3 ^ k1;
    c0 = n0; c1 = lo1; c2 = n2; c3 = lo0;
  }
  out[0] = c0; out[1] = c1; out[2] = c2; out[3] = c3;
}
#endif
