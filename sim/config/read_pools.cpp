// The scenario's `pools:` section: a heterogeneous fleet of co-located replicas
// behind one router (scenario/fleet_pools.h). Each pool is read as the scenario's
// own setup with the pool's gpu / tp / weights / replicas / price in place
// (config/pool_setup.h), so it is checked exactly as a scenario of that setup.
//
//   pools:
//     - {name: h100, replicas: 4}                          # the scenario's own GPU
//     - {name: a100, gpu: a100-sxm-80gb, replicas: 6, price_per_hour: "1.29 USD/h"}
//     - {name: l40s, gpu: l40s, replicas: 2, max_loras: 4}  # with engine.lora: fewer adapter slots
#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <set>
#include <utility>

#include "config/config_error.h"
#include "config/pool_setup.h"
#include "config/printable_name.h"
#include "config/scenario_sections.h"
#include "scenario/scenario.h"
#include "util/error.h"

namespace servesim {
namespace {

constexpr std::size_t kMaxPools = 32;

const Key kName{.name = "name",
                .type = KeyType::text,
                .doc = "the pool's name in the summary, JSON and errors (letters, digits, '_', '-', '.')",
                .spec = "FleetPoolSpec::name",
                .required = true};
const Key kGpu{.name = "gpu",
               .type = KeyType::text,
               .doc = "the pool's GPU: a catalog name or a GPU YAML path",
               .spec = "FleetPoolSpec::setup.gpu",
               .unit = "GPU name or path",
               .default_note = "hardware.gpu"};
const Key kTp{.name = "tp",
              .type = KeyType::integer,
              .doc = "tensor-parallel GPUs of one replica of the pool",
              .spec = "FleetPoolSpec::setup.parallelism.tp",
              .unit = "GPUs",
              .default_note = "parallelism.tp",
              .min = 1,
              .max = 1024,
              .why = "a replica runs on at least one GPU"};
const Key kReplicas{.name = "replicas",
                    .type = KeyType::integer,
                    .doc = "replicas in the pool (with autoscale: the most the pool may run)",
                    .spec = "FleetPoolSpec::setup.parallelism.replicas",
                    .unit = "replicas",
                    .required = true,
                    .min = 1,
                    .max = 100000,
                    .why = "a pool with no replica could serve nothing"};
const Key kWeights{.name = "weights",
                   .type = KeyType::text,
                   .doc = "the pool's weight precision (the values of model.weights; e.g. fp8 on a GPU that has "
                          "it, bf16 on one that does not); the KV cache precision is model.kv_cache in every pool",
                   .spec = "FleetPoolSpec::setup.precision.weights",
                   .default_note = "model.weights"};
const Key kPrice{.name = "price_per_hour",
                 .type = KeyType::quantity,
                 .doc = "price of one GPU-hour in this pool (e.g. reserved vs on-demand vs spot), replacing its GPU "
                        "file's cost.on_demand",
                 .spec = "FleetPoolSpec::setup.gpu.price_per_hour",
                 .dimension = Dimension::price_per_hour,
                 .default_note = "hardware.price_per_hour for the scenario's own GPU, else the GPU file's",
                 .min = 0,
                 .why = "a price >= 0"};

// Multi-LoRA (engine.lora): a pool's own slots, host cache, slot rank and host -> GPU
// copy rate, as its GPU's memory, its nodes' host memory and its nodes' links allow;
// the disk stays the scenario's.
const Key kMaxLoras{.name = "max_loras",
                    .type = KeyType::integer,
                    .doc = "the pool's GPU slots for LoRA adapters (vLLM --max-loras on its replicas): a smaller GPU "
                           "may hold fewer beside its KV cache; needs engine.lora",
                    .spec = "FleetPoolSpec::setup.engine.lora.max_loras",
                    .unit = "adapters",
                    .default_note = "engine.lora.max_loras",
                    .min = 1,
                    .max = 4096,
                    .why = "as engine.lora.max_loras"};
const Key kMaxCpuLoras{.name = "max_cpu_loras",
                       .type = KeyType::integer,
                       .doc = "adapters the pool's replicas keep in host memory (vLLM --max-cpu-loras); at least the "
                              "pool's max_loras; needs engine.lora",
                       .spec = "FleetPoolSpec::setup.engine.lora.max_cpu_loras",
                       .unit = "adapters",
                       .default_note = "engine.lora.max_cpu_loras",
                       .min = 1,
                       .max = 1000000,
                       .why = "as engine.lora.max_cpu_loras"};
const Key kMaxLoraRank{.name = "max_lora_rank",
                       .type = KeyType::integer,
                       .doc = "rank of the pool's GPU slots (vLLM --max-lora-rank on its replicas): each slot's memory "
                              "and the LoRA kernels' work are at this rank; at least the adapters' rank; needs "
                              "engine.lora",
                       .spec = "FleetPoolSpec::setup.engine.lora.max_lora_rank",
                       .default_note = "engine.lora.max_lora_rank",
                       .min = 1,
                       .max = 512,
                       .why = "as engine.lora.max_lora_rank"};
const Key kLoraLoadBandwidth{.name = "lora_load_bandwidth",
                             .type = KeyType::quantity,
                             .doc = "bytes/s of copying an adapter from host memory into one of the pool's GPU slots, "
                                    "per GPU (its nodes' host link, e.g. PCIe 4.0 x16 against 5.0 x16); needs "
                                    "engine.lora",
                             .spec = "FleetPoolSpec::setup.engine.lora.load_bandwidth",
                             .dimension = Dimension::bandwidth,
                             .default_note = "engine.lora.load_bandwidth, else the pool's GPU's host link",
                             .min = 1e6,
                             .max = 1e13,
                             .why = "as engine.lora.load_bandwidth"};

const Key kPools{.name = "pools",
                 .type = KeyType::list,
                 .doc = "a heterogeneous fleet: pools of co-located replicas, each its own GPU, tp, weight precision "
                        "and price, behind parallelism.router; listed in order of preference (an autoscaled fleet "
                        "starts replicas from the first pool and drains them from the last)",
                 .spec = "Scenario::pools",
                 .default_note = "none: parallelism.replicas replicas of the scenario's setup",
                 .item = "pool mapping {name, replicas, gpu?, tp?, weights?, price_per_hour?, max_loras?, "
                         "max_cpu_loras?, max_lora_rank?, lora_load_bandwidth?}"};

// A pool's LoRA keys, range-checked with the pool's path, into its engine.lora; without
// the scenario's engine.lora there are no slots to size.
void put_lora_keys(ConfigNode& doc, ConfigMap& root, ConfigMap& m) {
  const ConfigNode* engine = root.node().find("engine");
  const bool lora = engine && engine->find("lora");
  const std::pair<const Key*, const char*> keys[] = {{&kMaxLoras, "engine.lora.max_loras"},
                                                     {&kMaxCpuLoras, "engine.lora.max_cpu_loras"},
                                                     {&kMaxLoraRank, "engine.lora.max_lora_rank"},
                                                     {&kLoraLoadBandwidth, "engine.lora.load_bandwidth"}};
  for (const auto& [k, target] : keys) {
    const std::string name(k->name);
    if (!m.has(name)) continue;
    if (!lora)
      throw Error(fmt::format("{}: a pool's LoRA adapter slots need the fleet's multi-LoRA serving: add engine.lora "
                              "(e.g. engine: {{lora: {{max_loras: 8}}}}) or remove {}",
                              m.where(name), name));
    if (k->type == KeyType::quantity) (void)read_quantity(m, *k);
    else (void)read_integer(m, *k);
    put_pool_key(doc, m, *k, target);
  }
}

}  // namespace

const Key& pools_top_key() { return kPools; }

const KeySection& pools_key_section() {
  static const KeySection s{.path = "pools",
                            .doc = "one pool of a heterogeneous fleet (a list item; unset keys: the scenario's "
                                   "own setup)",
                            .keys = {&kName, &kGpu, &kTp, &kReplicas, &kWeights, &kPrice, &kMaxLoras, &kMaxCpuLoras,
                                     &kMaxLoraRank, &kLoraLoadBandwidth}};
  return s;
}

std::vector<FleetPoolSpec> read_pools(ConfigMap& root) {
  const std::string key(kPools.name);
  std::vector<FleetPoolSpec> pools;
  if (!root.has(key)) return pools;
  const ConfigNode* node = root.get(key);
  if (!node || !node->is_sequence() || node->items().empty())
    throw Error(fmt::format("{}: a non-empty list of pools, e.g. [{{name: h100, replicas: 4}}, {{name: a100, gpu: "
                            "a100-sxm-80gb, replicas: 6}}]",
                            root.where(key)));
  if (node->items().size() > kMaxPools)
    throw Error(fmt::format("{}: {} pools; at most {}", root.where(key), node->items().size(), kMaxPools));
  // The fleet is the pools' replicas: a parallelism.replicas beside them would be ignored.
  const ConfigNode* par = root.node().find("parallelism");
  if (par && par->find("replicas"))
    throw Error(fmt::format("{}: parallelism.replicas and pools both size the fleet; remove parallelism.replicas "
                            "(the fleet is the pools' replicas)",
                            root.where(key)));
  std::set<std::string> names;
  for (std::size_t i = 0; i < node->items().size(); ++i) {
    ConfigMap m(node->items()[i], root.file(), fmt::format("{}[{}]", key, i));
    FleetPoolSpec p;
    p.name = read_text(m, kName);
    if (!printable_name(p.name))
      throw Error(fmt::format("{}: '{}' is not a pool name: 1 to 64 letters, digits, '_', '-' or '.' (it is printed "
                              "in tables and JSON)",
                              m.where(std::string(kName.name)), p.name));
    if (!names.insert(p.name).second)
      throw Error(fmt::format("{}: a second pool named '{}'", m.where(std::string(kName.name)), p.name));
    ConfigNode doc = root.node();
    doc.remove(key);
    drop_price_of_other_gpu(doc, root, m, kGpu);
    put_pool_key(doc, m, kGpu, "hardware.gpu");
    put_pool_key(doc, m, kTp, "parallelism.tp");
    put_pool_key(doc, m, kWeights, "model.weights");
    if (m.has(std::string(kPrice.name))) (void)read_quantity(m, kPrice);  // range-checked with the pool's path
    put_pool_key(doc, m, kPrice, "hardware.price_per_hour");
    (void)read_integer(m, kReplicas);
    put_pool_key(doc, m, kReplicas, "parallelism.replicas");
    put_lora_keys(doc, root, m);
    p.setup = read_pool_setup(doc, root, m);
    pools.push_back(std::move(p));
  }
  return pools;
}

}  // namespace servesim
