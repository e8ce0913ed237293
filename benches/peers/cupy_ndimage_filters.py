"""Peer figures for `cuprite bench image/` (crates/cuprite-cli/src/bench/image.rs).

Runs on the same GPU, in the same call, the same work with cupyx.scipy.ndimage (default mode
'reflect', float32 in and out):
- gaussian_filter of a 4096 x 4096 image, sigma 2;
- uniform_filter of the same image, size 9;
- median_filter of the same image, size 3 and size 7;
- sobel of the same image along the last axis;
- gaussian_filter of a 256 x 256 x 256 volume, sigma 2.
Skipped, with a note in the output, where CuPy is not installed. Device work is timed with
CUDA events around K back-to-back calls after warm-up, on fresh random data; the median over
the repeats, divided by K, is printed in ms.

usage: python3 benches/peers/cupy_ndimage_filters.py [--quick] [--repeats N] [--json out.json]
"""
import json, sys

from peer_timing import identity, per_call_ms


def main():
    quick = "--quick" in sys.argv
    reps = int(sys.argv[sys.argv.index("--repeats") + 1]) if "--repeats" in sys.argv else (5 if quick else 20)
    res = {**identity(quick), "peer": "cupyx.scipy.ndimage"}

    def run(key, k, fn):
        med, lo, hi = per_call_ms(fn, k, reps=reps)
        res[key + "_ms"], res[key + "_min_max_ms"] = med, [lo, hi]

    side = 512 if quick else 4096
    vol = 64 if quick else 256
    try:
        import cupy as cp
        import cupyx.scipy.ndimage as ndi
    except ImportError as e:
        cp = None
        res["cupy_skipped"] = f"CuPy not importable: {e}"
    if cp is not None:
        import random
        rs = cp.random.RandomState(random.getrandbits(32))
        im = rs.random_sample((side, side), dtype=cp.float32)
        run("gaussian_2", 10, lambda: ndi.gaussian_filter(im, 2.0))
        run("uniform_9", 10, lambda: ndi.uniform_filter(im, 9))
        run("median_3", 10, lambda: ndi.median_filter(im, size=3))
        run("median_7", 3 if quick else 10, lambda: ndi.median_filter(im, size=7))
        run("sobel", 10, lambda: ndi.sobel(im, axis=-1))
        v = rs.random_sample((vol, vol, vol), dtype=cp.float32)
        run("gaussian3d_2", 10, lambda: ndi.gaussian_filter(v, 2.0))
        res["peer"] = f"CuPy {cp.__version__}"
        res["cupy"] = cp.__version__
    # Problem sizes, for matching with cuprite's figures (crates/cuprite-cli/src/bench/report.rs).
    res["sizes"] = {"image": side, "volume": vol}
    out = json.dumps(res, indent=1)
    print(out)
    if "--json" in sys.argv:
        with open(sys.argv[sys.argv.index("--json") + 1], "w") as f:
            f.write(out)


if __name__ == "__main__":
    main()
