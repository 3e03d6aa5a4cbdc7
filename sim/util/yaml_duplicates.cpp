// Duplicate mapping keys: yaml-cpp keeps both entries and every lookup returns the
// first, so a second `rate:` (or a second `workload:` section) would be ignored in
// silence. One walk over each loaded document turns that into an error naming both lines.
#include <fmt/format.h>

#include <map>
#include <set>
#include <utility>

#include "util/error.h"
#include "util/yaml_map.h"

namespace servesim {
namespace {

struct DuplicateWalker {
  const std::string& file;
  // Aliases (*a) hand back the anchored node itself, with the anchor's mark: walking
  // each marked collection once keeps a document of nested aliases linear.
  std::set<std::pair<int, int>> seen;

  static std::string line_of(const YAML::Mark& m) {
    return m.is_null() || m.line < 0 ? std::string("?") : std::to_string(m.line + 1);
  }

  void walk(const YAML::Node& node, const std::string& path, int depth) {
    if (!node || depth > 256) return;  // nesting that deep is refused elsewhere, if at all
    if (!node.IsMap() && !node.IsSequence()) return;
    const YAML::Mark mark = node.Mark();
    if (!mark.is_null() && mark.line >= 0 && !seen.insert({mark.line, mark.column}).second) return;
    if (node.IsSequence()) {
      std::size_t i = 0;
      for (const auto& item : node) walk(item, fmt::format("{}[{}]", path, i++), depth + 1);
      return;
    }
    std::map<std::string, YAML::Mark> first;
    for (auto it = node.begin(); it != node.end(); ++it) {
      if (!it->first.IsScalar()) continue;  // non-name keys are rejected by YamlMap
      const std::string key = it->first.Scalar();
      const std::string key_path = path.empty() ? key : path + "." + key;
      const auto [pos, inserted] = first.emplace(key, it->first.Mark());
      if (!inserted) {
        throw Error(fmt::format(
            "{}: {}: duplicate key '{}' (first at line {}, again at line {}); YAML keeps only one of "
            "them, so remove or merge the other",
            yaml_location(file, it->first), key_path, key, line_of(pos->second), line_of(it->first.Mark())));
      }
      walk(it->second, key_path, depth + 1);
    }
  }
};

}  // namespace

void check_duplicate_keys(const YAML::Node& doc, const std::string& file, const std::string& path) {
  DuplicateWalker w{file, {}};
  w.walk(doc, path, 0);
}

}  // namespace servesim
