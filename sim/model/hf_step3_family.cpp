// StepFun's Step3 (stepfun-ai/step3): a Step3VLForConditionalGeneration (model_type "step3_vl")
// whose text_config is a Step3TextForCausalLM ("step3_text"); servesim reads the text model. Shapes
// from vLLM's model (vllm-project/vllm@d29a69a5f9eac41579524a0c22bcd68dd15b9ba7:
// vllm/model_executor/models/step3_text.py) and its config class (Step3TextConfig,
// vllm/transformers_utils/configs/step3_vl.py):
//   attention  MFA, multi-matrix factorization attention (Step3TextAttention): qkv_proj hidden ->
//              share_q_dim + 2 x head_dim (one KV head: vLLM passes num_kv_heads=1 whatever the
//              config says and refuses any other), inter_norm (RMSNorm of share_q_dim), wq
//              share_q_dim -> num_attention_heads x head_dim, rotary on q and k, o_proj heads x
//              head_dim -> hidden; no biases. ModelSpec::query_rank is share_q_dim.
//   MLP        a layer listed in moe_layers_enum (a comma-separated string; vLLM: every layer but
//              the first when it is missing) is MoE: FusedMoEBlock, moe_num_experts SwiGLU experts
//              of moe_intermediate_size, top moe_top_k, a gate hidden -> moe_num_experts without
//              bias, and beside it share_expert, one SwiGLU MLP of share_expert_dim. The others are
//              a SwiGLU MLP of intermediate_size. Step3's published list (4..59 of 61 layers, the
//              model card's "5 dense layers") leaves a dense layer after the MoE ones: counted
//              (MoeSpec::listed_layers), as Jamba's and MiMo-V2's interleaved lists are.
//   tables     embed_tokens and an untied lm_head (ParallelLMHead; no tie_word_embeddings).
// The wrapper's vision tower (Step3's 321B against the text model's 316B, the model card) is not
// counted, as for every multimodal wrapper (ModelSpec::vision_params_estimate).
#include <fmt/format.h>

#include <cstdint>
#include <set>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "model/hf_families.h"
#include "model/hf_moe_layer_helpers.h"
#include "util/error.h"

namespace servesim {

// Step-3.5's names for the KV groups and the experts (shared), and Step3's own name for the
// context length (max_position_embedding, singular, in Step3TextConfig; max_seq_len beside it).
void alias_step3_fields(nlohmann::json& text) {
  alias_step_common_fields(text);
  for (const char* own : {"max_position_embedding", "max_seq_len"})
    if (text.contains(own) && !text[own].is_null() &&
        (!text.contains("max_position_embeddings") || text["max_position_embeddings"].is_null()))
      text["max_position_embeddings"] = text[own];
}

namespace {

// Which layers are MoE: moe_layers_enum's indices, each within the model and listed once; vLLM's
// default without it is every layer but layer 0.
std::vector<bool> step3_moe_layers(const JsonFields& f, int layers) {
  std::vector<bool> moe(static_cast<std::size_t>(layers), false);
  if (!f.has("moe_layers_enum")) {
    for (int i = 1; i < layers; ++i) moe[static_cast<std::size_t>(i)] = true;
    return moe;
  }
  const std::vector<std::int64_t> listed = parse_layer_list(f.doc()["moe_layers_enum"], f.where());
  std::set<std::int64_t> seen;
  for (const std::int64_t i : listed) {
    if (i >= layers)
      throw Error(fmt::format("{}: moe_layers_enum lists layer {}, past the {} layers (num_hidden_layers)", f.where(),
                              i, layers));
    if (!seen.insert(i).second)
      throw Error(fmt::format("{}: moe_layers_enum lists layer {} twice", f.where(), i));
    moe[static_cast<std::size_t>(i)] = true;
  }
  if (seen.empty())
    throw Error(fmt::format("{}: moe_layers_enum lists no MoE layer; servesim will not read Step3 as a dense model",
                            f.where()));
  return moe;
}

}  // namespace

void read_step3(const JsonFields& f, ModelSpec& m) {
  const std::string w = f.where();
  // vLLM's Step3TextDecoderLayer builds its attention with num_kv_heads=1 and Step3TextMLP refuses
  // any activation but SiLU: a config saying otherwise is not the model vLLM serves.
  if (f.has("num_attention_groups") && f.integer("num_attention_groups") != 1)
    throw Error(fmt::format("{}: num_attention_groups {}: Step3's attention has one KV head (vLLM's "
                            "Step3TextAttention refuses any other count)",
                            w, f.integer("num_attention_groups")));
  if (f.string("hidden_act", "silu") != "silu")
    throw Error(fmt::format("{}: hidden_act '{}': Step3's MLPs are SwiGLU (vLLM's Step3TextMLP runs silu only)", w,
                            f.string("hidden_act", "")));
  m.kv_heads = 1;
  // head_dim is given (256): hidden_size / num_attention_heads (112) is not Step3's head.
  m.head_dim = static_cast<int>(f.at_least("head_dim", 1));
  m.query_rank = f.at_least("share_q_dim", 1);
  if (m.query_rank > m.hidden)
    throw Error(fmt::format("{}: share_q_dim {} exceeds hidden_size {}: the query's rank cannot be wider than its "
                            "input",
                            w, m.query_rank, m.hidden));
  m.qkv_bias = false;
  m.attention_o_bias = false;
  m.gated_mlp = true;
  m.moe.num_experts = static_cast<int>(f.at_least("num_experts", 1));  // moe_num_experts
  m.moe.experts_per_token = static_cast<int>(f.at_least("num_experts_per_tok", 1));  // moe_top_k
  if (m.moe.experts_per_token > m.moe.num_experts)
    throw Error(fmt::format("{}: moe_top_k {} exceeds moe_num_experts {}", w, m.moe.experts_per_token,
                            m.moe.num_experts));
  m.moe.expert_ffn = f.at_least("moe_intermediate_size", 1);
  // FusedMoEBlock always runs share_expert beside the routed experts.
  m.moe.shared_experts = 1;
  m.moe.shared_expert_ffn = f.at_least("share_expert_dim", 1);
  set_moe_layers(step3_moe_layers(f, m.layers), m);
  if (m.dense_mlp_layers() > 0 && m.ffn <= 0)
    throw Error(fmt::format("{}: the {} dense layers (those moe_layers_enum leaves out) need a positive "
                            "intermediate_size, got {}",
                            w, m.dense_mlp_layers(), m.ffn));
  // StepFun's "Activated Params per Token: 38B" fits the LM head counted and the embedding not
  // (37.92B, -0.2%; both tables 38.84B, +2.2%; neither 36.99B, -2.6%:
  // tests/unit/test_hf_step3_family.cpp works them out), as DeepSeek's figures do.
  m.active_count = ModelSpec::ActiveCount::lm_head_only;
}

}  // namespace servesim
