#include "config_key_examples.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <filesystem>

#include "config/yaml_text.h"

namespace servesim::testing {
namespace {

constexpr std::string_view kGpuRoot = "(gpu file)";
constexpr std::string_view kModelRoot = "(model file)";

bool starts_with(std::string_view s, std::string_view prefix) { return s.substr(0, prefix.size()) == prefix; }

// The names of a section path below its document's root: "(gpu file).memory" -> {memory}.
std::vector<std::string> components(std::string_view path) {
  if (starts_with(path, "(")) {
    const auto close = path.find(')');
    path = close == std::string_view::npos ? std::string_view{} : path.substr(close + 1);
    if (starts_with(path, ".")) path.remove_prefix(1);
  }
  std::vector<std::string> out;
  while (!path.empty()) {
    const auto dot = path.find('.');
    out.emplace_back(path.substr(0, dot));
    path = dot == std::string_view::npos ? std::string_view{} : path.substr(dot + 1);
  }
  return out;
}

std::vector<const KeySection*> sections_at(std::string_view path) {
  std::vector<const KeySection*> out;
  for (const KeySection* s : config_sections())
    if (s->path == path) out.push_back(s);
  return out;
}

// The value of `selector` in `mapping`, or the default declared for it at `path`.
std::string selector_value(std::string_view path, std::string_view selector, const ConfigNode& mapping) {
  if (const ConfigNode* v = mapping.find(selector); v && v->is_scalar()) return v->text();
  for (const KeySection* s : sections_at(path))
    for (const Key* k : s->keys)
      if (k->name == selector) return std::string(k->default_text);
  return "";
}

// Whether `mapping` is in the form `s` reads (a plain section reads any).
bool selects(const KeySection& s, const ConfigNode& mapping) {
  return s.variant.empty() || selector_value(s.path, s.selector, mapping) == s.variant;
}

// Every mapping below `node` along `names[i..]`, through lists (each mapping of a list).
void mappings_at(const ConfigNode& node, const std::vector<std::string>& names, std::size_t i,
                 std::vector<const ConfigNode*>& out) {
  if (node.is_sequence()) {
    for (const ConfigNode& item : node.items()) mappings_at(item, names, i, out);
    return;
  }
  if (!node.is_map()) return;
  if (i == names.size()) {
    out.push_back(&node);
    return;
  }
  if (const ConfigNode* child = node.find(names[i])) mappings_at(*child, names, i + 1, out);
}

// A shipped mapping in the form `s` reads, or nullptr.
const ConfigNode* shipped_mapping(const KeySection& s) {
  for (const ShippedDoc& d : shipped_docs(kind_of(s))) {
    std::vector<const ConfigNode*> found;
    mappings_at(d.doc, components(s.path), 0, found);
    for (const ConfigNode* m : found)
      if (selects(s, *m)) return m;
  }
  return nullptr;
}

ConfigNode example_mapping(const std::string& path, const KeySection* form, int depth);

// Mappings that no shipped file has and the declarations cannot build: a trace
// file that exists, which one of two optional keys a stage has. Each is a whole
// mapping at its path but for the keys of a variant (a variant's selector replaces
// its own); the first is the one mappings made on the way down start from.
const std::vector<ConfigNode>& seeds(std::string_view path) {
  static const std::vector<std::pair<std::string, std::vector<ConfigNode>>> table = {
      {"workload",
       {parse_yaml_text(fmt::format("{{trace: '{}/data/traces/azure_conv.first1000.csv'}}", SERVESIM_SOURCE_DIR))}},
      {"workload.arrival.stages",
       {parse_yaml_text("{process: poisson, rate: 8, requests: 100}"), parse_yaml_text("{process: poisson, rate: 8}")}},
  };
  static const std::vector<ConfigNode> none;
  for (const auto& [p, nodes] : table)
    if (p == path) return nodes;
  return none;
}

// Numbers in the key's range: its default, its bounds, 1 and 0.
std::vector<double> example_numbers(const Key& k) {
  std::vector<double> candidates;
  if (!k.required && k.default_note.empty()) candidates.push_back(k.default_number);
  candidates.insert(candidates.end(), {k.min, k.max, 1.0, 0.0});
  std::vector<double> out;
  for (double v : candidates)
    if (std::isfinite(v) && v >= k.min && v <= k.max) out.push_back(v);
  return out;
}

// Example values of `k` in the mapping `s` describes, derived from its declaration.
std::vector<ConfigNode> derived_values(const KeySection& s, const Key& k, int depth) {
  std::vector<ConfigNode> out;
  switch (k.type) {
    case KeyType::integer:
      for (double v : example_numbers(k))
        out.push_back(ConfigNode::scalar(fmt::format("{}", static_cast<long long>(std::llround(v)))));
      break;
    case KeyType::number:
    case KeyType::quantity:  // quantities in the canonical unit
      for (double v : example_numbers(k)) out.push_back(ConfigNode::number(v));
      break;
    case KeyType::boolean:
      out.push_back(ConfigNode::scalar(k.default_bool ? "true" : "false"));
      out.push_back(ConfigNode::scalar(k.default_bool ? "false" : "true"));
      break;
    case KeyType::choice:
      if (!k.default_text.empty()) out.push_back(ConfigNode::scalar(std::string(k.default_text)));
      for (std::string_view c : k.choices) out.push_back(ConfigNode::scalar(std::string(c)));
      break;
    case KeyType::text:
      out.push_back(ConfigNode::scalar(k.default_text.empty() ? "example" : std::string(k.default_text)));
      break;
    case KeyType::list: {
      // A list of mappings described by a section of its own gets one example item.
      ConfigNode list = ConfigNode::sequence();
      const std::string item_path = child_path(s.path, k.name);
      if (has_section(item_path) && depth < 4) list.items().push_back(example_mapping(item_path, nullptr, depth + 1));
      out.push_back(std::move(list));
      break;
    }
    case KeyType::section:
      if (depth < 4) out.push_back(example_mapping(child_path(s.path, k.name), nullptr, depth + 1));
      break;
  }
  if (out.empty()) out.push_back(ConfigNode::scalar("1"));
  return out;
}

// The values of `k` as shipped files write them at the path of `s`: in mappings of
// the form `s` reads first, then in any.
std::vector<ConfigNode> shipped_values(const KeySection& s, const Key& k) {
  std::vector<ConfigNode> same, other;
  for (const ShippedDoc& d : shipped_docs(kind_of(s))) {
    std::vector<const ConfigNode*> found;
    mappings_at(d.doc, components(s.path), 0, found);
    for (const ConfigNode* m : found) {
      const ConfigNode* v = m->find(k.name);
      if (v && !v->is_null()) (selects(s, *m) ? same : other).push_back(*v);
    }
  }
  same.insert(same.end(), other.begin(), other.end());
  return same;
}

// All example values of `k`, best first, each once; `depth` bounds the mappings built for them.
std::vector<ConfigNode> example_values(const KeySection& s, const Key& k, int depth) {
  if (k.name == s.selector && !s.variant.empty()) return {ConfigNode::scalar(std::string(s.variant))};
  std::vector<ConfigNode> all;
  for (const ConfigNode& sd : seeds(s.path))
    if (const ConfigNode* v = sd.find(k.name)) all.push_back(*v);
  for (ConfigNode& v : shipped_values(s, k)) all.push_back(std::move(v));
  for (ConfigNode& v : derived_values(s, k, depth)) all.push_back(std::move(v));
  std::vector<ConfigNode> out;
  std::vector<std::string> seen;
  for (ConfigNode& v : all) {
    std::string text = to_yaml_text(v);
    if (std::find(seen.begin(), seen.end(), text) != seen.end()) continue;
    seen.push_back(std::move(text));
    out.push_back(std::move(v));
  }
  return out;
}

ConfigNode example_value(const KeySection& s, const Key& k, int depth) { return example_values(s, k, depth).front(); }

// A mapping at `path` in the form `form` reads (nullptr: the variant the selector's
// example value picks, if the path has variants): `seed` (a whole mapping but for
// the variant's keys) or else the required keys of the plain sections, then the
// selector and the required keys of the variant.
ConfigNode example_mapping_from(const std::string& path, const KeySection* form, int depth, const ConfigNode* seed) {
  const auto at = sections_at(path);
  std::vector<const KeySection*> plain;
  for (const KeySection* s : at)
    if (s->variant.empty()) plain.push_back(s);
  if (!form) {
    for (const KeySection* s : at) {
      if (s->variant.empty()) continue;
      const Key* sel = find_key(plain, s->selector);
      if (sel && example_value(*plain.front(), *sel, depth).text() == s->variant) {
        form = s;
        break;
      }
    }
  }
  std::vector<const KeySection*> parts = seed ? std::vector<const KeySection*>{} : plain;
  if (form && !form->variant.empty()) parts.push_back(form);
  ConfigNode m = seed ? *seed : ConfigNode::map();
  if (form && !form->variant.empty()) m.set(std::string(form->selector), ConfigNode::scalar(std::string(form->variant)));
  for (const KeySection* s : parts)
    for (const Key* k : s->keys)
      if (k->required && !m.find(k->name)) m.set(std::string(k->name), example_value(*s, *k, depth));
  return m;
}

ConfigNode example_mapping(const std::string& path, const KeySection* form, int depth) {
  const auto& from = seeds(path);
  return example_mapping_from(path, form, depth, from.empty() ? nullptr : &from.front());
}

// The mapping at `path` in the form `form` reads: a shipped one, else an example.
ConfigNode mapping_for(const std::string& path, const KeySection* form) {
  if (form)
    if (const ConfigNode* m = shipped_mapping(*form)) return *m;
  return example_mapping(path, form, 0);
}

// The section at `path` that declares `name`, preferring one that reads `existing`.
const KeySection* declaring(std::string_view path, std::string_view name, const ConfigNode* existing) {
  const KeySection* first = nullptr;
  for (const KeySection* s : sections_at(path)) {
    if (!find_key({s}, name)) continue;
    if (!first) first = s;
    if (existing && existing->is_map() && selects(*s, *existing)) return s;
  }
  return first;
}

// The mapping `s` describes in `doc`, made (or replaced, when in another variant's
// form) on the way down.
ConfigNode& ensure_mapping(ConfigNode& doc, const KeySection& s) {
  const auto names = components(s.path);
  ConfigNode* cur = &doc;
  std::string path(root_path(kind_of(s)));
  for (std::size_t i = 0; i < names.size(); ++i) {
    const std::string here = child_path(path, names[i]);
    ConfigNode* node = cur->find(names[i]);
    const Key* decl = find_key(sections_at(path), names[i]);
    const bool list = decl && decl->type == KeyType::list;
    ConfigNode* mapping = node && list && node->is_sequence() && !node->items().empty() ? &node->items().front()
                          : node && !list                                            ? node
                                                                                     : nullptr;
    const KeySection* form = i + 1 == names.size() ? &s : declaring(here, names[i + 1], mapping);
    if (!mapping || !mapping->is_map() || (form && !selects(*form, *mapping))) {
      ConfigNode fresh = mapping_for(here, form);
      if (list) {
        ConfigNode seq = ConfigNode::sequence();
        seq.items().push_back(std::move(fresh));
        cur->set(names[i], std::move(seq));
        mapping = &cur->find(names[i])->items().front();
      } else {
        cur->set(names[i], std::move(fresh));
        mapping = cur->find(names[i]);
      }
    }
    cur = mapping;
    path = here;
  }
  return *cur;
}

std::vector<std::string> yaml_files(const std::string& dir) {
  std::vector<std::string> out;
  for (const auto& e : std::filesystem::directory_iterator(dir))
    if (e.is_regular_file() && e.path().extension() == ".yaml") out.push_back(e.path().string());
  std::sort(out.begin(), out.end());
  return out;
}

}  // namespace

std::string_view root_path(DocKind kind) {
  switch (kind) {
    case DocKind::scenario: return "";
    case DocKind::gpu: return kGpuRoot;
    case DocKind::model: return kModelRoot;
  }
  return "";
}

DocKind kind_of(const KeySection& s) {
  if (starts_with(s.path, kGpuRoot)) return DocKind::gpu;
  if (starts_with(s.path, kModelRoot)) return DocKind::model;
  return DocKind::scenario;
}

std::string child_path(std::string_view parent, std::string_view name) {
  return parent.empty() ? std::string(name) : fmt::format("{}.{}", parent, name);
}

std::vector<const KeySection*> sections_for(std::string_view path, const ConfigNode& mapping) {
  std::vector<const KeySection*> out;
  for (const KeySection* s : sections_at(path))
    if (selects(*s, mapping)) out.push_back(s);
  return out;
}

bool has_section(std::string_view path) { return !sections_at(path).empty(); }

const Key* find_key(const std::vector<const KeySection*>& sections, std::string_view name) {
  for (const KeySection* s : sections)
    for (const Key* k : s->keys)
      if (k->name == name) return k;
  return nullptr;
}

const std::vector<ShippedDoc>& shipped_docs(DocKind kind) {
  static const auto load = [](std::vector<std::string> dirs) {
    std::vector<ShippedDoc> out;
    for (const auto& dir : dirs)
      for (const auto& file : yaml_files(std::string(SERVESIM_SOURCE_DIR) + "/" + dir))
        for (ConfigNode& doc : load_yaml_documents(file)) out.push_back({file, std::move(doc)});
    return out;
  };
  static const std::vector<ShippedDoc> scenarios = load({"scenarios"});
  static const std::vector<ShippedDoc> gpus = load({"hardware", "hardware/calibrated"});
  static const std::vector<ShippedDoc> models = load({"models"});
  switch (kind) {
    case DocKind::scenario: return scenarios;
    case DocKind::gpu: return gpus;
    case DocKind::model: return models;
  }
  return scenarios;
}

std::vector<ConfigNode> example_values(const KeySection& s, const Key& k) { return example_values(s, k, 0); }

int mapping_forms(const KeySection& s) { return 1 + static_cast<int>(std::max<std::size_t>(1, seeds(s.path).size())); }

ConfigNode with_value(const ConfigNode& base, const KeySection& s, const Key& k, const ConfigNode& value, int form) {
  ConfigNode doc = base;
  ConfigNode& m = ensure_mapping(doc, s);
  if (form > 0) {
    const auto& from = seeds(s.path);
    const std::size_t i = static_cast<std::size_t>(form - 1);
    m = example_mapping_from(std::string(s.path), &s, 0, i < from.size() ? &from[i] : nullptr);
  }
  m.set(std::string(k.name), value);
  return doc;
}

}  // namespace servesim::testing
