#pragma once
// Expert-parallel all-to-all: the dispatch that sends each token to the GPUs holding
// its top-k experts and the combine that brings the experts' outputs back, priced per
// MoE layer from tokens x copies x payload over the links they cross.
//
// A kernel (the registry below) decides how many copies of a token travel and over
// which link, and how fast (a fixed time per call plus bytes over an achieved share of
// the link); each is fitted to its published kernel measurements (sources beside each
// entry, data/moe_at_scale/all_to_all_kernels.csv). With routing spread evenly over
// the E expert slots, the expected numbers of distinct destinations of one token are
//   GPUs:  u_gpu  = ep x (1 - C(E - E/ep, k) / C(E, k))
//   nodes: u_node = ep_nodes x (1 - C(E - E/ep_nodes, k) / C(E, k))
// of which a share (ep - ep_per_node) / ep of the GPUs sits in another NVLink domain
// (by symmetry) and 1/ep is the sender itself (no link). A kernel moves NVLink copies at
// its share of the link, up to its own ceiling (DeepEP V1: ~160 GB/s whatever the link).
// With moe_tp > 1 every GPU of
// an expert's FFN slice needs the token: copies x moe_tp.
#include <string>
#include <string_view>
#include <vector>

#include "cost/replica_layout.h"
#include "hardware/gpu_spec.h"

namespace servesim {

// What one token costs on the wire.
enum class CopyRule {
  per_expert,  // one message per routed expert, k of them (DeepEP low-latency: expert-major buffers)
  per_rank,    // one per distinct destination GPU (TensorRT-LLM NVLinkOneSided)
  per_node,    // one per distinct destination node over the network, then per GPU over NVLink (DeepEP normal)
  all_gather,  // every token to every GPU of the group, combine a reduce-scatter (NCCL AllGather-ReduceScatter)
};

struct AllToAllKernel {
  std::string_view name;
  std::string_view doc;
  CopyRule copies;
  double dispatch_latency;  // seconds per dispatch call (one per MoE layer)
  double combine_latency;   // seconds per combine call
  double network_efficiency;  // achieved share of the GPU's inter_node bandwidth
  double nvlink_efficiency;   // achieved share of its intra_node bandwidth
  double nvlink_ceiling;      // bytes/s the kernel moves over NVLink at most, whatever the link (0: none)
  // Share of the GPU's SMs the kernel holds while its transfer is in flight: compute
  // overlapped with it (two-batch overlap) runs on the rest.
  double sm_share;
  bool nvlink_only;           // needs the whole EP group in one NVLink domain
  std::string_view source;    // where the figures come from
};

// Every kernel, in declaration order (`servesim list all-to-all`).
const std::vector<AllToAllKernel>& all_to_all_kernels();
// The kernel of that name; throws servesim::Error listing the valid names (with a
// did-you-mean) otherwise. `where` prefixes the message.
const AllToAllKernel& find_all_to_all_kernel(std::string_view name, const std::string& where);

// Expected copies of one token over each link (per dispatch; a combine moves the same
// copies back), for a kernel on a layout.
struct TokenCopies {
  double network = 0;  // to GPUs in other NVLink domains
  double nvlink = 0;   // to other GPUs of the sender's domain (and forwarded ones: per_node)
};
// `slots`: expert slots of the EP group (routed + redundant), `k`: experts per token.
TokenCopies token_copies(const AllToAllKernel& kernel, const ReplicaLayout& layout, int slots, int k);

// One MoE layer's dispatch and combine on one GPU.
struct AllToAllTime {
  double dispatch = 0, combine = 0;              // seconds
  double dispatch_bytes = 0, combine_bytes = 0;  // bytes this GPU moves over its links
};
// `tokens`: the tokens whose copies the busiest GPU sends or receives (see
// cost/wide_ep_step.cpp: the larger of what the busiest DP rank sends and what the
// most loaded expert GPU receives); `dispatch_bytes` / `combine_bytes`: one copy's
// payload (activation_payload_bytes). Time = latency + bytes over the slower link.
AllToAllTime all_to_all_time(const AllToAllKernel& kernel, const TokenCopies& copies, const GpuSpec& gpu,
                             double tokens, double dispatch_bytes, double combine_bytes);

// Bytes of one token's hidden state of `hidden` elements in `dtype` as the kernels
// send it: fp8 with one fp32 scale per 128 elements (DeepEP, MXFP8-style: 7,392 B for
// 7,168), fp4 with one e4m3 scale per 16 (NVFP4: 4,032 B), 16-bit plain (14,336 B).
double activation_payload_bytes(std::int64_t hidden, DType dtype);

}  // namespace servesim
