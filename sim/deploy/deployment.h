#pragma once
// Deployment artifacts for a planned configuration (`servesim plan --emit
// vllm|sglang|trtllm|kubernetes`): the serving engine's launch command with the
// settings servesim simulated (TP/PP/EP, max-num-seqs, max-num-batched-tokens,
// block size, memory fraction, KV dtype, weight quantization, prefix caching,
// chunked prefill, speculative decoding), or a Kubernetes Deployment running it,
// each headed by the predicted SLO figures as comments. One file per target:
// emit_vllm.cpp, emit_sglang.cpp, emit_trtllm.cpp, emit_kubernetes.cpp.
//
// What servesim cannot set from its own model is said in the file, never guessed:
// an int4 or fp4 candidate needs a checkpoint quantized that way (engines read the
// method from it), and GPU selection is the cluster's (a commented nodeSelector).
#include <string>
#include <vector>

#include "scenario/scenario.h"

namespace servesim::deploy {

enum class EmitTarget { vllm, sglang, trtllm, kubernetes };

// "vllm", "sglang", "trtllm", "kubernetes"; parse throws servesim::Error with the
// valid names and a did-you-mean.
std::string emit_target_name(EmitTarget t);
EmitTarget parse_emit_target(const std::string& name);
std::vector<std::string> emit_target_names();

// The configuration to deploy and what servesim predicts for it.
struct DeploymentPlan {
  const Scenario* scenario = nullptr;  // one replica of the candidate (engine settings, precision, TP/PP/EP)
  std::string label;                   // "h200-sxm fp8 tp=2"
  std::string source;                  // the scenario file planned
  int replicas = 1;                    // instances behind a load balancer
  double target_rate = 0;              // req/s in total (0: a GPU-budget plan)
  double rate_per_replica = 0;         // the operating point of one replica, req/s
  // Predicted at that operating point (ms; attainment a fraction).
  double ttft_p99_ms = 0, tpot_p99_ms = 0, e2e_p99_ms = 0, attainment = 0;
  double usd_per_hour = 0, usd_per_million_output_tokens = 0, joules_per_output_token = 0;
};

struct EmittedFile {
  std::string name;  // "launch-vllm.sh", "trtllm-extra-options.yaml", "deployment.yaml"
  std::string text;
};

// The files of one target (TRT-LLM: the launch script and its extra options YAML).
std::vector<EmittedFile> emit_deployment(const DeploymentPlan& plan, EmitTarget target);

// Shared by the emitters (deployment.cpp).
namespace detail {
// Text from the inputs (a file name, a model's name) made safe inside a "# " comment
// line: a control character (a newline would end the comment and start a command of
// the script) becomes '?'.
std::string comment_safe(const std::string& s);
// "# " comment lines: what was planned, the predicted figures against the SLOs, cost.
std::string header_comment(const DeploymentPlan& plan, const std::string& engine_line);
// The model id to serve: the model's Hugging Face id, else its catalog name.
std::string model_id(const Scenario& sc);
// max_model_len as the engine needs it: the scenario's, else the model's context.
std::int64_t max_model_len(const Scenario& sc);
// A note (comment lines) when the weights need a pre-quantized checkpoint; "" otherwise.
std::string checkpoint_note(const Scenario& sc, const std::string& engine);
// The drafter to name in the engine's speculative settings: the scenario's draft model,
// "" for MTP (the checkpoint's own heads), else (EAGLE without a named head) the
// placeholder kDrafterPlaceholder, which speculative_note explains.
inline constexpr const char* kDrafterPlaceholder = "EAGLE_HEAD_CHECKPOINT";
std::string drafter(const Scenario& sc);
std::string speculative_note(const Scenario& sc);
// One argument per line, as "  --flag value \" continuations ending the command.
std::string shell_command(const std::string& program, const std::vector<std::pair<std::string, std::string>>& args);
// POSIX single-quoting for a shell word.
std::string shell_quote(const std::string& s);
}  // namespace detail

// The engine arguments of vLLM's `vllm serve` for the plan (emit_vllm.cpp; the
// Kubernetes Deployment runs the same in the vllm/vllm-openai image).
std::vector<std::pair<std::string, std::string>> vllm_args(const Scenario& sc);

}  // namespace servesim::deploy
