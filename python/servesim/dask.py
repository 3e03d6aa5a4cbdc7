"""Sweeps on a Dask cluster (`dask.distributed`, Debian's python3-distributed).

    from dask.distributed import Client
    import servesim.dask
    client = Client("scheduler:8786")
    table = servesim.dask.sweep(client, "scenarios/quickstart.yaml",
                                vary={"workload.arrival.rate": "1:40:1", "model.kv_cache": ["bf16", "fp8"]})
    table.frame()

The points are split into shards as `servesim sweep --shard K/N` splits them (point i
goes to shard i mod N), each shard runs as one Dask task on a worker, and the shard
files merge into one table: `table.csv` is byte-identical to the local
servesim.sweep(...) and to `servesim sweep --out F.csv` of the same sweep. Workers
need servesim importable and the scenario's files (traces, catalogs) readable at the
same paths; a dict or YAML-string scenario travels with the task.
"""

from __future__ import annotations

from typing import Any

import servesim
from servesim import _args, _servesim
from servesim._api import Scenario, Sets, Vary


def _worker_count(client):
    try:
        return max(1, len(client.scheduler_info().get("workers", {})))
    except Exception:  # an unusual client: one task per point still balances
        return 1


def _run_shard(scenario, sets, axes, k, n, jobs):
    # Runs on a worker: the scenario (path, YAML text or dict) resolves there.
    return _servesim.sweep_shard(_args.scenario_input(scenario), sets, axes, k, n, jobs)


def sweep(client: Any, scenario: Scenario, vary: Vary, set: Sets = None, shards: int | None = None,
          jobs: int = 1) -> servesim.SweepResult:
    """Runs the sweep as `shards` Dask tasks (default: 4 per worker, at most one per
    point), each simulating its points on `jobs` threads, and gathers one table ->
    servesim.SweepResult, identical to servesim.sweep(scenario, vary, set)."""
    _args.scenario_input(scenario)  # refused here, not on a worker
    sets = _args.sets(set)
    axes = _args.axes(vary)
    jobs = _args.integer("jobs", jobs, 0, why=" (0: all cores)")
    points = 1
    for _, values in axes:
        points *= len(values)
    n = _args.integer("shards", shards, 1) if shards is not None else min(points, 4 * _worker_count(client))
    n = max(1, min(n, points))
    futures = [client.submit(_run_shard, scenario, sets, axes, k, n, jobs, pure=False) for k in range(n)]
    texts = client.gather(futures)
    csv, json_text = _servesim.merge_shards(texts, [f"dask shard {k}/{n}" for k in range(n)])
    return servesim.SweepResult._from_texts(csv, json_text)


def _run_plan(scenario, sets, kwargs):
    return servesim.plan(scenario, set=sets, **kwargs)


def plan(client: Any, scenario: Scenario, vary: Vary, set: Sets = None,
         **plan_options: Any) -> list[tuple[dict[str, str], servesim.PlanResult]]:
    """One `servesim plan` per point of `vary` (the cartesian product, last key fastest),
    each point a Dask task -> list of (point values dict, servesim.PlanResult), in point
    order; the same as calling servesim.plan on each point locally. A single plan's
    candidates stay together on one worker (their ranking compares them all); its
    `jobs=` threads search them in parallel there."""
    _args.scenario_input(scenario)  # refused here, not on a worker
    sets = _args.sets(set)
    axes = _args.axes(vary)
    points = [[]]
    for key, values in axes:
        points = [p + [(key, v)] for p in points for v in values]
    futures = [client.submit(_run_plan, scenario, sets + [f"{k}={v}" for k, v in p], plan_options, pure=False)
               for p in points]
    results = client.gather(futures)
    return [(dict(p), r) for p, r in zip(points, results)]
