#pragma once
// GGUF weight types (llama.cpp's file format): the block-quantized ggml types a file
// stores, and the mixes ("ftypes") llama.cpp's quantizer makes of them for a model.
// A type's bits per weight count its block scales: Q8_0 stores 32 int8 weights and one
// fp16 scale (34 bytes per 32 weights, 8.5 bits); Q4_0 32 4-bit weights and an fp16
// scale (18 bytes, 4.5 bits); the K-quants super-blocks of 256 weights with 6-bit
// sub-block scales (Q4_K 144 bytes, 4.5 bits; Q5_K 176 bytes, 5.5 bits; Q6_K 210 bytes,
// 6.5625 bits). Sources: ggml/src/ggml-common.h (block_q8_0, block_q4_0, block_q4_K,
// block_q5_K, block_q6_K), ggml-org/llama.cpp.
//
// The _M mixes are not uniform: src/llama-quant.cpp (llama_tensor_get_type_impl,
// ggml-org/llama.cpp@007dbbf) gives attn_v and ffn_down Q6_K on the "more bits" layers
// (the first and last eighth of the layers and every third one between), stores
// output.weight as Q6_K unless the file is Q8_0 (or F16, which is not quantized), and
// bumps 70B-class attn_v and 8-expert attention tensors further; gguf_tensor_types()
// applies those rules to a ModelSpec.
#include <string>
#include <vector>

#include "model/model_spec.h"

namespace servesim {

// The file types a user picks (llama-quantize's ftype names, lower case). none: not a GGUF file.
enum class GgufType { none, f16, q8_0, q6_k, q5_k_m, q4_k_m, q4_0 };
// The ggml tensor types those mixes are made of.
enum class GgmlType { f16, q8_0, q6_k, q5_k, q4_k, q4_0 };

std::string gguf_type_name(GgufType t);  // "q4_k_m"; "" for none
std::vector<std::string> gguf_type_names();
// The type named `text` (case-insensitive: "Q4_K_M" too), or GgufType::none when it is not one.
GgufType find_gguf_type(const std::string& text);
std::string ggml_type_name(GgmlType t);  // "q6_k"

// Bits per weight of a ggml tensor type, block scales included (closed forms above).
double ggml_bits_per_weight(GgmlType t);
// Whether a type stores blocks of quantized integers (everything but f16).
bool ggml_is_quantized(GgmlType t);

// The ggml type of each tensor role of `model` under the mix `ftype`, as llama.cpp's
// quantizer chooses it, and the bytes per weight those choices average to.
struct GgufTensorTypes {
  GgmlType base = GgmlType::f16;        // the mix's own type (attn_q/k/o, ffn_up/gate, token_embd)
  GgmlType output = GgmlType::f16;      // output.weight (the LM head)
  std::vector<GgmlType> attn_v;         // per layer
  std::vector<GgmlType> attn_k;         // per layer (8-expert models: Q8_0 in the K mixes)
  std::vector<GgmlType> attn_output;    // per layer
  std::vector<GgmlType> ffn_down;       // per layer (dense MLP and experts alike)
  // Bytes per weight over the transformer layers' matrices (what a forward step streams),
  // and of the token embedding and LM head.
  double layer_bytes_per_weight = 2.0;
  double embedding_bytes_per_weight = 2.0;
  double output_bytes_per_weight = 2.0;
};
GgufTensorTypes gguf_tensor_types(GgufType ftype, const ModelSpec& model);

}  // namespace servesim
