// The typed per-request results (metrics/request_result.h): what plan, validate and
// validate-experiments read instead of parsing requests.csv, and what requests.csv prints.
#include <catch2/catch.hpp>

#include <sstream>

#include "metrics/request_result.h"
#include "metrics/requests_csv.h"
#include "test_sim_helpers.h"

using namespace servesim;
using namespace servesim::testing;

TEST_CASE("request result: latencies in ms from the arrival, TPOT over the tokens after the first", "[metrics]") {
  RequestRecord rec;
  rec.id = 7;
  rec.replica = 1;
  rec.arrival = to_nanos(2.0);
  rec.first_scheduled = to_nanos(2.004);  // queued 4 ms
  rec.first_token = to_nanos(2.030);      // TTFT 30 ms
  rec.finish = to_nanos(2.130);           // E2E 130 ms
  rec.input_tokens = 100;
  rec.output_tokens = 11;
  rec.cached_tokens = 16;
  rec.preemptions = 1;
  const RequestResult r = request_result(rec);
  CHECK(r.arrival_s == 2.0);
  CHECK(r.queue_ms == Approx(4.0));
  CHECK(r.ttft_ms == Approx(30.0));
  CHECK(r.e2e_ms == Approx(130.0));
  // TPOT = (E2E - TTFT) / (output - 1) = (130 - 30) / 10 = 10 ms.
  CHECK(r.tpot_ms == Approx(10.0));
  CHECK(r.has_tpot());

  std::ostringstream row;
  write_requests_csv_row(row, r);
  CHECK(row.str() == "7,1,2.000000,100,11,16,4.000,30.000,10.000,130.000,1,0,\n");
}

TEST_CASE("request result: a failed request has no latencies, and requests.csv leaves them empty", "[metrics]") {
  const Request req = make_request(1.5, 300, 20);
  const RequestResult r = request_result(failed_record(req, 0, FailureReason::exceeds_kv_capacity, to_nanos(1.5)));
  CHECK(r.failed);
  CHECK(r.ttft_ms == 0);
  CHECK(r.e2e_ms == 0);
  CHECK_FALSE(r.has_tpot());
  std::ostringstream row;
  write_requests_csv_row(row, r);
  CHECK(row.str() == "0,0,1.500000,300,20,0,,,,,0,1,exceeds_kv_capacity\n");
}

TEST_CASE("request results: one per finished request, the numbers requests.csv prints", "[metrics][sim]") {
  // Three requests on one replica, the last longer than max_model_len = 1024 (fails at once).
  const Scenario sc = scenario_from("{kind: vllm, max_model_len: 1024}");
  VectorSource source({make_request(0.0, 500, 8), make_request(0.1, 200, 1), make_request(0.2, 2000, 8)});
  const RunWithCsv run = run_with_csv(sc, &source);  // also checks csv == the results, printed
  REQUIRE(run.results.size() == 3);
  std::int64_t failed = 0;
  for (const RequestResult& r : run.results) {
    if (r.failed) {
      ++failed;
      CHECK(r.id == 2);
      CHECK(r.failure == FailureReason::too_long_for_max_model_len);
      continue;
    }
    CHECK(r.ttft_ms > 0);
    CHECK(r.e2e_ms >= r.ttft_ms);
    // The single-token request has no TPOT; the other's is (E2E - TTFT) / 7.
    if (r.output_tokens == 1) CHECK_FALSE(r.has_tpot());
    else CHECK(r.tpot_ms == Approx((r.e2e_ms - r.ttft_ms) / 7.0));
  }
  CHECK(failed == 1);
  CHECK(run.result.summary.completed == 2);
}

TEST_CASE("request results are kept only when asked for", "[metrics][sim]") {
  const Scenario sc = scenario_from("{kind: vllm}");
  VectorSource source({make_request(0.0, 100, 4)});
  RequestResults results;
  SimulationOptions none;
  simulate(sc, source, none);
  CHECK(results.empty());
  VectorSource again({make_request(0.0, 100, 4)});
  SimulationOptions asked;
  asked.request_results = &results;
  simulate(sc, again, asked);
  CHECK(results.size() == 1);
}
