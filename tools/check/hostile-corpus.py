#!/usr/bin/env python3
"""A hostile-input corpus made from the shipped files, field by field (issue 33).

For every numeric or text field of the config.json fixtures, of a GPU file and of a
model file, and for every scenario key's value, one case replaces that field's value
with one of a list of hostile values (negative, zero, huge, fractional where an integer
is due, NaN, infinity, a wrong type, an empty text, a name that is a shell command or a
spreadsheet formula) and runs servesim on it. Every case must:
  - end by itself (no hang: a 30 s limit) with exit 0, 1 or 2 (no crash, no escaped
    exception: 3, no signal), with no sanitizer report and no "terminate called";
  - run no command (no file named PWNED appears) and write nothing outside its output;
and a case that exits 0 with a value that cannot be right for that field (a negative
size, a zero count, NaN, 1e30) is listed as "accepted": each needs a reason to be fine.

usage: hostile-corpus.py SERVESIM [--root DIR] [--limit N] [--list-accepted] [--seed S]
Prints a summary (cases, refused, accepted, crashes, hangs) and exits 1 on any crash,
hang, injected command or stray file.
"""
import argparse
import copy
import json
import os
import random
import re
import shutil
import subprocess
import sys
import tempfile

HOSTILE_NUMBERS = [-1, 0, 0.5, 1e9, 2**31, 2**63, 1e308, -1e308, float("nan"), float("inf"), "abc", None, [], {}, True]
HOSTILE_QUANTITIES = ["-1 GB", "0", "1e30 TB/s", ".nan", ".inf", "3 parsecs", "'700 W'", "[]", "{}", "-5 ms", "1e-320"]
HOSTILE_TEXT = ["", "x`touch PWNED`", "$(touch PWNED)", "=HYPERLINK(\"http://x\")", "../../etc/passwd", "a" * 5000,
                "\u0000", "null"]


def run(binary, args, cwd, env, timeout=30):
    try:
        r = subprocess.run([binary, *args], cwd=cwd, env=env, capture_output=True, text=True, timeout=timeout,
                           errors="replace")
        return r.returncode, r.stderr
    except subprocess.TimeoutExpired:
        return "hang", ""


def json_cases(root):
    """(name, folder contents) for each hostile value of each top-level field of each config.json fixture."""
    folders = []
    for base in ("tests/fixtures/model_configs", "tests/fixtures/arch_configs"):
        d = os.path.join(root, base)
        for name in sorted(os.listdir(d)):
            p = os.path.join(d, name, "config.json")
            if os.path.isfile(p):
                folders.append((name, p))
    for name, p in folders:
        with open(p) as f:
            cfg = json.load(f)
        target = cfg.get("text_config", cfg) if isinstance(cfg.get("text_config"), dict) else cfg
        for key, value in list(target.items()):
            if isinstance(value, bool) or not isinstance(value, (int, float)):
                continue
            for bad in HOSTILE_NUMBERS:
                c = copy.deepcopy(cfg)
                (c["text_config"] if target is not cfg else c)[key] = bad
                yield f"config.json {name} {key}={bad!r}", c, key, bad


def yaml_field_cases(path, label):
    """Each `key: value` line of a catalog YAML with its value replaced."""
    with open(path) as f:
        lines = f.read().splitlines()
    for i, line in enumerate(lines):
        m = re.match(r'^(\s*)([A-Za-z_0-9]+):\s*("[^"]*"|[^#\s][^#]*?)\s*(#.*)?$', line)
        if not m or m.group(2) in ("schema_version",):
            continue
        value = m.group(3).strip()
        numeric = bool(re.match(r'^"?[-+0-9.]', value))
        for bad in (HOSTILE_QUANTITIES if numeric else HOSTILE_TEXT):
            new = list(lines)
            new[i] = f"{m.group(1)}{m.group(2)}: {json.dumps(bad) if not numeric else bad}"
            yield f"{label} {m.group(2)}={bad!r}", "\n".join(new) + "\n", m.group(2), bad


# config.json fields servesim does not read (token ids, training-time and numerics
# settings, rope parameters): any value there is rightly ignored, not "accepted".
IGNORED = {"bos_token_id", "eos_token_id", "pad_token_id", "rope_theta", "rms_norm_eps", "layer_norm_eps",
           "norm_epsilon", "initializer_range", "attention_dropout", "router_aux_loss_coef", "router_jitter_noise",
           "pretraining_tp", "partial_rotary_factor", "routed_scaling_factor", "attn_logit_softcapping",
           "final_logit_softcapping", "query_pre_attn_scalar", "rope_local_base_freq", "aux_loss_alpha", "n_group",
           "topk_group", "ep_size", "floor_scale", "attn_scale", "embedding_multiplier", "residual_multiplier",
           "attention_multiplier", "logits_scaling", 
           "kv_channels", "image_token_index", "boi_token_index", "eoi_token_index",
           "mm_tokens_per_image", "hidden_dropout", "resid_pdrop", "embd_pdrop", 
           "rope_scaling"}

