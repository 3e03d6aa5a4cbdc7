#!/usr/bin/env python3
"""The printed outputs in README.md and docs/*.md, regenerated from the build.

Every fenced block that shows what a command prints is marked, on the line just
above its opening fence, in one of two ways:

    <!-- output: servesim run scenarios/quickstart.yaml | sed -n '/^SLO/,/goodput/p' -->
    ```
    ...what that command prints on standard output...
    ```

    <!-- transcript -->
    ```
    $ servesim sweep scenarios/quickstart.yaml --vary engine.max_num_seq=64,128
    ...what it prints, standard output and error together, as a terminal shows them...
    $ servesim ... (a command may continue on lines ending in a backslash)
    ...
    ```

Commands run under bash with the build's `servesim` first on PATH (its Python
module on PYTHONPATH), in a scratch folder that links the repository's scenarios/,
hardware/, models/, data/, tools/ and tests/ (so files a command writes, such as
`--out plan-out`, stay out of the checkout), one scratch folder per document with
its blocks run in order (a later block may read what an earlier one wrote).
Trailing blanks are dropped; a transcript's commands may fail (an error shown on
purpose), an output command must not.

    python3 tools/docs/docs_outputs.py --write   # regenerate every marked block
    python3 tools/docs/docs_outputs.py --check   # rerun and diff (ctest docs_outputs_match)
    python3 tools/docs/docs_outputs.py --list    # the marked blocks and their commands

Options: --servesim PATH (default build/servesim), --only FILE (repeatable),
-j N (commands run in parallel; each is a separate process).

--check also fails on a block that looks like servesim output (a line such as
"requests   ... completed", "best: ...", "ms   mean   p50") without a marker:
a printed block must say what printed it, so a change that moves a number
either updates the docs (--write) or fails the check. Code and configuration
blocks carry a language tag (```yaml, ```bash) and are left alone.
"""
import argparse
import concurrent.futures
import difflib
import glob
import os
import re
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

# The documents whose printed blocks this script owns, and those it leaves to others.
DOCS = ["README.md", "docs/scenarios.md", "docs/planning.md", "docs/energy.md", "docs/disaggregation.md",
        "docs/configuration.md", "docs/validation.md", "docs/cluster.md", "docs/local-inference.md",
        "docs/moe-at-scale.md", "docs/agents-and-fleets.md", "docs/lora.md"]
NOT_HERE = {
    "docs/config-reference.md": "generated whole by `servesim describe --markdown` (ctest config_reference_up_to_date)",
    "docs/validation-report.md": "generated whole by tools/validate-all",
    "docs/seeds.md": "generated whole by tools/docs/seeds_page.py",
    "docs/speed.md": "timings of this machine, measured by hand (tools/bench/), not reproducible outputs",
    "docs/limits.md": "no printed outputs",
    "docs/python.md": "its examples are the Python API's, run and diffed by ctest python_docs (python/tests/test_docs.py)",
    "docs/models.md": "no printed outputs (its figures are in prose)",
    "docs/host-cost.md": "no printed outputs (a formula block)",
    "docs/beam-search.md": "no printed outputs (its fit table is tools/fit/beam_search_check.py's, in docs/validation-report)",
    "docs/report.md": "no printed outputs: its screenshots come from tests/report/test_report_browser.py --docs-screenshots",
}

MARKER = re.compile(r"^<!-- output: (.*) -->$")
TRANSCRIPT = "<!-- transcript -->"
LINKED = ["scenarios", "hardware", "models", "data", "tools", "tests", "docs", "python"]
FENCE = re.compile(r"^```(\S*)\s*$")
# Lines only servesim's own reports print: an unmarked untagged block holding one is a stale output.
LOOKS_PRINTED = re.compile(
    r"^(requests +\d+ completed|best: |rank candidate|ms +mean +p50|  attainment \d|KV cache: \d+ blocks|"
    r"energy +\d+ W per GPU|cost +\$|80% bands)")


