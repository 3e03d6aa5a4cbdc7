"""What servesim.run, sweep and plan return: dataclasses over the CLI's outputs,
with pandas DataFrames on request and a rich display in notebooks."""
from __future__ import annotations

import dataclasses
import html
import io
import json
from typing import TYPE_CHECKING, Any, Optional

from . import _display

if TYPE_CHECKING:  # pandas is optional: imported when a frame is asked for
    import pandas


def _pandas():
    try:
        import pandas
    except ImportError as e:  # said plainly: the rest of servesim works without it
        raise ImportError("this needs pandas (Debian: python3-pandas; pip: pandas)") from e
    return pandas


@dataclasses.dataclass(frozen=True)
class Distribution:
    """One latency's statistics over the completed requests, in ms (None: nothing
    was measured, e.g. TPOT when every output is one token)."""
    mean: Optional[float]
    p50: Optional[float]
    p90: Optional[float]
    p95: Optional[float]
    p99: Optional[float]
    min: Optional[float]
    max: Optional[float]
    count: int

    @classmethod
    def from_json(cls, d: dict) -> "Distribution":
        return cls(**{f.name: d.get(f.name) for f in dataclasses.fields(cls)})


# eq=False: the columns are NumPy arrays, whose == is elementwise (compare .summary).
@dataclasses.dataclass(frozen=True, repr=False, eq=False)
class Result:
    """One simulated run (servesim.run).

    summary:  the JSON of `servesim run --json` as a dict: requests, load,
              throughput, ttft_ms/tpot_ms/itl_ms/e2e_ms/queue_ms, slo, utilization,
              energy, config (the resolved scenario), bands (80% intervals)
    requests: one NumPy column per field of requests.csv, one row per request in
              finishing order, unrounded, NaN where the CSV leaves a cell empty
    timeline: the columns of timeline.csv, at most about `timeline_rows` rows
    kv_blocks_per_replica: KV cache blocks of one replica
    warnings: what servesim had to assume or adjust (also issued as
              servesim.ServesimWarning)
    text:     what `servesim run` prints (str(result) adds the warnings)

    In a notebook a Result shows its verdict and tables (_repr_html_).

    >>> r = servesim.run("scenarios/quickstart.yaml", set={"workload.requests": 200})
    >>> r.slo_met, r.overloaded, round(r.ttft_ms.p99, 2)
    (True, False, 123.5)
    >>> r.requests_frame()[["id", "input_tokens", "ttft_ms"]].head(3)
       id  input_tokens     ttft_ms
    0   4          1194   48.151347
    1   6          1141  108.946183
    2   9           584   39.879794
    """
    summary: dict[str, Any]
    requests: dict[str, Any]
    timeline: dict[str, Any]
    kv_blocks_per_replica: int
    warnings: list[str]
    text: str

    @classmethod
    def _from_raw(cls, raw: dict) -> "Result":
        return cls(summary=json.loads(raw["summary"]), requests=raw["requests"], timeline=raw["timeline"],
                   kv_blocks_per_replica=raw["kv_blocks_per_replica"], warnings=list(raw["warnings"]),
                   text=raw["text"])

    # Typed views of the summary.
    @property
    def ttft_ms(self) -> Distribution:
        """Time to first token, ms."""
        return Distribution.from_json(self.summary["ttft_ms"])

    @property
    def tpot_ms(self) -> Distribution:
        """Time per output token after the first, ms (vLLM's definition)."""
        return Distribution.from_json(self.summary["tpot_ms"])

    @property
    def itl_ms(self) -> Distribution:
        """Inter-token latency, ms."""
        return Distribution.from_json(self.summary["itl_ms"])

    @property
    def e2e_ms(self) -> Distribution:
        """End-to-end latency, ms."""
        return Distribution.from_json(self.summary["e2e_ms"])

    @property
    def queue_ms(self) -> Distribution:
        """Time waiting before the first scheduling, ms."""
        return Distribution.from_json(self.summary["queue_ms"])

    @property
    def slo_met(self) -> Optional[bool]:
        """Whether every SLO target was met; None when the scenario sets none."""
        slo = self.summary["slo"]
        return bool(slo["met"]) if slo["targets"] else None

    @property
    def overloaded(self) -> bool:
        """True when the queue grows without bound (or the memory guard stopped the run)."""
        return bool(self.summary["load"]["overloaded"])

    @property
    def requests_per_s(self) -> float:
        """Requests served per second."""
        return float(self.summary["throughput"]["requests_per_s"])

    @property
    def title(self) -> str:
        """What ran: model, GPU, parallelism, precision, engine (the CLI's first line)."""
        return self.text.split("\n", 1)[0]

    def requests_frame(self) -> "pandas.DataFrame":
        """The per-request columns as a pandas DataFrame (one row per request)."""
        return _pandas().DataFrame(self.requests)

    def timeline_frame(self) -> "pandas.DataFrame":
        """The timeline columns as a pandas DataFrame."""
        return _pandas().DataFrame(self.timeline)

    def __repr__(self) -> str:
        s = self.summary
        n = s["requests"]["completed"] + s["requests"]["failed"]
        verdict = {True: "SLOs met", False: "SLOs MISSED", None: "no SLOs"}[self.slo_met]
        p99 = s["ttft_ms"]["p99"]
        c = s["config"]
        return (f"<servesim.Result: {n} requests of {c['model']} on {c['gpu']} x{c['parallelism']['gpus']}, "
                f"{self.requests_per_s:.2f} req/s, TTFT p99 {'-' if p99 is None else f'{p99:.1f}'} ms, "
                f"{verdict}{', OVERLOADED' if self.overloaded else ''}>")

    def __str__(self) -> str:
        return self.text + "".join(f"warning: {w}\n" for w in self.warnings)

    def _repr_markdown_(self) -> str:
        return _display.run_markdown(self.summary, self.warnings, self.title)

    def _repr_html_(self) -> str:
        return _display.run_html(self.summary, self.warnings, self.title)


