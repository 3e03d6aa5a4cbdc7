// The efficiency-knob table (hardware/efficiency.h) is the one source of the knobs'
// defaults, ranges and fit bounds; the model file's accepted-but-unmodelled keys say
// so; calibration's number edits give the same doubles as the text they replace.
#include <catch2/catch.hpp>

#include <fmt/format.h>

#include <functional>
#include <string>

#include "calibration/fit_parameters.h"
#include "config/catalog_reader.h"
#include "config/config_error.h"
#include "config/edits.h"
#include "config/key_registry.h"
#include "config/yaml_text.h"
#include "util/error.h"
#include "util/text.h"
#include "util/units.h"
#include "util/warnings.h"

using namespace servesim;
using Catch::Contains;

namespace {

Efficiency read_efficiency(const std::string& yaml) {
  const ConfigNode doc = parse_yaml_text(yaml, "eff.yaml");
  ConfigMap m(doc, "eff.yaml", "efficiency");
  Efficiency e;
  apply_efficiency_overrides(m, e);
  return e;
}

std::string error_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const std::exception& e) {
    return e.what();
  }
  return "";
}

// A small dense model file, with extra attention keys.
ModelSpec read_model(const std::string& attention_extra, const std::string& top_extra = "") {
  const std::string yaml = fmt::format(
      "name: tiny\nlayers: 2\nhidden_size: 256\nattention:\n  heads: 4\n  kv_heads: 2\n{}mlp:\n  "
      "intermediate_size: 512\nvocab_size: 1000\nmax_context: 8192\n{}",
      attention_extra, top_extra);
  const ConfigNode doc = parse_yaml_text(yaml, "tiny.yaml");
  ConfigMap m(doc, "tiny.yaml");
  return parse_model(m);
}

// The mapping at a dotted path.
const ConfigNode& at(const ConfigNode& root, const std::string& dotted) {
  const ConfigNode* n = &root;
  for (const auto& part : split(dotted, '.')) n = n->find(part);
  return *n;
}

}  // namespace

TEST_CASE("efficiency knobs: the table gives Efficiency's defaults, in declaration order", "[efficiency]") {
  const Efficiency e;
  // 16 shared (with stream_memory and gemm_4bit_compute_ratio) + 3 elementwise kinds x 5 (rate, floor,
  // occupancy, L2-resident rate, FP32 instructions per byte)
  REQUIRE(efficiency_knobs().size() == 31);
  for (const auto& k : efficiency_knobs()) {
    INFO(k.name);
    CHECK(e.*k.member == k.default_value);
    CHECK(knob_value_valid(k, k.default_value));
    CHECK_FALSE(k.citation.empty());
    // A fit starts at the default, which lies inside its bounds.
    CHECK(k.fit_lo <= k.default_value / knob_fit_scale(k));
    CHECK(k.default_value / knob_fit_scale(k) <= k.fit_hi);
  }
  CHECK(e.gemm_compute == 0.70);
  CHECK(e.kernel_overhead == 3e-6);
  // The elementwise floor is the A100 operator-table fit (2.424 us), below the GEMM one.
  CHECK(e.elementwise_overhead == 2.424e-6);
  CHECK(e.elementwise_overhead < e.kernel_overhead);
  CHECK(e.step_overhead == 0.5e-3);
}

TEST_CASE("efficiency knobs: calibration's parameters come from the table", "[efficiency][calibrate]") {
  for (const auto& k : efficiency_knobs()) {
    const FitParameter p = fit_parameter(std::string(k.name));
    INFO(k.name);
    CHECK(p.key == "hardware.efficiency." + std::string(k.name));
    CHECK(p.lo == k.fit_lo);
    CHECK(p.hi == k.fit_hi);
    CHECK(p.unit == k.fit_unit);
    CHECK(p.init * knob_fit_scale(k) == k.default_value);
  }
  CHECK(fit_parameter("kernel_overhead").init == 3.0);  // in us, exactly
  CHECK(fit_parameter("step_overhead").init == 0.5);    // in ms
}

TEST_CASE("efficiency knobs: each kind has its range and message", "[efficiency][errors]") {
  const Efficiency e = read_efficiency("gemm_overlap: 0\ngemm_tokens_half: 0\nkernel_overhead: \"0 us\"\n"
                                       "gemm_memory: \"85%\"\n");
  CHECK(e.gemm_overlap == 0.0);
  CHECK(e.gemm_tokens_half == 0.0);
  CHECK(e.kernel_overhead == 0.0);
  CHECK(e.gemm_memory == Approx(0.85));
  CHECK_THAT(error_of([] { read_efficiency("gemm_compute: 0\n"); }),
             Contains("efficiency.gemm_compute: gemm_compute must be a fraction in (0, 1]"));
  CHECK_THAT(error_of([] { read_efficiency("gemm_overlap: 1.5\n"); }),
             Contains("gemm_overlap must be a fraction in [0, 1]"));
  CHECK_THAT(error_of([] { read_efficiency("gemm_tokens_half: -1\n"); }),
             Contains("gemm_tokens_half must be a token count >= 0"));
  CHECK_THAT(error_of([] { read_efficiency("step_overhead: \"-1 ms\"\n"); }),
             Contains("step_overhead must be a duration >= 0"));
  CHECK_THAT(error_of([] { read_efficiency("gemm_compte: 0.5\n"); }), Contains("did you mean 'gemm_compute'"));
  // The per-kind elementwise knobs: plain numbers in SM cycles and tokens per SM.
  const Efficiency k = read_efficiency("act_floor_cycles: 1744\nnorm_tokens_per_sm: 1.4\nrope_bytes_per_sm_cycle: 6\n");
  CHECK(k.act_floor_cycles == 1744.0);
  CHECK(k.norm_tokens_per_sm == 1.4);
  CHECK(k.rope_bytes_per_sm_cycle == 6.0);
  CHECK_THAT(error_of([] { read_efficiency("act_floor_cycles: -1\n"); }),
             Contains("act_floor_cycles must be SM clock cycles >= 0"));
  CHECK_THAT(error_of([] { read_efficiency("norm_tokens_per_sm: -0.5\n"); }),
             Contains("norm_tokens_per_sm must be tokens per SM >= 0"));
  CHECK_THAT(error_of([] { read_efficiency("rope_floor_cycle: 10\n"); }), Contains("did you mean 'rope_floor_cycles'"));
}

