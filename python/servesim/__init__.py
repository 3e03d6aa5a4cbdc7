"""servesim from Python: simulate LLM inference serving, sweep and plan.

    import servesim
    r = servesim.run("scenarios/quickstart.yaml", set={"workload.arrival.rate": 4})
    r.summary["ttft_ms"]["p99"]          # the numbers of `servesim run --json`
    pandas.DataFrame(r.requests)         # one row per request (NumPy columns)
    servesim.sweep("scenarios/quickstart.yaml", vary={"workload.arrival.rate": "2:10:2"}).frame()

A scenario is a file path, a YAML string or a dict (the document as YAML would
give it). `set` overrides keys as the CLI's --set does (values are YAML, so
{"hardware.gpu": "h200-sxm"} and {"workload.arrival.rate": 12} both work). Bad
input raises servesim.ConfigError (a ValueError) with the CLI's message and
.file/.line/.column/.key_path/.kind; other refusals raise servesim.Error.
Simulations release the GIL. servesim.dask runs sweeps on a Dask cluster.
"""

import io
import json
import os

# An installed package (<prefix>/lib/python3.X/dist-packages/servesim) reads the catalogs
# installed beside it (<prefix>/share/servesim), as the installed binary does; the
# library reads $SERVESIM_HOME, which a user's own setting overrides.
_installed_home = os.path.normpath(os.path.join(os.path.dirname(__file__), "..", "..", "..", "..",
                                                "share", "servesim"))
if "SERVESIM_HOME" not in os.environ and os.path.isdir(os.path.join(_installed_home, "hardware")):
    os.environ["SERVESIM_HOME"] = _installed_home

from . import _servesim  # noqa: E402
from ._servesim import ConfigError, Error  # noqa: E402,F401

__all__ = ["run", "sweep", "plan", "inspect", "describe", "Result", "SweepResult", "PlanResult",
           "Error", "ConfigError"]


def _scenario_input(scenario):
    """A path (str or os.PathLike naming a file), YAML text, or a dict."""
    inp = _servesim.ScenarioInput()
    if isinstance(scenario, dict):
        # JSON is YAML: the dict's document, with numbers written exactly. An error's
        # line and column count in json.dumps(scenario, indent=2); its key path is the
        # dict's own.
        inp.text = json.dumps(scenario, indent=2)
        inp.origin = "<scenario dict>"
    elif isinstance(scenario, os.PathLike):
        inp.path = os.fspath(scenario)
    elif isinstance(scenario, str):
        # YAML text of a scenario is a mapping, so it has a colon; a one-line string without
        # one is a path (a missing file is then said to be missing, not "not a mapping").
        looks_like_file = "\n" not in scenario and (scenario.endswith((".yaml", ".yml")) or ":" not in scenario
                                                    or os.path.isfile(scenario))
        if looks_like_file:
            inp.path = scenario
        else:
            inp.text = scenario
            inp.origin = "<scenario string>"
    else:
        raise TypeError(f"scenario: expected a path, a YAML string or a dict, got {type(scenario).__name__}")
    return inp


def _yaml_value(value):
    """A Python value as the YAML text --set takes (strings as written)."""
    if isinstance(value, str):
        return value
    return json.dumps(value)


def _sets(set):
    if set is None:
        return []
    if isinstance(set, dict):
        return [f"{k}={_yaml_value(v)}" for k, v in set.items()]
    return list(set)  # already "key=value" strings


def _axes(vary):
    """{key: [values] | "V1,V2" | "START:STOP:STEP"} -> [(key, [YAML texts])], in order."""
    if not vary:
        raise Error("nothing to sweep: give vary={key: values}")
    axes = []
    for key, values in vary.items():
        if isinstance(values, str):
            axes.append(_servesim.parse_vary(f"{key}={values}"))
        else:
            axes.append((key, [_yaml_value(v) for v in values]))
    return axes


class Result:
    """One simulated run.

    summary:  dict, the JSON of `servesim run --json` (latency statistics, throughput,
              SLOs, load, failures, config, bands)
    requests: dict of NumPy columns, one row per request in finishing order (the
              columns of requests.csv; NaN where the CSV leaves a cell empty)
    timeline: dict of NumPy columns (the columns of timeline.csv), at most
              `timeline_rows` rows
    """

    def __init__(self, raw):
        self.summary = json.loads(raw["summary"])
        self.requests = raw["requests"]
        self.timeline = raw["timeline"]
        self.kv_blocks_per_replica = raw["kv_blocks_per_replica"]

    def __repr__(self):
        return f"<servesim.Result: {len(self.requests['id'])} requests>"


