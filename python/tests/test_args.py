"""The Python API as a new user meets it (issues 33 and 39): a clean namespace with
__version__, typed signatures and docstrings help() shows, arguments checked with
errors that name them, the documented exception types, warnings issued, and a
Result that displays its verdict in a notebook."""
import dataclasses
import inspect as pyinspect
import pathlib
import subprocess
import sys
import typing
import warnings

import numpy
import pytest

import servesim

QUICK = "scenarios/quickstart.yaml"
SMALL = {"workload.requests": 200}


@pytest.fixture(autouse=True)
def in_root(root, monkeypatch):
    monkeypatch.chdir(root)


# --- The package -------------------------------------------------------------------

def test_version_is_the_cli_version(cli):
    # `servesim --version` may not exist on every branch; summary.json always carries it.
    r = servesim.run(QUICK, set={"workload.requests": 20})
    assert servesim.__version__ == r.summary["config"]["servesim_version"]
    assert servesim.__version__.count(".") == 2


def test_the_namespace_holds_the_api_only():
    # A fresh interpreter: nothing a test imported (servesim.dask) counts.
    names = subprocess.run([sys.executable, "-c", "import servesim; print(' '.join(dir(servesim)))"],
                           capture_output=True, text=True, check=True).stdout.split()
    public = {n for n in names if not n.startswith("_")}
    assert public == set(servesim.__all__) - {"__version__"}
    for leaked in ("io", "json", "os", "dataclasses", "numbers"):
        assert leaked not in names


def test_every_public_function_has_hints_and_an_example():
    for name in ("run", "sweep", "plan", "inspect", "describe"):
        f = getattr(servesim, name)
        hints = typing.get_type_hints(f)
        assert "return" in hints, name
        params = pyinspect.signature(f).parameters
        assert all(p in hints for p in params), (name, set(params) - set(hints))
        assert ">>> " in f.__doc__ and f"servesim.{name}(" in f.__doc__, name
    assert typing.get_type_hints(servesim.run)["return"] is servesim.Result
    # help() renders the signature and the example.
    text = pyinspect.getdoc(servesim.plan)
    assert "gpus" in text and "one str is one candidate" in text
    # The package ships its hints to type checkers (PEP 561).
    assert (pathlib.Path(servesim.__file__).parent / "py.typed").exists()


def test_results_are_dataclasses():
    r = servesim.run(QUICK, set=SMALL)
    assert dataclasses.is_dataclass(r)
    assert {f.name for f in dataclasses.fields(r)} >= {"summary", "requests", "timeline", "warnings"}
    assert r.ttft_ms == servesim.Distribution(**r.summary["ttft_ms"])
    assert r.ttft_ms.p99 == r.summary["ttft_ms"]["p99"]
    assert r.slo_met is r.summary["slo"]["met"] is True
    assert r.overloaded is False
    df = r.requests_frame()
    assert len(df) == 200 and list(df.columns)[:3] == ["id", "replica", "arrival_s"]
    assert len(r.timeline_frame()) > 0
    s = servesim.sweep(QUICK, vary={"workload.arrival.rate": [4, 8]}, set=SMALL)
    assert dataclasses.is_dataclass(s) and len(s.frame()) == 2


# --- Arguments ---------------------------------------------------------------------

def test_set_as_one_string_is_one_assignment():
    by_string = servesim.run(QUICK, set="workload.requests=200").summary
    by_dict = servesim.run(QUICK, set=SMALL).summary
    by_list = servesim.run(QUICK, set=["workload.requests=200"]).summary
    assert by_string == by_dict == by_list
    with pytest.raises(servesim.ConfigError, match="not an assignment KEY.PATH=VALUE"):
        servesim.run(QUICK, set="workload.requests")


def test_a_value_that_is_not_json_names_its_key():
    # In set=
    with pytest.raises(servesim.ConfigError) as e:
        servesim.run(QUICK, set={"workload.requests": {1, 2}})
    assert e.value.key_path == "workload.requests" and e.value.kind == "bad_value"
    assert "workload.requests: a set" in str(e.value)
    # Deep in a dict scenario: the key path down to it.
    doc = {"hardware": {"gpu": "h100-sxm"}, "model": {"name": "llama-3.1-8b"},
           "workload": {"requests": 10, "arrival": {"process": "poisson", "rate": object()}}}
    with pytest.raises(servesim.ConfigError) as e:
        servesim.run(doc)
    assert e.value.key_path == "workload.arrival.rate"
    # NaN is no value either.
    with pytest.raises(servesim.ConfigError, match="workload.arrival.rate: nan"):
        servesim.run(QUICK, set={"workload.arrival.rate": float("nan")})


