#pragma once
// How a quantized Hugging Face checkpoint stores its weights, from the two places
// checkpoints say so: config.json's `quantization_config` (transformers' quantizers,
// llm-compressor's compressed-tensors, AutoAWQ/AutoGPTQ, ModelOpt's `quant_method:
// modelopt`) and NVIDIA ModelOpt's `hf_quant_config.json` beside it
// ({"producer": {"name": "modelopt"}, "quantization": {"quant_algo": "FP8" | "NVFP4" |
// "W4A16_AWQ" | ..., "group_size": 16, "kv_cache_quant_algo": "FP8" | null}}).
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "model/model_spec.h"

namespace servesim {

struct CheckpointQuantization {
  DType weights = DType::bf16;     // the stored weight element type
  WeightGroups groups;             // group size and per-group scale bytes (scheme named)
};

// From config.json's quantization_config; nullopt when there is none. Throws
// servesim::Error "<path>: quantization_config: ..." for a scheme or bit width servesim
// cannot place, rather than sizing the checkpoint as 16-bit.
std::optional<CheckpointQuantization> quantization_from_config(const nlohmann::json& config, const std::string& path);

// From a ModelOpt hf_quant_config.json document; throws naming `path` and the field.
CheckpointQuantization quantization_from_modelopt(const nlohmann::json& doc, const std::string& path);

}  // namespace servesim
