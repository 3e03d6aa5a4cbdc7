// The scenario's `disaggregation:` section: prefill/decode disaggregation (the
// spec and its timing: scenario/disaggregation.h, run/disaggregated_simulation.h).
// Each pool is the scenario's own setup with the pool's keys put in place of
// hardware.gpu, parallelism.tp / replicas / router and model.weights, read by the
// same reader as the scenario's setup, so a pool is checked exactly as a
// co-located scenario with those values would be.
#include <fmt/format.h>

#include <memory>

#include "config/config_error.h"
#include "config/edits.h"
#include "config/pool_setup.h"
#include "config/scenario_sections.h"
#include "scenario/disaggregation.h"
#include "util/error.h"
#include "util/units.h"
#include "util/warnings.h"

namespace servesim {
namespace {

const Key kPoolGpu{
    .name = "gpu",
    .type = KeyType::text,
    .doc = "the pool's GPU: a catalog name or a GPU YAML path",
    .spec = "DisaggregationSpec::{prefill,decode}.gpu",
    .unit = "GPU name or path",
    .default_note = "hardware.gpu",
};
const Key kPoolTp{
    .name = "tp",
    .type = KeyType::integer,
    .doc = "tensor-parallel GPUs of one instance of the pool",
    .spec = "DisaggregationSpec::{prefill,decode}.parallelism.tp",
    .unit = "GPUs",
    .default_note = "parallelism.tp",
    .min = 1,
    .max = 1024,
    .why = "an instance runs on at least one GPU",
};
const Key kPoolReplicas{
    .name = "replicas",
    .type = KeyType::integer,
    .doc = "instances in the pool (xPyD: x prefill, y decode instances)",
    .spec = "DisaggregationSpec::{prefill,decode}.parallelism.replicas",
    .unit = "instances",
    .required = true,
    .min = 1,
    .max = 100000,
    .why = "a pool with no instance could serve nothing",
};
const Key kPoolRouter{
    .name = "router",
    .type = KeyType::text,
    .doc = "how the pool picks an instance for each request (the values of parallelism.router)",
    .spec = "DisaggregationSpec::{prefill,decode}.router",
    .default_note = "parallelism.router",
};
const Key kPoolWeights{
    .name = "weights",
    .type = KeyType::text,
    .doc = "the pool's weight precision (the values of model.weights; the KV cache precision is model.kv_cache "
           "in both pools, since the KV moves between them as it is)",
    .spec = "DisaggregationSpec::{prefill,decode}.precision.weights",
    .default_note = "model.weights",
};

const Key kPoolAttentionDp{
    .name = "attention_dp",
    .type = KeyType::integer,
    .doc = "attention data-parallel ranks of one instance of the pool (wide EP: parallelism.attention_dp)",
    .spec = "DisaggregationSpec::{prefill,decode}.parallelism.attention_dp",
    .unit = "ranks",
    .default_note = "parallelism.attention_dp",
    .min = 1,
    .max = 1024,
    .why = "data-parallel attention ranks of one instance",
};
const Key kPoolEp{
    .name = "ep",
    .type = KeyType::integer,
    .doc = "expert-parallel GPUs of one instance of the pool (parallelism.ep)",
    .spec = "DisaggregationSpec::{prefill,decode}.parallelism.ep",
    .unit = "GPUs",
    .default_note = "parallelism.ep",
    .min = 1,
    .max = 1024,
    .why = "GPUs in an expert-parallel group",
};
const Key kPoolRedundantExperts{
    .name = "redundant_experts",
    .type = KeyType::integer,
    .doc = "redundant expert slots of one instance of the pool (parallelism.redundant_experts)",
    .spec = "DisaggregationSpec::{prefill,decode}.parallelism.redundant_experts",
    .unit = "experts",
    .default_note = "parallelism.redundant_experts",
    .min = 0,
    .max = 100000,
    .why = "redundant expert slots",
};
const Key kPoolAutoscale{
    .name = "autoscale",
    .type = KeyType::section,
    .doc = "the pool's own autoscaler (the keys of the scenario's autoscale section; the pool's replicas is its "
           "most), as NVIDIA Dynamo's planner scales prefill and decode workers apart (its load-based mode: prefill "
           "on the prefill queue, decode on KV cache use): e.g. prefill on target_queue or target_ttft, decode on "
           "target_kv or target_concurrency",
    .spec = "DisaggregationSpec::{prefill,decode}_autoscale",
    .default_note = "none: a fixed pool",
};
const Key kPoolMoe{
    .name = "moe",
    .type = KeyType::section,
    .doc = "the pool's own `moe:` keys (all-to-all kernels, overlap, load balancer...), each replacing the "
           "scenario's; e.g. prefill with two-batch overlap, decode without",
    .spec = "DisaggregationSpec::{prefill,decode}.moe",
    .default_note = "the scenario's moe section",
};

// Link figures for the shipped example and the docs: one 400 Gb/s RDMA NIC per
// GPU is 50 GB/s (NVIDIA ConnectX-7, 400 Gb/s per port: nvidia.com ConnectX-7
// product brief), so an 8-GPU node's eight NICs move 400 GB/s.
const Key kBandwidth{
    .name = "bandwidth",
    .type = KeyType::quantity,
    .doc = "bytes per second one prefill instance sends to a decode instance (e.g. \"50 GB/s\": one 400 Gb/s "
           "RDMA NIC; \"400 GB/s\": eight of them, one per GPU of a node); a prefill instance's transfers take "
           "its link one at a time",
    .spec = "KvTransferSpec::bandwidth",
    .dimension = Dimension::bandwidth,
    .required = true,
    .min = 1,
    .max = 1e15,
    .why = "a link moves at least a byte per second, and none moves a petabyte",
};
const Key kLatency{
    .name = "latency",
    .type = KeyType::quantity,
    .doc = "fixed time of each transfer before its first byte arrives (RDMA setup and the decode instance's "
           "notification; e.g. \"20 us\")",
    .spec = "KvTransferSpec::latency_s",
    .dimension = Dimension::time,
    .default_number = 0,
    .min = 0,
    .max = 60,
    .why = "a transfer latency above a minute is a misconfiguration",
};
const Key kLayerwise{
    .name = "layerwise",
    .type = KeyType::boolean,
    .doc = "send each layer's KV as the request's last prefill step computes it, overlapping all but the last "
           "layer's share with that step (DistServe / Mooncake layer-wise transfer)",
    .spec = "KvTransferSpec::layerwise",
    .default_bool = KvTransferSpec{}.layerwise,
};

// llm-d's P/D decider: the pd-profile-handler's `threshold` (llm-d docs/architecture,
// "Disaggregated serving": "given how much of the prompt is cached on D, should this
// request run disagg?"; deployments set 0 or e.g. 500).
const Key kDeciderThreshold{
    .name = "decider_threshold",
    .type = KeyType::integer,
    .doc = "the P/D decider (llm-d's pd-profile-handler threshold): a request whose prompt has at most this many "
           "tokens not cached on its decode instance is prefilled there, skipping the prefill pool and the KV "
           "transfer; with engine.prefix_caching, the prompt less what the instance the decode pool's router picks "
           "has cached, without it the whole prompt. 0: every request is disaggregated",
    .spec = "DisaggregationSpec::decider_threshold",
    .unit = "tokens",
    .default_number = 0,
    .min = 0,
    .max = 10000000,
    .why = "a prompt length",
};
const Key kPrefill{
    .name = "prefill",
    .type = KeyType::section,
    .doc = "the prefill pool: instances that compute prompts and sample each request's first token",
    .spec = "DisaggregationSpec::prefill",
    .required = true,
};
const Key kDecode{
    .name = "decode",
    .type = KeyType::section,
    .doc = "the decode pool: instances that receive the prompt KV and generate the other tokens",
    .spec = "DisaggregationSpec::decode",
    .required = true,
};
const Key kTransfer{
    .name = "transfer",
    .type = KeyType::section,
    .doc = "the link that carries each prompt's KV from its prefill instance to its decode instance",
    .spec = "DisaggregationSpec::transfer",
    .required = true,
};

const std::vector<const Key*>& pool_keys() {
  static const std::vector<const Key*> keys = {&kPoolGpu,          &kPoolTp,  &kPoolAttentionDp,
                                               &kPoolEp,           &kPoolRedundantExperts,
                                               &kPoolReplicas,     &kPoolRouter, &kPoolWeights, &kPoolMoe,
                                               &kPoolAutoscale};
  return keys;
}

// The scenario document with the pool's values in place of the setup's, read as a setup;
// the pool's autoscale mapping, if any, into `autoscale` (`name`: prefill or decode).
Setup read_pool(ConfigMap& root, ConfigMap& pool, const char* name, std::optional<AutoscaleSpec>& autoscale) {
  if (pool.has(std::string(kPoolAutoscale.name))) {
    ConfigMap a = pool.map(std::string(kPoolAutoscale.name));
    const auto most = static_cast<int>(read_integer(pool, kPoolReplicas));
    autoscale = read_autoscale_map(a, most, fmt::format("disaggregation.{}.replicas", name),
                                   fmt::format("the {} pool's", name),
                                   std::string_view(name) == "prefill" ? AutoscaleRole::prefill : AutoscaleRole::decode);
  }
  ConfigNode doc = root.node();
  drop_price_of_other_gpu(doc, root, pool, kPoolGpu);
  put_pool_key(doc, pool, kPoolGpu, "hardware.gpu");
  put_pool_key(doc, pool, kPoolTp, "parallelism.tp");
  put_pool_key(doc, pool, kPoolRouter, "parallelism.router");
  put_pool_key(doc, pool, kPoolWeights, "model.weights");
  put_pool_key(doc, pool, kPoolAttentionDp, "parallelism.attention_dp");
  put_pool_key(doc, pool, kPoolEp, "parallelism.ep");
  put_pool_key(doc, pool, kPoolRedundantExperts, "parallelism.redundant_experts");
  // The pool's moe keys one by one over the scenario's (their values are checked as the
  // scenario's moe section when the pool's setup is read).
  if (const ConfigNode* moe = pool.get(std::string(kPoolMoe.name))) {
    if (!moe->is_map()) pool.fail(std::string(kPoolMoe.name), "must be a mapping of moe keys");
    for (const auto& entry : moe->entries()) {
      if (!entry.key.is_scalar()) pool.fail(std::string(kPoolMoe.name), "its keys must be names");
      set_key(doc, "moe." + entry.key.text(), entry.value);
    }
  }
  (void)read_integer(pool, kPoolReplicas);  // range-checked here, with the pool's key path
  put_pool_key(doc, pool, kPoolReplicas, "parallelism.replicas");
  return read_pool_setup(doc, root, pool);
}

}  // namespace

const KeySection& disaggregation_key_section() {
  static const KeySection s{
      .path = "disaggregation",
      .doc = "prefill/decode disaggregation: separate prefill and decode pools and the KV link between them "
             "(without it: co-located serving, every replica prefills and decodes)",
      .keys = {&kPrefill, &kDecode, &kTransfer, &kDeciderThreshold},
  };
  return s;
}
const KeySection& disaggregation_prefill_key_section() {
  static const KeySection s{.path = "disaggregation.prefill",
                            .doc = "the prefill pool (unset keys: the scenario's own setup)",
                            .keys = pool_keys()};
  return s;
}
const KeySection& disaggregation_decode_key_section() {
  static const KeySection s{.path = "disaggregation.decode",
                            .doc = "the decode pool (unset keys: the scenario's own setup)",
                            .keys = pool_keys()};
  return s;
}
const KeySection& disaggregation_prefill_autoscale_key_section() {
  static const KeySection s{.path = "disaggregation.prefill.autoscale",
                            .doc = "the prefill pool's autoscaler (disaggregation.prefill.replicas is its most)",
                            .keys = autoscale_keys()};
  return s;
}
const KeySection& disaggregation_decode_autoscale_key_section() {
  static const KeySection s{.path = "disaggregation.decode.autoscale",
                            .doc = "the decode pool's autoscaler (disaggregation.decode.replicas is its most)",
                            .keys = autoscale_keys()};
  return s;
}
const KeySection& disaggregation_transfer_key_section() {
  static const KeySection s{.path = "disaggregation.transfer",
                            .doc = "the prefill-to-decode KV link",
                            .keys = {&kBandwidth, &kLatency, &kLayerwise}};
  return s;
}

std::shared_ptr<const DisaggregationSpec> read_disaggregation(ConfigMap& root) {
  if (!root.has(std::string(disaggregation_key_section().path))) return nullptr;
  ConfigMap d = section_map(root, disaggregation_key_section());
  auto spec = std::make_shared<DisaggregationSpec>();
  for (const Key* k : {&kPrefill, &kDecode, &kTransfer})
    if (!d.has(std::string(k->name)))
      throw ConfigError(ConfigErrorKind::missing, d.file(), 0, 0, d.key_path(std::string(k->name)),
                        fmt::format("{}: missing required key '{}'", d.where(), d.key_path(std::string(k->name))));
  ConfigMap p = d.map(std::string(kPrefill.name));
  spec->prefill = read_pool(root, p, "prefill", spec->prefill_autoscale);
  ConfigMap dm = d.map(std::string(kDecode.name));
  spec->decode = read_pool(root, dm, "decode", spec->decode_autoscale);
  ConfigMap t = d.map(std::string(kTransfer.name));
  spec->transfer.bandwidth = read_quantity(t, kBandwidth);
  spec->transfer.latency_s = read_quantity(t, kLatency);
  spec->transfer.layerwise = read_boolean(t, kLayerwise);
  t.finish();
  spec->decider_threshold = read_integer(d, kDeciderThreshold);
  d.finish();
  const ModelSpec& model = spec->decode.model;
  if (model.state.enabled())
    warn(fmt::format("{}: {} has {}; each request's recurrent state ({} per sequence) also moves from the prefill "
                     "to the decode pool, and that transfer is not counted (only the attention layers' KV is)",
                     d.where(), model.name, model.state.describe(),
                     format_bytes(model.state_bytes_per_sequence(spec->decode.resolved.activation_storage))));
  return spec;
}

}  // namespace servesim
