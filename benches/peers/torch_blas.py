#!/usr/bin/env python3
"""PyTorch peer figures for the BLAS and solver benchmarks (crates/cuprite-cli/src/bench/blas.rs).

Runs on the same GPU, in the same call, the same work as `cuprite bench blas`:
- GEMM 8192^3 bf16, f16, TF32, f32; f64 4096^3; 4096x11008x4096 bf16; batched 32 x (1024x128 . 128x1024)
  bf16 (torch.matmul / torch.bmm, row-major contiguous operands), in TFLOP/s;
- gelu(x @ w + bias) bf16 8192^3 (tanh GELU, as cuBLASLt's epilogue): eager, F.linear + gelu, and the
  plain product alone, in ms;
- host time of a warm 256^3 f32 torch.matmul, call to enqueued, in us;
- torch.linalg: solve 4096^2 with 64 right-hand sides f64/f32, cholesky 4096^2 f64, qr 4096^2 f64,
  svd 1024^2 f64 (full_matrices=False), eigh 2048^2 f64, in ms.
Device work is timed with CUDA events, K back-to-back calls per event pair (about 10 ms), the median
of many pairs, on fresh random data. `--quick` runs the sizes of `cuprite bench --quick`.

The JSON holds the figures, `sizes` (each GEMM's problem written as cuprite's figure names write it,
`<key>` for `cuprite bench blas`, `<key>_array` for `Array::matmul`; the solvers' n) and the
identity `cuprite bench --peers` checks (device, driver, torch and CUDA versions, quick flag).

usage: python3 benches/peers/torch_blas.py [--quick] [--json out.json]
"""
import json, statistics, sys, time

import torch
import torch.nn.functional as F
import peer_timing
from peer_timing import identity


# The idle time before each GEMM figure's timed windows, as cuprite's bench waits (COOL_DOWN in
# crates/cuprite-cli/src/bench/kit.rs): the large products run at the power limit, where the
# clock depends on how hot the previous figure left the chip.
COOL_DOWN_S = 1.0


def device_time(fn, reps=20, warmup=3, target_s=10e-3, cool=False):
    """Seconds per call: K calls per event pair, K chosen for about target_s, median of reps."""
    for _ in range(warmup):
        fn()
    torch.cuda.synchronize()
    start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    start.record()
    fn()
    end.record()
    end.synchronize()
    one = max(start.elapsed_time(end) / 1e3, 1e-7)
    k = max(1, min(200, int(target_s / one + 0.999)))
    if cool:
        time.sleep(COOL_DOWN_S)
    return peer_timing.device_time(fn, k, warmup=0, reps=reps)


def rand(*shape, dtype):
    return torch.rand(*shape, device="cuda", dtype=torch.float32).mul_(2).sub_(1).to(dtype)


