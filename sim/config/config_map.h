#pragma once
// Strict reading of a configuration mapping: every key the code asks for (present
// or not) is "known"; finish() rejects any other key with file:line:column, the
// full key path and a "did you mean". Readers go through this class into plain
// spec structs; errors are ConfigError (kind + key path) with today's messages.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "config/config_node.h"
#include "util/error.h"
#include "util/units.h"

namespace servesim {

class ConfigMap {
 public:
  // `path` is the key path of this mapping ("" for the document root). `node` must
  // outlive the map (it is read in place, not copied).
  ConfigMap(const ConfigNode& node, std::string file, std::string path = "");
  ConfigMap(ConfigNode&&, std::string, std::string = "") = delete;  // would dangle

  bool has(const std::string& key);
  // The raw child (marks the key known); nullptr when absent or null.
  const ConfigNode* get(const std::string& key);

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
  ConfigMap map(const std::string& key);

  // Throws on the first key that was never asked for.
  void finish() const;

  // Error text prefix for a key: "file:line:col: a.b.key".
  std::string where(const std::string& key) const;
  std::string where() const;
  const std::string& path() const { return path_; }
  const std::string& file() const { return file_; }
  std::string key_path(const std::string& key) const;
  const ConfigNode& node() const { return *node_; }

  // Marks keys as known without reading them (e.g. comments-as-data keys).
  void allow(const std::vector<std::string>& keys);

  // A bad-value ConfigError about `key` (message prefixed with where(key)).
  [[noreturn]] void fail(const std::string& key, const std::string& what) const;
  // The same for an Error thrown while reading `key`'s value (a catalog lookup, a
  // precision name): its message kept, prefixed with where(key) unless it starts so.
  [[noreturn]] void refuse(const std::string& key, const Error& e) const;

 private:
  const ConfigNode& required(const std::string& key);
  const ConfigNode* key_node(const std::string& key) const;
  const ConfigNode* node_;
  std::string file_;
  std::string path_;
  std::vector<std::string> known_;
};

// An empty mapping with static storage, for absent sections.
const ConfigNode& empty_config_map();

}  // namespace servesim
