"""How a run looks in a notebook (Result._repr_html_ / _repr_markdown_): the verdict
under what ran (the CLI's first line: model, GPU, parallelism, precision, engine):
SLOs met or missed with their attainment, OVERLOADED, failures by reason; then the
latency table with its 80% bands, throughput, utilisation and energy, and the
warnings. The numbers come from the run's summary (the JSON of `servesim run
--json`); every text is escaped, so a hostile name in a scenario cannot inject
markup."""
from __future__ import annotations

import html
from typing import Any, Iterable

_MARK = {True: "✔ ", False: "✘ ", None: ""}  # met / missed (also in colour in HTML)
_LATENCIES = (("TTFT", "ttft_ms"), ("TPOT", "tpot_ms"), ("ITL", "itl_ms"), ("E2E", "e2e_ms"), ("queue", "queue_ms"))
_STATS = ("mean", "p50", "p90", "p95", "p99")


def _ms(v: Any) -> str:
    return "-" if v is None else f"{v:.2f}"


def verdicts(s: dict) -> list[tuple[str, bool | None]]:
    """(text, good): good True (met), False (missed, overloaded, failed), None (a note)."""
    out: list[tuple[str, bool | None]] = []
    slo = s.get("slo", {})
    targets = slo.get("targets", [])
    if targets:
        missed = [t for t in targets if not t.get("met")]
        head = "SLOs met" if slo.get("met") else "SLOs MISSED"
        text = (f"{head}: attainment {100 * slo.get('attainment', 0):.1f}% of requests, goodput "
                f"{slo.get('goodput_rps', 0):.2f} req/s")
        if missed:
            text += "; " + ", ".join(
                f"{t['metric']} {t['statistic']} {_ms(t.get('value_ms'))} ms > {t['limit_ms']:.1f} ms" for t in missed)
        out.append((text, bool(slo.get("met"))))
    else:
        out.append(("no SLO targets set (slo: in the scenario)", None))
    load = s.get("load", {})
    guard = load.get("guard", {})
    if guard.get("tripped"):
        out.append((f"OVERLOADED: offered {load.get('offered_rps', 0):.2f} req/s, served "
                    f"{load.get('served_rps', 0):.2f} req/s; the run was STOPPED at {guard.get('tripped_at_s', 0):.1f} s "
                    "by the queue memory guard (engine.max_queue_memory)", False))
    elif load.get("overloaded"):
        out.append((f"OVERLOADED: offered {load.get('offered_rps', 0):.2f} req/s, served "
                    f"{load.get('served_rps', 0):.2f} req/s; the backlog and the queue delay grow without bound "
                    f"({load.get('queue_delay_mid_ms', 0):.0f} ms mid-run, {load.get('queue_delay_last_ms', 0):.0f} ms "
                    "at the end)", False))
    else:
        out.append((f"keeps up: offered {load.get('offered_rps', 0):.2f} req/s, served "
                    f"{load.get('served_rps', 0):.2f} req/s", True))
    req = s.get("requests", {})
    if req.get("failed", 0) > 0:
        reasons = ", ".join(f"{n} {r}" for r, n in req.get("failures", {}).items() if n)
        out.append((f"{req['failed']} of {req['failed'] + req.get('completed', 0)} requests failed ({reasons})", False))
    return out


def latency_rows(s: dict) -> list[tuple[str, list[str]]]:
    return [(label, [_ms(s.get(key, {}).get(stat)) for stat in _STATS]) for label, key in _LATENCIES if key in s]


def band_rows(s: dict) -> tuple[str, list[tuple[str, list[str]]], list[str]]:
    """(heading, rows, sources) of the uncertainty bands; no rows when there are none."""
    b = s.get("bands", {})
    if not b.get("available"):
        return f"80% bands: {b.get('reason', 'none')}", [], []
    rows, sources = [], []
    for label, key in (("TTFT", "ttft_ms"), ("TPOT", "tpot_ms"), ("E2E", "e2e_ms")):
        if key not in b:
            continue
        cells = []
        for stat in ("mean", "p50", "p90", "p99"):
            band = b[key].get(stat)
            cells.append("-" if band is None else f"[{band['lo']:.1f}, {band['hi']:.1f}]")
            if band is not None:
                src = f"{band.get('label', '?')}: n={band.get('n', '?')}"
                if src not in sources:
                    sources.append(src)
        rows.append((label, cells))
    return f"{100 * b.get('coverage', 0.8):.0f}% bands, ms (from the errors of the closest measured runs)", rows, sources


