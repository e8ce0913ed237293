// The loads and stores of grey morphology (`morphology.cu`, `morphology_box.cu`): `mm_load`
// reads a stored value `S` into the compute type `A`; `mm_store` stores it back (f16 rounds to
// nearest; integers saturate and NaN gives 0, as Rust's `as` does in the CPU twin). Built
// after the typed header that defines `S`, `A`, MM_HALF, MM_INT and MM_INT_MAX.

#if MM_HALF
__device__ __forceinline__ A mm_load(S v) {
  float f;
  asm("cvt.f32.f16 %0, %1;" : "=f"(f) : "h"(v));
  return f;
}
__device__ __forceinline__ S mm_store(A f) {
  unsigned short h;
  asm("cvt.rn.f16.f32 %0, %1;" : "=h"(h) : "f"(f));
  return h;
}
#else
__device__ __forceinline__ A mm_load(S v) { return (A)v; }
// Integers saturate (NaN gives 0) as Rust's `as` does in the CPU twin.
__device__ __forceinline__ S mm_store(A f) {
  if (MM_INT) {
    if (f != f) return (S)0;
    if (f <= (A)0) return (S)0;
    if (f >= (A)MM_INT_MAX) return (S)MM_INT_MAX;
  }
  return (S)f;
}
#endif