TEST_CASE("efficiency knobs: both efficiency sections are described from the table", "[efficiency][describe]") {
  int found = 0;
  for (const KeySection* s : config_sections()) {
    if (s->path != "hardware.efficiency" && s->path != "(gpu file).efficiency") continue;
    ++found;
    REQUIRE(s->keys.size() == efficiency_knobs().size());
    for (std::size_t i = 0; i < s->keys.size(); ++i) {
      CHECK(s->keys[i]->name == efficiency_knobs()[i].name);
      CHECK(s->keys[i]->default_number == efficiency_knobs()[i].default_value);
    }
  }
  CHECK(found == 2);
}

TEST_CASE("calibration: a number edit gives the double the round-trip text gave", "[calibrate]") {
  // Fractions and durations in their fit units: 17 significant digits round-trip.
  const std::vector<FitParameter> params = {fit_parameter("gemm_memory"), fit_parameter("kernel_overhead"),
                                            fit_parameter("step_cpu_overhead")};
  const std::vector<double> values = {0.71234567890123456, 3.3333333333333335, 0.123456789012345678};
  const auto edits = parameter_edits(params, values);
  const auto texts = parameter_overrides(params, values, 17);
  const Dimension dims[] = {Dimension::fraction, Dimension::time, Dimension::time};
  for (std::size_t i = 0; i < params.size(); ++i) {
    INFO(texts[i]);
    ConfigNode a, b;
    apply_edit(a, edits[i]);
    apply_override(b, texts[i]);
    const std::string& path = params[i].key;
    const std::string parent = path.substr(0, path.rfind('.')), key = path.substr(path.rfind('.') + 1);
    ConfigMap ma(at(a, parent), "a"), mb(at(b, parent), "b");
    CHECK(ma.quantity(key, dims[i]) == mb.quantity(key, dims[i]));
  }
  CHECK(round_significant(0.123456789, 6) == 0.123457);
}

TEST_CASE("model file: a sliding window that binds is modelled, a wide one changes nothing", "[catalog][model]") {
  // A window of at least max_context (8192) never binds: full attention, no local layers.
  CHECK_FALSE(read_model("  sliding_window: 8192\n").local.enabled());
  CHECK_FALSE(read_model("  sliding_window: null\n").local.enabled());
  const ModelSpec m = read_model("  sliding_window: 4096\n");
  CHECK(m.local.kind == LocalAttention::Kind::sliding);
  CHECK(m.local.span == 4096);
  CHECK(m.local.layers == m.layers);  // local_layers defaults to every layer
  CHECK(read_model("  sliding_window: 4096\n  local_layers: 1\n").local.layers == 1);
  CHECK_THAT(error_of([] { read_model("  local_layers: 1\n"); }),
             Contains("attention.local_layers: local_layers without sliding_window or attention_chunk"));
  CHECK_THAT(error_of([] { read_model("  sliding_window: 4096\n  local_layers: 99\n"); }),
             Contains("attention.local_layers 99 must be in 1.."));
}

TEST_CASE("model file: attention.v_head_dim, value heads narrower than query/key heads", "[catalog][model]") {
  // Absent: as wide as head_dim (256 / 4 = 64), nothing changes.
  CHECK(read_model("").v_head_dim == 0);
  CHECK(read_model("").value_dim_of(true) == 64);
  const ModelSpec m = read_model("  v_head_dim: 32\n");
  CHECK(m.value_dim_of(true) == 32);
  // One layer: q 256 x 4 x 64, k 256 x 2 x 64, v 256 x 2 x 32, o (4 x 32) x 256:
  // 256 x (256 + 128 + 64) + 128 x 256 = 147,456.
  CHECK(m.attention_params_per_layer() == 256LL * (256 + 128 + 64) + 128LL * 256);
  // KV per token and layer: 2 heads x (64 + 32) = 192 elements; 2 layers x 192 x 2 B.
  CHECK(m.kv_elements_per_token_layer() == 192);
  CHECK(m.kv_bytes_per_token(DType::bf16) == 2.0 * 192 * 2);
}

TEST_CASE("model file: qk_norm true is read with a warning that it is not modelled", "[catalog][model]") {
  (void)take_warnings();
  read_model("  qk_norm: false\n");
  CHECK(take_warnings().empty());
  read_model("  qk_norm: true\n");
  const auto w = take_warnings();
  REQUIRE(w.size() == 1);
  CHECK_THAT(w[0], Contains("attention.qk_norm: true is read but not modelled"));
}