def band_gaps(s: dict) -> list[str]:
    """Statistics left without a band while others have one, with the reason (JSON bands.missing)."""
    out = []
    for gap in s.get("bands", {}).get("missing", []):
        out.append(f"no band for {', '.join(gap.get('statistics', []))}: {gap.get('reason', '')}")
    return out


def facts(s: dict) -> list[tuple[str, str]]:
    out = []
    r, t, u = s.get("requests", {}), s.get("throughput", {}), s.get("utilization", {})
    gpus = s.get("gpus", 1) or 1
    out.append(("requests", f"{r.get('completed', 0)} completed, {r.get('failed', 0)} failed, "
                            f"{r.get('preempted', 0)} preempted ({r.get('preemptions', 0)} preemptions)"))
    out.append(("duration", f"{s.get('duration_s', 0):.1f} s simulated on {gpus} GPU(s)"))
    out.append(("throughput", f"{t.get('requests_per_s', 0):.2f} req/s, {t.get('output_tokens_per_s', 0):.0f} output tok/s "
                              f"({t.get('output_tokens_per_s', 0) / gpus:.0f}/GPU), "
                              f"{t.get('total_tokens_per_s', 0):.0f} total tok/s"))
    out.append(("batch, KV cache", f"batch {u.get('batch_size_mean', 0):.1f} mean / {u.get('batch_size_max', 0)} max, "
                                   f"KV cache {100 * u.get('kv_cache_mean', 0):.0f}% mean / "
                                   f"{100 * u.get('kv_cache_max', 0):.0f}% max of "
                                   f"{s.get('config', {}).get('kv_cache', {}).get('blocks_per_replica', '?')} blocks"))
    out.append(("GPU", f"busy {100 * u.get('busy_fraction', 0):.0f}%, MFU {100 * u.get('mfu', 0):.1f}%, "
                       f"HBM bandwidth {100 * u.get('memory_bandwidth', 0):.0f}%"))
    e = s.get("energy", {})
    if e.get("energy_j", 0) > 0:
        out.append(("energy", f"{e['power_w_per_gpu']:.0f} W per GPU on average "
                              f"({e['busy_power_w_per_gpu']:.0f} W while stepping), "
                              f"{e['joules_per_output_token']:.3g} J/output token, {e['energy_j'] / 3.6e6:.4g} kWh in all"))
    c = s.get("carbon")
    if c:
        out.append(("carbon", f"{c['co2_g']:.4g} gCO2 at {c['grid_g_per_kwh']:g} gCO2/kWh"))
    return out


# --- Markdown ---------------------------------------------------------------------

def _md(text: str) -> str:
    """Text safe in a Markdown line or table cell: no raw HTML (Jupyter renders HTML
    inside Markdown), no cell break, no code span or emphasis from a name."""
    out = str(text).replace("&", "&amp;").replace("<", "&lt;")
    for c in "\\|`*":
        out = out.replace(c, "\\" + c)
    return out


def _md_table(header: Iterable[str], rows: Iterable[tuple[str, list[str]]]) -> str:
    header = list(header)
    lines = ["| " + " | ".join(_md(h) for h in header) + " |", "|" + "---|" + "---:|" * (len(header) - 1)]
    lines += ["| " + " | ".join([_md(name)] + [_md(c) for c in cells]) + " |" for name, cells in rows]
    return "\n".join(lines)


def run_markdown(s: dict, warnings: list[str], title: str) -> str:
    parts = [f"**{_md(title)}**", ""]
    for text, good in verdicts(s):
        parts.append(f"- {_MARK[good]}{_md(text)}")
    parts += ["", _md_table(["ms"] + list(_STATS), latency_rows(s)), ""]
    heading, rows, sources = band_rows(s)
    parts.append(_md(heading))
    if rows:
        parts += ["", _md_table([""] + ["mean", "p50", "p90", "p99"], rows), "", "from " + _md("; ".join(sources))]
        parts += ["", *[f"- {_md(g)}" for g in band_gaps(s)]] if band_gaps(s) else []
    parts.append("")
    parts += [f"- {_md(k)}: {_md(v)}" for k, v in facts(s)]
    if warnings:
        parts += [""] + [f"- warning: {_md(w)}" for w in warnings]
    return "\n".join(parts) + "\n"


# --- HTML -------------------------------------------------------------------------

_GOOD, _BAD = "color:#1a7f37", "color:#b42318;font-weight:bold"


