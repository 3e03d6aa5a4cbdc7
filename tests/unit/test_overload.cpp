// Overload is said out loud: offered vs served rate, the queue-growth verdict
// (the saturation test plan uses), the waiting queue's peak, and the queue
// memory guard that stops a run instead of growing to the OOM killer.
#include <catch2/catch.hpp>

#include "engine/queued_request.h"
#include "metrics/queue_growth.h"
#include "metrics/summary_json.h"
#include "planning/capacity.h"
#include "test_sim_helpers.h"
#include "util/machine.h"

using namespace servesim;
using namespace servesim::testing;

TEST_CASE("a waiting request costs 48 bytes", "[overload]") {
  // The queue's compact form (engine/queued_request.h): id, arrival, input and
  // output tokens (4 x 8), the pointer to its prefix fields (8) and the session
  // (4, padded to 8). A request with prefix hashes adds the heap object: the hash
  // vector (24), hash block size and first unique hash (2 x 4), and the hashes.
  STATIC_REQUIRE(sizeof(QueuedRequest) == 48);
  Request r;
  r.id = 7;
  r.arrival = 5;
  r.input_tokens = 100;
  r.output_tokens = 20;
  r.session = 3;
  CHECK(QueuedRequest(Request(r)).bytes() == 48);
  r.block_hashes.assign(10, 1);
  r.block_hashes.shrink_to_fit();
  r.hash_block_tokens = 16;
  r.unique_hashes_from = 4;
  QueuedRequest q{Request(r)};
  CHECK(q.bytes() == 48 + 32 + 10 * 8);
  // It gives back the request it was made from.
  const Request back = q.take();
  CHECK(back.id == 7);
  CHECK(back.arrival == 5);
  CHECK(back.input_tokens == 100);
  CHECK(back.output_tokens == 20);
  CHECK(back.session == 3);
  CHECK(back.block_hashes == r.block_hashes);
  CHECK(back.hash_block_tokens == 16);
  CHECK(back.unique_hashes_from == 4);
  CHECK_FALSE(back.own_ids_implied);
  // A request whose own ids are implied (Request::own_ids_implied: 4 stored, room
  // for 10) counts the room it holds and comes back marked.
  Request lazy = r;
  lazy.block_hashes = std::vector<std::uint64_t>();
  lazy.block_hashes.reserve(10);
  lazy.block_hashes.assign(4, 1);
  lazy.own_ids_implied = true;
  QueuedRequest ql{std::move(lazy)};
  CHECK(ql.bytes() == 48 + 32 + 10 * 8);
  const Request lazy_back = ql.take();
  CHECK(lazy_back.own_ids_implied);
  CHECK(lazy_back.block_hashes.size() == 4);
  CHECK(lazy_back.block_hashes.capacity() == 10);
  // A queue of Requests (the decode-only engine's) counts the Request itself.
  CHECK(queued_request_bytes(Request{}) == static_cast<std::int64_t>(sizeof(Request)));
}

TEST_CASE("binned queue-growth test agrees with the exact one", "[overload]") {
  // Queue delay growing linearly with arrival (q = 1000 * t ms over t in [0, 100) s):
  // exact means of ranks 40-60% and 80-100% are 50 s and 90 s.
  QueueDelayBins bins;
  std::vector<std::pair<double, double>> exact;
  for (int i = 0; i < 100000; ++i) {
    const double t = i * 1e-3;
    bins.add(t, 1000 * t);
    exact.emplace_back(t, 1000 * t);
  }
  double mid = 0, last = 0, emid = 0, elast = 0;
  bins.window_means(&mid, &last);
  planning::queue_grows(exact, {}, &emid, &elast);
  CHECK(emid == Approx(50000).epsilon(1e-3));
  CHECK(elast == Approx(90000).epsilon(1e-3));
  CHECK(mid == Approx(emid).epsilon(0.01));
  CHECK(last == Approx(elast).epsilon(0.01));
  CHECK(queue_delay_grows(mid, last));  // 90 s > 1.5 x 50 s + 25 ms
  // A flat queue delay (10 ms for everyone) does not grow.
  QueueDelayBins flat;
  for (int i = 0; i < 1000; ++i) flat.add(i * 0.01, 10.0);
  flat.window_means(&mid, &last);
  CHECK(mid == Approx(10.0));
  CHECK(last == Approx(10.0));
  CHECK_FALSE(queue_delay_grows(mid, last));
}

