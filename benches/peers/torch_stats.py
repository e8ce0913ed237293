#!/usr/bin/env python3
"""PyTorch peer figures for the statistics benchmarks (crates/cuprite-cli/src/bench/rowstats.rs,
`cuprite bench stats`), to be judged by `cuprite bench --peers FILE`.

Runs on the same GPU the same work as cuprite:
- torch.histc of 2^26 f32 uniforms (2^20 with --quick) into 256 bins over [0, 1];
- torch.cov of 1024 variables x 65536 observations f32 (x 4096 with --quick).

Device work is timed as cuprite times it: K back-to-back calls between one pair of CUDA events,
divided by K, after warm-up; the median of the samples is kept. This script computes no ratio:
`cuprite bench --peers` does.

usage: python3 benches/peers/torch_stats.py [--quick] [--json out.json]
"""
import json
import sys

import torch
from peer_timing import device_time, identity


def main():
    quick = "--quick" in sys.argv
    n = 1 << (20 if quick else 26)
    v, o = 1024, (4096 if quick else 65536)
    g = torch.Generator(device="cuda").manual_seed(1)
    x = torch.rand(n, device="cuda", generator=g)
    figures = {}
    t = device_time(lambda: torch.histc(x, bins=256, min=0.0, max=1.0), 10)
    figures["histc_256_ms"] = t * 1e3
    del x
    m = torch.randn(v, o, device="cuda", generator=g)
    t = device_time(lambda: torch.cov(m), 3)
    figures["cov_1024x65536_ms"] = t * 1e3
    res = {
        **identity(quick),
        "peer": f"PyTorch {torch.__version__}",
        "method": "CUDA events around 10 (cov: 3) back-to-back calls",
        "figures": figures,
        "sizes": {"histogram": n, "cov": v * o},
    }
    for k, val in figures.items():
        print(f"{k:22} {val:.4g}")
    if "--json" in sys.argv:
        with open(sys.argv[sys.argv.index("--json") + 1], "w") as f:
            json.dump(res, f, indent=1)


if __name__ == "__main__":
    main()
