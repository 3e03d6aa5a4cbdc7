#!/usr/bin/env python3
"""Charts for servesim outputs, drawn by gnuplot (PNG via pngcairo, and SVG).

Usage: plot.py KIND INPUT OUTPUT_PREFIX    (writes OUTPUT_PREFIX.png and OUTPUT_PREFIX.svg)

KIND       INPUT                                     chart
latency    sweep CSV (servesim sweep --out x.csv)    TTFT and TPOT p50/p99 vs achieved throughput
attainment sweep CSV over workload.arrival.rate      SLO attainment vs offered rate
pareto     plan.csv (servesim plan --out DIR)        output tok/s per GPU vs tok/s per user, frontier
cost       plan.csv                                  $ per million output tokens per candidate
timeline   timeline.csv (servesim run --out DIR)     batch size, KV-cache use, queue length vs time

Sweep charts draw one series per combination of the varied keys other than the
x axis (the rate); infeasible points are skipped. Only the Python standard
library and the gnuplot binary are needed.
"""
import csv
import os
import shutil
import subprocess
import sys
import tempfile

KINDS = ("latency", "attainment", "pareto", "cost", "timeline")


def die(msg):
    sys.stderr.write("plot: " + msg + "\n")
    sys.exit(1)


def read_csv(path):
    try:
        with open(path, newline="") as f:
            rows = list(csv.DictReader(f))
            return rows
    except OSError as e:
        die("%s: %s" % (path, e.strerror))


def need(rows, cols, path):
    if not rows:
        die("%s: no rows" % path)
    missing = [c for c in cols if c not in rows[0]]
    if missing:
        die("%s: missing column(s) %s; is this the right kind of file?" % (path, ", ".join(missing)))


def num(v):
    try:
        return float(v)
    except (TypeError, ValueError):
        return None


def gp_quote(s):
    """A gnuplot string literal that stays text: single quotes (gnuplot runs `backquoted`
    commands and expands escapes only inside double quotes), a quote inside doubled, and
    control characters (a newline would start a new command) as spaces. Names in the
    inputs (sweep values, GPU and model names, file names) are whatever their author chose."""
    return "'" + _no_controls(s).replace("'", "''") + "'"


def data_quote(s):
    """A string column in a gnuplot data file: double-quoted (gnuplot's data-file quoting),
    with double quotes and control characters replaced. Data files are never substituted."""
    return '"' + _no_controls(s).replace('"', "'") + '"'


def _no_controls(s):
    return "".join(" " if ord(c) < 0x20 or ord(c) == 0x7F else c for c in str(s))


def varied_columns(path):
    """Columns between 'point' and 'status' in a sweep CSV: the varied keys."""
    with open(path, newline="") as f:
        header = next(csv.reader(f))
    if "point" not in header or "status" not in header:
        die("%s: not a servesim sweep CSV (needs point ... status columns)" % path)
    return header[header.index("point") + 1:header.index("status")]


def pick_rate_column(varied, path):
    for c in varied:
        if c.endswith("arrival.rate") or c.endswith(".rate"):
            return c
    if len(varied) == 1:
        return varied[0]
    die("%s: cannot tell which varied column is the rate (vary workload.arrival.rate)" % path)


def series(rows, group_cols):
    """Rows grouped by the values of group_cols, in first-seen order."""
    groups = {}
    for r in rows:
        key = tuple(r[c] for c in group_cols)
        groups.setdefault(key, []).append(r)
    out = []
    for key, rs in groups.items():
        name = ", ".join("%s=%s" % (c.split(".")[-1], v) for c, v in zip(group_cols, key)) if group_cols else ""
        out.append((name, rs))
    return out


class Chart:
    def __init__(self, tmp):
        self.tmp = tmp
        self.n = 0

    def data(self, rows):
        """Writes whitespace-separated rows to a temp file; returns its quoted path."""
        self.n += 1
        path = os.path.join(self.tmp, "d%d.dat" % self.n)
        with open(path, "w") as f:
            for r in rows:
                f.write(" ".join(data_quote(x) if isinstance(x, str) else repr(float(x)) for x in r) + "\n")
        return gp_quote(path)


