// --set into list items (sim/config/edits.h): "pools[1].max_loras=8" changes that key
// of the second pool as if written there, and nothing else; an index that names no item
// is an error that leaves the document as it was.
#include <catch2/catch.hpp>

#include "config/config_map.h"
#include "config/edits.h"
#include "config/yaml_text.h"
#include "util/error.h"

using namespace servesim;
using Catch::Contains;

namespace {
const char* kPools =
    "name: fleet\n"                                      // line 1
    "pools:\n"                                           // line 2
    "  - {name: h100, replicas: 2, max_loras: 32}\n"     // line 3: item [0]
    "  - {name: l40s, gpu: l40s, replicas: 4}\n"         // line 4: item [1]
    "grid: [[1, 2], [3, 4]]\n";                          // line 5: a list of lists
}  // namespace

TEST_CASE("edits: an index in a --set path changes one list item's key", "[yaml][override][list]") {
  ConfigNode doc = parse_yaml_text(kPools);
  apply_override(doc, "pools[1].max_loras=8");
  ConfigMap root(doc, "fleet.yaml");
  const ConfigNode& pools = *doc.find("pools");
  REQUIRE(pools.items().size() == 2);
  // Item [1] gains the key; item [0] keeps its 32 and nothing else moves.
  CHECK(ConfigMap(pools.items()[1], "fleet.yaml").integer("max_loras") == 8);
  CHECK(ConfigMap(pools.items()[1], "fleet.yaml").string("gpu") == "l40s");
  CHECK(ConfigMap(pools.items()[0], "fleet.yaml").integer("max_loras") == 32);
  // An existing key of an item is replaced in place, and marked as the command line's.
  apply_override(doc, "pools[0].replicas=5");
  const ConfigNode& first = doc.find("pools")->items()[0];
  CHECK(ConfigMap(first, "fleet.yaml").integer("replicas") == 5);
  CHECK(first.find("replicas")->from_edit());
  CHECK_FALSE(first.find("name")->from_edit());
}

TEST_CASE("edits: an index can replace a whole item, or an item of a nested list", "[yaml][override][list]") {
  ConfigNode doc = parse_yaml_text(kPools);
  apply_override(doc, "pools[0]={name: h200, gpu: h200-sxm, replicas: 1}");
  const ConfigNode& item = doc.find("pools")->items()[0];
  CHECK(ConfigMap(item, "fleet.yaml").string("gpu") == "h200-sxm");
  CHECK(item.find("max_loras") == nullptr);  // replaced, not merged
  apply_override(doc, "grid[1][0]=30");
  // grid was [[1, 2], [3, 4]]: item [1][0] (the 3) becomes 30, the rest stay.
  CHECK(doc.find("grid")->items()[1].items()[0].text() == "30");
  CHECK(doc.find("grid")->items()[1].items()[1].text() == "4");
  CHECK(doc.find("grid")->items()[0].items()[0].text() == "1");
}

TEST_CASE("edits: the key of an indexed edit is written as typed", "[yaml][override][list]") {
  CHECK(parse_edit("pools[1].max_loras=8").key() == "pools[1].max_loras");
  CHECK(parse_edit("grid[1][0]=30").key() == "grid[1][0]");
  CHECK(parse_edit("engine.max_num_seqs=64").key() == "engine.max_num_seqs");
}

TEST_CASE("edits: a bad index is an error naming the list and its items, and changes nothing",
          "[yaml][override][list][errors]") {
  ConfigNode doc = parse_yaml_text(kPools);
  // Two items: [0] and [1].
  REQUIRE_THROWS_WITH(apply_override(doc, "pools[2].replicas=1"),
                      Contains("--set 'pools[2].replicas=1'") && Contains("'pools' has 2 items, [0] to [1]") &&
                          Contains("no item [2]"));
  REQUIRE_THROWS_WITH(apply_override(doc, "name[0]=x"), Contains("'name' is not a list"));
  REQUIRE_THROWS_WITH(apply_override(doc, "pools.replicas=1"), Contains("'pools' is not a mapping"));
  REQUIRE_THROWS_WITH(apply_override(doc, "workload[0].rate=1"),
                      Contains("'workload' is not in the document, so it has no item [0]"));
  // A missing key before a missing list: nothing is created on the way to the error.
  REQUIRE_THROWS_WITH(apply_override(doc, "extra.list[0]=1"),
                      Contains("'extra.list' is not in the document, so it has no item [0]"));
  REQUIRE_THROWS_WITH(apply_override(doc, "pools[0].max_loras.x=1"), Contains("'pools[0].max_loras' is not a mapping"));
  // Malformed indices.
  REQUIRE_THROWS_WITH(apply_override(doc, "pools[x].replicas=1"), Contains("'[x]' in key path 'pools[x].replicas' is "
                                                                          "not a list index"));
  REQUIRE_THROWS_WITH(apply_override(doc, "pools[1.replicas=1"), Contains("is not a list index"));
  REQUIRE_THROWS_WITH(apply_override(doc, "pools[-1].replicas=1"), Contains("is not a list index"));
  REQUIRE_THROWS_WITH(apply_override(doc, "pools[0]x.replicas=1"), Contains("is not a list index"));
  REQUIRE_THROWS_WITH(apply_override(doc, "[0].replicas=1"), Contains("an index needs the list's key before it"));
  REQUIRE_THROWS_WITH(apply_override(doc, "pools]0[.replicas=1"), Contains("']' without '['"));
  // The document is as it was: no 'extra' key, two pools with their own keys.
  CHECK(doc.find("extra") == nullptr);
  CHECK(doc.find("workload") == nullptr);
  REQUIRE(doc.find("pools")->items().size() == 2);
  CHECK(ConfigMap(doc.find("pools")->items()[0], "fleet.yaml").integer("max_loras") == 32);
  CHECK(doc.find("pools")->items()[1].find("max_loras") == nullptr);
}

TEST_CASE("edits: a bad value set into a list item is reported against --set", "[yaml][override][list][errors]") {
  ConfigNode doc = parse_yaml_text(kPools);
  apply_override(doc, "pools[1].replicas=many");
  ConfigMap item(doc.find("pools")->items()[1], "fleet.yaml");
  REQUIRE_THROWS_WITH(item.integer("replicas"), Contains("fleet.yaml (--set)") && Contains("expected an integer"));
}
