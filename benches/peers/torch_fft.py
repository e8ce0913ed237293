#!/usr/bin/env python3
"""PyTorch peer figures for the FFT benchmarks (crates/cuprite-cli/src/bench/fft.rs).

Runs on the same GPU, in the same call, the same work as `cuprite bench fft`:
- torch.fft.fft of 2^24 complex64;
- torch.fft.rfft of 1024 x 4096 float32 along the last axis (batched);
- torch.fft.fft2 of 4096 x 4096 complex64;
- host time of one small torch.fft.fft (256 complex64), call to enqueued.
Device work is timed with CUDA events around K back-to-back calls after warm-up (so cuFFT's
plan cache is warm, as cuprite's is); the median over the repeats, divided by K, is printed,
in ms. Each is timed as users call it (`*_ms`: a new output from the caching allocator) and
with a preallocated output (`*_out_ms`, `out=`); the comparison uses the faster of the two.

usage: python3 benches/peers/torch_fft.py [--quick] [--repeats N] [--json out.json]
"""
import json, statistics, sys, time

import torch
from peer_timing import identity, per_call_ms


def main():
    quick = "--quick" in sys.argv
    reps = int(sys.argv[sys.argv.index("--repeats") + 1]) if "--repeats" in sys.argv else (5 if quick else 20)
    g = torch.Generator(device="cuda").manual_seed(1)
    res = identity(quick)

    def both(key, k, plain, into):
        med, lo, hi = per_call_ms(plain, k, reps=reps)
        res[key + "_ms"], res[key + "_min_max_ms"] = med, [lo, hi]
        med, lo, hi = per_call_ms(into, k, reps=reps)
        res[key + "_out_ms"], res[key + "_out_min_max_ms"] = med, [lo, hi]
        res[key + "_best_ms"] = min(res[key + "_ms"], res[key + "_out_ms"])

    n = 1 << (16 if quick else 24)
    x = torch.randn(n, dtype=torch.complex64, device="cuda", generator=g)
    y = torch.empty_like(x)
    both("fft_c64_2p24", 5 if quick else 20, lambda: torch.fft.fft(x), lambda: torch.fft.fft(x, out=y))
    del x, y

    rows = 64 if quick else 1024
    xr = torch.rand(rows, 4096, dtype=torch.float32, device="cuda", generator=g) * 2 - 1
    yr = torch.empty(rows, 4096 // 2 + 1, dtype=torch.complex64, device="cuda")
    both("rfft_f32_1024x4096", 5 if quick else 100, lambda: torch.fft.rfft(xr, dim=-1),
         lambda: torch.fft.rfft(xr, dim=-1, out=yr))
    del xr, yr

    m = 256 if quick else 4096
    x2 = torch.randn(m, m, dtype=torch.complex64, device="cuda", generator=g)
    y2 = torch.empty_like(x2)
    both("fft2_c64_4096sq", 5 if quick else 20, lambda: torch.fft.fft2(x2), lambda: torch.fft.fft2(x2, out=y2))
    del x2, y2

    s = torch.randn(256, dtype=torch.complex64, device="cuda", generator=g)
    for _ in range(1000):
        torch.fft.fft(s)
    torch.cuda.synchronize()
    samples = []
    for _ in range(reps):
        torch.cuda.synchronize()
        t0 = time.perf_counter()
        for _ in range(2000):
            torch.fft.fft(s)
        samples.append((time.perf_counter() - t0) / 2000)
    torch.cuda.synchronize()
    res["small_fft_host_us"] = statistics.median(samples) * 1e6

    # For `cuprite bench --peers FILE`, which matches these figures to cuprite's by size and
    # computes and judges every ratio.
    res["peer"] = f"PyTorch {torch.__version__}"
    res["sizes"] = {"fft": n, "rfft_rows": rows, "fft2": m}

    for key, v in res.items():
        print(f"{key:30} {v:.4g}" if isinstance(v, float) else f"{key:30} {v}")
    if "--json" in sys.argv:
        with open(sys.argv[sys.argv.index("--json") + 1], "w") as f:
            json.dump(res, f, indent=1)


if __name__ == "__main__":
    main()
