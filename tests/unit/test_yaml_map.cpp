// Strict YAML reading (sim/util/yaml_map.h): unknown keys, missing keys, wrong
// types and --set overrides, each error checked for where and what.
#include <catch2/catch.hpp>

#include "config/config_map.h"
#include "config/edits.h"
#include "config/yaml_text.h"

#include "util/error.h"
#include "config/config_map.h"
#include "config/edits.h"
#include "config/yaml_text.h"

using namespace servesim;
using Catch::Contains;

namespace {
// A small scenario-like document. Line numbers (1-based) are noted per line.
const char* kDoc =
    "name: demo\n"                 // line 1
    "engine:\n"                    // line 2
    "  max_num_seq: 64\n"          // line 3: typo of max_num_seqs, key at column 3
    "  block_size: 16\n"           // line 4
    "gpu:\n"                       // line 5
    "  memory: \"80 GB\"\n"        // line 6
    "  count: eight\n";            // line 7
}  // namespace

TEST_CASE("yaml_map: an unknown key names file:line:col, the key path and a suggestion", "[yaml]") {
  const ConfigNode root_doc = parse_yaml_text(kDoc);
  ConfigMap root(root_doc, "scenario.yaml");
  CHECK(root.string("name") == "demo");
  ConfigMap engine = root.map("engine");
  CHECK(engine.integer("max_num_seqs", 256) == 256);  // absent -> fallback
  CHECK(engine.integer("block_size") == 16);
  // yaml-cpp marks are 0-based (line 2, column 2); the message prints 1-based 3:3.
  REQUIRE_THROWS_AS(engine.finish(), Error);
  REQUIRE_THROWS_WITH(engine.finish(), Contains("scenario.yaml:3:3") && Contains("engine.max_num_seq") &&
                                           Contains("unknown key 'max_num_seq'") &&
                                           Contains("did you mean 'max_num_seqs'"));
  // The valid keys at this level are listed.
  REQUIRE_THROWS_WITH(engine.finish(), Contains("valid keys here: block_size, max_num_seqs"));
}

TEST_CASE("yaml_map: finish accepts a mapping whose keys were all read", "[yaml]") {
  const ConfigNode root_doc = parse_yaml_text("a: 1\nb: two\n");
  ConfigMap root(root_doc, "x.yaml");
  CHECK(root.integer("a") == 1);
  CHECK(root.string("b") == "two");
  CHECK_NOTHROW(root.finish());
  // allow() marks keys known without reading them.
  const ConfigNode other_doc = parse_yaml_text("a: 1\ncomment: anything\n");
  ConfigMap other(other_doc, "x.yaml");
  CHECK(other.integer("a") == 1);
  CHECK_THROWS_WITH(other.finish(), Contains("x.yaml:2:1") && Contains("unknown key 'comment'"));
  other.allow({"comment"});
  CHECK_NOTHROW(other.finish());
}

TEST_CASE("yaml_map: unknown top-level key has a 1-based location of line 1", "[yaml]") {
  // Boundary: the very first key sits at yaml-cpp mark (0, 0) -> printed "1:1".
  const ConfigNode root_doc = parse_yaml_text("nmae: x\nlayers: 2\n");
  ConfigMap root(root_doc, "m.yaml");
  root.string("name", "");
  root.integer("layers");
  REQUIRE_THROWS_WITH(root.finish(), Contains("m.yaml:1:1: nmae") && Contains("did you mean 'name'"));
}

TEST_CASE("yaml_map: a missing required key names its full path", "[yaml]") {
  const ConfigNode root_doc = parse_yaml_text(kDoc);
  ConfigMap root(root_doc, "scenario.yaml");
  ConfigMap engine = root.map("engine");
  REQUIRE_THROWS_WITH(engine.integer("max_model_len"),
                      Contains("scenario.yaml") && Contains("missing required key 'engine.max_model_len'"));
  REQUIRE_THROWS_WITH(root.string("model"), Contains("missing required key 'model'"));
  // A quantity is required the same way.
  ConfigMap gpu = root.map("gpu");
  REQUIRE_THROWS_WITH(gpu.quantity("bandwidth", Dimension::bandwidth),
                      Contains("missing required key 'gpu.bandwidth'"));
  // An absent mapping reads as empty, so its required keys are reported by path.
  ConfigMap absent = root.map("workload");
  CHECK(absent.path() == "workload");
  REQUIRE_THROWS_WITH(absent.number("rate"), Contains("missing required key 'workload.rate'"));
}

