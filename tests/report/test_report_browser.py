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
  - the page fetches nothing: no http(s) URL in it other than the SVG namespace.
Exit 77 (ctest: skipped) with a message when chromium is not installed.

usage: test_report_browser.py SERVESIM REPO_ROOT [KEEP_DIR]
(KEEP_DIR keeps the pages and screenshots, e.g. to look at them.)
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
    "sweep": ["sweep-ttft", "sweep-tpot", "sweep-throughput"],
    "plan": ["plan-pareto"],
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
    sh(flags + [f"--screenshot={png}", url])
    w, h, n = png_colours(png)
    if (w, h) != (WIDTH, HEIGHT) or n <= 20:
        raise SystemExit(f"FAIL: {kind}: screenshot {w}x{h} with {n} colours (expected {WIDTH}x{HEIGHT}, > 20)")
    print(f"ok {kind}: data-rendered=ok, charts {', '.join(CHARTS[kind])} drawn, screenshot {w}x{h}, {n} colours")


def main():
    servesim, root = sys.argv[1], sys.argv[2]
    chromium = find_chromium()
    if not chromium:
        print("SKIP: chromium is not installed (tools/install-deps.sh installs it); the report was not browser-tested")
        return 77
    work = sys.argv[3] if len(sys.argv) > 3 else tempfile.mkdtemp(prefix="servesim-report-")
    os.makedirs(work, exist_ok=True)
    scenario = os.path.join(root, "scenarios", "quickstart.yaml")
    sh([servesim, "run", scenario, "--set", "workload.requests=300", "--out", os.path.join(work, "run")])
    sh([servesim, "sweep", scenario, "--set", "workload.requests=200", "--vary", "workload.arrival.rate=2,4,8",
        "--vary", "model.kv_cache=bf16,fp8", "-j", "2", "--out", os.path.join(work, "sweep.csv")])
    sh([servesim, "plan", os.path.join(root, "scenarios", "capacity-plan.yaml"), "--candidates-gpu", "h100-sxm,h200-sxm",
        "--candidates-weights", "fp8", "--candidates-tp", "2,4", "--trial-requests", "100", "-j", "2",
        "--out", os.path.join(work, "plan")])
    inputs = {"run": "run", "sweep": "sweep.csv", "plan": "plan"}
    for kind, inp in inputs.items():
        html = os.path.join(work, f"{kind}.html")
        sh([servesim, "report", os.path.join(work, inp), "--out", html])
        again = os.path.join(work, f"{kind}-again.html")
        sh([servesim, "report", os.path.join(work, inp), "--out", again])
        if open(html, "rb").read() != open(again, "rb").read():
            raise SystemExit(f"FAIL: {kind}: two reports of the same input differ")
        check_page(chromium, kind, html, os.path.join(work, f"{kind}.png"))
    if len(sys.argv) <= 3:
        shutil.rmtree(work)
    return 0


if __name__ == "__main__":
    sys.exit(main())
