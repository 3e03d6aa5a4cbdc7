// A scenario's `hardware:` (the GPU; its efficiency and interconnect overrides are
// read by the catalog's knob table) and `model:` sections, and the setup they make
// with `parallelism:` and `engine:` (read_parallelism.cpp, read_engine.cpp).
#include <fmt/format.h>

#include <algorithm>
#include <string>

#include "config/scenario_sections.h"
#include "config/catalog_reader.h"
#include "cost/kernel_count.h"
#include "util/error.h"
#include "util/paths.h"

namespace servesim {
namespace {

const Key kGpu{
    .name = "gpu",
    .type = KeyType::text,
    .doc = "the GPU: a catalog name (`servesim list gpus`) or a GPU YAML path, relative to the scenario's folder",
    .spec = "Setup::gpu",
    .unit = "GPU name or path",
    .required = true,
};
const Key kEfficiency{
    .name = "efficiency",
    .type = KeyType::section,
    .doc = "overrides of the GPU's efficiency knobs for this scenario (see hardware.efficiency)",
    .spec = "GpuSpec::efficiency",
};
const Key kPricePerHour{
    .name = "price_per_hour",
    .type = KeyType::quantity,
    .doc = "price of one GPU-hour of hardware.gpu, replacing its file's cost.on_demand (the cost line of `run`, "
           "sweep's and plan's $/hour and $/M tokens); a disaggregation pool on another GPU keeps that GPU's own "
           "price",
    .spec = "GpuSpec::price_per_hour",
    .dimension = Dimension::price_per_hour,
    .default_note = "the GPU file's cost.on_demand",
    .min = 0,
    .why = "a price >= 0",
};
const Key kInterconnect{
    .name = "interconnect",
    .type = KeyType::section,
    .doc = "overrides of the GPU's interconnect for this scenario (see hardware.interconnect)",
    .spec = "GpuSpec (interconnect)",
};

// Precision names as model/dtype.cpp lists them, kept alive for the declarations' string_views.
std::vector<std::string_view> dtype_choices() {
  static const std::vector<std::string> names = dtype_names();
  return {names.begin(), names.end()};
}

const Key kModelName{
    .name = "name",
    .type = KeyType::text,
    .doc = "the model: a catalog name (`servesim list models`), a model YAML, a Hugging Face config.json path or a model folder (its config.json and hf_quant_config.json: quantized weights sized as stored, group scales included)",
    .spec = "Setup::model",
    .unit = "model name or path",
    .required = true,
};
const Key kWeights{
    .name = "weights",
    .type = KeyType::choice,
    .doc = "weight precision; given alone on the command line it brings its compute precision (vLLM --quantization)",
    .spec = "PrecisionSpec::weights",
    .default_note = "the model's native precision (bf16 for fp32 checkpoints)",
    .choices = dtype_choices(),
};
const Key kActivations{
    .name = "activations",
    .type = KeyType::choice,
    .doc = "compute precision of the tensor cores (W8A8 vs W8A16)",
    .spec = "PrecisionSpec::activations",
    .default_note = "the weights' own for 16-bit weights, fp8 for fp8 weights on fp8 GPUs, else bf16",
    .choices = dtype_choices(),
};
const Key kKvCache{
    .name = "kv_cache",
    .type = KeyType::choice,
    .doc = "KV-cache precision (vLLM --kv-cache-dtype)",
    .spec = "PrecisionSpec::kv_cache",
    .default_note = "fp16 with fp16 activations, else bf16",
    .choices = dtype_choices(),
};
const Key kEmulate{
    .name = "emulate",
    .type = KeyType::boolean,
    .doc = "run a precision the GPU lacks at its 16-bit rate instead of refusing it",
    .spec = "PrecisionSpec::emulate",
    .default_bool = PrecisionSpec{}.emulate,
};

// Relative paths inside a scenario are relative to the scenario file's folder
// when they exist there, else to the working directory.
std::string resolve_relative(const std::string& ref, const std::string& scenario_file) {
  if (!looks_like_path(ref) || ref.empty() || ref[0] == '/') return ref;
  const auto slash = scenario_file.rfind('/');
  if (slash != std::string::npos) {
    const std::string candidate = scenario_file.substr(0, slash + 1) + ref;
    if (file_exists(candidate)) return candidate;
  }
  return ref;
}

// Errors of a catalog or a check, prefixed with the key they came from.
template <typename F>
auto with_location(const std::string& where, F&& f) -> decltype(f()) {
  try {
    return f();
  } catch (const Error& e) {
    throw Error(fmt::format("{}: {}", where, e.what()));
  }
}

DType read_dtype(ConfigMap& md, const Key& k, const std::string& fallback) {
  const std::string name(k.name);
  return parse_dtype(md.string(name, fallback), md.where(name));
}

void read_hardware(ConfigMap& hw, const std::string& scenario_file, Setup& s) {
  const std::string gpu_ref = resolve_relative(read_text(hw, kGpu), scenario_file);
  s.gpu = with_location(hw.where(std::string(kGpu.name)), [&] { return load_gpu(gpu_ref); });
  if (hw.has(std::string(kPricePerHour.name))) s.gpu.price_per_hour = read_quantity(hw, kPricePerHour);
  ConfigMap eff = hw.map(std::string(kEfficiency.name));
  apply_efficiency_overrides(eff, s.gpu.efficiency);
  ConfigMap ic = hw.map(std::string(kInterconnect.name));
  apply_interconnect_overrides(ic, s.gpu);
  hw.finish();
}

void read_model(ConfigMap& md, const std::string& scenario_file, Setup& s) {
  const std::string model_ref = resolve_relative(read_text(md, kModelName), scenario_file);
  s.model = with_location(md.where(std::string(kModelName.name)), [&] { return load_model(model_ref); });
  const DType native = s.model.native_dtype == DType::fp32 ? DType::bf16 : s.model.native_dtype;
  s.precision.weights = read_dtype(md, kWeights, dtype_name(native));
  const DType default_act = default_activations(s.precision.weights, s.gpu);
  // One meaning for a weight shorthand (precision.h default_activations): weights
  // given on the command line (--set, sweep/whatif --vary, plan candidates) bring
  // their default compute precision with them, replacing the file's activations
  // unless activations are given on the command line too. So `--set
  // model.weights=fp8` and `plan --candidates-weights fp8` both mean W8A8 on an
  // H100, whatever the file pinned for its own weights.
  const ConfigNode* weights_node = md.get(std::string(kWeights.name));
  const ConfigNode* act_node = md.get(std::string(kActivations.name));
  const bool file_act_overridden = weights_node && weights_node->from_edit() && act_node && !act_node->from_edit();
  s.precision.activations = file_act_overridden ? default_act : read_dtype(md, kActivations, dtype_name(default_act));
  s.precision.kv_cache = read_dtype(md, kKvCache, s.precision.activations == DType::fp16 ? "fp16" : "bf16");
  s.precision.emulate = read_boolean(md, kEmulate);
  s.resolved = with_location(md.where(), [&] { return resolve_precision(s.precision, s.gpu); });
  md.finish();
}

}  // namespace

const KeySection& hardware_key_section() {
  static const KeySection s{
      .path = "hardware",
      .doc = "the GPU every replica runs on",
      .keys = {&kGpu, &kPricePerHour, &kEfficiency, &kInterconnect},
  };
  return s;
}

const KeySection& model_key_section() {
  static const KeySection s{
      .path = "model",
      .doc = "the model served and its precision (weights, compute, KV cache)",
      .keys = {&kModelName, &kWeights, &kActivations, &kKvCache, &kEmulate},
  };
  return s;
}

ConfigMap section_map(ConfigMap& parent, const KeySection& s) { return parent.map(std::string(s.path)); }

namespace {
// Multiplies one of the profile's fractions (of dense peak, of HBM bandwidth) by the framework's
// ratio for it; the product must stay a fraction.
void scale_profile_fraction(ConfigMap& eng, const EngineConfig& e, const char* ratio_key, double ratio,
                            double& fraction, const char* fraction_key, const char* of_what, const char* limit) {
  if (ratio == 1.0) return;
  const double scaled = fraction * ratio;
  if (!(scaled <= 1.0))
    eng.fail(ratio_key, fmt::format("{} x the GPU's {} {} is {:.3g} of {}, more than the {} itself; lower the ratio "
                                    "(framework {}) or hardware.efficiency.{}",
                                    ratio, fraction_key, fraction, scaled, of_what, limit, e.framework, fraction_key));
  fraction = scaled;
}

// The framework's kernel terms (engine/framework_preset.h) on this GPU and model: its
// GEMM ratio scales the profile's gemm_compute, which must stay a fraction of peak, its
// attention ratio the profile's attention_memory, a fraction of HBM bandwidth, and its
// per-layer prefill cost becomes a cost per prefill step of one pipeline stage.
void resolve_framework_kernels(ConfigMap& eng, Setup& s) {
  EngineConfig& e = s.engine;
  scale_profile_fraction(eng, e, "gemm_compute_ratio", e.gemm_compute_ratio, s.gpu.efficiency.gemm_compute,
                         "gemm_compute", "dense peak", "peak");
  scale_profile_fraction(eng, e, "attention_memory_ratio", e.attention_memory_ratio,
                         s.gpu.efficiency.attention_memory, "attention_memory", "HBM bandwidth", "bandwidth");
  if (e.prefill_layer_overhead > 0)
    e.prefill_step_overhead =
        e.prefill_layer_overhead * static_cast<double>(s.model.layers) / static_cast<double>(std::max(1, s.parallelism.pp));
}
}  // namespace

Setup read_setup(ConfigMap& doc) {
  Setup s;
  ConfigMap hw = section_map(doc, hardware_key_section());
  read_hardware(hw, doc.file(), s);
  ConfigMap md = section_map(doc, model_key_section());
  read_model(md, doc.file(), s);
  ConfigMap par = section_map(doc, parallelism_key_section());
  read_parallelism(par, s);
  ConfigMap eng = section_map(doc, engine_key_section());
  s.engine = read_engine(eng);
  resolve_max_model_len(eng, s);
  resolve_local_attention_kv(eng, s);
  resolve_framework_kernels(eng, s);
  // Eager collectives: the host's launch of each NCCL call lengthens every hop.
  if (s.engine.collective_latency > s.gpu.intra_node.latency) s.gpu.intra_node.latency = s.engine.collective_latency;
  resolve_speculative(eng, s);
  if (s.engine.kernel_launch_overhead > 0)
    s.engine.launch_floor = s.engine.kernel_launch_overhead * kernels_per_step(make_cost_model(s), s.parallelism.pp);
  return s;
}

}  // namespace servesim
