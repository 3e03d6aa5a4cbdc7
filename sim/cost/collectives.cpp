#include "cost/collectives.h"

#include <cmath>

namespace servesim {
namespace {
double hops(int ranks) { return std::ceil(std::log2(static_cast<double>(ranks))); }
}  // namespace

double allreduce_time(double bytes, int ranks, const Link& link, double efficiency) {
  if (ranks <= 1 || bytes <= 0) return 0.0;
  const double n = ranks;
  return 2.0 * (n - 1.0) / n * bytes / (link.bandwidth * efficiency) + 2.0 * hops(ranks) * link.latency;
}

double allgather_time(double bytes_total, int ranks, const Link& link, double efficiency) {
  if (ranks <= 1 || bytes_total <= 0) return 0.0;
  const double n = ranks;
  return (n - 1.0) / n * bytes_total / (link.bandwidth * efficiency) + hops(ranks) * link.latency;
}

double alltoall_time(double bytes_per_rank, int ranks, const Link& link, double efficiency) {
  if (ranks <= 1 || bytes_per_rank <= 0) return 0.0;
  const double n = ranks;
  return (n - 1.0) / n * bytes_per_rank / (link.bandwidth * efficiency) + (n - 1.0) * link.latency;
}

double p2p_time(double bytes, const Link& link, double efficiency) {
  if (bytes <= 0) return 0.0;
  return bytes / (link.bandwidth * efficiency) + link.latency;
}

}  // namespace servesim
