// Meituan's LongCat-Flash (LongcatFlashForCausalLM, model_type "longcat_flash": LongCat-Flash-Chat,
// -Thinking, the Omni model's text part) and LongCat-Flash-Lite (LongcatFlashNgramForCausalLM,
// "longcat_flash_ngram"). Shapes from transformers' LongcatFlashConfig, whose defaults are
// LongCat-Flash-Chat's (huggingface/transformers@008e574391258935f3ecc3035c882e73bbcac419:
// src/transformers/models/longcat_flash/configuration_longcat_flash.py), and vLLM's model
// (vllm-project/vllm@fe441ccfe6a851ce9704eb3ed5a4f5559b89e75f:vllm/model_executor/models/longcat_flash.py):
//   block      num_layers blocks, each two sublayers: MLA attention (self_attn.0 and .1), each
//              followed by a dense SwiGLU MLP of ffn_hidden_size (mlps.0 and .1); the block's
//              shortcut-connected MoE runs beside the first MLP on the first sublayer's output.
//              servesim lays that out as 2 x num_layers layers of MLA attention, every second one
//              MoE with the first MLP as its always-on shared expert (Llama 4's interleaved
//              layout), the others dense. transformers' num_hidden_layers is that 2 x num_layers;
//              vLLM reads num_layers first, so does servesim.
//   MoE        n_routed_experts SwiGLU experts of expert_ffn_hidden_size and zero_expert_num
//              identity experts; the router (hidden -> both counts, no bias: router_bias) picks
//              moe_topk of them. MoeSpec::zero_experts says how they are priced.
//   Lite       plus the n-gram embedding (NgramEmbedding, layer_kinds.h): emb_split_num,
//              emb_neighbor_num, ngram_vocab_size_ratio (vLLM also takes the oe_* names).
// Not modelled: the shortcut's overlap of the MoE's all-to-all with the dense path (the MoE and
// the MLP are priced one after the other), and the MTP module the checkpoints carry (not read).
#include <fmt/format.h>

#include <cmath>
#include <cstdint>
#include <string>

#include <nlohmann/json.hpp>

#include "model/hf_families.h"
#include "util/error.h"

namespace servesim {

void alias_longcat_fields(nlohmann::json& text, const std::string& where) {
  // A LongCat "layer" is a block of two attention + MLP sublayers.
  if (text.contains("num_layers") && !text["num_layers"].is_null()) {
    if (!text["num_layers"].is_number_integer() || text["num_layers"].get<std::int64_t>() < 1 ||
        text["num_layers"].get<std::int64_t>() > (1 << 20))
      throw Error(fmt::format("{}: num_layers must be a positive block count, got {}", where, text["num_layers"].dump()));
    text["num_hidden_layers"] = 2 * text["num_layers"].get<std::int64_t>();
  }
  if (text.contains("ffn_hidden_size") && !text["ffn_hidden_size"].is_null())
    text["intermediate_size"] = text["ffn_hidden_size"];
  // LongCat-2's over-embedding names (vLLM's config maps oe_* to the n-gram fields).
  for (const auto& [own, common] : {std::pair{"oe_vocab_size_ratio", "ngram_vocab_size_ratio"},
                                    std::pair{"oe_neighbor_num", "emb_neighbor_num"},
                                    std::pair{"oe_split_num", "emb_split_num"}})
    if (text.contains(own) && !text[own].is_null() && (!text.contains(common) || text[common].is_null()))
      text[common] = text[own];
}

namespace {

void read_ngram_embedding(const JsonFields& f, ModelSpec& m) {
  const std::int64_t n = f.at_least("emb_neighbor_num", 2);
  const std::int64_t k = f.at_least("emb_split_num", 1);
  const nlohmann::json& ratio = f.doc()["ngram_vocab_size_ratio"];
  if (!ratio.is_number() || !(ratio.get<double>() > 0.0) || ratio.get<double>() > 1e6)
    throw Error(fmt::format("{}: ngram_vocab_size_ratio must be a positive number (the n-gram tables' rows per "
                            "vocabulary entry), got {}",
                            f.where(), f.has("ngram_vocab_size_ratio") ? ratio.dump() : std::string("nothing")));
  const std::int64_t tables = k * (n - 1);
  if (tables > 4096 || m.hidden % tables != 0)
    throw Error(fmt::format("{}: hidden_size {} must split evenly over the emb_split_num x (emb_neighbor_num - 1) = {} "
                            "n-gram tables",
                            f.where(), m.hidden, tables));
  m.ngram.tables = static_cast<int>(tables);
  m.ngram.width = m.hidden / tables;
  m.ngram.rows_base = ratio.get<double>() * static_cast<double>(m.vocab);
}

}  // namespace

void read_longcat_flash(const JsonFields& f, ModelSpec& m) {
  if (!f.has("num_hidden_layers") || m.layers % 2 != 0)
    throw Error(fmt::format("{}: LongCat gives num_layers blocks of two sublayers (or num_hidden_layers, twice that); "
                            "got {} sublayers",
                            f.where(), m.layers));
  read_mla(f, m);
  m.kv_heads = m.heads;
  m.gated_mlp = true;  // vLLM's FlashMLP: SiLU and multiply only
  m.moe.num_experts = static_cast<int>(f.at_least("n_routed_experts", 1));
  m.moe.routed_topk = static_cast<int>(f.at_least("moe_topk", 1));
  m.moe.zero_experts = f.has("zero_expert_num") ? static_cast<int>(f.at_least("zero_expert_num", 0)) : 0;
  if (m.moe.zero_experts > 0 && f.string("zero_expert_type", "identity") != "identity")
    throw Error(fmt::format("{}: zero_expert_type '{}': servesim prices identity zero experts only", f.where(),
                            f.string("zero_expert_type", "")));
  const int choices = m.moe.num_experts + m.moe.zero_experts;
  if (m.moe.routed_topk > choices)
    throw Error(fmt::format("{}: moe_topk {} exceeds the {} experts it picks from", f.where(), m.moe.routed_topk, choices));
  // With the router's picks spread over all choices, a token reaches topk x E / (E + Z) real
  // experts on average: 12 x 512 / 768 = 8 for LongCat-Flash-Chat, which with its shapes gives the
  // publisher's "27B on average" (tests/unit/test_hf_longcat_family.cpp works it out).
  m.moe.experts_per_token = static_cast<int>(std::lround(static_cast<double>(m.moe.routed_topk) * m.moe.num_experts / choices));
  if (m.moe.zero_experts == 0) m.moe.routed_topk = 0;
  m.moe.expert_ffn = f.integer("expert_ffn_hidden_size", f.integer("moe_intermediate_size", m.ffn));
  m.moe.shared_experts = 1;  // the MLP beside the MoE on the block's first sublayer
  m.moe.shared_expert_ffn = m.ffn;
  m.moe.layer_step = 2;
  if (f.has("ngram_vocab_size_ratio") || f.string("model_type", "") == "longcat_flash_ngram")
    read_ngram_embedding(f, m);
  // The publisher's figures (18.6B-31.3B, 27B on average for the Chat model; 2.9B-4.5B for
  // Lite) fit the LM head counted and the embedding not.
  m.active_count = ModelSpec::ActiveCount::lm_head_only;
}

}  // namespace servesim
