#include "config/config_node.h"

#include <mutex>
#include <set>

#include <fmt/format.h>

namespace servesim {

ConfigNode ConfigNode::scalar(std::string text, bool quoted) {
  ConfigNode n;
  n.kind_ = Kind::scalar;
  n.text_ = std::move(text);
  n.quoted_ = quoted;
  return n;
}

ConfigNode ConfigNode::number(double value) {
  // "{}" is fmt's shortest text that reads back to the same double.
  ConfigNode n = scalar(fmt::format("{}", value));
  n.exact_ = value;
  return n;
}

ConfigNode ConfigNode::map() {
  ConfigNode n;
  n.kind_ = Kind::map;
  return n;
}

ConfigNode ConfigNode::sequence() {
  ConfigNode n;
  n.kind_ = Kind::sequence;
  return n;
}

namespace {
// Labels live as long as the process: nodes hold a pointer, copies stay cheap.
const char* intern_edit_source(std::string_view label) {
  static std::mutex m;
  static std::set<std::string, std::less<>> labels;
  std::lock_guard<std::mutex> lock(m);
  auto it = labels.find(label);
  if (it == labels.end()) it = labels.emplace(label).first;
  return it->c_str();
}
}  // namespace

void ConfigNode::mark_from_edit(std::string_view source) {
  const char* label = intern_edit_source(source.empty() ? "--set" : source);
  // Iterative over the subtree: an edit's value may be a deep document.
  std::vector<ConfigNode*> todo{this};
  while (!todo.empty()) {
    ConfigNode* n = todo.back();
    todo.pop_back();
    n->edit_source_ = label;
    for (auto& e : n->entries_) {
      todo.push_back(&e.key);
      todo.push_back(&e.value);
    }
    for (auto& i : n->items_) todo.push_back(&i);
  }
}

const ConfigNode* ConfigNode::find(std::string_view key) const {
  for (const auto& e : entries_)
    if (e.key.is_scalar() && e.key.text() == key) return &e.value;
  return nullptr;
}

ConfigNode* ConfigNode::find(std::string_view key) {
  for (auto& e : entries_)
    if (e.key.is_scalar() && e.key.text() == key) return &e.value;
  return nullptr;
}

ConfigNode::Entry& ConfigNode::set(const std::string& key, ConfigNode value) {
  for (auto& e : entries_)
    if (e.key.is_scalar() && e.key.text() == key) {
      e.value = std::move(value);
      return e;
    }
  entries_.push_back({scalar(key), std::move(value)});
  return entries_.back();
}

bool ConfigNode::remove(std::string_view key) {
  for (auto it = entries_.begin(); it != entries_.end(); ++it)
    if (it->key.is_scalar() && it->key.text() == key) {
      entries_.erase(it);
      return true;
    }
  return false;
}

std::string config_location(const std::string& file, const ConfigNode& node) {
  if (node.from_edit()) {
    const std::string source(node.edit_source());
    return file.empty() ? source : file + " (" + source + ")";
  }
  // No position: a node made in code (an absent section read as empty, a generated
  // scenario); the key path that follows says which key it is.
  if (!node.has_position()) return file.empty() ? "(no file)" : file;
  return fmt::format("{}:{}:{}", file, node.line() + 1, node.column() + 1);
}

}  // namespace servesim