def test_numpy_and_path_values_are_taken_as_plain_values(root):
    plain = servesim.run(QUICK, set={"workload.requests": 200, "workload.arrival.rate": 6.5}).summary
    from_numpy = servesim.run(QUICK, set={"workload.requests": numpy.int64(200),
                                          "workload.arrival.rate": numpy.float64(6.5)}).summary
    assert from_numpy == plain
    by_path = servesim.run(root / QUICK, set=SMALL).summary
    by_path["config"].pop("scenario")
    s = servesim.run(QUICK, set=SMALL).summary
    s["config"].pop("scenario")
    assert by_path == s


def test_bad_argument_types_raise_type_error_naming_the_argument():
    cases = [
        (lambda: servesim.run(42), "scenario"),
        (lambda: servesim.run(QUICK, set=42), "set"),
        (lambda: servesim.run(QUICK, set=[("workload.requests", 3)]), r"set\[0\]"),
        (lambda: servesim.run(QUICK, timeline_rows="10"), "timeline_rows"),
        (lambda: servesim.run(QUICK, requests=1), "requests"),
        (lambda: servesim.sweep(QUICK, vary=["workload.arrival.rate"]), "vary"),
        (lambda: servesim.sweep(QUICK, vary={"workload.arrival.rate": [1]}, jobs=2.0), "jobs"),
        (lambda: servesim.plan(QUICK, gpus=3), "gpus"),
        (lambda: servesim.plan(QUICK, tps="2"), "tps"),
        (lambda: servesim.plan(QUICK, target_rate="20"), "target_rate"),
        (lambda: servesim.describe(3), "what"),
        (lambda: servesim.inspect(gpu="h100-sxm", model="llama-3.1-8b", tp=1.5), "tp"),
    ]
    for call, name in cases:
        with pytest.raises(TypeError, match=f"^{name}"):
            call()


def test_bad_argument_values_raise_config_error_naming_the_key():
    cases = [
        (lambda: servesim.run(QUICK, timeline_rows=-1), "timeline_rows"),
        (lambda: servesim.sweep(QUICK, vary={}), "vary"),
        (lambda: servesim.sweep(QUICK, vary={"workload.arrival.rate": []}), "workload.arrival.rate"),
        (lambda: servesim.sweep(QUICK, vary={"workload.arrival.rate": [1]}, jobs=-1), "jobs"),
        (lambda: servesim.plan(QUICK, target_rate=0), "plan.target_rate"),
        (lambda: servesim.plan(QUICK, gpu_budget=0), "plan.gpu_budget"),
        (lambda: servesim.plan(QUICK, tps=[1, 0]), "plan.candidates.tp"),
        (lambda: servesim.plan(QUICK, trial_requests=10), "plan.trial_requests"),
        (lambda: servesim.plan(QUICK, tolerance=1.5), "plan.tolerance"),
        (lambda: servesim.run("   "), "scenario"),
    ]
    for call, key in cases:
        with pytest.raises(servesim.ConfigError) as e:
            call()
        assert e.value.key_path == key and e.value.kind == "bad_value", (key, e.value.key_path, str(e.value))
        assert isinstance(e.value, ValueError)


def test_a_bad_scenario_value_is_a_config_error_with_the_key():
    # From set= (no file line) and from the file itself (its line).
    with pytest.raises(servesim.ConfigError) as e:
        servesim.run(QUICK, set={"engine.max_num_seqs": -3})
    assert e.value.key_path == "engine.max_num_seqs" and e.value.kind == "bad_value"
    with pytest.raises(servesim.ConfigError) as e:
        servesim.run(QUICK, set={"workload.arrival.rate": "fast"})
    assert e.value.key_path == "workload.arrival.rate"


def test_a_sweep_is_bounded_as_on_the_command_line():
    # 4 x 3 = 12 points against a bound of 10: refused before any point runs.
    vary = {"workload.seed": [1, 2, 3, 4], "workload.arrival.rate": [2, 4, 8]}
    with pytest.raises(servesim.Error, match=r"more than 10 points \(4 x 3 values\)"):
        servesim.sweep(QUICK, vary=vary, set=SMALL, max_points=10)
    assert len(servesim.sweep(QUICK, vary=vary, set={"workload.requests": 20}, max_points=12)) == 12


