// Sizes of the group scales, per scheme (bytes per group of weights):
//   AWQ (AutoAWQ's GEMM layout, github casper-hansen/AutoAWQ; vLLM awq kernels) and GPTQ
//     (AutoGPTQ's layout: qweight, qzeros packed at `bits` in int32, scales fp16 per group
//     and output column): an fp16 scale + a `bits`-bit zero point; group_size -1 = per channel.
//   compressed-tensors (github neuralmagic/compressed-tensors, QuantizationArgs: num_bits,
//     type int|float, strategy tensor|channel|group|tensor_group|block, group_size,
//     symmetric): int groups carry a 16-bit scale (+ a `num_bits` zero point when not
//     symmetric); NVFP4 (num_bits 4, type float, strategy tensor_group, group_size 16)
//     an FP8 E4M3 scale per 16 weights and one fp32 scale per tensor (NVIDIA, "Introducing
//     NVFP4 for Efficient and Accurate Low-Precision Inference", 2025: 16-value micro-blocks
//     with E4M3 scales); block strategy: one 32-bit scale per block.
//   fp8 with weight_block_size [128, 128] (transformers FineGrainedFP8, DeepSeek-V3's
//     checkpoint): one fp32 scale per 128x128 block.
//   MXFP4 (quant_method mxfp4, gpt-oss; OCP Microscaling Formats v1.0): 4-bit E2M1 values in
//     blocks of 32 sharing one 8-bit E8M0 scale; transformers' Mxfp4HfQuantizer quantizes
//     only the MoE experts (gpt-oss's model card: "MoE weights quantized to MXFP4").
//   bitsandbytes 4-bit: one fp32 absmax per 64 weights (blocksize 64), 8-bit with
//     bnb_4bit_use_double_quant (the second level's fp32 per 256 blocks is not counted).
//   ModelOpt (github NVIDIA/TensorRT-Model-Optimizer; TensorRT-LLM's QuantAlgo names):
//     NVFP4 as above; W4A16_AWQ / W4A8_AWQ symmetric int4 with an fp16 scale per group
//     (group_size, default 128); MXFP8 an 8-bit E8M0 scale per 32 (OCP Microscaling
//     Formats v1.0); FP8 per-tensor or per-channel scales (none counted); FP8_BLOCK_SCALES
//     one fp32 per 128x128 block; MIXED_PRECISION names an algorithm per module
//     (quantized_layers).
// Activations: FP8 checkpoints (fp8 with an activation_scheme, ModelOpt FP8, compressed-tensors
// with input_activations of 8-bit floats) run W8A8; NVFP4 (ModelOpt NVFP4, compressed-tensors
// with 4-bit float input_activations) runs W4A4 (TensorRT-LLM and vLLM's FP4 GEMMs on GPUs
// with FP4 tensor cores); AWQ, GPTQ, bitsandbytes, MXFP4 and the W4A16 algorithms are
// weight-only. KV cache: ModelOpt's kv_cache_quant_algo FP8, compressed-tensors'
// kv_cache_scheme {num_bits: 8, type: float}.
#include "model/hf_quantization.h"
#include "model/hf_quant_fields.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <map>

#include "util/error.h"
#include "util/text.h"

