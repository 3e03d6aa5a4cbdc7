#!/usr/bin/env python3
"""`servesim report` in a real browser: runs a small scenario, a sweep and a plan,
writes a report of each, and has headless Chromium (Debian's `chromium`, installed
by tools/install-deps.sh) load each page and screenshot it. Checks:
  - the page ran without a script error: <html data-rendered="ok"> (set by the last
    inline script; window.onerror sets "error: ..." instead);
  - every chart the kind of report should have is there and has drawn a series
    (an svg with id=<chart> holding a path with at least 2 points, or dots);
  - the screenshot is a PNG of the window's size that is not blank (it has more
    than 20 distinct colours: the charts' blue and orange anti-aliased on white);
  - the page fetches nothing: no http(s) URL in it other than the SVG namespace;
  - the verdicts are on the rendered page, as text a reader sees: a run page leads with
    "SLOs met" (an overloaded run's with "SLOs MISSED" and "OVERLOADED", and its failures
    by reason), the 80% bands in brackets, the energy and cost rows, the model and GPU;
    a sweep page has the feasibility, overloaded and SLOs columns, not every point passing
    and the knee marked; a plan page names the best candidate and why.
Exit 77 (ctest: skipped) with a message when chromium is not installed.

usage: test_report_browser.py SERVESIM REPO_ROOT [KEEP_DIR] [--docs-screenshots IMG_DIR]
(KEEP_DIR keeps the pages and screenshots, e.g. to look at them; --docs-screenshots writes
the top of each page, 1280 px wide, as IMG_DIR/report-{run,overloaded,sweep,plan}.png: the
images docs/report.md shows.)
"""
import os
import re
import shutil
import struct
import subprocess
import sys
import tempfile
import zlib

CHARTS = {
    "run": ["cdf-ttft_ms", "cdf-tpot_ms", "cdf-e2e_ms", "timeline-batch", "timeline-kv"],
    "overloaded": ["cdf-ttft_ms", "cdf-tpot_ms", "cdf-e2e_ms", "timeline-batch", "timeline-kv"],
    "sweep": ["sweep-ttft", "sweep-tpot", "sweep-throughput"],
    "plan": ["plan-pareto"],
}
# Text the rendered page must show (regular expressions over the page's visible text), per page.
VERDICTS = {
    "run": [r"SLOs met", r"attainment 100\.0% of 300 offered requests", r"llama-3\.1-8b on h100-sxm x1",
            r"TTFT [0-9.]+ \[[0-9.]+, [0-9.]+\]", r"80% bands from servesim's errors",
            r"energy [0-9]+ W per GPU on average .* J/output token", r"cost \$2\.99/hour",
            r"W16A16 bf16, KV bf16 ?, vllm engine"],
    "overloaded": [r"SLOs MISSED · OVERLOADED · [0-9]+ requests? failed", r"OVERLOADED: the server cannot keep up",
                   r"failures by reason: [0-9]+ too_long_for_max_model_len"],
    "sweep": [r"[0-9]+ of 6 points pass", r"feasibility", r"overloaded", r"SLOs", r"MISSED", r"OVERLOADED",
              r"knee \(the highest workload\.arrival\.rate before the first point that fails\)"],
    "plan": [r"best: h[12]00-sxm fp8 tp=[24]", r"why: the lowest \$ per million output tokens of the [0-9]+ "
             r"candidate\(s\) that serve 50 req/s within the SLOs", r"goal: 50 req/s",
             r"SLOs: ttft_ms p99 ≤ 1000 ms, tpot_ms p99 ≤ 40 ms, attainment ≥ 99%"],
}
WIDTH, HEIGHT = 1280, 2400


def find_chromium():
    for name in ("chromium", "chromium-browser", "google-chrome"):
        path = shutil.which(name)
        if path:
            return path
    return None


def sh(cmd, **kw):
    r = subprocess.run(cmd, capture_output=True, text=True, timeout=300, **kw)
    if r.returncode != 0:
        raise SystemExit(f"FAIL: {' '.join(cmd)} exited {r.returncode}\n{r.stdout}\n{r.stderr}")
    return r.stdout


