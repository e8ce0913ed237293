// Harness: convolve2 7x7 `same`, 4096^2 f32, the library's tiled kernel against variants,
// timed against the device copy of the same bytes. The kernel text comes from TILED_FILE
// (default "tiled_h.cu": a copy of crates/cuprite-array/src/signal/tiled.cu); -DCTAPS declares
// the constant tap array `ctaps` (7 rows padded to 8) that an edited copy may read, and
// -DCOPYTAPS copies it device to device before each launch. Prints the median time, the ratio
// to the copy, the relative error of eight rows against an f64 reference and a hash of the
// output bits (equal hashes: equal outputs). Build:
//   nvcc -O3 -std=c++17 -arch=sm_90 --fmad=false -DVARIANT='"A"' -o conv7 conv7.cu
#include <cstdio>
#include <cstdlib>
#include <vector>
#include <algorithm>
#include <cstring>
#include <cmath>
#include <cuda_runtime.h>
#define CK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { printf("CUDA %s at %d: %s\n", #x, __LINE__, cudaGetErrorString(e_)); exit(1); } } while (0)
typedef long long i64t;
typedef float T;
typedef float4 V;
constexpr int CT_VL = 4, CT_M1 = 7, CT_M2 = 7, CT_D = 1, CT_VEC = 1;
#ifndef BY
#define BY 8
#endif
#ifndef RY
#define RY 8
#endif
#ifndef GG
#define GG 1
#endif
#ifndef PERSIST
#define PERSIST 1
#endif
#ifndef MINB
#define MINB 2
#endif
constexpr int CT_BY = BY, CT_RY = RY, CT_G = GG, CT_PERSIST = PERSIST;
#ifdef CTAPS
__constant__ __align__(16) T ctaps[CT_M1 * 8];
#endif
#ifndef TILED_FILE
#define TILED_FILE "tiled_h.cu"
#endif
#include TILED_FILE
extern "C" __global__ void __launch_bounds__(32 * BY, MINB)
k(const T *__restrict__ x, const T *__restrict__ h, T *__restrict__ y, i64t batch, i64t n0, i64t n1,
  i64t n2, i64t m0, i64t m1, i64t m2, i64t s0, i64t s1, i64t s2, i64t l0, i64t l1, i64t l2) {
  conv_tiled(x, h, y, batch, n0, n1, n2, m0, m1, m2, s0, s1, s2, l0, l1, l2);
}
__global__ void cp(const float4 *__restrict__ a, float4 *__restrict__ b, size_t n) {
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x) b[i] = a[i];
}
static float median(std::vector<float> v) { std::sort(v.begin(), v.end()); return v[v.size() / 2]; }
int main() {
  const int N = 4096, K = 20, S = 15, SETS = 3;
  size_t n = (size_t)N * N;
  std::vector<float> hx(n * SETS), hh(49);
  unsigned s = 12345;
  for (auto &v : hx) { s = s * 1664525u + 1013904223u; v = (float)((s >> 8) & 0xffff) / 65536.0f - 0.5f; }
  for (auto &v : hh) { s = s * 1664525u + 1013904223u; v = (float)((s >> 8) & 0xffff) / 65536.0f - 0.5f; }
  float *x, *h, *y, *hp = nullptr;
  CK(cudaMalloc(&x, n * SETS * 4)); CK(cudaMalloc(&h, 49 * 4)); CK(cudaMalloc(&y, n * 4 * SETS));
  CK(cudaMemcpy(x, hx.data(), n * SETS * 4, cudaMemcpyHostToDevice));
  CK(cudaMemcpy(h, hh.data(), 49 * 4, cudaMemcpyHostToDevice));
#ifdef CTAPS
  { float padded[CT_M1 * 8] = {0}; for (int a = 0; a < 7; ++a) for (int b = 0; b < 7; ++b) padded[a * 8 + b] = hh[a * 7 + b];
    CK(cudaMemcpyToSymbol(ctaps, padded, sizeof padded));
    CK(cudaMalloc(&hp, sizeof padded)); CK(cudaMemcpy(hp, padded, sizeof padded, cudaMemcpyHostToDevice)); }
#endif
  int dev; CK(cudaGetDevice(&dev)); cudaDeviceProp p; CK(cudaGetDeviceProperties(&p, dev));
  int per; CK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per, k, 32 * BY, 0));
  cudaFuncAttributes fa; CK(cudaFuncGetAttributes(&fa, k));
  const int TY = BY * RY, TX = 32 * 4 * GG;
  long tiles = (long)((N + TY - 1) / TY) * ((N + TX - 1) / TX);
  long grid = PERSIST ? std::min<long>(tiles, (long)per * p.multiProcessorCount) : tiles;
  cudaEvent_t e0, e1; CK(cudaEventCreate(&e0)); CK(cudaEventCreate(&e1));
  auto conv = [&](int set) {
#ifdef COPYTAPS
    CK(cudaMemcpyToSymbolAsync(ctaps, hp, CT_M1 * 8 * sizeof(T), 0, cudaMemcpyDeviceToDevice));
#endif
    k<<<grid, 32 * BY>>>(x + set * n, h, y + set * n, 1, 1, N, N, 1, 7, 7, 0, 3, 3, 1, N, N); };
  auto copy = [&](int set) { cp<<<p.multiProcessorCount * 8, 256>>>((const float4 *)(x + set * n), (float4 *)(y + set * n), n / 4); };
  std::vector<float> tc, tk;
  for (int w = 0; w < 3; ++w) { conv(w % SETS); copy(w % SETS); }
  CK(cudaDeviceSynchronize());
  for (int r = 0; r < S; ++r) {
    for (int which = 0; which < 2; ++which) {
      CK(cudaEventRecord(e0));
      for (int i = 0; i < K; ++i) { if (which) conv((r + i) % SETS); else copy((r + i) % SETS); }
      CK(cudaEventRecord(e1)); CK(cudaEventSynchronize(e1));
      float ms; CK(cudaEventElapsedTime(&ms, e0, e1));
      (which ? tk : tc).push_back(ms * 1000 / K);
    }
  }
  conv(0); CK(cudaDeviceSynchronize());
  std::vector<float> hy(n); CK(cudaMemcpy(hy.data(), y, n * 4, cudaMemcpyDeviceToHost));
  // f64 reference on a sample of rows (borders included).
  double maxrel = 0; unsigned long long sum = 0;
  for (int u : {0, 1, 2, 3, 100, 2047, 4093, 4095}) for (int v = 0; v < N; ++v) {
    double acc = 0, mag = 0;
    for (int j1 = 0; j1 < 7; ++j1) for (int j2 = 0; j2 < 7; ++j2) {
      int r = u + 3 - j1, c = v + 3 - j2;
      if (r < 0 || r >= N || c < 0 || c >= N) continue;
      acc += (double)hh[j1 * 7 + j2] * hx[(size_t)r * N + c]; mag += fabs((double)hh[j1 * 7 + j2] * hx[(size_t)r * N + c]);
    }
    double e = fabs(acc - hy[(size_t)u * N + v]) / (mag + 1e-30); if (e > maxrel) maxrel = e;
  }
  for (size_t i = 0; i < n; ++i) { unsigned b; memcpy(&b, &hy[i], 4); sum = sum * 1000003ull + b; }
  float mc = median(tc), mk = median(tk);
  printf("%-10s regs %3d spill %4zu blocks/SM %d grid %ld | conv %.2f us copy %.2f us of-copy %.3f | relerr %.2e hash %016llx\n",
         VARIANT, fa.numRegs, fa.localSizeBytes, per, grid, mk, mc, mc / mk, maxrel, sum);
  return 0;
}
