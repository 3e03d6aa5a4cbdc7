"""All-reduce times by message size over `world` local GPUs (torch.distributed with the
NCCL backend, which is RCCL on ROCm builds of PyTorch).

One process per GPU (torch.multiprocessing.spawn). Each timed repeat: barrier, start
event, one all_reduce (sum, bf16, in place), end event. A collective finishes when its
slowest rank does, so each repeat's time is the maximum over ranks (an all-reduce MAX
of the per-rank times), and the reported time is the median over repeats. Eager
launches, no CUDA graphs: the per-call launch cost is included, as in an engine that
does not capture graphs.
"""
import json
import os
import socket
import statistics
import tempfile

import torch
import torch.distributed as dist
import torch.multiprocessing as mp


def _free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _worker(rank, world, sizes, warmup, repeats, port, out_path):
    os.environ.setdefault("MASTER_ADDR", "127.0.0.1")
    os.environ["MASTER_PORT"] = str(port)
    torch.cuda.set_device(rank)
    dist.init_process_group("nccl", rank=rank, world_size=world)
    results = {}
    try:
        for size in sizes:
            x = torch.ones(size // 2, dtype=torch.bfloat16, device="cuda")
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
            t = torch.tensor(times, device="cuda", dtype=torch.float64)
            dist.all_reduce(t, op=dist.ReduceOp.MAX)  # the slowest rank ends the collective
            results[size] = statistics.median(t.tolist())
            del x
        if rank == 0:
            with open(out_path, "w", encoding="utf-8") as f:
                json.dump({str(k): v for k, v in results.items()}, f)
    finally:
        dist.destroy_process_group()


def measure(world, sizes, warmup, repeats, log=print):
    """{message bytes: seconds}; empty when the group cannot be formed (logged)."""
    if torch.cuda.device_count() < world:
        log(f"  all-reduce over {world} GPUs skipped: {torch.cuda.device_count()} visible")
        return {}
    fd, out_path = tempfile.mkstemp(suffix=".json")
    os.close(fd)
    try:
        mp.spawn(_worker, args=(world, list(sizes), warmup, repeats, _free_port(), out_path), nprocs=world, join=True)
        with open(out_path, encoding="utf-8") as f:
            return {int(k): v for k, v in json.load(f).items()}
    except Exception as e:  # noqa: BLE001 - a failed collective must not lose the kernel tables
        log(f"  all-reduce over {world} GPUs failed: {str(e).splitlines()[0][:200]}")
        return {}
    finally:
        os.unlink(out_path)