@dataclasses.dataclass(frozen=True, repr=False)
class SweepResult:
    """A sweep's table (servesim.sweep).

    csv:  exactly the bytes `servesim sweep --out F.csv` writes
    json: exactly the bytes `servesim sweep --out F.json` writes
    rows: the JSON as a list of dicts, one per point in point order
    frame(): the CSV as a pandas DataFrame
    """
    csv: str
    json: str
    rows: list[dict[str, Any]]

    @classmethod
    def _from_texts(cls, csv: str, json_text: str) -> "SweepResult":
        return cls(csv=csv, json=json_text, rows=json.loads(json_text))

    def frame(self) -> "pandas.DataFrame":
        """The table as a pandas DataFrame (one row per point, the CSV's columns)."""
        return _pandas().read_csv(io.StringIO(self.csv))

    def __len__(self) -> int:
        return len(self.rows)

    def __repr__(self) -> str:
        return f"<servesim.SweepResult: {len(self.rows)} points, {_display.sweep_counts(self.rows)}>"

    def _repr_html_(self) -> str:
        return _display.sweep_html(self.rows)


@dataclasses.dataclass(frozen=True, repr=False)
class PlanResult:
    """A capacity plan (servesim.plan).

    data:  the JSON of `servesim plan --json` as a dict
    csv:   plan.csv, one row per candidate
    table: the text `servesim plan` prints (also the repr)
    frame(): plan.csv as a pandas DataFrame; best: the chosen candidate's row
    """
    data: dict[str, Any]
    csv: str
    table: str

    @classmethod
    def _from_texts(cls, json_text: str, csv: str, table: str) -> "PlanResult":
        return cls(data=json.loads(json_text), csv=csv, table=table)

    def frame(self) -> "pandas.DataFrame":
        """plan.csv as a pandas DataFrame (one row per candidate)."""
        return _pandas().read_csv(io.StringIO(self.csv))

    @property
    def best(self) -> Optional[dict[str, Any]]:
        """The best candidate (as in `plan --json`), or None when none is feasible."""
        return _display.plan_best(self.data)

    def __repr__(self) -> str:
        return self.table

    def _repr_html_(self) -> str:
        return f"<pre>{html.escape(self.table)}</pre>"
