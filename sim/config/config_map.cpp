#include "config/config_map.h"

#include <fmt/format.h>

#include <algorithm>

#include "config/config_error.h"
#include "config/yaml_text.h"
#include "util/text.h"

namespace servesim {
namespace {

std::string what_kind(const ConfigNode& n) {
  return n.is_sequence() ? "list" : n.is_map() ? "mapping" : "null";
}

[[noreturn]] void throw_at(ConfigErrorKind kind, const std::string& file, const ConfigNode* node,
                           const std::string& key_path, const std::string& message) {
  const bool placed = node && node->has_position() && !node->from_edit();
  throw ConfigError(kind, file, placed ? node->line() + 1 : 0, placed ? node->column() + 1 : 0, key_path, message);
}

}  // namespace

const ConfigNode& empty_config_map() {
  static const ConfigNode empty = ConfigNode::map();
  return empty;
}

ConfigMap::ConfigMap(const ConfigNode& node, std::string file, std::string path)
    : node_(&node), file_(std::move(file)), path_(std::move(path)) {
  if (!node_->is_null() && !node_->is_map())
    throw_at(ConfigErrorKind::bad_value, file_, node_, path_,
             fmt::format("{}: {} must be a mapping of keys to values", config_location(file_, *node_),
                         path_.empty() ? "the document" : path_));
  // YAML allows any node as a key (`? [a]`, `{[x]: 1}`); every reader below compares
  // keys as names, so a key that is a list or mapping is rejected here, where the
  // error can still point at it.
  for (const auto& e : node_->entries())
    if (!e.key.is_scalar())
      throw_at(ConfigErrorKind::bad_value, file_, &e.key, path_,
               fmt::format("{}: {}: mapping keys must be plain names, not a {}", config_location(file_, e.key),
                           path_.empty() ? "(top level)" : path_, what_kind(e.key)));
}

std::string ConfigMap::key_path(const std::string& key) const { return path_.empty() ? key : path_ + "." + key; }

std::string ConfigMap::where() const {
  return fmt::format("{}: {}", config_location(file_, *node_), path_.empty() ? "(top level)" : path_);
}

const ConfigNode* ConfigMap::key_node(const std::string& key) const {
  for (const auto& e : node_->entries())
    if (e.key.is_scalar() && e.key.text() == key) return &e.key;
  return nullptr;
}

std::string ConfigMap::where(const std::string& key) const {
  if (const ConfigNode* k = key_node(key)) return fmt::format("{}: {}", config_location(file_, *k), key_path(key));
  return fmt::format("{}: {}", config_location(file_, *node_), key_path(key));
}

void ConfigMap::fail(const std::string& key, const std::string& what) const {
  const ConfigNode* k = key_node(key);
  throw_at(ConfigErrorKind::bad_value, file_, k ? k : node_, key_path(key), fmt::format("{}: {}", where(key), what));
}

void ConfigMap::refuse(const std::string& key, const Error& e) const {
  const std::string prefix = where(key);
  const std::string what = e.what();
  const ConfigNode* k = key_node(key);
  throw_at(ConfigErrorKind::bad_value, file_, k ? k : node_, key_path(key),
           what.rfind(prefix + ": ", 0) == 0 ? what : fmt::format("{}: {}", prefix, what));
}

void ConfigMap::allow(const std::vector<std::string>& keys) { known_.insert(known_.end(), keys.begin(), keys.end()); }

bool ConfigMap::has(const std::string& key) { return get(key) != nullptr; }

const ConfigNode* ConfigMap::get(const std::string& key) {
  if (std::find(known_.begin(), known_.end(), key) == known_.end()) known_.push_back(key);
  const ConfigNode* child = node_->find(key);
  if (!child || child->is_null()) return nullptr;
  return child;
}

const ConfigNode& ConfigMap::required(const std::string& key) {
  const ConfigNode* n = get(key);
  if (!n) {
    // A typo of a required key shows up as a missing key: point at the likely culprit.
    std::string hint;
    for (const auto& e : node_->entries()) {
      if (!e.key.is_scalar()) continue;  // rejected by the constructor; never compared
      const std::string& present = e.key.text();
      if (!did_you_mean(present, {key}).empty())
        hint = fmt::format("; '{}' at {} looks like a misspelling of it", present, config_location(file_, e.key));
    }
    throw_at(ConfigErrorKind::missing, file_, node_, key_path(key),
             fmt::format("{}: missing required key '{}'{}", where(), key_path(key), hint));
  }
  return *n;
}

namespace {
// The scalar's text, or a bad-value error naming what was expected.
const std::string& scalar_text(const ConfigMap& m, const std::string& key, const ConfigNode& n, const char* what) {
  if (!n.is_scalar()) m.fail(key, fmt::format("expected {}", what));
  return n.text();
}
}  // namespace

std::string ConfigMap::string(const std::string& key) { return scalar_text(*this, key, required(key), "a string"); }
std::string ConfigMap::string(const std::string& key, const std::string& fallback) {
  const ConfigNode* n = get(key);
  return n ? scalar_text(*this, key, *n, "a string") : fallback;
}

std::int64_t ConfigMap::integer(const std::string& key) {
  const ConfigNode& n = required(key);
  const std::string& text = scalar_text(*this, key, n, "an integer");
  if (const auto v = yaml_integer(text)) return *v;
  fail(key, fmt::format("expected an integer, got '{}'", excerpt(text)));
}
std::int64_t ConfigMap::integer(const std::string& key, std::int64_t fallback) {
  return has(key) ? integer(key) : fallback;
}

double ConfigMap::number(const std::string& key) {
  const ConfigNode& n = required(key);
  const std::string& text = scalar_text(*this, key, n, "a number");
  if (n.exact_number()) return *n.exact_number();
  if (const auto v = yaml_number(text)) return *v;
  fail(key, fmt::format("expected a number, got '{}'", excerpt(text)));
}
double ConfigMap::number(const std::string& key, double fallback) { return has(key) ? number(key) : fallback; }

bool ConfigMap::boolean(const std::string& key, bool fallback) {
  const ConfigNode* n = get(key);
  if (!n) return fallback;
  // YAML's conversion would read the text of a quoted scalar too, but 'yes' or
  // "false" in quotes is a string in YAML: refuse it rather than guess.
  if (n->is_scalar() && n->quoted())
    fail(key, fmt::format("expected true or false, got the quoted string '{}' (a string, not a boolean: remove "
                          "the quotes)",
                          n->text()));
  const std::string& text = scalar_text(*this, key, *n, "true or false");
  if (const auto v = yaml_boolean(text)) return *v;
  fail(key, fmt::format("expected true or false, got '{}'", excerpt(text)));
}

double ConfigMap::quantity(const std::string& key, Dimension dim) {
  const ConfigNode& n = required(key);
  const std::string& text = scalar_text(*this, key, n, dimension_example(dim).data());
  if (n.exact_number()) return *n.exact_number();  // set from code, in the canonical unit
  try {
    return parse_quantity(text, dim);
  } catch (const Error& e) {
    fail(key, e.what());
  }
}
double ConfigMap::quantity(const std::string& key, Dimension dim, double fallback) {
  return has(key) ? quantity(key, dim) : fallback;
}

std::vector<std::string> ConfigMap::strings(const std::string& key) {
  const ConfigNode* n = get(key);
  std::vector<std::string> out;
  if (!n) return out;
  if (n->is_scalar()) return {n->text()};
  if (!n->is_sequence()) fail(key, "expected a list of strings");
  for (const auto& item : n->items()) {
    if (!item.is_scalar()) fail(key, "expected a string");
    out.push_back(item.text());
  }
  return out;
}

ConfigMap ConfigMap::map(const std::string& key) {
  const ConfigNode* n = get(key);
  if (!n) return ConfigMap(empty_config_map(), file_, key_path(key));
  if (!n->is_map()) fail(key, "expected a mapping (key: value pairs)");
  return ConfigMap(*n, file_, key_path(key));
}

void ConfigMap::finish() const {
  for (const auto& e : node_->entries()) {
    const std::string& key = e.key.text();
    if (std::find(known_.begin(), known_.end(), key) != known_.end()) continue;
    std::vector<std::string> valid = known_;
    std::sort(valid.begin(), valid.end());
    throw_at(ConfigErrorKind::unknown_key, file_, &e.key, key_path(key),
             fmt::format("{}: {}: unknown key '{}'{} (valid keys here: {})", config_location(file_, e.key),
                         key_path(key), key, did_you_mean(key, valid), join(valid)));
  }
}

}  // namespace servesim
