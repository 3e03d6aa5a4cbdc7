// Synthetic shared prefixes and multi-turn sessions (prefix-cache structure).
#include <catch2/catch.hpp>

#include <algorithm>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "util/error.h"
#include "config/config_map.h"
#include "config/edits.h"
#include "config/yaml_text.h"
#include "workload/prefix_hash.h"
#include "workload/prompt_ids.h"
#include "workload/synthetic_source.h"
#include "config/workload_reader.h"
#include "workload/workload_spec.h"

using namespace servesim;
using Catch::Matchers::Contains;

namespace {

constexpr Nanos kSec = 1'000'000'000;

WorkloadSpec load(const std::string& yaml) {
  const ConfigNode m_doc = parse_yaml_text(yaml);
  ConfigMap m(m_doc, "test.yaml", "workload");
  return parse_workload(m);
}

// Every id written out (a request's own ids may be implied: Request::own_ids_implied).
std::vector<Request> drain(RequestSource& src) {
  std::vector<Request> out;
  while (auto r = src.next()) {
    materialize_block_ids(*r);
    out.push_back(*r);
  }
  return out;
}

std::vector<Request> run(const std::string& yaml) {
  auto src = make_request_source(load(yaml));
  return drain(*src);
}

// Leading blocks two hash lists share.
std::size_t common_prefix(const std::vector<std::uint64_t>& a, const std::vector<std::uint64_t>& b) {
  std::size_t n = 0;
  while (n < a.size() && n < b.size() && a[n] == b[n]) ++n;
  return n;
}

const char* kBase =
    "seed: 3\narrival: {process: poisson, rate: 10}\n"
    "output_tokens: {dist: fixed, value: 10}\n";

}  // namespace

TEST_CASE("shared_prefix parses with defaults and rejects bad values", "[prefix]") {
  const WorkloadSpec w = load(std::string(kBase) +
                              "requests: 10\ninput_tokens: {dist: fixed, value: 50}\n"
                              "shared_prefix: {groups: 3, tokens: 100}\n");
  REQUIRE(w.shared_prefix);
  CHECK(w.shared_prefix->groups == 3);
  CHECK(w.shared_prefix->tokens == 100);
  CHECK(w.shared_prefix->prompts_per_group == 0);
  CHECK_FALSE(w.shared_prefix->random_assign);
  const std::string pre = std::string(kBase) + "requests: 10\ninput_tokens: {dist: fixed, value: 50}\n";
  CHECK_THROWS_WITH(load(pre + "shared_prefix: {groups: 0, tokens: 100}\n"), Contains("workload.shared_prefix.groups: must be >= 1, got 0"));
  CHECK_THROWS_WITH(load(pre + "shared_prefix: {groups: 2, tokens: 0}\n"), Contains("tokens"));
  CHECK_THROWS_WITH(load(pre + "shared_prefix: {groups: 2, tokens: 10, assign: randm}\n"),
                    Contains("did you mean 'random'"));
  CHECK_THROWS_WITH(load(pre + "shared_prefix: {groups: 2, tokens: 10, prefix_len: 3}\n"),
                    Contains("prefix_len"));
  CHECK_THROWS_WITH(load(pre + "hash_block_tokens: 0\n"), Contains("hash_block_tokens"));
}

TEST_CASE("requests of one group share its system prompt's full blocks", "[prefix]") {
  const auto rs = run(std::string(kBase) +
                      "requests: 30\ninput_tokens: {dist: fixed, value: 50}\n"
                      "shared_prefix: {groups: 3, tokens: 100}\n");
  REQUIRE(rs.size() == 30);
  for (const auto& r : rs) {
    CHECK(r.input_tokens == 150);  // system prompt + question
    CHECK(r.hash_block_tokens == 16);
    REQUIRE(r.block_hashes.size() == 150 / 16);
  }
  // Round robin: request k in group k mod 3; floor(100 / 16) = 6 shared blocks.
  for (std::size_t i = 0; i < rs.size(); ++i) {
    for (std::size_t j = i + 1; j < rs.size(); ++j) {
      const std::size_t common = common_prefix(rs[i].block_hashes, rs[j].block_hashes);
      if (i % 3 == j % 3) CHECK(common == 6);
      else CHECK(common == 0);
    }
  }
  // The group's blocks are its own: hash(group, block index); the rest the
  // request's: hash(request id, block index).
  CHECK(rs[4].block_hashes[0] == prefix_block_hash(HashOwner::group, 1, 0));
  CHECK(rs[4].block_hashes[6] == prefix_block_hash(HashOwner::request, 4, 6));
  CHECK(rs[4].unique_hashes_from == 6);
}

