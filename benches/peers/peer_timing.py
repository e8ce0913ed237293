"""Device timing shared by the PyTorch peer scripts of this folder (imported as `peer_timing`:
each script runs with this folder first on `sys.path`).

Both helpers time `k` back-to-back calls between one pair of CUDA events, after `warmup` rounds
of the same, `reps` times, as `cuprite bench` does on its side: Python's dispatch overlaps the
GPU work as it would in a real loop instead of sitting inside each timed window.
"""
import statistics

import torch


def per_call_ms(fn, k, warmup=3, reps=20):
    """(median, min, max) milliseconds per call of `fn` over `reps` samples of `k` calls."""
    for _ in range(warmup):
        for _ in range(k):
            fn()
    torch.cuda.synchronize()
    start = torch.cuda.Event(enable_timing=True)
    end = torch.cuda.Event(enable_timing=True)
    out = []
    for _ in range(reps):
        start.record()
        for _ in range(k):
            fn()
        end.record()
        end.synchronize()
        out.append(start.elapsed_time(end) / k)
    return statistics.median(out), min(out), max(out)


def device_time(fn, calls, warmup=3, reps=20):
    """Median seconds per call (see `per_call_ms`)."""
    return per_call_ms(fn, calls, warmup, reps)[0] / 1e3
