#include "run/sla_profile.h"

#include <algorithm>
#include <cmath>
#include <cstdint>

#include "cost/step_wall_time.h"

namespace servesim {

SlaProfile sla_profile(const ServingPool& pool) {
  const CostModel* cost = &pool.cost;
  const EngineConfig* engine = &pool.setup.engine;
  const std::int64_t blocks = pool.blocks;
  SlaProfile p;
  p.prefill_s = [cost, engine](double isl) {
    const auto tokens = std::max<std::int64_t>(1, std::llround(isl));
    const std::int64_t chunk = engine->chunked_prefill ? std::max<std::int64_t>(1, engine->max_num_batched_tokens)
                                                       : tokens;
    double s = engine->frontend_latency;
    for (std::int64_t done = 0; done < tokens; done += chunk) {
      const std::int64_t n = std::min(chunk, tokens - done);
      const bool last = done + n == tokens;
      BatchSummary b = cost->batch();
      b.add(SeqWork{n, done, last});
      s += step_wall_seconds(cost->totals(b).time, engine->cpu_overheads(), 1, 1, last ? 1 : 0, n);
    }
    return s;
  };
  p.decode_step_s = [cost, engine](int batch, double context) {
    BatchSummary b = cost->batch();
    const auto ctx = std::max<std::int64_t>(0, std::llround(context));
    for (int i = 0; i < batch; ++i) b.add(SeqWork{1, ctx, true});
    return step_wall_seconds(cost->totals(b).time, engine->cpu_overheads(), batch, 0, batch, 0);
  };
  p.max_batch = [engine, blocks](double context) {
    const auto block = static_cast<double>(std::max(1, engine->block_size));
    const auto per_seq = static_cast<std::int64_t>(std::ceil(std::max(1.0, context) / block));
    const std::int64_t fit = blocks / std::max<std::int64_t>(1, per_seq);
    return static_cast<int>(std::clamp<std::int64_t>(std::min(fit, engine->max_num_seqs), 1, 1 << 20));
  };
  return p;
}

}  // namespace servesim
