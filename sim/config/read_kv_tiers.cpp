// engine.kv_tiers: KV tiers behind the GPU prefix cache (engine/kv_tiers.h),
//   kv_tiers:
//     - {name: host, capacity: "512 GiB", bandwidth: "50 GB/s", latency: "20 us"}
//     - {name: nvme, capacity: "4 TB", bandwidth: "12 GB/s", latency: "100 us", ttl: "1 h"}
//     - {name: remote, capacity: "100 TB", bandwidth: "25 GB/s", latency: "1 ms", shared: true}
// Its keys are declared here, once.
#include <fmt/format.h>

#include <set>

#include "config/kv_tiers_reader.h"
#include "config/workload_keys.h"
#include "util/error.h"

namespace servesim {
namespace {

const Key kName{.name = "name",
                .type = KeyType::text,
                .doc = "the tier's name in reports (host, nvme, remote, ...)",
                .spec = "KvTierSpec::name",
                .required = true};
const Key kCapacity{.name = "capacity",
                    .type = KeyType::quantity,
                    .doc = "bytes of KV the tier holds: per replica, or in all for a shared tier",
                    .spec = "KvTierSpec::capacity_bytes",
                    .dimension = Dimension::bytes,
                    .required = true,
                    .min = 0,
                    .max = 1e18,  // an exabyte: beyond any store, and a block count that still fits 64 bits
                    .why = "no store holds more"};
const Key kBandwidth{.name = "bandwidth",
                     .type = KeyType::quantity,
                     .doc = "bytes/s a reload from this tier moves into the replica's GPUs (all of them together)",
                     .spec = "KvTierSpec::bandwidth",
                     .dimension = Dimension::bandwidth,
                     .required = true,
                     .min = 1e6,
                     .max = 1e14,
                     .why = "1 MB/s to 100 TB/s spans a slow network store to HBM"};
const Key kLatency{.name = "latency",
                   .type = KeyType::quantity,
                   .doc = "fixed time of one reload from this tier (a request's read, whatever its size)",
                   .spec = "KvTierSpec::latency_s",
                   .dimension = Dimension::time,
                   .default_number = 0,
                   .min = 0,
                   .max = 10,
                   .why = "a transfer's set-up is microseconds to a second"};
const Key kTtl{.name = "ttl",
               .type = KeyType::quantity,
               .doc = "a block unused for this long is dropped from the tier (retention across a session's idle "
                      "gap); 0 = kept until evicted",
               .spec = "KvTierSpec::ttl_s",
               .dimension = Dimension::time,
               .default_number = 0,
               .min = 0,
               .max = kMaxDurationSeconds};
const Key kShared{.name = "shared",
                  .type = KeyType::boolean,
                  .doc = "one store for every replica of the run (a remote store such as LMCache's or Dynamo's G4), "
                         "instead of one per replica",
                  .spec = "KvTierSpec::shared",
                  .default_bool = false};

const Key kKvTiers{.name = "kv_tiers",
                   .type = KeyType::list,
                   .doc = "KV tiers behind the GPU prefix cache, fastest first: evicted prefix blocks go down them and "
                          "are reloaded when that is cheaper than recomputing (engine/kv_tiers.h); replaces "
                          "cpu_offload",
                   .spec = "EngineConfig::kv_tiers",
                   .default_note = "none",
                   .item = "tier mapping {name, capacity, bandwidth, latency?, ttl?, shared?}"};

}  // namespace

const Key& kv_tiers_key() { return kKvTiers; }

const KeySection& kv_tiers_key_section() {
  static const KeySection s{.path = "engine.kv_tiers",
                            .doc = "one KV tier (a list item), fastest first",
                            .keys = {&kName, &kCapacity, &kBandwidth, &kLatency, &kTtl, &kShared}};
  return s;
}

std::vector<KvTierSpec> read_kv_tiers(ConfigMap& e) {
  const std::string key(kKvTiers.name);
  std::vector<KvTierSpec> tiers;
  if (!e.has(key)) return tiers;
  const ConfigNode* node = e.get(key);
  if (!node || !node->is_sequence() || node->items().empty())
    throw Error(fmt::format("{}: a non-empty list of tiers, fastest first, e.g. [{{name: host, capacity: \"512 GiB\", "
                            "bandwidth: \"50 GB/s\", latency: \"20 us\"}}]",
                            e.where(key)));
  if (node->items().size() > 8)
    throw Error(fmt::format("{}: {} tiers; at most 8 (GPU, host, disk and remote stores are four)", e.where(key),
                            node->items().size()));
  std::set<std::string> names;
  bool shared_seen = false;
  for (std::size_t i = 0; i < node->items().size(); ++i) {
    ConfigMap m(node->items()[i], e.file(), fmt::format("{}[{}]", e.key_path(key), i));
    KvTierSpec t;
    t.name = read_text(m, kName);
    t.capacity_bytes = read_quantity(m, kCapacity);
    t.bandwidth = read_quantity(m, kBandwidth);
    t.latency_s = read_quantity(m, kLatency);
    t.ttl_s = read_quantity(m, kTtl);
    t.shared = read_boolean(m, kShared);
    if (!names.insert(t.name).second)
      throw Error(fmt::format("{}: a second tier named '{}'", where(m, kName), t.name));
    // A block goes down the chain and never up: a per-replica tier below a shared
    // one would hold blocks other replicas pushed out.
    if (shared_seen && !t.shared)
      throw Error(fmt::format("{}: a per-replica tier after a shared one; shared tiers come last (a remote store "
                              "behind the local ones)",
                              where(m, kShared)));
    shared_seen = shared_seen || t.shared;
    m.finish();
    tiers.push_back(t);
  }
  return tiers;
}

}  // namespace servesim
