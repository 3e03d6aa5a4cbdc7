#include "util/yaml_map.h"

#include <fmt/format.h>

#include <algorithm>
#include <filesystem>

#include "util/error.h"
#include "util/text.h"

namespace servesim {

YAML::Node load_yaml_file(const std::string& path) {
  // yaml-cpp opens a directory and reads it as an empty document (or throws an
  // ios_base::failure from inside libstdc++): refuse it by name first.
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec))
    throw Error(fmt::format("{}: is a directory, expected a file", path));
  try {
    YAML::Node doc = YAML::LoadFile(path);
    check_duplicate_keys(doc, path);
    return doc;
  } catch (const YAML::BadFile&) {
    throw Error(fmt::format("{}: cannot open file", path));
  } catch (const YAML::Exception& e) {
    throw Error(fmt::format("{}:{}:{}: YAML syntax error: {}", path, e.mark.line + 1,
                            e.mark.column + 1, e.msg));
  }
}

namespace {
// Tag put on every node a --set assignment brings in, so errors about it say so.
constexpr const char* kSetTag = "!servesim-set";
// The same for a quoted scalar: its own tag ("!") is replaced, and whether it was
// quoted still matters (a quoted 'yes' is a string, not a boolean).
constexpr const char* kSetQuotedTag = "!servesim-set-quoted";

bool came_from_set(const YAML::Node& node) { return node.Tag() == kSetTag || node.Tag() == kSetQuotedTag; }

// yaml-cpp tags a quoted scalar "!" (non-specific), a plain one "?".
bool is_quoted_scalar(const YAML::Node& node) {
  return node.IsScalar() && (node.Tag() == "!" || node.Tag() == kSetQuotedTag);
}

void tag_as_set(YAML::Node node) {
  node.SetTag(is_quoted_scalar(node) ? kSetQuotedTag : kSetTag);
  if (node.IsMap())
    for (auto it = node.begin(); it != node.end(); ++it) {
      YAML::Node key = it->first;
      key.SetTag(kSetTag);
      tag_as_set(it->second);
    }
  else if (node.IsSequence())
    for (auto item : node) tag_as_set(item);
}
}  // namespace

std::string yaml_location(const std::string& file, const YAML::Node& node) {
  if (node && came_from_set(node)) return file.empty() ? "--set" : file + " (--set)";
  const YAML::Mark m = node.Mark();
  // No position: a node made in code (an absent section read as empty, a generated
  // scenario) or a --set value; the key path that follows says which key it is.
  if (m.is_null() || m.line < 0) return file.empty() ? "(no file)" : file;
  return fmt::format("{}:{}:{}", file, m.line + 1, m.column + 1);
}

YamlMap::YamlMap(YAML::Node node, std::string file, std::string path)
    : node_(std::move(node)), file_(std::move(file)), path_(std::move(path)) {
  if (node_ && !node_.IsNull() && !node_.IsMap()) {
    throw Error(fmt::format("{}: {} must be a mapping of keys to values",
                            yaml_location(file_, node_), path_.empty() ? "the document" : path_));
  }
  // YAML allows any node as a key (`? [a]`, `{[x]: 1}`); every reader below compares
  // keys as names, so a key that is a list or mapping is rejected here, where the
  // error can still point at it.
  if (node_ && node_.IsMap()) {
    for (auto it = node_.begin(); it != node_.end(); ++it) {
      if (!it->first.IsScalar())
        throw Error(fmt::format("{}: {}: mapping keys must be plain names, not a {}",
                                yaml_location(file_, it->first), path_.empty() ? "(top level)" : path_,
                                it->first.IsSequence() ? "list" : it->first.IsMap() ? "mapping" : "null"));
    }
  }
}

std::string YamlMap::key_path(const std::string& key) const {
  return path_.empty() ? key : path_ + "." + key;
}

std::string YamlMap::where() const {
  return fmt::format("{}: {}", yaml_location(file_, node_), path_.empty() ? "(top level)" : path_);
}

