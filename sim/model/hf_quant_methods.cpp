// The quantizers whose config.json `quantization_config` hf_quantization.cpp does not read
// itself, each read from the fields its own exporter writes and vLLM's loader reads:
//
//   AMD Quark (quant_method "quark"; vllm/model_executor/layers/quantization/quark/quark.py,
//     QuarkConfig.from_config and its _is_* scheme tests): global_quant_config.{weight,
//     input_tensors} (a dict, or for NVFP4 a list [fp4 per_group 16, fp8_e4m3 per_tensor]),
//     layer_quant_config {"glob": spec}, exclude [globs], and the KV cache as the
//     output_tensors of the layers export.kv_cache_group names (["*k_proj", "*v_proj"]).
//     dtypes: fp8_e4m3 / fp8_e5m2, int8 / uint8, int4 / uint4, fp4 (OCP MXFP4 with
//     group_size 32 and scale_format e8m0; NVFP4 with group_size 16 and an fp8 scale).
//   Intel AutoRound (quant_method "auto-round" or "intel/auto-round"; vLLM auto_round.py:
//     bits, group_size, sym, packing_format auto_round:auto_gptq|auto_awq, data_type "int";
//     AutoRound's own export also writes data_type "mx_fp" / "nv_fp" / "fp" with act_bits for
//     MXFP4, NVFP4 and FP8 (github intel/auto-round, docs "Supported export formats")).
//   HQQ (transformers HqqConfig.to_dict: quant_config.weight_quant_params {nbits, group_size},
//     skip_modules; scale and zero kept in the 16-bit compute dtype: 4 bytes a group).
//   torchao (transformers TorchAoConfig: quant_type {"default": {"_type": "<Name>Config",
//     "_data": {...}}} or the older quant_type string + quant_type_kwargs).
//   optimum-quanto (transformers QuantoConfig: weights int8|int4|float8, activations
//     none|int8|float8; qint4 in groups of 128 with a 16-bit scale and shift).
//   EETQ (transformers EetqConfig: weights int8, per-channel, weight-only).
//   FP-Quant (transformers FPQuantConfig: forward_dtype mxfp4|nvfp4, weights and activations
//     in that format: W4A4).
// Codebook and ternary schemes (AQLM, VPTQ, HIGGS, SpQR, BitNet) store fewer than 4 bits a
// weight, which servesim does not price: refused by name.
#include <fmt/format.h>

#include <array>
#include <optional>
#include <string_view>
#include <string>

#include "model/hf_quantization.h"
#include "model/hf_quant_fields.h"
#include "util/error.h"
#include "util/text.h"

