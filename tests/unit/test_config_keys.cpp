// The key declarations (config_sections(), shown by `servesim describe` and in
// docs/config-reference.md) against the files and the loaders:
// - every key written in a shipped scenario, GPU file or model file is described;
// - every described key is read: a document with that key set to a valid example
//   value is not refused as an unknown key by the loader of its kind of document.
// Each test lists all of its gaps at once (key path and where), not just the first.
#include <catch2/catch.hpp>

#include <fmt/format.h>

#include <string>
#include <vector>

#include "config/catalog_reader.h"
#include "config/config_error.h"
#include "config/config_map.h"
#include "config/describe.h"
#include "config/plan_reader.h"
#include "config/scenario_reader.h"
#include "config/yaml_text.h"
#include "config_key_examples.h"
#include "util/error.h"
#include "util/text.h"

using namespace servesim;
using namespace servesim::testing;

namespace {

// Records each key of `mapping` (at section path `path`) that no section describes,
// and walks into the mappings (and lists of mappings) below the described ones.
void walk(const ConfigNode& mapping, const std::string& path, const std::string& file,
          std::vector<std::string>& gaps) {
  const auto sections = sections_for(path, mapping);
  for (const auto& e : mapping.entries()) {
    const std::string& name = e.key.text();
    const std::string child = child_path(path, name);
    if (!find_key(sections, name)) {
      gaps.push_back(fmt::format("{}: {}", config_location(file, e.key), child));
      continue;
    }
    // A mapping (or list of mappings) with sections of its own is walked; one
    // without is described as a whole (a provenance block kept but not read).
    if (e.value.is_map() && has_section(child)) walk(e.value, child, file, gaps);
    if (e.value.is_sequence() && has_section(child))
      for (const ConfigNode& item : e.value.items())
        if (item.is_map()) walk(item, child, file, gaps);
  }
}

std::vector<std::string> undescribed_keys(DocKind kind) {
  std::vector<std::string> gaps;
  for (const ShippedDoc& d : shipped_docs(kind))
    if (d.doc.is_map()) walk(d.doc, std::string(root_path(kind)), d.file, gaps);
  return gaps;
}

// What a loader made of a document.
struct Loaded {
  bool unknown_key = false;  // refused a key it does not read
  std::string refusal;       // its error, if it refused the document for any reason
};

template <typename Load>
Loaded try_load(Load&& load) {
  try {
    load();
    return {};
  } catch (const ConfigError& e) {
    return {e.kind() == ConfigErrorKind::unknown_key, e.what()};
  } catch (const Error& e) {
    return {false, e.what()};
  }
}

std::string source_dir() { return SERVESIM_SOURCE_DIR; }

bool is_plan_section(const KeySection& s) { return s.path == "plan" || s.path.substr(0, 5) == "plan."; }

// The loader of the document a section belongs to, on `doc`.
Loaded load_as(const KeySection& s, const ConfigNode& doc) {
  switch (kind_of(s)) {
    case DocKind::scenario:
      if (is_plan_section(s)) {
        // `plan:` is read by `servesim plan` only, from the scenario or its second document.
        ConfigNode copy = doc;
        PlanSection o;
        return try_load([&] { read_plan_section(copy, ConfigNode(), "(plan keys)", o); });
      }
      return try_load([&] { parse_scenario(doc, source_dir() + "/scenarios/quickstart.yaml"); });
    case DocKind::gpu:
      return try_load([&] {
        ConfigMap m(doc, source_dir() + "/hardware/h100-sxm.yaml");
        parse_gpu(m);
      });
    case DocKind::model:
      return try_load([&] {
        ConfigMap m(doc, source_dir() + "/models/llama-3.1-8b.yaml");
        parse_model(m);
      });
  }
  return {};
}

// The document a section's keys are set in: a shipped one that loads.
ConfigNode base_for(const KeySection& s) {
  switch (kind_of(s)) {
    case DocKind::scenario:
      if (is_plan_section(s)) return ConfigNode::map();
      return load_yaml_file(source_dir() + "/scenarios/quickstart.yaml");
    case DocKind::gpu: return load_yaml_file(source_dir() + "/hardware/h100-sxm.yaml");
    case DocKind::model: return load_yaml_file(source_dir() + "/models/llama-3.1-8b.yaml");
  }
  return ConfigNode();
}

std::string shown(const KeySection& s, const Key& k) {
  const std::string path = described_key_path(s, k);
  return s.variant.empty() ? path : fmt::format("{} ({}: {})", path, s.selector, s.variant);
}

// Whether the loader reads `k`: it is set to each example value in turn, in the
// base document's mapping, then in mappings built from the declarations alone,
// until a document loads (read) or is refused as having an unknown key (unread).
// Returns the unknown-key error, or "" when read; a key whose every example was
// refused for another reason (a value or combination) is added to `unverified`.
std::string unread_error(const KeySection& s, const Key& k, const ConfigNode& base,
                         std::vector<std::string>& unverified) {
  std::string first_refusal;
  for (int form = 0; form < mapping_forms(s); ++form)
    for (const ConfigNode& value : example_values(s, k)) {
      const Loaded r = load_as(s, with_value(base, s, k, value, form));
      if (r.unknown_key) return r.refusal;
      if (r.refusal.empty()) return "";
      if (first_refusal.empty()) first_refusal = r.refusal;
    }
  unverified.push_back(fmt::format("{}: {}", shown(s, k), first_refusal));
  return "";
}

// Checks every key declared for `kind` documents; returns the unread ones.
std::vector<std::string> unread_keys(DocKind kind, int& checked, std::vector<std::string>& unverified) {
  std::vector<std::string> unread;
  for (const KeySection* s : config_sections()) {
    if (kind_of(*s) != kind) continue;
    const ConfigNode base = base_for(*s);
    INFO("base document of " << section_title(*s));
    REQUIRE(load_as(*s, base).refusal.empty());
    for (const Key* k : s->keys) {
      // A mapping described by sections of its own is checked key by key there.
      if (k->type == KeyType::section && has_section(child_path(s->path, k->name))) continue;
      ++checked;
      const std::string error = unread_error(*s, *k, base, unverified);
      if (!error.empty()) unread.push_back(fmt::format("{}: {}", shown(*s, *k), error));
    }
  }
  return unread;
}

int sections_of(DocKind kind) {
  int n = 0;
  for (const KeySection* s : config_sections()) n += kind_of(*s) == kind;
  return n;
}

void check_every_described_key_is_read(DocKind kind, const char* what) {
  INFO("no key sections of " << what << " are registered in config_sections()");
  REQUIRE(sections_of(kind) > 0);
  int checked = 0;
  std::vector<std::string> unverified;
  const auto unread = unread_keys(kind, checked, unverified);
  // Not failures, but not proof either: a loader that refused the example before it
  // reached the key may not read it.
  if (!unverified.empty())
    WARN(unverified.size() << " described keys of " << what << " not verified, their example was refused:\n  "
                           << join(unverified, "\n  "));
  INFO(unread.size() << " of " << checked << " described keys of " << what
                     << " are refused as unknown by their loader:\n  " << join(unread, "\n  "));
  CHECK(unread.empty());
}

// A key no loader reads, in a section of its own (not registered).
const Key kUnread{.name = "no_such_key", .type = KeyType::integer, .doc = "read by no loader", .default_number = 1};
const KeySection kFakeEngine{.path = "engine", .doc = "a key of its own", .keys = {&kUnread}};

}  // namespace

