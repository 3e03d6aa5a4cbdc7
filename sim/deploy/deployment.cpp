#include "deploy/deployment.h"

#include <fmt/format.h>

#include <cctype>

#include "model/dtype.h"
#include "util/error.h"
#include "util/text.h"

namespace servesim::deploy {

namespace {
const std::vector<std::pair<EmitTarget, std::string>>& targets() {
  static const std::vector<std::pair<EmitTarget, std::string>> t = {
      {EmitTarget::vllm, "vllm"}, {EmitTarget::sglang, "sglang"}, {EmitTarget::trtllm, "trtllm"},
      {EmitTarget::kubernetes, "kubernetes"}};
  return t;
}
}  // namespace

std::string emit_target_name(EmitTarget t) {
  for (const auto& [k, n] : targets())
    if (k == t) return n;
  return "?";
}

std::vector<std::string> emit_target_names() {
  std::vector<std::string> out;
  for (const auto& [k, n] : targets()) out.push_back(n);
  return out;
}

EmitTarget parse_emit_target(const std::string& name) {
  for (const auto& [k, n] : targets())
    if (n == name) return k;
  throw Error(fmt::format("--emit: unknown target '{}'{} (valid: {})", name, did_you_mean(name, emit_target_names()),
                          join(emit_target_names())));
}

// Declared in the emitters' files.
std::vector<EmittedFile> emit_vllm(const DeploymentPlan& plan);
std::vector<EmittedFile> emit_sglang(const DeploymentPlan& plan);
std::vector<EmittedFile> emit_trtllm(const DeploymentPlan& plan);
std::vector<EmittedFile> emit_kubernetes(const DeploymentPlan& plan);

std::vector<EmittedFile> emit_deployment(const DeploymentPlan& plan, EmitTarget target) {
  if (!plan.scenario) throw Error("internal: emit_deployment needs the candidate's scenario");
  if (plan.scenario->disaggregation)
    throw Error("--emit writes a co-located configuration; the disaggregated split is not emitted (its pools are "
                "two deployments with a KV connector servesim does not configure)");
  // The LoRA slots and skip rule simulated are vLLM's (docs/lora.md); SGLang's and
  // TensorRT-LLM's adapter caches and schedulers differ.
  if (plan.scenario->engine.lora.enabled && (target == EmitTarget::sglang || target == EmitTarget::trtllm))
    throw Error(fmt::format("--emit {}: the simulated multi-LoRA serving (engine.lora) is vLLM's; its settings are "
                            "emitted for vllm and kubernetes (vLLM) only",
                            target == EmitTarget::sglang ? "sglang" : "trtllm"));
  switch (target) {
    case EmitTarget::vllm: return emit_vllm(plan);
    case EmitTarget::sglang: return emit_sglang(plan);
    case EmitTarget::trtllm: return emit_trtllm(plan);
    case EmitTarget::kubernetes: return emit_kubernetes(plan);
  }
  throw Error("internal: unhandled emit target");
}

namespace detail {

std::string comment_safe(const std::string& s) {
  std::string out = s;
  for (char& c : out)
    if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) c = '?';
  return out;
}

std::string header_comment(const DeploymentPlan& p, const std::string& engine_line) {
  const Scenario& sc = *p.scenario;
  std::string out = fmt::format("# Written by `servesim plan {} --emit ...`: the best candidate, {}.\n",
                                comment_safe(p.source), comment_safe(p.label));
  out += fmt::format("# {} on {} (servesim's GPU model; the engine runs on whatever GPUs it is given), {}.\n",
                     comment_safe(sc.model.name), comment_safe(sc.gpu.name), sc.resolved.describe());
  out += fmt::format("# {} replica(s) x {} GPU(s) (tp={}, pp={}{}) = {} GPUs{}.\n", p.replicas,
                     sc.parallelism.gpus_per_replica(), sc.parallelism.tp, sc.parallelism.pp,
                     sc.parallelism.ep > 1 ? fmt::format(", ep={}", sc.parallelism.ep) : "",
                     p.replicas * sc.parallelism.gpus_per_replica(),
                     p.target_rate > 0 ? fmt::format(" for {:g} req/s", p.target_rate) : "");
  out += fmt::format("# Predicted per replica at {:.3g} req/s: TTFT p99 {:.0f} ms, TPOT p99 {:.1f} ms, E2E p99 {:.0f} ms, "
                     "{:.1f}% of requests meet every SLO.\n",
                     p.rate_per_replica, p.ttft_p99_ms, p.tpot_p99_ms, p.e2e_p99_ms, 100 * p.attainment);
  std::vector<std::string> slos;
  for (const auto& t : sc.slo.targets) slos.push_back(fmt::format("{} {} <= {:g} ms", t.metric, t.statistic, t.limit_ms));
  if (sc.slo.attainment > 0) slos.push_back(fmt::format("attainment >= {:g}%", 100 * sc.slo.attainment));
  if (!slos.empty()) out += fmt::format("# SLOs: {}.\n", join(slos));
  out += fmt::format("# Cost: ${:.2f}/hour, ${:.3f} per million output tokens, {:.3f} J/output token (servesim's "
                     "prices and power model).\n",
                     p.usd_per_hour, p.usd_per_million_output_tokens, p.joules_per_output_token);
  out += "# " + engine_line + "\n";
  return out;
}

std::string model_id(const Scenario& sc) { return sc.model.hf_id.empty() ? sc.model.name : sc.model.hf_id; }

std::int64_t max_model_len(const Scenario& sc) {
  return sc.engine.max_model_len > 0 ? sc.engine.max_model_len : sc.model.max_context;
}

std::string checkpoint_note(const Scenario& sc, const std::string& engine) {
  const DType w = sc.resolved.weights;
  if (w == DType::bf16 || w == DType::fp16 || w == DType::fp32 || w == DType::fp8) return "";
  return fmt::format("# {} weights: serve a checkpoint quantized to {} (e.g. AWQ or GPTQ for int4, NVFP4 for fp4);\n"
                     "# {} reads the quantization method from the checkpoint's config, so no flag sets it here.\n",
                     dtype_name(w), dtype_name(w), engine);
}

std::string drafter(const Scenario& sc) {
  const SpeculativeConfig& sp = sc.engine.speculative;
  if (!sp.draft_model.empty()) return sp.draft_model;
  return sp.method == "mtp" ? "" : kDrafterPlaceholder;
}

std::string speculative_note(const Scenario& sc) {
  const SpeculativeConfig& sp = sc.engine.speculative;
  if (!sp.enabled()) return "";
  std::string out = fmt::format("# Speculative decoding as simulated: {}, k = {}, {:.2f} tokens per step expected.\n",
                                sp.method, sp.num_speculative_tokens, sp.expected_tokens());
  if (drafter(sc) == kDrafterPlaceholder)
    out += fmt::format("# {} stands for the EAGLE head trained for {}: the scenario does not name one.\n",
                       kDrafterPlaceholder, comment_safe(model_id(sc)));
  return out;
}

std::string shell_quote(const std::string& s) {
  bool plain = !s.empty();
  for (const char c : s)
    if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_' || c == '.' || c == '/' || c == ':' ||
          c == '=' || c == ','))
      plain = false;
  if (plain) return s;
  std::string out = "'";
  for (const char c : s) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

std::string shell_command(const std::string& program, const std::vector<std::pair<std::string, std::string>>& args) {
  std::string out = program;
  for (const auto& [flag, value] : args) {
    out.append(" \\\n  ").append(flag);
    if (!value.empty()) out.append(" ").append(shell_quote(value));
  }
  out.push_back('\n');
  return out;
}

}  // namespace detail
}  // namespace servesim::deploy
