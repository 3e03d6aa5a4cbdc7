// GGUF weight types (model/gguf.h): bits per weight of each ggml block layout, the mixes
// llama.cpp's quantizer makes of them, and the file sizes llama-bench prints for them.
#include <catch2/catch.hpp>

#include "config/catalog_reader.h"
#include "cost/memory_plan.h"
#include "cost/weight_bytes.h"
#include "model/gguf.h"

using namespace servesim;

TEST_CASE("gguf: bits per weight of each block layout, scales included", "[gguf]") {
  // Q8_0: 32 int8 + one fp16 scale = 34 bytes / 32 weights = 8.5 bits.
  CHECK(ggml_bits_per_weight(GgmlType::q8_0) == 8.5);
  // Q4_0: 16 bytes of nibbles + fp16 scale = 18 bytes / 32 = 4.5 bits.
  CHECK(ggml_bits_per_weight(GgmlType::q4_0) == 4.5);
  // Q4_K: 256 weights in 128 nibble bytes + 12 bytes of 6-bit scales + fp16 d, dmin = 144 bytes: 4.5 bits.
  CHECK(ggml_bits_per_weight(GgmlType::q4_k) == 4.5);
  // Q5_K: 128 + 32 high-bit bytes + 12 + 4 = 176 bytes / 256 = 5.5 bits.
  CHECK(ggml_bits_per_weight(GgmlType::q5_k) == 5.5);
  // Q6_K: 128 low + 64 high + 16 int8 scales + fp16 d = 210 bytes / 256 = 6.5625 bits.
  CHECK(ggml_bits_per_weight(GgmlType::q6_k) == 6.5625);
  CHECK(ggml_bits_per_weight(GgmlType::f16) == 16.0);
}

TEST_CASE("gguf: a plain type stores every layer matrix in it, the LM head in Q6_K", "[gguf]") {
  const ModelSpec m = load_model("llama-2-7b");
  const GgufTensorTypes q4 = gguf_tensor_types(GgufType::q4_0, m);
  CHECK(q4.layer_bytes_per_weight == 4.5 / 8);
  CHECK(q4.embedding_bytes_per_weight == 4.5 / 8);
  CHECK(q4.output_bytes_per_weight == 6.5625 / 8);  // output.weight -> Q6_K unless the file is Q8_0
  const GgufTensorTypes q8 = gguf_tensor_types(GgufType::q8_0, m);
  CHECK(q8.layer_bytes_per_weight == 8.5 / 8);
  CHECK(q8.output_bytes_per_weight == 8.5 / 8);
  const GgufTensorTypes f16 = gguf_tensor_types(GgufType::f16, m);
  CHECK(f16.layer_bytes_per_weight == 2.0);
  CHECK(f16.output_bytes_per_weight == 2.0);
}

TEST_CASE("gguf: Q4_K_M gives attn_v and ffn_down Q6_K on the more-bits layers", "[gguf]") {
  // llama-2-7b: 32 layers; use_more_bits(i, 32) holds for i < 4, i >= 28 and (i - 4) % 3 == 2
  // (i = 6, 9, ..., 27): 4 + 4 + 8 = 16 layers. Per layer q, k, v, o are 4096 x 4096 =
  // 16,777,216 weights each and gate, up, down 4096 x 11008 = 45,088,768 each: 202,375,168.
  // On the 16 more-bits layers v and down (61,865,984 weights) are Q6_K, the rest Q4_K:
  //   bytes/weight = 0.5625 + (16/32) x (61,865,984 / 202,375,168) x (0.8203125 - 0.5625)
  //               = 0.5625 + 0.5 x 0.3056988 x 0.2578125 = 0.6019064 -> 4.8153 bits.
  const ModelSpec m = load_model("llama-2-7b");
  const GgufTensorTypes t = gguf_tensor_types(GgufType::q4_k_m, m);
  int more = 0;
  for (int i = 0; i < 32; ++i) more += t.attn_v[i] == GgmlType::q6_k ? 1 : 0;
  CHECK(more == 16);
  CHECK(t.attn_v[0] == GgmlType::q6_k);
  CHECK(t.attn_v[4] == GgmlType::q4_k);
  CHECK(t.attn_v[6] == GgmlType::q6_k);
  CHECK(t.ffn_down[27] == GgmlType::q6_k);
  CHECK(t.attn_output[6] == GgmlType::q4_k);
  const double v_down = 16777216.0 + 45088768.0, layer = 202375168.0;
  const double expect = 0.5625 + 0.5 * (v_down / layer) * (0.8203125 - 0.5625);
  CHECK(t.layer_bytes_per_weight == Approx(expect).epsilon(1e-12));
  CHECK(t.layer_bytes_per_weight * 8 == Approx(4.8153).epsilon(1e-4));
  // Q5_K_M: the same layers bumped from Q5_K (0.6875 B) to Q6_K.
  const GgufTensorTypes t5 = gguf_tensor_types(GgufType::q5_k_m, m);
  CHECK(t5.layer_bytes_per_weight == Approx(0.6875 + 0.5 * (v_down / layer) * (0.8203125 - 0.6875)).epsilon(1e-12));
}

TEST_CASE("gguf: the weights of llama-2-7b files are the sizes llama-bench prints", "[gguf][memory]") {
  // llama-bench's size column for LLaMA 7B (ggml-org/llama.cpp PR #3412 and issue #10435 tables):
  // F16 12.55 GiB, Q8_0 6.67 GiB, Q4_K_M 3.80 GiB, Q4_0 3.56 GiB. servesim's weights on one
  // device are the layers' matrices, both tables and the norms (16-bit here, f32 in the file:
  // 0.3 MB more there), within 0.5% of those.
  const ModelSpec m = load_model("llama-2-7b");
  const GpuSpec g = load_gpu("rtx-4090");
  const double gib = 1024.0 * 1024.0 * 1024.0;
  for (const auto& [type, size_gib] : {std::pair{GgufType::f16, 12.55}, std::pair{GgufType::q8_0, 6.67},
                                       std::pair{GgufType::q4_k_m, 3.80}, std::pair{GgufType::q4_0, 3.56}}) {
    INFO(gguf_type_name(type));
    PrecisionSpec p;
    p.gguf = type;
    p.weights = gguf_carrier_dtype(type);
    p.activations = DType::fp16;
    p.kv_cache = DType::fp16;
    const ResolvedPrecision r = resolve_precision(p, g);
    CHECK(weight_bytes_per_gpu(m, r, Parallelism{}) / gib == Approx(size_gib).epsilon(0.005));
  }
}

TEST_CASE("gguf: type names are found case-insensitively, other names are not GGUF", "[gguf]") {
  CHECK(find_gguf_type("Q4_K_M") == GgufType::q4_k_m);
  CHECK(find_gguf_type("q8_0") == GgufType::q8_0);
  CHECK(find_gguf_type("bf16") == GgufType::none);
  CHECK(find_gguf_type("fp16") == GgufType::none);  // a plain precision, not the GGUF file type f16
  CHECK(gguf_carrier_dtype(GgufType::q6_k) == DType::int4);
}
