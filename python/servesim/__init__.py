"""servesim from Python: simulate LLM inference serving, sweep and plan.

    import servesim
    r = servesim.run("scenarios/quickstart.yaml", set={"workload.arrival.rate": 4})
    r.ttft_ms.p99, r.slo_met                 # the numbers of `servesim run --json`
    r.requests_frame()                       # one row per request (pandas)
    servesim.sweep("scenarios/quickstart.yaml", vary={"workload.arrival.rate": "2:10:2"}).frame()
    servesim.plan("scenarios/capacity-plan.yaml", target_rate=20, gpus=["h100-sxm", "h200-sxm"])

Functions (help(servesim.run) etc. say more, with examples):
    run(scenario, set=None, ...)        -> Result        `servesim run`
    sweep(scenario, vary, set=None)     -> SweepResult   `servesim sweep`
    plan(scenario, set=None, ...)       -> PlanResult    `servesim plan`
    inspect(scenario=None, ...)         -> dict          `servesim inspect --json`
    describe(what="")                   -> str           `servesim describe`
    servesim.dask.sweep / .plan: the same on a Dask cluster

A scenario is a file path, YAML text or a dict (the document). `set` overrides
keys as the CLI's --set does: {"hardware.gpu": "h200-sxm"}, "workload.arrival.rate=12"
or a list of such strings. Bad input raises ConfigError (a ValueError) with the
CLI's message and .file/.line/.column/.key_path/.kind; a wrong Python type raises
TypeError naming the argument; other refusals raise Error. What servesim had to
assume is issued as a ServesimWarning. Simulations release the GIL (threads run
in parallel) and stop on Ctrl-C with KeyboardInterrupt.
"""
from . import _home  # noqa: F401  (sets SERVESIM_HOME for an installed package first)
from ._servesim import ConfigError, Error, ServesimWarning
from ._servesim import version as __version__
from ._api import describe, inspect, plan, run, sweep
from ._results import Distribution, PlanResult, Result, SweepResult

__all__ = ["run", "sweep", "plan", "inspect", "describe", "Result", "SweepResult", "PlanResult", "Distribution",
           "Error", "ConfigError", "ServesimWarning", "__version__"]

