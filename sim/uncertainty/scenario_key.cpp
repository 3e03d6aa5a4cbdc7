#include "uncertainty/scenario_key.h"

#include <algorithm>
#include <filesystem>

#include <fmt/format.h>

#include "model/dtype.h"

namespace servesim::bands {

bool is_calibrated_profile(const GpuSpec& gpu) {
  const auto parent = std::filesystem::path(gpu.source_file).parent_path().filename();
  return parent == "calibrated";
}

namespace {
bool sixteen_bit_or_wider(DType t) { return t == DType::bf16 || t == DType::fp16 || t == DType::fp32; }
}  // namespace

std::vector<std::string> uncovered_features(const Scenario& sc, const RunSummary& summary) {
  std::vector<std::string> out;
  // A heterogeneous fleet (pools:) runs each pool's precision, not the scenario's own.
  std::vector<const Setup*> setups;
  for (const FleetPoolSpec& p : sc.pools) setups.push_back(&p.setup);
  if (setups.empty()) setups.push_back(&sc);
  auto add = [&](std::string what) {
    if (std::find(out.begin(), out.end(), what) == out.end()) out.push_back(std::move(what));
  };
  for (const Setup* s : setups) {
    if (!sixteen_bit_or_wider(s->resolved.weights)) add(dtype_name(s->resolved.weights) + " weights");
    if (!sixteen_bit_or_wider(s->resolved.kv_cache)) add(dtype_name(s->resolved.kv_cache) + " KV cache");
  }
  // The model's shape. The runs served dense GQA/MHA transformers (Llama-2/3.1, CodeLlama,
  // Qwen3-14B) and one MoE family (Mixtral: 8 routed experts, top-2, under TP), all with full
  // softmax attention in every layer: their residuals say nothing of other layer kinds.
  for (const Setup* s : setups) {
    const ModelSpec& m = s->model;
    if (m.mla.enabled()) add("multi-head latent attention (MLA)");
    if (m.state.enabled()) add("state-space / linear-attention layers");
    if (m.compressed.enabled()) add("compressed attention");
    if (m.local.enabled()) {
      if (m.local.kind == LocalAttention::Kind::topk)
        add("top-k sparse attention");
      else
        add("sliding-window or chunked attention");
    }
    const bool mixtral_like_moe = m.moe.num_experts <= 8 && m.moe.experts_per_token <= 2 &&
                                  m.moe.shared_experts == 0 && m.moe.latent == 0;
    if (m.moe.enabled() && !mixtral_like_moe)
      add(fmt::format("a MoE of {} experts, top-{}{}", m.moe.num_experts,
                      m.moe.experts_per_token, m.moe.shared_experts > 0 ? " with shared experts" : ""));
    if (s->parallelism.wide()) add("expert parallelism or DP attention");
  }
  // The runs' prompts averaged 550-1,030 tokens (system prompt + question) and their outputs
  // 250-1,450 (chat to reasoning) within a 4,096-token max_model_len: a workload of long prompts
  // (RAG, long documents) is prefill- and attention-heavy, one of long outputs (long reasoning)
  // decodes at contexts, in a way none of their residuals saw.
  if (summary.completed > 0) {
    const double n = static_cast<double>(summary.completed);
    const double mean_prompt = static_cast<double>(summary.input_tokens) / n;
    if (mean_prompt > 4096.0)
      add(fmt::format("prompts of {:.0f} tokens on average (the runs': 550-1,030)", mean_prompt));
    // Output tokens count every sequence of a request (parallel sampling: named above).
    const double mean_output = static_cast<double>(summary.output_tokens) / n / static_cast<double>(summary.sequences_max);
    if (mean_output > 4096.0)
      add(fmt::format("outputs of {:.0f} tokens on average (the runs': 250-1,450)", mean_output));
  }
  // Every measured run behind the bands ran on one GPU type.
  for (const Setup* s : setups)
    if (s->gpu.architecture != setups.front()->gpu.architecture) {
      add("a fleet mixing GPU architectures");
      break;
    }
  if (sc.engine.speculative.enabled()) out.push_back(sc.engine.speculative.method + " speculative decoding");
  if (sc.disaggregation) out.push_back("prefill/decode disaggregation");
  if (sc.parallelism.pp > 1) out.push_back("pipeline parallelism");
  // The measured runs decode one sequence per request: their errors say nothing about
  // parallel sampling or beam search (workload.sampling).
  if (summary.sequences_max > 1) out.push_back("parallel sampling or beam search");
  // ... nor about LoRA adapters (their loads, slots and kernels: workload.lora).
  if (sc.workload.lora) out.push_back("LoRA adapters");
  return out;
}

BandKey scenario_band_key(const Scenario& sc, const RunSummary& summary) {
  const GpuSpec& gpu = sc.pools.empty() ? sc.gpu : sc.pools.front().setup.gpu;  // (mixed: refused above)
  return BandKey{is_calibrated_profile(gpu), gpu.architecture, framework_family(sc.engine.framework),
                 load_regime(sc.engine.max_num_seqs > 0
                                 ? summary.batch_size_mean / static_cast<double>(sc.engine.max_num_seqs)
                                 : 0.0,
                             summary.kv_utilization_mean, summary.load.overloaded),
                 uncovered_features(sc, summary)};
}

nlohmann::json run_bands_json(const Scenario& sc, const RunSummary& summary, const nlohmann::json& summary_json) {
  std::string why;
  const BandTable* table = shipped_table(&why);
  return summary_bands_json(table, why, scenario_band_key(sc, summary), summary_json);
}

}  // namespace servesim::bands
