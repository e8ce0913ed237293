"""Peer figures for `cuprite bench image/match_template` (crates/cuprite-cli/src/bench/image_vision.rs).

Runs on the same GPU, in the same call, the same work: template matching of a 32 x 32 float32
template over a 1920 x 1080 float32 image, the window of each output pixel anchored at its
top-left corner and zeros past the bottom and right edges (cuprite's and ArrayFire's
definition), the output of the image's size, computed the way GPU libraries without a
matching kernel do it: as correlations by torch.nn.functional.conv2d (cuDNN, its fastest
algorithm chosen by benchmark mode) plus box sums:
- SSD = box(I^2) - 2 (I * T) + sum(T^2);
- ZNCC = (I * (T - mean T)) / sqrt((box(I^2) - box(I)^2 / n) * sum((T - mean T)^2)).
The FAST, Harris and ORB figures have no peer here: PyTorch, CuPy and JAX have no such
detectors, and OpenCV's CUDA module and ArrayFire are not installed on the benchmark machine.
Device work is timed with CUDA events around K back-to-back calls after warm-up; the median
over the repeats, divided by K, is printed in ms.

usage: python3 benches/peers/torch_vision.py [--quick] [--repeats N] [--json out.json]
"""
import json, sys

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

    w, h, t = (480, 270, 32) if quick else (1920, 1080, 32)
    res["peer"] = f"PyTorch {torch.__version__} (cuDNN conv2d)"
    g = torch.Generator(device="cuda").manual_seed(torch.seed() & 0xFFFFFFFF)
    img = torch.rand((1, 1, h, w), device="cuda", generator=g) * 255.0
    tpl = img[:, :, 100:100 + t, 200:200 + t].clone()
    ones = torch.ones((1, 1, t, t), device="cuda")
    n = float(t * t)

    def padded(x):
        # Zeros past the right and bottom edges: output pixel (y, x) sees rows y..y+t-1.
        return F.pad(x, (0, t - 1, 0, t - 1))

    def ssd():
        p = padded(img)
        return F.conv2d(p * p, ones) - 2.0 * F.conv2d(p, tpl) + (tpl * tpl).sum()

    tz = tpl - tpl.mean()
    tnorm = (tz * tz).sum()

    def zncc():
        p = padded(img)
        s1 = F.conv2d(p, ones)
        s2 = F.conv2d(p * p, ones)
        var = (s2 - s1 * s1 / n).clamp_min(0.0)
        return F.conv2d(p, tz) / torch.sqrt(var * tnorm).clamp_min(1e-30)

    # Both against a direct evaluation at a few pixels, so that the timed work is the right one.
    for fn, name in ((ssd, "ssd"), (zncc, "zncc")):
        out = fn()
        for (y, x) in ((100, 200), (0, 0), (h - 5, w - 7)):
            win = padded(img)[0, 0, y:y + t, x:x + t]
            if name == "ssd":
                ref = ((win - tpl[0, 0]) ** 2).sum()
            else:
                wz = win - win.mean()
                ref = (wz * tz[0, 0]).sum() / torch.sqrt((wz * wz).sum() * tnorm)
            got = out[0, 0, y, x]
            # f32 box sums of squares lose digits: the bound scales with the window's energy.
            tol = 1e-5 * float((win * win).sum()) + 1e-3 if name == "ssd" else 1e-3
            assert abs(float(got - ref)) <= tol, (name, y, x, float(got), float(ref))

    with torch.backends.cudnn.flags(enabled=True, benchmark=True):
        run("match_ssd_32", 10, ssd)
        run("match_zncc_32", 10, zncc)
    # Problem sizes, for matching with cuprite's figures (crates/cuprite-cli/src/bench/report.rs).
    res["sizes"] = {"match": w}
    out = json.dumps(res, indent=1)
    print(out)
    if "--json" in sys.argv:
        with open(sys.argv[sys.argv.index("--json") + 1], "w") as f:
            f.write(out)


if __name__ == "__main__":
    main()
