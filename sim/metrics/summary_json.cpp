#include "metrics/summary_json.h"

#include "metrics/classes_json.h"
#include "metrics/disaggregation_json.h"
#include "metrics/fleet_pools_json.h"
#include "metrics/lora_json.h"

#include <fmt/format.h>

#include <algorithm>

#include "util/units.h"

namespace servesim {

nlohmann::json autoscale_json(const AutoscaleReport& a) {
  nlohmann::json changes = nlohmann::json::array();
  for (const auto& [t, n] : a.serving_changes) changes.push_back({t, n});
  nlohmann::json j = {{"max_replicas", a.max_replicas},
                      {"serving_min", a.min_serving},
                      {"serving_max", a.max_serving},
                      {"serving_mean", a.mean_serving},
                      {"scale_ups", a.scale_ups},
                      {"scale_downs", a.scale_downs},
                      {"startup_s", a.startup_s},
                      {"span_s", a.span_s},
                      {"gpu_hours", a.gpu_hours()},
                      {"fixed_fleet_gpu_hours", a.fixed_gpu_hours()},
                      {"serving_changes", changes}};
  if (a.startup_s_max > a.startup_s_min) {  // a heterogeneous fleet whose pools start in different times
    j["startup_s_min"] = a.startup_s_min;
    j["startup_s_max"] = a.startup_s_max;
  }
  if (a.sla)  // planner: sla only, so other runs' JSON is unchanged
    j["sla_planner"] = {{"decisions", a.sla->decisions},
                        {"itl_unreachable", a.sla->itl_unreachable},
                        {"last_instances", a.sla->last_instances},
                        {"last_correction", a.sla->last_correction},
                        {"last_tokens_per_s_per_instance", a.sla->last_per_instance},
                        {"last_batch", a.sla->last_batch}};
  return j;
}

namespace {
// The SLA planner's part of an autoscaled pool's line: what it last planned, and the
// decisions whose ITL target not even one sequence a step met, said.
std::string sla_planning_text(const AutoscaleReport::SlaPlanning& p) {
  std::string s = fmt::format("; SLA planner: {} decisions, the last planning {} at {:.0f} tokens/s an instance",
                              p.decisions, p.last_instances, p.last_per_instance);
  if (p.last_batch > 0) s += fmt::format(" ({} sequences a step)", p.last_batch);
  s += fmt::format(", correction {:.2f}", p.last_correction);
  if (p.itl_unreachable > 0)
    s += fmt::format("; in {} decisions even one sequence a step missed the corrected ITL target: planned at one",
                     p.itl_unreachable);
  return s;
}
}  // namespace

std::string autoscale_text(const AutoscaleReport& a, const char* what) {
  const std::string startup = a.startup_s_max > a.startup_s_min
                                  ? fmt::format("{:.1f}-{:.1f} s", a.startup_s_min, a.startup_s_max)
                                  : fmt::format("{:.1f} s", a.startup_s);
  return fmt::format("{}..{} of {} {} serving ({:.2f} on average), {} started, {} drained, {} to start one; {:.2f} "
                     "GPU-hours held against {:.2f} for a fixed fleet of {}",
                     a.min_serving, a.max_serving, a.max_replicas, what, a.mean_serving, a.scale_ups, a.scale_downs,
                     startup, a.gpu_hours(), a.fixed_gpu_hours(), a.max_replicas) +
         (a.sla ? sla_planning_text(*a.sla) : std::string());
}

nlohmann::json distribution_json(const Distribution& d) {
  // Over zero samples nothing was measured: null, never a 0 that reads as 0 ms.
  if (d.count == 0)
    return {{"mean", nullptr}, {"p50", nullptr}, {"p90", nullptr}, {"p95", nullptr}, {"p99", nullptr},
            {"min", nullptr},  {"max", nullptr}, {"count", 0}};
  return {{"mean", d.mean}, {"p50", d.p50}, {"p90", d.p90}, {"p95", d.p95}, {"p99", d.p99},
          {"min", d.min},   {"max", d.max}, {"count", d.count}};
}

namespace {
std::string reason_label(int i) {
  return i == 0 ? "unspecified" : std::string(failure_name(static_cast<FailureReason>(i)));
}
}  // namespace

nlohmann::json failures_json(const FailureCounts& f) {
  nlohmann::json j = nlohmann::json::object();
  for (int i = 1; i < kFailureReasonCount; ++i) {
    // Abandonment (workload.patience) and the gateway's refusals (workload.classes,
    // gateway:) exist only with those settings: listed when they happened, so other
    // runs' JSON is unchanged (the `abandoned` object has it always then).
    if (static_cast<FailureReason>(i) >= FailureReason::abandoned && f[static_cast<std::size_t>(i)] == 0) continue;
    j[reason_label(i)] = f[static_cast<std::size_t>(i)];
  }
  if (f[0] > 0) j[reason_label(0)] = f[0];
  return j;
}

nlohmann::json load_json(const RunSummary& s) {
  const LoadReport& l = s.load;
  // A limit taken from this machine's memory is printed only when it decided the
  // result: otherwise the same scenario would give different bytes on another
  // machine (or with another sweep -j).
  const nlohmann::json guard_bytes =
      l.guard_from_machine && !l.guard_tripped ? nlohmann::json(nullptr) : nlohmann::json(l.guard_bytes);
  nlohmann::json j = {{"offered", l.offered},
          {"offered_rps", l.offered_rps},
          {"served_rps", s.requests_per_s},
          {"overloaded", l.overloaded},
          {"queue_delay_grows", l.queue_grows},
          {"queue_delay_mid_ms", l.queue_mid_ms},
          {"queue_delay_last_ms", l.queue_last_ms},
          {"waiting_peak", l.queued_peak},
          {"waiting_peak_bytes", l.queued_peak_bytes},
          {"guard", {{"max_queue_memory_bytes", guard_bytes},
                     {"from_machine_memory", l.guard_from_machine},
                     {"tripped", l.guard_tripped},
                     {"tripped_at_s", l.guard_tripped ? nlohmann::json(l.guard_trip_s) : nlohmann::json(nullptr)}}}};
  if (l.stages > 0) {  // a multi_stage process: the growth test per stage (other runs' JSON unchanged)
    const StageGrowthVerdict& v = l.by_stage;
    j["queue_growth_by_stage"] = {{"stages", l.stages},
                                  {"tested", v.tested},
                                  {"growing", v.growing},
                                  {"worst_stage", v.worst >= 0 ? nlohmann::json(v.worst + 1) : nlohmann::json(nullptr)},
                                  {"worst_start_s", v.worst >= 0 ? nlohmann::json(v.start_s) : nlohmann::json(nullptr)},
                                  {"worst_end_s", v.worst >= 0 ? nlohmann::json(v.end_s) : nlohmann::json(nullptr)},
                                  {"worst_mid_ms", v.worst >= 0 ? nlohmann::json(v.mid_ms) : nlohmann::json(nullptr)},
                                  {"worst_last_ms", v.worst >= 0 ? nlohmann::json(v.last_ms) : nlohmann::json(nullptr)}};
  }
  return j;
}

std::string load_text(const RunSummary& s) {
  const LoadReport& l = s.load;
  auto size = [](double bytes) {
    if (bytes >= 1024.0 * 1024 * 1024) return fmt::format("{:.2f} GiB", bytes / (1024.0 * 1024 * 1024));
    if (bytes >= 1024.0 * 1024) return fmt::format("{:.1f} MiB", bytes / (1024.0 * 1024));
    if (bytes >= 1024.0) return fmt::format("{:.0f} KiB", bytes / 1024.0);
    return fmt::format("{:.0f} B", bytes);
  };
  // Requests that all arrive at one instant have no offered rate.
  const std::string offered = l.offered_rps > 0 || l.offered == 0
                                  ? fmt::format("offered {:.2f} req/s", l.offered_rps)
                                  : fmt::format("offered {} requests at once", l.offered);
  std::string out = fmt::format("load       {}, served {:.2f} req/s; waiting queue peaked at {} request{} ({})\n",
                                offered, s.requests_per_s, l.queued_peak, l.queued_peak == 1 ? "" : "s", size(l.queued_peak_bytes));
  if (l.guard_tripped) {
    out += fmt::format("           OVERLOADED: {}, served {:.2f} req/s; the run was STOPPED at {:.1f} s "
                       "by the queue memory guard (waiting requests above engine.max_queue_memory = {}{}): {} "
                       "requests failed overload_guard\n",
                       offered, s.requests_per_s, l.guard_trip_s, size(l.guard_bytes),
                       l.guard_from_machine ? ", a quarter of this machine's memory, so this result depends on the "
                                              "machine; set engine.max_queue_memory to fix it"
                                            : "",
                       s.failures[static_cast<std::size_t>(FailureReason::overload_guard)]);
  } else if (l.queue_grows && l.stages > 0 && l.by_stage.tested > 0) {
    const StageGrowthVerdict& v = l.by_stage;
    out += fmt::format("           OVERLOADED in {} of {} arrival stages tested: stage {} ({:.0f}-{:.0f} s) cannot keep up "
                       "at its rate; its mean queue delay rises from {:.0f} ms (its requests 40-60% by arrival) to "
                       "{:.0f} ms (its last 20%)\n",
                       v.growing, v.tested, v.worst + 1, v.start_s, v.end_s, v.mid_ms, v.last_ms);
  } else if (l.queue_grows) {
    out += fmt::format("           OVERLOADED: the server cannot keep up; the backlog grows by about {:.2f} req/s "
                       "(offered - served) and the mean queue delay from {:.0f} ms (requests 40-60% by arrival) to "
                       "{:.0f} ms (last 20%)\n",
                       std::max(0.0, l.offered_rps - s.requests_per_s), l.queue_mid_ms, l.queue_last_ms);
  } else if (s.beam_loop && s.beam_loop->saturated()) {
    out += fmt::format("           OVERLOADED: the beam-search loop's front end (one thread) was busy {:.0f}% of the "
                       "run; its rounds wait on it and every request in flight slows (beam loop line below)\n",
                       100.0 * s.beam_loop->frontend_share);
  }
  return out;
}

std::string failures_text(const FailureCounts& f) {
  std::string out;
  for (int i = 0; i < kFailureReasonCount; ++i) {
    if (f[static_cast<std::size_t>(i)] == 0) continue;
    out += fmt::format("{}{} {}", out.empty() ? "" : ", ", f[static_cast<std::size_t>(i)], reason_label(i));
  }
  return out;
}

nlohmann::json summary_json(const RunSummary& s) {
  nlohmann::json j;
  j["requests"] = {{"completed", s.completed}, {"failed", s.failed}, {"failures", failures_json(s.failures)},
                   {"preempted", s.preempted_requests}, {"preemptions", s.preemptions}};
  j["load"] = load_json(s);
  j["duration_s"] = s.duration_s;
  j["gpus"] = s.gpus;
  j["throughput"] = {{"requests_per_s", s.requests_per_s},
                     {"input_tokens_per_s", s.input_tokens_per_s},
                     {"output_tokens_per_s", s.output_tokens_per_s},
                     {"total_tokens_per_s", s.total_tokens_per_s},
                     {"output_tokens_per_s_per_gpu", s.output_tokens_per_s / s.gpus},
                     {"total_tokens_per_s_per_gpu", s.total_tokens_per_s / s.gpus}};
  j["tokens"] = {{"input", s.input_tokens}, {"output", s.output_tokens}, {"cached", s.cached_tokens},
                 {"prefix_hit_rate", s.prefix_hit_rate}};
  // Only with parallel sampling or beam search, so other runs' JSON is unchanged.
  if (s.sequences_max > 1) j["tokens"]["sequences_per_request_max"] = s.sequences_max;
  if (s.offload_tokens > 0 || s.swapped_preemptions > 0) {
    // Only with a CPU offload tier in use, so other runs' JSON is unchanged.
    j["offload"] = {{"reloaded_tokens", s.offload_tokens},
                    {"reload_hit_rate", s.input_tokens > 0 ? static_cast<double>(s.offload_tokens) / s.input_tokens : 0.0},
                    {"swapped_preemptions", s.swapped_preemptions}};
  }
  if (s.autoscale) {
    // Only for an autoscaled fleet, so other runs' JSON is unchanged.
    j["autoscale"] = autoscale_json(*s.autoscale);
  }
  if (!s.kv_tiers.empty()) {
    // Only with engine.kv_tiers set, so other runs' JSON is unchanged.
    nlohmann::json tiers = nlohmann::json::array();
    for (const KvTierReport& t : s.kv_tiers)
      tiers.push_back({{"name", t.name},
                       {"shared", t.shared},
                       {"capacity_blocks", t.capacity_blocks},
                       {"stored_blocks", t.stored},
                       {"reloaded_blocks", t.reloaded},
                       {"demoted_blocks", t.demoted},
                       {"expired_blocks", t.expired},
                       {"reloads", t.transfers},
                       {"reload_s_total", t.transfer_s}});
    j["kv_tiers"] = tiers;
  }
  if (s.beam_loop) {
    // Only for beam search above the engine, so other runs' JSON is unchanged.
    const BeamLoopReport& b = *s.beam_loop;
    j["beam_loop"] = {{"beams", b.beams},
                      {"engine_requests", b.requests},
                      {"reprefilled_tokens", b.reprefilled},
                      {"cached_tokens", b.cached},
                      {"prefix_caching", b.prefix_caching},
                      {"request_cpu_s", b.request_cpu_s},
                      {"frontend_busy_s", b.frontend_busy_s},
                      {"frontend_share", b.frontend_share}};
  }
  if (s.lora) j["lora"] = lora_json(*s.lora);  // only with workload.lora set, so other runs' JSON is unchanged
  j["ttft_ms"] = distribution_json(s.ttft_ms);
  j["tpot_ms"] = distribution_json(s.tpot_ms);
  j["itl_ms"] = distribution_json(s.itl_ms);
  j["e2e_ms"] = distribution_json(s.e2e_ms);
  j["queue_ms"] = distribution_json(s.queue_ms);
  nlohmann::json slo = nlohmann::json::array();
  for (const auto& r : s.slo)
    slo.push_back({{"metric", r.metric}, {"statistic", r.statistic}, {"limit_ms", r.limit_ms},
                   {"value_ms", r.measured ? nlohmann::json(r.value_ms) : nlohmann::json(nullptr)}, {"met", r.met}});
  j["slo"] = {{"targets", slo}, {"met", s.slo_met}, {"attainment", s.slo_attainment}, {"goodput_rps", s.goodput_rps}};
  // Only with workload.classes, so other runs' JSON is unchanged.
  if (!s.classes.empty()) j["classes"] = classes_json(s);
  j["utilization"] = {{"mfu", s.mfu},
                      {"memory_bandwidth", s.bandwidth_utilization},
                      {"busy_fraction", s.busy_fraction},
                      {"kv_cache_mean", s.kv_utilization_mean},
                      {"kv_cache_max", s.kv_utilization_max},
                      {"batch_size_mean", s.batch_size_mean},
                      {"batch_size_max", s.batch_size_max},
                      {"queue_length_mean", s.queue_length_mean},
                      {"queue_length_max", s.queue_length_max},
                      {"steps", s.steps}};
  j["energy"] = {{"energy_j", s.energy_j},
                 {"power_w_per_gpu", s.power_w_per_gpu},
                 {"busy_power_w_per_gpu", s.busy_power_w_per_gpu},
                 {"joules_per_output_token", s.joules_per_output_token},
                 {"joules_per_request", s.joules_per_request}};
  // The following appear only when their feature is set, so other runs' JSON is unchanged.
  if (s.patience) {
    const std::int64_t n = s.failures[static_cast<std::size_t>(FailureReason::abandoned)];
    const std::int64_t offered = s.completed + s.failed;
    j["abandoned"] = {{"count", n},
                      {"after_prefill_started", s.abandoned_after_start},
                      {"share_of_offered", offered > 0 ? static_cast<double>(n) / static_cast<double>(offered) : 0.0},
                      {"waited_ms", distribution_json(s.abandoned_wait_ms)}};
  }
  if (s.conversations.reported) {
    const ConversationSummary& c = s.conversations;
    j["conversations"] = {{"count", c.conversations},
                          {"completed", c.completed},
                          {"abandoned", c.abandoned},
                          {"cut", c.cut},
                          {"turns_not_sent", c.turns_not_sent},
                          {"wait_ms", distribution_json(c.wait_ms)},
                          {"duration_s", distribution_json(c.duration_s)},
                          {"turns_served", distribution_json(c.turns_served)}};
    if (c.sessions_closed) {
      nlohmann::json& k = j["conversations"];
      k["answer_wait_s"] = distribution_json(c.answer_wait_s);
      k["reprefill_tokens"] = distribution_json(c.reprefill_tokens);
      k["reprefill_tokens_total"] = c.reprefill_total;
      k["context_tokens_total"] = c.context_total;
      k["sessions"] = c.sessions.sessions;
      k["subagents"] = c.sessions.subagents;
      k["subagent_joins"] = c.sessions.joins;
      k["tool_calls"] = c.sessions.tool_calls;
      k["tool_s_total"] = c.sessions.tool_s;
      k["think_s_total"] = c.sessions.think_s;
    }
  }
  if (s.grid_g_per_kwh > 0)
    j["carbon"] = {{"grid_g_per_kwh", s.grid_g_per_kwh},
                   {"co2_g", s.carbon_g},
                   {"co2_g_per_output_token", s.carbon_g_per_output_token},
                   {"co2_g_per_request", s.carbon_g_per_request}};
  if (s.disaggregation) j["disaggregation"] = disaggregation_json(*s.disaggregation);
  if (!s.pools.empty()) j["pools"] = fleet_pools_json(s.pools);
  j["gpu_time_share"] = {{"compute", s.bound_share[0]},
                         {"memory", s.bound_share[1]},
                         {"communication", s.bound_share[2]},
                         {"overhead", s.bound_share[3]}};
  return j;
}

std::string summary_table(const RunSummary& s) {
  std::string out;
  out += fmt::format("requests   {} completed, {} failed{}, {} preempted ({} preemptions)\n", s.completed, s.failed,
                     s.failed > 0 ? " (" + failures_text(s.failures) + ")" : "", s.preempted_requests, s.preemptions);
  if (s.patience) {
    const std::int64_t n = s.failures[static_cast<std::size_t>(FailureReason::abandoned)];
    const std::int64_t offered = s.completed + s.failed;
    out += fmt::format("abandoned  {} user{} gave up before the first token ({:.1f}% of offered requests){}\n", n,
                       n == 1 ? "" : "s", offered > 0 ? 100.0 * static_cast<double>(n) / static_cast<double>(offered) : 0.0,
                       n > 0 ? fmt::format(", {} of them after their prefill had started (that work was wasted); the "
                                           "`gave up` row is how long they waited",
                                           s.abandoned_after_start)
                             : "");
  }
  out += fmt::format("duration   {:.1f} s simulated on {} GPU(s)\n", s.duration_s, s.gpus);
  out += fmt::format("throughput {:.2f} req/s, {:.0f} output tok/s{} ({:.0f}/GPU), {:.0f} total tok/s\n",
                     s.requests_per_s, s.output_tokens_per_s,
                     s.sequences_max > 1 ? fmt::format(" (all samples/beams: {} per request)", s.sequences_max) : "",
                     s.output_tokens_per_s / s.gpus, s.total_tokens_per_s);
  out += load_text(s);
  out += fmt::format("\n{:<10} {:>10} {:>10} {:>10} {:>10} {:>10}\n", "ms", "mean", "p50", "p90", "p95", "p99");
  auto row = [&](const char* name, const Distribution& d) {
    if (d.count == 0) {  // nothing measured: "-", not 0.00 ms
      out += fmt::format("{:<10} {:>10} {:>10} {:>10} {:>10} {:>10}\n", name, "-", "-", "-", "-", "-");
      return;
    }
    out += fmt::format("{:<10} {:>10.2f} {:>10.2f} {:>10.2f} {:>10.2f} {:>10.2f}\n", name, d.mean, d.p50, d.p90, d.p95,
                       d.p99);
  };
  row("TTFT", s.ttft_ms);
  row("TPOT", s.tpot_ms);
  row("ITL", s.itl_ms);
  row("E2E", s.e2e_ms);
  row("queue", s.queue_ms);
  if (s.patience) row("gave up", s.abandoned_wait_ms);
  if (!s.slo.empty()) {
    out += "\nSLO\n";
    for (const auto& r : s.slo)
      out += fmt::format("  {} {} <= {:.1f} ms: {}  {}\n", r.metric, r.statistic, r.limit_ms,
                         r.measured ? fmt::format("{:.2f} ms", r.value_ms) : std::string("- (no completed request)"),
                         r.met ? "met" : "MISSED");
    out += fmt::format("  attainment {:.1f}% of requests, goodput {:.2f} req/s: {}{}\n", 100 * s.slo_attainment,
                       s.goodput_rps, s.slo_met ? "SLOs met" : "SLOs MISSED",
                       s.failed > 0 ? fmt::format(" ({} of {} requests failed)", s.failed, s.completed + s.failed) : "");
  }
  out += classes_text(s);
  if (s.conversations.reported) {
    const ConversationSummary& c = s.conversations;
    out += fmt::format("\nconversations {} ({} completed, {} abandoned, {} cut by the run's end or a failure)", c.conversations,
                       c.completed, c.abandoned, c.cut);
    out += c.turns_not_sent > 0 ? fmt::format("; {} later turns never sent (their user gave up)\n", c.turns_not_sent)
                                : std::string("\n");
    out += fmt::format("{:<10} {:>10} {:>10} {:>10} {:>10} {:>10}\n", "per conv.", "mean", "p50", "p90", "p95", "p99");
    auto conv_row = [&](const char* name, const Distribution& d, double scale) {
      if (d.count == 0) {
        out += fmt::format("{:<10} {:>10} {:>10} {:>10} {:>10} {:>10}\n", name, "-", "-", "-", "-", "-");
        return;
      }
      out += fmt::format("{:<10} {:>10.2f} {:>10.2f} {:>10.2f} {:>10.2f} {:>10.2f}\n", name, d.mean * scale,
                         d.p50 * scale, d.p90 * scale, d.p95 * scale, d.p99 * scale);
    };
    conv_row("wait s", c.wait_ms, 1e-3);
    conv_row("length s", c.duration_s, 1.0);
    conv_row("turns", c.turns_served, 1.0);
    if (c.sessions_closed) {
      conv_row("answers s", c.answer_wait_s, 1.0);
      conv_row("reprefill", c.reprefill_tokens, 1.0);
      const SessionStats& st = c.sessions;
      out += fmt::format("sessions   {} started, {} sub-agents ({} forks joined), {} tool calls ({:.1f} s of tools, {:.1f} s "
                         "of thinking); {} of {} context tokens re-prefilled ({:.1f}%)\n",
                         st.sessions, st.subagents, st.joins, st.tool_calls, st.tool_s, st.think_s, c.reprefill_total,
                         c.context_total,
                         c.context_total > 0 ? 100.0 * static_cast<double>(c.reprefill_total) /
                                                   static_cast<double>(c.context_total)
                                             : 0.0);
    }
  }
  out += fmt::format("\nbatch {:.1f} mean / {} max, queue {:.1f} mean / {} max, KV cache {:.0f}% mean / {:.0f}% max\n",
                     s.batch_size_mean, s.batch_size_max, s.queue_length_mean, s.queue_length_max,
                     100 * s.kv_utilization_mean, 100 * s.kv_utilization_max);
  out += fmt::format("GPU busy {:.0f}%, MFU {:.1f}%, HBM bandwidth {:.0f}%; time compute {:.0f}% / memory {:.0f}% / "
                     "comm {:.0f}% / overhead {:.0f}%\n",
                     100 * s.busy_fraction, 100 * s.mfu, 100 * s.bandwidth_utilization, 100 * s.bound_share[0],
                     100 * s.bound_share[1], 100 * s.bound_share[2], 100 * s.bound_share[3]);
  if (s.energy_j > 0)
    out += fmt::format("energy     {:.0f} W per GPU on average ({:.0f} W while stepping), {:.3g} J/output token, "
                       "{:.3g} J/request, {:.4g} kWh in all\n",
                       s.power_w_per_gpu, s.busy_power_w_per_gpu, s.joules_per_output_token, s.joules_per_request,
                       s.energy_j / 3.6e6);
  if (s.grid_g_per_kwh > 0)
    out += fmt::format("carbon     {:.4g} gCO2 at {:g} gCO2/kWh: {:.3g} mg/output token, {:.3g} g/request\n", s.carbon_g,
                       s.grid_g_per_kwh, s.carbon_g_per_output_token * 1e3, s.carbon_g_per_request);
  if (s.cached_tokens > 0) out += fmt::format("prefix cache hit rate {:.1f}% of prompt tokens\n", 100 * s.prefix_hit_rate);
  if (s.offload_tokens > 0 || s.swapped_preemptions > 0)
    out += fmt::format("{}: {:.1f}% of prompt tokens reloaded {}, {} preemptions swapped\n",
                       s.kv_tiers.empty() ? "CPU offload" : "KV tiers",
                       s.input_tokens > 0 ? 100.0 * static_cast<double>(s.offload_tokens) / s.input_tokens : 0.0,
                       s.kv_tiers.empty() ? "from host memory" : "from the tiers below the GPU", s.swapped_preemptions);
  if (s.autoscale) {
    const AutoscaleReport& a = *s.autoscale;
    out += fmt::format("autoscale  {} (throughput, MFU and power above are over all {} replicas' GPUs)\n",
                       autoscale_text(a, "replicas"), a.max_replicas);
  }
  for (const KvTierReport& t : s.kv_tiers)
    out += fmt::format("KV tier {}{}: {} blocks stored, {} reloaded in {} reloads ({:.3f} s), {} pushed down{}, "
                       "{} expired\n",
                       t.name, t.shared ? " (shared)" : "", t.stored, t.reloaded, t.transfers, t.transfer_s, t.demoted,
                       &t == &s.kv_tiers.back() ? " (dropped)" : "", t.expired);
  if (s.lora) out += lora_text(*s.lora);
  if (s.beam_loop) {
    const BeamLoopReport& b = *s.beam_loop;
    out += fmt::format("beam loop  {} engine requests for {} beams; {} prompt tokens recomputed after the first round, "
                       "{} from the prefix cache{}; front end {:.3f} s of CPU ({:.2f} ms per engine request), busy "
                       "{:.0f}% of the run\n",
                       b.requests, b.beams, b.reprefilled, b.cached,
                       b.prefix_caching ? "" : " (prefix caching off: every round prefills its whole context)",
                       b.frontend_busy_s, 1e3 * b.request_cpu_s, 100.0 * b.frontend_share);
  }
  if (s.disaggregation) out += disaggregation_text(*s.disaggregation);
  if (!s.pools.empty()) out += fleet_pools_text(s.pools);
  return out;
}

std::string timeline_csv(const std::vector<TimelineRow>& rows) {
  std::string out = "time_s,replica,batch_size,prefill_tokens,decode_tokens,kv_blocks_used,kv_blocks_total,"
                    "queue_length,step_time_ms,fused_steps,bound\n";
  for (const auto& r : rows)
    out += fmt::format("{:.6f},{},{},{},{},{},{},{},{:.4f},{},{}\n", r.time_s, r.replica, r.batch, r.prefill_tokens,
                       r.decode_tokens, r.kv_used, r.kv_total, r.queue, r.step_time_ms, r.steps, bound_name(r.bound));
  return out;
}

}  // namespace servesim
