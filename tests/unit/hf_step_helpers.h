// What the tests of an imported model's step cost share: the setup of a Hugging Face folder on
// an H100 at a tensor-parallel degree, and one op of a priced step by name.
#pragma once

#include <catch2/catch.hpp>

#include <string>

#include "config/scenario_reader.h"
#include "config/yaml_text.h"
#include "cost/step_cost.h"

namespace servesim::testing::hf {

// Prefix caching off: a hybrid or sparse model would have it switched off with a warning.
inline Setup setup_of(const std::string& model_dir, int tp) {
  return parse_setup_only(parse_yaml_text("hardware: {gpu: h100-sxm}\nmodel: {name: " + model_dir +
                                          "}\nparallelism: {tp: " + std::to_string(tp) +
                                          "}\nengine: {prefix_caching: false}\n"),
                          "s.yaml");
}

inline const OpCost& op_named(const StepCost& s, const std::string& name) {
  for (const OpCost& o : s.ops)
    if (name == o.name) return o;
  FAIL("no op " << name);
  return s.ops.front();
}

}  // namespace servesim::testing::hf