def common_style():
    return "\n".join([
        "set grid lc rgb '#dddddd'",
        "set key outside right top box opaque width 2",
        "set border lw 1.2",
        "set style line 1 lc rgb '#1f77b4' lw 2 pt 7 ps 0.8",
        "set style line 2 lc rgb '#d62728' lw 2 pt 5 ps 0.8",
        "set style line 3 lc rgb '#2ca02c' lw 2 pt 9 ps 0.9",
        "set style line 4 lc rgb '#9467bd' lw 2 pt 11 ps 0.9",
        "set style line 5 lc rgb '#ff7f0e' lw 2 pt 13 ps 0.9",
        "set style line 6 lc rgb '#8c564b' lw 2 pt 3 ps 0.9",
        "set style line 7 lc rgb '#e377c2' lw 2 pt 1 ps 0.9",
        "set style line 8 lc rgb '#7f7f7f' lw 2 pt 2 ps 0.9",
    ])


def latency(path, ch):
    varied = varied_columns(path)
    rows = [r for r in read_csv(path) if r.get("status") == "ok"]
    need(rows, ["throughput.requests_per_s", "ttft_ms.p50", "ttft_ms.p99", "tpot_ms.p50", "tpot_ms.p99"], path)
    rate = pick_rate_column(varied, path)
    groups = series(rows, [c for c in varied if c != rate])
    s = [common_style(), "set key inside left top width 2", "set multiplot layout 2,1 title %s font ',14'" % gp_quote(
        "Latency vs throughput (%s swept)" % rate)]
    panels = [("TTFT", "ttft_ms", "time to first token (ms, log scale)", True),
              ("TPOT", "tpot_ms", "time per output token (ms)", False)]
    for title, col, ylabel, log in panels:
        s.append("set title %s" % gp_quote(title))
        s.append("set xlabel 'achieved throughput (requests/s)'")
        s.append("set ylabel %s" % gp_quote(ylabel))
        s.append("set logscale y" if log else "unset logscale y")
        plots = []
        style = 1
        for name, rs in groups:
            rs = sorted(rs, key=lambda r: num(r["throughput.requests_per_s"]))
            for stat, dash in (("p50", 1), ("p99", 2)):
                d = ch.data([(num(r["throughput.requests_per_s"]), max(num(r["%s.%s" % (col, stat)]), 1e-3))
                             for r in rs])
                label = ("%s %s" % (name, stat)).strip()
                plots.append("%s using 1:2 with linespoints ls %d dt %d title %s" % (d, style, dash, gp_quote(label)))
            style = style % 8 + 1
        s.append("plot " + ", \\\n     ".join(plots))
    s.append("unset multiplot")
    return s


def attainment(path, ch):
    varied = varied_columns(path)
    rows = [r for r in read_csv(path) if r.get("status") == "ok"]
    need(rows, ["slo.attainment", "slo.met"], path)
    rate = pick_rate_column(varied, path)
    groups = series(rows, [c for c in varied if c != rate])
    s = [common_style(),
         "set title %s font ',14'" % gp_quote("SLO attainment vs offered load"),
         "set xlabel %s" % gp_quote("offered rate (%s, requests/s)" % rate),
         "set ylabel 'requests meeting every SLO (%)'",
         "set yrange [0:105]"]
    plots = []
    style = 1
    for name, rs in groups:
        rs = sorted(rs, key=lambda r: num(r[rate]))
        d = ch.data([(num(r[rate]), 100 * num(r["slo.attainment"])) for r in rs])
        plots.append("%s using 1:2 with linespoints ls %d title %s" % (d, style, gp_quote(name or "attainment")))
        met = [(num(r[rate]), 100 * num(r["slo.attainment"])) for r in rs if r["slo.met"] == "true"]
        if met:
            plots.append("%s using 1:2 with points pt 6 ps 2 lc rgb '#2ca02c' title %s" % (
                ch.data(met), gp_quote(("%s all SLOs met" % name).strip())))
        style = style % 8 + 1
    s.append("plot " + ", \\\n     ".join(plots))
    return s