TEST_CASE("a synthetic request stores its system prompt's first id and implies the others", "[prefix]") {
  // 150-token prompts: 6 system-prompt blocks of 16 (floor(100 / 16)), the first
  // stored (the prompt's name) and 5 implied by it, and 3 of the request's own
  // (floor(150 / 16) = 9) implied by its id.
  auto src = make_request_source(load(std::string(kBase) +
                                      "requests: 3\ninput_tokens: {dist: fixed, value: 50}\n"
                                      "shared_prefix: {groups: 3, tokens: 100}\n"));
  const std::optional<Request> r = src->next();
  REQUIRE(r);
  CHECK(r->own_ids_implied);
  CHECK(r->system_ids_implied);
  CHECK(r->block_hashes == std::vector<std::uint64_t>{prefix_block_hash(HashOwner::group, 0, 0)});
  CHECK(r->unique_hashes_from == 6);
  const PromptIds ids(*r);
  REQUIRE(ids.size() == 9);
  for (std::size_t j = 0; j < 9; ++j)
    CHECK(ids[j] == (j < 6 ? prefix_block_hash(HashOwner::group, 0, j) : prefix_block_hash(HashOwner::request, 0, j)));
}

TEST_CASE("hash_block_tokens sets the block size of synthetic prefixes", "[prefix]") {
  const auto rs = run(std::string(kBase) +
                      "requests: 4\ninput_tokens: {dist: fixed, value: 50}\nhash_block_tokens: 32\n"
                      "shared_prefix: {groups: 1, tokens: 100}\n");
  CHECK(rs[0].hash_block_tokens == 32);
  CHECK(rs[0].block_hashes.size() == 150 / 32);
  CHECK(common_prefix(rs[0].block_hashes, rs[1].block_hashes) == 100 / 32);
}

TEST_CASE("random group assignment is deterministic and uses every group", "[prefix]") {
  const std::string yaml = std::string(kBase) +
                           "requests: 200\ninput_tokens: {dist: uniform, min: 20, max: 400}\n"
                           "shared_prefix: {groups: 4, tokens: 64, assign: random}\n";
  const auto a = run(yaml);
  const auto b = run(yaml);
  REQUIRE(a.size() == b.size());
  std::set<std::uint64_t> first_blocks;
  for (std::size_t i = 0; i < a.size(); ++i) {
    CHECK(a[i].arrival == b[i].arrival);
    CHECK(a[i].input_tokens == b[i].input_tokens);
    CHECK(a[i].block_hashes == b[i].block_hashes);
    first_blocks.insert(a[i].block_hashes.at(0));
  }
  CHECK(first_blocks.size() == 4);
  // Another seed, other draws.
  std::string other = yaml;
  other.replace(other.find("seed: 3"), 7, "seed: 4");
  const auto c = run(other);
  bool differs = false;
  for (std::size_t i = 0; i < a.size(); ++i) differs |= a[i].block_hashes != c[i].block_hashes;
  CHECK(differs);
}

TEST_CASE("shared prefixes leave the length sequence of the plain workload", "[prefix]") {
  const std::string common = std::string(kBase) + "requests: 50\ninput_tokens: {dist: uniform, min: 20, max: 400}\n";
  const auto plain = run(common);
  const auto shared = run(common + "shared_prefix: {groups: 4, tokens: 64, assign: random}\n");
  for (std::size_t i = 0; i < plain.size(); ++i) {
    CHECK(shared[i].input_tokens == plain[i].input_tokens + 64);
    CHECK(shared[i].output_tokens == plain[i].output_tokens);
    CHECK(shared[i].arrival == plain[i].arrival);
    CHECK(plain[i].block_hashes.empty());
  }
}

