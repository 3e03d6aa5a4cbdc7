#pragma once
// How a quantized Hugging Face checkpoint stores its weights, from the two places
// checkpoints say so: config.json's `quantization_config` (transformers' quantizers,
// llm-compressor's compressed-tensors, AutoAWQ/AutoGPTQ, ModelOpt's `quant_method:
// modelopt`) and NVIDIA ModelOpt's `hf_quant_config.json` beside it
// ({"producer": {"name": "modelopt"}, "quantization": {"quant_algo": "FP8" | "NVFP4" |
// "W4A16_AWQ" | ..., "group_size": 16, "kv_cache_quant_algo": "FP8" | null}}).
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "model/model_spec.h"

namespace servesim {

// One module's own scheme (ModelOpt MIXED_PRECISION's quantized_layers, a compressed-tensors
// config group that targets named modules).
struct ModuleQuantization {
  std::string module;              // "model.layers.0.mlp.down_proj"
  DType weights = DType::bf16;
  WeightGroups groups;
  bool has_activations = false;    // W8A8 / W4A4 module schemes
  DType activations = DType::bf16;
};

struct CheckpointQuantization {
  DType weights = DType::bf16;     // the stored weight element type
  WeightGroups groups;             // group size and per-group scale bytes (scheme named)
  // W8A8 / W4A4 schemes name the activations their GEMMs compute in; weight-only schemes
  // (AWQ, GPTQ, MXFP4, W4A16) leave them unset.
  bool has_activations = false;
  DType activations = DType::bf16;
  bool has_kv_cache = false;       // kv_cache_quant_algo / kv_cache_scheme
  DType kv_cache = DType::bf16;
  bool experts_only = false;       // MXFP4 (transformers' Mxfp4HfQuantizer): only the MoE experts are quantized
  std::vector<std::string> skipped;         // modules left unquantized (ignore, modules_to_not_convert, exclude_modules)
  std::vector<ModuleQuantization> modules;  // per-module schemes, when they vary
  std::string source;                       // "quantization_config (quant_method fp8)"
};

// From config.json's quantization_config; nullopt when there is none. Throws
// servesim::Error "<path>: quantization_config: ..." for a scheme or bit width servesim
// cannot place, rather than sizing the checkpoint as 16-bit.
std::optional<CheckpointQuantization> quantization_from_config(const nlohmann::json& config, const std::string& path);

// Whether config.json's quantization_config names its scheme (quant_method); one without
// (or without the object) leaves the scheme to hf_quant_config.json beside it.
bool quantization_config_names_method(const nlohmann::json& config);

// hf_quant_methods.cpp: AMD Quark, Intel AutoRound, HQQ, torchao, optimum-quanto, EETQ and
// FP-Quant configs (and a refusal of the sub-4-bit ones); nullopt when `method` (lower case) is
// none of them.
std::optional<CheckpointQuantization> more_quantization_methods(const std::string& method, const nlohmann::json& q,
                                                                const std::string& where);

// The tensor group a module name or pattern belongs to ("model.layers.3.self_attn.q_proj",
// "*.mlp.experts.*"); nullopt for the router, norms, embeddings, the head (hf_quant_groups.cpp).
std::optional<TensorGroup> tensor_group_of_module(const std::string& name);

// From a ModelOpt hf_quant_config.json document; throws naming `path` and the field.
CheckpointQuantization quantization_from_modelopt(const nlohmann::json& doc, const std::string& path);

// What the checkpoint's scheme means for each tensor group of `m` (whose shapes are read):
// which groups, or which share of their layers, it leaves unquantized or stores otherwise.
// Sets m.native_dtype, m.weight_groups and m.checkpoint.
void apply_checkpoint_quantization(const CheckpointQuantization& q, ModelSpec& m);

}  // namespace servesim
