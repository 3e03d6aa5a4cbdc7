#!/usr/bin/env python3
"""Files from strangers and the user's own system, end to end through the CLI
(issue 33): no command runs from a name, no device file, FIFO, link or input is
replaced by an output, a folder of outputs appears whole or not at all, a stop
signal leaves nothing half-written, and bad inputs are errors, never crashes.

usage: test_hostile_files.py SERVESIM_BINARY SOURCE_DIR
Each check prints one line; the script fails on the first broken one.
"""
import csv
import json
import os
import shutil
import signal
import stat
import subprocess
import sys
import tempfile
import time

binary, root = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])
env = dict(os.environ, SERVESIM_HOME=root)
quick = os.path.join(root, "scenarios", "quickstart.yaml")
work = tempfile.mkdtemp(prefix="servesim-hostile-")
PWNED = os.path.join(work, "PWNED")


def servesim(*args, ok=True, cwd=work, timeout=120):
    r = subprocess.run([binary, *args], cwd=cwd, env=env, capture_output=True, text=True, timeout=timeout)
    if ok and r.returncode != 0:
        raise AssertionError(f"servesim {' '.join(args)}: exit {r.returncode}\n{r.stderr}")
    # Never a crash, an escaped exception or a sanitizer report, whatever the input.
    assert r.returncode in (0, 1, 2, 130, 143), f"servesim {' '.join(args)}: exit {r.returncode}\n{r.stderr}"
    assert "terminate called" not in r.stderr and "runtime error" not in r.stderr, r.stderr
    return r


def check(name, cond, detail=""):
    if not cond:
        print(f"FAIL {name} {detail}")
        sys.exit(1)
    print(f"ok   {name}")


def no_pwned():
    """No file named PWNED anywhere under the work folder (gnuplot's working folder is
    inside it), in the source tree or in the temporary folder."""
    for top in (work, root, tempfile.gettempdir()):
        for _, _, files in os.walk(top) if top == work else [(top, [], os.listdir(top))]:
            if "PWNED" in files:
                return False
    return True


# 1. A measured trace whose file name holds a shell/gnuplot command: validate --out
#    writes gnuplot plots whose titles carry the file name.
hostile = os.path.join(work, "x`touch PWNED`$(touch PWNED);touch PWNED;'\"y.json")
shutil.copy(os.path.join(root, "data", "traces", "vllm_bench_serve_llama405b_mi300x.json"), hostile)
scenario = os.path.join(root, "scenarios", "validate-mi300x-405b.yaml")
out = os.path.join(work, "validate-out")
r = servesim("validate", scenario, "--trace", hostile, "--out", out)
check("validate --out with a backquoted trace name runs no command", no_pwned())
if shutil.which("gnuplot"):
    check("validate --out still draws its plots", os.path.exists(os.path.join(out, "e2e_cdf.png")), os.listdir(out))
    with open(os.path.join(out, "validate_plots.gp")) as f:
        gp = f.read()
    titles = [l for l in gp.splitlines() if l.startswith("set title")]
    check("the name is a single-quoted, noenhanced gnuplot string",
          titles and all(l.startswith("set title '") and l.endswith("' noenhanced") and "''" in l for l in titles),
          titles)

# 2. tools/plot/plot.py on a sweep whose varied values are hostile names.
sweep_csv = os.path.join(work, "hostile-sweep.csv")
with open(sweep_csv, "w", newline="") as f:
    w = csv.writer(f)
    w.writerow(["point", "workload.arrival.rate", "model.name", "status", "reason", "ttft_ms.p99", "tpot_ms.p99",
                "e2e_ms.p99", "throughput.output_tokens_per_s"])
    for i, rate in enumerate([2, 4]):
        w.writerow([i, rate, "m`touch PWNED`'\"\\\nsystem 'touch PWNED'", "ok", "", 10 + i, 5, 100, 1000])
plot = subprocess.run([sys.executable, os.path.join(root, "tools", "plot", "plot.py"), "latency", sweep_csv,
                       os.path.join(work, "plot")], capture_output=True, text=True)
check("tools/plot/plot.py with backquoted sweep values runs no command", no_pwned(), plot.stderr[-500:])

# 3. A GPU file named like a spreadsheet formula: CSV cells are not formulas.
gpu = os.path.join(work, "evil-gpu.yaml")
with open(os.path.join(root, "hardware", "h100-sxm.yaml")) as f:
    text = f.read()
lines = [l for l in text.splitlines() if not l.startswith("name:")]
with open(gpu, "w") as f:
    f.write("name: '=HYPERLINK(\"http://example.invalid\",\"x\")'\n" + "\n".join(lines) + "\n")
sweep_out = os.path.join(work, "formula.csv")
servesim("sweep", quick, "--set", f"hardware.gpu={gpu}", "--set", "workload.requests=100",
         "--vary", "workload.arrival.rate=2,4", "--out", sweep_out, "-j", "1")
with open(sweep_out, newline="") as f:
    cells = [c for row in csv.reader(f) for c in row]
check("no CSV cell starts with = + @ (spreadsheet formula)",
      not any(c[:1] in ("=", "@") or (c[:1] in "+-" and not c.lstrip("+-").replace(".", "", 1).replace("e", "", 1).lstrip("+-").isdigit()) for c in cells if c),
      [c for c in cells if c[:1] in "=+-@"][:5])

# 4. Outputs replace only regular files: a private character device (as /dev/null is),
#    a FIFO, a link to /dev/null and a folder are refused and stay what they were.
if os.geteuid() == 0:
    dev = os.path.join(work, "null-device")
    os.mknod(dev, 0o666 | stat.S_IFCHR, os.makedev(1, 3))
    r = servesim("describe", "--out", dev, ok=False)
    check("describe --out DEVICE is refused", r.returncode == 1 and "character device" in r.stderr, r.stderr)
    check("the device is still a device", stat.S_ISCHR(os.lstat(dev).st_mode))
