#!/usr/bin/env python3
"""PyTorch peer figures for the graph benchmarks (crates/cuprite-cli/src/bench/graphs.rs).

Runs on the same GPU, in the same call, the same work as `cuprite bench graphs/`, eagerly and
replayed under torch.cuda.graph:
- mlp_step: a 4-layer MLP of width 256 on a batch of 64, each layer tanh(h @ W + b) * 0.5 +
  h * 0.5, and the mean-square loss against a target; the graph's replay copies the batch and
  the target into its static inputs first (as cuprite's compiled program copies its inputs);
- tiny_ops: 200 alternating multiplications (by 1.0001) and additions (of 0.0001) on 4,096
  float32, each its own kernel.
Device work is timed with CUDA events around K back-to-back calls after warm-up; the median over
the repeats, divided by K, is printed in microseconds. This script computes no ratio:
`cuprite bench --peers FILE` does.

usage: python3 benches/peers/torch_graphs.py [--quick] [--repeats N] [--json out.json]
"""
import json
import sys

import torch
from peer_timing import identity, per_call_ms

LAYERS, WIDTH, BATCH = 4, 256, 64
TINY_OPS, TINY_LEN = 200, 4096


def mlp_step(weights, biases, x, target):
    h = x
    for w, b in zip(weights, biases):
        h = torch.tanh(h @ w + b) * 0.5 + h * 0.5
    d = h - target
    return h, (d * d).mean()


def chain(x):
    h = x
    for i in range(TINY_OPS):
        h = h * 1.0001 if i % 2 == 0 else h + 0.0001
    return h


def graphed(fn, *static_inputs):
    """A torch.cuda.graph of `fn` on `static_inputs` (warmed up on a side stream first, as
    PyTorch's documentation does) and a replay that copies new inputs into them."""
    side = torch.cuda.Stream()
    side.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(side):
        for _ in range(3):
            fn(*static_inputs)
    torch.cuda.current_stream().wait_stream(side)
    g = torch.cuda.CUDAGraph()
    with torch.cuda.graph(g):
        static_out = fn(*static_inputs)

    def replay(*inputs):
        for dst, src in zip(static_inputs, inputs):
            dst.copy_(src)
        g.replay()
        return static_out

    return replay


def main():
    quick = "--quick" in sys.argv
    reps = int(sys.argv[sys.argv.index("--repeats") + 1]) if "--repeats" in sys.argv else (5 if quick else 20)
    calls = 20
    gen = torch.Generator(device="cuda").manual_seed(1)
    res = {**identity(quick)}

    def timed(key, fn):
        med, lo, hi = per_call_ms(fn, calls, reps=reps)
        res[key], res[key.replace("_us", "_min_max_us")] = med * 1e3, [lo * 1e3, hi * 1e3]

    scale = 2.0 / WIDTH ** 0.5
    weights = [(torch.rand(WIDTH, WIDTH, device="cuda", generator=gen) - 0.5) * scale for _ in range(LAYERS)]
    biases = [(torch.rand(1, WIDTH, device="cuda", generator=gen) - 0.5) * scale for _ in range(LAYERS)]
    x = torch.randn(BATCH, WIDTH, device="cuda", generator=gen)
    target = torch.randn(BATCH, WIDTH, device="cuda", generator=gen) * 0.1
    step = lambda a, t: mlp_step(weights, biases, a, t)
    timed("mlp_step_eager_us", lambda: step(x, target))
    replay = graphed(step, x.clone(), target.clone())
    timed("mlp_step_graph_us", lambda: replay(x, target))

    v = torch.rand(TINY_LEN, device="cuda", generator=gen)
    timed("tiny_ops_eager_us", lambda: chain(v))
    replay_chain = graphed(chain, v.clone())
    timed("tiny_ops_graph_us", lambda: replay_chain(v))

    res["peer"] = f"PyTorch {torch.__version__}"
    res["method"] = f"CUDA events around {calls} back-to-back calls"
    res["sizes"] = {"mlp": WIDTH, "tiny_ops": TINY_OPS}
    for key, val in res.items():
        print(f"{key:30} {val:.4g}" if isinstance(val, float) else f"{key:30} {val}")
    if "--json" in sys.argv:
        with open(sys.argv[sys.argv.index("--json") + 1], "w") as f:
            json.dump(res, f, indent=1)


if __name__ == "__main__":
    main()
