// The `parallelism:` section of a scenario: each key declared once (defaults from
// Parallelism's and Setup's members) and read through its declaration.
#include <fmt/format.h>

#include <string>

#include "config/scenario_sections.h"
#include "cost/layout_text.h"
#include "cost/replica_layout.h"
#include "engine/router.h"
#include "util/error.h"

namespace servesim {
namespace {

const Parallelism kDefaults{};

// No model has more than 1024 attention heads or layers to split; each replica is
// simulated with its own engine and KV cache, so their number bounds the run's memory.
constexpr double kMaxDegree = 1024;
constexpr double kMaxReplicas = 10'000;

const Key kTp{
    .name = "tp",
    .type = KeyType::integer,
    .doc = "tensor-parallel GPUs per replica: heads and FFN split, two all-reduces a layer (vLLM "
           "--tensor-parallel-size)",
    .spec = "Parallelism::tp",
    .unit = "GPUs",
    .default_number = static_cast<double>(kDefaults.tp),
    .min = 1,
    .max = kMaxDegree,
    .why = "GPUs in a tensor-parallel group",
};
const Key kPp{
    .name = "pp",
    .type = KeyType::integer,
    .doc = "pipeline stages per replica, layers split between them (vLLM --pipeline-parallel-size)",
    .spec = "Parallelism::pp",
    .unit = "stages",
    .default_number = static_cast<double>(kDefaults.pp),
    .min = 1,
    .max = kMaxDegree,
    .why = "pipeline stages",
};
const Key kEp{
    .name = "ep",
    .type = KeyType::integer,
    .doc = "expert-parallel GPUs (MoE experts split across ep of the tp ranks; vLLM --enable-expert-parallel)",
    .spec = "Parallelism::ep",
    .unit = "GPUs",
    .default_number = static_cast<double>(kDefaults.ep),
    .min = 1,
    .max = kMaxDegree,
    .why = "GPUs in an expert-parallel group",
};
const Key kAttentionDp{
    .name = "attention_dp",
    .type = KeyType::integer,
    .doc = "attention data-parallel ranks per replica (DP attention: SGLang --dp with --enable-dp-attention, vLLM "
           "--data-parallel-size with --enable-expert-parallel, TensorRT-LLM enable_attention_dp): each rank runs "
           "attention tp-way on its own batch and KV cache (MLA's latent is not replicated across ranks); dense "
           "layers, shared experts and the LM head follow the attention layout; mixture-of-experts models only",
    .spec = "Parallelism::attention_dp",
    .unit = "ranks",
    .default_number = static_cast<double>(kDefaults.attention_dp),
    .min = 1,
    .max = kMaxDegree,
    .why = "data-parallel attention ranks of one replica",
};
const Key kRedundantExperts{
    .name = "redundant_experts",
    .type = KeyType::integer,
    .doc = "extra expert slots across the EP group, holding copies of hot experts (DeepSeek EPLB: 32 in both "
           "phases, 256 -> 288 slots; SGLang --ep-num-redundant-experts, vLLM --num-redundant-experts): more "
           "weights per GPU, less load on the busiest GPU (moe.load_balancer)",
    .spec = "Parallelism::redundant_experts",
    .unit = "experts",
    .default_number = static_cast<double>(kDefaults.redundant_experts),
    .min = 0,
    .max = 100000,
    .why = "redundant expert slots",
};
const Key kNodes{
    .name = "nodes",
    .type = KeyType::integer,
    .doc = "nodes one replica spans, as a check of the layout: must equal ceil(tp x attention_dp x pp / "
           "gpus_per_node)",
    .spec = "Parallelism::nodes",
    .unit = "nodes",
    .default_note = "derived from the layout",
    .min = 1,
    .max = kMaxReplicas,
    .why = "a replica spans at least one node",
};
const Key kGpusPerNode{
    .name = "gpus_per_node",
    .type = KeyType::integer,
    .doc = "GPUs per node, i.e. per NVLink domain (8 on HGX H100/H200/B200, 72 on a GB200 NVL72 rack): collectives "
           "and expert all-to-all inside a node use the GPU's intra_node link, across nodes its inter_node network",
    .spec = "GpuSpec::gpus_per_node",
    .unit = "GPUs",
    .default_note = "the GPU file's gpus_per_node",
    .min = 1,
    .max = kMaxDegree,
    .why = "GPUs in one node",
};
const Key kLayout{
    .name = "layout",
    .type = KeyType::text,
    .doc = "the layout the short way, replacing tp, attention_dp, ep and redundant_experts: \"tp8\", \"dp16 ep16\", "
           "\"tp1 dp72 ep72 r32\" (items tp, dp, ep, r, pp; handy for `sweep --vary parallelism.layout=tp8,dp16 ep16`)",
    .spec = "Parallelism (tp, attention_dp, ep, redundant_experts, pp)",
    .default_note = "none: the separate keys",
};
const Key kReplicas{
    .name = "replicas",
    .type = KeyType::integer,
    .doc = "data-parallel copies of the model behind a router (vLLM --data-parallel-size)",
    .spec = "Parallelism::replicas",
    .unit = "replicas",
    .default_number = static_cast<double>(kDefaults.replicas),
    .min = 1,
    .max = kMaxReplicas,
    .why = "each replica is simulated with its own engine and KV cache",
};

// The router names as the engine's registry lists them, kept alive for the
// declaration's string_views.
const std::vector<std::string>& router_names() {
  static const std::vector<std::string> names = [] {
    std::vector<std::string> out;
    for (const auto& [name, what] : router_registry()) out.push_back(name);
    return out;
  }();
  return names;
}

std::string_view default_router_name() {
  for (const auto& name : router_names())
    if (parse_router(name, "") == Setup{}.router) return name;
  return {};
}

const Key kRouter{
    .name = "router",
    .type = KeyType::choice,
    .doc = "how requests are spread over replicas (see `servesim list routers`)",
    .spec = "Setup::router",
    .default_text = default_router_name(),
    .choices = {router_names().begin(), router_names().end()},
};

const Key kRouterWeights{
    .name = "router_weights",
    .type = KeyType::section,
    .doc = "router: scored only: the scorers' weights and the prefix ids remembered per replica (engine/router.h)",
    .spec = "Setup::router_weights",
    .default_note = "llm-d's default profile: prefix 3, queue 2, kv 2; 31250 ids per replica",
};

const Key kWeightPrefix{.name = "prefix",
                        .type = KeyType::number,
                        .doc = "weight of the prefix scorer (share of the prompt's ids routed to the replica before)",
                        .spec = "RouterWeights::prefix",
                        .default_number = 3,
                        .min = 0,
                        .max = 1e6,
                        .why = "a weight"};
const Key kWeightQueue{.name = "queue",
                       .type = KeyType::number,
                       .doc = "weight of the queue scorer (fewer waiting requests than the busiest replica)",
                       .spec = "RouterWeights::queue",
                       .default_number = 2,
                       .min = 0,
                       .max = 1e6,
                       .why = "a weight"};
const Key kWeightKv{.name = "kv",
                    .type = KeyType::number,
                    .doc = "weight of the KV scorer (1 - KV cache use)",
                    .spec = "RouterWeights::kv",
                    .default_number = 2,
                    .min = 0,
                    .max = 1e6,
                    .why = "a weight"};
const Key kWeightSession{.name = "session",
                         .type = KeyType::number,
                         .doc = "weight of the session-affinity scorer (1 for the replica the request's session or "
                                "closed-loop user was last sent to; llm-d's session-affinity-scorer)",
                         .spec = "RouterWeights::session",
                         .default_number = 0,
                         .min = 0,
                         .max = 1e6,
                         .why = "a weight"};
const Key kPrefixScorer{.name = "prefix_scorer",
                        .type = KeyType::choice,
                        .doc = "approximate: the share of the prompt's ids the router sent to the replica before (llm-d's "
                               "prefix-cache-scorer); precise: the share of its blocks the replica's GPU prefix cache "
                               "holds now, evictions seen (llm-d's precise-prefix-cache-scorer on KV events)",
                        .spec = "RouterWeights::precise_prefix",
                        .default_text = "approximate",
                        .choices = {"approximate", "precise"}};
const Key kPrefixBlocks{.name = "prefix_blocks",
                        .type = KeyType::integer,
                        .doc = "prompt block ids the router remembers per replica, the oldest forgotten first (llm-d's "
                               "lruCapacityPerServer)",
                        .spec = "RouterWeights::prefix_blocks",
                        .default_number = 31250,
                        .min = 1,
                        .max = 100000000,
                        .why = "ids per replica"};

}  // namespace

const KeySection& router_weights_key_section() {
  static const KeySection s{.path = "parallelism.router_weights",
                            .doc = "the scored router's scorers (router: scored)",
                            .keys = {&kWeightPrefix, &kWeightQueue, &kWeightKv, &kWeightSession, &kPrefixScorer,
                                     &kPrefixBlocks}};
  return s;
}

const KeySection& parallelism_key_section() {
  static const KeySection s{
      .path = "parallelism",
      .doc = "how one replica is split across GPUs, and how many replicas serve",
      .keys = {&kTp, &kPp, &kEp, &kAttentionDp, &kRedundantExperts, &kNodes, &kGpusPerNode, &kLayout, &kReplicas,
               &kRouter, &kRouterWeights},
  };
  return s;
}

void read_parallelism(ConfigMap& par, Setup& s) {
  // Range-checked before the cast to int.
  s.parallelism.tp = static_cast<int>(read_integer(par, kTp));
  s.parallelism.pp = static_cast<int>(read_integer(par, kPp));
  s.parallelism.ep = static_cast<int>(read_integer(par, kEp));
  s.parallelism.attention_dp = static_cast<int>(read_integer(par, kAttentionDp));
  s.parallelism.redundant_experts = static_cast<int>(read_integer(par, kRedundantExperts));
  if (has_key(par, kNodes)) s.parallelism.nodes = static_cast<int>(read_integer(par, kNodes));
  if (has_key(par, kGpusPerNode)) {
    s.parallelism.gpus_per_node = static_cast<int>(read_integer(par, kGpusPerNode));
    s.gpu.gpus_per_node = s.parallelism.gpus_per_node;  // the node (NVLink domain) every link choice reads
  }
  if (has_key(par, kLayout)) {
    try {
      s.parallelism = apply_layout_text(read_text(par, kLayout), s.parallelism);
    } catch (const Error& e) {
      throw Error(fmt::format("{}: {}", par.where(std::string(kLayout.name)), e.what()));
    }
  }
  s.parallelism.replicas = static_cast<int>(read_integer(par, kReplicas));
  s.router = parse_router(read_text(par, kRouter), par.where(std::string(kRouter.name)));
  if (has_key(par, kRouterWeights)) {
    if (s.router != RouterKind::scored)
      throw Error(fmt::format("{}: router_weights are the scored router's; set router: scored (or remove them)",
                              par.where(std::string(kRouterWeights.name))));
    ConfigMap w = par.map(std::string(kRouterWeights.name));
    s.router_weights.prefix = read_number(w, kWeightPrefix);
    s.router_weights.queue = read_number(w, kWeightQueue);
    s.router_weights.kv = read_number(w, kWeightKv);
    s.router_weights.session = read_number(w, kWeightSession);
    s.router_weights.precise_prefix = read_choice(w, kPrefixScorer) == "precise";
    s.router_weights.prefix_blocks = read_integer(w, kPrefixBlocks);
    if (s.router_weights.prefix + s.router_weights.queue + s.router_weights.kv + s.router_weights.session <= 0)
      throw Error(fmt::format("{}: every weight is 0: nothing would tell the replicas apart", w.where()));
    w.finish();
  }
  try {
    validate_parallelism(s.parallelism, s.model);
    (void)resolve_layout(s.parallelism, s.gpu);  // parallelism.nodes against the layout
  } catch (const Error& e) {
    throw Error(fmt::format("{}: {}", par.where(), e.what()));
  }
  par.finish();
}

}  // namespace servesim