namespace servesim {

namespace {
using nlohmann::json;

std::int64_t int_field(const json& o, const char* key) { return quant_fields::integer(o, key); }

DType from_bits(std::int64_t bits, bool is_float, const std::string& where, const std::string& method) {
  if (bits == 8) return is_float ? DType::fp8 : DType::int8;
  if (bits == 4) return is_float ? DType::fp4 : DType::int4;
  if (bits == 16) return DType::bf16;
  throw Error(fmt::format("{}: {}-bit {} weights (quant_method '{}') are not modelled; servesim prices "
                          "16, 8 and 4-bit weights. Set model.weights in the scenario and describe the "
                          "model in a models/*.yaml file",
                          where, bits, is_float ? "float" : "integer", method));
}

using quant_fields::groups;

// Module name patterns from a list of strings (ignore, modules_to_not_convert, exclude_modules).
void add_skipped(const json& q, const char* key, std::vector<std::string>& out) { quant_fields::add_names(q, key, out); }

// compressed-tensors / ModelOpt quantization args {num_bits, type}: the dtype, if any.
std::optional<DType> args_dtype(const json& a) {
  if (!a.is_object()) return std::nullopt;
  const std::int64_t bits = int_field(a, "num_bits");
  if (bits != 4 && bits != 8) return std::nullopt;
  const bool is_float = a.contains("type") && a["type"].is_string() && a["type"].get<std::string>() == "float";
  return bits == 8 ? (is_float ? DType::fp8 : DType::int8) : (is_float ? DType::fp4 : DType::int4);
}

void read_kv_scheme(const json& q, CheckpointQuantization& c) {
  if (q.contains("kv_cache_scheme") && !q["kv_cache_scheme"].is_null()) {
    if (const auto kv = args_dtype(q["kv_cache_scheme"])) {
      c.has_kv_cache = true;
      c.kv_cache = *kv;
    }
  }
  if (q.contains("kv_cache_quant_algo") && q["kv_cache_quant_algo"].is_string()) {
    const std::string kv = to_lower(q["kv_cache_quant_algo"].get<std::string>());
    if (kv == "fp8") {
      c.has_kv_cache = true;
      c.kv_cache = DType::fp8;
    } else if (kv == "int8") {
      c.has_kv_cache = true;
      c.kv_cache = DType::int8;
    }
  }
}

// AWQ / GPTQ: fp16 scale + a `bits`-bit zero point per group.
CheckpointQuantization awq_gptq(const json& q, const std::string& method, const std::string& where) {
  std::int64_t bits = int_field(q, "bits");
  if (bits == 0) bits = int_field(q, "w_bit");  // AutoAWQ's name
  if (bits == 0) throw Error(fmt::format("{}: quant_method '{}' without an integer 'bits'", where, method));
  CheckpointQuantization c;
  c.weights = from_bits(bits, false, where, method);
  std::int64_t group = q.contains("group_size") ? int_field(q, "group_size") : int_field(q, "q_group_size");
  if (!q.contains("group_size") && !q.contains("q_group_size")) group = 128;  // both tools' default
  const double scale = 2.0 + static_cast<double>(bits) / 8.0;
  c.groups = groups(group > 0 ? fmt::format("{} {}-bit, groups of {} (fp16 scale + {}-bit zero point)", method, bits,
                                            group, bits)
                              : fmt::format("{} {}-bit, per-channel scales", method, bits),
                    group, scale);
  add_skipped(q, "modules_to_not_convert", c.skipped);
  return c;
}

// One compressed-tensors weights description -> dtype and groups.
CheckpointQuantization compressed_weights(const json& w, const std::string& name, const std::string& where) {
  const std::int64_t bits = int_field(w, "num_bits");
  const bool is_float = w.contains("type") && w["type"].is_string() && w["type"].get<std::string>() == "float";
  CheckpointQuantization c;
  c.weights = from_bits(bits, is_float, where, "compressed-tensors");
  const std::string strategy = w.contains("strategy") && w["strategy"].is_string() ? w["strategy"].get<std::string>() : "";
  const std::string kind = fmt::format("compressed-tensors {}-bit {}", bits, is_float ? "float" : "int");
  if (strategy == "group" || strategy == "tensor_group" || (strategy.empty() && int_field(w, "group_size") > 0)) {
    const std::int64_t size = int_field(w, "group_size");
    if (size <= 0)
      throw Error(fmt::format("{}: config_groups.{}.weights: strategy '{}' without a group_size > 0", where, name,
                              strategy));
    // NVFP4: E4M3 scale per group; MXFP4 (format mxfp4-pack-quantized, scale_dtype torch.uint8:
    // Kimi K3) an E8M0 byte per group, the same size; int groups: 16-bit scale, plus a zero
    // point when asymmetric.
    const bool symmetric = !w.contains("symmetric") || !w["symmetric"].is_boolean() || w["symmetric"].get<bool>();
    const bool e8m0 = w.contains("scale_dtype") && w["scale_dtype"].is_string() &&
                      w["scale_dtype"].get<std::string>() == "torch.uint8";
    const double scale = is_float ? 1.0 : 2.0 + (symmetric ? 0.0 : static_cast<double>(bits) / 8.0);
    c.groups = groups(fmt::format("{}, groups of {} ({})", kind, size,
                                  is_float ? (e8m0 ? "e8m0 scale" : "fp8 e4m3 scale")
                                  : symmetric ? "16-bit scale"
                                              : "16-bit scale + zero point"),
                      size, scale);
  } else if (strategy == "block" && w.contains("block_structure") && w["block_structure"].is_array() &&
             w["block_structure"].size() == 2 && w["block_structure"][0].is_number_integer() &&
             w["block_structure"][1].is_number_integer()) {
    const std::int64_t size = w["block_structure"][0].get<std::int64_t>() * w["block_structure"][1].get<std::int64_t>();
    c.groups = groups(fmt::format("{}, blocks of {} (fp32 scale)", kind, size), size, 4.0);
  } else {
    c.groups = groups(fmt::format("{}, per-{} scales", kind, strategy.empty() ? "tensor" : strategy), 0, 0);
  }
  return c;
}

// A config group's targets: the catch-all ("Linear") or named modules.
bool targets_all_linear(const json& group) {
  if (!group.contains("targets") || !group["targets"].is_array() || group["targets"].empty()) return true;
  for (const json& t : group["targets"])
    if (t.is_string() && t.get<std::string>() == "Linear") return true;
  return false;
}

// compressed-tensors and ModelOpt's config_groups: the catch-all group sets the checkpoint's
// scheme; groups that target named modules become per-module schemes.
bool read_config_groups(const json& q, const std::string& where, CheckpointQuantization& c) {
  if (!q.contains("config_groups") || !q["config_groups"].is_object()) return false;
  bool found = false;
  for (const auto& [name, group] : q["config_groups"].items()) {
    if (!group.is_object() || !group.contains("weights") || !group["weights"].is_object()) continue;
    if (int_field(group["weights"], "num_bits") <= 0) continue;
    CheckpointQuantization g = compressed_weights(group["weights"], name, where);
    const bool all = targets_all_linear(group);
    if (all || !found) {
      c.weights = g.weights;
      c.groups = g.groups;
      if (group.contains("input_activations") && !group["input_activations"].is_null()) {
        if (const auto a = args_dtype(group["input_activations"])) {
          c.has_activations = true;
          c.activations = *a;
        }
      }
    }
    if (!all) {
      for (const json& t : group["targets"])
        if (t.is_string()) {
          ModuleQuantization mq{t.get<std::string>(), g.weights, g.groups};
          if (group.contains("input_activations") && !group["input_activations"].is_null())
            if (const auto a = args_dtype(group["input_activations"])) {
              mq.has_activations = true;
              mq.activations = *a;
            }
          c.modules.push_back(mq);
        }
    }
    found = true;
  }
  return found;
}

CheckpointQuantization compressed_tensors(const json& q, const std::string& where) {
  CheckpointQuantization c;
  if (!read_config_groups(q, where, c))
    throw Error(fmt::format("{}: compressed-tensors without config_groups.*.weights.num_bits: the weight "
                            "precision is unknown",
                            where));
  read_kv_scheme(q, c);
  add_skipped(q, "ignore", c.skipped);
  return c;
}

// ModelOpt's quant_algo names (hf_quant_config.json, or quantization_config with quant_method modelopt).
CheckpointQuantization modelopt_algo(const std::string& algo_raw, const json& q, const std::string& where) {
  std::string algo = algo_raw;
  for (char& ch : algo) ch = static_cast<char>(std::toupper(static_cast<unsigned char>(ch)));
  const std::int64_t group = int_field(q, "group_size");
  CheckpointQuantization c;
  auto act = [&](DType a) {
    c.has_activations = true;
    c.activations = a;
  };
  if (algo == "FP8" || algo == "FP8_PER_CHANNEL_PER_TOKEN") {
    c.weights = DType::fp8;
    c.groups = groups("modelopt " + algo + ", per-tensor/per-channel scales", 0, 0);
    act(DType::fp8);
  } else if (algo == "FP8_BLOCK_SCALES") {
    c.weights = DType::fp8;
    c.groups = groups("modelopt FP8_BLOCK_SCALES, blocks of 16384 (fp32 scale)", 128 * 128, 4.0);
    act(DType::fp8);
  } else if (algo == "MXFP8") {
    c.weights = DType::fp8;
    c.groups = groups("modelopt MXFP8, groups of 32 (e8m0 scale)", 32, 1.0);
    act(DType::fp8);
  } else if (algo == "NVFP4" || algo == "W4A16_NVFP4" || algo == "W4A8_NVFP4_FP8") {
    c.weights = DType::fp4;
    const std::int64_t size = group > 0 ? group : 16;
    c.groups = groups(fmt::format("modelopt {}, groups of {} (fp8 e4m3 scale)", algo, size), size, 1.0);
    if (algo == "NVFP4") act(DType::fp4);
    if (algo == "W4A8_NVFP4_FP8") act(DType::fp8);
  } else if (algo == "W4A16_AWQ" || algo == "W4A8_AWQ" || algo == "W4A16" || algo == "W4A16_GPTQ") {
    c.weights = DType::int4;
    const std::int64_t size = group > 0 ? group : 128;
    c.groups = groups(fmt::format("modelopt {}, groups of {} (fp16 scale)", algo, size), size, 2.0);
    if (algo == "W4A8_AWQ") act(DType::fp8);
  } else if (algo == "W8A16" || algo == "W8A8_SQ_PER_CHANNEL" || algo == "INT8_SQ" || algo == "INT8") {
    c.weights = DType::int8;
    c.groups = groups("modelopt " + algo + ", per-channel scales", 0, 0);
    if (algo != "W8A16") act(DType::int8);
  } else {
    throw Error(fmt::format("{}: quant_algo '{}' is not modelled (known: FP8, FP8_PER_CHANNEL_PER_TOKEN, "
                            "FP8_BLOCK_SCALES, MXFP8, NVFP4, W4A16_NVFP4, W4A8_NVFP4_FP8, W4A16_AWQ, W4A8_AWQ, "
                            "W4A16, W4A16_GPTQ, W8A16, W8A8_SQ_PER_CHANNEL, INT8_SQ, MIXED_PRECISION). Describe the "
                            "model in a models/*.yaml file with its native_dtype",
                            where, algo_raw));
  }
  return c;
}

// ModelOpt's MIXED_PRECISION: each quantized module names its own algorithm (quantized_layers),
// or config_groups target the modules. The scheme of the most listed modules stands for the
// checkpoint (apply_checkpoint_quantization weighs the groups by their weights).
CheckpointQuantization modelopt_mixed(const json& q, const std::string& where) {
  CheckpointQuantization c;
  if (q.contains("quantized_layers") && q["quantized_layers"].is_object()) {
    std::map<std::string, int> counts;
    std::map<std::string, CheckpointQuantization> schemes;
    for (const auto& [module, spec] : q["quantized_layers"].items()) {
      if (!spec.is_object() || !spec.contains("quant_algo") || !spec["quant_algo"].is_string()) continue;
      const std::string algo = spec["quant_algo"].get<std::string>();
      CheckpointQuantization m = modelopt_algo(algo, spec, where + ".quantized_layers." + module);
      c.modules.push_back({module, m.weights, m.groups, m.has_activations, m.activations});
      ++counts[algo];
      schemes.emplace(algo, std::move(m));
    }
    if (!counts.empty()) {
      const auto most = std::max_element(counts.begin(), counts.end(),
                                         [](const auto& a, const auto& b) { return a.second < b.second; });
      const CheckpointQuantization& m = schemes.at(most->first);
      c.weights = m.weights;
      c.groups = m.groups;
      c.has_activations = m.has_activations;
      c.activations = m.activations;
    }
  } else {
    read_config_groups(q, where, c);
  }
  if (c.modules.empty())
    throw Error(fmt::format("{}: quant_algo MIXED_PRECISION without quantized_layers or module-targeted "
                            "config_groups: the weight precision of each layer is unknown",
                            where));
  return c;
}

CheckpointQuantization modelopt(const json& q, const std::string& algo, const std::string& where) {
  CheckpointQuantization c = to_lower(algo) == "mixed_precision" ? modelopt_mixed(q, where) : modelopt_algo(algo, q, where);
  // A quantization_config written by ModelOpt may carry the compressed-tensors style groups
  // too (input_activations say W4A4); the algorithm decides the weights either way.
  read_kv_scheme(q, c);
  add_skipped(q, "exclude_modules", c.skipped);
  add_skipped(q, "ignore", c.skipped);
  return c;
}
}  // namespace

bool quantization_config_names_method(const json& j) {
  if (!j.contains("quantization_config") || !j["quantization_config"].is_object()) return false;
  const json& q = j["quantization_config"];
  return q.contains("quant_method") && q["quant_method"].is_string() && !q["quant_method"].get<std::string>().empty();
}

std::optional<CheckpointQuantization> quantization_from_config(const json& j, const std::string& path) {
  if (!j.contains("quantization_config") || j["quantization_config"].is_null()) return std::nullopt;
  const json& q = j["quantization_config"];
  const std::string where = path + ": quantization_config";
  if (!q.is_object()) throw Error(fmt::format("{}: expected an object, got {}", where, excerpt(q.dump())));
  const std::string method =
      q.contains("quant_method") && q["quant_method"].is_string() ? to_lower(q["quant_method"].get<std::string>()) : "";
  auto named = [&](CheckpointQuantization c) {
    c.source = fmt::format("config.json quantization_config (quant_method {})", method);
    return c;
  };
  if (method == "fp8" || method == "fbgemm_fp8") {
    CheckpointQuantization c;
    c.weights = DType::fp8;
    const json* block = q.contains("weight_block_size") ? &q["weight_block_size"] : nullptr;
    if (block && block->is_array() && block->size() == 2 && (*block)[0].is_number_integer() &&
        (*block)[1].is_number_integer()) {
      const std::int64_t size = (*block)[0].get<std::int64_t>() * (*block)[1].get<std::int64_t>();
      c.groups = groups(fmt::format("{}, blocks of {} (fp32 scale)", method, size), size, 4.0);
    } else {
      c.groups = groups(method + ", per-tensor/per-channel scales", 0, 0);
    }
    // DeepSeek-V3's and transformers' FineGrainedFP8 quantize activations per token group on
    // the fly (activation_scheme dynamic): W8A8. fbgemm_fp8 is W8A8 too (dynamic per-row).
    c.has_activations = true;
    c.activations = DType::fp8;
    add_skipped(q, "modules_to_not_convert", c.skipped);
    return named(c);
  }
  if (method == "mxfp4") {
    CheckpointQuantization c;
    c.weights = DType::fp4;
    c.groups = groups("mxfp4, blocks of 32 (e8m0 scale)", 32, 1.0);
    c.experts_only = true;
    add_skipped(q, "modules_to_not_convert", c.skipped);
    return named(c);
  }
  if (method == "awq" || method == "gptq" || method == "awq_marlin" || method == "gptq_marlin" || method == "marlin")
    return named(awq_gptq(q, method, where));
  if (method == "bitsandbytes") {
    CheckpointQuantization c;
    add_skipped(q, "llm_int8_skip_modules", c.skipped);
    if (q.value("load_in_4bit", false)) {
      c.weights = DType::int4;
      const bool dq = q.contains("bnb_4bit_use_double_quant") && q["bnb_4bit_use_double_quant"].is_boolean() &&
                      q["bnb_4bit_use_double_quant"].get<bool>();
      c.groups = groups(dq ? "bitsandbytes 4-bit, blocks of 64 (8-bit absmax, double quantized)"
                           : "bitsandbytes 4-bit, blocks of 64 (fp32 absmax)",
                        64, dq ? 1.0 : 4.0);
      return named(c);
    }
    if (q.value("load_in_8bit", false)) {
      c.weights = DType::int8;
      c.groups = groups("bitsandbytes 8-bit, per-row scales", 0, 0);
      return named(c);
    }
    throw Error(fmt::format("{}: bitsandbytes without load_in_4bit or load_in_8bit", where));
  }
  if (method == "compressed-tensors") return named(compressed_tensors(q, where));
  if (method == "modelopt") {
    const json* algo = q.contains("quant_algo") ? &q["quant_algo"] : nullptr;
    if (!algo && q.contains("quantization") && q["quantization"].is_object() && q["quantization"].contains("quant_algo"))
      return named(modelopt(q["quantization"],
                            q["quantization"]["quant_algo"].is_string() ? q["quantization"]["quant_algo"].get<std::string>() : "",
                            where));
    if (!algo || !algo->is_string()) throw Error(fmt::format("{}: quant_method 'modelopt' without a quant_algo", where));
    return named(modelopt(q, algo->get<std::string>(), where));
  }
  if (auto c = more_quantization_methods(method, q, where)) return named(std::move(*c));
  throw Error(fmt::format("{}: quant_method '{}' is not understood, so the weight precision is unknown (known: "
                          "fp8, fbgemm_fp8, mxfp4, awq, gptq, bitsandbytes, compressed-tensors, modelopt, quark, "
                          "auto-round, hqq, torchao, quanto, eetq, fp_quant). Describe "
                          "the model in a models/*.yaml file with its native_dtype",
                          where, method.empty() ? "(missing)" : method));
}

CheckpointQuantization quantization_from_modelopt(const json& doc, const std::string& path) {
  if (!doc.is_object() || !doc.contains("quantization") || !doc["quantization"].is_object())
    throw Error(fmt::format("{}: expected an object with a 'quantization' object (a ModelOpt hf_quant_config.json)",
                            path));
  const json& q = doc["quantization"];
  if (!q.contains("quant_algo") || !q["quant_algo"].is_string())
    throw Error(fmt::format("{}: quantization.quant_algo must be a string, got {}", path,
                            q.contains("quant_algo") ? excerpt(q["quant_algo"].dump()) : std::string("nothing")));
  CheckpointQuantization c = modelopt(q, q["quant_algo"].get<std::string>(), path + ": quantization");
  c.source = fmt::format("hf_quant_config.json (quant_algo {})", q["quant_algo"].get<std::string>());
  return c;
}

}  // namespace servesim
