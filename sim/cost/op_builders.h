#pragma once
// The op shapes the step-cost model is built from (one GEMM, elementwise kernel or
// collective, repeated over layers), shared by the tensor-parallel step
// (step_cost.cpp) and the wide-EP step (wide_ep_step.cpp). Internal to sim/cost.
#include <algorithm>
#include <string_view>
#include <vector>

#include "cost/step_cost.h"

namespace servesim::ops {

// A GEMM of M tokens by a (K x N) weight, repeated `reps` times (layers).
inline OpCost gemm(const char* name, double M, double K, double N, double reps, double weight_elem_bytes,
                   double act_bytes) {
  OpCost op;
  op.name = name;
  op.kind = OpKind::gemm;
  op.count = reps;
  op.m_tokens = M;
  op.flops = reps * 2.0 * M * K * N;
  op.weight_bytes = reps * K * N * weight_elem_bytes;
  op.activation_bytes = reps * (M * K + M * N) * act_bytes;
  return op;
}

// An elementwise op over `tokens` rows; `ew` picks its per-kind knobs (Efficiency).
inline OpCost elementwise(const char* name, double bytes, double kernels, double flops, double tokens,
                          ElementwiseKind ew = ElementwiseKind::other) {
  OpCost op;
  op.name = name;
  op.kind = OpKind::elementwise;
  op.m_tokens = tokens;
  op.elementwise_kind = ew;
  op.count = kernels;
  op.activation_bytes = bytes;
  op.flops = flops;
  return op;
}

inline OpCost comm(const char* name, double bytes, double seconds, double reps) {
  OpCost op;
  op.name = name;
  op.kind = OpKind::communication;
  op.count = 0;
  op.calls = reps;
  op.comm_bytes = bytes * reps;
  op.comm_time = seconds * reps;
  return op;
}

// Inserts `group` after the op named `after` (the display order of the breakdown).
inline void insert_after(std::vector<OpCost>& ops, const char* after, std::vector<OpCost>& group) {
  auto at = std::find_if(ops.begin(), ops.end(), [&](const OpCost& o) { return std::string_view(o.name) == after; });
  ops.insert(at == ops.end() ? at : at + 1, group.begin(), group.end());
}

}  // namespace servesim::ops