TEST_CASE("prompts_per_group cycles through distinct prompts that repeat in full", "[prefix]") {
  const auto rs = run(std::string(kBase) +
                      "requests: 24\ninput_tokens: {dist: uniform, min: 30, max: 90}\n"
                      "shared_prefix: {groups: 2, tokens: 64, prompts_per_group: 3}\n");
  REQUIRE(rs.size() == 24);
  for (std::size_t i = 0; i + 6 < rs.size(); ++i) {
    CHECK(rs[i].input_tokens == rs[i + 6].input_tokens);  // the same prompt
    CHECK(rs[i].block_hashes == rs[i + 6].block_hashes);
  }
  // Prompts k and k+2 share a group (k mod 2): its 4 system-prompt blocks.
  CHECK(common_prefix(rs[0].block_hashes, rs[2].block_hashes) == 4);
  CHECK(common_prefix(rs[0].block_hashes, rs[1].block_hashes) == 0);
  // random: a shuffled cycle, still every prompt once per 6 requests.
  const auto sh = run(std::string(kBase) +
                      "requests: 12\ninput_tokens: {dist: uniform, min: 30, max: 90}\n"
                      "shared_prefix: {groups: 2, tokens: 64, prompts_per_group: 3, assign: random}\n");
  std::set<std::vector<std::uint64_t>> cycle;
  for (std::size_t i = 0; i < 6; ++i) {
    cycle.insert(sh[i].block_hashes);
    CHECK(sh[i].block_hashes == sh[i + 6].block_hashes);
  }
  CHECK(cycle.size() == 6);
}

TEST_CASE("multi_turn parses and checks its arrival", "[multi_turn]") {
  const std::string pre = std::string(kBase) + "requests: 10\ninput_tokens: {dist: fixed, value: 20}\n";
  const WorkloadSpec w = load(pre + "multi_turn: {turns: 3, think_time: \"5 s\"}\n");
  REQUIRE(w.multi_turn);
  CHECK(w.multi_turn->turns == 3);
  CHECK(w.multi_turn->think_time_s == 5.0);
  CHECK_THROWS_WITH(load(pre + "multi_turn: {turns: 3}\n"), Contains("think_time"));
  CHECK_THROWS_WITH(load(pre + "multi_turn: {turns: 0, think_time: \"1 s\"}\n"), Contains("workload.multi_turn.turns: must be >= 1, got 0"));
  CHECK_THROWS_WITH(load(pre + "shared_prefix: {groups: 2, tokens: 8, prompts_per_group: 2}\n"
                               "multi_turn: {turns: 2, think_time: \"1 s\"}\n"),
                    Contains("prompts_per_group"));
  CHECK_THROWS_WITH(load("requests: 10\narrival: {process: closed_loop, users: 2, think_time: \"1 s\"}\n"
                         "input_tokens: {dist: fixed, value: 20}\noutput_tokens: {dist: fixed, value: 10}\n"
                         "multi_turn: {turns: 3, think_time: \"1 s\"}\n"),
                    Contains("workload.multi_turn.think_time") && Contains("arrival.think_time"));
  CHECK_THROWS_WITH(load("requests: 10\narrival: {process: all_at_once}\n"
                         "input_tokens: {dist: fixed, value: 20}\noutput_tokens: {dist: fixed, value: 10}\n"
                         "multi_turn: {turns: 3, think_time: \"1 s\"}\n"),
                    Contains("all_at_once"));
}

