"""Peer figures for `cuprite bench conv/conv2d conv/max_pool2d`
(crates/cuprite-cli/src/bench/conv_nn.rs).

Runs on the same GPU, in the same call, the same work:
- a ResNet layer: input 64 x 64 x 56 x 56 (N, C, H, W), 64 filters 3 x 3, padding 1, in bfloat16
  and float32: torch.nn.functional.conv2d, torch.nn.grad.conv2d_input and
  torch.nn.grad.conv2d_weight (cuDNN, benchmark mode on; TF32 off, as cuprite computes float32
  in full precision by default);
- torch.nn.functional.max_pool2d 2 x 2, stride 2, of 64 x 64 x 112 x 112 float32.
Device work is timed with CUDA events around K back-to-back calls after warm-up, on fresh
random data (peer_timing.py); the median over the repeats, divided by K, is printed in ms.
`--quick` runs the sizes of `cuprite bench --quick` (a batch of 8).

usage: python3 benches/peers/torch_conv.py [--quick] [--repeats N] [--json out.json]
"""
import json, sys

import torch
import torch.nn.functional as F
from peer_timing import identity, per_call_ms


def main():
    quick = "--quick" in sys.argv
    reps = int(sys.argv[sys.argv.index("--repeats") + 1]) if "--repeats" in sys.argv else (5 if quick else 20)
    res = {**identity(quick)}
    res["peer"] = f"PyTorch {torch.__version__} (cuDNN {torch.backends.cudnn.version()})"

    def run(key, k, fn):
        med, lo, hi = per_call_ms(fn, k, reps=reps)
        res[key + "_ms"], res[key + "_min_max_ms"] = med, [lo, hi]

    n, c, k, hw = (8 if quick else 64), 64, 64, 56
    g = torch.Generator(device="cuda").manual_seed(torch.seed() & 0xFFFFFFFF)
    with torch.backends.cudnn.flags(enabled=True, benchmark=True, allow_tf32=False):
        for name, dt in (("bf16", torch.bfloat16), ("f32", torch.float32)):
            x = torch.rand((n, c, hw, hw), device="cuda", generator=g).to(dt)
            w = torch.rand((k, c, 3, 3), device="cuda", generator=g).to(dt)
            dy = torch.rand((n, k, hw, hw), device="cuda", generator=g).to(dt)
            run(f"conv2d_{name}_forward", 5, lambda: F.conv2d(x, w, padding=1))
            run(f"conv2d_{name}_backward_input", 5,
                lambda: torch.nn.grad.conv2d_input(x.shape, w, dy, padding=1))
            run(f"conv2d_{name}_backward_weight", 5,
                lambda: torch.nn.grad.conv2d_weight(x, w.shape, dy, padding=1))
            del x, w, dy
    p = torch.rand((n, 64, 112, 112), device="cuda", generator=g)
    run("max_pool2d_f32", 10, lambda: F.max_pool2d(p, 2))
    # Problem sizes, for matching with cuprite's figures (crates/cuprite-cli/src/bench/report.rs):
    # the input's shape as the figures' names write it, spaces included.
    res["sizes"] = {"conv2d": f" {n}x{c}x{hw}x{hw} ", "max_pool2d": f" {n}x64x112x112"}
    out = json.dumps(res, indent=1)
    print(out)
    if "--json" in sys.argv:
        with open(sys.argv[sys.argv.index("--json") + 1], "w") as f:
            f.write(out)


if __name__ == "__main__":
    main()