std::string YamlMap::where(const std::string& key) const {
  if (node_ && node_.IsMap()) {
    for (auto it = node_.begin(); it != node_.end(); ++it) {
      if (it->first.IsScalar() && it->first.Scalar() == key)
        return fmt::format("{}: {}", yaml_location(file_, it->first), key_path(key));
    }
  }
  return fmt::format("{}: {}", yaml_location(file_, node_), key_path(key));
}

void YamlMap::allow(const std::vector<std::string>& keys) {
  known_.insert(known_.end(), keys.begin(), keys.end());
}

bool YamlMap::has(const std::string& key) { return get(key).has_value(); }

std::optional<YAML::Node> YamlMap::get(const std::string& key) {
  if (std::find(known_.begin(), known_.end(), key) == known_.end()) known_.push_back(key);
  if (!node_ || !node_.IsMap()) return std::nullopt;
  YAML::Node child = node_[key];
  if (!child || child.IsNull()) return std::nullopt;
  return child;
}

YAML::Node YamlMap::required(const std::string& key) {
  auto n = get(key);
  if (!n) {
    // A typo of a required key shows up as a missing key: point at the likely culprit.
    std::string hint;
    if (node_ && node_.IsMap()) {
      for (auto it = node_.begin(); it != node_.end(); ++it) {
        if (!it->first.IsScalar()) continue;  // rejected by the constructor; never compared
        const std::string present = it->first.Scalar();
        if (!did_you_mean(present, {key}).empty())
          hint = fmt::format("; '{}' at {} looks like a misspelling of it", present, yaml_location(file_, it->first));
      }
    }
    throw Error(fmt::format("{}: missing required key '{}'{}", where(), key_path(key), hint));
  }
  return *n;
}

namespace {
template <typename T>
T scalar_as(const YAML::Node& n, const std::string& where, const char* what) {
  if (!n.IsScalar()) throw Error(fmt::format("{}: expected {}", where, what));
  try {
    return n.as<T>();
  } catch (const YAML::Exception&) {
    throw Error(fmt::format("{}: expected {}, got '{}'", where, what, excerpt(n.Scalar())));
  }
}
}  // namespace

std::string YamlMap::string(const std::string& key) {
  return scalar_as<std::string>(required(key), where(key), "a string");
}
std::string YamlMap::string(const std::string& key, const std::string& fallback) {
  auto n = get(key);
  return n ? scalar_as<std::string>(*n, where(key), "a string") : fallback;
}
std::int64_t YamlMap::integer(const std::string& key) {
  return scalar_as<std::int64_t>(required(key), where(key), "an integer");
}
std::int64_t YamlMap::integer(const std::string& key, std::int64_t fallback) {
  auto n = get(key);
  return n ? scalar_as<std::int64_t>(*n, where(key), "an integer") : fallback;
}
double YamlMap::number(const std::string& key) {
  return scalar_as<double>(required(key), where(key), "a number");
}
double YamlMap::number(const std::string& key, double fallback) {
  auto n = get(key);
  return n ? scalar_as<double>(*n, where(key), "a number") : fallback;
}
bool YamlMap::boolean(const std::string& key, bool fallback) {
  auto n = get(key);
  if (!n) return fallback;
  // yaml-cpp converts the text of a quoted scalar too, but 'yes' or "false" in
  // quotes is a string in YAML: refuse it rather than guess.
  if (is_quoted_scalar(*n))
    throw Error(fmt::format("{}: expected true or false, got the quoted string '{}' (a string, not a boolean: "
                            "remove the quotes)",
                            where(key), n->Scalar()));
  return scalar_as<bool>(*n, where(key), "true or false");
}

double YamlMap::quantity(const std::string& key, Dimension dim) {
  const YAML::Node n = required(key);
  const std::string text = scalar_as<std::string>(n, where(key), dimension_example(dim).data());
  try {
    return parse_quantity(text, dim);
  } catch (const Error& e) {
    throw Error(fmt::format("{}: {}", where(key), e.what()));
  }
}
double YamlMap::quantity(const std::string& key, Dimension dim, double fallback) {
  return has(key) ? quantity(key, dim) : fallback;
}

