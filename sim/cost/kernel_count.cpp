#include "cost/kernel_count.h"

#include <algorithm>

namespace servesim {

double kernels_per_step(const CostModel& cost, int pipeline_stages) {
  BatchSummary b;
  b.add(SeqWork{.new_tokens = 1, .context_tokens = 1, .samples = true});
  double kernels = 0;
  for (const OpCost& op : cost.breakdown(b).ops)
    if (op.kind != OpKind::overhead) kernels += op.count + op.calls;
  return kernels / std::max(1, pipeline_stages);
}

}  // namespace servesim
