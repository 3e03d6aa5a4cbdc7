// The workload key declarations (config/workload_keys.h) against the reader and
// the process / distribution tables: a default is the one declared, and every
// process and distribution has the variant section `describe` shows for it.
#include <catch2/catch.hpp>

#include <algorithm>
#include <limits>
#include <string>

#include "config/key_registry.h"
#include "config/workload_keys.h"
#include "config/workload_reader.h"
#include "config/yaml_text.h"

using namespace servesim;

namespace {

WorkloadSpec load(const std::string& yaml) {
  const ConfigNode doc = parse_yaml_text(yaml);
  ConfigMap m(doc, "test.yaml", "workload");
  return parse_workload(m);
}

const KeySection* find_section(std::string_view path, std::string_view variant) {
  for (const KeySection* s : workload_key_sections())
    if (s->path == path && s->variant == variant) return s;
  return nullptr;
}

}  // namespace

TEST_CASE("absent workload keys take their declared defaults", "[workload][keys]") {
  const WorkloadSpec w = load(
      "requests: 10\narrival: {process: closed_loop, users: 2}\n"
      "input_tokens: {dist: normal, mean: 50, stddev: 5}\noutput_tokens: {dist: fixed, value: 3}\n"
      "shared_prefix: {groups: 2, tokens: 8}\n");
  CHECK(static_cast<double>(w.seed) == workload_keys::seed.default_number);
  CHECK(w.arrival.think_time_s == arrival_keys::think_time.default_number);
  CHECK(static_cast<double>(w.input_tokens.min) == length_keys::clip_min.default_number);
  CHECK(w.input_tokens.max == std::numeric_limits<std::int64_t>::max());  // clip_max: "none: unbounded"
  REQUIRE(w.shared_prefix);
  CHECK(shared_prefix_keys::assign.default_text == "round_robin");
  CHECK_FALSE(w.shared_prefix->random_assign);
  CHECK(w.shared_prefix->prompts_per_group == 0);  // "none: every question is unique"
}

TEST_CASE("every arrival process and length distribution has its variant section", "[workload][keys]") {
  for (const auto& p : arrival_processes()) {
    INFO("process " << p.name);
    const KeySection* s = find_section("workload.arrival", p.name);
    REQUIRE(s);
    CHECK(s->selector == "process");
    CHECK(s->doc == p.doc);
    CHECK((find_section("workload.arrival.stages", p.name) != nullptr) == p.stage_ok);
  }
  for (const auto& d : length_distributions()) {
    INFO("dist " << d.name);
    for (std::string_view path : {"workload.input_tokens", "workload.output_tokens"}) {
      const KeySection* s = find_section(path, d.name);
      REQUIRE(s);
      CHECK(s->selector == "dist");
      CHECK_FALSE(s->keys.empty());
    }
  }
  // The selectors' choices are the tables' names, in order.
  REQUIRE(arrival_keys::process.choices.size() == arrival_processes().size());
  CHECK(arrival_keys::process.choices.front() == "poisson");
  CHECK(length_keys::dist.choices.size() == length_distributions().size());
}

TEST_CASE("a variant section's keys have distinct names, none shadowing its selector's section", "[workload][keys]") {
  for (const KeySection* s : workload_key_sections()) {
    std::vector<std::string_view> names;
    for (const Key* k : s->keys) names.push_back(k->name);
    if (!s->variant.empty())
      if (const KeySection* plain = find_section(s->path, ""))
        for (const Key* k : plain->keys) names.push_back(k->name);
    std::sort(names.begin(), names.end());
    INFO(s->path << " " << s->variant);
    CHECK(std::adjacent_find(names.begin(), names.end()) == names.end());
  }
}
