#pragma once
// Typed edits of a configuration document. A scenario is varied by applying edits
// to its draft (the document as written): `--set`, `sweep --vary`, plan candidates,
// `inspect` flags, calibration parameters and the validation builders all make
// edits. A text edit ("a.b=value") is parsed once, when it is made; a number edit
// carries its double as is (no round trip through text). Applying an edit to a
// draft copies nothing but the edited value.
#include <string>
#include <vector>

#include "config/config_node.h"

namespace servesim {

struct ConfigEdit {
  std::vector<std::string> path;  // {"engine", "max_num_seqs"}
  ConfigNode value;               // marked from_edit
  std::string origin;             // "--set 'engine.max_num_seqs=64'", for errors
  std::string source = "--set";   // what errors call its nodes' origin ("--set", "--model", "plan candidate")

  std::string key() const;  // "engine.max_num_seqs"
};

// "a.b.c=value", the value parsed as YAML. Throws on malformed text.
ConfigEdit parse_edit(const std::string& assignment);
// Sets `key` to a number, exactly. `source` names where the value came from in errors
// (a flag such as "--tp", "plan candidate"); empty: "--set".
ConfigEdit number_edit(const std::string& key, double value, std::string_view source = "");
// Sets `key` to a string, as written (never re-parsed: a model name with a colon stays one).
ConfigEdit text_edit(const std::string& key, const std::string& value, std::string_view source = "");
// Sets `key` to a whole (sub)document, e.g. a workload built in code.
ConfigEdit node_edit(const std::string& key, ConfigNode value);

// Builds a document in code: sets `key` (dotted) to `value` as if written in a file
// (no --set mark), creating intermediate mappings. For scenarios made from data rows.
void set_key(ConfigNode& root, const std::string& key, ConfigNode value);
// Shorthands for set_key: a plain scalar (text as written, unquoted) and an exact number.
void set_text(ConfigNode& root, const std::string& key, const std::string& text);
void set_number(ConfigNode& root, const std::string& key, double value);

// Applies the edit, creating intermediate mappings as needed. Throws when a
// mapping on the path is something else.
void apply_edit(ConfigNode& root, const ConfigEdit& edit);
void apply_edits(ConfigNode& root, const std::vector<ConfigEdit>& edits);
// parse_edit + apply_edit.
void apply_override(ConfigNode& root, const std::string& assignment);
std::vector<ConfigEdit> parse_edits(const std::vector<std::string>& assignments);

}  // namespace servesim
