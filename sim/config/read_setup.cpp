// A scenario's `hardware:` (the GPU; its efficiency and interconnect overrides are
// read by the catalog's knob table) and `model:` sections, and the setup they make
// with `parallelism:` and `engine:` (read_parallelism.cpp, read_engine.cpp).
#include <fmt/format.h>

#include <algorithm>
#include <string>

#include "config/lora_reader.h"
#include "config/scenario_sections.h"
#include "config/catalog_reader.h"
#include "config/local_engine.h"
#include "engine/framework_preset.h"
#include "util/text.h"
#include "cost/kernel_count.h"
#include "util/error.h"
#include "util/interrupt.h"
#include "util/paths.h"
#include "util/text.h"
#include "util/warnings.h"

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
// ... and, for model.weights, the GGUF types too (model/gguf.h).
std::vector<std::string_view> weight_choices() {
  static const std::vector<std::string> names = [] {
    std::vector<std::string> n = dtype_names();
    for (const std::string& g : gguf_type_names()) n.push_back(g);
    return n;
  }();
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
    .doc = "weight precision, or a GGUF file's type (f16, q8_0, q6_k, q5_k_m, q4_k_m, q4_0: sized as llama.cpp's "
           "quantizer mixes it, block scales included); given alone on the command line it brings its compute "
           "precision (vLLM --quantization)",
    .spec = "PrecisionSpec::weights",
    .default_note = "the model's native precision (bf16 for fp32 checkpoints); llama.cpp: f16, ollama: q4_k_m",
    .choices = weight_choices(),
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

// The same for one key's value (a catalog name): a bad-value ConfigError naming the key.
template <typename F>
auto about_key(const ConfigMap& m, const std::string& key, F&& f) -> decltype(f()) {
  try {
    return f();
  } catch (const Interrupted&) {
    throw;
  } catch (const Error& e) {
    m.refuse(key, e);
  }
}

DType read_dtype(ConfigMap& md, const Key& k, const std::string& fallback) {
  const std::string name(k.name);
  const std::string text = md.string(name, fallback);
  return about_key(md, name, [&] { return parse_dtype(text, md.where(name)); });
}

void read_hardware(ConfigMap& hw, const std::string& scenario_file, Setup& s) {
  const std::string gpu_ref = resolve_relative(read_text(hw, kGpu), scenario_file);
  s.gpu = about_key(hw, std::string(kGpu.name), [&] { return load_gpu(gpu_ref); });
  if (hw.has(std::string(kPricePerHour.name))) s.gpu.price_per_hour = read_quantity(hw, kPricePerHour);
  ConfigMap eff = hw.map(std::string(kEfficiency.name));
  apply_efficiency_overrides(eff, s.gpu.efficiency);
  ConfigMap ic = hw.map(std::string(kInterconnect.name));
  apply_interconnect_overrides(ic, s.gpu);
  hw.finish();
}

// Reads model.weights: a GGUF type sets precision.gguf and its plain stand-in, anything
// else is a precision. Returns whether the scenario gave it.
bool read_weights(ConfigMap& md, const DType native, const std::string& runtime_default, PrecisionSpec& p) {
  const std::string name(kWeights.name);
  const bool given = md.has(name);
  // A local runtime's usual weights (llama.cpp: f16, Ollama: q4_k_m) when the scenario names none.
  const std::string text = md.string(name, runtime_default.empty() ? dtype_name(native) : runtime_default);
  p.gguf = find_gguf_type(text);
  p.weights = p.gguf != GgufType::none ? gguf_carrier_dtype(p.gguf) : parse_dtype(text, md.where(name));
  return given;
}

// GGUF weights compute in fp16 on every ggml back end (the activations stay f16/f32).
DType default_compute(const PrecisionSpec& p, const GpuSpec& gpu) {
  return p.gguf != GgufType::none ? DType::fp16 : default_activations(p.weights, gpu);
}

// The precision a checkpoint's own quantization config states (model_spec.h
// CheckpointPrecision), as the defaults of model.weights / activations / kv_cache, and what
// the scenario asks instead. Precedence: a value given on the command line; else the
// scenario file's, unless the model itself came from the command line (--set
// model.name=FOLDER: the file chose its precisions for another model, so an imported
// checkpoint keeps its own); else the checkpoint's. A value that differs from what the
// checkpoint states is warned, naming both.
struct PrecisionChoice {
  const ConfigNode* node = nullptr;  // the key as given, if it is
  bool use_given = false;            // read the given value (else the default)
  bool overridden_file = false;      // the file's value was set aside for the checkpoint's
};

PrecisionChoice choose(ConfigMap& md, const Key& k, bool model_from_command_line, bool imported) {
  PrecisionChoice c;
  c.node = md.get(std::string(k.name));
  if (!c.node) return c;
  c.use_given = c.node->from_edit() || !(model_from_command_line && imported);
  c.overridden_file = !c.use_given;
  return c;
}

void say_checkpoint_differs(const ConfigMap& md, const ModelSpec& m, const char* key, DType asked, DType stated,
                            const std::string& what) {
  warn(fmt::format("{}: {} {} differs from the checkpoint's own {} {} ({}): simulating {} {}{}", md.where(key), key,
                   dtype_name(asked), what, dtype_name(stated), m.checkpoint.present ? m.checkpoint.source : m.source_file,
                   key, dtype_name(asked),
                   std::string(key) == "weights" && m.checkpoint.present
                       ? " for every tensor (the checkpoint's own layout per tensor group is set aside)"
                       : ""));
}

void say_file_set_aside(const ConfigMap& md, const ModelSpec& m, const char* key, DType given, DType used) {
  warn(fmt::format("{}: the scenario's {} ({}) is not applied to {}, given on the command line: it keeps its "
                   "checkpoint's {} (set model.{} on the command line to override)",
                   md.where(key), key, dtype_name(given), m.name, dtype_name(used), key));
}

void read_model(ConfigMap& md, const std::string& scenario_file, const std::string& runtime_default, Setup& s,
                bool& model_from_command_line) {
  const ConfigNode* name_node = md.get(std::string(kModelName.name));
  model_from_command_line = name_node && name_node->from_edit();
  const std::string model_ref = resolve_relative(read_text(md, kModelName), scenario_file);
  s.model = about_key(md, std::string(kModelName.name), [&] { return load_model(model_ref); });
  const ModelSpec& m = s.model;
  const bool imported = ends_with(m.source_file, ".json");  // a Hugging Face checkpoint's config
  const CheckpointPrecision& cp = m.checkpoint;

  const DType native = m.native_dtype == DType::fp32 ? DType::bf16 : m.native_dtype;
  const PrecisionChoice w = choose(md, kWeights, model_from_command_line, imported);
  // Read (and checked) either way: a precision or a GGUF type; with none given, the local
  // runtime's usual weights (llama.cpp f16, Ollama q4_k_m) or the checkpoint's own.
  PrecisionSpec given;
  read_weights(md, native, runtime_default, given);
  const DType weights_given = given.weights;
  if (!w.node || w.use_given) {
    s.precision.weights = given.weights;
    s.precision.gguf = given.gguf;
  } else {
    s.precision.weights = native;
  }
  if (w.overridden_file && weights_given != native) say_file_set_aside(md, m, "weights", weights_given, native);
  if (w.use_given && imported && s.precision.weights != native)
    say_checkpoint_differs(md, m, "weights", s.precision.weights, native, "weights");

  // Activations: the checkpoint's (W8A8, W4A4) at its own weights when the GPU has the
  // tensor cores for them; else the weights' default (precision.h default_activations).
  DType default_act = default_compute(s.precision, s.gpu);  // GGUF computes in fp16
  if (cp.has_activations && s.precision.weights == native) {
    if (s.gpu.supports(cp.activations)) {
      default_act = cp.activations;
    } else if (cp.activations != default_act) {
      warn(fmt::format("{}: {}'s checkpoint computes in {} ({}), which {} has no tensor cores for: simulating {} "
                       "activations (weight-only {}, as vLLM's fallback kernels run it)",
                       md.where(), m.name, dtype_name(cp.activations), cp.source, s.gpu.name, dtype_name(default_act),
                       dtype_name(s.precision.weights)));
    }
  }
  // One meaning for a weight shorthand (precision.h default_activations): weights
  // given on the command line (--set, sweep/whatif --vary, plan candidates) bring
  // their default compute precision with them, replacing the file's activations
  // unless activations are given on the command line too. So `--set
  // model.weights=fp8` and `plan --candidates-weights fp8` both mean W8A8 on an
  // H100, whatever the file pinned for its own weights.
  const ConfigNode* weights_node = md.get(std::string(kWeights.name));
  const PrecisionChoice act = choose(md, kActivations, model_from_command_line, imported);
  const bool file_act_overridden = weights_node && weights_node->from_edit() && act.node && !act.node->from_edit();
  const DType act_given = read_dtype(md, kActivations, dtype_name(default_act));
  s.precision.activations = file_act_overridden || !act.use_given ? default_act : act_given;
  if (act.overridden_file && !file_act_overridden && act_given != s.precision.activations)
    say_file_set_aside(md, m, "activations", act_given, s.precision.activations);
  if (act.use_given && !file_act_overridden && cp.has_activations && s.precision.weights == native &&
      s.precision.activations != cp.activations)
    say_checkpoint_differs(md, m, "activations", s.precision.activations, cp.activations, "activations");

  // KV cache: the checkpoint's (kv_cache_quant_algo FP8), else 16-bit as the activations.
  const DType default_kv =
      cp.has_kv_cache ? cp.kv_cache : s.precision.activations == DType::fp16 ? DType::fp16 : DType::bf16;
  const PrecisionChoice kv = choose(md, kKvCache, model_from_command_line, imported);
  const DType kv_given = read_dtype(md, kKvCache, dtype_name(default_kv));
  s.precision.kv_cache = kv.use_given ? kv_given : default_kv;
  if (kv.overridden_file && kv_given != default_kv) say_file_set_aside(md, m, "kv_cache", kv_given, default_kv);
  if (kv.use_given && cp.has_kv_cache && s.precision.kv_cache != cp.kv_cache)
    say_checkpoint_differs(md, m, "kv_cache", s.precision.kv_cache, cp.kv_cache, "KV cache");
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
// The default weights of the framework the engine section names, read ahead of the model
// section (whose precision they decide); "" for a framework without one or an unknown name
// (read_engine refuses that with its did-you-mean).
std::string runtime_default_weights(ConfigMap& doc) {
  const ConfigNode* e = doc.node().find("engine");
  const ConfigNode* f = e && e->is_map() ? e->find("framework") : nullptr;
  const FrameworkPreset* p =
      f && f->is_scalar() ? find_framework_preset(f->text()) : &default_framework_preset();
  return p ? std::string(p->default_weights) : std::string();
}

// A local runtime's weights: llama.cpp and Ollama run GGUF files, so a scenario that names
// no weights gets the runtime's usual type (f16, Ollama's q4_k_m), and a quantized format
// llama.cpp cannot load (AWQ/GPTQ int4, fp8, fp4) is refused with the GGUF types to use.
void resolve_runtime_weights(ConfigMap& eng, Setup& s) {
  const FrameworkPreset& preset = *find_framework_preset(s.engine.framework);
  if (preset.runtime != "llama.cpp") return;
  if (s.precision.gguf == GgufType::none && dtype_bytes(s.precision.weights) < 2.0)
    throw Error(fmt::format("{}: engine.framework {} runs GGUF files: model.weights {} is not one of them; use {}",
                            eng.where("framework"), s.engine.framework, dtype_name(s.precision.weights),
                            join(gguf_type_names())));
}

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
  bool model_from_command_line = false;
  read_model(md, doc.file(), runtime_default_weights(doc), s, model_from_command_line);
  ConfigMap par = section_map(doc, parallelism_key_section());
  read_parallelism(par, s);
  ConfigMap moe = section_map(doc, moe_key_section());
  read_moe(moe, s);
  ConfigMap eng = section_map(doc, engine_key_section());
  s.engine = read_engine(eng);
  resolve_runtime_weights(eng, s);
  resolve_local_runtime(eng, s);
  resolve_max_model_len(eng, s);
  resolve_local_attention_kv(eng, s);
  resolve_state_layers(eng, s, model_from_command_line);
  resolve_framework_kernels(eng, s);
  // Eager collectives: the host's launch of each NCCL call lengthens every hop.
  if (s.engine.collective_latency > s.gpu.intra_node.latency) s.gpu.intra_node.latency = s.engine.collective_latency;
  resolve_speculative(eng, s);
  resolve_lora(eng, s);
  if (s.engine.kernel_launch_overhead > 0)
    s.engine.launch_floor = s.engine.kernel_launch_overhead * kernels_per_step(make_cost_model(s), s.parallelism.pp);
  return s;
}

}  // namespace servesim
