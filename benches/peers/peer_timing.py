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


def identity(quick):
    """What `cuprite bench --peers` checks before it judges a peer file against its own run
    (crates/cuprite-cli/src/bench/report.rs, `peer_refusal`): the device (name and UUID, as
    `nvidia-smi` prints it), the CUDA version the driver supports (cuDriverGetVersion, as
    cuprite reads it), PyTorch's version and the CUDA runtime it was built with, whether the
    sizes are the `--quick` ones, and when the figures were taken (UTC)."""
    import ctypes
    import datetime

    props = torch.cuda.get_device_properties(torch.cuda.current_device())
    uuid = getattr(props, "uuid", None)
    uuid = None if uuid is None else str(uuid)
    if uuid is not None and not uuid.startswith("GPU-"):
        uuid = "GPU-" + uuid
    driver = None
    try:
        v = ctypes.c_int(0)
        if ctypes.CDLL("libcuda.so.1").cuDriverGetVersion(ctypes.byref(v)) == 0:
            driver = f"{v.value // 1000}.{(v.value % 1000) // 10}"
    except OSError:
        pass
    return {
        "device": torch.cuda.get_device_name(),
        "device_uuid": uuid,
        "driver": driver,
        "torch": torch.__version__,
        "cuda": torch.version.cuda,
        "quick": bool(quick),
        "date": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
    }
