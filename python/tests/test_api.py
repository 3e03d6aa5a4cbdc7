"""servesim's Python API against the CLI: the same library calls, so the same numbers."""
import json
import os
import threading
import time

import numpy
import pandas
import pytest

import servesim

QUICK = "scenarios/quickstart.yaml"
# A small run: 200 requests of the quickstart at its rate (fractions of a second).
SMALL = {"workload.requests": 200}


@pytest.fixture(autouse=True)
def in_root(root, monkeypatch):
    monkeypatch.chdir(root)


def test_run_summary_is_the_cli_json(cli):
    r = servesim.run(QUICK, set=SMALL)
    expected = json.loads(cli("run", QUICK, "--set", "workload.requests=200", "--json").stdout)
    assert r.summary == expected
    assert r.summary["ttft_ms"]["p99"] == expected["ttft_ms"]["p99"]


def test_run_text_is_what_the_cli_prints(cli):
    r = servesim.run(QUICK, set=SMALL)
    assert r.text == cli("run", QUICK, "--set", "workload.requests=200").stdout
    assert str(r) == r.text  # no warnings here
    assert r.title == r.text.splitlines()[0]


def test_requests_are_columns_a_dataframe_takes(cli):
    r = servesim.run(QUICK, set=SMALL)
    for name, col in r.requests.items():
        if name != "failure":
            assert isinstance(col, numpy.ndarray), name
    df = pandas.DataFrame(r.requests)
    assert len(df) == 200 == r.summary["requests"]["completed"] + r.summary["requests"]["failed"]
    # The summary's TTFT mean is the mean over completed requests of the same numbers.
    assert df["ttft_ms"].mean() == pytest.approx(r.summary["ttft_ms"]["mean"], rel=1e-12)
    # TPOT = (E2E - TTFT) / (output - 1) per request (vLLM's definition, request_result.h).
    multi = df[df["output_tokens"] > 1]
    numpy.testing.assert_allclose(multi["tpot_ms"], (multi["e2e_ms"] - multi["ttft_ms"]) / (multi["output_tokens"] - 1))
    tl = pandas.DataFrame(r.timeline)
    assert len(tl) > 0 and list(tl.columns)[:3] == ["time_s", "step_time_ms", "replica"]
    assert (tl["kv_blocks_used"] <= tl["kv_blocks_total"]).all()


def test_requests_false_keeps_no_rows_and_changes_no_number():
    kept = servesim.run(QUICK, set=SMALL)
    none = servesim.run(QUICK, set=SMALL, requests=False)
    assert len(none.requests["id"]) == 0 and len(kept.requests["id"]) == 200
    assert none.summary == kept.summary


def test_requests_match_requests_csv(cli, tmp_path):
    r = servesim.run(QUICK, set=SMALL)
    cli("run", QUICK, "--set", "workload.requests=200", "--out", tmp_path)
    csv = pandas.read_csv(tmp_path / "requests.csv")
    df = pandas.DataFrame(r.requests)
    assert list(csv["id"]) == list(df["id"])
    # requests.csv prints 3 decimals (ms); the columns are the unrounded doubles.
    numpy.testing.assert_allclose(csv["ttft_ms"], df["ttft_ms"], atol=5e-4)
    numpy.testing.assert_allclose(csv["e2e_ms"], df["e2e_ms"], atol=5e-4)


def test_scenario_as_dict_and_yaml_string_equal_the_file(root):
    text = (root / QUICK).read_text()
    by_path = servesim.run(QUICK, set=SMALL).summary
    by_text = servesim.run(text, set=SMALL).summary
    doc = {"hardware": {"gpu": "h100-sxm"},
           "model": {"name": "llama-3.1-8b", "weights": "bf16", "activations": "bf16", "kv_cache": "bf16"},
           "parallelism": {"tp": 1, "pp": 1, "replicas": 1},
           "engine": {"kind": "vllm", "max_num_seqs": 256, "max_num_batched_tokens": 8192, "block_size": 16,
                      "gpu_memory_utilization": 0.9, "prefix_caching": True},
           "workload": {"seed": 1, "requests": 200, "arrival": {"process": "poisson", "rate": 8},
                        "input_tokens": {"dist": "lognormal", "mean": 1024, "stddev": 512, "max": 8192},
                        "output_tokens": {"dist": "uniform", "min": 64, "max": 512}},
           "slo": {"ttft_ms": {"p99": 500}, "tpot_ms": {"p99": 50}}}
    by_dict = servesim.run(doc).summary
    for s in (by_text, by_dict):
        s["config"].pop("scenario")  # the source's name: the file, "<scenario string>", "<scenario dict>"
    by_path["config"].pop("scenario")
    assert by_text == by_path
    assert by_dict == by_path


def test_config_errors_carry_file_line_and_key_path(cli, tmp_path):
    bad = tmp_path / "bad.yaml"
    bad.write_text("hardware: {gpu: h100-sxm}\nmodel: {name: llama-3.1-8b}\nengine:\n  max_num_seqs: -3\n"
                   "workload: {requests: 10, arrival: {process: poisson, rate: 1}}\n")
    with pytest.raises(servesim.ConfigError) as e:
        servesim.run(str(bad))
    cli_err = cli("run", bad, check=False)
    assert cli_err.returncode == 1
    assert str(e.value) in cli_err.stderr  # the same message text
    assert e.value.file == str(bad) and e.value.line == 4 and e.value.key_path == "engine.max_num_seqs"
    assert isinstance(e.value, ValueError)
    # A misspelt key in a dict: unknown_key with a did-you-mean, no file line.
    with pytest.raises(servesim.ConfigError) as e:
        servesim.run(QUICK, set={"engine.max_num_seq": 4})
    assert e.value.kind == "unknown_key" and "max_num_seqs" in str(e.value)


