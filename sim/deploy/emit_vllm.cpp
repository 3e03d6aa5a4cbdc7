// vLLM: `vllm serve MODEL [engine args]`. Flags as vLLM's engine arguments name them
// (docs.vllm.ai/en/latest/configuration/engine_args.html; vllm-project/vllm,
// vllm/engine/arg_utils.py): --tensor-parallel-size, --pipeline-parallel-size,
// --enable-expert-parallel, --max-num-seqs, --max-num-batched-tokens, --block-size,
// --gpu-memory-utilization, --max-model-len, --kv-cache-dtype {auto,fp8},
// --quantization fp8 (online fp8 of a 16-bit checkpoint; on GPUs without fp8 tensor
// cores vLLM runs it weight-only, W8A16, through Marlin), --dtype,
// --[no-]enable-prefix-caching, --[no-]enable-chunked-prefill, --speculative-config JSON,
// --enable-lora --max-loras --max-cpu-loras --max-lora-rank (vllm/config/lora.py LoRAConfig).
#include <fmt/format.h>

#include "deploy/deployment.h"
#include "model/dtype.h"

namespace servesim::deploy {

std::vector<std::pair<std::string, std::string>> vllm_args(const Scenario& sc) {
  const EngineConfig& e = sc.engine;
  std::vector<std::pair<std::string, std::string>> a;
  a.emplace_back("--tensor-parallel-size", std::to_string(sc.parallelism.tp));
  a.emplace_back("--pipeline-parallel-size", std::to_string(sc.parallelism.pp));
  if (sc.parallelism.ep > 1) a.emplace_back("--enable-expert-parallel", "");
  a.emplace_back("--max-num-seqs", std::to_string(e.max_num_seqs));
  a.emplace_back("--max-num-batched-tokens", std::to_string(e.max_num_batched_tokens));
  a.emplace_back("--block-size", std::to_string(e.block_size));
  a.emplace_back("--gpu-memory-utilization", fmt::format("{:g}", e.gpu_memory_utilization));
  a.emplace_back("--max-model-len", std::to_string(detail::max_model_len(sc)));
  a.emplace_back("--kv-cache-dtype", sc.resolved.kv_cache == DType::fp8 ? "fp8" : "auto");
  const DType w = sc.resolved.weights;
  if (w == DType::fp8) a.emplace_back("--quantization", "fp8");
  else if (w == DType::bf16) a.emplace_back("--dtype", "bfloat16");
  else if (w == DType::fp16) a.emplace_back("--dtype", "float16");
  a.emplace_back(e.prefix_caching ? "--enable-prefix-caching" : "--no-enable-prefix-caching", "");
  a.emplace_back(e.chunked_prefill ? "--enable-chunked-prefill" : "--no-enable-chunked-prefill", "");
  if (const SpeculativeConfig& sp = e.speculative; sp.enabled()) {
    // vLLM's SpeculativeConfig: method eagle / mtp / draft_model, the drafter, k.
    std::string json = fmt::format("{{\"method\": \"{}\", \"num_speculative_tokens\": {}", sp.method,
                                   sp.num_speculative_tokens);
    if (const std::string d = detail::drafter(sc); !d.empty()) json += fmt::format(", \"model\": \"{}\"", d);
    a.emplace_back("--speculative-config", json + "}");
  }
  if (const LoraEngineSpec& l = e.lora; l.enabled) {
    a.emplace_back("--enable-lora", "");
    a.emplace_back("--max-loras", std::to_string(l.max_loras));
    a.emplace_back("--max-cpu-loras", std::to_string(l.cpu_loras()));
    a.emplace_back("--max-lora-rank", std::to_string(l.max_lora_rank));
  }
  return a;
}

std::vector<EmittedFile> emit_vllm(const DeploymentPlan& plan) {
  const Scenario& sc = *plan.scenario;
  std::string text = "#!/bin/sh\n";
  text += detail::header_comment(
      plan, fmt::format("One replica per command: run {} of them behind a load balancer (or `--emit kubernetes`).",
                        plan.replicas));
  text += detail::checkpoint_note(sc, "vLLM");
  text += detail::speculative_note(sc);
  if (sc.engine.lora.enabled)
    text += "# LoRA adapters: register them with --lora-modules NAME=PATH ... or the /v1/load_lora_adapter endpoint\n"
            "# (VLLM_ALLOW_RUNTIME_LORA_UPDATING=True); requests name their adapter as the model.\n";
  text += "exec " + detail::shell_command("vllm serve " + detail::shell_quote(detail::model_id(sc)), vllm_args(sc));
  return {{"launch-vllm.sh", text}};
}

}  // namespace servesim::deploy