class Block:
    def __init__(self, doc, line, command, start, end, text):
        self.doc, self.line = doc, line
        self.command = command  # None: a transcript
        self.start, self.end = start, end  # lines[start:end] is the content between the fences
        self.text = text
        self.output = None
        self.error = None

    def commands(self):
        """A transcript's commands: ("$ " line and its continuations as shown, the command to run)."""
        out, lines, i = [], self.text.split("\n"), 0
        while i < len(lines):
            if not lines[i].startswith("$ "):
                i += 1
                continue
            shown = [lines[i]]
            while shown[-1].endswith("\\") and i + 1 < len(lines):
                i += 1
                shown.append(lines[i])
            run = " ".join(x[:-1].strip() if x.endswith("\\") else x.strip() for x in shown)[2:]
            out.append((shown, run))
            i += 1
        return out


def parse(doc):
    """(lines, marked blocks, unmarked blocks that look printed) of one document."""
    lines = open(os.path.join(ROOT, doc), encoding="utf-8").read().split("\n")
    blocks, suspects = [], []
    i = 0
    while i < len(lines):
        m = FENCE.match(lines[i])
        if not m:
            i += 1
            continue
        j = i + 1
        while j < len(lines) and not lines[j].startswith("```"):
            j += 1
        if j >= len(lines):
            sys.exit(f"{doc}:{i + 1}: a fenced block that never closes")
        marker = MARKER.match(lines[i - 1]) if i > 0 else None
        transcript = i > 0 and lines[i - 1] == TRANSCRIPT
        content = "\n".join(lines[i + 1:j])
        if marker or transcript:
            if m.group(1) not in ("", "text"):
                sys.exit(f"{doc}:{i}: an output marker above a ```{m.group(1)} block (outputs are untagged)")
            b = Block(doc, i, marker.group(1) if marker else None, i + 1, j, content)
            if transcript and not b.commands():
                sys.exit(f"{doc}:{i}: a transcript without a '$ COMMAND' line")
            blocks.append(b)
        elif m.group(1) in ("", "text") and any(LOOKS_PRINTED.match(x) for x in lines[i + 1:j]):
            suspects.append((doc, i + 1))
        i = j + 1
    return lines, blocks, suspects


def clean(text):
    return "\n".join(x.rstrip() for x in text.rstrip("\n").split("\n")) if text.strip() else ""


def run(block, env, scratch):
    if block.command is not None:
        try:
            r = subprocess.run(["bash", "-o", "pipefail", "-c", block.command], cwd=scratch, env=env,
                               capture_output=True, text=True, timeout=600)
        except subprocess.TimeoutExpired:
            block.error = "timed out after 600 s"
            return
        if r.returncode != 0:
            block.error = f"exit {r.returncode}: {r.stderr.strip()[-2000:]}"
            return
        block.output = clean(r.stdout)
        return
    parts = []
    for shown, command in block.commands():
        try:
            r = subprocess.run(["bash", "-o", "pipefail", "-c", command], cwd=scratch, env=env,
                               stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, timeout=600)
        except subprocess.TimeoutExpired:
            block.error = f"`{command}` timed out after 600 s"
            return
        parts += shown
        out = clean(r.stdout)
        if out:
            parts.append(out)
    block.output = "\n".join(parts)


