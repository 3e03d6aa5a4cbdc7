// Reader of Preferred Networks' PLaMo 2 (Plamo2ForCausalLM, model_type plamo2; pfnet/plamo-2-1b,
// plamo-2-8b). Shapes as vLLM's plamo2.py builds them (its Plamo2Config fields):
//   - layers: Mamba or attention, vLLM's is_mamba(i): i mod mamba_step != mamba_step / 2 is a
//     Mamba layer (with num_hidden_layers <= mamba_step / 2, every layer but the last);
//     mamba_enabled false: every layer attention. A gated SiLU MLP (gate_up, down) on every layer;
//   - the Mamba mixer: StateLayers' mamba2_bcdt kind (layer_kinds.cpp): mamba_num_heads heads of
//     hidden_size_per_head, state mamba_d_state, conv mamba_d_conv, dt rank max(64, hidden / 16),
//     chunk mamba_chunk_size;
//   - attention: num_attention_heads and num_key_value_heads of hidden_size_per_head, no biases,
//     with per-head q and k RMSNorm weights ((heads + KV heads) x head_dim a layer: NOT counted,
//     2,176 weights a layer of the 1B) and rotary positions. attention_window_size is read by
//     Preferred Networks' modeling code but not by vLLM, whose Attention is built without a
//     window: full attention, as vLLM serves it;
//   - four RMSNorms a layer (pre and post the mixer and the MLP): the two post-norms NOT counted
//     (2 x hidden a layer, as PLaMo 3's).
#include <fmt/format.h>

#include <algorithm>

#include "model/hf_families.h"
#include "util/error.h"

namespace servesim {

void read_plamo2(const JsonFields& f, ModelSpec& m) {
  const std::int64_t head_dim = f.at_least("hidden_size_per_head", 1);
  m.head_dim = static_cast<int>(head_dim);
  m.qkv_bias = false;
  m.tied_embeddings = f.boolean("tie_word_embeddings", true);  // PretrainedConfig's default
  const std::string act = f.string("hidden_act", "silu");
  if (act != "silu")
    throw Error(fmt::format("{}: hidden_act is '{}': PLaMo 2's MLP is SiLU-gated (vLLM's DenseMLP)", f.where(), act));
  m.gated_mlp = true;
  if (!f.boolean("mamba_enabled", true)) return;  // every layer attention
  const std::int64_t step = f.at_least("mamba_step", 2);
  int mamba = 0;
  for (int i = 0; i < m.layers; ++i) {
    const bool is_mamba = m.layers <= step / 2 ? i != m.layers - 1 : i % step != step / 2;
    mamba += is_mamba ? 1 : 0;
  }
  if (mamba == 0) return;
  StateLayers& s = m.state;
  s.kind = StateLayers::Kind::mamba2_bcdt;
  s.layers = mamba;
  s.heads = static_cast<int>(f.at_least("mamba_num_heads", 1));
  s.head_dim = static_cast<int>(head_dim);
  s.key_heads = 1;
  s.key_dim = static_cast<int>(f.at_least("mamba_d_state", 1));
  s.conv_kernel = static_cast<int>(f.has("mamba_d_conv") ? f.at_least("mamba_d_conv", 1) : 4);
  s.conv_bias = false;
  s.dt_rank = static_cast<int>(std::max<std::int64_t>(64, m.hidden / 16));
  s.chunk = static_cast<int>(f.has("mamba_chunk_size") ? f.at_least("mamba_chunk_size", 1) : 256);
  s.state_dtype = m.native_dtype == DType::fp32 ? DType::bf16 : m.native_dtype;
}

}  // namespace servesim