def main():
    quick = "--quick" in sys.argv
    big = 2048 if quick else 8192
    mid = 1024 if quick else 4096
    res = {}
    sizes = {}

    def gemm(key, m, n, k, dtype, tf32=False, batch=None):
        torch.backends.cuda.matmul.allow_tf32 = tf32
        if batch is None:
            a, b = rand(m, k, dtype=dtype), rand(k, n, dtype=dtype)
            t = device_time(lambda: torch.matmul(a, b), cool=True)
            res[key] = 2 * m * n * k / t / 1e12
            sizes[key] = f"{m}×{n}×{k}"
            sizes[key + "_array"] = f"1 × {m}×{k} · {k}×{n}"
        else:
            a, b = rand(batch, m, k, dtype=dtype), rand(batch, k, n, dtype=dtype)
            t = device_time(lambda: torch.bmm(a, b), cool=True)
            res[key] = 2 * m * n * k * batch / t / 1e12
            sizes[key] = f"{batch} × ({m}×{k} · {k}×{n})"
            sizes[key + "_array"] = f"{batch} × {m}×{k} · {k}×{n}"
        torch.backends.cuda.matmul.allow_tf32 = False

    gemm("gemm_bf16_8192_TFLOPs", big, big, big, torch.bfloat16)
    gemm("gemm_f16_8192_TFLOPs", big, big, big, torch.float16)
    gemm("gemm_tf32_8192_TFLOPs", big, big, big, torch.float32, tf32=True)
    gemm("gemm_f32_8192_TFLOPs", big, big, big, torch.float32)
    gemm("gemm_f64_4096_TFLOPs", mid, mid, mid, torch.float64)
    gemm("gemm_bf16_4096x11008x4096_TFLOPs", mid, 2752 if quick else 11008, mid, torch.bfloat16)
    gemm("gemm_bf16_batched_32x1024x1024x128_TFLOPs", 1024, 1024, 128, torch.bfloat16,
         batch=8 if quick else 32)

    x, w = rand(big, big, dtype=torch.bfloat16), rand(big, big, dtype=torch.bfloat16)
    bias = rand(big, dtype=torch.bfloat16)
    wt = w.t().contiguous()  # F.linear takes the weight as (out, in)
    res["bias_gelu_eager_ms"] = 1e3 * device_time(lambda: F.gelu(x @ w + bias, approximate="tanh"))
    res["bias_gelu_linear_ms"] = 1e3 * device_time(
        lambda: F.gelu(F.linear(x, wt, bias), approximate="tanh"))
    res["plain_gemm_bf16_8192_ms"] = 1e3 * device_time(lambda: x @ w)
    del x, w, wt

    s = rand(256, 256, dtype=torch.float32)
    for _ in range(1000):
        torch.matmul(s, s)
    torch.cuda.synchronize()
    samples = []
    for _ in range(30):
        torch.cuda.synchronize()
        t0 = time.perf_counter()
        for _ in range(200):
            torch.matmul(s, s)
        samples.append((time.perf_counter() - t0) / 200)
    torch.cuda.synchronize()
    res["matmul_256_f32_host_us"] = statistics.median(samples) * 1e6

    def linalg(key, fn, reps=7):
        res[key] = 1e3 * device_time(fn, reps=reps, warmup=1, target_s=0.0)

    for dtype, key in [(torch.float64, "solve_4096_f64_ms"), (torch.float32, "solve_4096_f32_ms")]:
        a, b = rand(mid, mid, dtype=dtype), rand(mid, 64, dtype=dtype)
        linalg(key, lambda: torch.linalg.solve(a, b))
        linalg(key.replace("solve", "lu_factor"), lambda: torch.linalg.lu_factor(a))
    m = rand(mid, mid, dtype=torch.float64)
    spd = m @ m.T + mid * torch.eye(mid, device="cuda", dtype=torch.float64)
    linalg("cholesky_4096_f64_ms", lambda: torch.linalg.cholesky(spd))
    linalg("qr_4096_f64_ms", lambda: torch.linalg.qr(m))
    linalg("geqrf_4096_f64_ms", lambda: torch.geqrf(m))
    sizes.update(gemm=big, solver=mid)
    n = 512 if quick else 1024
    sizes["svd"] = n
    a = rand(n, n, dtype=torch.float64)
    linalg("svd_1024_f64_ms", lambda: torch.linalg.svd(a, full_matrices=False))
    n = 512 if quick else 2048
    sizes["eigh"] = n
    h = rand(n, n, dtype=torch.float64)
    h = (h + h.T) / 2
    linalg("eigh_2048_f64_ms", lambda: torch.linalg.eigh(h))

    for k, v in res.items():
        print(f"{k:42} {v:.4g}")
    out = {
        **identity(quick),
        "peer": f"PyTorch {torch.__version__}",
        "method": "CUDA events around K back-to-back calls (about 10 ms; the solvers one call)",
        "figures": res,
        "sizes": sizes,
    }
    if "--json" in sys.argv:
        with open(sys.argv[sys.argv.index("--json") + 1], "w") as f:
            json.dump(out, f, indent=1)


if __name__ == "__main__":
    main()
