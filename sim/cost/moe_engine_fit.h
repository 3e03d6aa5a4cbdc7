#pragma once
// The two engine-level parameters of the wide-EP step (cost/moe_deployment.h), fitted to
// the `fit` rows of data/moe_at_scale/deployments.csv by tools/fit/moe_engine.py and
// judged on its `heldout` rows (`servesim validate-moe`; docs/moe-at-scale.md):
//  - all_to_all_slowdown: an all-to-all in a running engine over the same kernel's own
//    benchmark (cost/all_to_all.h is fitted to those): it waits for the slowest rank's
//    compute, shares SMs and the NIC; SGLang measures ~0.17 ms per decode dispatch where
//    DeepEP's unit test takes 0.06 ms (lmsys.org/blog/2025-05-05-large-scale-ep);
//  - overlap_efficiency: the share of the shorter of a micro-batch's compute and
//    communication that two-batch overlap hides (1: the ideal 2 max(x, y)); SGLang
//    reports +27-35% from it in prefill where the ideal would give far more.
// Defined in moe_engine_fit.cpp, so that a refit touches one source file.
namespace servesim {

double fitted_all_to_all_slowdown();
double fitted_overlap_efficiency();

}  // namespace servesim
