#include "model/gguf.h"

#include "util/text.h"

namespace servesim {

std::string gguf_type_name(GgufType t) {
  switch (t) {
    case GgufType::none: return "";
    case GgufType::f16: return "f16";
    case GgufType::q8_0: return "q8_0";
    case GgufType::q6_k: return "q6_k";
    case GgufType::q5_k_m: return "q5_k_m";
    case GgufType::q4_k_m: return "q4_k_m";
    case GgufType::q4_0: return "q4_0";
  }
  return "";
}

std::vector<std::string> gguf_type_names() { return {"f16", "q8_0", "q6_k", "q5_k_m", "q4_k_m", "q4_0"}; }

GgufType find_gguf_type(const std::string& text) {
  const std::string t = to_lower(trim(text));
  for (GgufType g : {GgufType::f16, GgufType::q8_0, GgufType::q6_k, GgufType::q5_k_m, GgufType::q4_k_m, GgufType::q4_0})
    if (gguf_type_name(g) == t) return g;
  return GgufType::none;
}

std::string ggml_type_name(GgmlType t) {
  switch (t) {
    case GgmlType::f16: return "f16";
    case GgmlType::q8_0: return "q8_0";
    case GgmlType::q6_k: return "q6_k";
    case GgmlType::q5_k: return "q5_k";
    case GgmlType::q4_k: return "q4_k";
    case GgmlType::q4_0: return "q4_0";
  }
  return "?";
}

double ggml_bits_per_weight(GgmlType t) {
  switch (t) {
    case GgmlType::f16: return 16.0;
    case GgmlType::q8_0: return 34.0 * 8.0 / 32.0;    // fp16 scale + 32 int8 = 34 bytes per 32 weights
    case GgmlType::q6_k: return 210.0 * 8.0 / 256.0;  // 128 low + 64 high bytes, 16 int8 scales, fp16 d
    case GgmlType::q5_k: return 176.0 * 8.0 / 256.0;  // fp16 d, dmin + 12 bytes of 6-bit scales + 32 high + 128 low
    case GgmlType::q4_k: return 144.0 * 8.0 / 256.0;  // fp16 d, dmin + 12 bytes of 6-bit scales + 128 nibble bytes
    case GgmlType::q4_0: return 18.0 * 8.0 / 32.0;    // fp16 scale + 16 nibble bytes = 18 bytes per 32 weights
  }
  return 16.0;
}

bool ggml_is_quantized(GgmlType t) { return t != GgmlType::f16; }

namespace {

GgmlType base_type(GgufType f) {
  switch (f) {
    case GgufType::none:
    case GgufType::f16: return GgmlType::f16;
    case GgufType::q8_0: return GgmlType::q8_0;
    case GgufType::q6_k: return GgmlType::q6_k;
    case GgufType::q5_k_m: return GgmlType::q5_k;
    case GgufType::q4_k_m: return GgmlType::q4_k;
    case GgufType::q4_0: return GgmlType::q4_0;
  }
  return GgmlType::f16;
}

// llama-quant.cpp's use_more_bits: the first and last eighth of the layers and every
// third layer between them (integer arithmetic as in the C++ source).
bool use_more_bits(int i, int n) { return i < n / 8 || i >= 7 * n / 8 || (i - n / 8) % 3 == 2; }

double bytes(GgmlType t) { return ggml_bits_per_weight(t) / 8.0; }

}  // namespace

GgufTensorTypes gguf_tensor_types(GgufType ftype, const ModelSpec& m) {
  GgufTensorTypes out;
  const GgmlType base = base_type(ftype);
  out.base = base;
  const bool k_mix = ftype == GgufType::q4_k_m || ftype == GgufType::q5_k_m;
  const bool eight_experts = m.moe.num_experts == 8;
  // The quantizer's 70B rule (qs.model.type == LLM_TYPE_70B): llama's 70B models have 80 layers.
  const bool seventy_b = m.layers == 80 && !m.moe.enabled();
  const int L = m.layers;
  out.attn_v.assign(L, base);
  out.attn_k.assign(L, base);
  out.attn_output.assign(L, base);
  out.ffn_down.assign(L, base);
  if (ggml_is_quantized(base)) {
    // output.weight: Q6_K unless the file is Q8_0 (a width not divisible by the block falls back to Q8_0).
    out.output = base == GgmlType::q8_0 ? GgmlType::q8_0 : GgmlType::q6_k;
    for (int i = 0; i < L; ++i) {
      GgmlType& v = out.attn_v[i];
      if (k_mix && use_more_bits(i, L)) v = GgmlType::q6_k;
      if (seventy_b && v == GgmlType::q4_k) v = GgmlType::q5_k;
      if (eight_experts) v = GgmlType::q8_0;
      if (eight_experts) out.attn_k[i] = GgmlType::q8_0;
      if (eight_experts && ftype == GgufType::q4_k_m) out.attn_output[i] = GgmlType::q5_k;
      if (k_mix && use_more_bits(i, L)) out.ffn_down[i] = GgmlType::q6_k;
    }
  }

  // Average over the layers' matrices, weighted by each role's weights.
  const double hidden = static_cast<double>(m.hidden);
  const bool mla = m.mla.enabled();
  // Step3's low-rank query (query_rank): its two factors are the layer's query weights.
  const double q = mla ? 0.0
                   : m.query_rank > 0
                       ? static_cast<double>(m.query_rank) * (hidden + static_cast<double>(m.q_dim()))
                       : static_cast<double>(m.q_dim()) * hidden;
  const double kv = mla ? 0.0 : static_cast<double>(m.kv_dim()) * hidden;
  const double o = mla ? 0.0 : static_cast<double>(m.q_dim()) * hidden;
  // MLA's projections take the base type (its kv_b, llama-quant's ATTENTION_KV_B, counts as attn_v:
  // a detail left out).
  const double other_attention = mla ? static_cast<double>(m.attention_params_per_layer()) : 0.0;
  const int moe_layers = m.moe_layers();
  double weights = 0, total = 0;
  for (int i = 0; i < L; ++i) {
    // Which layers are MoE does not change the mix (ffn_down follows the layer index either way); the
    // count of MoE layers sets how many weights each role holds.
    const bool is_moe = i >= L - moe_layers;
    const double mlp = is_moe ? static_cast<double>(m.moe_params_per_layer()) : static_cast<double>(m.dense_mlp_params_per_layer());
    const double gated = m.gated_mlp ? 3.0 : 2.0;
    const double down = mlp / gated;  // down is one of the 2 or 3 equal-sized MLP matrices
    const double up_gate = mlp - down;
    weights += q + 2.0 * kv + o + other_attention + mlp;
    total += q * bytes(base) + kv * bytes(out.attn_k[i]) + kv * bytes(out.attn_v[i]) + o * bytes(out.attn_output[i]) +
             other_attention * bytes(base) + up_gate * bytes(base) + down * bytes(out.ffn_down[i]);
  }
  out.layer_bytes_per_weight = weights > 0 ? total / weights : bytes(base);
  out.embedding_bytes_per_weight = m.tied_embeddings ? bytes(out.output) : bytes(base);
  out.output_bytes_per_weight = bytes(out.output);
  return out;
}

}  // namespace servesim
