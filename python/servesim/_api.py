"""servesim's functions: run, sweep, plan, inspect, describe (the CLI's commands).

The examples below run from the repository's root (scenarios/ is there) and print
what this build prints: python/tests/test_docs.py runs them.
"""
from __future__ import annotations

import json
import os
from collections.abc import Iterable, Mapping
from typing import Any, Optional, Union

from . import _args, _servesim
from ._results import PlanResult, Result, SweepResult

#: A scenario: a file path, YAML text, or the document as a dict.
Scenario = Union[str, "os.PathLike[str]", Mapping[str, Any]]
#: Overrides applied as the CLI's --set: {key: value}, one "key=value" string, or a list of them.
Sets = Union[Mapping[str, Any], str, Iterable[str], None]
#: Swept values: {key: [values]} or {key: "START:STOP:STEP" / "a,b,c"} (the CLI's --vary text).
Vary = Mapping[str, Union[str, int, float, Iterable[Any]]]


def run(scenario: Scenario, set: Sets = None, *, timeline_rows: int = 20000, fast_forward: bool = True,
        requests: bool = True, seed_replicates: Optional[int] = None) -> Result:
    """Simulates a scenario: `servesim run`.

    scenario:      a file path, YAML text, or the document as a dict
    set:           overrides, as the CLI's --set: {"workload.arrival.rate": 12},
                   "workload.arrival.rate=12", or a list of such strings
    timeline_rows: keep at most about this many rows of Result.timeline
    fast_forward:  False simulates every decode step one by one (for checking)
    requests:      False keeps no per-request rows (Result.requests empty, the
                   summary the same), for runs of many millions of requests
    seed_replicates: replay with this many more seeds and widen the 80% bands by
                   their spread, as `run --seed-replicates` (None: 4 when the run has a
                   band and at most 50,000 requests, else 0)

    Returns a Result: .summary (the dict of `run --json`), .requests and .timeline
    (NumPy columns), .ttft_ms and friends, .slo_met, .overloaded; a notebook shows
    its verdict and tables. Bad input raises ConfigError naming the key. The GIL is
    released while it simulates; Ctrl-C stops it (KeyboardInterrupt).

    >>> r = servesim.run("scenarios/quickstart.yaml", set={"workload.requests": 200})
    >>> round(r.ttft_ms.p99, 2), r.slo_met, r.overloaded
    (123.5, True, False)
    >>> print(r.title)
    llama-3.1-8b on h100-sxm x1 (tp=1, pp=1, replicas=1), W16A16 (bf16 weights, bf16 compute), bf16 KV, vllm engine
    >>> round(r.requests_frame()["ttft_ms"].mean(), 3) == round(r.summary["ttft_ms"]["mean"], 3)
    True
    """
    raw = _servesim.run(_args.scenario_input(scenario), _args.sets(set),
                        _args.integer("timeline_rows", timeline_rows, 0),
                        _args.flag("fast_forward", fast_forward), _args.flag("requests", requests),
                        _seed_replicates(seed_replicates))
    return Result._from_raw(raw)


def _seed_replicates(value) -> int:
    """-1 (automatic) for None; else 0..64, the CLI's --seed-replicates range."""
    if value is None:
        return -1
    v = _args.integer("seed_replicates", value, 0)
    if v > 64:
        raise _args.bad_value(f"seed_replicates: {v} is above 64", "seed_replicates")
    return v


def sweep(scenario: Scenario, vary: Vary, set: Sets = None, *, jobs: int = 0,
          max_points: Optional[int] = None) -> SweepResult:
    """Simulates every point of the cartesian product of `vary`: `servesim sweep`.

    vary: {key: values} in axis order (the last key varies fastest); values are a
          list ([64, 128], ["bf16", "fp8"]), one value, or the CLI's text
          ("2:24:2", "1:3:1,8", "bf16,fp8")
    set:  overrides applied to every point, as in run()
    jobs: threads (0: all cores); the rows do not depend on it
    max_points: refuse sweeps of more points than this (the CLI's --max-points;
          default: the CLI's bound)

    Returns a SweepResult: .csv / .json are the bytes `sweep --out F.csv` / `F.json`
    write, .rows the points as dicts, .frame() a pandas DataFrame.

    >>> s = servesim.sweep("scenarios/quickstart.yaml", vary={"workload.arrival.rate": [4, 24]},
    ...                    set={"workload.requests": 400})
    >>> s
    <servesim.SweepResult: 2 points, 2 feasible, 1 meet the SLOs, 1 overloaded>
    >>> s.frame()[["workload.arrival.rate", "ttft_ms.p99", "slo.met", "load.overloaded"]]
       workload.arrival.rate  ttft_ms.p99  slo.met  load.overloaded
    0                      4   106.635986     True            False
    1                     24  2034.231713    False             True
    """
    jobs = _args.integer("jobs", jobs, 0, why=" (0: all cores)")
    limit = 0 if max_points is None else _args.integer("max_points", max_points, 1)
    csv, json_text = _servesim.sweep(_args.scenario_input(scenario), _args.sets(set), _args.axes(vary), jobs, limit)
    return SweepResult._from_texts(csv, json_text)


