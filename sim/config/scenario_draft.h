#pragma once
// A scenario draft: the document as written plus where it came from, cheap to copy
// (a plain value), varied by typed edits (config/edits.h). resolve() is the one step
// that turns a draft into the immutable Scenario, or into the reason it is not one
// (an infeasible point of a sweep, a candidate of a plan), with the config layer's
// error kind and key path when a key was refused.
#include <optional>
#include <string>
#include <vector>

#include "config/config_error.h"
#include "config/config_node.h"
#include "config/edits.h"
#include "scenario/scenario.h"

namespace servesim {

struct ScenarioDraft {
  ConfigNode doc;
  std::string source;  // file name, for errors ("" = built from flags)

  // A copy with `edits` applied in order (this draft is not changed).
  ScenarioDraft edited(const std::vector<ConfigEdit>& edits) const;
};

// Reads `path` (or starts from an empty document when it is empty) and applies `edits`.
ScenarioDraft load_draft(const std::string& path, const std::vector<ConfigEdit>& edits = {});

struct Resolution {
  std::optional<Scenario> scenario;  // set when the draft is a valid scenario
  std::string reason;                // else: the error, as users read it
  // Set when the configuration layer refused a key (kind and its key path).
  std::optional<ConfigErrorKind> error_kind;
  std::string error_key;

  bool ok() const { return scenario.has_value(); }
};

// Never throws for a bad draft (the reason says why); Ctrl-C (Interrupted) and
// internal errors propagate.
Resolution resolve(const ScenarioDraft& draft, bool require_workload = true);

}  // namespace servesim
