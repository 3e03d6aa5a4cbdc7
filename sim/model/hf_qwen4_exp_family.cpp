// Qwen3.8-Flash-Next (Qwen4ExpForConditionalGeneration around a qwen4_exp_text model;
// Qwen4ExpForCausalLM flat; plugins' aliases Qwen3_8FlashNextFor*), read as its model reference
// (NInfer's docs, "Qwen4Exp model reference", which states transformers' models/qwen4_exp as its
// authority) and vLLM's vllm/models/qwen4_exp describe it: Qwen3.5-MoE's layers (read_qwen_hybrid:
// gated delta rule layers, gated GQA every full_attention_interval-th layer, 512 routed experts
// with a shared one) and three parts of its own:
//   hyper-connections  hc_count residual streams of hidden each, mixed before each sublayer by
//                      rank-hc_lowrank mixers (ModelSpec::hc_lowrank) and once more before the
//                      head; no final RMSNorm (the head reads the last mixer's output);
//   QSA                on the attention layers an indexer (index_qk_proj hidden -> indexer_n_heads
//                      x indexer_head_dim queries and one raw key of indexer_head_dim, its query
//                      and key norms) caches a raw key a token, scores blocks of
//                      indexer_compress_ratio tokens by the mean of their keys (no weights:
//                      SparseIndexer::pool_when_scoring) and the attention reads the
//                      indexer_budget / indexer_compress_ratio best blocks (indexer_budget keys)
//                      and the last partial block (up to ratio - 1 more tokens, not counted);
//   PLE                a per-layer n-gram embedding before the one layer ple_layer_ids names
//                      (PleNgram): ngram_size - 1 n-gram sizes x heads_per_ngram rows a token from
//                      one table whose rows are the sum of that many consecutive primes from
//                      ngram_vocab_size_base, rounded up to make_ngram_vocab_size_divisible_by,
//                      each ple_embed_dim / lookups wide; a causal convolution of
//                      ple_conv_kernel_size taps, dilation 3 (the reference's; no config field).
// The MTP layer (mtp_num_hidden_layers) is not counted, as for Qwen3.5.
#include <fmt/format.h>

#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "model/hf_families.h"
#include "util/error.h"