def test_plan_takes_one_gpu_name_as_one_candidate(cli):
    args = dict(set={"workload.requests": 100}, target_rate=20, weights="bf16", tps=2, trial_requests=100, jobs=1)
    one = servesim.plan("scenarios/capacity-plan.yaml", gpus="h100-sxm", **args)
    listed = servesim.plan("scenarios/capacity-plan.yaml", gpus=["h100-sxm"], **{**args, "weights": ["bf16"],
                                                                                  "tps": [2]})
    assert one.data == listed.data
    assert {c["gpu"] for c in one.data["candidates"]} == {"h100-sxm"}
    with pytest.raises(servesim.Error, match="'h100'"):  # a misspelt GPU is named whole, never a letter
        servesim.plan("scenarios/capacity-plan.yaml", gpus="h100", **args)


def test_library_warnings_become_python_warnings(cli):
    # gemma-2-9b has sliding-window layers; the quickstart asks for prefix caching, so
    # the framework's free_window_kv default is turned off and said so (read_engine.cpp):
    # the CLI's "warning: ..." on stderr, a ServesimWarning here, at the caller's line.
    sets = {"model.name": "gemma-2-9b", "workload.requests": 20}
    with pytest.warns(servesim.ServesimWarning, match="free_window_kv: false for this run") as w:
        r = servesim.run(QUICK, set=sets)
    cli_warnings = [line[len("warning: "):] for line in cli("run", QUICK, "--set", "model.name=gemma-2-9b", "--set",
                                                            "workload.requests=20").stderr.splitlines()
                    if line.startswith("warning: ")]
    assert r.warnings == cli_warnings and len(cli_warnings) == 1
    assert str(w[0].message) == r.warnings[0]
    assert w[0].filename == __file__  # points at the caller's line
    assert str(r).endswith("warning: " + r.warnings[0] + "\n")
    assert "warning: " in r._repr_html_()


# --- Display -----------------------------------------------------------------------

def test_a_result_shows_its_verdict_in_a_notebook():
    ok = servesim.run(QUICK, set=SMALL)
    html = ok._repr_html_()
    assert "SLOs met: attainment" in html and "OVERLOADED" not in html
    assert "llama-3.1-8b on h100-sxm x1" in html and "W16A16 (bf16 weights" in html
    assert f"{ok.summary['ttft_ms']['p99']:.2f}" in html
    assert "80% bands" in html
    md = ok._repr_markdown_()
    assert "SLOs met" in md and "| TTFT |" in md
    over = servesim.run(QUICK, set={"workload.requests": 1500, "workload.arrival.rate": 24})
    html = over._repr_html_()
    assert "SLOs MISSED" in html and "OVERLOADED: offered" in html
    assert "SLOs MISSED" in repr(over) and "OVERLOADED" in repr(over)
    # str() is the CLI's text under its first line.
    assert str(ok).startswith(ok.title + "\n") and ok.text in str(ok)


def test_names_from_the_scenario_are_escaped_in_the_display(tmp_path):
    # A GPU file whose name is markup: shown as text, never as HTML.
    gpu = tmp_path / "evil.yaml"
    catalog = pathlib.Path("hardware/h100-sxm.yaml").read_text()
    gpu.write_text(catalog.replace("name: h100-sxm", "name: \"<img src=x onerror=alert(1)>\"", 1))
    r = servesim.run(QUICK, set={"hardware.gpu": str(gpu), "workload.requests": 20})
    assert "<img" in r.title
    assert "<img" not in r._repr_html_() and "&lt;img" in r._repr_html_()
    assert "<img" not in r._repr_markdown_()


def test_sweep_and_plan_show_their_verdicts_in_a_notebook():
    # engine.max_model_len 256 refuses every request of the quickstart (prompts of ~1000
    # tokens): infeasible, its reason on the row; at 24 req/s the TPOT SLO is missed.
    s = servesim.sweep(QUICK, vary={"workload.arrival.rate": [4, 24], "engine.max_model_len": [256, 16384]},
                       set={"workload.requests": 300})
    assert repr(s) == "<servesim.SweepResult: 4 points, 2 feasible, 1 meet the SLOs, 0 overloaded>"
    html = s._repr_html_()
    assert html.count(">infeasible<") == 2 and "longer than engine.max_model_len = 256" in html
    assert html.count(">met<") == 1 and html.count(">MISSED<") == 1
    p = servesim.plan("scenarios/capacity-plan.yaml", target_rate=20, gpus="h100-sxm", weights="bf16", tps=[2, 4],
                      trial_requests=100, set={"workload.requests": 100})
    assert p.best["rank"] == 1 and f"best: {p.best['label']}" in p._repr_html_()
    assert p._repr_html_().startswith("<pre>") and repr(p) == p.table
