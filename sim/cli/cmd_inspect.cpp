// `servesim inspect [SCENARIO] [--gpu --model --tp ...] [--json]`: the memory plan and
// the per-operator roofline of a representative prefill batch and decode batch.
#include <fmt/format.h>

#include <algorithm>
#include <iostream>
#include <nlohmann/json.hpp>

#include "cli/commands.h"
#include "cli/scenario_args.h"
#include "cost/memory_plan.h"
#include "cost/replica_layout.h"
#include "config/edits.h"
#include "report/inspect_report.h"
#include "report/model_json.h"
#include "util/units.h"

namespace servesim::cli {
namespace {

struct InspectArgs {
  std::string scenario;
  std::vector<std::string> sets;
  std::string gpu, model, weights, activations, kv_cache;
  int tp = 0, pp = 0, ep = 0;
  std::int64_t prefill_batch = 1, prefill_len = 1024, decode_batch = 32, decode_context = 1024;
  bool prefill_len_given = false, decode_context_given = false;  // else fitted to the model's context
  bool json = false;
};

void print_ops(const std::string& title, const StepCost& c) {
  fmt::print("\n{}: step time {}  ({} per GPU, {})\n", title, format_seconds(c.time),
             format_rate(c.flops, "FLOP"), format_bytes(c.bytes));
  fmt::print("  {:<20} {:>6} {:>11} {:>10} {:>10} {:>10} {:>9} {:>10} {:>6} {:>13}\n", "op", "calls", "FLOP", "weights",
             "activ.", "KV", "FLOP/B", "time", "share", "bound");
  for (const auto& op : c.ops) {
    fmt::print("  {:<20} {:>6.0f} {:>11} {:>10} {:>10} {:>10} {:>9.1f} {:>10} {:>5.1f}% {:>13}\n", op.name, op.count,
               format_rate(op.flops, ""), format_bytes(op.weight_bytes), format_bytes(op.activation_bytes),
               format_bytes(op.kv_bytes), op.intensity(), format_seconds(op.time), 100.0 * op.time / c.time,
               bound_name(op.bound));
  }
}

// The flag shortcuts as typed edits: names kept as written (a model path with a
// colon stays one string), degrees as numbers. Applied before --set, which wins.
std::vector<ConfigEdit> flag_edits(const InspectArgs& a) {
  std::vector<ConfigEdit> edits;
  // Each named after its flag, so an error says "--model: ..." (not "--set") when
  // that is what the user typed.
  auto text = [&](const char* key, const std::string& v, const char* flag) {
    if (!v.empty()) edits.push_back(text_edit(key, v, flag));
  };
  auto degree = [&](const char* key, int v, const char* flag) {
    if (v) edits.push_back(number_edit(key, v, flag));
  };
  text("hardware.gpu", a.gpu, "--gpu");
  text("model.name", a.model, "--model");
  text("model.weights", a.weights, "--weights");
  text("model.activations", a.activations, "--activations");
  text("model.kv_cache", a.kv_cache, "--kv-cache");
  degree("parallelism.tp", a.tp, "--tp");
  degree("parallelism.pp", a.pp, "--pp");
  degree("parallelism.ep", a.ep, "--ep");
  return edits;
}

// Without a scenario and without a GPU (`inspect --model FOLDER`), the model is inspected on a
// B200: it has tensor cores for every precision a checkpoint may state (fp8, fp4), so the
// checkpoint's own W/A/KV show as they are. Said on stderr; --gpu chooses.
constexpr const char* kDefaultInspectGpu = "b200";
bool gpu_given(const InspectArgs& a) {
  if (!a.gpu.empty() || !a.scenario.empty()) return true;
  for (const std::string& s : a.sets)
    if (s.rfind("hardware.gpu=", 0) == 0) return true;
  return false;
}

void run_inspect(const InspectArgs& a) {
  ConfigNode doc = load_document(a.scenario, {});
  if (!gpu_given(a)) {
    apply_edits(doc, {text_edit("hardware.gpu", kDefaultInspectGpu)});
    std::cerr << "note: no scenario and no --gpu: inspecting on " << kDefaultInspectGpu << " (choose with --gpu)\n";
  }
  apply_edits(doc, flag_edits(a));
  apply_edits(doc, parse_edits(a.sets));
  // The same top-level keys as `run` accepts; the workload and SLOs are not read.
  InspectBatches given{a.prefill_batch, a.prefill_len, a.decode_batch, a.decode_context};
  given.fit_prefill_len = !a.prefill_len_given;
  given.fit_decode_context = !a.decode_context_given;
  const InspectReport report = inspect_setup(doc, a.scenario, given);
  const InspectBatches& batches = report.batches;
  if (batches.prefill_len != a.prefill_len || batches.decode_context != a.decode_context)
    std::cerr << fmt::format("note: the sample prefill of {} tokens and decode at context {} fit {}'s context of {} "
                             "tokens (choose with --prefill-len, --decode-context)\n",
                             batches.prefill_len, batches.decode_context, report.setup.model.name,
                             report.setup.model.max_context);
  if (doc.is_map() && doc.find("disaggregation"))
    std::cerr << "note: inspect shows the scenario's top-level (co-located) setup, not its disaggregation pools; "
                 "inspect a pool by setting its values (--set hardware.gpu=... --set parallelism.tp=...), and see "
                 "`servesim run` for the pools\n";
  if (a.json) {
    std::cout << inspect_json(report, batches).dump(2) << "\n";
    return;
  }
  const Setup& setup = report.setup;
  const MemoryPlan& plan = report.memory;
  const auto& m = setup.model;
  const auto& p = setup.parallelism;
  fmt::print("{} on {} x{} (tp={}, pp={}, ep={}), {}\n", m.name, setup.gpu.display_name, p.gpus_per_replica(), p.tp, p.pp,
             p.ep, setup.resolved.describe());
  // A wide layout (DP attention / EP): where its GPUs sit, and how the experts are run.
  if (p.wide())
    fmt::print("layout: {}; experts: {} slots per GPU ({} routed + {} redundant over ep={})\n",
               resolve_layout(p, setup.gpu).describe(p), p.expert_slots(m), m.moe.num_experts, p.redundant_experts,
               p.ep);
  fmt::print("model: {:.2f}B parameters ({:.2f}B active per token), KV {} per token ({})\n", m.total_params() / 1e9,
             m.active_params() / 1e9, format_bytes(m.kv_bytes_per_token(setup.resolved.kv_cache)),
             dtype_name(setup.resolved.kv_cache));
  // Layer kinds, checkpoint precision, what is left out (none for a plain catalog model).
  for (const std::string& note : model_notes(m)) fmt::print("{}\n", note);
  // Imported checkpoints only (catalog models have neither), so catalog output is unchanged.
  if (m.mtp_layers > 0)
    fmt::print("checkpoint: {:.2f}B parameters with {} multi-token-prediction module(s) of {:.2f}B (not loaded)\n",
               m.checkpoint_params() / 1e9, m.mtp_layers, m.mtp_params() / 1e9);
  // Local-attention models only (the others' output is unchanged).
  // A window or a chunk frees the blocks before its span; a top-k selection (DSA, MiniMax-M3's
  // blocks) may pick any earlier key, so every block is kept whatever engine.free_window_kv says.
  if (m.local.enabled())
    fmt::print("local attention: {} of {} (the others global); KV blocks past the span {}\n", m.local.describe(),
               m.layers,
               !m.local.frees_keys()             ? "kept (any earlier key can be selected)"
               : setup.engine.free_window_kv ? "freed (engine.free_window_kv)"
                                             : "kept (full-context KV)");
  if (!m.weight_groups.scheme.empty())
    fmt::print("quantization: {} ({:.3f} bytes per stored weight)\n", m.weight_groups.scheme,
               m.weight_element_bytes(m.native_dtype));
  fmt::print("\nmemory per GPU ({} total, gpu_memory_utilization {}):\n", format_bytes(plan.capacity),
             setup.engine.gpu_memory_utilization);
  fmt::print("  weights            {:>10}\n  activations        {:>10}\n  runtime overhead   {:>10}\n",
             format_bytes(plan.weights), format_bytes(plan.activations), format_bytes(plan.runtime_overhead));
  // engine.lora only (the others' output is unchanged).
  if (plan.lora_slots > 0)
    fmt::print("  LoRA slots         {:>10}  ({} adapters at max_lora_rank {}: engine.lora)\n",
               format_bytes(plan.lora_slots), setup.engine.lora.max_loras, setup.engine.lora.max_lora_rank);
  // Nothing left is said as such: a negative size would read as a (strange) amount of KV.
  if (plan.kv_bytes > 0)
    fmt::print("  KV cache           {:>10}  ({} per token per GPU, block {} tokens)\n", format_bytes(plan.kv_bytes),
               format_bytes(plan.kv_bytes_per_token), setup.engine.block_size);
  else
    fmt::print("  KV cache           {:>10}  (nothing left: the rest exceeds the budget by {}; {} per token per GPU)\n",
               "none", format_bytes(-plan.kv_bytes), format_bytes(plan.kv_bytes_per_token));
  fmt::print("  {}\n", plan.verdict);
  // The engine's own count wins over the planner's (vLLM's override; llama.cpp's ctx_size).
  if (setup.engine.num_gpu_blocks_override > 0)
    fmt::print("  the engine allocates {} KV blocks ({} tokens): {}\n", setup.engine.num_gpu_blocks_override,
               setup.engine.num_gpu_blocks_override * setup.engine.block_size,
               setup.engine.ggml.enabled ? "llama.cpp's ctx_size, allocated at start-up"
                                         : "engine.num_gpu_blocks_override");
  print_ops(fmt::format("prefill batch {} x {} tokens", a.prefill_batch, batches.prefill_len), report.prefill);
  print_ops(fmt::format("decode batch {} at context {}", a.decode_batch, batches.decode_context), report.decode);
  if (setup.engine.lora.enabled) {
    // The same decode batch with every sequence on an adapter, over as many distinct
    // adapters as the slots allow (cost/lora_cost.cpp): what multi-LoRA adds to a step.
    const std::vector<SeqWork> decode(static_cast<std::size_t>(a.decode_batch), SeqWork{1, batches.decode_context, true});
    BatchSummary b = summarize(decode, report.cost.model().local);
    b.lora = LoraLoad{a.decode_batch, static_cast<std::int32_t>(std::min(setup.engine.lora.max_loras, a.decode_batch)),
                      static_cast<std::int32_t>(setup.engine.lora.max_lora_rank)};
    print_ops(fmt::format("decode batch {} at context {}, LoRA: every sequence on an adapter, {} distinct at rank {}",
                          a.decode_batch, batches.decode_context, b.lora.adapters, b.lora.rank),
              report.cost.breakdown(b));
  }
}

}  // namespace

void register_inspect(CLI::App& app) {
  static InspectArgs a;
  auto* cmd = app.add_subcommand("inspect", "Memory plan and per-operator roofline for a GPU, model and parallelism");
  cmd->add_option("scenario", a.scenario, "scenario YAML (optional: flags alone work too)");
  cmd->add_option("--set", a.sets, "override a scenario key, e.g. --set model.kv_cache=fp8");
  cmd->add_option("--gpu", a.gpu, "GPU catalog name or YAML path");
  cmd->add_option("--model", a.model, "model catalog name, model YAML, config.json path or Hugging Face model folder");
  cmd->add_option("--weights", a.weights, "weight precision (fp16, bf16, fp8, int8, int4, fp4)");
  cmd->add_option("--activations", a.activations, "compute precision");
  cmd->add_option("--kv-cache", a.kv_cache, "KV cache precision (fp16, bf16, fp8, int8)");
  // Ranges as the scenario keys have (config/read_parallelism.cpp); the sample batches are
  // built one entry per sequence, so their size bounds the command's memory.
  const auto degree = CLI::Range(1, 1024);
  const auto batch = CLI::Range(std::int64_t{1}, std::int64_t{1'000'000});
  const auto tokens = CLI::Range(std::int64_t{1}, std::int64_t{100'000'000});
  cmd->add_option("--tp", a.tp, "tensor parallel size")->check(degree);
  cmd->add_option("--pp", a.pp, "pipeline parallel size")->check(degree);
  cmd->add_option("--ep", a.ep, "expert parallel size")->check(degree);
  cmd->add_option("--prefill-batch", a.prefill_batch, "sequences in the sample prefill batch")
      ->default_val(1)
      ->check(batch);
  static CLI::Option* prefill_len = nullptr;
  static CLI::Option* decode_context = nullptr;
  // Not given, the sample prompt and decode context are fitted to a shorter model context (GPT-2's
  // 1024 positions), so `inspect --model FOLDER` loads every model it can read.
  prefill_len = cmd->add_option("--prefill-len", a.prefill_len,
                                "prompt tokens per sequence (default: 1024, or the model's context)")
                    ->default_val(1024)
                    ->check(tokens);
  cmd->add_option("--decode-batch", a.decode_batch, "sequences in the sample decode batch")
      ->default_val(32)
      ->check(batch);
  decode_context = cmd->add_option("--decode-context", a.decode_context,
                                   "context tokens per decoding sequence (default: 1024, or one under the model's "
                                   "context)")
                       ->default_val(1024)
                       ->check(tokens);
  cmd->add_flag("--json", a.json, "print JSON instead of tables");
  cmd->callback([] {
    a.prefill_len_given = prefill_len->count() > 0;
    a.decode_context_given = decode_context->count() > 0;
    run_inspect(a);
  });
}

}  // namespace servesim::cli
