// Multi-LoRA serving: `workload.lora` (each request's adapter, workload/lora_adapters.h)
// and `engine.lora` (the engine's adapter slots, engine/lora_spec.h). Their keys are
// declared here, once, with the checks of both against the rest of the scenario.
//
//   engine:
//     lora: {max_loras: 8, max_cpu_loras: 64, max_lora_rank: 16}
//   workload:
//     lora: {adapters: 200, rank: 16, popularity: zipf, zipf_s: 1.0, share: 1.0}
#include <fmt/format.h>

#include <algorithm>
#include <array>

#include "config/lora_reader.h"
#include "config/workload_keys.h"
#include "config/workload_reader.h"
#include "cost/lora_shape.h"
#include "engine/framework_preset.h"
#include "util/error.h"
#include "util/text.h"

namespace servesim {
namespace {

const LoraEngineSpec kEngineDefaults{};
// vLLM's accepted --max-lora-rank values (vllm/config/lora.py MaxLoRARanks).
constexpr std::array<std::int64_t, 9> kVllmRanks{1, 8, 16, 32, 64, 128, 256, 320, 512};
// One vector entry per adapter per replica (engine/lora_slots.h): a million is far beyond
// the thousands of adapters a multi-tenant server holds, and keeps the tables small.
constexpr double kMaxAdapters = 1'000'000;

// engine.lora
const Key kLora{.name = "lora",
                .type = KeyType::section,
                .doc = "multi-LoRA serving (vLLM --enable-lora): GPU slots for max_loras adapters, a host cache of "
                       "max_cpu_loras, loads from host memory and disk (engine/lora_slots.h)",
                .spec = "EngineConfig::lora",
                .default_note = "none: no adapters (workload.lora needs it)"};
const Key kMaxLoras{.name = "max_loras",
                    .type = KeyType::integer,
                    .doc = "distinct adapters in one batch, each in its own GPU slot (vLLM --max-loras); a waiting "
                           "request whose adapter would exceed it is skipped",
                    .spec = "LoraEngineSpec::max_loras",
                    .unit = "adapters",
                    .default_number = static_cast<double>(kEngineDefaults.max_loras),
                    .min = 1,
                    .max = 4096,
                    .why = "GPU slots of adapters; each takes max_lora_rank-sized memory from the KV cache"};
const Key kMaxCpuLoras{.name = "max_cpu_loras",
                       .type = KeyType::integer,
                       .doc = "adapters kept in the host-memory LRU cache (vLLM --max-cpu-loras); one not there is read "
                              "from disk first",
                       .spec = "LoraEngineSpec::max_cpu_loras",
                       .unit = "adapters",
                       .default_note = "max_loras (vLLM's default)",
                       .min = 1,
                       .max = kMaxAdapters,
                       .why = "adapters in host memory"};
const Key kMaxLoraRank{.name = "max_lora_rank",
                       .type = KeyType::integer,
                       .doc = "rank of every GPU slot (vLLM --max-lora-rank: 1, 8, 16, 32, 64, 128, 256, 320 or 512): "
                              "the slots' memory and the kernels' work are at this rank whatever the adapters' own",
                       .spec = "LoraEngineSpec::max_lora_rank",
                       .default_number = static_cast<double>(kEngineDefaults.max_lora_rank),
                       .min = 1,
                       .max = 512,
                       .why = "the ranks vLLM accepts"};
const Key kLoadBandwidth{.name = "load_bandwidth",
                         .type = KeyType::quantity,
                         .doc = "bytes/s of copying an adapter from host memory into a GPU slot, per GPU (each GPU "
                                "copies its shard over its own link)",
                         .spec = "LoraEngineSpec::load_bandwidth",
                         .dimension = Dimension::bandwidth,
                         .default_note = "the GPU's host link (hardware host.bandwidth), plus its latency",
                         .min = 1e6,
                         .max = 1e13,
                         .why = "1 MB/s to 10 TB/s spans a slow PCIe link to a chip-to-chip one"};
const Key kDiskBandwidth{.name = "disk_bandwidth",
                         .type = KeyType::quantity,
                         .doc = "bytes/s of reading an adapter from disk into host memory (default: one data-centre PCIe "
                                "4.0 NVMe drive, Samsung PM9A3 U.2, 6,500 MB/s sequential read)",
                         .spec = "LoraEngineSpec::disk_bandwidth",
                         .dimension = Dimension::bandwidth,
                         .default_number = kEngineDefaults.disk_bandwidth,
                         .min = 1e6,
                         .max = 1e12,
                         .why = "1 MB/s (a network share) to 1 TB/s"};

// workload.lora
const Key kAdapters{.name = "adapters",
                    .type = KeyType::integer,
                    .doc = "distinct LoRA adapters the requests use (adapter 0 is the most popular under zipf)",
                    .spec = "LoraWorkloadSpec::adapters",
                    .unit = "adapters",
                    .required = true,
                    .min = 1,
                    .max = kMaxAdapters,
                    .why = "adapters of one base model"};
const Key kRank{.name = "rank",
                .type = KeyType::integer,
                .doc = "every adapter's rank r: A is d_in x r and B is r x d_out on each targeted linear (q, k, v, o, "
                       "gate, up, down: cost/lora_shape.h); at most engine.lora.max_lora_rank",
                .spec = "LoraWorkloadSpec::rank",
                .default_number = 16,
                .min = 1,
                .max = 512,
                .why = "vLLM's largest max_lora_rank"};
const Key kPopularity{.name = "popularity",
                      .type = KeyType::choice,
                      .doc = "how requests pick their adapter: zipf (adapter i with weight 1/(i+1)^zipf_s) or uniform",
                      .spec = "LoraWorkloadSpec::popularity",
                      .default_text = "zipf",
                      .choices = {"zipf", "uniform"}};
const Key kZipfS{.name = "zipf_s",
                 .type = KeyType::number,
                 .doc = "Zipf exponent s (zipf only): 0 is uniform, 1 the classic Zipf law, larger is more skewed",
                 .spec = "LoraWorkloadSpec::zipf_s",
                 .default_number = 1.0,
                 .min = 0,
                 .max = 10,
                 .why = "beyond 10 nearly every request uses adapter 0"};
const Key kShare{.name = "share",
                 .type = KeyType::quantity,
                 .doc = "fraction of requests that use an adapter (\"80%\" or 0.8); the rest use the base model",
                 .spec = "LoraWorkloadSpec::share",
                 .dimension = Dimension::fraction,
                 .default_number = 1.0,
                 .min = 0,
                 .max = 1,
                 .why = "a fraction of the requests"};

}  // namespace

const Key& lora_engine_key() { return kLora; }

const KeySection& lora_engine_key_section() {
  static const KeySection s{.path = "engine.lora",
                            .doc = "multi-LoRA serving: the engine's adapter slots and where adapters load from",
                            .keys = {&kMaxLoras, &kMaxCpuLoras, &kMaxLoraRank, &kLoadBandwidth, &kDiskBandwidth}};
  return s;
}

const KeySection& lora_workload_key_section() {
  static const KeySection s{.path = "workload.lora",
                            .doc = "LoRA adapters: how many, their rank, and how requests pick one",
                            .keys = {&kAdapters, &kRank, &kPopularity, &kZipfS, &kShare}};
  return s;
}

LoraEngineSpec read_lora_engine(ConfigMap& e) {
  LoraEngineSpec c;
  const std::string key(kLora.name);
  if (!e.has(key)) return c;
  ConfigMap m = e.map(key);
  c.enabled = true;
  c.max_loras = read_integer(m, kMaxLoras);
  c.max_cpu_loras = has_key(m, kMaxCpuLoras) ? read_integer(m, kMaxCpuLoras) : 0;
  c.max_lora_rank = read_integer(m, kMaxLoraRank);
  c.load_bandwidth = has_key(m, kLoadBandwidth) ? read_quantity(m, kLoadBandwidth) : 0.0;
  c.disk_bandwidth = read_quantity(m, kDiskBandwidth);
  m.finish();
  if (std::find(kVllmRanks.begin(), kVllmRanks.end(), c.max_lora_rank) == kVllmRanks.end())
    m.fail(std::string(kMaxLoraRank.name),
           fmt::format("{} is not a rank vLLM accepts (1, 8, 16, 32, 64, 128, 256, 320 or 512; vllm/config/lora.py)",
                       c.max_lora_rank));
  // vLLM refuses it too (LoRAConfig._validate_lora_config).
  if (c.max_cpu_loras > 0 && c.max_cpu_loras < c.max_loras)
    m.fail(std::string(kMaxCpuLoras.name),
           fmt::format("max_cpu_loras ({}) must be >= max_loras ({}): every adapter in a GPU slot is also in the "
                       "host cache",
                       c.max_cpu_loras, c.max_loras));
  return c;
}

void resolve_lora(ConfigMap& eng, Setup& s) {
  const LoraEngineSpec& c = s.engine.lora;
  if (!c.enabled) return;
  const std::string at = eng.where(std::string(kLora.name));
  const auto refuse = [&](const std::string& why) {
    throw Error(fmt::format("{}: multi-LoRA serving is not modelled {}; leave engine.lora out", at, why));
  };
  if (s.engine.kind != "vllm") refuse(fmt::format("with engine.kind {} (it needs vllm: continuous batching)", s.engine.kind));
  if (!find_framework_preset(s.engine.framework)->runtime.empty())
    refuse(fmt::format("for engine.framework {}", s.engine.framework));
  // The skip rule modelled is vLLM v1's scheduler's (vllm/v1/core/sched/scheduler.py).
  if (s.engine.scheduler != "vllm_v1")
    refuse(fmt::format("with engine.scheduler {} (only vllm_v1's max_loras rule is; set engine.scheduler: vllm_v1)",
                       s.engine.scheduler));
  if (s.engine.speculative.enabled()) refuse("with speculative decoding (engine.speculative)");
  if (s.parallelism.pp > 1) refuse(fmt::format("with pipeline parallelism (pp = {})", s.parallelism.pp));
  if (s.parallelism.wide())
    refuse(fmt::format("with attention data parallelism or expert parallelism (attention_dp = {}, ep = {})",
                       s.parallelism.attention_dp, s.parallelism.ep));
  if (const std::string why = lora_unsupported_reason(s.model); !why.empty())
    refuse(fmt::format("on this model: {}; servesim shapes adapters on dense decoders (q, k, v, o, gate, up, down "
                       "of every layer: cost/lora_shape.h)",
                       why));
}

LoraWorkloadSpec parse_lora_workload(ConfigMap& m) {
  LoraWorkloadSpec l;
  l.adapters = read_integer(m, kAdapters);
  l.rank = read_integer(m, kRank);
  l.popularity = read_choice(m, kPopularity) == "uniform" ? LoraPopularity::uniform : LoraPopularity::zipf;
  if (has_key(m, kZipfS)) {
    if (l.popularity != LoraPopularity::zipf)
      m.fail(std::string(kZipfS.name), "only used with popularity: zipf");
    l.zipf_s = read_number(m, kZipfS);
  }
  l.share = read_quantity(m, kShare);
  m.finish();
  return l;
}

void check_lora_workload(ConfigMap& w, const Scenario& sc) {
  const WorkloadSpec& workload = sc.workload;
  const EngineConfig& engine = sc.engine;
  if (!workload.lora) {
    // The router would have nothing to route by (it would act as least_outstanding).
    if (sc.router == RouterKind::lora_affinity)
      throw Error(fmt::format("{}: parallelism.router lora_affinity routes requests by their LoRA adapter, and the "
                              "workload has none: add workload.lora, or choose another router",
                              w.where()));
    return;
  }
  const std::string at = where(w, workload_keys::lora);
  if (!engine.lora.enabled)
    throw Error(fmt::format("{}: adapters need an engine that serves them: add engine.lora (vLLM --enable-lora), "
                            "e.g. engine: {{lora: {{max_loras: 8, max_cpu_loras: 64}}}}",
                            at));
  if (workload.lora->rank > engine.lora.max_lora_rank) {
    ConfigMap l = w.map(std::string(workload_keys::lora.name));
    throw Error(fmt::format("{}: adapters of rank {} do not fit engine.lora.max_lora_rank = {} (vLLM refuses "
                            "them: \"LoRA rank {} is greater than max_lora_rank\"); raise max_lora_rank",
                            where(l, kRank), workload.lora->rank, engine.lora.max_lora_rank, workload.lora->rank));
  }
  // vLLM hashes a cached block with its request's adapter (vllm/v1/core/kv_cache_utils.py,
  // _gen_lora_extra_hash_keys), so requests of different adapters share no prefix blocks;
  // servesim's prefix cache keys blocks by the prompt alone.
  const bool prefix_info = workload.shared_prefix || workload.multi_turn || workload.trace;
  if (engine.prefix_caching && prefix_info)
    throw Error(fmt::format("{}: prefix caching of shared prompts (shared_prefix, multi_turn or a trace's hash ids) is "
                            "not modelled with adapters (vLLM keys each cached block by its request's adapter, "
                            "servesim's prefix cache does not); set engine.prefix_caching: false",
                            at));
}

void check_lora_disaggregation(ConfigMap& root, const Scenario& sc) {
  if (!sc.disaggregation || (!sc.engine.lora.enabled && !sc.workload.lora)) return;
  throw Error(fmt::format("{}: multi-LoRA serving (engine.lora, workload.lora) is not modelled with prefill/decode "
                          "disaggregation; leave one out",
                          root.where("disaggregation")));
}

}  // namespace servesim
