#include "config/edits.h"

#include <fmt/format.h>

#include "config/yaml_text.h"
#include "util/error.h"
#include "util/text.h"

namespace servesim {
namespace {

std::vector<std::string> split_key(const std::string& key, const std::string& origin, const std::string& shown) {
  auto keys = split(key, '.');
  for (const auto& k : keys)
    if (k.empty()) throw Error(fmt::format("{}: empty key in path '{}'", origin, shown));
  return keys;
}

ConfigEdit make(const std::string& key, ConfigNode value, std::string origin, std::string_view source = "") {
  ConfigEdit e;
  e.source = source.empty() ? "--set" : std::string(source);
  e.path = split_key(key, origin, key);
  value.mark_from_edit(e.source);
  e.value = std::move(value);
  e.origin = std::move(origin);
  return e;
}

}  // namespace

std::string ConfigEdit::key() const { return join(path, "."); }

ConfigEdit parse_edit(const std::string& assignment) {
  const std::string origin = fmt::format("--set '{}'", assignment);
  const auto eq = assignment.find('=');
  if (eq == std::string::npos || eq == 0) throw Error(fmt::format("{}: expected KEY.PATH=VALUE", origin));
  const std::string path = trim(assignment.substr(0, eq));
  if (trim(assignment.substr(eq + 1)).empty())
    throw Error(fmt::format("{}: no value after '='; write {}=VALUE (an empty text is {}='')", origin, path, path));
  ConfigEdit e;
  e.path = split_key(path, origin, path);
  e.origin = origin;
  // Parsed once, here; duplicate keys inside the value ({kind: a, kind: b}) are
  // named with the value's own line and column.
  e.value = parse_yaml_text(assignment.substr(eq + 1), origin, path, "value is not valid YAML");
  e.value.mark_from_edit();
  return e;
}

ConfigEdit number_edit(const std::string& key, double value, std::string_view source) {
  return make(key, ConfigNode::number(value),
              source.empty() ? fmt::format("--set {}={}", key, value) : fmt::format("{} {}", source, value), source);
}

ConfigEdit text_edit(const std::string& key, const std::string& value, std::string_view source) {
  return make(key, ConfigNode::scalar(value, true),
              source.empty() ? fmt::format("--set {}={}", key, value) : fmt::format("{} {}", source, value), source);
}

ConfigEdit node_edit(const std::string& key, ConfigNode value) {
  return make(key, std::move(value), fmt::format("--set {}", key));
}

void apply_edit(ConfigNode& root, const ConfigEdit& edit) {
  // An empty document (no file, or only comments) becomes a mapping.
  if (root.is_null()) root = ConfigNode::map();
  if (!root.is_map()) throw Error(fmt::format("{}: the document is not a mapping of keys", edit.origin));
  ConfigNode* at = &root;
  for (std::size_t i = 0; i + 1 < edit.path.size(); ++i) {
    ConfigNode* child = at->find(edit.path[i]);
    if (!child || child->is_null()) {
      child = &at->set(edit.path[i], ConfigNode::map()).value;
    } else if (!child->is_map()) {
      throw Error(fmt::format("{}: '{}' is not a mapping", edit.origin,
                              join(std::vector<std::string>(edit.path.begin(), edit.path.begin() + i + 1), ".")));
    }
    at = child;
  }
  ConfigNode::Entry& e = at->set(edit.path.back(), edit.value);
  // The key too: errors name a key's position, and this one's value now comes from
  // the command line even when the key is written in the file.
  e.key.mark_from_edit(edit.source);
}

void set_key(ConfigNode& root, const std::string& key, ConfigNode value) {
  ConfigEdit e;
  e.path = split_key(key, "(built in code)", key);
  e.origin = "(built in code)";
  e.value = std::move(value);
  if (root.is_null()) root = ConfigNode::map();
  ConfigNode* at = &root;
  for (std::size_t i = 0; i + 1 < e.path.size(); ++i) {
    ConfigNode* child = at->find(e.path[i]);
    if (!child || !child->is_map()) child = &at->set(e.path[i], ConfigNode::map()).value;
    at = child;
  }
  at->set(e.path.back(), std::move(e.value));
}

void set_text(ConfigNode& root, const std::string& key, const std::string& text) {
  set_key(root, key, ConfigNode::scalar(text));
}

void set_number(ConfigNode& root, const std::string& key, double value) {
  set_key(root, key, ConfigNode::number(value));
}

void apply_edits(ConfigNode& root, const std::vector<ConfigEdit>& edits) {
  for (const auto& e : edits) apply_edit(root, e);
}

void apply_override(ConfigNode& root, const std::string& assignment) { apply_edit(root, parse_edit(assignment)); }

std::vector<ConfigEdit> parse_edits(const std::vector<std::string>& assignments) {
  std::vector<ConfigEdit> out;
  out.reserve(assignments.size());
  for (const auto& a : assignments) out.push_back(parse_edit(a));
  return out;
}

}  // namespace servesim
