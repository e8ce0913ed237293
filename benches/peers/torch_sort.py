#!/usr/bin/env python3
"""PyTorch peer figures for the sort benchmarks (crates/cuprite-cli/src/bench/sort.rs).

Runs on the same GPU, in the same call, the same work as `cuprite bench sort`:
- torch.sort of 2^26 float32 (values and indices), and of 2^26 int32;
- torch.sort of 4096 x 4096 float32 along the last axis;
- torch.topk(64) of 2^26 float32; torch.median of 2^26 float32 (whole tensor);
- torch.unique of 2^24 int64 in [0, n/2) (sorted; values only, and with inverse and counts).
Device work is timed with CUDA events around K back-to-back calls after warm-up, on fresh
random data; the median over the repeats, divided by K, is printed in ms.

usage: python3 benches/peers/torch_sort.py [--quick] [--repeats N] [--json out.json]
"""
import json, sys

import torch
from peer_timing import identity, per_call_ms


def main():
    quick = "--quick" in sys.argv
    reps = int(sys.argv[sys.argv.index("--repeats") + 1]) if "--repeats" in sys.argv else (5 if quick else 20)
    g = torch.Generator(device="cuda").manual_seed(torch.seed() & 0xFFFFFFFF)
    res = identity(quick)

    def run(key, k, fn):
        med, lo, hi = per_call_ms(fn, k, reps=reps)
        res[key + "_ms"], res[key + "_min_max_ms"] = med, [lo, hi]

    n = 1 << (18 if quick else 26)
    x = torch.rand(n, dtype=torch.float32, device="cuda", generator=g) * 2 - 1
    run("sort_f32_2p26_with_indices", 2 if quick else 5, lambda: torch.sort(x))
    run("sort_f32_2p26_stable", 2 if quick else 5, lambda: torch.sort(x, stable=True))
    run("topk_64_of_2p26_f32", 2 if quick else 10, lambda: torch.topk(x, 64))
    run("median_2p26_f32", 2 if quick else 10, lambda: torch.median(x))
    xi = torch.randint(-2**31, 2**31 - 1, (n,), dtype=torch.int32, device="cuda", generator=g)
    run("sort_i32_2p26_with_indices", 2 if quick else 5, lambda: torch.sort(xi))
    del x, xi

    rows = 256 if quick else 4096
    xr = torch.rand(rows, 4096, dtype=torch.float32, device="cuda", generator=g)
    run("sort_rows_4096x4096_f32", 2 if quick else 10, lambda: torch.sort(xr, dim=-1))
    del xr

    m = 1 << (18 if quick else 24)
    xu = torch.randint(0, m // 2, (m,), dtype=torch.int64, device="cuda", generator=g)
    run("unique_2p24_i64", 2 if quick else 10, lambda: torch.unique(xu, sorted=True))
    run("unique_2p24_i64_inverse_counts", 2 if quick else 10,
        lambda: torch.unique(xu, sorted=True, return_inverse=True, return_counts=True))

    res["peer"] = f"PyTorch {torch.__version__}"
    # Problem sizes, for matching with cuprite's figures (crates/cuprite-cli/src/bench/report.rs).
    res["sizes"] = {"sort": n, "rows": rows, "unique": m}
    out = json.dumps(res, indent=1)
    print(out)
    if "--json" in sys.argv:
        with open(sys.argv[sys.argv.index("--json") + 1], "w") as f:
            f.write(out)


if __name__ == "__main__":
    main()
