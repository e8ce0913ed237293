// Harness: an inclusive f32 scan as two interleaved phases over chunks that stay in L2.
// Tickets in order: R(0..C) (reduce tiles of chunk 0), then pairs R(C + j), S(j): R reduces a
// tile and publishes its sum; S re-reads a tile (from L2, C tiles after its R), adds the chunk's
// carry and the sums of the chunk's earlier tiles, scans and writes. The first S of chunk c also
// publishes carry[c + 1] = carry[c] + total(c). Status words: (epoch << 32) | float bits.
#include <cstdio>
#include <cstdlib>
#include <cstdint>
#include <vector>
#include <algorithm>
#include <cmath>
#include <cstring>
#include <cuda_runtime.h>

#define CK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { printf("CUDA %s at %d: %s\n", #x, __LINE__, cudaGetErrorString(e_)); exit(1); } } while (0)

constexpr int THREADS = 256;
constexpr int WARPS = THREADS / 32;

__device__ __forceinline__ uint64_t policy_last() {
  uint64_t p; asm volatile("createpolicy.fractional.L2::evict_last.b64 %0, 1.0;" : "=l"(p)); return p;
}
__device__ __forceinline__ uint64_t policy_first() {
  uint64_t p; asm volatile("createpolicy.fractional.L2::evict_first.b64 %0, 1.0;" : "=l"(p)); return p;
}
template <int H>
__device__ __forceinline__ float4 ld4(const float4* p, uint64_t pol) {
  float4 v;
  if (H == 0) {
    v = *p;
  } else {
    asm volatile("ld.global.L2::cache_hint.v4.f32 {%0,%1,%2,%3}, [%4], %5;"
                 : "=f"(v.x), "=f"(v.y), "=f"(v.z), "=f"(v.w) : "l"(p), "l"(pol));
  }
  return v;
}
template <int H>
__device__ __forceinline__ void st4(float4* p, float4 v, uint64_t pol) {
  if (H == 0) {
    *p = v;
  } else if (H == 1) {
    __stcs(p, v);
  } else {
    asm volatile("st.global.L2::cache_hint.v4.f32 [%0], {%1,%2,%3,%4}, %5;"
                 :: "l"(p), "f"(v.x), "f"(v.y), "f"(v.z), "f"(v.w), "l"(pol) : "memory");
  }
}
__device__ __forceinline__ uint64_t ld_status(const uint64_t* p) {
  uint64_t v; asm volatile("ld.relaxed.gpu.global.u64 %0, [%1];" : "=l"(v) : "l"(p) : "memory"); return v;
}
__device__ __forceinline__ void st_status(uint64_t* p, uint64_t v) {
  asm volatile("st.relaxed.gpu.global.u64 [%0], %1;" :: "l"(p), "l"(v) : "memory");
}
__device__ __forceinline__ float wait_status(const uint64_t* p, uint32_t ep) {
  uint64_t v = ld_status(p);
  while ((uint32_t)(v >> 32) != ep) v = ld_status(p);
  return __uint_as_float((uint32_t)v);
}
__device__ __forceinline__ uint64_t pack(float s, uint32_t ep) {
  return ((uint64_t)ep << 32) | __float_as_uint(s);
}
__device__ __forceinline__ float block_sum(float v, float* red) {
  for (int o = 16; o > 0; o >>= 1) v += __shfl_xor_sync(0xffffffffu, v, o);
  int w = threadIdx.x / 32, l = threadIdx.x % 32;
  if (l == 0) red[w] = v;
  __syncthreads();
  float t = 0.f;
#pragma unroll
  for (int i = 0; i < WARPS; ++i) t += red[i];
  __syncthreads();
  return t;
}