def plan_rows(path):
    rows = read_csv(path)
    need(rows, ["label", "status", "output_tokens_per_s_per_gpu", "output_tokens_per_s_per_user",
                "usd_per_million_output_tokens", "pareto"], path)
    return rows


def pareto(path, ch):
    rows = [r for r in plan_rows(path) if num(r["output_tokens_per_s_per_gpu"])]
    if not rows:
        die("%s: no candidate can serve; nothing to plot" % path)
    front = sorted([r for r in rows if r["pareto"] == "1"], key=lambda r: num(r["output_tokens_per_s_per_gpu"]))
    others = [r for r in rows if r["pareto"] != "1"]
    s = [common_style(),
         "set title %s font ',14'" % gp_quote("Throughput per GPU vs per-user speed (each candidate at its maximum rate)"),
         "set xlabel 'output throughput per GPU (tokens/s/GPU)'",
         "set ylabel 'per-user generation speed (tokens/s = 1000 / mean TPOT)'",
         "set xrange [0:*]",
         "set offsets 0, graph 0.18, graph 0.08, graph 0.08"]
    plots = []
    pts = lambda rs: ch.data([(num(r["output_tokens_per_s_per_gpu"]), num(r["output_tokens_per_s_per_user"]),
                               r["label"]) for r in rs])
    if others:
        plots.append("%s using 1:2 with points ls 8 title 'dominated'" % pts(others))
        plots.append("%s using 1:2:3 with labels offset 0.6,0.5 left font ',7' tc rgb '#7f7f7f' notitle" % pts(others))
    plots.append("%s using 1:2 with linespoints ls 2 title 'Pareto frontier'" % pts(front))
    plots.append("%s using 1:2:3 with labels offset 0.8,-0.6 left font ',9' notitle" % pts(front))
    s.append("plot " + ", \\\n     ".join(plots))
    return s


def cost(path, ch):
    rows = [r for r in plan_rows(path) if num(r["usd_per_million_output_tokens"])]
    if not rows:
        die("%s: no candidate has a cost; nothing to plot" % path)
    rows.sort(key=lambda r: num(r["usd_per_million_output_tokens"]))
    ok = [(i, num(r["usd_per_million_output_tokens"]), r["label"]) for i, r in enumerate(rows) if r["status"] == "ok"]
    bad = [(i, num(r["usd_per_million_output_tokens"]), r["label"] + " *")
           for i, r in enumerate(rows) if r["status"] != "ok"]
    s = [common_style(),
         "set title %s font ',14'" % gp_quote("Cost per million output tokens at the target load"),
         "set ylabel 'USD per million output tokens'",
         "set xlabel 'candidate (GPU, weight precision, tensor parallelism)'",
         "set style fill solid 0.8 border -1",
         "set boxwidth 0.7",
         "set xtics rotate by -35 left font ',9'",
         "set xrange [-0.7:%f]" % (len(rows) - 0.3),
         "set yrange [0:*]",
         "set bmargin 10", "set key inside left top"]
    plots = []
    labels = ch.data([(i, r, l) for i, r, l in sorted(ok + bad)])
    if ok:
        plots.append("%s using 1:2 with boxes lc rgb '#1f77b4' title 'ranked'" % ch.data(ok))
    if bad:
        plots.append("%s using 1:2 with boxes lc rgb '#bbbbbb' title '* not ranked (over budget / too many replicas)'" % ch.data(bad))
    plots.append("%s using 1:(0):xtic(3) with points pt -1 notitle" % labels)
    plots.append("%s using 1:2:(sprintf('%%.2f', $2)) with labels offset 0,0.7 font ',8' notitle" % labels)
    s.append("plot " + ", \\\n     ".join(plots))
    return s