namespace servesim {
namespace {
using nlohmann::json;

std::string str(const json& o, const char* key) {
  if (!o.is_object() || !o.contains(key) || !o[key].is_string()) return "";
  return o[key].get<std::string>();
}

using quant_fields::add_names;
using quant_fields::groups;
using quant_fields::integer;

[[noreturn]] void below_four_bits(const std::string& where, const std::string& what) {
  throw Error(fmt::format("{}: {} is not modelled: servesim prices 16, 8 and 4-bit weights. Set model.weights "
                          "in the scenario and describe the model in a models/*.yaml file",
                          where, what));
}

// ---- AMD Quark ----------------------------------------------------------------------------

struct QuarkTensor {
  DType dtype = DType::bf16;
  bool quantized = false;
};

// A Quark dtype name -> servesim's; throws for one servesim cannot price.
QuarkTensor quark_dtype(const std::string& raw, const std::string& where) {
  const std::string d = to_lower(raw);
  if (d.empty() || d == "bfloat16" || d == "bf16" || d == "float16" || d == "fp16" || d == "float32") return {};
  if (d.rfind("fp8", 0) == 0 || d == "mxfp8") return {DType::fp8, true};
  if (d == "int8" || d == "uint8") return {DType::int8, true};
  if (d == "int4" || d == "uint4") return {DType::int4, true};
  if (d == "fp4" || d == "fp4_e2m1" || d == "mxfp4" || d == "fp4x2") return {DType::fp4, true};
  if (d.rfind("fp6", 0) == 0 || d == "mx6" || d.rfind("mxfp6", 0) == 0)
    throw Error(fmt::format("{}: dtype '{}' (6-bit floats, OCP MXFP6) is not modelled: servesim prices 16, 8 "
                            "and 4-bit tensors. Set model.weights / model.activations in the scenario",
                            where, raw));
  if (d == "int2" || d == "uint2" || d == "int3" || d == "uint3") below_four_bits(where, fmt::format("dtype '{}'", raw));
  throw Error(fmt::format("{}: Quark dtype '{}' is not understood (known: fp8_e4m3, fp8_e5m2, int8, uint8, int4, "
                          "uint4, fp4, bfloat16)",
                          where, raw));
}

// The first element of a spec that is a list (NVFP4's [fp4 per group, fp8 per tensor]).
const json& quark_main(const json& spec) { return spec.is_array() && !spec.empty() ? spec[0] : spec; }

double quark_scale_bytes(const json& spec, DType dtype) {
  const std::string fmt_ = to_lower(str(spec, "scale_format"));
  if (fmt_ == "e8m0") return 1.0;
  if (fmt_.rfind("fp8", 0) == 0 || fmt_ == "e4m3") return 1.0;
  if (fmt_ == "float32" || fmt_ == "fp32") return 4.0;
  if (dtype == DType::fp4) return 1.0;  // MXFP4 (e8m0) or NVFP4 (e4m3): one byte either way
  return 2.0;                           // a 16-bit float scale (scale_type float)
}

// A weight spec -> dtype and groups; `name` for the scheme's description.
CheckpointQuantization quark_weights(const json& raw, const std::string& where) {
  const json& w = quark_main(raw);
  CheckpointQuantization c;
  const QuarkTensor t = quark_dtype(str(w, "dtype"), where + ".dtype");
  c.weights = t.dtype;
  if (!t.quantized) return c;
  const std::string scheme = str(w, "qscheme");
  const std::string dname = str(w, "dtype");
  if (scheme == "per_group") {
    const std::int64_t size = integer(w, "group_size");
    if (size <= 0) throw Error(fmt::format("{}: qscheme per_group without a group_size > 0", where));
    // Integer groups: a 16-bit scale, plus a zero point of the same width when asymmetric
    // (uint4/uint8, or symmetric false), packed as AWQ packs them.
    const bool is_int = t.dtype == DType::int4 || t.dtype == DType::int8;
    const bool asymmetric = is_int && (to_lower(dname).rfind("uint", 0) == 0 ||
                                       (w.contains("symmetric") && w["symmetric"].is_boolean() && !w["symmetric"].get<bool>()));
    const double bits = t.dtype == DType::int4 ? 4.0 : 8.0;
    const double scale = quark_scale_bytes(w, t.dtype) + (asymmetric ? bits / 8.0 : 0.0);
    c.groups = groups(fmt::format("quark {}, groups of {} ({:g}-byte scale{})", dname, size,
                                  quark_scale_bytes(w, t.dtype), asymmetric ? " + zero point" : ""),
                      size, scale);
  } else {
    c.groups = groups(fmt::format("quark {}, {} scales", dname, scheme.empty() ? "per-tensor" : scheme), 0, 0);
  }
  return c;
}

// input_tensors -> the activations the GEMMs compute in (null: weight-only).
void quark_activations(const json& raw, const std::string& where, bool& has, DType& dtype) {
  if (raw.is_null()) return;
  const json& a = quark_main(raw);
  if (!a.is_object()) return;
  const QuarkTensor t = quark_dtype(str(a, "dtype"), where + ".dtype");
  if (!t.quantized) return;
  has = true;
  dtype = t.dtype;
}

// fnmatch-style match of a Quark glob ("*k_proj", "*.mlp.experts.*": '*' any run, '?' one
// character) against a name. The classic two-pointer walk that backs up only to the last
// '*': O(pattern x name) at worst, where a regex built from a stranger's pattern could
// backtrack exponentially ("*a*a*a*a*b" against "aaaa...").
bool glob_match(std::string_view pattern, std::string_view name) {
  std::size_t p = 0, n = 0, star = std::string_view::npos, resume = 0;
  while (n < name.size()) {
    if (p < pattern.size() && (pattern[p] == '?' || pattern[p] == name[n])) {
      ++p;
      ++n;
    } else if (p < pattern.size() && pattern[p] == '*') {
      star = p++;
      resume = n;
    } else if (star != std::string_view::npos) {
      p = star + 1;
      n = ++resume;
    } else {
      return false;
    }
  }
  while (p < pattern.size() && pattern[p] == '*') ++p;
  return p == pattern.size();
}

CheckpointQuantization quark(const json& q, const std::string& where) {
  CheckpointQuantization c;
  const json empty = json::object();
  const json& global = q.contains("global_quant_config") && q["global_quant_config"].is_object()
                           ? q["global_quant_config"]
                           : empty;
  const bool global_weights = global.contains("weight") && !global["weight"].is_null();
  if (global_weights) {
    c = quark_weights(global["weight"], where + ".global_quant_config.weight");
    if (global.contains("input_tensors"))
      quark_activations(global["input_tensors"], where + ".global_quant_config.input_tensors", c.has_activations,
                        c.activations);
  }
  add_names(q, "exclude", c.skipped);

  // KV cache: the output_tensors of the layers kv_cache_group names (vLLM QuarkConfig.from_config),
  // or a kv_cache_quant_config of newer exports.
  const json& layers = q.contains("layer_quant_config") && q["layer_quant_config"].is_object() ? q["layer_quant_config"] : empty;
  std::vector<std::string> kv_group;
  if (q.contains("export") && q["export"].is_object()) add_names(q["export"], "kv_cache_group", kv_group);
  // Each pattern is matched against each layer entry: bound the pairs (real exports list two
  // patterns and a few dozen entries) so a stranger's file cannot make the match a hang.
  constexpr std::size_t kMaxGlobPairs = 1'000'000;
  if (!kv_group.empty() && layers.size() > kMaxGlobPairs / kv_group.size())
    throw Error(fmt::format("{}: export.kv_cache_group ({} patterns) against layer_quant_config ({} entries) is more "
                            "than {} matches to try; a Quark export lists a few",
                            where, kv_group.size(), layers.size(), kMaxGlobPairs));
  auto read_kv = [&](const json& out, const std::string& at) {
    if (!out.is_object() || c.has_kv_cache) return;
    const QuarkTensor t = quark_dtype(str(out, "dtype"), at + ".dtype");
    if (!t.quantized) return;
    c.has_kv_cache = true;
    c.kv_cache = t.dtype;
  };
  for (const auto& [name, spec] : layers.items())
    for (const std::string& pattern : kv_group)
      if (glob_match(pattern, name) && spec.is_object() && spec.contains("output_tensors"))
        read_kv(spec["output_tensors"], where + ".layer_quant_config." + name + ".output_tensors");
  if (q.contains("kv_cache_quant_config") && q["kv_cache_quant_config"].is_object())
    for (const auto& [name, spec] : q["kv_cache_quant_config"].items())
      read_kv(spec.is_object() && spec.contains("output_tensors") ? spec["output_tensors"] : spec,
              where + ".kv_cache_quant_config." + name);

  // Layers whose weights differ from the global scheme (MXFP4 experts beside FP8 attention):
  // per-module schemes, the global one standing for the tensor groups they leave.
  std::vector<ModuleQuantization> overrides;
  for (const auto& [name, spec] : layers.items()) {
    if (!spec.is_object() || !spec.contains("weight") || spec["weight"].is_null()) continue;
    const std::string at = where + ".layer_quant_config." + name;
    const CheckpointQuantization w = quark_weights(spec["weight"], at + ".weight");
    if (global_weights && w.weights == c.weights && w.groups.size == c.groups.size &&
        w.groups.scale_bytes == c.groups.scale_bytes)
      continue;  // the KV layers' entries repeat the global weights
    ModuleQuantization mq{name, w.weights, w.groups};
    if (spec.contains("input_tensors")) quark_activations(spec["input_tensors"], at + ".input_tensors", mq.has_activations, mq.activations);
    overrides.push_back(mq);
  }
  if (!overrides.empty()) {
    std::array<bool, kTensorGroups> covered{};
    for (const ModuleQuantization& mq : overrides)
      if (const auto g = tensor_group_of_module(mq.module)) covered[static_cast<int>(*g)] = true;
    c.modules = overrides;
    if (global_weights) {
      // A module of each other group at the global scheme, unless the whole group is excluded.
      static const std::array<std::pair<TensorGroup, const char*>, kTensorGroups> stand_ins = {
          {{TensorGroup::attention, "self_attn"},
           {TensorGroup::dense_mlp, "mlp.down_proj"},
           {TensorGroup::experts, "experts"},
           {TensorGroup::shared_experts, "shared_expert"},
           {TensorGroup::state_layers, "linear_attn"}}};
      for (const auto& [g, name] : stand_ins) {
        if (covered[static_cast<int>(g)]) continue;
        bool excluded = false;
        for (const std::string& x : c.skipped)
          if (tensor_group_of_module(x) == g && x.find("layers.") == std::string::npos) excluded = true;
        if (!excluded) c.modules.push_back({name, c.weights, c.groups, c.has_activations, c.activations});
      }
    }
  } else if (!global_weights) {
    throw Error(fmt::format("{}: Quark config without global_quant_config.weight or a layer_quant_config with "
                            "weights: the weight precision is unknown",
                            where));
  }
  return c;
}

// ---- Intel AutoRound ----------------------------------------------------------------------

CheckpointQuantization auto_round(const json& q, const std::string& where) {
  std::int64_t bits = integer(q, "bits");
  if (bits == 0) bits = integer(q, "weight_bits");
  if (bits == 0) throw Error(fmt::format("{}: auto-round without an integer 'bits'", where));
  const std::string type = to_lower(str(q, "data_type").empty() ? "int" : str(q, "data_type"));
  const std::int64_t act_bits = integer(q, "act_bits", 16);
  std::int64_t group = q.contains("group_size") ? integer(q, "group_size", -1) : 128;
  CheckpointQuantization c;
  auto act = [&](DType a) {
    if (act_bits >= 16) return;
    c.has_activations = true;
    c.activations = a;
  };
  if (type == "mx_fp" || type == "mxfp" || type == "nv_fp" || type == "nvfp" || type == "fp") {
    const bool nv = type.rfind("nv", 0) == 0;
    if (bits == 4) {
      c.weights = DType::fp4;
      if (group <= 0) group = nv ? 16 : 32;
      c.groups = groups(fmt::format("auto-round {} 4-bit, groups of {} ({} scale)", nv ? "NVFP4" : "MXFP4", group,
                                    nv ? "fp8 e4m3" : "e8m0"),
                        group, 1.0);
      act(act_bits == 4 ? DType::fp4 : DType::fp8);
    } else if (bits == 8) {
      c.weights = DType::fp8;
      c.groups = type == "fp" ? groups("auto-round fp8, per-channel scales", 0, 0)
                              : groups(fmt::format("auto-round MXFP8, groups of {} (e8m0 scale)", group > 0 ? group : 32),
                                       group > 0 ? group : 32, 1.0);
      act(DType::fp8);
    } else {
      below_four_bits(where, fmt::format("auto-round {}-bit {}", bits, type));
    }
  } else if (type == "int") {
    if (bits != 4 && bits != 8) below_four_bits(where, fmt::format("auto-round {}-bit integer weights", bits));
    c.weights = bits == 4 ? DType::int4 : DType::int8;
    const bool sym = !q.contains("sym") || !q["sym"].is_boolean() || q["sym"].get<bool>();
    // GPTQ/AWQ packing: an fp16 scale per group (+ a `bits`-bit zero point when asymmetric).
    const double scale = 2.0 + (sym ? 0.0 : static_cast<double>(bits) / 8.0);
    c.groups = group > 0 ? groups(fmt::format("auto-round {}-bit int, groups of {} (fp16 scale{})", bits, group,
                                              sym ? "" : " + zero point"),
                                  group, scale)
                         : groups(fmt::format("auto-round {}-bit int, per-channel scales", bits), 0, 0);
    if (act_bits == 8) act(DType::int8);
  } else {
    throw Error(fmt::format("{}: auto-round data_type '{}' is not understood (known: int, fp, mx_fp, nv_fp)", where,
                            str(q, "data_type")));
  }
  // Modules left at 16 bits: extra_config entries with bits >= 16.
  if (q.contains("extra_config") && q["extra_config"].is_object())
    for (const auto& [name, spec] : q["extra_config"].items())
      if (integer(spec, "bits", 0) >= 16) c.skipped.push_back(name);
  return c;
}

// ---- HQQ, optimum-quanto, EETQ, FP-Quant --------------------------------------------------

CheckpointQuantization hqq(const json& q, const std::string& where) {
  const json* params = &q;
  if (q.contains("quant_config") && q["quant_config"].is_object()) {
    const json& qc = q["quant_config"];
    if (qc.contains("weight_quant_params") && qc["weight_quant_params"].is_object()) params = &qc["weight_quant_params"];
  }
  const std::int64_t bits = integer(*params, "nbits");
  if (bits != 4 && bits != 8) {
    if (bits <= 0) throw Error(fmt::format("{}: hqq without quant_config.weight_quant_params.nbits", where));
    below_four_bits(where, fmt::format("hqq {}-bit weights", bits));
  }
  const std::int64_t group = integer(*params, "group_size", 64);
  CheckpointQuantization c;
  c.weights = bits == 4 ? DType::int4 : DType::int8;
  // Scale and zero point per group in the 16-bit compute dtype (HQQ's meta): 4 bytes.
  c.groups = groups(fmt::format("hqq {}-bit, groups of {} (16-bit scale + 16-bit zero)", bits, group), group, 4.0);
  add_names(q, "skip_modules", c.skipped);
  return c;
}

CheckpointQuantization quanto(const json& q, const std::string& where) {
  const std::string w = to_lower(str(q, "weights"));
  CheckpointQuantization c;
  if (w == "int8") {
    c.weights = DType::int8;
    c.groups = groups("quanto int8, per-channel scales", 0, 0);
  } else if (w == "float8") {
    c.weights = DType::fp8;
    c.groups = groups("quanto float8, per-channel scales", 0, 0);
  } else if (w == "int4") {
    c.weights = DType::int4;
    // optimum-quanto's qint4: groups of 128 with a 16-bit scale and a 16-bit shift.
    c.groups = groups("quanto int4, groups of 128 (16-bit scale + 16-bit shift)", 128, 4.0);
  } else if (w == "int2") {
    below_four_bits(where, "quanto int2 weights");
  } else {
    throw Error(fmt::format("{}: quanto weights '{}' is not understood (known: int8, int4, float8)", where, str(q, "weights")));
  }
  const std::string a = to_lower(str(q, "activations"));
  if (a == "int8" || a == "float8") {
    c.has_activations = true;
    c.activations = a == "int8" ? DType::int8 : DType::fp8;
  }
  add_names(q, "modules_to_not_convert", c.skipped);
  return c;
}

CheckpointQuantization eetq(const json& q, const std::string& where) {
  const std::string w = to_lower(str(q, "weights").empty() ? "int8" : str(q, "weights"));
  if (w != "int8") throw Error(fmt::format("{}: eetq weights '{}' is not understood (EETQ stores int8)", where, w));
  CheckpointQuantization c;
  c.weights = DType::int8;
  c.groups = groups("eetq int8, per-channel scales", 0, 0);
  add_names(q, "modules_to_not_convert", c.skipped);
  return c;
}

CheckpointQuantization fp_quant(const json& q, const std::string& where) {
  const std::string d = to_lower(str(q, "forward_dtype").empty() ? "mxfp4" : str(q, "forward_dtype"));
  if (d != "mxfp4" && d != "nvfp4")
    throw Error(fmt::format("{}: fp_quant forward_dtype '{}' is not understood (known: mxfp4, nvfp4)", where, d));
  const bool nv = d == "nvfp4";
  CheckpointQuantization c;
  c.weights = DType::fp4;
  c.groups = groups(nv ? "fp_quant NVFP4, groups of 16 (fp8 e4m3 scale)" : "fp_quant MXFP4, groups of 32 (e8m0 scale)",
                    nv ? 16 : 32, 1.0);
  c.has_activations = true;  // its forward pass quantizes activations to the same format
  c.activations = DType::fp4;
  add_names(q, "modules_to_not_convert", c.skipped);
  return c;
}

// ---- torchao ------------------------------------------------------------------------------

CheckpointQuantization torchao(const json& q, const std::string& where) {
  std::string name;
  json data = json::object();
  if (q.contains("quant_type") && q["quant_type"].is_string()) {
    name = q["quant_type"].get<std::string>();
    if (q.contains("quant_type_kwargs") && q["quant_type_kwargs"].is_object()) data = q["quant_type_kwargs"];
  } else if (q.contains("quant_type") && q["quant_type"].is_object()) {
    const json& t = q["quant_type"];
    const json& d = t.contains("default") ? t["default"] : (t.empty() ? t : t.begin().value());
    name = str(d, "_type");
    if (d.is_object() && d.contains("_data") && d["_data"].is_object()) data = d["_data"];
  }
  const std::string n = to_lower(name);
  CheckpointQuantization c;
  auto act = [&](DType a) {
    c.has_activations = true;
    c.activations = a;
  };
  const std::int64_t group = integer(data, "group_size", 128);
  if (n == "int4weightonlyconfig" || n == "int4_weight_only" || n == "float8dynamicactivationint4weightconfig" ||
      n == "int8dynamicactivationint4weightconfig" || n == "int8_dynamic_activation_int4_weight") {
    c.weights = DType::int4;
    // torchao's int4 tensor: a bf16 scale and a bf16 zero point per group.
    c.groups = groups(fmt::format("torchao int4, groups of {} (bf16 scale + bf16 zero)", group), group, 4.0);
    if (n.find("float8dynamic") != std::string::npos) act(DType::fp8);
    if (n.find("int8dynamic") != std::string::npos || n.find("int8_dynamic") != std::string::npos) act(DType::int8);
  } else if (n == "int8weightonlyconfig" || n == "int8_weight_only") {
    c.weights = DType::int8;
    c.groups = groups("torchao int8, per-channel scales", 0, 0);
  } else if (n == "int8dynamicactivationint8weightconfig" || n == "int8_dynamic_activation_int8_weight") {
    c.weights = DType::int8;
    c.groups = groups("torchao int8, per-channel scales", 0, 0);
    act(DType::int8);
  } else if (n == "float8weightonlyconfig" || n == "float8_weight_only") {
    c.weights = DType::fp8;
    c.groups = groups("torchao float8, per-channel scales", 0, 0);
  } else if (n == "float8dynamicactivationfloat8weightconfig" || n == "float8_dynamic_activation_float8_weight" ||
             n == "float8staticactivationfloat8weightconfig") {
    c.weights = DType::fp8;
    c.groups = groups("torchao float8, per-row/per-tensor scales", 0, 0);
    act(DType::fp8);
  } else if (n.find("nvfp4") != std::string::npos || n.find("mxfp4") != std::string::npos) {
    const bool nv = n.find("nvfp4") != std::string::npos;
    c.weights = DType::fp4;
    c.groups = groups(nv ? "torchao NVFP4, groups of 16 (fp8 e4m3 scale)" : "torchao MXFP4, groups of 32 (e8m0 scale)",
                      nv ? 16 : 32, 1.0);
    act(DType::fp4);
  } else if (n.find("uintx") != std::string::npos || n.find("int2") != std::string::npos ||
             n.find("int3") != std::string::npos) {
    below_four_bits(where, fmt::format("torchao {}", name));
  } else {
    throw Error(fmt::format("{}: torchao quant_type '{}' is not understood (known: Int4WeightOnlyConfig, "
                            "Int8WeightOnlyConfig, Int8DynamicActivationInt8WeightConfig, "
                            "Int8DynamicActivationInt4WeightConfig, Float8WeightOnlyConfig, "
                            "Float8DynamicActivationFloat8WeightConfig, Float8DynamicActivationInt4WeightConfig, "
                            "NVFP4 / MXFP4 configs)",
                            where, name.empty() ? "(missing)" : name));
  }
  add_names(q, "modules_to_not_convert", c.skipped);
  return c;
}

}  // namespace

std::optional<CheckpointQuantization> more_quantization_methods(const std::string& method, const json& q,
                                                                const std::string& where) {
  if (method == "quark") return quark(q, where);
  if (method == "auto-round" || method == "auto_round" || method == "intel/auto-round" || method == "autoround")
    return auto_round(q, where);
  if (method == "hqq") return hqq(q, where);
  if (method == "quanto") return quanto(q, where);
  if (method == "eetq") return eetq(q, where);
  if (method == "fp_quant") return fp_quant(q, where);
  if (method == "torchao") return torchao(q, where);
  if (method == "bitnet") below_four_bits(where, "BitNet's ternary (1.58-bit) weights");
  if (method == "aqlm" || method == "vptq" || method == "higgs" || method == "spqr")
    below_four_bits(where, fmt::format("quant_method '{}' (codebook / vector quantization, 1-3 bits a weight)", method));
  return std::nullopt;
}

}  // namespace servesim
