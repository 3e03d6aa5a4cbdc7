#include "config/edits.h"

#include <fmt/format.h>

#include "config/yaml_text.h"
#include "util/error.h"
#include "util/text.h"

namespace servesim {
namespace {

// A path element "[N]" indexes a list; any other is a mapping key.
bool is_index(const std::string& element) { return !element.empty() && element.front() == '['; }
std::size_t index_of(const std::string& element) { return std::stoul(element.substr(1, element.size() - 2)); }

// "pools[1].max_loras" -> {"pools", "[1]", "max_loras"}: a key may carry list indices
// after its name (a list item is changed in place, as written in the file, with no
// way around its position in the list).
std::vector<std::string> split_key(const std::string& key, const std::string& origin, const std::string& shown) {
  std::vector<std::string> path;
  for (const std::string& piece : split(key, '.')) {
    const std::size_t bracket = piece.find('[');
    const std::string name = piece.substr(0, bracket);
    if (name.empty() && bracket == std::string::npos)
      throw Error(fmt::format("{}: empty key in path '{}'", origin, shown));
    if (name.empty())
      throw Error(fmt::format("{}: an index needs the list's key before it in '{}' (e.g. pools[0].gpu)", origin, shown));
    if (name.find(']') != std::string::npos)
      throw Error(fmt::format("{}: ']' without '[' in key path '{}'", origin, shown));
    path.push_back(name);
    std::size_t at = bracket;
    while (at != std::string::npos && at < piece.size()) {
      const std::size_t close = piece.find(']', at);
      const std::string digits = close == std::string::npos ? "" : piece.substr(at + 1, close - at - 1);
      const bool number = !digits.empty() && digits.size() <= 9 &&
                          digits.find_first_not_of("0123456789") == std::string::npos;
      if (piece[at] != '[' || !number)
        throw Error(fmt::format("{}: '{}' in key path '{}' is not a list index; write KEY[N] with N = 0, 1, ... "
                                "(e.g. pools[0].gpu)",
                                origin, piece.substr(at), shown));
      path.push_back("[" + digits + "]");
      at = close + 1;
    }
  }
  return path;
}

// "pools[1]" for the first `count` elements of a path.
std::string shown_path(const std::vector<std::string>& path, std::size_t count) {
  std::string out;
  for (std::size_t i = 0; i < count && i < path.size(); ++i) {
    if (!out.empty() && !is_index(path[i])) out += '.';
    out += path[i];
  }
  return out;
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

// Whether the document holds every step of `path` before `count` (what an index at
// `count` needs: the list it indexes).
bool probe_reaches(const ConfigNode& root, const std::vector<std::string>& path, std::size_t count) {
  const ConfigNode* at = &root;
  for (std::size_t i = 0; i < count; ++i) {
    if (is_index(path[i])) {
      if (!at->is_sequence() || index_of(path[i]) >= at->items().size()) return false;
      at = &at->items()[index_of(path[i])];
    } else {
      at = at->is_map() ? at->find(path[i]) : nullptr;
      if (!at) return false;
    }
  }
  return true;
}

}  // namespace

std::string ConfigEdit::key() const { return shown_path(path, path.size()); }

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
  // Checked before anything changes, so a failed edit leaves the document as it was:
  // a missing key is created (a mapping), a list index must name an item that exists.
  const ConfigNode* probe = &root;
  for (std::size_t i = 0; probe && i < edit.path.size(); ++i) {
    const std::string& step = edit.path[i];
    const bool last = i + 1 == edit.path.size();
    if (is_index(step)) {
      if (!probe->is_sequence())
        throw Error(fmt::format("{}: '{}' is not a list, so it has no item {}", edit.origin, shown_path(edit.path, i),
                                step));
      const std::size_t n = probe->items().size();
      if (index_of(step) >= n)
        throw Error(fmt::format("{}: '{}' has {} item{}{}: there is no item {} (items count from 0)", edit.origin,
                                shown_path(edit.path, i), n, n == 1 ? "" : "s",
                                n ? fmt::format(", [0] to [{}]", n - 1) : "", step));
      probe = &probe->items()[index_of(step)];
      if (!last && !is_index(edit.path[i + 1]) && !probe->is_map() && !probe->is_null())
        throw Error(fmt::format("{}: '{}' is not a mapping", edit.origin, shown_path(edit.path, i + 1)));
      continue;
    }
    const ConfigNode* child = probe->find(step);
    if (!last && child && !child->is_null() && !is_index(edit.path[i + 1]) && !child->is_map())
      throw Error(fmt::format("{}: '{}' is not a mapping", edit.origin, shown_path(edit.path, i + 1)));
    if (!last && (!child || child->is_null()) && is_index(edit.path[i + 1]))
      throw Error(fmt::format("{}: '{}' is not in the document, so it has no item {} (an index changes an item "
                              "of a list written in the file)",
                              edit.origin, shown_path(edit.path, i + 1), edit.path[i + 1]));
    probe = child;
  }
  // Past a key the document lacks, every step is created: none may be an index.
  for (std::size_t i = 0; i < edit.path.size(); ++i)
    if (is_index(edit.path[i]) && !probe_reaches(root, edit.path, i))
      throw Error(fmt::format("{}: '{}' is not in the document, so it has no item {} (an index changes an item "
                              "of a list written in the file)",
                              edit.origin, shown_path(edit.path, i), edit.path[i]));
  ConfigNode* at = &root;
  for (std::size_t i = 0; i + 1 < edit.path.size(); ++i) {
    const std::string& step = edit.path[i];
    if (is_index(step)) {
      at = &at->items()[index_of(step)];
      if (at->is_null() && !is_index(edit.path[i + 1])) *at = ConfigNode::map();
      continue;
    }
    ConfigNode* child = at->find(step);
    if (!child || child->is_null()) child = &at->set(step, ConfigNode::map()).value;
    at = child;
  }
  const std::string& leaf = edit.path.back();
  if (is_index(leaf)) {
    at->items()[index_of(leaf)] = edit.value;
    return;
  }
  ConfigNode::Entry& e = at->set(leaf, edit.value);
  // The key too: errors name a key's position, and this one's value now comes from
  // the command line even when the key is written in the file.
  e.key.mark_from_edit(edit.source);
}

void set_key(ConfigNode& root, const std::string& key, ConfigNode value) {
  ConfigEdit e;
  e.path = split_key(key, "(built in code)", key);
  e.origin = "(built in code)";
  for (const std::string& step : e.path)
    if (is_index(step)) throw Error(fmt::format("(built in code): set_key takes mapping keys only, not '{}'", key));
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