def png_colours(path):
    """(width, height, distinct RGB(A) colours) of an 8-bit RGB or RGBA PNG, decoded with zlib."""
    data = open(path, "rb").read()
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        raise SystemExit(f"FAIL: {path} is not a PNG")
    pos, idat, ihdr = 8, b"", None
    while pos < len(data):
        (length,) = struct.unpack(">I", data[pos:pos + 4])
        kind, body = data[pos + 4:pos + 8], data[pos + 8:pos + 8 + length]
        if kind == b"IHDR":
            ihdr = struct.unpack(">IIBBBBB", body)
        elif kind == b"IDAT":
            idat += body
        pos += 12 + length
    width, height, depth, ctype = ihdr[0], ihdr[1], ihdr[2], ihdr[3]
    if depth != 8 or ctype not in (2, 6):
        raise SystemExit(f"FAIL: {path}: PNG colour type {ctype} depth {depth} not decoded by this test")
    bpp = 3 if ctype == 2 else 4
    raw = zlib.decompress(idat)
    stride = width * bpp
    prev = bytearray(stride)
    colours = set()
    i = 0
    for _ in range(height):
        f = raw[i]
        line = bytearray(raw[i + 1:i + 1 + stride])
        i += 1 + stride
        for x in range(stride):  # undo the PNG row filter (RFC 2083, 6.)
            a = line[x - bpp] if x >= bpp else 0
            b = prev[x]
            c = prev[x - bpp] if x >= bpp else 0
            if f == 1:
                line[x] = (line[x] + a) & 255
            elif f == 2:
                line[x] = (line[x] + b) & 255
            elif f == 3:
                line[x] = (line[x] + (a + b) // 2) & 255
            elif f == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                pred = a if pa <= pb and pa <= pc else (b if pb <= pc else c)
                line[x] = (line[x] + pred) & 255
        for x in range(0, stride, bpp * 4):  # every 4th pixel is enough to count colours
            colours.add(bytes(line[x:x + bpp]))
        prev = line
    return width, height, len(colours)


def visible_text(dom):
    """The text of the rendered page: tags dropped, entities resolved, whitespace collapsed."""
    import html as htmllib
    body = re.sub(r"<(script|style|title)[^>]*>.*?</\1>", " ", dom, flags=re.S)
    return re.sub(r"\s+", " ", htmllib.unescape(re.sub(r"<[^>]+>", " ", body)))


def check_page(chromium, kind, html, png):
    page = open(html, encoding="utf-8").read()
    urls = [u for u in re.findall(r"https?://[^\s\"'<>]+", page) if u != "http://www.w3.org/2000/svg"]
    if urls:
        raise SystemExit(f"FAIL: {html} refers to the network: {urls[:3]}")
    url = "file://" + os.path.abspath(html)
    flags = [chromium, "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars",
             f"--window-size={WIDTH},{HEIGHT}"]
    dom = sh(flags + ["--dump-dom", url])
    m = re.search(r'<html[^>]*data-rendered="([^"]*)"', dom)
    if not m or m.group(1) != "ok":
        raise SystemExit(f"FAIL: {kind}: page did not finish its script: data-rendered={m.group(1) if m else None}")
    for chart in CHARTS[kind]:
        svg = re.search(r'<svg id="' + re.escape(chart) + r'".*?</svg>', dom, re.S)
        if not svg:
            raise SystemExit(f"FAIL: {kind}: no chart {chart} in the rendered DOM")
        paths = re.findall(r'<path class="series" d="M[^"]* L[^"]*"', svg.group(0))
        dots = svg.group(0).count("<circle")
        if not paths and not dots:
            raise SystemExit(f"FAIL: {kind}: chart {chart} drew no series")
    text = visible_text(dom)
    for pattern in VERDICTS[kind]:
        if not re.search(pattern, text):
            raise SystemExit(f"FAIL: {kind}: the rendered page does not show /{pattern}/")
    sh(flags + [f"--screenshot={png}", url])
    w, h, n = png_colours(png)
    if (w, h) != (WIDTH, HEIGHT) or n <= 20:
        raise SystemExit(f"FAIL: {kind}: screenshot {w}x{h} with {n} colours (expected {WIDTH}x{HEIGHT}, > 20)")
    print(f"ok {kind}: data-rendered=ok, charts {', '.join(CHARTS[kind])} drawn, verdicts shown "
          f"({len(VERDICTS[kind])} checks), screenshot {w}x{h}, {n} colours")


def main():
    args = sys.argv[1:]
    docs_dir = None
    if "--docs-screenshots" in args:
        k = args.index("--docs-screenshots")
        docs_dir = args[k + 1]
        del args[k:k + 2]
    servesim, root = args[0], args[1]
    chromium = find_chromium()
    if not chromium:
        print("SKIP: chromium is not installed (tools/install-deps.sh installs it); the report was not browser-tested")
        return 77
    keep = len(args) > 2
    work = args[2] if keep else tempfile.mkdtemp(prefix="servesim-report-")
    os.makedirs(work, exist_ok=True)
    scenario = os.path.join(root, "scenarios", "quickstart.yaml")
    sh([servesim, "run", scenario, "--set", "workload.requests=300", "--out", os.path.join(work, "run")])
    # Offered twice what one H100 serves, with a context limit some prompts exceed: OVERLOADED,
    # SLOs missed and requests failed with a reason.
    sh([servesim, "run", scenario, "--set", "workload.requests=1500", "--set", "workload.arrival.rate=25",
        "--set", "engine.max_model_len=2048", "--out", os.path.join(work, "overloaded")])
    # From light load past the knee: some points pass, the high ones are overloaded and miss the SLOs.
    sh([servesim, "sweep", scenario, "--set", "workload.requests=600", "--vary", "workload.arrival.rate=4,8,24",
        "--vary", "model.kv_cache=bf16,fp8", "-j", "2", "--out", os.path.join(work, "sweep.csv")])
    sh([servesim, "plan", os.path.join(root, "scenarios", "capacity-plan.yaml"), "--candidates-gpu", "h100-sxm,h200-sxm",
        "--candidates-weights", "fp8", "--candidates-tp", "2,4", "--trial-requests", "100", "-j", "2",
        "--out", os.path.join(work, "plan")])
    inputs = {"run": "run", "overloaded": "overloaded", "sweep": "sweep.csv", "plan": "plan"}
    for kind, inp in inputs.items():
        html = os.path.join(work, f"{kind}.html")
        sh([servesim, "report", os.path.join(work, inp), "--out", html])
        again = os.path.join(work, f"{kind}-again.html")
        sh([servesim, "report", os.path.join(work, inp), "--out", again])
        if open(html, "rb").read() != open(again, "rb").read():
            raise SystemExit(f"FAIL: {kind}: two reports of the same input differ")
        check_page(chromium, kind, html, os.path.join(work, f"{kind}.png"))
        if docs_dir:  # the top of the page, as the docs show it
            os.makedirs(docs_dir, exist_ok=True)
            shot = os.path.join(docs_dir, f"report-{kind}.png")
            sh([chromium, "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars",
                "--window-size=1280,1200", f"--screenshot={shot}", "file://" + os.path.abspath(html)])
            print(f"wrote {shot}")
    if not keep:
        shutil.rmtree(work)
    return 0


if __name__ == "__main__":
    sys.exit(main())