class SweepResult:
    """A sweep's table. csv / json: exactly the bytes `servesim sweep --out F.csv` /
    `--out F.json` write; rows: the JSON as a list of dicts; frame(): a pandas DataFrame."""

    def __init__(self, csv, json_text):
        self.csv = csv
        self.json = json_text
        self.rows = json.loads(json_text)

    def frame(self):
        import pandas
        return pandas.read_csv(io.StringIO(self.csv))

    def __len__(self):
        return len(self.rows)

    def __repr__(self):
        return f"<servesim.SweepResult: {len(self.rows)} points>"


class PlanResult:
    """A capacity plan: data (the JSON of `plan --json`), csv (plan.csv), table (the text
    `servesim plan` prints), frame() (plan.csv as a pandas DataFrame)."""

    def __init__(self, json_text, csv, table):
        self.data = json.loads(json_text)
        self.csv = csv
        self.table = table

    def frame(self):
        import pandas
        return pandas.read_csv(io.StringIO(self.csv))

    def __repr__(self):
        return self.table


def run(scenario, set=None, timeline_rows=20000, fast_forward=True, requests=True):
    """Simulates a scenario (path, YAML string or dict) -> Result. The GIL is released
    while it simulates. Every request's result is kept for Result.requests (88 bytes
    each while it runs, then the columns); requests=False keeps none (empty columns)."""
    return Result(_servesim.run(_scenario_input(scenario), _sets(set), int(timeline_rows), bool(fast_forward),
                                bool(requests)))


def sweep(scenario, vary, set=None, jobs=0):
    """The cartesian product of `vary` ({key: [values] or "START:STOP:STEP"}, the last key
    fastest), one row per point, simulated on `jobs` threads (0: all cores) -> SweepResult.
    The rows do not depend on `jobs`."""
    csv, json_text = _servesim.sweep(_scenario_input(scenario), _sets(set), _axes(vary), int(jobs))
    return SweepResult(csv, json_text)


def plan(scenario, set=None, target_rate=None, gpu_budget=None, gpus=None, weights=None, tps=None, pps=None,
         max_replicas=None, trial_requests=None, tolerance=None, jobs=0):
    """`servesim plan`: per candidate (GPU x weights x TP x PP) the maximum SLO-meeting
    rate, replicas, GPUs and cost -> PlanResult. Keyword arguments are the CLI's flags
    (--candidates-gpu is gpus=[...]) and win over the scenario's plan section."""
    # The CLI's checks of the same flags (cmd_plan.cpp), with its words.
    if target_rate is not None and not target_rate > 0:
        raise Error("target_rate must be positive")
    if gpu_budget is not None and gpu_budget < 1:
        raise Error("gpu_budget must be at least 1")
    if trial_requests is not None and trial_requests < 50:
        raise Error("trial_requests: use at least 50")
    if tolerance is not None and not 0 < tolerance < 1:
        raise Error("tolerance must be a fraction in (0, 1)")
    f = _servesim.PlanSection()
    if target_rate is not None:
        f.target_rate = float(target_rate)
    if gpu_budget is not None:
        f.gpu_budget = int(gpu_budget)
    f.gpus = list(gpus or [])
    f.weights = list(weights or [])
    f.tps = [int(v) for v in (tps or [])]
    f.pps = [int(v) for v in (pps or [])]
    f.max_replicas = int(max_replicas or 0)
    f.trial_requests = int(trial_requests or 0)
    f.tolerance = float(tolerance or 0)
    return PlanResult(*_servesim.plan(_scenario_input(scenario), _sets(set), f, int(jobs)))


def inspect(scenario=None, set=None, gpu=None, model=None, weights=None, activations=None, kv_cache=None,
            tp=None, pp=None, ep=None, prefill_batch=1, prefill_len=1024, decode_batch=32, decode_context=1024):
    """`servesim inspect --json`: memory plan and per-operator roofline of a prefill and
    a decode batch -> dict. `scenario` may be omitted when gpu= and model= say enough."""
    inp = _servesim.ScenarioInput() if scenario is None else _scenario_input(scenario)
    texts = [(k, v) for k, v in (("hardware.gpu", gpu), ("model.name", model), ("model.weights", weights),
                                 ("model.activations", activations), ("model.kv_cache", kv_cache)) if v]
    numbers = [(k, float(v)) for k, v in (("parallelism.tp", tp), ("parallelism.pp", pp), ("parallelism.ep", ep))
               if v]
    b = _servesim.InspectBatches()
    b.prefill_batch, b.prefill_len = int(prefill_batch), int(prefill_len)
    b.decode_batch, b.decode_context = int(decode_batch), int(decode_context)
    return json.loads(_servesim.inspect(inp, texts, numbers, _sets(set), b))


def describe(what="", markdown=False):
    """Every configuration key (type, unit, default, range, meaning), or one section's or
    key's, as text (the output of `servesim describe`)."""
    return _servesim.describe(what, bool(markdown))
