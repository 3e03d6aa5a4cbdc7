#pragma once
// Strict reading of YAML mappings: every key the code asks for (present or
// not) is "known"; finish() rejects any other key with file:line:column, the
// full key path and a "did you mean". No YAML node escapes the loaders: they
// read through this class into plain spec structs.
#include <yaml-cpp/yaml.h>

#include <cstdint>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "util/units.h"

namespace servesim {

// Loads a YAML file; syntax errors become servesim::Error with file:line.
YAML::Node load_yaml_file(const std::string& path);

// Throws on a mapping that holds the same key twice, naming both lines and the key
// path (`path` prefixes the paths, e.g. for a --set value). load_yaml_file runs it.
void check_duplicate_keys(const YAML::Node& doc, const std::string& file, const std::string& path = "");

// "file:line:col" for a node (yaml-cpp marks are 0-based; we print 1-based); just
// "file" for a node without a position (built in code, or a --set value).
std::string yaml_location(const std::string& file, const YAML::Node& node);

class YamlMap {
 public:
  // `path` is the key path of this mapping ("" for the document root).
  YamlMap(YAML::Node node, std::string file, std::string path = "");

  bool has(const std::string& key);
  // The raw child (marks the key known); nullopt when absent or null.
  std::optional<YAML::Node> get(const std::string& key);

  std::string string(const std::string& key);
  std::string string(const std::string& key, const std::string& fallback);
  std::int64_t integer(const std::string& key);
  std::int64_t integer(const std::string& key, std::int64_t fallback);
  double number(const std::string& key);
  double number(const std::string& key, double fallback);
  bool boolean(const std::string& key, bool fallback);
  double quantity(const std::string& key, Dimension dim);
  double quantity(const std::string& key, Dimension dim, double fallback);
  std::vector<std::string> strings(const std::string& key);

  // A nested mapping; throws if present but not a mapping. Absent → empty map.
  YamlMap map(const std::string& key);

  // Throws on the first key that was never asked for.
  void finish() const;

  // Error text prefix for a key: "file:line:col: a.b.key".
  std::string where(const std::string& key) const;
  std::string where() const;
  const std::string& path() const { return path_; }
  const std::string& file() const { return file_; }
  std::string key_path(const std::string& key) const;
  const YAML::Node& node() const { return node_; }

  // Marks keys as known without reading them (e.g. comments-as-data keys).
  void allow(const std::vector<std::string>& keys);

 private:
  YAML::Node required(const std::string& key);
  YAML::Node node_;
  std::string file_;
  std::string path_;
  std::vector<std::string> known_;
};

// Applies "a.b.c=value" overrides to a document (value parsed as YAML), creating
// intermediate mappings as needed. Throws on malformed text.
void apply_override(YAML::Node& root, const std::string& assignment);
// True when `node` was brought in by apply_override (--set, --vary, plan candidates).
bool from_override(const YAML::Node& node);

}  // namespace servesim