std::vector<std::string> YamlMap::strings(const std::string& key) {
  auto n = get(key);
  std::vector<std::string> out;
  if (!n) return out;
  if (n->IsScalar()) return {n->Scalar()};
  if (!n->IsSequence()) throw Error(fmt::format("{}: expected a list of strings", where(key)));
  for (const auto& item : *n) out.push_back(scalar_as<std::string>(item, where(key), "a string"));
  return out;
}

YamlMap YamlMap::map(const std::string& key) {
  auto n = get(key);
  if (!n) return YamlMap(YAML::Node(YAML::NodeType::Map), file_, key_path(key));
  if (!n->IsMap()) throw Error(fmt::format("{}: expected a mapping (key: value pairs)", where(key)));
  return YamlMap(*n, file_, key_path(key));
}

void YamlMap::finish() const {
  if (!node_ || !node_.IsMap()) return;
  for (auto it = node_.begin(); it != node_.end(); ++it) {
    if (!it->first.IsScalar())  // unreachable through the constructor; kept as a guard
      throw Error(fmt::format("{}: {}: mapping keys must be plain names", yaml_location(file_, it->first),
                              path_.empty() ? "(top level)" : path_));
    const std::string key = it->first.Scalar();
    if (std::find(known_.begin(), known_.end(), key) != known_.end()) continue;
    std::vector<std::string> valid = known_;
    std::sort(valid.begin(), valid.end());
    throw Error(fmt::format("{}: {}: unknown key '{}'{} (valid keys here: {})",
                            yaml_location(file_, it->first), key_path(key), key,
                            did_you_mean(key, valid), join(valid)));
  }
}

bool from_override(const YAML::Node& node) { return came_from_set(node); }

void apply_override(YAML::Node& root, const std::string& assignment) {
  const auto eq = assignment.find('=');
  if (eq == std::string::npos || eq == 0) {
    throw Error(fmt::format("--set '{}': expected KEY.PATH=VALUE", assignment));
  }
  const std::string path = trim(assignment.substr(0, eq));
  const std::string value = assignment.substr(eq + 1);
  const auto keys = split(path, '.');
  for (const auto& k : keys)
    if (k.empty()) throw Error(fmt::format("--set '{}': empty key in path '{}'", assignment, path));
  YAML::Node parsed;
  try {
    parsed = YAML::Load(value);
  } catch (const YAML::Exception& e) {
    throw Error(fmt::format("--set '{}': value is not valid YAML: {}", assignment, e.msg));
  }
  check_duplicate_keys(parsed, "--set '" + assignment + "'", path);
  // The value's marks count lines of the --set text, not of the scenario file: the tag
  // makes errors about it say "(--set)" instead of pointing at line 1 of the file.
  tag_as_set(parsed);
  // An empty document (no file, or a file with only comments) is a null handle with no
  // node behind it: a copy of it would get its own node and the override would be lost.
  // Give the root a mapping first, so the copies below share it.
  if (!root || root.IsNull()) root = YAML::Node(YAML::NodeType::Map);
  if (!root.IsMap()) throw Error(fmt::format("--set '{}': the document is not a mapping of keys", assignment));
  // yaml-cpp node assignment aliases; walk with fresh handles per level.
  std::vector<YAML::Node> chain{root};
  for (std::size_t i = 0; i + 1 < keys.size(); ++i) {
    YAML::Node parent = chain.back();
    YAML::Node child = parent[keys[i]];
    if (!child || child.IsNull()) {
      parent[keys[i]] = YAML::Node(YAML::NodeType::Map);
      child = parent[keys[i]];
    } else if (!child.IsMap()) {
      throw Error(fmt::format("--set '{}': '{}' is not a mapping", assignment,
                              join(std::vector<std::string>(keys.begin(), keys.begin() + i + 1), ".")));
    }
    chain.push_back(child);
  }
  chain.back()[keys.back()] = parsed;
  // Tag the key too: errors name a key's position (where(key)), and this one's value
  // now comes from the command line even when the key is written in the file.
  for (auto it = chain.back().begin(); it != chain.back().end(); ++it)
    if (it->first.IsScalar() && it->first.Scalar() == keys.back()) it->first.SetTag(kSetTag);
}

}  // namespace servesim
