// The scenario's `moe:` section: how a mixture-of-experts model's experts run across
// the GPUs of a wide layout (parallelism.attention_dp > 1 or ep > 1): the all-to-all
// kernels, compute/communication overlap, expert load balance and token payloads
// (cost/moe_deployment.h; the physics in cost/all_to_all.h, cost/expert_load.h and
// cost/wide_ep_step.cpp).
#include <fmt/format.h>

#include "config/scenario_sections.h"
#include "cost/all_to_all.h"
#include "cost/expert_load.h"
#include "cost/moe_engine_fit.h"
#include "cost/replica_layout.h"
#include "util/error.h"
#include "util/warnings.h"

namespace servesim {
namespace {

const MoeDeployment kDefaults{};

const std::vector<std::string>& kernel_names() {
  static const std::vector<std::string> names = [] {
    std::vector<std::string> out;
    for (const AllToAllKernel& k : all_to_all_kernels()) out.emplace_back(k.name);
    return out;
  }();
  return names;
}

const Key kPrefillA2a{
    .name = "prefill_all_to_all",
    .type = KeyType::choice,
    .doc = "all-to-all kernel of steps that prefill (`servesim list all-to-all`): DeepEP's normal (high-throughput) "
           "kernels, as SGLang's DeepEP auto mode and P/D prefill servers use",
    .spec = "MoeDeployment::prefill_all_to_all",
    .default_text = "deepep_normal",
    .choices = {kernel_names().begin(), kernel_names().end()},
};
const Key kDecodeA2a{
    .name = "decode_all_to_all",
    .type = KeyType::choice,
    .doc = "all-to-all kernel of decode steps (speculative verification included): DeepEP's low-latency kernels, "
           "as SGLang and vLLM decode with DeepEP; nvlink_one_sided inside one NVLink domain (TensorRT-LLM)",
    .spec = "MoeDeployment::decode_all_to_all",
    .default_text = "deepep_low_latency",
    .choices = {kernel_names().begin(), kernel_names().end()},
};
const Key kOverlap{
    .name = "overlap",
    .type = KeyType::choice,
    .doc = "compute/communication overlap: two_batch splits each step into two micro-batches whose attention and "
           "experts run under the other's dispatch and combine (SGLang --enable-two-batch-overlap, vLLM "
           "--enable-dbo, DeepSeek's profile); it reads the weights twice, so it costs at small batches; "
           "single_batch runs each layer's combine under its down GEMM and shared experts (SGLang on GB200)",
    .spec = "MoeDeployment::overlap",
    .default_text = "none",
    .choices = {"none", "two_batch", "single_batch"},
};
const Key kBalancer{
    .name = "load_balancer",
    .type = KeyType::choice,
    .doc = "expert placement: eplb (DeepSeek EPLB: hot experts replicated into parallelism.redundant_experts slots, "
           "slots packed by load; SGLang --enable-eplb, vLLM --enable-eplb), none (experts in order), perfect (every "
           "GPU the mean load: DeepSeek's balanced profiling runs)",
    .spec = "MoeDeployment::balancer",
    .default_text = "eplb",
    .choices = {"eplb", "none", "perfect"},
};
const Key kSkew{
    .name = "routing_skew",
    .type = KeyType::number,
    .doc = "spread of the experts' popularity: standard deviation of the log of an expert's share of the routed "
           "tokens (0: all equal); the default is fitted to TensorRT-LLM's DeepSeek-R1 routing statistics "
           "(tools/fit/routing_skew.py; it varies by data set)",
    .spec = "MoeDeployment::routing_skew",
    .default_number = kDefaultRoutingSkew,
    .min = 0,
    .max = 5,
    .why = "a log-normal spread above 5 puts nearly all tokens on one expert",
};
const Key kSlowdown{
    .name = "all_to_all_slowdown",
    .type = KeyType::number,
    .doc = "an all-to-all in a running engine over its kernel benchmark's time (waiting for the slowest rank, SMs "
           "and NICs shared); fitted to the deployments of data/moe_at_scale (tools/fit/moe_engine.py)",
    .spec = "MoeDeployment::all_to_all_slowdown",
    .default_number = fitted_all_to_all_slowdown(),
    .min = 0.1,
    .max = 100,
    .why = "a factor on the kernel's own time",
};
const Key kOverlapEfficiency{
    .name = "overlap_efficiency",
    .type = KeyType::quantity,
    .doc = "with overlap two_batch: the share of the shorter of a micro-batch's compute and communication hidden "
           "under the longer (1: ideal); fitted to the deployments of data/moe_at_scale (tools/fit/moe_engine.py)",
    .spec = "MoeDeployment::overlap_efficiency",
    .dimension = Dimension::fraction,
    .default_number = fitted_overlap_efficiency(),
    .min = 0,
    .max = 1,
    .why = "a share",
};
const Key kDispatch{
    .name = "dispatch",
    .type = KeyType::choice,
    .doc = "precision of the tokens the dispatch sends: fp8 with one fp32 scale per 128 values (DeepEP), fp4 with "
           "one e4m3 scale per 16 (NVFP4), or bf16",
    .spec = "MoeDeployment::dispatch",
    .default_note = "the experts' input precision: fp8 with fp8 compute, fp4 with fp4 weights, else bf16",
    .choices = {"fp8", "fp4", "bf16"},
};
const Key kCombine{
    .name = "combine",
    .type = KeyType::choice,
    .doc = "precision of the expert outputs the combine returns (bf16 as DeepEP and TensorRT-LLM by default; fp8 "
           "is TensorRT-LLM's low-precision combine)",
    .spec = "MoeDeployment::combine",
    .default_text = "bf16",
    .choices = {"bf16", "fp8", "fp4"},
};

DType default_dispatch(const ResolvedPrecision& p) {
  if (p.weights == DType::fp4) return DType::fp4;
  if (p.compute == DType::fp8) return DType::fp8;
  return DType::bf16;
}

}  // namespace

const KeySection& moe_key_section() {
  static const KeySection s{
      .path = "moe",
      .doc = "how a mixture-of-experts model's experts run across a wide layout (parallelism.attention_dp > 1 or "
             "ep > 1): all-to-all kernels, overlap, expert load balance",
      .keys = {&kPrefillA2a, &kDecodeA2a, &kOverlap, &kBalancer, &kSkew, &kDispatch, &kCombine, &kSlowdown,
               &kOverlapEfficiency},
  };
  return s;
}

void read_moe(ConfigMap& m, Setup& s) {
  MoeDeployment& d = s.moe;
  bool given = false;
  for (const Key* k : moe_key_section().keys) given = given || has_key(m, *k);
  d.prefill_all_to_all = read_choice(m, kPrefillA2a);
  d.decode_all_to_all = read_choice(m, kDecodeA2a);
  const std::string overlap = read_choice(m, kOverlap);
  d.overlap = overlap == "two_batch"      ? MoeOverlap::two_batch
              : overlap == "single_batch" ? MoeOverlap::single_batch
                                          : MoeOverlap::none;
  const std::string balancer = read_choice(m, kBalancer);
  d.balancer = balancer == "none" ? ExpertBalancer::none
               : balancer == "perfect" ? ExpertBalancer::perfect
                                       : ExpertBalancer::eplb;
  d.routing_skew = read_number(m, kSkew);
  d.dispatch = has_key(m, kDispatch) ? parse_dtype(read_choice(m, kDispatch), m.where("dispatch"))
                                     : default_dispatch(s.resolved);
  d.combine = parse_dtype(read_choice(m, kCombine), m.where("combine"));
  d.all_to_all_slowdown = read_number(m, kSlowdown);
  d.overlap_efficiency = read_quantity(m, kOverlapEfficiency);
  if (s.parallelism.redundant_experts > 0 && d.balancer == ExpertBalancer::none)
    m.fail("load_balancer", fmt::format("parallelism.redundant_experts = {} needs load_balancer: eplb (redundant slots "
                                        "hold copies of the experts the balancer finds hot)",
                                        s.parallelism.redundant_experts));
  // What the cost model would refuse, said here with the key's place in the file.
  if (s.parallelism.wide() && s.parallelism.ep > 1) {
    const ReplicaLayout layout = resolve_layout(s.parallelism, s.gpu);
    for (const Key* k : {&kPrefillA2a, &kDecodeA2a}) {
      const AllToAllKernel& kernel = find_all_to_all_kernel(
          k == &kPrefillA2a ? d.prefill_all_to_all : d.decode_all_to_all, m.where(std::string(k->name)));
      if (kernel.nvlink_only && layout.ep_crosses_network())
        m.fail(std::string(k->name),
               fmt::format("{} works inside one NVLink domain, but ep={} spans {} nodes of {} GPUs; use "
                           "deepep_low_latency or deepep_normal, or a GPU with a larger NVLink domain",
                           kernel.name, s.parallelism.ep, layout.ep_nodes, layout.gpus_per_node));
    }
    if (layout.ep_crosses_network() && !(s.gpu.inter_node.bandwidth > 0))
      m.fail(std::string(kPrefillA2a.name),
             fmt::format("ep={} spans {} nodes of {} GPUs but {} gives no inter_node network "
                         "(hardware.interconnect.inter_node.bandwidth)",
                         s.parallelism.ep, layout.ep_nodes, layout.gpus_per_node, s.gpu.name));
  }
  if (given && !s.parallelism.wide())
    warn(fmt::format("{}: ignored: the layout has neither attention_dp > 1 nor ep > 1, so no token leaves its GPU "
                     "for an expert",
                     m.where()));
  m.finish();
}

}  // namespace servesim
