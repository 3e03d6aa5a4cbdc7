#pragma once
// What inspect says about a model beyond its parameter counts: its layer kinds (attention,
// local or sparse attention, state layers, experts), the checkpoint's own precision per
// tensor group, and what is left out (a wrapper's vision encoder). JSON for `inspect
// --json` (setup.model) and lines for the text report.
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "model/model_spec.h"

namespace servesim {

nlohmann::json model_json(const ModelSpec& m);
// One line each ("state layers: ...", "checkpoint precision: ..."); none for a plain model.
std::vector<std::string> model_notes(const ModelSpec& m);

}  // namespace servesim