namespace servesim {
namespace {

bool is_prime(std::int64_t n) {
  if (n < 2) return false;
  for (std::int64_t d = 2; d * d <= n; ++d)
    if (n % d == 0) return false;
  return true;
}

// Rows of the n-gram table: the sum of `moduli` consecutive primes from `base` (each head's hash
// modulus; their running sum its row offset), rounded up to a multiple of `multiple`.
std::int64_t ple_table_rows(std::int64_t base, int moduli, std::int64_t multiple) {
  std::int64_t sum = 0, n = base;
  for (int found = 0; found < moduli; ++n)
    if (is_prime(n)) {
      sum += n;
      ++found;
    }
  return (sum + multiple - 1) / multiple * multiple;
}

void read_qsa(const JsonFields& f, ModelSpec& m) {
  const std::string& w = f.where();
  SparseIndexer& ix = m.indexer;
  ix.heads = static_cast<int>(f.at_least("indexer_n_heads", 1));
  ix.head_dim = static_cast<int>(f.at_least("indexer_head_dim", 1));
  if (f.integer("indexer_kv_heads", 1) != 1)
    throw Error(fmt::format("{}: indexer_kv_heads {}: QSA caches one raw index key a token (1)", w,
                            f.integer("indexer_kv_heads")));
  const int ratio = static_cast<int>(f.at_least("indexer_compress_ratio", 1));
  const int budget = static_cast<int>(f.at_least("indexer_budget", 1));
  if (budget % ratio != 0)
    throw Error(fmt::format("{}: indexer_budget {} must be a multiple of indexer_compress_ratio {} (whole blocks)", w,
                            budget, ratio));
  ix.topk = budget;
  ix.block = ratio;
  ix.key_pool = ratio;
  ix.pool_when_scoring = true;
  ix.head_weights = false;  // a block's score sums relu(q_h . k) over the heads, unweighted
  ix.key_fp8 = false;       // raw keys in the activations' precision
  const int attention = m.attention_layers();
  if (attention > 0 && budget < m.max_context) {
    m.local.kind = LocalAttention::Kind::topk;
    m.local.span = budget;
    m.local.layers = attention;
  } else {
    ix = SparseIndexer{};  // a budget of the whole context: dense attention
  }
}

void read_ple(const JsonFields& f, ModelSpec& m) {
  if (!f.has("ple_layer_ids")) return;
  const std::string& w = f.where();
  const std::vector<std::int64_t> ids = f.integers("ple_layer_ids");
  if (ids.empty()) return;
  if (ids.size() != 1 || ids.front() < 1 || ids.front() > m.layers)
    throw Error(fmt::format("{}: ple_layer_ids must name one layer (1-based, at most {}), as Qwen3.8-Flash-Next's [2]",
                            w, m.layers));
  PleNgram& p = m.ple;
  const std::int64_t n = f.at_least("ngram_size", 2);
  const std::int64_t heads = f.at_least("heads_per_ngram", 1);
  if ((n - 1) * heads > 4096)
    throw Error(fmt::format("{}: (ngram_size - 1) x heads_per_ngram = {} rows a token: more than 4096", w,
                            (n - 1) * heads));
  p.lookups = static_cast<int>((n - 1) * heads);
  p.embed_dim = f.at_least("ple_embed_dim", 1);
  if (p.embed_dim % p.lookups != 0)
    throw Error(fmt::format("{}: ple_embed_dim {} is not a multiple of the {} rows a token gathers", w, p.embed_dim,
                            p.lookups));
  p.width = p.embed_dim / p.lookups;
  p.rows = ple_table_rows(f.at_least("ngram_vocab_size_base", 2), p.lookups,
                          f.at_least("make_ngram_vocab_size_divisible_by", 1));
  p.streams = m.hc_mult > 0 ? m.hc_mult : 1;
  p.conv_kernel = static_cast<int>(f.at_least("ple_conv_kernel_size", 1));
  p.conv_dilation = 3;
}

}  // namespace

void apply_ple_table_quantization(const nlohmann::json& j, ModelSpec& m) {
  if (!m.ple.enabled()) return;
  for (const nlohmann::json* o : {&j, j.contains("text_config") ? &j["text_config"] : nullptr}) {
    if (!o || !o->is_object() || !o->contains("quantization_config")) continue;
    const nlohmann::json& q = (*o)["quantization_config"];
    if (!q.is_object() || q.value("quant_method", nlohmann::json()) != "fp8" || !q.contains("modules_to_convert") ||
        !q["modules_to_convert"].is_array())
      continue;
    for (const nlohmann::json& name : q["modules_to_convert"])
      if (name.is_string() && name.get<std::string>().find("ngram_embedding") != std::string::npos) m.ple.table_bytes = 1.0;
  }
}

void read_qwen4_exp(const JsonFields& f, ModelSpec& m) {
  read_qwen_hybrid(f, m);
  const std::string gate = f.string("output_gate_type", "sigmoid");
  if (gate != "sigmoid")
    throw Error(fmt::format("{}: output_gate_type '{}': the attention output gate servesim reads is the sigmoid one",
                            f.where(), gate));
  m.attention_output_gate = true;
  m.hc_mult = static_cast<int>(f.at_least("hc_count", 1));
  if (m.hc_mult == 1) m.hc_mult = 0;  // one stream: a plain residual
  if (m.hc_mult > 0) m.hc_lowrank = static_cast<int>(f.at_least("hc_lowrank", 1));
  m.final_norm = false;  // the output mixer feeds the head
  read_qsa(f, m);
  read_ple(f, m);
  // Qwen's "6B activated per token" fits neither table counted (6.04B; 6.67B with the head).
  m.active_count = ModelSpec::ActiveCount::no_tables;
}

}  // namespace servesim
