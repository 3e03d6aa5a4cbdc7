// A catalog GPU may carry its own `efficiency:` knobs (hardware/h100-sxm.yaml's
// kernel-table gemm_memory); a calibrated profile written from it keeps the ones its
// fit does not replace, and never holds two `efficiency:` mappings.
#include <catch2/catch.hpp>

#include <string>

#include "calibration/calibrated_profile.h"
#include "config/catalog_reader.h"

using namespace servesim;

namespace {
const char* kBase =
    "schema_version: 1\n"
    "name: g\n"
    "display_name: G\n"
    "memory:\n"
    "  bandwidth: \"1 TB/s\"\n"
    "# why the knobs below\n"
    "efficiency:\n"
    "  gemm_memory: 0.9           # measured\n"
    "  kernel_overhead: \"4 us\"\n";
}  // namespace

TEST_CASE("calibrated profile: the base's own efficiency knobs are kept unless fitted", "[calibration]") {
  const auto knobs = base_efficiency_knobs(kBase, "g.yaml");
  REQUIRE(knobs.size() == 2);
  CHECK(knobs[0].field == "gemm_memory");
  CHECK(knobs[0].value == "0.9");
  CHECK(knobs[1].field == "kernel_overhead");
  CHECK(knobs[1].value == "\"4 us\"");  // a quantity with a unit stays quoted

  // The renamed base has no efficiency mapping left, nor the comment above it.
  const std::string renamed = renamed_gpu_profile(kBase, "g.yaml", "g-cal", "G cal", {});
  CHECK(renamed.find("efficiency") == std::string::npos);
  CHECK(renamed.find("why the knobs") == std::string::npos);
  CHECK(renamed.find("bandwidth: \"1 TB/s\"") != std::string::npos);

  // gemm_memory fitted: only kernel_overhead is carried from the base.
  const std::string kept = base_efficiency_lines(kBase, "g.yaml", {"gemm_memory"});
  CHECK(kept.find("gemm_memory") == std::string::npos);
  CHECK(kept.find("  kernel_overhead: \"4 us\"") == 0);
  CHECK(base_efficiency_lines(kBase, "g.yaml", {"gemm_memory", "kernel_overhead"}).empty());

  // A base without the mapping is unchanged and carries nothing.
  const std::string plain = "name: p\nmemory:\n  bandwidth: \"1 TB/s\"\n";
  CHECK(without_efficiency_block(plain) == plain);
  CHECK(base_efficiency_knobs(plain, "p.yaml").empty());
}

TEST_CASE("GPU catalog: kernel-table weight-streaming fractions differ by memory system", "[hardware]") {
  // tools/fit/memory_fraction.py on data/operator_timings (M <= 8 GEMMs, all models):
  // H100 SXM5 0.906, A100 80GB 0.796, A40 (GDDR6, carried to L40S) 0.788.
  CHECK(load_gpu("h100-sxm").efficiency.gemm_memory == Approx(0.906));
  CHECK(load_gpu("a100-sxm4-80gb").efficiency.gemm_memory == Approx(0.796));
  CHECK(load_gpu("l40s").efficiency.gemm_memory == Approx(0.788));
  // Knobs the files do not set keep the table's defaults (hardware/efficiency.cpp).
  CHECK(load_gpu("h100-sxm").efficiency.attention_memory == Approx(Efficiency{}.attention_memory));
}
