// TensorRT-LLM: `trtllm-serve MODEL --backend pytorch [options] --extra_llm_api_options
// FILE`. Options as trtllm-serve declares them (NVIDIA/TensorRT-LLM@00209af149,
// tensorrt_llm/commands/serve.py; nvidia.github.io/TensorRT-LLM/commands/trtllm-serve):
// --tp_size, --pp_size, --ep_size, --max_batch_size, --max_num_tokens, --max_seq_len,
// --kv_cache_free_gpu_memory_fraction, --enable_chunked_prefill, --extra_llm_api_options.
// The KV dtype, block reuse (prefix caching), block size and speculative decoding are
// LLM API options in the extra YAML (kv_cache_config, speculative_config; LlmArgs in
// tensorrt_llm/llmapi/llm_args.py). Quantized weights come from a quantized checkpoint
// (TensorRT Model Optimizer), never from a flag.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "deploy/deployment.h"
#include "model/dtype.h"
#include "scenario/setup.h"

namespace servesim::deploy {

std::vector<EmittedFile> emit_trtllm(const DeploymentPlan& plan) {
  const Scenario& sc = *plan.scenario;
  const EngineConfig& e = sc.engine;
  // TRT-LLM sizes the KV cache as a fraction of the memory left after weights and
  // buffers; vLLM's gpu_memory_utilization is a fraction of all of it. The same KV
  // bytes: kv / (capacity - weights - activations - runtime overhead).
  const MemoryPlan m = plan_setup_memory(sc, make_cost_model(sc));
  const double free_bytes = m.capacity - m.weights - m.activations - m.runtime_overhead;
  const double fraction = free_bytes > 0 ? std::clamp(std::floor(100 * m.kv_bytes / free_bytes) / 100, 0.01, 0.99) : 0.9;
  std::vector<std::pair<std::string, std::string>> a;
  a.emplace_back("--backend", "pytorch");
  a.emplace_back("--tp_size", std::to_string(sc.parallelism.tp));
  a.emplace_back("--pp_size", std::to_string(sc.parallelism.pp));
  if (sc.parallelism.ep > 1) a.emplace_back("--ep_size", std::to_string(sc.parallelism.ep));
  a.emplace_back("--max_batch_size", std::to_string(e.max_num_seqs));
  a.emplace_back("--max_num_tokens", std::to_string(e.max_num_batched_tokens));
  a.emplace_back("--max_seq_len", std::to_string(detail::max_model_len(sc)));
  a.emplace_back("--kv_cache_free_gpu_memory_fraction", fmt::format("{:.2f}", fraction));
  if (e.chunked_prefill) a.emplace_back("--enable_chunked_prefill", "");
  a.emplace_back("--extra_llm_api_options", "trtllm-extra-options.yaml");

  std::string text = "#!/bin/sh\n";
  text += detail::header_comment(
      plan, fmt::format("One replica per command: run {} of them behind a load balancer. The KV memory fraction "
                        "{:.2f} = {:.1f} GiB of KV over the {:.1f} GiB left after weights and buffers (servesim's "
                        "memory plan at gpu_memory_utilization {:g}).",
                        plan.replicas, fraction, m.kv_bytes / (1 << 30), free_bytes / (1 << 30),
                        e.gpu_memory_utilization));
  const DType w = sc.resolved.weights;
  if (w != DType::bf16 && w != DType::fp16 && w != DType::fp32)
    text += fmt::format("# {} weights: serve a checkpoint quantized to {} with TensorRT Model Optimizer (e.g. an "
                        "NVIDIA '-FP8' model); TensorRT-LLM reads the method from it.\n",
                        dtype_name(w), dtype_name(w));
  text += detail::speculative_note(sc);
  text += "cd \"$(dirname \"$0\")\"\n";
  text += "exec " + detail::shell_command("trtllm-serve " + detail::shell_quote(detail::model_id(sc)), a);

  std::string yaml = detail::header_comment(plan, "LLM API options for launch-trtllm.sh (--extra_llm_api_options).");
  yaml += "kv_cache_config:\n";
  yaml += fmt::format("  dtype: {}\n", sc.resolved.kv_cache == DType::fp8 ? "fp8" : "auto");
  yaml += fmt::format("  enable_block_reuse: {}\n", e.prefix_caching ? "true" : "false");
  yaml += fmt::format("  tokens_per_block: {}\n", e.block_size);
  if (const SpeculativeConfig& sp = e.speculative; sp.enabled()) {
    yaml += "speculative_config:\n";
    yaml += fmt::format("  decoding_type: {}\n",
                        sp.method == "eagle" ? "Eagle" : sp.method == "mtp" ? "MTP" : "DraftTarget");
    yaml += fmt::format("  max_draft_len: {}\n", sp.num_speculative_tokens);
    if (const std::string d = detail::drafter(sc); !d.empty()) yaml += fmt::format("  speculative_model_dir: {}\n", d);
  }
  return {{"launch-trtllm.sh", text}, {"trtllm-extra-options.yaml", yaml}};
}

}  // namespace servesim::deploy
