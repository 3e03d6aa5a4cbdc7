#include "metrics/class_metrics.h"

namespace servesim {

ClassMetrics::ClassMetrics(const ClassAssignment& classes, const std::vector<std::optional<SloSpec>>& own,
                           const SloSpec& fallback, std::size_t exact_cap)
    : classes_(classes) {
  for (std::size_t i = 0; i < classes.specs().size(); ++i) {
    const bool has_own = i < own.size() && own[i].has_value();
    const SloSpec& slo = has_own ? *own[i] : fallback;
    per_.push_back(PerClass{slo, has_own, PerRequestLimits(slo), SampleSet(exact_cap, false),
                            SampleSet(exact_cap, false), SampleSet(exact_cap, false), SampleSet(exact_cap, false)});
  }
}

void ClassMetrics::add(const RequestRecord& r) {
  PerClass& p = per_[static_cast<std::size_t>(classes_.of(r.id, r.session))];
  const RequestResult res = request_result(r);
  if (r.failed) {
    ++p.failed;
    ++p.failures[static_cast<std::size_t>(r.failure)];
    return;
  }
  ++p.completed;
  p.output_tokens += r.output_tokens * r.sequences;
  p.ttft.add(res.ttft_ms);
  p.e2e.add(res.e2e_ms);
  p.queue.add(res.queue_ms);
  if (res.has_tpot()) p.tpot.add(res.tpot_ms);
  if (p.limits.met(res.ttft_ms, res.tpot_ms, res.has_tpot(), res.e2e_ms)) ++p.good;
}

std::vector<ClassReport> ClassMetrics::summarize(double duration_s) {
  std::vector<ClassReport> out;
  for (std::size_t i = 0; i < per_.size(); ++i) {
    PerClass& p = per_[i];
    const RequestClassSpec& spec = classes_.specs()[i];
    ClassReport c;
    c.name = spec.name;
    c.priority = spec.priority;
    c.share = spec.share;
    c.own_slo = p.own_slo;
    c.completed = p.completed;
    c.failed = p.failed;
    c.failures = p.failures;
    c.output_tokens = p.output_tokens;
    c.ttft_ms = p.ttft.summarize();
    c.tpot_ms = p.tpot.summarize();
    c.e2e_ms = p.e2e.summarize();
    c.queue_ms = p.queue.summarize();
    const std::int64_t offered = p.completed + p.failed;
    // Failed requests are offered requests that missed: attainment is over both.
    c.slo_attainment = offered > 0 ? static_cast<double>(p.good) / static_cast<double>(offered) : 0.0;
    c.goodput_rps = duration_s > 0 ? static_cast<double>(p.good) / duration_s : 0.0;
    c.slo = slo_results(p.slo, c.ttft_ms, c.tpot_ms, nullptr, c.e2e_ms);
    c.slo_set = !p.slo.empty() || p.slo.attainment > 0;
    c.slo_met = slo_verdict(p.slo, c.slo, c.slo_attainment, p.completed, p.failed);
    out.push_back(std::move(c));
  }
  return out;
}

}  // namespace servesim
