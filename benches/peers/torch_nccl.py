#!/usr/bin/env python3
"""PyTorch peer figures for the NCCL and peer-copy benchmarks (crates/cuprite-cli/src/bench/nccl.rs).

torch.distributed with the NCCL backend, one process per GPU (spawned by this script, rendezvous
over TCP on 127.0.0.1), on the same GPUs and in the same call as `cuprite bench nccl peer`:
- all_reduce (sum), all_gather, reduce_scatter (sum), broadcast of f32 from 8 B to 1 GiB; time
  per call from CUDA events around a batch of calls (the slowest rank's), then nccl-tests'
  bandwidths: algbw = bytes / time; busbw = algbw x 2(n-1)/n (all_reduce), (n-1)/n (all_gather,
  reduce_scatter; bytes = the whole gathered / scattered buffer), 1 (broadcast);
- an 8 KiB all_reduce from the call until torch.cuda.synchronize() returns (host clock, median);
- a 1 GiB copy from cuda:0 to cuda:1 in one process (before the ranks start), CUDA events.
NCCL_NVLS_ENABLE=0 is set for every process (NVLink multicast stays off).

usage: python3 benches/peers/torch_nccl.py [--quick] [--gpus N] [--json out.json]
"""
import json, os, socket, statistics, sys, time

os.environ["NCCL_NVLS_ENABLE"] = "0"

import torch
import torch.distributed as dist
import torch.multiprocessing as mp
from peer_timing import identity

KIB, MIB, GIB = 1 << 10, 1 << 20, 1 << 30
SIZES = [8, 64, 512, 4 * KIB, 32 * KIB, 256 * KIB, 2 * MIB, 16 * MIB, 64 * MIB, 256 * MIB, GIB]


def label(b):
    for unit, name in ((GIB, "GiB"), (MIB, "MiB"), (KIB, "KiB")):
        if b >= unit and b % unit == 0:
            return f"{b // unit}{name}"
    return f"{b}B"


def bus_factor(coll, n):
    if coll == "all_reduce":
        return 2 * (n - 1) / n
    if coll in ("all_gather", "reduce_scatter"):
        return (n - 1) / n
    return 1.0


def peer_copy(nbytes, reps=20):
    if torch.cuda.device_count() < 2:
        return None
    x = torch.arange(nbytes // 4, dtype=torch.int32, device="cuda:0")
    y = torch.empty_like(x, device="cuda:1")
    with torch.cuda.device(1):
        for _ in range(3):
            y.copy_(x, non_blocking=True)
        torch.cuda.synchronize(1)
        s, e = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        ts = []
        for _ in range(reps):
            s.record()
            y.copy_(x, non_blocking=True)
            e.record()
            e.synchronize()
            ts.append(s.elapsed_time(e) / 1e3)
    assert torch.equal(y[:1024].cpu(), x[:1024].cpu())
    t = statistics.median(ts)
    return {"GBps": nbytes / t / 1e9, "time_us": t * 1e6}


def worker(rank, world, port, quick, queue):
    os.environ["NCCL_NVLS_ENABLE"] = "0"
    torch.cuda.set_device(rank)
    kw = dict(init_method=f"tcp://127.0.0.1:{port}", rank=rank, world_size=world)
    try:
        dist.init_process_group("nccl", device_id=torch.device("cuda", rank), **kw)
    except TypeError:  # torch before 2.3 has no device_id
        dist.init_process_group("nccl", **kw)
    dev = torch.device("cuda", rank)
    cap = (16 * MIB if quick else GIB) // 4
    send = (torch.arange(cap, dtype=torch.float32, device=dev) % 1000) * 0.001 + 0.5
    recv = send.clone()
    res = {}

    def run(coll, nbytes):
        total = nbytes // 4
        part = total // world
        if coll == "all_reduce":
            dist.all_reduce(recv[:total], op=dist.ReduceOp.SUM)  # in place, as torch has it
        elif coll == "all_gather":
            dist.all_gather_into_tensor(recv[:part * world], send[:part])
        elif coll == "reduce_scatter":
            dist.reduce_scatter_tensor(recv[:part], send[:part * world], op=dist.ReduceOp.SUM)
        else:
            dist.broadcast(recv[:total], src=0)

    for coll in ("all_reduce", "all_gather", "reduce_scatter", "broadcast"):
        for nbytes in SIZES:
            if nbytes // 4 > cap or nbytes // 4 < world:
                continue
            if coll in ("all_gather", "reduce_scatter"):
                nbytes = nbytes // (4 * world) * (4 * world)
            else:
                nbytes = nbytes // 4 * 4
            iters = max(5, min(50, GIB // max(nbytes, 1)))
            for _ in range(3):
                run(coll, nbytes)
            torch.cuda.synchronize()
            ts = []
            for _ in range(10):
                s, e = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
                s.record()
                for _ in range(iters):
                    run(coll, nbytes)
                e.record()
                e.synchronize()
                t = torch.tensor([s.elapsed_time(e) / 1e3 / iters], device=dev)
                dist.all_reduce(t, op=dist.ReduceOp.MAX)
                ts.append(t.item())
            t = statistics.median(ts)
            algbw = nbytes / t / 1e9
            res[f"nccl/{coll} {label(nbytes)} busbw"] = {
                "busbw_GBps": algbw * bus_factor(coll, world),
                "algbw_GBps": algbw,
                "time_us": t * 1e6,
            }

    # 8 KiB all_reduce, call to completion.
    x = send[: 8 * KIB // 4].clone()
    for _ in range(20):
        dist.all_reduce(x)
        torch.cuda.synchronize()
    ts = []
    for _ in range(200):
        t0 = time.perf_counter()
        dist.all_reduce(x)
        torch.cuda.synchronize()
        ts.append(time.perf_counter() - t0)
    res["nccl/all_reduce 8KiB latency"] = {"time_us": statistics.median(ts) * 1e6}
    dist.barrier()
    dist.destroy_process_group()
    if rank == 0:
        queue.put(res)


def main():
    quick = "--quick" in sys.argv
    world = torch.cuda.device_count()
    if "--gpus" in sys.argv:
        world = min(world, int(sys.argv[sys.argv.index("--gpus") + 1]))
    out = {
        **identity(quick),
        "gpus": world,
        "torch": torch.__version__,
        "nccl": ".".join(map(str, torch.cuda.nccl.version())),
        "processes": "one per GPU (torch.distributed, NCCL backend)",
        "NCCL_NVLS_ENABLE": os.environ.get("NCCL_NVLS_ENABLE"),
    }
    pc = peer_copy(64 * MIB if quick else GIB)
    if pc is not None:
        out[f"peer/copy {label(64 * MIB if quick else GIB)} GB/s"] = pc
    torch.cuda.empty_cache()
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    ctx = mp.get_context("spawn")
    queue = ctx.Queue()
    procs = [ctx.Process(target=worker, args=(r, world, port, quick, queue)) for r in range(world)]
    for p in procs:
        p.start()
    res = queue.get(timeout=900)
    for p in procs:
        p.join(timeout=120)
    out.update(res)
    text = json.dumps(out, indent=1)
    print(text)
    if "--json" in sys.argv:
        with open(sys.argv[sys.argv.index("--json") + 1], "w") as f:
            f.write(text + "\n")


if __name__ == "__main__":
    main()