def binned(points, bins):
    """(t, v1, v2, ...) rows averaged into `bins` equal time buckets, plus each
    bucket's maxima: rows (t_mid, mean1, ..., max1, ...). Short inputs pass through."""
    if len(points) <= bins:
        return [p + p[1:] for p in points]
    t0, t1 = points[0][0], points[-1][0]
    width = (t1 - t0) / bins or 1.0
    out = []
    acc = {}
    for p in points:
        k = min(int((p[0] - t0) / width), bins - 1)
        acc.setdefault(k, []).append(p[1:])
    for k in sorted(acc):
        vs = acc[k]
        n = len(vs[0])
        means = tuple(sum(v[i] for v in vs) / len(vs) for i in range(n))
        maxes = tuple(max(v[i] for v in vs) for i in range(n))
        out.append((t0 + (k + 0.5) * width,) + means + maxes)
    return out


def timeline(path, ch):
    rows = read_csv(path)
    need(rows, ["time_s", "replica", "batch_size", "kv_blocks_used", "kv_blocks_total", "queue_length"], path)
    replicas = sorted(set(r["replica"] for r in rows), key=int)
    note = "" if len(replicas) == 1 else " (replica 0 of %d)" % len(replicas)
    rows = [r for r in rows if r["replica"] == replicas[0]]
    pts = sorted((num(r["time_s"]), num(r["batch_size"]),
                  100 * num(r["kv_blocks_used"]) / max(num(r["kv_blocks_total"]), 1), num(r["queue_length"]))
                 for r in rows)
    # Engine steps are milliseconds apart: average them into ~500 buckets so the
    # lines stay readable, and draw each bucket's maximum lightly behind.
    data = ch.data(binned(pts, 500))
    s = [common_style(), "set key outside top center horizontal noopaque nobox",
         "set multiplot layout 3,1 title %s font ',14'" % gp_quote(
             "Engine timeline%s: %s" % (note, os.path.basename(os.path.dirname(os.path.abspath(path))) or path)),
         "set xlabel 'simulated time (s)'",
         "set ylabel 'batch size (sequences)'",
         "plot %s using 1:5 with lines lc rgb '#aec7e8' title 'max in bucket', "
         "'' using 1:2 with lines ls 1 title 'running sequences (mean)'" % data,
         "set ylabel 'KV cache in use (%)'",
         "set yrange [0:105]",
         "plot %s using 1:6 with lines lc rgb '#98df8a' title 'max in bucket', "
         "'' using 1:3 with lines ls 3 title 'KV blocks used (mean)'" % data,
         "set yrange [0:*]",
         "set ylabel 'queue length (requests)'",
         "plot %s using 1:7 with lines lc rgb '#ff9896' title 'max in bucket', "
         "'' using 1:4 with lines ls 2 title 'waiting requests (mean)'" % data,
         "unset multiplot"]
    return s


def main(argv):
    if len(argv) != 4 or argv[1] not in KINDS:
        sys.stderr.write(__doc__)
        sys.exit(2)
    kind, inp, prefix = argv[1], argv[2], argv[3]
    if not shutil.which("gnuplot"):
        die("gnuplot not found (tools/install-deps.sh installs gnuplot-nox)")
    if not os.path.isfile(inp):
        die("%s: no such file" % inp)
    outdir = os.path.dirname(os.path.abspath(prefix))
    os.makedirs(outdir, exist_ok=True)
    tmp = tempfile.mkdtemp(prefix="servesim-plot-")
    try:
        ch = Chart(tmp)
        body = globals()[kind](inp, ch)
        tall = kind in ("latency", "timeline")
        height = 900 if tall else 720 if kind == "cost" else 650
        for term, ext in (("pngcairo noenhanced font 'Sans,10' size 1100,%d" % height, "png"),
                          ("svg noenhanced font 'Sans,10' size 1100,%d dynamic" % height, "svg")):
            script = ["set terminal " + term, "set output %s" % gp_quote(prefix + "." + ext), "set encoding utf8"]
            script += body
            script.append("unset output")
            path = os.path.join(tmp, "plot.gp")
            with open(path, "w") as f:
                f.write("\n".join(script) + "\n")
            r = subprocess.run(["gnuplot", path], capture_output=True, text=True)
            if r.returncode != 0:
                die("gnuplot failed:\n" + r.stderr)
            print("wrote %s.%s" % (prefix, ext))
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main(sys.argv)
