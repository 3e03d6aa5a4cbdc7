#include "scenario/config_json.h"

#include "cost/replica_layout.h"

#include <fmt/format.h>

#include "util/version.h"

namespace servesim {
namespace {

const char* router_name(RouterKind k) {
  switch (k) {
    case RouterKind::round_robin: return "round_robin";
    case RouterKind::least_outstanding: return "least_outstanding";
    case RouterKind::least_kv: return "least_kv";
    case RouterKind::prefix_affinity: return "prefix_affinity";
    case RouterKind::scored: return "scored";
    case RouterKind::lora_affinity: return "lora_affinity";
  }
  return "unknown";
}

}  // namespace

std::string precision_label(const ResolvedPrecision& p) {
  auto bits = [](DType t) { return static_cast<int>(dtype_bytes(t) * 8); };
  // A GGUF file's type has no single bit width (block scales, per-tensor mixes): its name.
  if (p.gguf != GgufType::none)
    return fmt::format("GGUF {}/{}, KV {}", gguf_type_name(p.gguf), dtype_name(p.compute), dtype_name(p.kv_cache));
  const std::string w = dtype_name(p.weights), c = dtype_name(p.compute);
  return fmt::format("W{}A{} {}, KV {}", bits(p.weights), bits(p.compute), w == c ? w : w + "/" + c,
                     dtype_name(p.kv_cache));
}

nlohmann::json resolved_config_json(const Scenario& sc, std::int64_t kv_blocks, const RunSummary& summary) {
  nlohmann::json j;
  j["servesim_version"] = kServesimVersion;
  j["scenario"] = sc.source;
  j["gpu"] = sc.gpu.name;
  j["model"] = sc.model.name;
  const ResolvedPrecision& p = sc.resolved;
  j["precision"] = {{"label", precision_label(p)},
                    {"weights", weight_format_name(p)},
                    {"activations", dtype_name(p.compute)},
                    {"kv_cache", dtype_name(p.kv_cache)},
                    {"weight_only", p.weight_only},
                    {"emulated", p.emulated}};
  const Parallelism& par = sc.parallelism;
  j["parallelism"] = {{"tp", par.tp}, {"pp", par.pp}, {"ep", par.ep}, {"replicas", par.replicas},
                      {"gpus", par.total_gpus()}, {"router", router_name(sc.router)}};
  if (par.wide()) {  // DP attention / wide EP (other scenarios' JSON unchanged)
    j["parallelism"]["attention_dp"] = par.attention_dp;
    j["parallelism"]["redundant_experts"] = par.redundant_experts;
    j["parallelism"]["gpus_per_replica"] = par.gpus_per_replica();
    j["parallelism"]["layout"] = resolve_layout(par, sc.gpu).describe(par);
    const MoeDeployment& m = sc.moe;
    j["moe"] = {{"prefill_all_to_all", m.prefill_all_to_all},
                {"decode_all_to_all", m.decode_all_to_all},
                {"overlap", m.overlap == MoeOverlap::two_batch      ? "two_batch"
                            : m.overlap == MoeOverlap::single_batch ? "single_batch"
                                                                    : "none"},
                {"load_balancer", m.balancer == ExpertBalancer::eplb     ? "eplb"
                                  : m.balancer == ExpertBalancer::perfect ? "perfect"
                                                                          : "none"},
                {"dispatch", dtype_name(m.dispatch)},
                {"combine", dtype_name(m.combine)}};
  }
  const EngineConfig& e = sc.engine;
  j["engine"] = {{"kind", e.kind},
                 {"framework", e.framework},
                 {"kernel_launch_overhead_s", e.kernel_launch_overhead},
                 {"launch_floor_s", e.launch_floor},
                 {"collective_latency_s", e.collective_latency},
                 {"max_num_seqs", e.max_num_seqs},
                 {"max_num_batched_tokens", e.max_num_batched_tokens},
                 {"block_size", e.block_size},
                 {"gpu_memory_utilization", e.gpu_memory_utilization},
                 {"prefix_caching", e.prefix_caching},
                 {"chunked_prefill", e.chunked_prefill},
                 {"max_model_len", e.max_model_len},
                 {"num_gpu_blocks_override", e.num_gpu_blocks_override},
                 {"runtime_overhead_bytes", e.runtime_overhead_bytes},
                 {"step_cpu_overhead_s", e.step_cpu_overhead},
                 {"per_seq_cpu_overhead_s", e.per_seq_cpu_overhead},
                 {"per_token_cpu_overhead_s", e.per_token_cpu_overhead},
                 {"prompt_token_cpu_overhead_s", e.prompt_token_cpu_overhead},
                 {"host_overlap", e.host_overlap},
                 {"frontend_latency_s", e.frontend_latency},
                 {"async_scheduling", e.async_scheduling},
                 {"cpu_offload_bytes", e.cpu_offload_bytes},
                 {"attention_kernel", e.attention == AttentionKernel::flash ? "flash" : "naive"},
                 {"max_queue_memory_bytes", summary.load.guard_from_machine && !summary.load.guard_tripped
                                                ? nlohmann::json(nullptr)  // machine-sized: see summary_json.cpp
                                                : nlohmann::json(summary.load.guard_bytes)},
                 {"max_queue_memory_from_machine", summary.load.guard_from_machine}};
  // The scheduling policy, when it is not vLLM v1's: written only then, so that the
  // default run's JSON stays as it was before engine.scheduler existed.
  if (e.scheduler != "vllm_v1") j["engine"]["scheduler"] = e.scheduler;
  if (e.speculative.enabled()) {
    const SpeculativeConfig& sp = e.speculative;
    j["engine"]["speculative"] = {{"method", sp.method},
                                  {"draft_model", sp.draft_model},
                                  {"num_speculative_tokens", sp.num_speculative_tokens},
                                  {"acceptance", sp.acceptance},
                                  {"expected_tokens_per_step", sp.expected_tokens()}};
  }
  j["kv_cache"] = {{"blocks_per_replica", kv_blocks}, {"tokens_per_replica", kv_blocks * e.block_size}};
  // A heterogeneous fleet: each pool's own setup (written only with pools). The gpu and
  // precision above are the scenario's own setup's, which the pools start from; the KV
  // blocks above are the first pool's.
  if (!sc.pools.empty()) {
    nlohmann::json pools = nlohmann::json::array();
    for (std::size_t i = 0; i < sc.pools.size(); ++i) {
      const Setup& ps = sc.pools[i].setup;
      pools.push_back({{"name", sc.pools[i].name},
                       {"gpu", ps.gpu.name},
                       {"tp", ps.parallelism.tp},
                       {"replicas", ps.parallelism.replicas},
                       {"precision", precision_label(ps.resolved)},
                       {"weights", weight_format_name(ps.resolved)},
                       {"usd_per_gpu_hour", ps.gpu.price_per_hour},
                       {"kv_blocks_per_replica", i < summary.pools.size() ? summary.pools[i].hardware.kv_blocks_per_instance : 0}});
    }
    j["pools"] = pools;
  }
  nlohmann::json w;
  const WorkloadSpec& ws = sc.workload;
  if (ws.trace) {
    w["trace"] = ws.trace->path;
    w["time_scale"] = ws.trace->time_scale;
  } else {
    w["arrival"] = describe_arrival(ws.arrival);
    w["input_tokens"] = describe_length(ws.input_tokens);
    w["output_tokens"] = describe_length(ws.output_tokens);
  }
  // Parallel sampling or beam search, only when set, so other runs' JSON is unchanged.
  if (ws.sampling.beam()) w["sampling"] = {{"beam_width", ws.sampling.beam_width}};
  else if (!ws.sampling.single()) w["sampling"] = {{"n", ws.sampling.n}};
  w["seed"] = ws.seed;
  w["requests"] = ws.requests >= 0 ? nlohmann::json(ws.requests) : nlohmann::json(nullptr);
  w["offered"] = summary.load.offered;
  w["offered_rps"] = summary.load.offered_rps;
  j["workload"] = w;
  return j;
}

}  // namespace servesim
