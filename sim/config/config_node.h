#pragma once
// A configuration document as written: a small tree of scalars (kept as their
// text), lists and mappings, each with the line and column it came from. It is
// servesim's own type, so no YAML library type travels past sim/config/, and a
// document is a plain value: copying one (a sweep point, a plan candidate) is a
// deep copy of a few dozen nodes with no shared state, safe on any thread.
//
// A node brought in by an edit (--set, --vary, a plan candidate, a fitted value)
// is marked as such, so errors about it say "(--set)" instead of pointing at a
// line of the file, and a number set from code keeps its exact double (no round
// trip through text).
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace servesim {

class ConfigNode {
 public:
  enum class Kind { null, scalar, sequence, map };
  struct Entry;

  ConfigNode() = default;  // null: an absent or empty value
  static ConfigNode scalar(std::string text, bool quoted = false);
  // A number set from code (a fitted parameter): read back exactly by number() and
  // quantity() (in the dimension's canonical unit); text() is its shortest round-trip form.
  static ConfigNode number(double value);
  static ConfigNode map();
  static ConfigNode sequence();

  Kind kind() const { return kind_; }
  bool is_null() const { return kind_ == Kind::null; }
  bool is_scalar() const { return kind_ == Kind::scalar; }
  bool is_map() const { return kind_ == Kind::map; }
  bool is_sequence() const { return kind_ == Kind::sequence; }

  // Scalars: the text as written, whether it was quoted ('yes' quoted is a string,
  // not a boolean), and the exact value of a number set from code.
  const std::string& text() const { return text_; }
  bool quoted() const { return quoted_; }
  const std::optional<double>& exact_number() const { return exact_; }

  // Position in the file (0-based, like the YAML parser's; printed 1-based); -1 when
  // the node has none (built in code).
  int line() const { return line_; }
  int column() const { return column_; }
  void set_position(int line, int column) {
    line_ = line;
    column_ = column;
  }
  bool has_position() const { return line_ >= 0; }

  // True for every node an edit brought in (and for the key it was set under).
  bool from_edit() const { return edit_source_ != nullptr; }
  // Where that edit came from, as errors name it: "--set" (the default), or the flag
  // or tool that made it ("--model", "plan candidate"); "" for a node from a file.
  std::string_view edit_source() const { return edit_source_ ? edit_source_ : ""; }
  void mark_from_edit(std::string_view source = "--set");  // this node and everything below it

  // Mappings, in document order. Keys are nodes too (a YAML key may be a list; the
  // readers reject that with its position).
  const std::vector<Entry>& entries() const { return entries_; }
  std::vector<Entry>& entries() { return entries_; }
  // The value under a scalar key, or nullptr.
  const ConfigNode* find(std::string_view key) const;
  ConfigNode* find(std::string_view key);
  // Sets `key` (replacing its value in place, or appending) and returns the entry.
  Entry& set(const std::string& key, ConfigNode value);
  // Removes `key`; returns whether it was there.
  bool remove(std::string_view key);

  // Lists.
  const std::vector<ConfigNode>& items() const { return items_; }
  std::vector<ConfigNode>& items() { return items_; }

 private:
  Kind kind_ = Kind::null;
  bool quoted_ = false;
  const char* edit_source_ = nullptr;  // interned (a handful of distinct labels per process)
  int line_ = -1;
  int column_ = -1;
  std::string text_;
  std::optional<double> exact_;
  std::vector<Entry> entries_;
  std::vector<ConfigNode> items_;
};

struct ConfigNode::Entry {
  ConfigNode key;
  ConfigNode value;
};

// "file:line:col" for a node (1-based); "file (--set)" for one an edit brought in
// ("--set" alone without a file; the flag's name, e.g. "--model", for a flag's edit);
// just "file" for a node without a position.
std::string config_location(const std::string& file, const ConfigNode& node);

}  // namespace servesim