// ROWS float4 a thread: a tile is ROWS * 1024 floats, row k at k * 1024 + 4 tid.
// HR, HS: load hints of R and S (0 none, 1 evict_last, 2 evict_first); HW: store hint (0 none,
// 1 __stcs, 2 evict_first policy).
template <int ROWS, int HR, int HS, int HW>
__global__ void __launch_bounds__(THREADS) l2scan(const float4* __restrict__ in, float4* __restrict__ out,
    int ntiles, int C, uint64_t* st, uint64_t* carry, unsigned long long* ctr, unsigned long long base,
    uint32_t ep) {
  __shared__ unsigned long long s_t;
  __shared__ float red[WARPS];
  __shared__ float rs[ROWS][WARPS];
  const int tid = threadIdx.x, w = tid / 32, l = tid % 32;
  const uint64_t pl = policy_last(), pf = policy_first();
  const uint64_t pr = HR == 1 ? pl : pf, ps = HS == 1 ? pl : pf, pw = pf;
  const long long C0 = C < ntiles ? C : ntiles;
  const long long rem = ntiles - C0;
  const long long total = 2LL * ntiles;
  for (;;) {
    if (tid == 0) s_t = atomicAdd(ctr, 1ULL) - base;
    __syncthreads();
    const long long t = (long long)s_t;
    __syncthreads();
    if (t >= total) break;
    bool is_r;
    long long tile;
    if (t < C0) { is_r = true; tile = t; }
    else {
      long long u = t - C0;
      if (u < 2 * rem) { is_r = (u & 1) == 0; tile = is_r ? C0 + u / 2 : u / 2; }
      else { is_r = false; tile = rem + (u - 2 * rem); }
    }
    const float4* src = in + tile * (ROWS * 256);
    if (is_r) {
      float s = 0.f;
      float4 v[ROWS];
#pragma unroll
      for (int k = 0; k < ROWS; ++k) v[k] = ld4<HR>(src + k * 256 + tid, pr);
#pragma unroll
      for (int k = 0; k < ROWS; ++k) s += (v[k].x + v[k].y) + (v[k].z + v[k].w);
      s = block_sum(s, red);
      if (tid == 0) st_status(st + tile, pack(s, ep));
    } else {
      float4 v[ROWS];
#pragma unroll
      for (int k = 0; k < ROWS; ++k) v[k] = ld4<HS>(src + k * 256 + tid, ps);
      const long long c = tile / C, i = tile % C, b = c * C;
      // The chunk's carry, and the sums of its tiles before this one.
      float pre = 0.f;
      for (long long k = tid; k < i; k += THREADS) pre += wait_status(st + b + k, ep);
      float cin = 0.f;
      if (c > 0 && tid == 0) cin = wait_status(carry + c, ep);
      if (i == 0) {
        // This tile publishes carry[c + 1]: the whole chunk's sum.
        long long end = b + C < ntiles ? b + C : ntiles;
        float all = 0.f;
        for (long long k = b + tid; k < end; k += THREADS) all += wait_status(st + k, ep);
        all = block_sum(all, red);
        if (tid == 0) {
          float cc = cin + all;
          if (c + 1 < (ntiles + C - 1) / C) st_status(carry + c + 1, pack(cc, ep));
        }
      }
      float off = block_sum(pre + cin, red);
      // Local inclusive scans of each thread's 4 values, row by row; warp scans of the sums.
      float ts[ROWS];
#pragma unroll
      for (int k = 0; k < ROWS; ++k) {
        v[k].y += v[k].x; v[k].z += v[k].y; v[k].w += v[k].z;
        float x = v[k].w;
#pragma unroll
        for (int o = 1; o < 32; o <<= 1) { float y = __shfl_up_sync(0xffffffffu, x, o); if (l >= o) x += y; }
        ts[k] = x - v[k].w;  // exclusive within the warp
        if (l == 31) rs[k][w] = x;
      }
      __syncthreads();
#pragma unroll
      for (int k = 0; k < ROWS; ++k) {
        float before = 0.f, row = 0.f;
#pragma unroll
        for (int q = 0; q < WARPS; ++q) { float r = rs[k][q]; before += q < w ? r : 0.f; row += r; }
        float a = off + before + ts[k];
        float4 o = make_float4(v[k].x + a, v[k].y + a, v[k].z + a, v[k].w + a);
        st4<HW>(out + tile * (ROWS * 256) + k * 256 + tid, o, pw);
        off += row;
      }
    }
  }
}

