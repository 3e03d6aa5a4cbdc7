#include "metrics/disaggregation_json.h"

#include <fmt/format.h>

#include "metrics/summary_json.h"
#include "util/units.h"

namespace servesim {

nlohmann::json pool_json(const PoolReport& p) {
  nlohmann::json j = {{"gpu", p.gpu},
          {"tp", p.tp},
          {"replicas", p.replicas},
          {"gpus", p.gpus},
          {"precision", p.precision},
          {"kv_blocks_per_instance", p.kv_blocks_per_instance},
          {"busy_fraction", p.busy_fraction},
          {"mfu", p.mfu},
          {"memory_bandwidth", p.bandwidth_utilization},
          {"batch_size_mean", p.batch_size_mean},
          {"batch_size_max", p.batch_size_max},
          {"kv_cache_mean", p.kv_utilization_mean},
          {"kv_cache_max", p.kv_utilization_max},
          {"queue_length_mean", p.queue_length_mean},
          {"queue_length_max", p.queue_length_max},
          {"steps", p.steps},
          {"energy_j", p.energy_j}};
  // A wide layout's instance (DP attention / EP): its GPUs and layout (other pools' JSON unchanged).
  if (!p.layout.empty()) {
    j["gpus_per_instance"] = p.gpus_per_instance;
    j["layout"] = p.layout;
  }
  if (p.autoscale) j["autoscale"] = autoscale_json(*p.autoscale);  // an autoscaled pool only
  return j;
}

std::string pool_text(const char* name, const PoolReport& p) {
  const std::string layout = p.layout.empty() ? fmt::format("tp={}", p.tp) : p.layout;
  return fmt::format(
      "  {:<7} {} x {} GPU{} ({}), {}: busy {:.0f}%, MFU {:.1f}%, HBM {:.0f}%, batch {:.1f} mean / {} max, KV "
      "{:.0f}% mean / {:.0f}% max, queue {:.1f} mean / {} max\n",
      name, p.replicas, p.gpus_per_instance, p.gpus_per_instance == 1 ? "" : "s", layout, p.gpu, 100 * p.busy_fraction, 100 * p.mfu,
      100 * p.bandwidth_utilization, p.batch_size_mean, p.batch_size_max, 100 * p.kv_utilization_mean,
      100 * p.kv_utilization_max, p.queue_length_mean, p.queue_length_max) +
         (p.autoscale ? fmt::format("          autoscaled: {}\n", autoscale_text(*p.autoscale, "instances")) : "");
}

nlohmann::json disaggregation_json(const DisaggregationReport& d) {
  nlohmann::json j = {{"prefill", pool_json(d.prefill)},
          {"decode", pool_json(d.decode)},
          {"transfer",
           {{"bandwidth_bytes_per_s", d.link_bandwidth},
            {"latency_s", d.link_latency_s},
            {"layerwise", d.layerwise},
            {"kv_bytes_per_token", d.kv_bytes_per_token},
            {"transfers", d.transfers},
            {"bytes", d.transfer_bytes},
            {"transfer_ms", distribution_json(d.transfer_ms)},
            {"link_wait_ms", distribution_json(d.link_wait_ms)},
            {"decode_wait_ms", distribution_json(d.decode_wait_ms)}}},
          {"finished_at_prefill", d.finished_at_prefill},
          {"decider_threshold", d.decider_threshold},
          {"local_prefills", d.local_prefills}};
  if (d.decode_prefix_caching)  // only then: a run without it reports as before
    j["decode_prefix_cache"] = {{"prompt_tokens", d.decode_prompt_tokens},
                                {"cached_tokens", d.decode_cached_tokens},
                                {"hit_rate", d.decode_prompt_tokens > 0 ? static_cast<double>(d.decode_cached_tokens) /
                                                                             static_cast<double>(d.decode_prompt_tokens)
                                                                       : 0.0},
                                {"evicted_blocks", d.decode_evicted_blocks}};
  return j;
}

std::string disaggregation_text(const DisaggregationReport& d) {
  std::string out = fmt::format("\ndisaggregated: {} prefill + {} decode instances ({}P{}D)\n", d.prefill.replicas,
                                d.decode.replicas, d.prefill.replicas, d.decode.replicas);
  out += pool_text("prefill", d.prefill);
  out += pool_text("decode", d.decode);
  if (d.prefill.autoscale || d.decode.autoscale) {
    out += fmt::format("  (busy shares, throughput per GPU and power per GPU above are over all {} GPUs of both "
                       "pools; they held {:.1f} on average)\n",
                       d.prefill.gpus + d.decode.gpus, d.prefill.held_gpus() + d.decode.held_gpus());
  }
  const auto ms = [](const Distribution& x) {
    return x.count > 0 ? fmt::format("{:.3f} ms mean / {:.3f} ms p99", x.mean, x.p99) : std::string("-");
  };
  out += fmt::format("  KV transfer {} transfers, {} ({} per token) over {} + {}{}: {}; waiting for the link {}, "
                     "for decode KV blocks {}\n",
                     d.transfers, format_bytes(d.transfer_bytes), format_bytes(d.kv_bytes_per_token),
                     format_rate(d.link_bandwidth, "B/s"), format_seconds(d.link_latency_s),
                     d.layerwise ? ", layer-wise" : "", ms(d.transfer_ms), ms(d.link_wait_ms), ms(d.decode_wait_ms));
  if (d.decider_threshold > 0)
    out += fmt::format("  P/D decider: {} requests of at most {} {}prompt tokens prefilled on their decode instance (no "
                       "prefill pool, no transfer)\n",
                       d.local_prefills, d.decider_threshold, d.decode_prefix_caching ? "uncached " : "");
  if (d.decode_prefix_caching)
    out += fmt::format("  decode prefix cache: {} of {} prompt tokens found cached on their decode instance ({:.1f}%; "
                       "not sent, or not prefilled there), {} cached blocks evicted\n",
                       d.decode_cached_tokens, d.decode_prompt_tokens,
                       d.decode_prompt_tokens > 0 ? 100.0 * static_cast<double>(d.decode_cached_tokens) /
                                                        static_cast<double>(d.decode_prompt_tokens)
                                                  : 0.0,
                       d.decode_evicted_blocks);
  out += "  TTFT includes the transfer (the first token is streamed when the KV reaches the decode instance)\n";
  return out;
}

}  // namespace servesim
