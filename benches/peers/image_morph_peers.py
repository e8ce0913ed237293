"""Peer figures for `cuprite bench image/` morphology and labelling
(crates/cuprite-cli/src/bench/image_morph.rs).

Runs on the same GPU, in the same call, the same work with CuPy's cupyx.scipy.ndimage:
- grey_dilation of a 4096 x 4096 float32 image with size=(5, 5), mode 'reflect';
- label of a 4096 x 4096 random mask with 30% of its elements set (the default cross
  structure), the number of features returned to the host as SciPy's API does;
- distance_transform_edt of a 4096 x 4096 mask with 70% set (float64 distances);
- binary_erosion of a 4096 x 4096 mask with 70% set by the default cross.
Device work is timed with CUDA events around K back-to-back calls after warm-up, on fresh
random data; the median over the repeats, divided by K, is printed in ms. Without CuPy the
script prints a note and no figures.

usage: python3 benches/peers/image_morph_peers.py [--quick] [--repeats N] [--json out.json]
"""
import json, sys

import torch
from peer_timing import identity, per_call_ms


def main():
    quick = "--quick" in sys.argv
    reps = int(sys.argv[sys.argv.index("--repeats") + 1]) if "--repeats" in sys.argv else (5 if quick else 20)
    res = {**identity(quick)}

    def run(key, k, fn):
        med, lo, hi = per_call_ms(fn, k, reps=reps)
        res[key + "_ms"], res[key + "_min_max_ms"] = med, [lo, hi]

    side = 512 if quick else 4096
    res["peer"] = "none"
    try:
        import cupy as cp
        import cupyx.scipy.ndimage as ndi
    except ImportError as e:
        cp = None
        res["cupy_skipped"] = f"CuPy not importable: {e}"
    if cp is not None:
        rs = cp.random.RandomState(int(torch.seed() & 0xFFFFFFFF))
        img = rs.random_sample((side, side), dtype=cp.float32)
        run("grey_dilation_5x5", 10, lambda: ndi.grey_dilation(img, size=(5, 5), mode="reflect"))
        mask = rs.random_sample((side, side), dtype=cp.float32) < 0.3
        # label returns the labels and the feature count (a host integer).
        run("label", 10, lambda: ndi.label(mask))
        res["label_features"] = int(ndi.label(mask)[1])
        fg = ~mask
        run("distance_transform_edt", 3 if quick else 10, lambda: ndi.distance_transform_edt(fg))
        run("binary_erosion", 10, lambda: ndi.binary_erosion(fg))
        res["peer"] = f"CuPy {cp.__version__}"
        res["cupy"] = cp.__version__
    # Problem sizes, for matching with cuprite's figures (crates/cuprite-cli/src/bench/report.rs).
    res["sizes"] = {"image": side}
    out = json.dumps(res, indent=1)
    print(out)
    if "--json" in sys.argv:
        with open(sys.argv[sys.argv.index("--json") + 1], "w") as f:
            f.write(out)


if __name__ == "__main__":
    main()
