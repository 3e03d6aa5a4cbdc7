// SGLang: `python3 -m sglang.launch_server --model-path MODEL [server args]`. Flags as
// SGLang's server arguments name them (docs.sglang.io/advanced_features/server_arguments.html;
// sgl-project/sglang, python/sglang/srt/server_args.py): --tp-size, --pp-size, --ep-size,
// --max-running-requests (vLLM's max-num-seqs), --chunked-prefill-size (the token budget
// of a step; -1 turns chunking off), --page-size, --mem-fraction-static (weights and KV
// pool as a share of GPU memory: vLLM's gpu-memory-utilization), --context-length,
// --kv-cache-dtype {auto,fp8_e4m3}, --quantization fp8, --dtype, --disable-radix-cache
// (prefix caching off), --speculative-algorithm {EAGLE,NEXTN,STANDALONE},
// --speculative-draft-model-path, --speculative-num-steps, --speculative-eagle-topk,
// --speculative-num-draft-tokens.
#include <fmt/format.h>

#include "deploy/deployment.h"
#include "model/dtype.h"

namespace servesim::deploy {

std::vector<EmittedFile> emit_sglang(const DeploymentPlan& plan) {
  const Scenario& sc = *plan.scenario;
  const EngineConfig& e = sc.engine;
  std::vector<std::pair<std::string, std::string>> a;
  a.emplace_back("--tp-size", std::to_string(sc.parallelism.tp));
  a.emplace_back("--pp-size", std::to_string(sc.parallelism.pp));
  if (sc.parallelism.ep > 1) a.emplace_back("--ep-size", std::to_string(sc.parallelism.ep));
  a.emplace_back("--max-running-requests", std::to_string(e.max_num_seqs));
  a.emplace_back("--chunked-prefill-size", e.chunked_prefill ? std::to_string(e.max_num_batched_tokens) : "-1");
  a.emplace_back("--page-size", std::to_string(e.block_size));
  a.emplace_back("--mem-fraction-static", fmt::format("{:g}", e.gpu_memory_utilization));
  a.emplace_back("--context-length", std::to_string(detail::max_model_len(sc)));
  a.emplace_back("--kv-cache-dtype", sc.resolved.kv_cache == DType::fp8 ? "fp8_e4m3" : "auto");
  const DType w = sc.resolved.weights;
  if (w == DType::fp8) a.emplace_back("--quantization", "fp8");
  else if (w == DType::bf16) a.emplace_back("--dtype", "bfloat16");
  else if (w == DType::fp16) a.emplace_back("--dtype", "float16");
  if (!e.prefix_caching) a.emplace_back("--disable-radix-cache", "");
  if (const SpeculativeConfig& sp = e.speculative; sp.enabled()) {
    // EAGLE drafts k tokens in k steps of top-1 (a chain: k + 1 tokens verified).
    a.emplace_back("--speculative-algorithm",
                   sp.method == "eagle" ? "EAGLE" : sp.method == "mtp" ? "NEXTN" : "STANDALONE");
    if (const std::string d = detail::drafter(sc); !d.empty()) a.emplace_back("--speculative-draft-model-path", d);
    a.emplace_back("--speculative-num-steps", std::to_string(sp.num_speculative_tokens));
    a.emplace_back("--speculative-eagle-topk", "1");
    a.emplace_back("--speculative-num-draft-tokens", std::to_string(sp.num_speculative_tokens + 1));
  }
  std::string text = "#!/bin/sh\n";
  text += detail::header_comment(
      plan, fmt::format("One replica per command: run {} of them behind a load balancer (or SGLang's router).",
                        plan.replicas));
  text += detail::checkpoint_note(sc, "SGLang");
  text += detail::speculative_note(sc);
  text += "exec " + detail::shell_command("python3 -m sglang.launch_server --model-path " +
                                              detail::shell_quote(detail::model_id(sc)),
                                          a);
  return {{"launch-sglang.sh", text}};
}

}  // namespace servesim::deploy
