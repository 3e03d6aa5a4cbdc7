#include "config/config_node.h"

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

void ConfigNode::mark_from_edit() {
  from_edit_ = true;
  for (auto& e : entries_) {
    e.key.mark_from_edit();
    e.value.mark_from_edit();
  }
  for (auto& i : items_) i.mark_from_edit();
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
  if (node.from_edit()) return file.empty() ? "--set" : file + " (--set)";
  // No position: a node made in code (an absent section read as empty, a generated
  // scenario); the key path that follows says which key it is.
  if (!node.has_position()) return file.empty() ? "(no file)" : file;
  return fmt::format("{}:{}:{}", file, node.line() + 1, node.column() + 1);
}

}  // namespace servesim
