#!/usr/bin/env python3
"""PyTorch and CuPy peer figures for the NumPy-routine benchmarks
(crates/cuprite-cli/src/bench/numpy.rs).

Runs on the same GPU, in the same call, the same work as `cuprite bench numpy/isin_lexsort`,
`numpy/eig` and `numpy/interp`:
- torch.isin of 2^24 int64 values in [0, 2^20) against 2^16 such values;
- lexsort of 2^24 x 2 int64 keys in [0, 2^10) (the last key primary): PyTorch has no lexsort,
  so the best it offers is two stable sorts, the secondary key first, then the primary key
  gathered by that order;
- torch.linalg.eig of a 1024 x 1024 float64 matrix of uniform values (eigenvalues and vectors),
  one call per event pair (it waits for the solver on the host, as cuprite's eig does); the
  matrix is the one cuprite times (`shared_uniform`), since the solver's iterations depend on it.
- cupy.interp of 2^24 float32 queries in [0, 1) into 2^20 sorted float32 points (CuPy's section:
  skipped, with a note in the output, where CuPy is not installed).
Device work is timed with CUDA events around K back-to-back calls after warm-up, on fresh
random data; the median over the repeats, divided by K, is printed in ms.

usage: python3 benches/peers/torch_numpy.py [--quick] [--repeats N] [--json out.json]
"""
import json, sys

import torch
from peer_timing import identity, per_call_ms


EIG_SEED = 1024


def shared_uniform(count, seed):
    """`count` uniform values in [0, 1): SplitMix64 of `seed`, the i-th from the state
    seed + i * 0x9E3779B97F4A7C15 (i from 1), its top 53 bits scaled by 2^-53, as
    `shared_uniform` in crates/cuprite-cli/src/bench/numpy.rs."""
    try:
        import numpy as np
    except ImportError:
        np = None
    if np is not None:
        i = np.arange(1, count + 1, dtype=np.uint64)
        with np.errstate(over="ignore"):
            z = np.uint64(seed) + i * np.uint64(0x9E3779B97F4A7C15)
            z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
            z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
            z = z ^ (z >> np.uint64(31))
        return ((z >> np.uint64(11)).astype(np.float64) * 2.0 ** -53).tolist()
    m = (1 << 64) - 1
    out = []
    for k in range(1, count + 1):
        z = (seed + k * 0x9E3779B97F4A7C15) & m
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & m
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & m
        z ^= z >> 31
        out.append((z >> 11) * 2.0 ** -53)
    return out


def lexsort(k1, k2):
    # Stable sort by k1, then stably by k2 gathered in that order: k2 primary, k1 secondary.
    p = torch.sort(k1, stable=True).indices
    q = torch.sort(k2[p], stable=True).indices
    return p[q]


def main():
    quick = "--quick" in sys.argv
    reps = int(sys.argv[sys.argv.index("--repeats") + 1]) if "--repeats" in sys.argv else (5 if quick else 20)
    g = torch.Generator(device="cuda").manual_seed(torch.seed() & 0xFFFFFFFF)
    res = {**identity(quick)}

    def run(key, k, fn):
        med, lo, hi = per_call_ms(fn, k, reps=reps)
        res[key + "_ms"], res[key + "_min_max_ms"] = med, [lo, hi]

    n = 1 << (18 if quick else 24)
    m = 1 << (12 if quick else 16)
    x = torch.randint(0, 1 << 20, (n,), dtype=torch.int64, device="cuda", generator=g)
    t = torch.randint(0, 1 << 20, (m,), dtype=torch.int64, device="cuda", generator=g)
    run("isin_2p24_in_2p16", 2 if quick else 10, lambda: torch.isin(x, t))
    k1 = torch.randint(0, 1 << 10, (n,), dtype=torch.int64, device="cuda", generator=g)
    k2 = torch.randint(0, 1 << 10, (n,), dtype=torch.int64, device="cuda", generator=g)
    run("lexsort_2p24_x2", 2 if quick else 10, lambda: lexsort(k1, k2))
    e = 256 if quick else 1024
    # The matrix cuprite's numpy/eig times (shared_uniform in numpy.rs): the QR iterations, and
    # so the time, depend on the matrix.
    a = torch.tensor(shared_uniform(e * e, EIG_SEED), dtype=torch.float64).reshape(e, e).cuda()
    run("eig_1024_f64", 1, lambda: torch.linalg.eig(a))

    sizes = {"isin": n, "lexsort": n}
    res["peer"] = f"PyTorch {torch.__version__}"

    # CuPy: interp (the same device and default stream as PyTorch's work above).
    try:
        import cupy as cp
    except ImportError as e:
        cp = None
        res["cupy_skipped"] = f"CuPy not importable: {e}"
    if cp is not None:
        nq = 1 << (18 if quick else 24)
        npts = 1 << (14 if quick else 20)
        rs = cp.random.RandomState(int(torch.seed() & 0xFFFFFFFF))
        xp = cp.sort(rs.random_sample(npts, dtype=cp.float32))
        fp = rs.random_sample(npts, dtype=cp.float32)
        xq = rs.random_sample(nq, dtype=cp.float32)
        run("interp_2p24_in_2p20", 2 if quick else 10, lambda: cp.interp(xq, xp, fp))
        sizes["interp"] = nq
        res["peer"] += f", CuPy {cp.__version__}"
        res["cupy"] = cp.__version__
    # Problem sizes, for matching with cuprite's figures (crates/cuprite-cli/src/bench/report.rs).
    sizes["eig"] = e
    res["sizes"] = sizes
    out = json.dumps(res, indent=1)
    print(out)
    if "--json" in sys.argv:
        with open(sys.argv[sys.argv.index("--json") + 1], "w") as f:
            f.write(out)


if __name__ == "__main__":
    main()
