#pragma once
// Alpha-beta models of the collectives a replica runs, over one link type.
// Pure functions; seconds.
#include "hardware/gpu_spec.h"

namespace servesim {

// Ring all-reduce of `bytes` per rank over n ranks: each rank sends and receives
// 2(n-1)/n of the data (bandwidth term); latency term 2*ceil(log2 n) hops, as
// NCCL's tree/LL protocols achieve for small messages.
double allreduce_time(double bytes, int ranks, const Link& link, double efficiency);
// All-gather: (n-1)/n of the gathered size per rank.
double allgather_time(double bytes_total, int ranks, const Link& link, double efficiency);
// All-to-all where each rank sends `bytes_per_rank` spread over the others.
double alltoall_time(double bytes_per_rank, int ranks, const Link& link, double efficiency);
// One point-to-point send.
double p2p_time(double bytes, const Link& link, double efficiency);

}  // namespace servesim
