// Why `plan` picked its best candidate: against the best candidate of every other
// layout, what the winner gains and what it gives up, in the plan's own numbers
// (planning/plan.h, plan_explanation).
#include <fmt/format.h>

#include <map>

#include "cost/layout_text.h"
#include "planning/plan.h"

namespace servesim::planning {
namespace {

std::string ratio_text(double a, double b, const char* more, const char* less) {
  if (!(a > 0) || !(b > 0)) return "";
  const double r = a / b;
  if (r >= 1.05) return fmt::format("{:.2f}x {}", r, more);
  if (r <= 1.0 / 1.05) return fmt::format("{:.2f}x {}", 1.0 / r, less);
  return "about the same";
}

// Tokens of KV cache one replica holds (blocks x block size), from the plan's memory plan.
double kv_tokens(const Candidate& c) {
  return static_cast<double>(c.capacity.kv_blocks) *
         static_cast<double>(c.scenario ? c.scenario->engine.block_size : 16);
}

}  // namespace

std::string plan_explanation(const PlanResult& p) {
  const Candidate* best = nullptr;
  for (const auto& c : p.candidates)
    if (c.rank == 1) best = &c;
  if (!best) return "";
  // Plans of the classic tensor-parallel grid keep their output: the comparison is for
  // layouts with DP attention or expert parallelism.
  bool any_wide = false;
  for (const auto& c : p.candidates) any_wide = any_wide || c.layout.wide();
  if (!any_wide) return "";
  // The best-ranked candidate of each other layout (same GPU and precision or not).
  std::map<std::string, const Candidate*> others;
  for (const auto& c : p.candidates) {
    if (c.rank < 1 || !c.error.empty()) continue;
    const std::string key = layout_label(c.layout);
    if (key == layout_label(best->layout)) continue;
    auto it = others.find(key);
    if (it == others.end() || c.rank < it->second->rank) others[key] = &c;
  }
  if (others.empty()) return "";
  std::string out = fmt::format("why {}:\n", best->label);
  for (const auto& [key, o] : others) {
    const bool target = p.target_rate.has_value();
    out += fmt::format("  vs {} (rank {}): ", o->label, o->rank);
    if (target)
      out += fmt::format("${:.3f} vs ${:.3f} per million output tokens ({}); ",
                         best->economics.usd_per_million_output_tokens, o->economics.usd_per_million_output_tokens,
                         ratio_text(o->economics.usd_per_million_output_tokens,
                                    best->economics.usd_per_million_output_tokens, "cheaper", "dearer"));
    else
      out += fmt::format("{:.3g} vs {:.3g} req/s in the budget; ", best->total_rate, o->total_rate);
    out += fmt::format("{:.0f} vs {:.0f} output tok/s per GPU ({}) and {:.1f} vs {:.1f} tok/s per user ({}) at the "
                       "maximum rate; ",
                       best->tokens_per_gpu, o->tokens_per_gpu,
                       ratio_text(best->tokens_per_gpu, o->tokens_per_gpu, "more", "less"), best->tokens_per_user,
                       o->tokens_per_user, ratio_text(best->tokens_per_user, o->tokens_per_user, "faster", "slower"));
    out += fmt::format("KV cache of a replica {:.3g}M vs {:.3g}M tokens on {} vs {} GPUs; ", kv_tokens(*best) / 1e6,
                       kv_tokens(*o) / 1e6, best->gpus_per_replica, o->gpus_per_replica);
    out += fmt::format("binding: {} vs {}\n", best->capacity.binding.empty() ? "-" : best->capacity.binding,
                       o->capacity.binding.empty() ? "-" : o->capacity.binding);
  }
  return out;
}

}  // namespace servesim::planning