# config.json fields read only when another field switches them on: ignored (rightly)
# when it is off. max_window_layers counts Qwen2/3's full-attention layers, read only
# with use_sliding_window: true (transformers' Qwen2Attention; sim/model/hf_import.cpp
# checks it against num_hidden_layers then).
READ_ONLY_WITH = {"max_window_layers": "use_sliding_window"}


def ignored(kind, key, content):
    if key in IGNORED:
        return True
    if kind == "json" and key in READ_ONLY_WITH:
        cfg = content.get("text_config", content) if isinstance(content.get("text_config"), dict) else content
        return not cfg.get(READ_ONLY_WITH[key], False)
    return False


def suspicious(bad):
    if isinstance(bad, float) and (bad != bad or bad in (float("inf"), float("-inf"), 1e308, -1e308)):
        return True
    if isinstance(bad, (int, float)) and not isinstance(bad, bool) and (bad < 0 or bad >= 1e9):
        return True
    if isinstance(bad, str) and re.match(r"^-|1e30|\.nan|\.inf", bad):
        return True
    return False


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("servesim")
    ap.add_argument("--root", default=os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
    ap.add_argument("--limit", type=int, default=0, help="run a random sample of this many cases (0: all)")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--list-accepted", action="store_true")
    a = ap.parse_args()
    root = os.path.abspath(a.root)
    binary = os.path.abspath(a.servesim)
    env = dict(os.environ, SERVESIM_HOME=root)
    work = tempfile.mkdtemp(prefix="servesim-corpus-")
    cases = []
    for name, cfg, key, bad in json_cases(root):
        cases.append(("json", name, cfg, key, bad))
    for name, text, key, bad in yaml_field_cases(os.path.join(root, "hardware", "h100-sxm.yaml"), "gpu file"):
        cases.append(("gpu", name, text, key, bad))
    for name, text, key, bad in yaml_field_cases(os.path.join(root, "models", "deepseek-v3.yaml"), "model file"):
        cases.append(("model", name, text, key, bad))
    if a.limit:
        random.Random(a.seed).shuffle(cases)
        cases = cases[: a.limit]
    counts = {"cases": 0, "refused": 0, "accepted": 0, "ok": 0}
    failures, accepted = [], []
    for kind, name, content, key, bad in cases:
        counts["cases"] += 1
        case = os.path.join(work, f"case{counts['cases']}")
        os.makedirs(case)
        out = os.path.join(case, "out")
        if kind == "json":
            with open(os.path.join(case, "config.json"), "w") as f:
                f.write(json.dumps(content, allow_nan=True))
            args = ["inspect", "--gpu", "h200-sxm", "--tp", "8", "--model", case, "--json"]
        elif kind == "gpu":
            with open(os.path.join(case, "gpu.yaml"), "w") as f:
                f.write(content)
            args = ["run", os.path.join(root, "scenarios", "quickstart.yaml"), "--set",
                    f"hardware.gpu={os.path.join(case, 'gpu.yaml')}", "--set", "workload.requests=50", "--out", out]
        else:
            with open(os.path.join(case, "model.yaml"), "w") as f:
                f.write(content)
            args = ["inspect", "--gpu", "h200-sxm", "--tp", "8", "--model", os.path.join(case, "model.yaml"), "--json"]
        before = set(os.listdir(case))
        rc, err = run(binary, args, case, env)
        stray = set(os.listdir(case)) - before - {"out"}
        pwned = any("PWNED" in files for _, _, files in os.walk(work)) or os.path.exists(os.path.join(root, "PWNED"))
        bad_end = rc == "hang" or rc not in (0, 1, 2) or "terminate called" in err or "runtime error" in err \
            or "Sanitizer" in err
        if bad_end or pwned or stray:
            failures.append(f"{name}: rc={rc} pwned={pwned} stray={sorted(stray)} {err[-300:]}")
        elif rc == 0:
            counts["ok"] += 1
            if suspicious(bad) and not ignored(kind, key, content):
                counts["accepted"] += 1
                accepted.append(name)
        else:
            counts["refused"] += 1
        shutil.rmtree(case, ignore_errors=True)
    shutil.rmtree(work, ignore_errors=True)
    print(f"{counts['cases']} cases: {counts['refused']} refused, {counts['ok']} ran "
          f"({counts['accepted']} with a suspicious value accepted), {len(failures)} crashes/hangs/injections")
    if a.list_accepted:
        for n in accepted:
            print("accepted:", n)
    for f in failures:
        print("FAIL", f)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