def plan(scenario: Scenario, set: Sets = None, *, target_rate: Optional[float] = None,
         gpu_budget: Optional[int] = None, gpus: Union[str, Iterable[str], None] = None,
         weights: Union[str, Iterable[str], None] = None, tps: Union[int, Iterable[int], None] = None,
         pps: Union[int, Iterable[int], None] = None, max_replicas: Optional[int] = None,
         trial_requests: Optional[int] = None, tolerance: Optional[float] = None, jobs: int = 0) -> PlanResult:
    """Finds the cheapest configurations that meet the SLOs: `servesim plan`.

    For each candidate (GPU x weights precision x TP x PP) it searches the highest
    rate one replica serves within the SLOs, then the replicas, GPUs and cost for
    target_rate (or what gpu_budget GPUs serve). The keywords are the CLI's flags
    and win over the scenario's plan: section:

    target_rate:    requests/s to serve in total (--target-rate)
    gpu_budget:     GPUs available (--gpu-budget)
    gpus, weights:  candidate GPUs / weight precisions; one str is one candidate
                    (--candidates-gpu, --candidates-weights)
    tps, pps:       candidate TP / PP degrees; one int or a list (--candidates-tp/-pp)
    max_replicas, trial_requests, tolerance: the rate search's limits
    jobs:           threads (0: all cores)

    Returns a PlanResult: .data (`plan --json`), .csv (plan.csv), .table (what the
    CLI prints; also the repr), .best, .frame().

    >>> p = servesim.plan("scenarios/capacity-plan.yaml", target_rate=20, gpus="h100-sxm", weights="bf16",
    ...                   tps=[2, 4], trial_requests=100, set={"workload.requests": 100})
    >>> p.best["label"], p.best["replicas"], p.best["gpus"]
    ('h100-sxm bf16 tp=4', 5, 20)
    """
    f = _servesim.PlanSection()
    if target_rate is not None:
        f.target_rate = _args.number("target_rate", target_rate, "plan.target_rate")
        if not f.target_rate > 0:
            raise _args.bad_value(f"target_rate: {f.target_rate:g} req/s; must be positive", "plan.target_rate")
    if gpu_budget is not None:
        f.gpu_budget = _args.integer("gpu_budget", gpu_budget, 1, "plan.gpu_budget", " GPU")
    f.gpus = _args.texts("gpus", gpus)
    f.weights = _args.texts("weights", weights)
    f.tps = _args.integers("tps", tps, 1, "plan.candidates.tp")
    f.pps = _args.integers("pps", pps, 1, "plan.candidates.pp")
    if max_replicas is not None:
        f.max_replicas = _args.integer("max_replicas", max_replicas, 1, "plan.max_replicas")
    if trial_requests is not None:
        f.trial_requests = _args.integer("trial_requests", trial_requests, 50, "plan.trial_requests",
                                         " (the rate search needs at least 50 requests per trial)")
    if tolerance is not None:
        f.tolerance = _args.number("tolerance", tolerance, "plan.tolerance")
        if not 0 < f.tolerance < 1:
            raise _args.bad_value(f"tolerance: {f.tolerance:g}; must be a fraction in (0, 1)", "plan.tolerance")
    jobs = _args.integer("jobs", jobs, 0, why=" (0: all cores)")
    return PlanResult._from_texts(*_servesim.plan(_args.scenario_input(scenario), _args.sets(set), f, jobs))


def inspect(scenario: Optional[Scenario] = None, set: Sets = None, *, gpu: Optional[str] = None,
            model: Optional[str] = None, weights: Optional[str] = None, activations: Optional[str] = None,
            kv_cache: Optional[str] = None, tp: Optional[int] = None, pp: Optional[int] = None,
            ep: Optional[int] = None, prefill_batch: int = 1, prefill_len: int = 1024, decode_batch: int = 32,
            decode_context: int = 1024) -> dict[str, Any]:
    """The memory plan and per-operator roofline of a prefill and a decode batch:
    `servesim inspect --json`, as a dict. `scenario` may be left out when gpu= and
    model= say enough; the keywords are the CLI's flags (--gpu, --tp, ...), applied
    before `set` (which wins).

    >>> i = servesim.inspect(gpu="h100-sxm", model="llama-3.1-8b")
    >>> sorted(i)
    ['decode', 'memory', 'prefill', 'setup']
    """
    inp = _servesim.ScenarioInput() if scenario is None else _args.scenario_input(scenario)
    text_edits = [(k, _args.text(name, v)) for name, k, v in (
        ("gpu", "hardware.gpu", gpu), ("model", "model.name", model), ("weights", "model.weights", weights),
        ("activations", "model.activations", activations), ("kv_cache", "model.kv_cache", kv_cache))
        if v is not None]
    number_edits = [(k, float(_args.integer(name, v, 1, k))) for name, k, v in (
        ("tp", "parallelism.tp", tp), ("pp", "parallelism.pp", pp), ("ep", "parallelism.ep", ep)) if v is not None]
    b = _servesim.InspectBatches()
    b.prefill_batch = _args.integer("prefill_batch", prefill_batch, 1)
    b.prefill_len = _args.integer("prefill_len", prefill_len, 1)
    b.decode_batch = _args.integer("decode_batch", decode_batch, 1)
    b.decode_context = _args.integer("decode_context", decode_context, 1)
    return json.loads(_servesim.inspect(inp, text_edits, number_edits, _args.sets(set), b))


def describe(what: str = "", markdown: bool = False) -> str:
    """Every configuration key (type, unit, default, range, meaning), or one
    section's or key's: the text `servesim describe [WHAT]` prints.

    >>> print(servesim.describe("engine.max_num_seqs").splitlines()[0])
    engine: the serving engine's settings (vLLM's engine arguments where they exist)
    """
    return _servesim.describe(_args.text("what", what), _args.flag("markdown", markdown))
