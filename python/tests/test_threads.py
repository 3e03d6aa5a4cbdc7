"""Threads (issue 33): many Python threads calling servesim at once never deadlock
and get the results a lone call gets.

The deadlock seen before: one thread held the GIL and waited on a C++ static's
initialisation guard while another held that guard inside NumPy's import and waited
for the GIL. It struck only at the first calls of a process, in a few percent of
processes, so one test starts fresh processes whose threads all make their first
call at once; another keeps thousands of small calls of every kind going in
parallel threads of one process. Each has a deadline: a deadlock fails, never hangs."""
import json
import os
import subprocess
import sys
import threading

import pytest

import servesim

# A tiny scenario: 4 requests of 16-48 tokens (well under a millisecond to simulate).
TINY = {
    "hardware": {"gpu": "h100-sxm"},
    "model": {"name": "llama-3.1-8b"},
    "workload": {"seed": 1, "requests": 4, "arrival": {"process": "poisson", "rate": 50},
                 "input_tokens": {"dist": "uniform", "min": 16, "max": 48},
                 "output_tokens": {"dist": "uniform", "min": 2, "max": 8}},
    "slo": {"ttft_ms": {"p99": 500}},
}


def _first_calls_race(threads):
    """A child process's source: `threads` threads released together make their first
    servesim calls at once (runs, one sweep, one describe); prints what each got."""
    return f"""
import json, sys, threading
import servesim
tiny = json.loads({json.dumps(json.dumps(TINY))!r})
barrier = threading.Barrier({threads})
out = [None] * {threads}
def work(i):
    barrier.wait()
    if i == {threads} - 2:
        out[i] = len(servesim.sweep(tiny, vary={{"workload.seed": [1, 2]}}, jobs=1))
    elif i == {threads} - 1:
        out[i] = len(servesim.describe("engine.max_num_seqs")) > 0
    else:
        out[i] = servesim.run(tiny).summary["requests"]["completed"]
ts = [threading.Thread(target=work, args=(i,)) for i in range({threads})]
for t in ts: t.start()
for t in ts: t.join()
print(out)
"""


def test_fresh_processes_whose_threads_all_call_at_once_never_deadlock(root):
    # 12 processes, 4 at a time, each with 6 threads whose first calls start together.
    # A deadlock would leave a process running past its 60 s deadline (each takes
    # about a second here, most of it importing NumPy). With NumPy imported lazily
    # inside a C++ static, as before the fix, 40 of 40 processes whose 6 threads all
    # called servesim.run at once hung (measured when this test was written).
    env = dict(os.environ, PYTHONDONTWRITEBYTECODE="1")
    code = _first_calls_race(6)
    expected = str([4, 4, 4, 4, 2, True])
    for batch in range(3):
        procs = [subprocess.Popen([sys.executable, "-c", code], cwd=root, env=env, stdout=subprocess.PIPE,
                                  stderr=subprocess.PIPE, text=True) for _ in range(4)]
        for p in procs:
            try:
                out, err = p.communicate(timeout=60)
            except subprocess.TimeoutExpired:
                for q in procs:
                    q.kill()
                pytest.fail("a process whose threads called servesim at once did not finish in 60 s (deadlock)")
            assert p.returncode == 0, err
            assert out.strip() == expected


def test_thousands_of_calls_in_parallel_threads_agree_with_a_lone_call():
    # 8 threads x 300 calls = 2400 calls: runs of 4 seeds, plus sweeps, describe and
    # inspect mixed in (each takes its own locks and statics). Every run's summary
    # must equal the one a lone call gave for its seed.
    alone = {seed: servesim.run(TINY, set={"workload.seed": seed}).summary for seed in range(1, 5)}
    described = servesim.describe("workload.requests")
    sweep_csv = servesim.sweep(TINY, vary={"workload.seed": [1, 2]}, jobs=1).csv
    errors = []
    counts = [0] * 8

    def work(t):
        try:
            for i in range(300):
                kind = (t + i) % 10
                if kind == 7:
                    assert servesim.sweep(TINY, vary={"workload.seed": [1, 2]}, jobs=1).csv == sweep_csv
                elif kind == 8:
                    assert servesim.describe("workload.requests") == described
                elif kind == 9:
                    assert servesim.inspect(gpu="h100-sxm", model="llama-3.1-8b")["memory"]
                else:
                    seed = 1 + (t * 300 + i) % 4
                    r = servesim.run(TINY, set={"workload.seed": seed}, timeline_rows=10)
                    assert r.summary == alone[seed]
                counts[t] += 1
        except BaseException as e:  # noqa: BLE001 -- reported below, with the thread
            errors.append((t, repr(e)))

    threads = [threading.Thread(target=work, args=(t,), daemon=True) for t in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=120)
    assert not any(t.is_alive() for t in threads), f"threads still running after 120 s (deadlock?): {counts}"
    assert errors == []
    assert counts == [300] * 8