template <int ROWS, int HR, int HS, int HW>
struct Runner {
  static void run(const float* in, float* out, long long n, int C, int grid, uint64_t* st,
                  uint64_t* carry, unsigned long long* ctr, unsigned long long& base, uint32_t& ep,
                  cudaStream_t s) {
    int ntiles = (int)(n / (ROWS * 1024));
    l2scan<ROWS, HR, HS, HW><<<grid, THREADS, 0, s>>>((const float4*)in, (float4*)out, ntiles, C,
                                                     st, carry, ctr, base, ep);
    // Every block adds one past the last ticket before leaving.
    base += 2ULL * ntiles + grid;
    ep += 1;
  }
  static int occ() {
    int b = 0;
    CK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&b, l2scan<ROWS, HR, HS, HW>, THREADS, 0));
    return b;
  }
};

typedef void (*RunFn)(const float*, float*, long long, int, int, uint64_t*, uint64_t*,
                      unsigned long long*, unsigned long long&, uint32_t&, cudaStream_t);
struct Var { const char* name; int rows; RunFn run; int (*occ)(); };

static float median(std::vector<float> v) { std::sort(v.begin(), v.end()); return v[v.size() / 2]; }

int main(int argc, char** argv) {
  const long long n = 1LL << 26;
  int sms = 0; CK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
  cudaDeviceProp pr; CK(cudaGetDeviceProperties(&pr, 0));
  printf("device %s, %d SMs, L2 %d MiB\n", pr.name, sms, pr.l2CacheSize >> 20);
  const int SETS = 3;  // input sets rotated
  float *in[SETS], *out;
  for (int i = 0; i < SETS; ++i) CK(cudaMalloc(&in[i], n * 4));
  CK(cudaMalloc(&out, n * 4));
  uint64_t *st, *carry; unsigned long long* ctr;
  const long long maxt = n / 1024 + 16;
  CK(cudaMalloc(&st, maxt * 8)); CK(cudaMemset(st, 0, maxt * 8));
  CK(cudaMalloc(&carry, maxt * 8)); CK(cudaMemset(carry, 0, maxt * 8));
  CK(cudaMalloc(&ctr, 8)); CK(cudaMemset(ctr, 0, 8));
  unsigned long long base = 0; uint32_t ep = 1;
  std::vector<float> h(n);
  srand(7);
  for (int i = 0; i < SETS; ++i) {
    for (long long k = 0; k < n; ++k) h[k] = (float)(rand() % 1000) / 1000.0f;
    CK(cudaMemcpy(in[i], h.data(), n * 4, cudaMemcpyHostToDevice));
  }
  // Reference for set 0 (last written h is set SETS-1: regenerate set 0's reference from device).
  std::vector<float> h0(n), ho(n);
  CK(cudaMemcpy(h0.data(), in[0], n * 4, cudaMemcpyDeviceToHost));
  std::vector<double> ref(n);
  { double a = 0; for (long long k = 0; k < n; ++k) { a += h0[k]; ref[k] = a; } }
  cudaStream_t s; CK(cudaStreamCreate(&s));
  cudaEvent_t e0, e1; CK(cudaEventCreate(&e0)); CK(cudaEventCreate(&e1));
  const int K = 10, REP = 21;
  // Copy references: the same bytes (n floats) and 1 GiB.
  float* big; CK(cudaMalloc(&big, 2LL << 30));
  auto time_copy = [&](size_t bytes, void* d, const void* sr) {
    for (int i = 0; i < 3; ++i) CK(cudaMemcpyAsync(d, sr, bytes, cudaMemcpyDeviceToDevice, s));
    std::vector<float> ts;
    for (int r = 0; r < REP; ++r) {
      CK(cudaEventRecord(e0, s));
      for (int k = 0; k < K; ++k) CK(cudaMemcpyAsync(d, sr, bytes, cudaMemcpyDeviceToDevice, s));
      CK(cudaEventRecord(e1, s)); CK(cudaEventSynchronize(e1));
      float ms; CK(cudaEventElapsedTime(&ms, e0, e1)); ts.push_back(ms / K);
    }
    float m = median(ts);
    return 2.0 * bytes / (m * 1e-3) / 1e12;
  };
  double cp_same = time_copy(n * 4, out, in[0]);
  double cp_big = time_copy(1LL << 30, (char*)big + (1LL << 30), big);
  printf("copy: %lld MiB %.3f TB/s, 1 GiB %.3f TB/s\n", (n * 4) >> 20, cp_same, cp_big);
  CK(cudaFree(big));

  Var vars[] = {
    {"r4 none/none/none", 4, Runner<4, 0, 0, 0>::run, Runner<4, 0, 0, 0>::occ},
    {"r4 last/first/none", 4, Runner<4, 1, 2, 0>::run, Runner<4, 1, 2, 0>::occ},
    {"r4 last/first/stcs", 4, Runner<4, 1, 2, 1>::run, Runner<4, 1, 2, 1>::occ},
    {"r4 last/first/first", 4, Runner<4, 1, 2, 2>::run, Runner<4, 1, 2, 2>::occ},
    {"r8 none/none/none", 8, Runner<8, 0, 0, 0>::run, Runner<8, 0, 0, 0>::occ},
    {"r8 last/first/stcs", 8, Runner<8, 1, 2, 1>::run, Runner<8, 1, 2, 1>::occ},
    {"r16 last/first/stcs", 16, Runner<16, 1, 2, 1>::run, Runner<16, 1, 2, 1>::occ},
  };
  const char* only = argc > 1 ? argv[1] : nullptr;
  const double chunk_mib[] = {2, 4, 8, 12, 16, 24};
  printf("%-22s %6s %5s %5s %9s %7s %7s %9s\n", "variant", "chunkM", "C", "grid", "ms", "ofsame", "ofGiB", "relerr");
  for (auto& vr : vars) {
    if (only && !strstr(vr.name, only)) continue;
    int occ = vr.occ();
    for (double cm : chunk_mib) {
      int tile_bytes = vr.rows * 1024 * 4;
      int C = (int)(cm * 1048576 / tile_bytes);
      for (int bps : {occ, occ > 2 ? occ / 2 : occ}) {
        int grid = sms * bps;
        CK(cudaMemsetAsync(out, 0xff, n * 4, s));
        vr.run(in[0], out, n, C, grid, st, carry, ctr, base, ep, s);
        CK(cudaGetLastError());
        CK(cudaStreamSynchronize(s));
        CK(cudaMemcpy(ho.data(), out, n * 4, cudaMemcpyDeviceToHost));
        double err = 0; long long bad = -1;
        for (long long k = 0; k < n; ++k) {
          double d = fabs(ho[k] - ref[k]) / std::max(1.0, fabs(ref[k]));
          if (!(d <= 1e-4)) { if (bad < 0) bad = k; }
          if (d > err || d != d) err = d;
        }
        if (bad >= 0) { printf("%s C=%d grid=%d WRONG at %lld: %f vs %f\n", vr.name, C, grid, bad, ho[bad], ref[bad]); continue; }
        for (int i = 0; i < 3; ++i) vr.run(in[i % SETS], out, n, C, grid, st, carry, ctr, base, ep, s);
        std::vector<float> ts;
        for (int r = 0; r < REP; ++r) {
          CK(cudaEventRecord(e0, s));
          for (int k = 0; k < K; ++k) vr.run(in[(r + k) % SETS], out, n, C, grid, st, carry, ctr, base, ep, s);
          CK(cudaEventRecord(e1, s)); CK(cudaEventSynchronize(e1));
          float ms; CK(cudaEventElapsedTime(&ms, e0, e1)); ts.push_back(ms / K);
        }
        CK(cudaGetLastError());
        float m = median(ts);
        double tb = 8.0 * n / (m * 1e-3) / 1e12;
        printf("%-22s %6.0f %5d %5d %9.4f %7.3f %7.3f %9.2e\n", vr.name, cm, C, grid, m, tb / cp_same, tb / cp_big, err);
        fflush(stdout);
        if (bps == occ && occ <= 2) break;
      }
    }
  }
  return 0;
}
