"""Peer figures for `cuprite bench image/` (crates/cuprite-cli/src/bench/image_geometry.rs).

Runs on the same GPU, in the same call, the same work:
- a 4096 x 4096 float32 image zoomed by 2: cupyx.scipy.ndimage.zoom with order 1 and order 3,
  and torch.nn.functional.interpolate(scale_factor=2, mode="bilinear", align_corners=True)
  (SciPy's zoom samples the same points: the corner pixels' centres map onto each other);
- the same image rotated by 30 degrees, order 1, the input's size:
  cupyx.scipy.ndimage.rotate(order=1, reshape=False), and torch's F.affine_grid followed by
  F.grid_sample(mode="bilinear", align_corners=True) (the grid is built in each call, as the
  rotation's coordinates are in cuprite's);
- three 2048 x 2048 float32 channels resized to 4096 x 4096 with
  F.interpolate(mode="bicubic", align_corners=False).
CuPy's sections are skipped, with a note in the output, where CuPy is not installed.
Device work is timed with CUDA events around K back-to-back calls after warm-up, on fresh
random data; the median over the repeats, divided by K, is printed in ms.

usage: python3 benches/peers/image_geometry_peers.py [--quick] [--repeats N] [--json out.json]
"""
import json, math, sys

import torch
import torch.nn.functional as F
from peer_timing import identity, per_call_ms


def main():
    quick = "--quick" in sys.argv
    reps = int(sys.argv[sys.argv.index("--repeats") + 1]) if "--repeats" in sys.argv else (5 if quick else 20)
    res = {**identity(quick)}

    def run(key, k, fn):
        med, lo, hi = per_call_ms(fn, k, reps=reps)
        res[key + "_ms"], res[key + "_min_max_ms"] = med, [lo, hi]

    side = 512 if quick else 4096
    rside = 256 if quick else 2048
    sizes = {"zoom": side, "rotate": side, "resize": rside}
    res["peer"] = f"PyTorch {torch.__version__}"

    g = torch.Generator(device="cuda").manual_seed(torch.seed() & 0xFFFFFFFF)
    img = torch.rand((1, 1, side, side), device="cuda", generator=g)
    run("zoom2_linear_torch", 10,
        lambda: F.interpolate(img, scale_factor=2, mode="bilinear", align_corners=True))
    c, s = math.cos(math.radians(30)), math.sin(math.radians(30))
    theta = torch.tensor([[[c, -s, 0.0], [s, c, 0.0]]], device="cuda")

    def rot():
        grid = F.affine_grid(theta, img.shape, align_corners=True)
        return F.grid_sample(img, grid, mode="bilinear", padding_mode="zeros", align_corners=True)

    run("rotate30_linear_torch", 10, rot)
    chans = torch.rand((1, 3, rside, rside), device="cuda", generator=g)
    run("resize_bicubic_torch", 10,
        lambda: F.interpolate(chans, size=(2 * rside, 2 * rside), mode="bicubic", align_corners=False))

    try:
        import cupy as cp
        import cupyx.scipy.ndimage as ndi
    except ImportError as e:
        cp = None
        res["cupy_skipped"] = f"CuPy not importable: {e}"
    if cp is not None:
        rs = cp.random.RandomState(int(torch.seed() & 0xFFFFFFFF))
        im = rs.random_sample((side, side), dtype=cp.float32)
        run("zoom2_linear_cupyx", 10, lambda: ndi.zoom(im, 2, order=1))
        run("zoom2_cubic_cupyx", 3 if quick else 10, lambda: ndi.zoom(im, 2, order=3))
        run("rotate30_linear_cupyx", 10, lambda: ndi.rotate(im, 30, order=1, reshape=False))
        res["peer"] += f", CuPy {cp.__version__}"
        res["cupy"] = cp.__version__
    # Problem sizes, for matching with cuprite's figures (crates/cuprite-cli/src/bench/report.rs).
    res["sizes"] = sizes
    out = json.dumps(res, indent=1)
    print(out)
    if "--json" in sys.argv:
        with open(sys.argv[sys.argv.index("--json") + 1], "w") as f:
            f.write(out)


if __name__ == "__main__":
    main()
