#include "planning/whatif.h"

#include <fmt/format.h>

#include <cmath>

#include "cost/batch.h"
#include "planning/capacity.h"
#include "planning/economics.h"
#include "scenario/config_json.h"
#include "scenario/setup.h"
#include "util/error.h"
#include "util/text.h"

namespace servesim::planning {
namespace {

constexpr double GiB = 1024.0 * 1024.0 * 1024.0;

std::string kilo(double v) {
  if (std::fabs(v) >= 1e6) return fmt::format("{:.2f}M", v / 1e6);
  if (std::fabs(v) >= 1e4) return fmt::format("{:.1f}k", v / 1e3);
  return fmt::format("{:.0f}", v);
}

// "+12%", or "x37" once the change is more than threefold.
std::string pct(double from, double to) {
  if (from <= 0) return "n/a";
  if (to > 3 * from) return fmt::format("x{:.0f}", to / from);
  const double d = 100.0 * (to - from) / from;
  return fmt::format("{:+.0f}%", d);
}

// Milliseconds, switching to seconds past 10 s.
std::string ms(double v, int decimals = 0) {
  if (v >= 10000) return fmt::format("{:.0f} s", v / 1000);
  return fmt::format("{:.{}f} ms", v, decimals);
}

std::string label_of(const PointResult& p, const std::vector<SweepAxis>& axes) {
  std::vector<std::string> parts;
  for (std::size_t a = 0; a < axes.size(); ++a) parts.push_back(fmt::format("{}={}", axes[a].key, p.values[a]));
  return join(parts);
}

// A varied value as the point ran it: a weight precision that this GPU computes
// weight-only (fp8 weights on an A100: W8A16, no fp8 tensor cores) says so, since
// the same "fp8" is W8A8 on an H100.
std::string as_run(const std::string& value, const PointResult& p) {
  if (!p.scenario || !p.scenario->resolved.weight_only || value != dtype_name(p.scenario->resolved.weights))
    return value;
  const ResolvedPrecision& r = p.scenario->resolved;
  return fmt::format("{} weight-only (W{}A{})", value, static_cast<int>(dtype_bytes(r.weights) * 8),
                     static_cast<int>(dtype_bytes(r.compute) * 8));
}

// The varied values where `p` differs from the baseline, e.g. "fp8, h200-sxm".
std::string difference(const PointResult& p, const PointResult& base) {
  std::vector<std::string> mine, theirs;
  for (std::size_t a = 0; a < p.values.size(); ++a)
    if (p.values[a] != base.values[a]) {
      mine.push_back(as_run(p.values[a], p));
      theirs.push_back(as_run(base.values[a], base));
    }
  return fmt::format("{} (vs {})", join(mine, " + "), join(theirs, " + "));
}

}  // namespace

double decode_step_seconds(const Scenario& sc, std::int64_t batch, double context) {
  const CostModel cost = make_cost_model(sc);
  BatchSummary b = cost.batch();
  const auto ctx = static_cast<std::int64_t>(std::llround(std::max(context, 1.0)));
  for (std::int64_t i = 0; i < std::max<std::int64_t>(batch, 1); ++i) b.add(SeqWork{1, ctx, true});
  return cost.totals(b).time;
}

namespace {
// The configuration's SLO-meeting capacity and its cost per million output tokens there.
void fill_capacity(WhatIfRow& r, const Scenario& sc, const WhatIfOptions& options) {
  SearchOptions so;
  so.trial.requests = options.trial_requests;
  try {
    // Per replica, as plan does: one replica's trial at rate / replicas.
    Scenario one = sc;
    const int replicas = sc.parallelism.replicas;
    one.parallelism.replicas = 1;
    const CapacityResult c = find_max_rate(one, so);
    if (c.max_rate <= 0 || !c.at_max) {
      r.capacity_note = c.error.empty() ? "no SLO-meeting rate" : c.error;
      return;
    }
    r.capacity_found = true;
    r.capacity_rps = c.max_rate * replicas;
    const RunSummary& t = c.at_max->summary;
    r.usd_per_mtok_at_capacity = economics(sc.gpu, sc.parallelism.gpus_per_replica(), t.output_tokens_per_s,
                                           t.power_w_per_gpu)
                                     .usd_per_million_output_tokens;
  } catch (const Error& e) {
    r.capacity_note = e.what();
  }
}
}  // namespace

std::vector<WhatIfRow> whatif_rows(const std::vector<PointResult>& points, const std::vector<SweepAxis>& axes,
                                   const WhatIfOptions& options) {
  std::vector<WhatIfRow> rows;
  const WhatIfRow* base = nullptr;
  for (const auto& p : points) {
    WhatIfRow r;
    r.point = &p;
    r.label = label_of(p, axes);
    r.ok = p.ok;
    if (p.ok) {
      const Scenario& sc = *p.scenario;
      const SimulationResult& res = *p.result;
      const RunSummary& s = res.summary;
      r.weights_gib = res.memory.weights / GiB;
      r.kv_bytes_per_token = res.memory.kv_bytes_per_token;
      r.hbm_gb = sc.gpu.memory_capacity / 1e9;
      r.kv_blocks = res.kv_blocks_per_replica;
      r.kv_tokens = res.kv_blocks_per_replica * sc.engine.block_size;
      r.batch_mean = s.batch_size_mean;
      const double n = s.completed > 0 ? static_cast<double>(s.completed) : 1.0;
      r.context_mean = static_cast<double>(s.input_tokens) / n + 0.5 * static_cast<double>(s.output_tokens) / n;
      r.decode_step_ms = 1e3 * decode_step_seconds(sc, std::llround(std::max(1.0, r.batch_mean)), r.context_mean);
      r.compute_share = s.bound_share[0];
      r.bandwidth_share = s.bound_share[1];
      r.usd_per_mtok = economics(sc.gpu, s).usd_per_million_output_tokens;
      r.precision = precision_label(sc.resolved);
      if (options.at_capacity) fill_capacity(r, sc, options);
    }
    rows.push_back(r);
  }
  for (auto& r : rows)
    if (r.ok) {
      base = &r;
      break;
    }
  if (base) {
    const double b_batch = base->batch_mean, b_ctx = base->context_mean;
    for (auto& r : rows)
      if (r.ok)
        r.decode_step_base_ms =
            1e3 * decode_step_seconds(*r.point->scenario, std::llround(std::max(1.0, b_batch)), b_ctx);
  }
  return rows;
}

std::string whatif_table(const std::vector<WhatIfRow>& rows) {
  std::string out;
  std::size_t w = 6;
  for (const auto& r : rows) w = std::max(w, r.label.size());
  std::size_t pw = 9;
  for (const auto& r : rows) pw = std::max(pw, r.precision.size());
  // Every column says its unit: in the header, or in the cell where it changes (TTFT
  // in ms, or in s past 10 s, as the explanations below write it).
  out += fmt::format("{:<{}}  {:<{}}  {:>9} {:>9} {:>8} {:>7} {:>9} {:>9} {:>8} {:>8} {:>9} {:>9} {:>9} {:>9} {:>10}\n",
                     "config", w, "precision", pw, "KV blocks", "KV tokens", "W GiB/GPU", "batch", "step ms",
                     "step@base", "TPOT ms", "p99 ms", "TTFT p50", "TTFT p99", "out tok/s", "SLO req/s",
                     "$/Mtok@SLO");
  for (const auto& r : rows) {
    if (!r.ok) {
      out += fmt::format("{:<{}}  infeasible: {}\n", r.label, w, r.point->reason);
      continue;
    }
    const RunSummary& s = r.point->result->summary;
    out += fmt::format("{:<{}}  {:<{}}  {:>9} {:>9} {:>9.1f} {:>7.1f} {:>9.2f} {:>9.2f} {:>8.2f} {:>8.2f} {:>9} "
                       "{:>9} {:>9.0f} {:>9} {:>10}\n",
                       r.label, w, r.precision, pw, kilo(static_cast<double>(r.kv_blocks)),
                       kilo(static_cast<double>(r.kv_tokens)), r.weights_gib, r.batch_mean, r.decode_step_ms,
                       r.decode_step_base_ms, s.tpot_ms.mean, s.tpot_ms.p99, ms(s.ttft_ms.p50, 1), ms(s.ttft_ms.p99, 1),
                       s.output_tokens_per_s, r.capacity_found ? fmt::format("{:.2f}", r.capacity_rps) : "-",
                       r.capacity_found ? fmt::format("{:.3f}", r.usd_per_mtok_at_capacity) : "-");
  }
  return out;
}

std::vector<std::string> whatif_explanations(const std::vector<WhatIfRow>& rows) {
  std::vector<std::string> out;
  const WhatIfRow* base = nullptr;
  for (const auto& r : rows)
    if (r.ok) {
      base = &r;
      break;
    }
  if (!base) return out;
  const RunSummary& bs = base->point->result->summary;
  for (const auto& r : rows) {
    if (!r.ok || &r == base) continue;
    const RunSummary& s = r.point->result->summary;
    std::vector<std::string> clauses;
    // Why the KV capacity moved.
    std::vector<std::string> causes;
    if (std::fabs(r.weights_gib - base->weights_gib) > 0.05 * base->weights_gib)
      causes.push_back(fmt::format("weights {:.1f} -> {:.1f} GiB per GPU", base->weights_gib, r.weights_gib));
    if (std::fabs(r.kv_bytes_per_token - base->kv_bytes_per_token) > 0.01 * base->kv_bytes_per_token)
      causes.push_back(fmt::format("KV bytes per token x{:.2f}", r.kv_bytes_per_token / base->kv_bytes_per_token));
    if (std::fabs(r.hbm_gb - base->hbm_gb) > 0.5)
      causes.push_back(fmt::format("HBM {:.0f} -> {:.0f} GB", base->hbm_gb, r.hbm_gb));
    const double kv_ratio = base->kv_blocks > 0 ? static_cast<double>(r.kv_blocks) / base->kv_blocks : 0.0;
    if (std::fabs(kv_ratio - 1) > 0.02) {
      const std::string verb = kv_ratio >= 1.9 && kv_ratio <= 2.1 ? "doubles"
                               : kv_ratio > 1                      ? fmt::format("grows x{:.2f}", kv_ratio)
                               : kv_ratio >= 0.45 && kv_ratio <= 0.55 ? "halves"
                                                                     : fmt::format("shrinks x{:.2f}", kv_ratio);
      clauses.push_back(fmt::format("KV capacity {}: {} -> {} blocks{}", verb, kilo(static_cast<double>(base->kv_blocks)),
                                    kilo(static_cast<double>(r.kv_blocks)),
                                    causes.empty() ? "" : " (" + join(causes, ", ") + ")"));
    } else {
      clauses.push_back(fmt::format("KV capacity about the same ({} blocks)", kilo(static_cast<double>(r.kv_blocks))));
    }
    clauses.push_back(fmt::format("a decode step at the baseline batch ({:.0f} seqs) takes {:.2f} -> {:.2f} ms ({})",
                                  std::max(1.0, std::round(base->batch_mean)), base->decode_step_ms,
                                  r.decode_step_base_ms, pct(base->decode_step_ms, r.decode_step_base_ms)));
    if (std::fabs(r.batch_mean - base->batch_mean) > 0.05 * std::max(1.0, base->batch_mean))
      clauses.push_back(fmt::format("mean batch {:.1f} -> {:.1f}", base->batch_mean, r.batch_mean));
    clauses.push_back(fmt::format("TPOT {} -> {} ({})", ms(bs.tpot_ms.mean, 2), ms(s.tpot_ms.mean, 2),
                                  pct(bs.tpot_ms.mean, s.tpot_ms.mean)));
    clauses.push_back(fmt::format("TTFT p99 {} -> {} ({})", ms(bs.ttft_ms.p99), ms(s.ttft_ms.p99),
                                  pct(bs.ttft_ms.p99, s.ttft_ms.p99)));
    // A queue that keeps growing: the configuration cannot keep up with the load.
    if (s.queue_ms.p50 > 10 * std::max(bs.queue_ms.p50, 100.0))
      clauses.push_back(fmt::format("it cannot keep up with this load (median queue wait {})", ms(s.queue_ms.p50)));
    if (s.preemptions != bs.preemptions)
      clauses.push_back(fmt::format("preemptions {} -> {}", bs.preemptions, s.preemptions));
    if (base->capacity_found && r.capacity_found)
      clauses.push_back(fmt::format("SLO-meeting capacity {:.2f} -> {:.2f} req/s, $/Mtok there {:.3f} -> {:.3f} ({})",
                                    base->capacity_rps, r.capacity_rps, base->usd_per_mtok_at_capacity,
                                    r.usd_per_mtok_at_capacity,
                                    pct(base->usd_per_mtok_at_capacity, r.usd_per_mtok_at_capacity)));
    else if (!r.capacity_found && !r.capacity_note.empty())
      clauses.push_back("no SLO-meeting capacity: " + r.capacity_note);
    out.push_back(difference(*r.point, *base->point) + ": " + join(clauses, "; ") + ".");
  }
  return out;
}

nlohmann::ordered_json whatif_json(const std::vector<WhatIfRow>& rows, const std::vector<SweepAxis>& axes) {
  nlohmann::ordered_json j;
  nlohmann::ordered_json arr = nlohmann::ordered_json::array();
  for (const auto& r : rows) {
    nlohmann::ordered_json x = point_json(*r.point, axes);
    if (r.ok) {
      x["explain"] = {{"weights_gib_per_gpu", r.weights_gib},
                      {"kv_bytes_per_token_per_gpu", r.kv_bytes_per_token},
                      {"kv_blocks", r.kv_blocks},
                      {"kv_tokens", r.kv_tokens},
                      {"batch_size_mean", r.batch_mean},
                      {"context_mean_tokens", r.context_mean},
                      {"decode_step_ms", r.decode_step_ms},
                      {"decode_step_at_baseline_batch_ms", r.decode_step_base_ms},
                      {"precision", r.precision},
                      {"usd_per_million_output_tokens_at_offered_load", r.usd_per_mtok},
                      {"slo_capacity_rps", r.capacity_found ? nlohmann::ordered_json(r.capacity_rps) : nullptr},
                      {"usd_per_million_output_tokens_at_slo_capacity",
                       r.capacity_found ? nlohmann::ordered_json(r.usd_per_mtok_at_capacity) : nullptr},
                      {"slo_capacity_note", r.capacity_note}};
    }
    arr.push_back(x);
  }
  j["points"] = arr;
  j["explanations"] = whatif_explanations(rows);
  return j;
}

}  // namespace servesim::planning
