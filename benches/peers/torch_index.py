#!/usr/bin/env python3
"""PyTorch peer figures for the cuprite indexing benchmarks (crates/cuprite-cli/src/bench/index.rs),
to be judged by `cuprite bench --peers FILE`.

Runs on the same GPU the same work as `cuprite bench index`:
- a gather of 2^26 f32 at 2^26 random int64 indices: x[idx] (index_select on the flat tensor);
- index_add_ of 2^26 f32 values into 2^20 f32 destinations at random int64 indices
  (out of place, as cuprite's: a copy of the base, then the atomic adds);
- the same with torch.use_deterministic_algorithms(True) (PyTorch's deterministic index_add).

Device work is timed as cuprite times it: K back-to-back calls between one pair of CUDA events,
divided by K, after warm-up; the median of the samples is kept. Fresh random data (fixed seed).
This script computes no ratio: `cuprite bench --peers` does.

usage: python3 benches/peers/torch_index.py [--quick] [--json out.json]
"""
import json
import sys

import torch
from peer_timing import device_time, identity


def main():
    quick = "--quick" in sys.argv
    n = 1 << (20 if quick else 26)
    dst = 1 << (14 if quick else 20)
    calls = 10  # as cuprite's index benchmarks
    g = torch.Generator(device="cuda").manual_seed(1)
    figures = {}

    x = torch.rand(n, device="cuda", generator=g)
    idx = torch.randint(0, n, (n,), device="cuda", generator=g, dtype=torch.int64)
    assert torch.equal(x[idx][:5], x.cpu()[idx.cpu()][:5].cuda())
    figures["gather_f32_2p26_ms"] = device_time(lambda: x[idx], calls) * 1e3
    figures["index_select_f32_2p26_ms"] = device_time(lambda: torch.index_select(x, 0, idx), calls) * 1e3
    del x, idx

    v = torch.rand(n, device="cuda", generator=g)
    idx = torch.randint(0, dst, (n,), device="cuda", generator=g, dtype=torch.int64)
    base = torch.zeros(dst, device="cuda")
    figures["index_add_f32_2p26_into_2p20_ms"] = (
        device_time(lambda: base.index_add(0, idx, v), calls) * 1e3
    )
    torch.use_deterministic_algorithms(True)
    try:
        a = base.index_add(0, idx, v)
        b = base.index_add(0, idx, v)
        assert torch.equal(a, b)
        figures["index_add_deterministic_f32_2p26_into_2p20_ms"] = (
            device_time(lambda: base.index_add(0, idx, v), calls) * 1e3
        )
    finally:
        torch.use_deterministic_algorithms(False)

    res = {
        **identity(quick),
        "peer": f"PyTorch {torch.__version__}",
        "method": f"CUDA events around {calls} back-to-back calls",
        "figures": figures,
        "sizes": {"gather": n, "index_add": n, "index_add_destinations": dst},
    }
    for k, v in figures.items():
        print(f"{k:48} {v:.4g}")
    if "--json" in sys.argv:
        with open(sys.argv[sys.argv.index("--json") + 1], "w") as f:
            json.dump(res, f, indent=1)


if __name__ == "__main__":
    main()
