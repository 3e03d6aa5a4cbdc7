"""All-reduce times by message size over `world` local GPUs (torch.distributed with the
NCCL backend, which is RCCL on ROCm builds of PyTorch).

One process per GPU. Two launch modes, since engines differ (the issue's "NCCL with and
without CUDA graphs"):
  * eager: each timed repeat is barrier, start event, one all_reduce (bf16 sum, in place),
    end event; the per-call launch cost is included.
  * cuda_graph: GRAPH_CALLS all-reduces captured in one CUDA/HIP graph; each repeat
    replays it and divides by GRAPH_CALLS (launch cost amortised, as in an engine that
    captures its decode step). Skipped, with a note, when capture fails.
A collective ends when its slowest rank does, so each repeat's time is the maximum over
ranks (an all-reduce MAX of the per-rank times); the table keeps the median over repeats.
The parent waits at most `timeout` seconds per group size and then kills the workers, so a
hung collective cannot lose the kernel tables (written before this runs).
"""
import json
import os
import socket
import statistics
import tempfile
import time

import torch
import torch.distributed as dist
import torch.multiprocessing as mp

GRAPH_CALLS = 10


def _free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _max_over_ranks(times):
    t = torch.tensor(times, device="cuda", dtype=torch.float64)
    dist.all_reduce(t, op=dist.ReduceOp.MAX)
    return statistics.median(t.tolist())


def _eager(x, warmup, repeats):
    for _ in range(warmup):
        dist.all_reduce(x)
    times = []
    for _ in range(repeats):
        dist.barrier()
        start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        start.record()
        dist.all_reduce(x)
        end.record()
        torch.cuda.synchronize()
        times.append(start.elapsed_time(end) * 1e-3)
    return _max_over_ranks(times)


def _graph(x, warmup, repeats):
    side = torch.cuda.Stream()
    side.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(side):  # warm-up off the capture stream, as torch.cuda.graphs requires
        for _ in range(warmup):
            dist.all_reduce(x)
    torch.cuda.current_stream().wait_stream(side)
    torch.cuda.synchronize()
    g = torch.cuda.CUDAGraph()
    with torch.cuda.graph(g):
        for _ in range(GRAPH_CALLS):
            dist.all_reduce(x)
    g.replay()
    torch.cuda.synchronize()
    times = []
    for _ in range(repeats):
        dist.barrier()
        start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        start.record()
        g.replay()
        end.record()
        torch.cuda.synchronize()
        times.append(start.elapsed_time(end) * 1e-3 / GRAPH_CALLS)
    return _max_over_ranks(times)


def _worker(rank, world, sizes, warmup, repeats, port, out_path):
    os.environ.setdefault("MASTER_ADDR", "127.0.0.1")
    os.environ["MASTER_PORT"] = str(port)
    torch.cuda.set_device(rank)
    dist.init_process_group("nccl", rank=rank, world_size=world)
    results = {"eager": {}, "cuda_graph": {}, "notes": []}
    try:
        for size in sizes:
            x = torch.ones(size // 2, dtype=torch.bfloat16, device="cuda")
            results["eager"][str(size)] = _eager(x, warmup, repeats)
            del x
        try:
            for size in sizes:
                x = torch.ones(size // 2, dtype=torch.bfloat16, device="cuda")
                results["cuda_graph"][str(size)] = _graph(x, warmup, repeats)
                del x
        except Exception as e:  # noqa: BLE001 - capture unsupported here: keep the eager rows
            results["notes"].append(f"all-reduce in a CUDA graph over {world} GPUs not timed: "
                                    f"{str(e).splitlines()[0][:160]}")
        if rank == 0:
            with open(out_path, "w", encoding="utf-8") as f:
                json.dump(results, f)
    finally:
        dist.destroy_process_group()


def measure(world, sizes, warmup, repeats, log=print, timeout=300):
    """{"eager": {bytes: s}, "cuda_graph": {bytes: s}, "notes": [...]}; empty modes on failure."""
    empty = {"eager": {}, "cuda_graph": {}, "notes": []}
    if torch.cuda.device_count() < world:
        empty["notes"].append(f"all-reduce over {world} GPUs not timed: {torch.cuda.device_count()} visible")
        return empty
    tmpdir = tempfile.mkdtemp()
    out_path = os.path.join(tmpdir, "allreduce.json")
    ctx = None
    try:
        ctx = mp.start_processes(_worker, args=(world, list(sizes), warmup, repeats, _free_port(), out_path),
                                 nprocs=world, join=False, start_method="spawn")
        deadline = time.monotonic() + timeout
        while not ctx.join(timeout=5):
            if time.monotonic() > deadline:
                raise TimeoutError(f"no result after {timeout} s")
        with open(out_path, encoding="utf-8") as f:
            raw = json.load(f)
        return {"eager": {int(k): v for k, v in raw["eager"].items()},
                "cuda_graph": {int(k): v for k, v in raw["cuda_graph"].items()}, "notes": raw["notes"]}
    except Exception as e:  # noqa: BLE001 - a failed collective must not lose the other tables
        msg = f"all-reduce over {world} GPUs failed: {type(e).__name__}: {str(e).splitlines()[0][:200] if str(e) else ''}"
        log("  " + msg)
        empty["notes"].append(msg)
        return empty
    finally:
        if ctx is not None:
            for p in ctx.processes:
                if p.is_alive():
                    p.terminate()
        if os.path.exists(out_path):
            os.unlink(out_path)
        os.rmdir(tmpdir)
