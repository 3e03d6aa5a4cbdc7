#include "report/inspect_report.h"

#include <fmt/format.h>

#include <vector>

#include "config/scenario_reader.h"
#include "cost/batch.h"
#include "report/report_json.h"
#include "util/error.h"

namespace servesim {

InspectReport inspect_setup(const ConfigNode& doc, const std::string& source, const InspectBatches& given) {
  Setup setup = parse_setup_only(doc, source);
  // A sample step the model could never run is refused, not priced; the defaults (not given) are
  // fitted to a context shorter than them (GPT-2's 1024 positions: decode at 1023).
  const std::int64_t context = setup.model.max_context;
  InspectBatches b = given;
  if (b.fit_prefill_len && b.prefill_len > context) b.prefill_len = context;
  if (b.fit_decode_context && b.decode_context + 1 > context && context > 1) b.decode_context = context - 1;
  if (b.prefill_len > context)
    throw Error(fmt::format("--prefill-len {}: longer than {}'s context length of {} tokens", b.prefill_len,
                            setup.model.name, context));
  if (b.decode_context + 1 > context)
    throw Error(fmt::format("--decode-context {}: the next token would be at position {}, beyond {}'s context "
                            "length of {} tokens",
                            b.decode_context, b.decode_context + 1, setup.model.name, context));
  CostModel cost = make_cost_model(setup);
  const MemoryPlan memory = plan_setup_memory(setup, cost);
  const std::vector<SeqWork> prefill(static_cast<std::size_t>(b.prefill_batch), SeqWork{b.prefill_len, 0, true});
  const std::vector<SeqWork> decode(static_cast<std::size_t>(b.decode_batch), SeqWork{1, b.decode_context, true});
  StepCost pc = cost.breakdown(summarize(prefill, cost.model().local));
  StepCost dc = cost.breakdown(summarize(decode, cost.model().local));
  return InspectReport{std::move(setup), std::move(cost), memory, std::move(pc), std::move(dc), b};
}

nlohmann::json inspect_json(const InspectReport& r, const InspectBatches& /*given: r.batches were priced*/) {
  const InspectBatches& b = r.batches;
  nlohmann::json j;
  j["setup"] = setup_json(r.setup, r.cost);
  j["memory"] = memory_json(r.memory);
  j["prefill"] = step_json(r.prefill, {{"batch", b.prefill_batch}, {"prompt_tokens", b.prefill_len}});
  j["decode"] = step_json(r.decode, {{"batch", b.decode_batch}, {"context_tokens", b.decode_context}});
  return j;
}

}  // namespace servesim