TEST_CASE("open-loop sessions grow their context turn by turn", "[multi_turn]") {
  auto src = make_request_source(load(std::string(kBase) +
                                      "requests: 30\ninput_tokens: {dist: fixed, value: 20}\n"
                                      "multi_turn: {turns: 3, think_time: \"0.2 s\"}\n"));
  CHECK(src->expected_total() == 30);
  const auto rs = drain(*src);
  REQUIRE(rs.size() == 30);
  std::map<std::int32_t, std::vector<Request>> sessions;
  for (std::size_t i = 0; i < rs.size(); ++i) {
    CHECK(rs[i].id == static_cast<std::int64_t>(i));
    if (i > 0) CHECK(rs[i].arrival >= rs[i - 1].arrival);
    sessions[rs[i].session].push_back(rs[i]);
  }
  bool saw_full_session = false;
  for (const auto& [id, turns] : sessions) {
    CHECK(id >= 0);
    CHECK(turns.size() <= 3);
    CHECK(turns[0].input_tokens == 20);
    for (std::size_t t = 1; t < turns.size(); ++t) {
      // Prompt = previous prompt + its output + a new question.
      CHECK(turns[t].input_tokens == turns[t - 1].input_tokens + turns[t - 1].output_tokens + 20);
      CHECK(turns[t].arrival == turns[t - 1].arrival + kSec / 5);
      // Earlier turns' blocks are a prefix of later ones.
      CHECK(common_prefix(turns[t].block_hashes, turns[t - 1].block_hashes) == turns[t - 1].block_hashes.size());
      CHECK(turns[t].block_hashes.size() == static_cast<std::size_t>(turns[t].input_tokens / 16));
    }
    saw_full_session |= turns.size() == 3;
  }
  CHECK(saw_full_session);
  // Different sessions share nothing (no shared_prefix).
  CHECK(common_prefix(sessions.at(0)[1].block_hashes, sessions.at(1)[1].block_hashes) == 0);
}

TEST_CASE("multi-turn sessions start with their group's system prompt", "[multi_turn]") {
  const auto rs = run(std::string(kBase) +
                      "requests: 40\ninput_tokens: {dist: fixed, value: 20}\n"
                      "shared_prefix: {groups: 2, tokens: 64}\n"
                      "multi_turn: {turns: 2, think_time: \"0.2 s\"}\n");
  std::map<std::int32_t, std::vector<Request>> sessions;
  for (const auto& r : rs) sessions[r.session].push_back(r);
  REQUIRE(sessions.size() >= 4);
  CHECK(sessions.at(0)[0].input_tokens == 84);
  // Sessions 0 and 2 (group 0) share 4 blocks; sessions 0 and 1 nothing.
  CHECK(common_prefix(sessions.at(0)[0].block_hashes, sessions.at(2)[0].block_hashes) == 4);
  CHECK(common_prefix(sessions.at(0)[0].block_hashes, sessions.at(1)[0].block_hashes) == 0);
  if (sessions.at(0).size() == 2) {
    CHECK(sessions.at(0)[1].input_tokens == 84 + 10 + 20);
    CHECK(common_prefix(sessions.at(0)[1].block_hashes, sessions.at(2)[0].block_hashes) == 4);
  }
}

TEST_CASE("closed-loop users run sessions back to back", "[multi_turn]") {
  auto src = make_request_source(load("requests: 8\narrival: {process: closed_loop, users: 2, think_time: \"1 s\"}\n"
                                      "input_tokens: {dist: fixed, value: 20}\n"
                                      "output_tokens: {dist: fixed, value: 10}\n"
                                      "multi_turn: {turns: 2}\n"));
  auto a0 = src->next();
  auto b0 = src->next();
  REQUIRE(a0);
  REQUIRE(b0);
  CHECK_FALSE(src->next());
  CHECK(a0->session == 0);
  CHECK(b0->session == 1);
  CHECK(a0->input_tokens == 20);
  src->on_complete(*a0, 3 * kSec);
  auto a1 = src->next();
  REQUIRE(a1);
  CHECK(a1->session == 0);
  CHECK(a1->arrival == 4 * kSec);
  CHECK(a1->input_tokens == 20 + 10 + 20);  // the second turn of user 0's session
  CHECK(common_prefix(a1->block_hashes, a0->block_hashes) == a0->block_hashes.size());
  src->on_complete(*a1, 5 * kSec);
  auto a2 = src->next();
  REQUIRE(a2);
  CHECK(a2->input_tokens == 20);  // turns: 2, so a new session
  CHECK(a2->arrival == 6 * kSec);
  CHECK(common_prefix(a2->block_hashes, a0->block_hashes) == 0);
}