TEST_CASE("yaml_map: wrong types are reported with the key's location", "[yaml]") {
  const ConfigNode root_doc = parse_yaml_text(kDoc);
  ConfigMap root(root_doc, "scenario.yaml");
  ConfigMap gpu = root.map("gpu");
  // "count: eight" is on line 7, key at column 3.
  REQUIRE_THROWS_WITH(gpu.integer("count"),
                      Contains("scenario.yaml:7:3: gpu.count") && Contains("expected an integer, got 'eight'"));
  REQUIRE_THROWS_WITH(gpu.number("count"), Contains("expected a number, got 'eight'"));
  REQUIRE_THROWS_WITH(gpu.boolean("count", false), Contains("expected true or false"));
  // A scalar where a mapping is expected.
  REQUIRE_THROWS_WITH(root.map("name"), Contains("scenario.yaml:1:1: name") && Contains("expected a mapping"));
  // A mapping where a scalar is expected.
  REQUIRE_THROWS_WITH(root.string("engine"), Contains("engine") && Contains("expected a string"));
  // A quantity with a unit of the wrong dimension carries the key's location too.
  REQUIRE_THROWS_WITH(gpu.quantity("memory", Dimension::bandwidth),
                      Contains("scenario.yaml:6:3: gpu.memory") && Contains("wrong kind"));
  // ...and with the right dimension it reads: "80 GB" = 80e9 bytes.
  CHECK(gpu.quantity("memory", Dimension::bytes) == Approx(80e9).epsilon(1e-12));
}

TEST_CASE("yaml_map: the document must be a mapping", "[yaml]") {
  const ConfigNode list = parse_yaml_text("- a\n- b\n");
  REQUIRE_THROWS_WITH(ConfigMap(list, "list.yaml"),
                      Contains("list.yaml:1:1") && Contains("the document must be a mapping"));
}

TEST_CASE("yaml_map: list of strings accepts a scalar or a sequence", "[yaml]") {
  const ConfigNode root_doc = parse_yaml_text("one: a\nmany: [a, b, c]\nbad: {x: 1}\n");
  ConfigMap root(root_doc, "l.yaml");
  CHECK(root.strings("one") == std::vector<std::string>{"a"});
  CHECK(root.strings("many") == std::vector<std::string>{"a", "b", "c"});
  CHECK(root.strings("absent").empty());
  REQUIRE_THROWS_WITH(root.strings("bad"), Contains("l.yaml:3:1: bad") && Contains("expected a list of strings"));
}

TEST_CASE("yaml_map: load_yaml_file reports syntax errors and missing files", "[yaml]") {
  const std::string bad = std::string(SERVESIM_TEST_FIXTURES) + "/bad_yaml/syntax.yaml";
  REQUIRE_THROWS_WITH(load_yaml_file(bad), Contains("bad_yaml/syntax.yaml:") && Contains("YAML syntax error"));
  const std::string missing = std::string(SERVESIM_TEST_FIXTURES) + "/bad_yaml/no-such-file.yaml";
  REQUIRE_THROWS_WITH(load_yaml_file(missing), Contains("no-such-file.yaml: cannot open file"));
}

TEST_CASE("yaml_map: apply_override replaces an existing value", "[yaml][override]") {
  ConfigNode doc = parse_yaml_text(kDoc);
  apply_override(doc, "engine.block_size=32");
  ConfigMap root(doc, "scenario.yaml");
  ConfigMap engine = root.map("engine");
  CHECK(engine.integer("block_size") == 32);
  // Siblings are untouched.
  CHECK(engine.integer("max_num_seq") == 64);
  CHECK(root.string("name") == "demo");
}

