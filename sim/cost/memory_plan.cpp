#include "cost/memory_plan.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "cost/kv_size.h"
#include "cost/weight_bytes.h"
#include "util/units.h"

namespace servesim {

double weight_bytes_per_gpu(const ModelSpec& m, const ResolvedPrecision& p, const Parallelism& par) {
  const ShardShape s = shard_shape(par, m);
  // Bytes per stored weight of each tensor group (a checkpoint may leave some unquantized),
  // with group scales of a quantized checkpoint; a GGUF file's mix (cost/weight_bytes.h).
  const WeightElementBytes bytes = weight_element_bytes(m, p);
  const double wa = bytes.attention, wd = bytes.dense_mlp, we = bytes.experts;
  const double stage_layers = s.layers;
  const double moe_layers = s.moe_layers;
  // Dense-MLP layers of the stage: the layers that are not MoE, unless some layers have no MLP
  // (Nemotron-H's mixer-only blocks), then the dense ones spread evenly.
  const double dense_layers =
      m.mlp_layers() == m.layers ? stage_layers - moe_layers : stage_layers_of(m.dense_mlp_layers(), m, s);
  // Attention and MLP matrices are split over TP (MLA's down-projections too, approximately);
  // experts are split over EP and their FFN over tp/ep, i.e. every expert weight over tp.
  // KV heads are replicated when tp exceeds them, so each GPU holds whole K/V heads.
  auto attention_of = [&](bool global) {
    const double hd = m.head_dim_of(global), vd = m.value_dim_of(global), kv = gpu_kv_heads_of(m, s, global);
    const double heads = gpu_heads_of(m, s, global);  // Step-3.5-Flash, Laguna: per layer kind
    const double q = heads * hd * (m.attention_output_gate ? 2.0 : 1.0);
    const double kvw = kv * hd + (global && m.global_k_eq_v ? 0.0 : kv * vd);
    // gpt-oss's o_proj bias and sinks: a row and a logit per head (0 for the others).
    const double o_bias = m.attention_o_bias ? static_cast<double>(m.hidden) : 0.0;
    const double sinks = m.attention_sinks ? heads : 0.0;
    // Step3's low-rank query: qkv_proj's query_rank outputs and inter_norm whole on every GPU
    // (vLLM's ReplicatedLinear), wq query_rank -> this GPU's heads split over TP.
    if (m.query_rank > 0) {
      const double r = static_cast<double>(m.query_rank);
      return static_cast<double>(m.hidden) * (r + kvw) + r + r * q + (m.qkv_bias ? q + kvw : 0.0) +
             heads * vd * m.hidden + o_bias + sinks;
    }
    return static_cast<double>(m.hidden) * (q + kvw) + (m.qkv_bias ? q + kvw : 0.0) +
           heads * vd * m.hidden + o_bias + sinks;
  };
  double per_gpu = 0.0;
  if (m.mla.enabled()) {
    // MLA on every layer, or (Kimi Linear: KDA layers beside it) on the attention layers only.
    const double mla_layers =
        m.attention_layers() == m.layers ? stage_layers : stage_layers_of(m.attention_layers(), m, s);
    per_gpu = mla_layers * (static_cast<double>(m.attention_params_per_layer()) / par.tp) * wa;
  } else if (!m.mixed_attention_shapes()) {
    per_gpu = stage_layers_of(m.attention_layers(), m, s) * attention_of(true) * wa;
  } else {
    const int local = m.local.enabled() ? m.local.layers : 0;
    per_gpu = (stage_layers_of(m.global_attention_layers(), m, s) * attention_of(true) +
               stage_layers_of(local, m, s) * attention_of(false)) *
              wa;
  }
  // Layers of differing widths (mlp_widths): the stage holds its share of their mean.
  const double dense_per_layer = m.mlp_widths.empty() || m.dense_mlp_layers() <= 0
                                     ? static_cast<double>(m.dense_mlp_params_per_layer())
                                     : static_cast<double>(m.dense_mlp_params()) / m.dense_mlp_layers();
  per_gpu += dense_layers * dense_per_layer / par.tp * wd;
  // Routed experts: (experts + redundant slots) x one expert's weights over the stage's
  // tp x attention_dp GPUs (ep groups of moe_tp GPUs each); the router and the shared
  // experts follow the attention layout (tp-way, one copy per DP rank). With
  // attention_dp = 1 and no redundant slots the sum is moe_params_per_layer() exactly
  // (integers below 2^53), so the classic layout's bytes are unchanged.
  double moe_params = static_cast<double>(m.moe_params_per_layer());
  if (m.moe.enabled() && (par.attention_dp > 1 || par.redundant_experts > 0)) {
    // One expert at the width it runs at (a latent MoE's latent width).
    const std::int64_t one_expert = (m.gated_mlp ? 3 : 2) * (m.moe.latent > 0 ? m.moe.latent : m.hidden) * m.moe.expert_ffn;
    // ERNIE-4.5-VL's vision experts are spread over the ranks as the text experts are.
    const std::int64_t vision = m.vision_expert_params_per_layer();
    const std::int64_t routed = static_cast<std::int64_t>(m.moe.num_experts + par.redundant_experts) * one_expert + vision;
    const std::int64_t rest = m.moe_params_per_layer() - static_cast<std::int64_t>(m.moe.num_experts) * one_expert - vision;
    moe_params = static_cast<double>(routed) / par.attention_dp + static_cast<double>(rest);
  }
  // Of them, the shared experts take their own tensor group's bytes (a checkpoint may store them
  // otherwise than the routed ones: NVIDIA's MiniMax-M3 NVFP4 keeps them MXFP8) and the router
  // stays 16-bit (no quantized checkpoint or engine quantizes the gate: vLLM builds it without a
  // quant_config), as the step cost prices them (layer_ops.h shared_expert_ops, moe_router).
  const double router = static_cast<double>(m.router_params_per_layer());
  const double shared = static_cast<double>(m.shared_expert_params_per_layer());
  per_gpu += moe_layers * ((moe_params - router - shared) * we + shared * bytes.shared_experts + router * 2.0) / par.tp;
  // State layers split over TP; DSA's indexer replicated on every GPU.
  if (m.state.enabled())
    per_gpu += stage_layers_of(m.state.layers, m, s) * static_cast<double>(m.state.params_per_layer(m.hidden)) / par.tp *
               bytes.state_layers;
  if (m.indexer.enabled())
    per_gpu += stage_layers_of(m.indexer_layers(), m, s) *
               static_cast<double>(m.indexer.params_per_layer(m.hidden, m.mla.q_lora_rank)) * wa;
  // DeepSeek-V4's compressed attention: wq_b, wo_a, wo_b split over TP, the rest replicated;
  // the compressors and the indexer's head weights bf16 (layer_kinds.h); hyper-connection
  // weights fp32; the hash-routing tables int32 (4 bytes an entry).
  if (m.compressed.enabled()) {
    const CompressedAttention& c = m.compressed;
    const double share = stage_layers_of(m.layers, m, s) / m.layers;
    const double split = static_cast<double>(c.layers()) * c.split_params_per_layer(m.hidden, m.heads);
    const double bf16 = static_cast<double>(c.bf16_params(m.hidden));
    const double rest = static_cast<double>(c.params(m.hidden, m.heads)) - split - bf16;
    per_gpu += share * ((rest + split / par.tp) * wa + bf16 * 2.0);
  }
  per_gpu += (static_cast<double>(m.hc_params()) * m.hc_weight_bytes() + static_cast<double>(m.hash_table_params()) * 4.0) *
             stage_layers_of(m.layers, m, s) / m.layers;
  // Llama 3.2 Vision's cross-attention layers (held, not run for text): the self-attention
  // layers' q/k/v/o shapes and MLP split over TP as theirs, the stage's share of them
  // (as the self-attention layers are spread over the stages); norms and gates 16-bit.
  if (m.cross_attention_layers > 0) {
    const double cross = static_cast<double>(m.cross_attention_layers) * stage_layers_of(m.layers, m, s) / m.layers;
    const double small = 2.0 * m.head_dim + 2.0 * static_cast<double>(m.hidden) + 2.0;
    per_gpu += cross * (attention_of(true) * wa + 3.0 * static_cast<double>(m.hidden) * m.ffn / par.tp * wd + small * 2.0);
  }
  // Gemma 4's KV-sharing layers hold no k_proj / v_proj (split over TP as the others', KV heads
  // replicated past their count).
  if (!m.kv_shared_layers_hold_kv_proj)
    per_gpu -= static_cast<double>(m.kv_shared_missing_kv_proj_params()) / std::min(par.tp, std::max(1, m.kv_heads)) * wa *
               stage_layers_of(m.layers, m, s) / m.layers;
  // Gemma 3n's AltUp, LAuReL and per-layer gates and projections (Gemma 4's small models: the
  // last alone), the stage's share, whole on every GPU at the layers' bytes (vLLM builds them
  // replicated); the model-level projections with the tables below.
  if (m.gemma3n.enabled())
    per_gpu += static_cast<double>(m.gemma3n.params_per_layer(m.hidden)) * stage_layers_of(m.layers, m, s) * wa;
  // Zamba2's shared blocks: held `blocks` times, not once per use, with their wider q/k/v input,
  // and each use's adapters and linear map (shared_blocks_params_delta), split over TP (the
  // linear maps are replicated in vLLM: under 5% of the model, counted as split).
  if (m.shared_blocks.enabled())
    per_gpu += static_cast<double>(m.shared_blocks_params_delta()) / par.tp * wa * stage_layers_of(m.layers, m, s) / m.layers;
  // A looped model's passes run one set of layer weights (ModelSpec::layer_passes; only
  // attention and dense MLP layers are summed above for it): held once.
  if (m.layer_passes > 1) per_gpu /= m.layer_passes;
  // IQuest-Loop-Coder's gate projections (held once, split over TP as ColumnParallelLinear).
  per_gpu += static_cast<double>(m.loop_gate_params) / par.tp * wa * stage_layers_of(m.layers, m, s) / m.layers;
  // Kimi K3's attention residuals: norms and hidden -> 1 projections, replicated, 16-bit (vLLM
  // builds the projections without a quant_config).
  per_gpu += static_cast<double>(m.attn_res_params()) * stage_layers_of(m.layers, m, s) / m.layers * 2.0;
  // Embedding and LM head stay 16-bit (a GGUF file quantizes them); with PP the first stage
  // holds the embedding and the last the head: the busiest stage has at most both (pp == 1)
  // or one of them.
  // The tables are table_width() wide (OPT-350m: word_embed_proj_dim, with project_in beside the
  // embedding and project_out beside the head, replicated as vLLM's opt.py builds them); a
  // learned position table (GPT-2's wpe) is replicated beside the embedding.
  const double table_elems = static_cast<double>(m.vocab) * m.table_width() / par.tp;
  const double projection = static_cast<double>(m.embed_projection_params()) / 2.0;
  // LongCat-Flash-Lite's n-gram tables split over TP like the token table (vLLM builds them as
  // VocabParallelEmbedding), their projections replicated (ReplicatedLinear), beside the embedding.
  // Qwen3.8-Flash-Next's PLE table the same (vLLM's default; VLLM_PLE_CPU_OFFLOAD=1 moves it to
  // host memory, not modelled), its projections and norms replicated.
  const double ple_table_bytes = m.ple.table_bytes > 0 ? m.ple.table_bytes : bytes.embedding;
  const double ngram = static_cast<double>(m.ngram.table_params()) / par.tp * bytes.embedding +
                       static_cast<double>(m.ple.table_params()) / par.tp * ple_table_bytes +
                       static_cast<double>(m.ngram.projection_params(m.hidden) + m.ple.projection_params(m.hidden)) * wa;
  // Gemma 3n's per-layer embedding table split over TP as the token table (VocabParallelEmbedding),
  // its projection hidden -> layers x w split too (ColumnParallelLinear), the AltUp projections whole.
  // Their sum is table_params() + model_params() (a PLE norm of w weights, 16-bit, beside them).
  double per_layer_inputs = 0.0;
  if (m.gemma3n.enabled()) {
    const Gemma3nParts& g = m.gemma3n;
    const double ple_projection = static_cast<double>(m.hidden) * m.layers * g.ple_width;
    const double altup_projections = static_cast<double>(m.gemma3n.model_params(m.hidden, m.layers)) - ple_projection -
                                     static_cast<double>(g.ple_width);
    per_layer_inputs = static_cast<double>(g.table_params(m.layers)) / par.tp * bytes.embedding +
                       ple_projection / par.tp * wa + altup_projections * wa + static_cast<double>(g.ple_width) * 2.0;
  }
  const double embedding = (table_elems + static_cast<double>(m.position_table_params())) * bytes.embedding +
                           projection * wa + ngram + per_layer_inputs;
  const double head = table_elems * bytes.lm_head + projection * wa;
  const double tables = m.tied_embeddings ? embedding + (par.pp == 1 ? projection * wa : 0.0)
                                          : (par.pp == 1 ? embedding + head : std::max(embedding, head));
  per_gpu += tables;
  per_gpu += static_cast<double>(m.norm_params() - m.repeated_pass_norm_params()) / par.pp * 2.0;
  return per_gpu;
}

DraftMemory draft_memory(const CostModel& drafter, bool shared_tables) {
  const ModelSpec& m = drafter.model();
  DraftMemory d;
  d.weights = weight_bytes_per_gpu(m, drafter.precision(), drafter.parallelism());
  if (shared_tables) {
    const double table = static_cast<double>(m.vocab) * m.table_width() / drafter.parallelism().tp * 2.0;
    d.weights -= m.tied_embeddings ? table : 2.0 * table;
  }
  d.kv_bytes_per_token = gpu_kv_bytes_per_token(m, drafter.shard(), drafter.precision().kv_cache);
  return d;
}

MemoryPlan plan_memory(const CostModel& cost, const MemoryConfig& cfg, const DraftMemory* draft) {
  const ModelSpec& m = cost.model();
  const ShardShape& s = cost.shard();
  const GpuSpec& g = cost.gpu();
  MemoryPlan plan;
  // On unified memory only the share the OS lets a model process hold (GpuSpec::usable_memory).
  plan.capacity = g.usable_memory();
  plan.budget = plan.capacity * cfg.gpu_memory_utilization;
  plan.weights = weight_bytes_per_gpu(m, cost.precision(), cost.parallelism());
  // vLLM's profiling run pushes max_num_batched_tokens through one layer at a time;
  // the peak holds the residual stream, QKV, and the MLP's gate/up and activation
  // outputs for all of them, plus fp32 logits of the sampled rows.
  const double T = static_cast<double>(cfg.max_num_batched_tokens);
  const double a = 2.0;
  // (the layer kind with more query heads where they differ: Step-3.5-Flash's sliding layers)
  const double q_heads = std::max<double>(s.heads, gpu_heads_of(m, s, true));
  const double qkv = (q_heads + s.kv_heads) * m.head_dim + s.kv_heads * m.value_dim_of(false);
  const double ffn = m.moe.enabled() ? static_cast<double>(s.expert_ffn) * m.moe.experts_per_token
                                     : static_cast<double>(s.ffn);
  plan.activations = T * (4.0 * m.hidden + qkv + 3.0 * ffn) * a +
                     std::min<double>(T, static_cast<double>(cfg.max_num_seqs)) * static_cast<double>(s.vocab) * 4.0 * 2.0;
  plan.runtime_overhead = cfg.runtime_overhead_bytes;
  plan.kv_bytes = plan.budget - plan.weights - plan.activations - plan.runtime_overhead;
  plan.kv_bytes_per_token = gpu_kv_bytes_per_token(m, s, cost.precision().kv_cache);
  if (draft) {
    plan.weights += draft->weights;
    plan.kv_bytes = plan.budget - plan.weights - plan.activations - plan.runtime_overhead;
    plan.kv_bytes_per_token += draft->kv_bytes_per_token;
  }
  if (cfg.lora_slot_bytes > 0) {  // the adapters' GPU slots, allocated with the weights
    plan.lora_slots = cfg.lora_slot_bytes;
    plan.kv_bytes -= plan.lora_slots;
  }
  if (m.state.enabled() || m.compressed.enabled() || m.ple.enabled()) {  // a state slot for each sequence the engine may run
    // (DeepSeek-V4: its windows and compressor state, held by every sequence at any length)
    plan.state_bytes_per_sequence = gpu_state_bytes_per_sequence(m, s, cost.precision().activation_storage) +
                                    gpu_fixed_kv_bytes_per_sequence(m, s, cost.precision().kv_cache);
    plan.state_slots = cfg.max_num_seqs;
    plan.state_bytes = plan.state_bytes_per_sequence * static_cast<double>(plan.state_slots);
    plan.kv_bytes -= plan.state_bytes;
  }
  const double block_bytes = plan.kv_bytes_per_token * cfg.block_size;
  // Each GPU holds its shard of every block of its attention DP rank; a replica has
  // attention_dp ranks, each with its own blocks (MLA's latent is per rank, not replicated).
  const Parallelism& layout = cost.parallelism();
  // A model without attention (a pure SSM: Mamba, Mamba-2) caches nothing per token: its blocks
  // take no memory, so the sequences are bounded by the state slots alone. It gets blocks enough
  // for every slot's sequence at the model's full context, and fits while the slots do.
  const bool no_kv = !(block_bytes > 0);
  const std::int64_t blocks_per_sequence = (m.max_context + cfg.block_size - 1) / cfg.block_size;
  plan.kv_blocks_per_rank =
      plan.kv_bytes <= 0 ? 0
      : no_kv            ? std::max<std::int64_t>(plan.state_slots, 1) * blocks_per_sequence
                         : static_cast<std::int64_t>(std::floor(plan.kv_bytes / block_bytes));
  plan.kv_blocks = plan.kv_blocks_per_rank * layout.attention_dp;
  plan.kv_tokens = plan.kv_blocks * cfg.block_size;
  plan.fits = plan.kv_blocks > 0;

  std::string slots =
      plan.state_slots > 0 ? fmt::format(", after {} state slots of {} ({} per GPU: engine.max_num_seqs sequences)",
                                         plan.state_slots, format_bytes(plan.state_bytes_per_sequence),
                                         format_bytes(plan.state_bytes))
                           : "";
  if (plan.lora_slots > 0)
    slots += fmt::format(", after {} per GPU of LoRA adapter slots (engine.lora)", format_bytes(plan.lora_slots));
  if (plan.fits && no_kv) {
    plan.verdict = fmt::format("fits: no KV cache (no attention layers): the running sequences are bounded by the {} "
                               "state slots of {} ({} per GPU: engine.max_num_seqs sequences), whatever their length; "
                               "{} per GPU left over",
                               plan.state_slots, format_bytes(plan.state_bytes_per_sequence),
                               format_bytes(plan.state_bytes), format_bytes(plan.kv_bytes));
    return plan;
  }
  if (plan.fits) {
    plan.verdict = fmt::format("fits: {} KV blocks ({} tokens) in {} of KV cache per GPU{}", plan.kv_blocks,
                               plan.kv_tokens, format_bytes(plan.kv_bytes), slots);
    if (layout.attention_dp > 1)
      plan.verdict += fmt::format(" ({} attention DP ranks of {} blocks each)", layout.attention_dp,
                                  plan.kv_blocks_per_rank);
    return plan;
  }
  // Say by how much and what would fit: more TP, lower weight precision, a bigger GPU.
  const double need =
      plan.weights + plan.activations + plan.runtime_overhead + plan.state_bytes + plan.lora_slots + block_bytes;
  const double short_by = need - plan.budget;
  std::string advice;
  const Parallelism& par = cost.parallelism();
  for (int tp = par.tp * 2; tp <= 16; tp *= 2) {
    if (m.heads % tp != 0 || m.global_heads % tp != 0) break;
    Parallelism p2 = par;
    p2.tp = tp;
    const double w = weight_bytes_per_gpu(m, cost.precision(), p2);
    if (w + plan.activations / 2 + plan.runtime_overhead < plan.budget * 0.8) {
      advice += fmt::format("tp={} ({} of weights per GPU)", tp, format_bytes(w));
      break;
    }
  }
  // A mixture-of-experts model can spread its experts over more GPUs instead: twice the
  // attention DP ranks and twice the EP group (the experts per GPU halve, the rest stays).
  if (m.moe.enabled() && par.ep > 1 && (m.moe.num_experts + par.redundant_experts) % (2 * par.ep) == 0) {
    Parallelism p2 = par;
    p2.attention_dp *= 2;
    p2.ep *= 2;
    const double w = weight_bytes_per_gpu(m, cost.precision(), p2);
    if (w + plan.activations + plan.runtime_overhead < plan.budget * 0.8) {
      if (!advice.empty()) advice += ", or ";
      advice += fmt::format("attention_dp={} with ep={} ({} of weights per GPU)", p2.attention_dp, p2.ep,
                            format_bytes(w));
    }
  }
  if (dtype_bytes(cost.precision().weights) > 1.0) {
    ResolvedPrecision p8 = cost.precision();
    p8.weights = DType::fp8;
    const double w8 = weight_bytes_per_gpu(m, p8, par);
    if (w8 + plan.activations + plan.runtime_overhead < plan.budget) {
      if (!advice.empty()) advice += ", or ";
      advice += fmt::format("fp8/int8 weights ({})", format_bytes(w8));
    } else {
      ResolvedPrecision p4 = cost.precision();
      p4.weights = DType::int4;
      const double w4 = weight_bytes_per_gpu(m, p4, par);
      if (w4 + plan.activations + plan.runtime_overhead < plan.budget) {
        if (!advice.empty()) advice += ", or ";
        advice += fmt::format("int4 weights ({})", format_bytes(w4));
      }
    }
  }
  if (plan.state_slots > 0) {
    if (!advice.empty()) advice += ", or ";
    advice += fmt::format("a lower engine.max_num_seqs (each sequence's state slot takes {})",
                          format_bytes(plan.state_bytes_per_sequence));
  }
  if (!advice.empty()) advice += ", or ";
  advice += fmt::format("a GPU with more than {} of memory", format_bytes(need / cfg.gpu_memory_utilization));
  plan.verdict = fmt::format(
      "does not fit: {} on {} (tp={}, pp={}{}) needs {} per GPU (weights {}, activations {}, runtime {}, {}{}one KV "
      "block {}) but gpu_memory_utilization {} leaves {} of {}; short by {}. Would fit: {}",
      m.name, g.name, par.tp, par.pp,
      par.wide() ? fmt::format(", attention_dp={}, ep={}", par.attention_dp, par.ep) : std::string(),
      format_bytes(need), format_bytes(plan.weights), format_bytes(plan.activations),
      format_bytes(plan.runtime_overhead),
      plan.state_slots > 0 ? fmt::format("{} state slots {}, ", plan.state_slots, format_bytes(plan.state_bytes)) : "",
      plan.lora_slots > 0 ? fmt::format("LoRA slots {}, ", format_bytes(plan.lora_slots)) : "",
      format_bytes(block_bytes), cfg.gpu_memory_utilization,
      format_bytes(plan.budget), format_bytes(plan.capacity), format_bytes(short_by), advice);
  return plan;
}

}  // namespace servesim