TEST_CASE("run reports offered vs served load and says overloaded", "[overload]") {
  const std::string wl = "{requests: 1500, arrival: {process: constant, rate: RATE}, "
                         "input_tokens: {dist: fixed, value: 1000}, output_tokens: {dist: fixed, value: 200}}";
  auto at = [&](const std::string& rate) {
    std::string w = wl;
    w.replace(w.find("RATE"), 4, rate);
    return simulate(scenario_from("{kind: vllm}", w), {}).summary;
  };
  // Constant arrivals: 1500 requests over 1499 gaps of 1/rate s: offered = 1500 / (1499 / rate).
  const RunSummary light = at("2");
  CHECK(light.load.offered == 1500);
  CHECK(light.load.offered_rps == Approx(1500.0 / (1499.0 / 2.0)));
  CHECK_FALSE(light.load.overloaded);
  CHECK_FALSE(light.load.guard_tripped);
  const RunSummary heavy = at("200");  // far beyond one H100's ~20 req/s for these requests
  CHECK(heavy.load.offered_rps == Approx(1500.0 / (1499.0 / 200.0)));
  CHECK(heavy.requests_per_s < 0.5 * heavy.load.offered_rps);
  CHECK(heavy.load.queue_grows);
  CHECK(heavy.load.overloaded);
  CHECK(heavy.load.queued_peak > 100);
  CHECK(heavy.load.queued_peak_bytes == 48.0 * static_cast<double>(heavy.load.queued_peak));  // QueuedRequest
  CHECK_THAT(summary_table(heavy), Catch::Contains("OVERLOADED: the server cannot keep up"));
  const nlohmann::json j = summary_json(heavy);
  CHECK(j["load"]["overloaded"] == true);
  CHECK(j["load"]["offered"] == 1500);
}

TEST_CASE("the queue memory guard stops an overloaded run with failures", "[overload]") {
  // 4800 bytes = 100 waiting requests of 48 bytes (QueuedRequest): the arrival
  // that makes 101 (4848 bytes) trips it; that request, the 100 before it and every later one
  // fail with reason overload_guard, running ones finish.
  const Scenario sc = scenario_from("{kind: vllm, max_queue_memory: \"4800 B\"}",
                                    "{requests: 3000, arrival: {process: constant, rate: 200}, "
                                    "input_tokens: {dist: fixed, value: 1000}, output_tokens: {dist: fixed, value: 200}}");
  const SimulationResult r = simulate(sc, {});
  const RunSummary& s = r.summary;
  CHECK(s.load.guard_bytes == 4800);
  CHECK_FALSE(s.load.guard_from_machine);
  CHECK(s.load.guard_tripped);
  CHECK(s.load.overloaded);
  CHECK(s.load.queued_peak == 101);
  CHECK(s.load.queued_peak_bytes == 101 * 48);
  CHECK(s.load.offered == 3000);
  CHECK(s.completed > 0);
  CHECK(s.completed + s.failed == 3000);
  CHECK(s.failures[static_cast<std::size_t>(FailureReason::overload_guard)] == s.failed);
  CHECK_FALSE(s.slo_met);
  const std::string table = summary_table(s);
  CHECK_THAT(table, Catch::Contains("STOPPED") && Catch::Contains("queue memory guard"));
  const nlohmann::json j = summary_json(s);
  CHECK(j["load"]["guard"]["tripped"] == true);
  CHECK(j["requests"]["failures"]["overload_guard"] == s.failed);
}

TEST_CASE("the guard's default is a quarter of the machine's memory", "[overload]") {
  const Scenario sc = scenario_from("{kind: vllm}", "{requests: 20, arrival: {process: poisson, rate: 1}, input_tokens: {dist: fixed, value: 100}, output_tokens: {dist: fixed, value: 10}}");
  const SimulationResult r = simulate(sc, {});
  CHECK(r.summary.load.guard_from_machine);
  CHECK(r.summary.load.guard_bytes == physical_memory_bytes() / 4);
  CHECK_FALSE(r.summary.load.guard_tripped);
}
