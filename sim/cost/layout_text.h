#pragma once
// A replica layout written the short way the field does ("tp8", "dp16 ep16",
// "tp2 dp8 ep16 r32"), for plan candidates (`plan.candidates.layouts`) and labels.
// Items, separated by spaces or commas, each a name and a whole number, with or
// without '=': tp (attention tensor parallel), dp (attention_dp), ep, r (redundant
// experts), pp. A layout is whole: tp, dp and ep not named are 1, r is 0; pp keeps the
// base's unless named, and the declared node count (Parallelism::nodes) is dropped
// (derived from the new layout).
#include <string>

#include "cost/parallelism.h"

namespace servesim {

// Throws servesim::Error naming the bad item ("'ep' needs a number: 'ep16x'").
Parallelism apply_layout_text(const std::string& text, Parallelism base);
// "tp=8", "tp=1 dp=16 ep=16", "tp=1 dp=72 ep=72 r=32" (pp only when > 1).
std::string layout_label(const Parallelism& p);

}  // namespace servesim