def run_document(doc, blocks, servesim):
    """Runs one document's blocks in order in its own scratch folder."""
    env = dict(os.environ)
    bin_dir = os.path.dirname(os.path.abspath(servesim))
    env["PATH"] = bin_dir + os.pathsep + env.get("PATH", "")
    env["PYTHONPATH"] = os.path.join(bin_dir, "python") + os.pathsep + env.get("PYTHONPATH", "")
    env["COLUMNS"] = "200"
    env["SERVESIM_HOME"] = ROOT  # the catalogs of the tree whose docs these are
    with tempfile.TemporaryDirectory(prefix="servesim-docs-") as scratch:
        for name in LINKED:
            if os.path.exists(os.path.join(ROOT, name)):
                os.symlink(os.path.join(ROOT, name), os.path.join(scratch, name))
        os.symlink(bin_dir, os.path.join(scratch, "build"))
        for b in blocks:
            run(b, env, scratch)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    mode = ap.add_mutually_exclusive_group(required=True)
    mode.add_argument("--check", action="store_true")
    mode.add_argument("--write", action="store_true")
    mode.add_argument("--list", action="store_true")
    ap.add_argument("--servesim", default=os.path.join(ROOT, "build", "servesim"))
    ap.add_argument("--only", action="append", default=[])
    ap.add_argument("-j", type=int, default=2)
    a = ap.parse_args()
    # Every document is either checked here or says why not: a new page is not skipped silently.
    unlisted = sorted(d for d in ["README.md"] + [os.path.relpath(p, ROOT) for p in glob.glob(os.path.join(ROOT, "docs", "*.md"))]
                      if d not in DOCS and d not in NOT_HERE)
    if unlisted and not a.only:
        sys.exit(f"{', '.join(unlisted)}: not in DOCS (printed outputs checked) nor NOT_HERE (why not) of "
                 f"tools/docs/docs_outputs.py: add each to one of them")
    docs = a.only or [d for d in DOCS if os.path.exists(os.path.join(ROOT, d))]
    parsed = {d: parse(d) for d in docs}
    blocks = [b for d in docs for b in parsed[d][1]]
    suspects = [s for d in docs for s in parsed[d][2]]
    if a.list:
        for b in blocks:
            print(f"{b.doc}:{b.line}: {b.command if b.command is not None else 'transcript: ' + '; '.join(c for _, c in b.commands())}")
        for d, why in NOT_HERE.items():
            print(f"(not checked here: {d}: {why})")
        return 0
    if not os.access(a.servesim, os.X_OK):
        sys.exit(f"no servesim binary at {a.servesim}: build first, or give --servesim")
    with concurrent.futures.ThreadPoolExecutor(max_workers=max(1, a.j)) as pool:
        list(pool.map(lambda d: run_document(d, parsed[d][1], a.servesim), docs))
    failed = [b for b in blocks if b.error]
    for b in failed:
        print(f"{b.doc}:{b.line}: `{b.command or 'transcript'}` failed: {b.error}", file=sys.stderr)
    if a.write:
        for d in docs:
            lines = parsed[d][0]
            for b in sorted(parsed[d][1], key=lambda b: -b.start):  # from the end: earlier indices stay valid
                if b.output is not None:
                    lines[b.start:b.end] = b.output.split("\n") if b.output else []
            text = "\n".join(lines)
            path = os.path.join(ROOT, d)
            if open(path, encoding="utf-8").read() != text:
                with open(path, "w", encoding="utf-8") as f:
                    f.write(text)
                print(f"{d}: updated")
        for d, line in suspects:
            print(f"{d}:{line}: looks like a printed output but has no <!-- output: COMMAND --> marker",
                  file=sys.stderr)
        return 1 if failed or suspects else 0
    stale = 0
    for b in blocks:
        if b.output is None or b.output == b.text:
            continue
        stale += 1
        diff = difflib.unified_diff(b.text.split("\n"), b.output.split("\n"), f"{b.doc}:{b.line} (in the docs)",
                                    f"`{b.command or 'transcript'}` (now)", lineterm="", n=1)
        print("\n".join(diff))
    for d, line in suspects:
        print(f"{d}:{line}: looks like a printed output but has no <!-- output: COMMAND --> marker")
    if stale or failed or suspects:
        print(f"\n{stale} stale block(s), {len(failed)} failed command(s), {len(suspects)} unmarked output(s) of "
              f"{len(blocks)} checked: regenerate with `python3 tools/docs/docs_outputs.py --write` (and commit the "
              f"docs), or mark the block")
        return 1
    print(f"{len(blocks)} printed blocks in {len(docs)} documents match what the build prints")
    return 0


if __name__ == "__main__":
    sys.exit(main())
