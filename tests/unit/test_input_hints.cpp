// Input errors that point the right way: did-you-mean ranking, misspelt top-level
// sections, empty files, duplicate keys, and where a value came from (--set or the file).
#include <catch2/catch.hpp>

#include "config/config_map.h"
#include "config/edits.h"
#include "config/yaml_text.h"

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "config/catalog_reader.h"
#include "config/scenario_reader.h"
#include "test_sim_helpers.h"
#include "util/error.h"
#include "util/paths.h"
#include "util/text.h"
#include "config/config_map.h"
#include "config/edits.h"
#include "config/yaml_text.h"

using namespace servesim;
using servesim::testing::error_of;
using Catch::Contains;

namespace {
std::string write_temp(const std::string& name, const std::string& text) {
  const auto dir = std::filesystem::temp_directory_path() / "servesim-input-hints";
  std::filesystem::create_directories(dir);
  const auto path = (dir / name).string();
  std::ofstream(path) << text;
  return path;
}

const char* kRest =
    "model: {name: llama-3.1-8b}\n"
    "workload: {requests: 10, arrival: {process: poisson, rate: 1},\n"
    "           input_tokens: {dist: fixed, value: 100}, output_tokens: {dist: fixed, value: 10}}\n";
}  // namespace

TEST_CASE("did_you_mean: a prefix or all tokens of a name beat raw edit distance", "[text][hints]") {
  const std::vector<std::string> gpus = gpu_catalog_names();
  // "h100" is 2 edits from "a10g" (h->a, 0->g) and 4 from "h100-sxm": edit distance alone
  // suggested a10g. It is a prefix of both H100s.
  const std::string h100 = did_you_mean("h100", gpus);
  CHECK_THAT(h100, Contains("'h100-sxm'") && Contains("'h100-pcie'") && !Contains("a10g"));
  // "llama3-70b" is 2 edits from llama-2-70b (insert '-', 3->2) and 3 from llama-3.1-70b;
  // of its tokens {llama, 3, 70, b} only llama-3.1-70b has them all (llama-2-70b lacks the 3).
  const std::string llama = did_you_mean("llama3-70b", model_catalog_names());
  CHECK_THAT(llama, Contains("'llama-3.1-70b'") && !Contains("llama-2-70b"));
  // Of the names holding all the tokens, the one adding fewest wins: llama-3-70b adds
  // none, llama-3.1-70b adds the "1".
  CHECK(did_you_mean("llama3-70b", {"llama-2-70b", "llama-3.1-70b", "llama-3-70b"}) ==
        "; did you mean 'llama-3-70b'?");
  // Plain typos still go by edit distance, one suggestion.
  CHECK(did_you_mean("h100-smx", gpus) == "; did you mean 'h100-sxm'?");
  CHECK(did_you_mean("hardwre", {"hardware", "model", "workload"}) == "; did you mean 'hardware'?");
  // Nothing close: nothing suggested.
  CHECK(did_you_mean("tpu-v5p", gpus).empty());
}

TEST_CASE("scenario: a misspelt top-level section is named, with its line", "[scenario][hints]") {
  // Before: "missing required key 'hardware.gpu'", which hides the typo on line 1.
  const std::string e = error_of([] { parse_scenario(parse_yaml_text(std::string("hardwre: {gpu: h100-sxm}\n") + kRest), "s.yaml"); });
  CHECK_THAT(e, Contains("s.yaml:1:1: hardwre: unknown key 'hardwre'") && Contains("did you mean 'hardware'") &&
                    !Contains("missing required key"));
  const std::string m = error_of([] {
    parse_scenario(parse_yaml_text("hardware: {gpu: h100-sxm}\nmodle: {name: llama-3.1-8b}\n"), "s.yaml");
  });
  CHECK_THAT(m, Contains("s.yaml:2:1: modle: unknown key 'modle'") && Contains("did you mean 'model'"));
  const std::string w = error_of([] {
    parse_scenario(parse_yaml_text("hardware: {gpu: h100-sxm}\nmodel: {name: llama-3.1-8b}\nworkloads: {requests: 1}\n"),
                   "s.yaml");
  });
  CHECK_THAT(w, Contains("s.yaml:3:1: workloads: unknown key 'workloads'") && Contains("did you mean 'workload'"));
}

TEST_CASE("scenario: an empty file says so", "[scenario][hints]") {
  const std::string empty = write_temp("empty.yaml", "");
  const std::string comments = write_temp("comments.yaml", "# to do\n");
  for (const auto& f : {empty, comments}) {
    INFO(f);
    CHECK_THAT(error_of([&] { load_scenario(f); }), Contains(f + ": the scenario is empty") &&
                                                        Contains("hardware:, model: and workload:"));
  }
}

