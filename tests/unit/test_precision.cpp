// Precision resolution (sim/cost/precision.h): weights, compute and KV cache chosen
// separately and checked against the GPU's tensor cores.
#include <catch2/catch.hpp>

#include "cost/precision.h"
#include "config/catalog_reader.h"
#include "util/error.h"

using namespace servesim;
using Catch::Contains;

namespace {
PrecisionSpec spec(DType w, DType a, DType kv, bool emulate = false) {
  PrecisionSpec p;
  p.weights = w;
  p.activations = a;
  p.kv_cache = kv;
  p.emulate = emulate;
  return p;
}
}  // namespace

TEST_CASE("precision: fp8 compute on A100 fails unless emulated", "[precision][errors]") {
  const GpuSpec a100 = load_gpu("a100-sxm4-80gb");
  const PrecisionSpec fp8 = spec(DType::fp8, DType::fp8, DType::bf16);
  REQUIRE_THROWS_AS(resolve_precision(fp8, a100), Error);
  REQUIRE_THROWS_WITH(resolve_precision(fp8, a100), Contains("a100-sxm4-80gb") &&
                                                        Contains("no fp8 tensor cores") &&
                                                        Contains("emulate") && Contains("bf16"));
}

TEST_CASE("precision: emulated fp8 on A100 runs at the 16-bit rate", "[precision]") {
  const GpuSpec a100 = load_gpu("a100-sxm4-80gb");
  const ResolvedPrecision r = resolve_precision(spec(DType::fp8, DType::fp8, DType::bf16, true), a100);
  CHECK(r.compute == DType::bf16);
  CHECK(r.emulated);
  CHECK(r.weights == DType::fp8);  // storage stays fp8: 1 byte per weight
  // fp8 weights (1 B) under bf16 compute (2 B) dequantize in the GEMM.
  CHECK(r.weight_only);
  CHECK_THAT(r.describe(), Contains("emulated"));
}

TEST_CASE("precision: fp8 on H100 resolves to fp8 compute", "[precision]") {
  const GpuSpec h100 = load_gpu("h100-sxm");
  const ResolvedPrecision r = resolve_precision(spec(DType::fp8, DType::fp8, DType::fp8), h100);
  CHECK(r.compute == DType::fp8);
  CHECK(r.weights == DType::fp8);
  CHECK(r.kv_cache == DType::fp8);
  CHECK_FALSE(r.emulated);
  CHECK_FALSE(r.weight_only);  // 1-byte weights, 1-byte compute: no dequantization
  // Activations between kernels are stored in 16 bits.
  CHECK(r.activation_storage == DType::bf16);
  CHECK_THAT(r.describe(), Contains("W8A8"));
  // The same request with emulate=true changes nothing on a GPU that has fp8.
  const ResolvedPrecision e = resolve_precision(spec(DType::fp8, DType::fp8, DType::fp8, true), h100);
  CHECK(e.compute == DType::fp8);
  CHECK_FALSE(e.emulated);
}

TEST_CASE("precision: int4 KV cache is rejected", "[precision][errors]") {
  const GpuSpec h100 = load_gpu("h100-sxm");
  REQUIRE_THROWS_WITH(resolve_precision(spec(DType::bf16, DType::bf16, DType::int4), h100),
                      Contains("KV cache precision int4 is not supported") && Contains("fp8"));
  // Boundary pair: fp8 and int8 KV are accepted.
  CHECK(resolve_precision(spec(DType::bf16, DType::bf16, DType::fp8), h100).kv_cache == DType::fp8);
  CHECK(resolve_precision(spec(DType::bf16, DType::bf16, DType::int8), h100).kv_cache == DType::int8);
}

TEST_CASE("precision: int4 weights with bf16 activations are weight-only (W4A16)", "[precision]") {
  for (const char* gpu : {"h100-sxm", "a100-sxm4-80gb"}) {
    INFO("GPU " << gpu);
    const ResolvedPrecision r = resolve_precision(spec(DType::int4, DType::bf16, DType::bf16), load_gpu(gpu));
    CHECK(r.weights == DType::int4);
    CHECK(r.compute == DType::bf16);
    CHECK(r.weight_only);
    CHECK_FALSE(r.emulated);
    // int4 is 4 bits: "W4A16".
    CHECK_THAT(r.describe(), Contains("W4A16") && Contains("weight-only"));
  }
  // Boundary pair: bf16 weights with bf16 compute are not weight-only.
  CHECK_FALSE(resolve_precision(spec(DType::bf16, DType::bf16, DType::bf16), load_gpu("h100-sxm")).weight_only);
}

TEST_CASE("precision: activations narrower than weights are rejected", "[precision][errors]") {
  const GpuSpec h100 = load_gpu("h100-sxm");
  REQUIRE_THROWS_WITH(resolve_precision(spec(DType::bf16, DType::fp8, DType::bf16), h100),
                      Contains("bf16 weights with fp8 activations") &&
                          Contains("weights must be quantized at least as far as the activations"));
  // int4 activations are rejected with a pointer to W4A16.
  REQUIRE_THROWS_WITH(resolve_precision(spec(DType::int4, DType::int4, DType::bf16), h100),
                      Contains("int4 activations are not supported") && Contains("W4A16"));
}
