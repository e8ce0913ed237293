#!/usr/bin/env python3
"""PyTorch peer figures for the row-operation benchmarks (crates/cuprite-cli/src/bench/rowstats.rs,
`cuprite bench rowops`), to be judged by `cuprite bench --peers FILE`.

Runs on the same GPU the same work as cuprite: over 16384 x 4096 rows (64 x 4096 with --quick),
in f32 and bf16,
- softmax along the last axis (bytes: one read + one write);
- layer_norm with weight and bias (one read + one write);
- logsumexp along the last axis (one read);
- softmax(x * 0.125 + mask) in f32, eager (PyTorch makes the intermediate; bytes counted as
  cuprite counts them: one read + one write).

Device work is timed as cuprite times it: K back-to-back calls between one pair of CUDA events,
divided by K, after warm-up; the median of the samples is kept. This script computes no ratio:
`cuprite bench --peers` does.

usage: python3 benches/peers/torch_rows.py [--quick] [--json out.json]
"""
import json
import sys

import torch
import torch.nn.functional as F
from peer_timing import device_time, identity


def main():
    quick = "--quick" in sys.argv
    r, c = (64 if quick else 16384), 4096
    n = r * c
    calls = 10  # as cuprite's rowops/*
    g = torch.Generator(device="cuda").manual_seed(1)
    x32 = torch.randn(r, c, device="cuda", generator=g)
    w32 = torch.rand(c, device="cuda", generator=g)
    b32 = torch.rand(c, device="cuda", generator=g)
    mask = torch.rand(c, device="cuda", generator=g)
    figures = {}
    for dt, size in [("f32", 4), ("bf16", 2)]:
        dtype = torch.float32 if dt == "f32" else torch.bfloat16
        x = x32.to(dtype)
        w, b = w32.to(dtype), b32.to(dtype)
        t = device_time(lambda: torch.softmax(x, -1), calls)
        figures[f"softmax_{dt}_TBps"] = 2 * size * n / t / 1e12
        figures[f"softmax_{dt}_ms"] = t * 1e3
        t = device_time(lambda: F.layer_norm(x, (c,), w, b, 1e-5), calls)
        figures[f"layer_norm_{dt}_TBps"] = 2 * size * n / t / 1e12
        figures[f"layer_norm_{dt}_ms"] = t * 1e3
        t = device_time(lambda: torch.logsumexp(x, -1), calls)
        figures[f"logsumexp_{dt}_TBps"] = size * n / t / 1e12
        figures[f"logsumexp_{dt}_ms"] = t * 1e3
    t = device_time(lambda: torch.softmax(x32 * 0.125 + mask, -1), calls)
    figures["softmax_masked_f32_TBps"] = 8 * n / t / 1e12
    figures["softmax_masked_f32_ms"] = t * 1e3
    res = {
        **identity(quick),
        "peer": f"PyTorch {torch.__version__}",
        "method": f"CUDA events around {calls} back-to-back calls",
        "figures": figures,
        "sizes": {"rows": n},
    }
    for k, v in figures.items():
        print(f"{k:26} {v:.4g}")
    if "--json" in sys.argv:
        with open(sys.argv[sys.argv.index("--json") + 1], "w") as f:
            json.dump(res, f, indent=1)


if __name__ == "__main__":
    main()
