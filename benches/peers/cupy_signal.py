"""Peer figures for `cuprite bench conv/ signal/` (crates/cuprite-cli/src/bench/signal.rs).

Runs on the same GPU, in the same call, the same work:
- cupyx.scipy.signal.convolve (method='direct') and fftconvolve of a 2^24 float32 signal with
  127 taps, mode 'same';
- fftconvolve and oaconvolve of the same signal with 4097 taps, 'same';
- torch.nn.functional.conv2d (cuDNN) and cupyx.scipy.ndimage.convolve (mode 'constant') of a
  4096 x 4096 float32 image with a 7 x 7 kernel, output of the image's size;
- cupyx.scipy.signal.lfilter of a second-order filter over 2^24 float32.
CuPy's sections are skipped, with a note in the output, where CuPy is not installed.
Device work is timed with CUDA events around K back-to-back calls after warm-up, on fresh
random data; the median over the repeats, divided by K, is printed in ms.

usage: python3 benches/peers/cupy_signal.py [--quick] [--repeats N] [--json out.json]
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

    n = 1 << (18 if quick else 24)
    side = 512 if quick else 4096
    sizes = {"conv1d": n, "conv2d": side, "lfilter": n}
    res["peer"] = f"PyTorch {torch.__version__}"

    g = torch.Generator(device="cuda").manual_seed(torch.seed() & 0xFFFFFFFF)
    img = torch.rand((1, 1, side, side), device="cuda", generator=g)
    ker = torch.rand((1, 1, 7, 7), device="cuda", generator=g)
    with torch.backends.cudnn.flags(enabled=True, benchmark=True):
        run("conv2d_7x7_torch", 10, lambda: torch.nn.functional.conv2d(img, ker, padding=3))

    try:
        import cupy as cp
        import cupyx.scipy.ndimage as ndi
        import cupyx.scipy.signal as sig
    except ImportError as e:
        cp = None
        res["cupy_skipped"] = f"CuPy not importable: {e}"
    if cp is not None:
        rs = cp.random.RandomState(int(torch.seed() & 0xFFFFFFFF))
        x = rs.random_sample(n, dtype=cp.float32)
        h127 = rs.random_sample(127, dtype=cp.float32)
        h4097 = rs.random_sample(4097, dtype=cp.float32)
        run("conv1d_127_direct", 10, lambda: sig.convolve(x, h127, mode="same", method="direct"))
        run("conv1d_127_fft", 10, lambda: sig.fftconvolve(x, h127, mode="same"))
        run("conv1d_4097_fft", 10, lambda: sig.fftconvolve(x, h4097, mode="same"))
        run("conv1d_4097_oa", 10, lambda: sig.oaconvolve(x, h4097, mode="same"))
        im = rs.random_sample((side, side), dtype=cp.float32)
        k7 = rs.random_sample((7, 7), dtype=cp.float32)
        run("conv2d_7x7_ndimage", 10, lambda: ndi.convolve(im, k7, mode="constant"))
        b = cp.asarray([0.2, 0.3, 0.1], dtype=cp.float32)
        a = cp.asarray([1.0, -1.6, 0.68], dtype=cp.float32)
        run("lfilter_2p24", 3 if quick else 10, lambda: sig.lfilter(b, a, x))
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
