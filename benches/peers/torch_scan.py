#!/usr/bin/env python3
"""PyTorch peer figures for the scan benchmarks (crates/cuprite-cli/src/bench/scan.rs).

Runs on the same GPU, in the same call, the same work as `cuprite bench scan`:
- torch.cumsum of 2^26 float32, and of the expression a*b + c (eager: the product is
  materialised first);
- torch.nonzero of a 2^26 bool mask, half set;
- torch.masked_select of 2^26 float32 by that mask;
- torch.searchsorted of 2^24 float32 queries in 2^20 sorted float32.
Device work is timed with CUDA events around K back-to-back calls after warm-up; the median over
the repeats, divided by K, is printed in ms. nonzero and masked_select synchronise inside each
call (their output size is read back), as cuprite's do. This script computes no ratio:
`cuprite bench --peers FILE` does.

usage: python3 benches/peers/torch_scan.py [--quick] [--repeats N] [--json out.json]
"""
import json
import sys

import torch
from peer_timing import identity, per_call_ms


def main():
    quick = "--quick" in sys.argv
    reps = int(sys.argv[sys.argv.index("--repeats") + 1]) if "--repeats" in sys.argv else (5 if quick else 20)
    k = 10
    g = torch.Generator(device="cuda").manual_seed(1)
    res = identity(quick)

    def timed(key, fn):
        med, lo, hi = per_call_ms(fn, k, reps=reps)
        res[key], res[key.replace("_ms", "_min_max_ms")] = med, [lo, hi]

    n = 1 << (20 if quick else 26)
    x = torch.rand(n, device="cuda", generator=g)
    timed("cumsum_f32_ms", lambda: torch.cumsum(x, 0))
    res["cumsum_f32_TBps"] = 8 * n / (res["cumsum_f32_ms"] / 1e3) / 1e12
    a, b, c = (torch.rand(n, device="cuda", generator=g) for _ in range(3))
    timed("cumsum_fused_f32_ms", lambda: torch.cumsum(a * b + c, 0))
    del a, b, c

    mask = x > 0.5
    timed("nonzero_ms", lambda: torch.nonzero(mask))
    timed("masked_select_ms", lambda: torch.masked_select(x, mask))
    del x, mask

    q = 1 << (18 if quick else 24)
    m = 1 << (16 if quick else 20)
    s = torch.cumsum(torch.rand(m, device="cuda", generator=g), 0)
    v = torch.rand(q, device="cuda", generator=g) * (m / 2)
    timed("searchsorted_ms", lambda: torch.searchsorted(s, v))

    res["peer"] = f"PyTorch {torch.__version__}"
    res["sizes"] = {"cumsum": n, "nonzero": n, "masked_select": n, "searchsorted": q}
    for key, val in res.items():
        print(f"{key:30} {val:.4g}" if isinstance(val, float) else f"{key:30} {val}")
    if "--json" in sys.argv:
        with open(sys.argv[sys.argv.index("--json") + 1], "w") as f:
            json.dump(res, f, indent=1)


if __name__ == "__main__":
    main()