TEST_CASE("yaml_map: apply_override creates missing nested mappings", "[yaml][override]") {
  ConfigNode doc = parse_yaml_text(kDoc);
  apply_override(doc, "workload.arrival.rate=5.5");
  apply_override(doc, "workload.arrival.kind=poisson");
  apply_override(doc, "engine.new_key=[1, 2]");
  ConfigMap root(doc, "scenario.yaml");
  ConfigMap arrival = root.map("workload").map("arrival");
  CHECK(arrival.number("rate") == Approx(5.5).epsilon(1e-12));
  CHECK(arrival.string("kind") == "poisson");
  CHECK(root.map("engine").strings("new_key") == std::vector<std::string>{"1", "2"});
  // A quantity set from the command line parses with its unit: "3.35 TB/s" = 3.35e12.
  apply_override(doc, "gpu.bandwidth=3.35 TB/s");
  ConfigMap root2(doc, "scenario.yaml");
  CHECK(root2.map("gpu").quantity("bandwidth", Dimension::bandwidth) == Approx(3.35e12).epsilon(1e-12));
}

TEST_CASE("yaml_map: apply_override on an empty document", "[yaml][override]") {
  SECTION("a default (null) node") {
    ConfigNode doc;
    apply_override(doc, "a.b.c=7");
    apply_override(doc, "top=1");
    ConfigMap root(doc, "");
    CHECK(root.map("a").map("b").integer("c") == 7);
    CHECK(root.integer("top") == 1);
  }
  SECTION("a file holding only comments parses to a null document") {
    ConfigNode doc = parse_yaml_text("# nothing here yet\n");
    apply_override(doc, "engine.max_num_seqs=128");
    ConfigMap root(doc, "empty.yaml");
    CHECK(root.map("engine").integer("max_num_seqs") == 128);
  }
}

TEST_CASE("yaml_map: apply_override on a document that is not a mapping", "[yaml][override][errors]") {
  ConfigNode doc = parse_yaml_text("just a string\n");
  REQUIRE_THROWS_WITH(apply_override(doc, "a=1"), Contains("--set 'a=1'") && Contains("not a mapping"));
}

TEST_CASE("yaml_map: a bad value given with --set is reported against --set", "[yaml][override][errors]") {
  ConfigNode doc = parse_yaml_text(kDoc);
  apply_override(doc, "engine.max_num_seqs=lots");
  ConfigMap root(doc, "scenario.yaml");
  ConfigMap engine = root.map("engine");
  // The key came from the command line, not from a line of scenario.yaml.
  REQUIRE_THROWS_WITH(engine.integer("max_num_seqs"), Contains("scenario.yaml (--set): engine.max_num_seqs") &&
                                                          Contains("expected an integer, got 'lots'"));
}

TEST_CASE("yaml_map: malformed --set is rejected with the assignment quoted", "[yaml][override][errors]") {
  ConfigNode doc = parse_yaml_text(kDoc);
  REQUIRE_THROWS_WITH(apply_override(doc, "engine.block_size"),
                      Contains("--set 'engine.block_size'") && Contains("expected KEY.PATH=VALUE"));
  REQUIRE_THROWS_WITH(apply_override(doc, "=5"), Contains("expected KEY.PATH=VALUE"));
  REQUIRE_THROWS_WITH(apply_override(doc, "engine..block_size=5"), Contains("empty key in path"));
  REQUIRE_THROWS_WITH(apply_override(doc, "engine.block_size=[1, 2"), Contains("value is not valid YAML"));
  // Descending through a scalar is an error, not a silent overwrite.
  REQUIRE_THROWS_WITH(apply_override(doc, "name.first=x"), Contains("'name' is not a mapping"));
  // The failed overrides left the document as it was.
  ConfigMap root(doc, "scenario.yaml");
  CHECK(root.string("name") == "demo");
  CHECK(root.map("engine").integer("block_size") == 16);
}
