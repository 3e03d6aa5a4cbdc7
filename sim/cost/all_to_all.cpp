#include "cost/all_to_all.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "cost/collectives.h"
#include "util/error.h"
#include "util/text.h"

namespace servesim {

// The fixed times and link shares are tools/fit/all_to_all.py's fit to the kernel tables
// of data/moe_at_scale/all_to_all_kernels.csv (fitted on alternate EP sizes, held-out
// median |error| printed by the script; a ctest checks these values against it).
const std::vector<AllToAllKernel>& all_to_all_kernels() {
  static const std::vector<AllToAllKernel> kernels = {
      {.name = "deepep_low_latency",
       .doc = "DeepEP low-latency kernels (decode): one RDMA/NVLink message per routed expert, CUDA-graph friendly",
       .copies = CopyRule::per_expert,
       .dispatch_latency = 29.9e-6,
       .combine_latency = 28.0e-6,
       .network_efficiency = 0.88,
       .nvlink_efficiency = 0.73,
       // DeepEP V1 moves NVLink traffic with few SMs at ~150-200 GB/s whatever the link: 146 GB/s
       // on H800 here (0.73 x 200), 153-158 GB/s for its normal kernels, 127-207 GB/s on GB200
       // NVL72 (DeepEP docs/Hybrid-EP_Implementation.md, 24 ranks); 160 GB/s, their middle.
       .nvlink_ceiling = 160e9,
       // "after RDMA messages are issued, all GPU SMs are freed" (deepseek-ai/profile-data README, decoding)
       .sm_share = 0.0,
       .nvlink_only = false,
       .source = "DeepEP docs/legacy.md low-latency table (H800, CX7 400 Gb/s, 128 tokens, EP 8-256): held-out "
                 "median |error| 4.3% (EP 16, 64, 256)"},
      {.name = "deepep_normal",
       .doc = "DeepEP normal (high-throughput) kernels (prefill): one copy per destination node over RDMA, forwarded "
              "over NVLink",
       .copies = CopyRule::per_node,
       .dispatch_latency = 0.0,
       .combine_latency = 0.0,
       .network_efficiency = 1.0,
       .nvlink_efficiency = 0.78,
       .nvlink_ceiling = 160e9,  // as deepep_low_latency
       // 20 of H800's 132 SMs run the transfers (DeepSeek-V3 report, sec. 3.2.2: "only 20 SMs"; DeepEP's
       // Buffer.num_sms default 20)
       .sm_share = 20.0 / 132.0,
       .nvlink_only = false,
       .source = "DeepEP docs/legacy.md normal-kernel table (H800, 4,096 tokens): bottleneck bandwidth 153-158 GB/s "
                 "NVLink (EP8) and 43-58 GB/s RDMA (EP16-64; capped at the NIC's line rate); held-out EP64 1.0%; "
                 "fixed time not published (negligible at thousands of tokens, taken as 0)"},
      {.name = "nvlink_one_sided",
       .doc = "TensorRT-LLM NVLinkOneSided (symmetric memory, one copy per destination GPU); one NVLink domain only",
       .copies = CopyRule::per_rank,
       .dispatch_latency = 18.0e-6,
       .combine_latency = 29.2e-6,
       .network_efficiency = 1.0,
       .nvlink_efficiency = 0.81,
       .nvlink_ceiling = 0,
       .sm_share = 0.0,  // one CTA per token for the copy: not a held share while in flight
       .nvlink_only = true,
       .source = "TensorRT-LLM tech blog 18 (GB200 NVL72, BF16, batch 1-2048, EP 8-64): held-out median |error| 7.3% "
                 "(EP 16 and 64, and the MXFP8 / NVFP4 post-quant dispatch rows)"},
      {.name = "hybrid_ep",
       .doc = "NVIDIA Hybrid-EP (DeepEP hybrid-ep branch): one copy per destination node over RDMA, per GPU over "
              "NVLink, at most of the NVLink bandwidth on GB200 (vLLM's NVFP4 dispatch path)",
       .copies = CopyRule::per_node,
       .dispatch_latency = 0.0,
       .combine_latency = 0.0,
       .network_efficiency = 0.86,
       .nvlink_efficiency = 0.46,
       .nvlink_ceiling = 0,
       .sm_share = 0.0,
       .nvlink_only = false,
       .source = "DeepEP docs/Hybrid-EP_Implementation.md as summarised in shared/docs/moe-at-scale-sources.md (4,096 "
                 "tokens, through the torch API): GB200 NVLink 8-36 ranks dispatch 215-456 GB/s, combine 418-569 GB/s "
                 "(middles 335 and 494: 0.46 of 900 GB/s together); H100 InfiniBand 16-64 ranks 28-58 GB/s (0.86 of "
                 "50 GB/s); fixed times not published (0); not fitted to a table of its own"},
      {.name = "allgather_reducescatter",
       .doc = "NCCL all-gather before the experts and reduce-scatter after (vLLM's naive / AllGather-ReduceScatter "
              "backend; SGLang DP attention without DeepEP): every token to every GPU of the group",
       .copies = CopyRule::all_gather,
       .dispatch_latency = 0.0,
       .combine_latency = 0.0,
       .network_efficiency = 1.0,
       .nvlink_efficiency = 1.0,
       .nvlink_ceiling = 0,
       .sm_share = 0.0,  // NCCL's collectives take a few channels' SMs; not counted
       .nvlink_only = false,
       .source = "the ring all-gather of cost/collectives.h on the GPU's links at efficiency.comm_bandwidth (no "
                 "kernel-specific figures)"},
  };
  return kernels;
}

const AllToAllKernel& find_all_to_all_kernel(std::string_view name, const std::string& where) {
  std::vector<std::string> names;
  for (const AllToAllKernel& k : all_to_all_kernels()) {
    if (k.name == name) return k;
    names.emplace_back(k.name);
  }
  throw Error(fmt::format("{}: unknown all-to-all kernel '{}'{} (valid: {})", where, name, did_you_mean(name, names),
                          join(names, ", ")));
}

namespace {
// P(none of a token's k experts among `hit` of the `slots` slots): C(slots - hit, k) / C(slots, k).
double miss_probability(double slots, double hit, int k) {
  double p = 1.0;
  for (int i = 0; i < k; ++i) p *= std::max(0.0, (slots - hit - i) / (slots - i));
  return p;
}
}  // namespace

TokenCopies token_copies(const AllToAllKernel& kernel, const ReplicaLayout& l, int slots, int k) {
  TokenCopies c;
  const double ep = l.ep, m = l.moe_tp, s = slots;
  const double other_domain = (ep - l.ep_per_node) / ep;  // share of GPUs in another NVLink domain
  const double same_domain = (l.ep_per_node - 1.0) / ep;  // ... in the sender's domain, not itself
  const double gpus_hit = ep * (1.0 - miss_probability(s, s / ep, k));
  switch (kernel.copies) {
    case CopyRule::per_expert:
      c.network = k * m * other_domain;
      c.nvlink = k * m * same_domain;
      break;
    case CopyRule::per_rank:
      c.network = gpus_hit * m * other_domain;
      c.nvlink = gpus_hit * m * same_domain;
      break;
    case CopyRule::per_node: {
      const double nodes = l.ep_nodes;
      const double nodes_hit = nodes * (1.0 - miss_probability(s, s / nodes, k));
      c.network = nodes > 1 ? nodes_hit * (nodes - 1.0) / nodes : 0.0;
      // Every copy to another GPU crosses NVLink once, sent directly or forwarded
      // from the GPU whose NIC received it.
      c.nvlink = gpus_hit * m * (1.0 - 1.0 / ep);
      break;
    }
    case CopyRule::all_gather:
      c.network = ep - l.ep_per_node;
      c.nvlink = l.ep_per_node - 1.0;
      break;
  }
  return c;
}

AllToAllTime all_to_all_time(const AllToAllKernel& kernel, const TokenCopies& copies, const GpuSpec& gpu,
                             double tokens, double dispatch_bytes, double combine_bytes) {
  AllToAllTime t;
  if (tokens <= 0) return t;
  if (kernel.copies == CopyRule::all_gather) {
    // A ring over the group: its slowest link carries (n - 1)/n of the gathered tokens.
    const int n = static_cast<int>(std::lround(copies.network + copies.nvlink)) + 1;
    const Link& link = copies.network > 0 ? gpu.inter_node : gpu.intra_node;
    t.dispatch_bytes = tokens * dispatch_bytes * (n - 1);
    t.combine_bytes = tokens * combine_bytes * (n - 1);
    t.dispatch = allgather_time(tokens * dispatch_bytes * n, n, link, gpu.efficiency.comm_bandwidth);
    t.combine = allgather_time(tokens * combine_bytes * n, n, link, gpu.efficiency.comm_bandwidth);
    return t;
  }
  auto wire = [&](double payload) {
    const double net = copies.network > 0 ? tokens * copies.network * payload /
                                                (gpu.inter_node.bandwidth * kernel.network_efficiency)
                                          : 0.0;
    double nv_rate = gpu.intra_node.bandwidth * kernel.nvlink_efficiency;
    if (kernel.nvlink_ceiling > 0) nv_rate = std::min(nv_rate, kernel.nvlink_ceiling);
    const double nv = copies.nvlink > 0 ? tokens * copies.nvlink * payload / nv_rate : 0.0;
    return std::max(net, nv);
  };
  t.dispatch_bytes = tokens * (copies.network + copies.nvlink) * dispatch_bytes;
  t.combine_bytes = tokens * (copies.network + copies.nvlink) * combine_bytes;
  t.dispatch = kernel.dispatch_latency + wire(dispatch_bytes);
  t.combine = kernel.combine_latency + wire(combine_bytes);
  return t;
}

double activation_payload_bytes(std::int64_t hidden, DType dtype) {
  const double h = static_cast<double>(hidden);
  switch (dtype) {
    case DType::fp8:
    case DType::int8: return h * (1.0 + 4.0 / 128.0);  // + one fp32 scale per 128 elements
    case DType::fp4:
    case DType::int4: return h * (0.5 + 1.0 / 16.0);   // + one e4m3 scale per 16 elements
    default: return h * dtype_bytes(dtype);
  }
}

}  // namespace servesim
