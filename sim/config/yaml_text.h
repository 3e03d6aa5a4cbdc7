#pragma once
// The one place that parses YAML text: files and strings become ConfigNode
// documents (with positions), and scalars are converted with YAML's rules. Syntax
// errors, duplicate keys, non-name keys and documents that explode through aliases
// become servesim::Error with file:line:col.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "config/config_node.h"

namespace servesim {

// Loads a YAML file (its first document).
ConfigNode load_yaml_file(const std::string& path);
// Every document of a YAML file (`---` separated); [] for an empty file.
std::vector<ConfigNode> load_yaml_documents(const std::string& path);
// Parses YAML text; `origin` names it in errors (a file name, or "--set 'k=v'").
// `key_path` prefixes the key paths in duplicate-key errors (a --set value's key).
ConfigNode parse_yaml_text(const std::string& text, const std::string& origin, const std::string& key_path = "",
                           const std::string& invalid = "not valid YAML");

// The same, for text with no file behind it (tests, generated documents).
inline ConfigNode parse_yaml_text(const std::string& text) { return parse_yaml_text(text, "(text)"); }

// YAML's scalar conversions (yaml-cpp's rules, so `0x10`, `1e3`, `.inf`, `yes`
// read as they always have); nullopt when the text is not one.
std::optional<std::int64_t> yaml_integer(const std::string& text);
std::optional<double> yaml_number(const std::string& text);
std::optional<bool> yaml_boolean(const std::string& text);

// Renders a document back to YAML text (flow style for collections), for messages
// and for documents written by servesim itself.
std::string to_yaml_text(const ConfigNode& node);

}  // namespace servesim