fifo = os.path.join(work, "fifo")
os.mkfifo(fifo)
r = servesim("describe", "--out", fifo, ok=False, timeout=30)
check("describe --out FIFO is refused (no hang)", r.returncode == 1 and "FIFO" in r.stderr, r.stderr)
link = os.path.join(work, "link-to-null")
os.symlink("/dev/null", link)
r = servesim("describe", "--out", link, ok=False)
check("describe --out LINK is refused", r.returncode == 1 and "symbolic link" in r.stderr, r.stderr)
check("the link is still a link to /dev/null", os.path.islink(link) and os.readlink(link) == "/dev/null")
r = servesim("--follow-symlinks", "describe", "--out", link, ok=False)
check("--follow-symlinks to a device is still refused", r.returncode == 1 and "character device" in r.stderr, r.stderr)
target = os.path.join(work, "real.txt")
open(target, "w").write("old\n")
link2 = os.path.join(work, "link-to-real")
os.symlink(target, link2)
servesim("--follow-symlinks", "describe", "--out", link2)
check("--follow-symlinks writes the link's target", os.path.islink(link2) and open(target).read() != "old\n")

# 5. report --out must not overwrite its own input.
r = servesim("report", sweep_out, "--out", sweep_out, ok=False)
with open(sweep_out) as f:
    check("report --out INPUT is refused and the input kept",
          r.returncode == 1 and "inputs" in r.stderr and f.read().startswith("point,"), r.stderr)

# 6. A folder of outputs appears whole: a run stopped by SIGTERM leaves no folder and
#    no temporary; the exit code is 143.
run_out = os.path.join(work, "run-out")
p = subprocess.Popen([binary, "run", quick, "--set", "workload.requests=3000000", "--set",
                      "workload.arrival.rate=200", "--out", run_out], cwd=work, env=env,
                     stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
time.sleep(1.5)
p.send_signal(signal.SIGTERM)
_, err = p.communicate(timeout=60)
leftovers = [n for n in os.listdir(work) if "run-out" in n]
check("SIGTERM during run --out: exit 143, no folder, no staging left",
      p.returncode == 143 and leftovers == [], f"rc={p.returncode} {leftovers} {err[-300:]}")

# 7. Two sweeps into one --out: the second is refused while the first runs.
sweep2 = os.path.join(work, "shared.csv")
# The first sweep is long (8 points of 3M requests at high load, several seconds each
# even fast-forwarded); the second starts as soon as the first holds its checkpoint.
first = subprocess.Popen([binary, "sweep", quick, "--set", "workload.requests=3000000", "--vary",
                          "workload.arrival.rate=50:120:10", "--out", sweep2, "-j", "1"], cwd=work, env=env,
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
deadline = time.time() + 20
while not os.path.exists(sweep2 + ".partial") and time.time() < deadline and first.poll() is None:
    time.sleep(0.05)
r = servesim("sweep", quick, "--set", "workload.requests=100", "--vary", "workload.arrival.rate=1,2", "--out",
             sweep2, ok=False)
first.send_signal(signal.SIGINT)
first.communicate(timeout=60)
check("a second sweep into the same --out is refused", r.returncode == 1 and "another servesim" in r.stderr, r.stderr)

# 8. A sweep of a million points is refused before anything runs (and --max-points says how).
t = time.time()
r = servesim("sweep", quick, "--vary", "workload.arrival.rate=1:1000:1", "--vary", "engine.max_num_seqs=1:1000:1",
             ok=False, timeout=60)
check("1000 x 1000 sweep refused at once, naming --max-points",
      r.returncode == 1 and "--max-points" in r.stderr and time.time() - t < 20, r.stderr)

# 9. Deeply nested JSON in a config.json: an error, not a stack overflow.
deep = os.path.join(work, "deep-model")
os.mkdir(deep)
with open(os.path.join(root, "tests", "fixtures", "model_configs", "llama-2-70b-hf", "config.json")) as f:
    base = f.read().rstrip().rstrip("}")
with open(os.path.join(deep, "config.json"), "w") as f:
    f.write(base + ', "unused": ' + "[" * 200000 + "]" * 200000 + "}\n")
r = servesim("inspect", "--gpu", "h100-sxm", "--model", deep, ok=False)
check("a config.json nested 200k deep is refused, no crash", r.returncode == 1 and "nested deeper" in r.stderr, r.stderr[-300:])

# 10. Inputs that never end or block: a FIFO nobody writes, a device.
r = servesim("run", fifo, ok=False, timeout=30)
check("a FIFO as the scenario is refused (no hang)", r.returncode == 1 and "named pipe" in r.stderr, r.stderr)
r = servesim("run", "/dev/zero", ok=False, timeout=30)
check("/dev/zero as the scenario is refused", r.returncode == 1 and "character device" in r.stderr, r.stderr)

# 11. Messages: an unknown command is named; an empty --set value is said as such.
r = servesim("rnu", quick, ok=False)
check("unknown command named with a suggestion", r.returncode == 2 and "'rnu'" in r.stderr and "run" in r.stderr, r.stderr)
r = servesim("run", quick, "--set", "engine.max_num_seqs=", ok=False)
check("--set KEY= says no value", r.returncode == 1 and "no value" in r.stderr, r.stderr)
r = servesim("inspect", "--gpu", "h100-sxm", "--model", "no-such-model", ok=False)
check("a flag's error names the flag, not --set", "--set" not in r.stderr and "--model" in r.stderr, r.stderr)

shutil.rmtree(work, ignore_errors=True)
print("all hostile-file checks passed")
