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
//   bitsandbytes 4-bit: one fp32 absmax per 64 weights (blocksize 64), 8-bit with
//     bnb_4bit_use_double_quant (the second level's fp32 per 256 blocks is not counted).
//   ModelOpt (github NVIDIA/TensorRT-Model-Optimizer; TensorRT-LLM's QuantAlgo names):
//     NVFP4 as above; W4A16_AWQ / W4A8_AWQ symmetric int4 with an fp16 scale per group
//     (group_size, default 128); MXFP8 an 8-bit E8M0 scale per 32 (OCP Microscaling
//     Formats v1.0); FP8 per-tensor or per-channel scales (none counted); FP8_BLOCK_SCALES
//     one fp32 per 128x128 block.
#include "model/hf_quantization.h"

#include <fmt/format.h>

#include <cctype>

#include "util/error.h"
#include "util/text.h"

namespace servesim {

namespace {
using nlohmann::json;

std::int64_t int_field(const json& o, const char* key) {
  if (!o.is_object() || !o.contains(key) || !o[key].is_number_integer()) return 0;
  return o[key].get<std::int64_t>();
}

DType from_bits(std::int64_t bits, bool is_float, const std::string& where, const std::string& method) {
  if (bits == 8) return is_float ? DType::fp8 : DType::int8;
  if (bits == 4) return is_float ? DType::fp4 : DType::int4;
  if (bits == 16) return DType::bf16;
  throw Error(fmt::format("{}: {}-bit {} weights (quant_method '{}') are not modelled; servesim prices "
                          "16, 8 and 4-bit weights. Set model.weights in the scenario and describe the "
                          "model in a models/*.yaml file",
                          where, bits, is_float ? "float" : "integer", method));
}

WeightGroups groups(const std::string& scheme, std::int64_t size, double scale_bytes) {
  WeightGroups g;
  g.scheme = scheme;
  if (size > 0) {
    g.size = static_cast<int>(size);
    g.scale_bytes = scale_bytes;
  }
  return g;
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
  return c;
}

CheckpointQuantization compressed_tensors(const json& q, const std::string& where) {
  // {"config_groups": {"group_0": {"weights": {"num_bits": 8, "type": "float", "strategy": ..., "group_size": ...}}}}
  if (q.contains("config_groups") && q["config_groups"].is_object()) {
    for (const auto& [name, group] : q["config_groups"].items()) {
      if (!group.is_object() || !group.contains("weights") || !group["weights"].is_object()) continue;
      const json& w = group["weights"];
      const std::int64_t bits = int_field(w, "num_bits");
      if (bits <= 0) continue;
      const bool is_float = w.contains("type") && w["type"].is_string() && w["type"].get<std::string>() == "float";
      CheckpointQuantization c;
      c.weights = from_bits(bits, is_float, where, "compressed-tensors");
      const std::string strategy = w.contains("strategy") && w["strategy"].is_string()
                                       ? w["strategy"].get<std::string>()
                                       : "";
      const std::string kind = fmt::format("compressed-tensors {}-bit {}", bits, is_float ? "float" : "int");
      if (strategy == "group" || strategy == "tensor_group") {
        const std::int64_t size = int_field(w, "group_size");
        if (size <= 0)
          throw Error(fmt::format("{}: config_groups.{}.weights: strategy '{}' without a group_size > 0", where,
                                  name, strategy));
        // NVFP4: E4M3 scale per group; int groups: 16-bit scale, plus a zero point when asymmetric.
        const bool symmetric = !w.contains("symmetric") || !w["symmetric"].is_boolean() || w["symmetric"].get<bool>();
        const double scale = is_float ? 1.0 : 2.0 + (symmetric ? 0.0 : static_cast<double>(bits) / 8.0);
        c.groups = groups(fmt::format("{}, groups of {} ({})", kind, size,
                                      is_float ? "fp8 e4m3 scale" : symmetric ? "16-bit scale" : "16-bit scale + zero point"),
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
  }
  throw Error(fmt::format("{}: compressed-tensors without config_groups.*.weights.num_bits: the weight "
                          "precision is unknown",
                          where));
}

// ModelOpt's quant_algo names (hf_quant_config.json, or quantization_config with quant_method modelopt).
CheckpointQuantization modelopt_algo(const std::string& algo_raw, const json& q, const std::string& where) {
  std::string algo = algo_raw;
  for (char& ch : algo) ch = static_cast<char>(std::toupper(static_cast<unsigned char>(ch)));
  const std::int64_t group = int_field(q, "group_size");
  CheckpointQuantization c;
  if (algo == "FP8" || algo == "FP8_PER_CHANNEL_PER_TOKEN") {
    c.weights = DType::fp8;
    c.groups = groups("modelopt " + algo + ", per-tensor/per-channel scales", 0, 0);
  } else if (algo == "FP8_BLOCK_SCALES") {
    c.weights = DType::fp8;
    c.groups = groups("modelopt FP8_BLOCK_SCALES, blocks of 16384 (fp32 scale)", 128 * 128, 4.0);
  } else if (algo == "MXFP8") {
    c.weights = DType::fp8;
    c.groups = groups("modelopt MXFP8, groups of 32 (e8m0 scale)", 32, 1.0);
  } else if (algo == "NVFP4" || algo == "W4A16_NVFP4" || algo == "W4A8_NVFP4_FP8") {
    c.weights = DType::fp4;
    const std::int64_t size = group > 0 ? group : 16;
    c.groups = groups(fmt::format("modelopt {}, groups of {} (fp8 e4m3 scale)", algo, size), size, 1.0);
  } else if (algo == "W4A16_AWQ" || algo == "W4A8_AWQ" || algo == "W4A16" || algo == "W4A16_GPTQ") {
    c.weights = DType::int4;
    const std::int64_t size = group > 0 ? group : 128;
    c.groups = groups(fmt::format("modelopt {}, groups of {} (fp16 scale)", algo, size), size, 2.0);
  } else if (algo == "W8A16" || algo == "W8A8_SQ_PER_CHANNEL" || algo == "INT8_SQ" || algo == "INT8") {
    c.weights = DType::int8;
    c.groups = groups("modelopt " + algo + ", per-channel scales", 0, 0);
  } else {
    throw Error(fmt::format("{}: quant_algo '{}' is not modelled (known: FP8, FP8_PER_CHANNEL_PER_TOKEN, "
                            "FP8_BLOCK_SCALES, MXFP8, NVFP4, W4A16_NVFP4, W4A8_NVFP4_FP8, W4A16_AWQ, W4A8_AWQ, "
                            "W4A16, W4A16_GPTQ, W8A16, W8A8_SQ_PER_CHANNEL, INT8_SQ; MIXED_PRECISION varies by "
                            "layer). Describe the model in a models/*.yaml file with its native_dtype",
                            where, algo_raw));
  }
  return c;
}
}  // namespace

std::optional<CheckpointQuantization> quantization_from_config(const json& j, const std::string& path) {
  if (!j.contains("quantization_config") || j["quantization_config"].is_null()) return std::nullopt;
  const json& q = j["quantization_config"];
  const std::string where = path + ": quantization_config";
  if (!q.is_object()) throw Error(fmt::format("{}: expected an object, got {}", where, excerpt(q.dump())));
  const std::string method =
      q.contains("quant_method") && q["quant_method"].is_string() ? to_lower(q["quant_method"].get<std::string>()) : "";
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
    return c;
  }
  if (method == "awq" || method == "gptq" || method == "awq_marlin" || method == "gptq_marlin" || method == "marlin")
    return awq_gptq(q, method, where);
  if (method == "bitsandbytes") {
    CheckpointQuantization c;
    if (q.value("load_in_4bit", false)) {
      c.weights = DType::int4;
      const bool dq = q.contains("bnb_4bit_use_double_quant") && q["bnb_4bit_use_double_quant"].is_boolean() &&
                      q["bnb_4bit_use_double_quant"].get<bool>();
      c.groups = groups(dq ? "bitsandbytes 4-bit, blocks of 64 (8-bit absmax, double quantized)"
                           : "bitsandbytes 4-bit, blocks of 64 (fp32 absmax)",
                        64, dq ? 1.0 : 4.0);
      return c;
    }
    if (q.value("load_in_8bit", false)) {
      c.weights = DType::int8;
      c.groups = groups("bitsandbytes 8-bit, per-row scales", 0, 0);
      return c;
    }
    throw Error(fmt::format("{}: bitsandbytes without load_in_4bit or load_in_8bit", where));
  }
  if (method == "compressed-tensors") return compressed_tensors(q, where);
  if (method == "modelopt") {
    const json* algo = q.contains("quant_algo") ? &q["quant_algo"] : nullptr;
    if (!algo && q.contains("quantization") && q["quantization"].is_object() && q["quantization"].contains("quant_algo"))
      return modelopt_algo(q["quantization"]["quant_algo"].is_string() ? q["quantization"]["quant_algo"].get<std::string>() : "",
                           q["quantization"], where);
    if (!algo || !algo->is_string()) throw Error(fmt::format("{}: quant_method 'modelopt' without a quant_algo", where));
    return modelopt_algo(algo->get<std::string>(), q, where);
  }
  throw Error(fmt::format("{}: quant_method '{}' is not understood, so the weight precision is unknown (known: "
                          "fp8, fbgemm_fp8, awq, gptq, bitsandbytes, compressed-tensors, modelopt). Describe the "
                          "model in a models/*.yaml file with its native_dtype",
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
  return modelopt_algo(q["quant_algo"].get<std::string>(), q, path + ": quantization");
}

}  // namespace servesim
