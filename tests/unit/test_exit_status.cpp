// How a command ends: the exit code and message for each kind of exception, and
// warnings for inputs that were used with a stated adjustment (never silently).
#include <catch2/catch.hpp>

#include <new>
#include <sstream>
#include <stdexcept>

#include "util/error.h"
#include "util/exit_status.h"
#include "util/interrupt.h"
#include "util/warnings.h"
#include "workload/trace_reader.h"

using namespace servesim;
using Catch::Contains;

namespace {
template <typename E>
int code_for(const E& e, std::string& message) {
  std::ostringstream err;
  const int code = report_exception(std::make_exception_ptr(e), err);
  message = err.str();
  return code;
}
}  // namespace

TEST_CASE("exit status: bad input is 1, interrupted 130, anything else an internal error 3", "[exit]") {
  std::string msg;
  CHECK(code_for(Error("s.yaml:3:1: engine.block_size: must be one of ..."), msg) == 1);
  CHECK(msg == "error: s.yaml:3:1: engine.block_size: must be one of ...\n");
  CHECK(code_for(Interrupted("interrupted: 2 of 4 points done"), msg) == 130);
  CHECK(msg == "interrupted: 2 of 4 points done\n");
  // A third-party exception that escaped a parser is a bug, not a verdict on the input.
  CHECK(code_for(std::out_of_range("json number overflow"), msg) == 3);
  CHECK_THAT(msg, Contains("internal error: json number overflow") && Contains("please report"));
  CHECK(code_for(std::bad_alloc(), msg) == 3);
  CHECK_THAT(msg, Contains("out of memory"));
  CHECK(code_for(42, msg) == 3);  // not even a std::exception
  CHECK_THAT(msg, Contains("unknown exception"));
}

TEST_CASE("warnings: each text once, in order, and taking them clears the list", "[exit]") {
  (void)take_warnings();
  warn("a");
  warn("b");
  warn("a");
  CHECK(take_warnings() == std::vector<std::string>{"a", "b"});
  CHECK(take_warnings().empty());
}

TEST_CASE("vllm bench replay says how many requests recorded no token and were replayed with one",
          "[exit][trace]") {
  (void)take_warnings();
  // tests/fixtures/traces/vllm_bench.json: output_lens [10, 20, 0, 1, 50], so 1 of 5
  // requests (the failed third one) is replayed with 1 output token.
  auto reader = open_vllm_bench_trace(std::string(SERVESIM_TEST_FIXTURES) + "/traces/vllm_bench.json", 1);
  int n = 0;
  while (auto r = reader->read()) {
    CHECK(r->output_tokens >= 1);
    ++n;
  }
  CHECK(n == 5);
  const auto w = take_warnings();
  REQUIRE(w.size() == 1);
  CHECK_THAT(w[0], Contains("1 of 5 requests recorded 0 input or output tokens") && Contains("replayed with 1 token"));
}