def _html_table(header: Iterable[str], rows: Iterable[tuple[str, list[str]]]) -> str:
    e = html.escape
    head = "".join(f"<th style='text-align:right'>{e(h)}</th>" for h in header)
    body = "".join("<tr><th style='text-align:left'>" + e(name) + "</th>" +
                   "".join(f"<td style='text-align:right'>{e(c)}</td>" for c in cells) + "</tr>" for name, cells in rows)
    return f"<table><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>"


def run_html(s: dict, warnings: list[str], title: str) -> str:
    e = html.escape
    out = [f"<div class='servesim-run'><p><b>{e(title)}</b></p><ul>"]
    for text, good in verdicts(s):
        style = "" if good is None else (_GOOD if good else _BAD)
        out.append(f"<li style='{style}'>{_MARK[good]}{e(text)}</li>")
    out.append("</ul>")
    out.append(_html_table(["ms"] + list(_STATS), latency_rows(s)))
    heading, rows, sources = band_rows(s)
    out.append(f"<p>{e(heading)}</p>")
    if rows:
        out.append(_html_table([""] + ["mean", "p50", "p90", "p99"], rows))
        out.append(f"<p style='font-size:smaller'>from {e('; '.join(sources))}</p>")
        for g in band_gaps(s):
            out.append(f"<p style='font-size:smaller'>{e(g)}</p>")
    out.append("<ul>" + "".join(f"<li>{e(k)}: {e(v)}</li>" for k, v in facts(s)) + "</ul>")
    if warnings:
        out.append("<ul>" + "".join(f"<li style='color:#9a6700'>warning: {e(w)}</li>" for w in warnings) + "</ul>")
    out.append("</div>")
    return "".join(out)


# --- Sweeps and plans --------------------------------------------------------------

def sweep_counts(rows: list[dict]) -> str:
    """"N feasible, M meet the SLOs, K overloaded" over a sweep's points."""
    ok = [r for r in rows if r.get("status") == "ok"]
    slo = [r for r in ok if r.get("summary", {}).get("slo", {}).get("targets")]
    met = sum(1 for r in slo if r["summary"]["slo"].get("met"))
    over = sum(1 for r in ok if r.get("summary", {}).get("load", {}).get("overloaded"))
    text = f"{len(ok)} feasible"
    if slo:
        text += f", {met} meet the SLOs"
    return text + f", {over} overloaded"


def sweep_html(rows: list[dict]) -> str:
    """A sweep's points as a table: the varied values, status, throughput, TTFT/TPOT
    p99 and the SLO and load verdicts (the full table is SweepResult.frame())."""
    e = html.escape
    keys = list(rows[0].get("vary", {})) if rows else []
    header = keys + ["status", "req/s", "TTFT p99 ms", "TPOT p99 ms", "SLOs", "load"]
    out = [f"<div class='servesim-sweep'><p><b>{len(rows)} points</b>: {e(sweep_counts(rows))}</p><table><thead><tr>"]
    out += [f"<th>{e(h)}</th>" for h in header]
    out.append("</tr></thead><tbody>")
    for r in rows:
        s = r.get("summary", {})
        ok = r.get("status") == "ok"
        cells = [e(str(r.get("vary", {}).get(k, ""))) for k in keys]
        cells.append(e(r.get("status", "")) if ok else f"<span style='{_BAD}' title='{e(r.get('reason', ''))}'>"
                                                          f"{e(r.get('status', ''))}</span>")
        if ok:
            cells += [f"{s.get('throughput', {}).get('requests_per_s', 0):.2f}", _ms(s.get("ttft_ms", {}).get("p99")),
                      _ms(s.get("tpot_ms", {}).get("p99"))]
            slo = s.get("slo", {})
            cells.append("" if not slo.get("targets") else
                         (f"<span style='{_GOOD}'>met</span>" if slo.get("met") else f"<span style='{_BAD}'>MISSED</span>"))
            cells.append(f"<span style='{_BAD}'>OVERLOADED</span>" if s.get("load", {}).get("overloaded") else "ok")
        else:
            cells += ["", "", "", "", ""]
        out.append("<tr>" + "".join(f"<td style='text-align:right'>{c}</td>" for c in cells) + "</tr>")
    out.append("</tbody></table></div>")
    return "".join(out)


def plan_best(data: dict) -> dict | None:
    """The candidate ranked first by `servesim plan`, or None."""
    for c in data.get("candidates", []):
        if c.get("rank") == 1:
            return c
    return None