def test_a_missing_scenario_file_is_said_to_be_missing():
    for name in ("scenarios/no-such.yaml", "scenarios/no-such"):
        with pytest.raises(servesim.Error, match="no-such"):
            servesim.run(name)


def test_the_gil_is_released_while_simulating():
    # A run of about half a second in a thread (50,000 requests, every decode step
    # simulated); the main thread keeps stamping the clock. Were the GIL held, no
    # stamp could fall in the middle half of the run.
    span = {}

    def work():
        span["t0"] = time.monotonic()
        span["r"] = servesim.run(QUICK, set={"workload.requests": 50000}, timeline_rows=0, fast_forward=False)
        span["t1"] = time.monotonic()

    t = threading.Thread(target=work)
    stamps = []
    t.start()
    while t.is_alive():
        stamps.append(time.monotonic())
    t.join()
    lo = span["t0"] + 0.25 * (span["t1"] - span["t0"])
    hi = span["t1"] - 0.25 * (span["t1"] - span["t0"])
    assert span["t1"] - span["t0"] > 0.1
    assert sum(lo < s < hi for s in stamps) > 10


def test_two_threads_simulate_at_once_and_agree():
    out = [None, None]

    def work(i):
        out[i] = servesim.run(QUICK, set=SMALL).summary

    threads = [threading.Thread(target=work, args=(i,)) for i in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert out[0] == out[1]


def test_sweep_is_the_cli_sweep_byte_for_byte(cli, tmp_path):
    vary = {"workload.arrival.rate": "2:8:3", "model.kv_cache": ["bf16", "fp8"]}
    s = servesim.sweep(QUICK, vary=vary, set=SMALL, jobs=2)
    cli("sweep", QUICK, "--vary", "workload.arrival.rate=2:8:3", "--vary", "model.kv_cache=bf16,fp8",
        "--set", "workload.requests=200", "-j", "1", "--out", tmp_path / "s.csv")
    cli("sweep", QUICK, "--vary", "workload.arrival.rate=2:8:3", "--vary", "model.kv_cache=bf16,fp8",
        "--set", "workload.requests=200", "-j", "1", "--out", tmp_path / "s.json")
    assert s.csv == (tmp_path / "s.csv").read_text()
    assert s.json == (tmp_path / "s.json").read_text()
    assert len(s) == 3 * 2  # rates 2, 5, 8 x two KV precisions
    df = s.frame()
    assert list(df["workload.arrival.rate"]) == [2, 2, 5, 5, 8, 8]
    assert servesim.sweep(QUICK, vary=vary, set=SMALL, jobs=1).csv == s.csv  # threads change nothing


def test_shards_merge_into_the_sweep():
    vary = {"workload.arrival.rate": [1, 2, 3, 4, 5]}
    axes = servesim._args.axes(vary)
    inp = servesim._args.scenario_input(QUICK)
    sets = servesim._args.sets(SMALL)
    texts = [servesim._servesim.sweep_shard(inp, sets, axes, k, 2, 1) for k in (1, 0)]
    csv, js = servesim._servesim.merge_shards(texts, ["one", "zero"])
    assert csv == servesim.sweep(QUICK, vary=vary, set=SMALL).csv
    with pytest.raises(servesim.Error, match="shard 1 of 2 missing"):
        servesim._servesim.merge_shards(texts[1:], ["zero"])


def test_bad_vary_key_is_an_error():
    with pytest.raises(servesim.Error, match="not a scenario key"):
        servesim.sweep(QUICK, vary={"engine.max_num_seq": [1, 2]}, set=SMALL)


def test_describe_and_inspect_are_the_cli_outputs(cli):
    assert servesim.describe() == cli("describe").stdout
    assert servesim.describe("engine.max_num_seqs") == cli("describe", "engine.max_num_seqs").stdout
    got = servesim.inspect(QUICK, kv_cache="fp8", tp=2)
    expected = json.loads(cli("inspect", QUICK, "--kv-cache", "fp8", "--tp", "2", "--json").stdout)
    assert got == expected
    assert servesim.inspect(gpu="h100-sxm", model="llama-3.1-8b") == json.loads(
        cli("inspect", "--gpu", "h100-sxm", "--model", "llama-3.1-8b", "--json").stdout)


def test_plan_is_the_cli_plan(cli):
    args = dict(set={"workload.requests": 100}, target_rate=20, gpus=["h100-sxm"], weights=["bf16"], tps=[1, 2],
                trial_requests=100, jobs=2)
    p = servesim.plan("scenarios/capacity-plan.yaml", **args)
    expected = json.loads(cli("plan", "scenarios/capacity-plan.yaml", "--set", "workload.requests=100",
                              "--target-rate", "20", "--candidates-gpu", "h100-sxm", "--candidates-weights", "bf16",
                              "--candidates-tp", "1,2", "--trial-requests", "100", "-j", "2", "--json").stdout)
    assert p.data == expected
    assert len(p.frame()) == len(expected["candidates"])