TEST_CASE("config keys: every key of every shipped scenario is described", "[config][describe]") {
  const auto gaps = undescribed_keys(DocKind::scenario);
  INFO(gaps.size() << " keys written in scenarios/*.yaml have no declaration:\n  " << join(gaps, "\n  "));
  CHECK(gaps.empty());
}

TEST_CASE("config keys: every key of every shipped GPU file is described", "[config][describe]") {
  const auto gaps = undescribed_keys(DocKind::gpu);
  INFO(gaps.size() << " keys written in hardware/*.yaml, hardware/calibrated/*.yaml have no declaration:\n  "
                   << join(gaps, "\n  "));
  CHECK(gaps.empty());
}

TEST_CASE("config keys: every key of every shipped model file is described", "[config][describe]") {
  const auto gaps = undescribed_keys(DocKind::model);
  INFO(gaps.size() << " keys written in models/*.yaml have no declaration:\n  " << join(gaps, "\n  "));
  CHECK(gaps.empty());
}

TEST_CASE("config keys: every described scenario key is read", "[config][describe]") {
  check_every_described_key_is_read(DocKind::scenario, "scenario files");
}

TEST_CASE("config keys: every described GPU file key is read", "[config][describe]") {
  check_every_described_key_is_read(DocKind::gpu, "GPU files");
}

TEST_CASE("config keys: every described model file key is read", "[config][describe]") {
  check_every_described_key_is_read(DocKind::model, "model files");
}

TEST_CASE("config keys: the walk finds an undescribed key and the reading check an unread one", "[config][describe]") {
  // The checks above pass vacuously if the walk or the loader call were broken: a
  // key no loader knows must show up in both.
  const ConfigNode base = load_yaml_file(source_dir() + "/scenarios/quickstart.yaml");
  ConfigNode doc = base;
  doc.find("engine")->set("no_such_key", ConfigNode::scalar("1"));
  std::vector<std::string> before, after;
  walk(base, "", "quickstart.yaml", before);
  walk(doc, "", "quickstart.yaml", after);
  // Below an undescribed `engine` the walk stops at `engine` itself.
  if (find_key(sections_for("", base), "engine")) {
    REQUIRE(after.size() == before.size() + 1);
    CHECK_THAT(join(after, "\n"), Catch::Contains("engine.no_such_key"));
  } else {
    CHECK_THAT(join(after, "\n"), Catch::Contains(": engine"));
  }
  std::vector<std::string> unverified;
  CHECK_THAT(unread_error(kFakeEngine, kUnread, base, unverified), Catch::Contains("unknown key 'no_such_key'"));
  CHECK(unverified.empty());
}