TEST_CASE("yaml: a key given twice is an error naming both lines", "[yaml][hints]") {
  // yaml-cpp keeps both entries and lookups return the first: rate 8 would have been
  // used and rate 12 ignored in silence.
  const std::string f = write_temp("dup.yaml",
                                   "workload:\n"                  // line 1
                                   "  arrival:\n"                 // line 2
                                   "    rate: 8\n"                // line 3
                                   "    process: poisson\n"       // line 4
                                   "    rate: 12\n");             // line 5
  CHECK_THAT(error_of([&] { load_yaml_file(f); }),
             Contains(f + ":5:5: workload.arrival.rate: duplicate key 'rate' (first at line 3, again at line 5)"));
  // Whole sections too.
  const std::string s = write_temp("dup-section.yaml", "model: {name: a}\nhardware: {gpu: b}\nmodel: {name: c}\n");
  CHECK_THAT(error_of([&] { load_yaml_file(s); }), Contains(":3:1: model: duplicate key 'model' (first at line 1"));
  // An alias repeats a mapping; it is no duplicate key.
  const std::string a = write_temp("alias.yaml", "base: &b {x: 1, y: 2}\nother: *b\nthird: {<<: *b}\n");
  CHECK_NOTHROW(load_yaml_file(a));
  // In a --set value.
  ConfigNode doc = parse_yaml_text("engine: {block_size: 16}\n");
  CHECK_THAT(error_of([&] { apply_override(doc, "engine={kind: vllm, kind: static}"); }),
             Contains("engine.kind: duplicate key 'kind'"));
}

TEST_CASE("yaml: '(--set)' only for values that came from --set", "[yaml][hints]") {
  // A section absent from the file is read as an empty mapping made in code; its
  // missing key used to be reported as "s.yaml (--set)".
  const std::string e = error_of([] { parse_scenario(parse_yaml_text(std::string("name: x\n") + kRest), "s.yaml"); });
  CHECK_THAT(e, Contains("s.yaml: hardware: missing required key 'hardware.gpu'") && !Contains("--set"));
  // A value from --set under a key written in the file: reported against --set, not the
  // file's line of that key.
  ConfigNode doc = parse_yaml_text("engine:\n  max_num_seqs: 64\n");
  apply_override(doc, "engine.max_num_seqs=lots");
  ConfigMap root(doc, "s.yaml");
  ConfigMap engine = root.map("engine");
  CHECK_THAT(error_of([&] { engine.integer("max_num_seqs"); }), Contains("s.yaml (--set): engine.max_num_seqs"));
  // A key inside a mapping given with --set, likewise (its marks count lines of the --set text).
  ConfigNode doc2 = parse_yaml_text("engine:\n  block_size: 16\n");
  apply_override(doc2, "engine={max_num_seqs: lots}");
  ConfigMap root2(doc2, "s.yaml");
  ConfigMap engine2 = root2.map("engine");
  CHECK_THAT(error_of([&] { engine2.integer("max_num_seqs"); }), Contains("s.yaml (--set): engine.max_num_seqs"));
}

TEST_CASE("paths: catalog lookup order and the error when none is found", "[paths][hints]") {
  const char* saved = std::getenv("SERVESIM_HOME");
  const std::string saved_value = saved ? saved : "";
  ::unsetenv("SERVESIM_HOME");
  // Unset: the installed share folder next to the binary, then the source tree. The test
  // binary (build/tests/servesim_tests) has no build/share/servesim, so the source tree wins.
  auto c = data_root_candidates();
  REQUIRE(c.size() == 2);
  CHECK(ends_with(c[0], "/share/servesim"));
  CHECK(c[1] == SERVESIM_SOURCE_DIR);
  CHECK(data_root() == SERVESIM_SOURCE_DIR);
  // Set: first, and used as given even without catalogs, so the error names it.
  const auto empty = std::filesystem::temp_directory_path() / "servesim-empty-home";
  std::filesystem::create_directories(empty);
  ::setenv("SERVESIM_HOME", empty.c_str(), 1);
  c = data_root_candidates();
  REQUIRE(c.size() == 3);
  CHECK(c[0] == empty.string());
  CHECK(data_root() == empty.string());
  const std::string e = error_of([] { load_gpu("h100-sxm"); });
  CHECK_THAT(e, Contains("no hardware/ catalog: " + empty.string() + "/hardware is not a folder") &&
                    Contains("$SERVESIM_HOME (" + empty.string() + ")") && Contains("--home DIR") &&
                    Contains("cmake --install"));
  if (saved) ::setenv("SERVESIM_HOME", saved_value.c_str(), 1);
  else ::unsetenv("SERVESIM_HOME");
}
