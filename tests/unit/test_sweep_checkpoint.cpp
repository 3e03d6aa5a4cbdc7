// A sweep keeps what it finished (sim/planning/sweep_checkpoint.h): Ctrl-C (the
// interrupt flag, set here from the progress callback as the SIGINT handler would)
// leaves the finished points in <out>.partial and no file under <out>; the same sweep
// run again simulates only the rest and writes a file byte-identical to an
// uninterrupted run's. The simulation loop itself also stops on the flag.
#include <catch2/catch.hpp>

#include "config/config_map.h"
#include "config/edits.h"
#include "config/yaml_text.h"

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "run/simulation.h"
#include "planning/sweep.h"
#include "planning/sweep_checkpoint.h"
#include "config/scenario_reader.h"
#include "util/error.h"
#include "util/interrupt.h"
#include "util/output_target.h"

using namespace servesim;
using namespace servesim::planning;
using Catch::Contains;
namespace fs = std::filesystem;

namespace {

const char* kScenario =
    "hardware: {gpu: h100-sxm}\n"
    "model: {name: llama-3.1-8b}\n"
    "engine: {max_num_seqs: 64}\n"
    "workload:\n"
    "  seed: 5\n"
    "  requests: 60\n"
    "  arrival: {process: poisson, rate: 4}\n"
    "  input_tokens: {dist: uniform, min: 100, max: 300}\n"
    "  output_tokens: {dist: uniform, min: 10, max: 40}\n"
    "slo: {ttft_ms: {p99: 500}}\n";

// Four points of a few milliseconds each.
std::vector<SweepAxis> axes() {
  return {parse_vary("workload.arrival.rate=2,6"), parse_vary("engine.max_num_seqs=32,64")};
}

// The flag is global: reset it whatever happens in a test. Each test stands for one command,
// so it also starts with no recorded inputs: the set (util/output_target.h) holds files by
// (device, inode), and a temporary file an earlier test read and removed may hand its inode
// to this test's .partial, which would then be refused as an input.
struct InterruptReset {
  InterruptReset() { forget_input_files(); }
  ~InterruptReset() { request_interrupt(false); }
};

struct TempDir {
  fs::path path;
  // The process id in the name: test binaries of several checkouts may run at once.
  explicit TempDir(const std::string& name)
      : path(fs::temp_directory_path() / ("servesim-ckpt-" + name + "-" + std::to_string(::getpid()))) {
    fs::remove_all(path);
    fs::create_directories(path);
  }
  ~TempDir() { fs::remove_all(path); }
  std::string operator/(const std::string& f) const { return (path / f).string(); }
};

std::string slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

std::size_t lines_of(const std::string& path) {
  const std::string text = slurp(path);
  return static_cast<std::size_t>(std::count(text.begin(), text.end(), '\n'));
}

// Runs the sweep to `out`; interrupts once `stop_after` points are done (0: never).
CheckpointedSweep sweep_to(const std::string& out, std::size_t stop_after, int threads = 1) {
  SweepOptions opt;
  opt.threads = threads;
  opt.progress = [stop_after](std::size_t done, std::size_t) {
    if (stop_after > 0 && done == stop_after) request_interrupt();
  };
  const auto a = axes();
  return run_sweep_checkpointed(parse_yaml_text(kScenario), "sweep.yaml", a, opt, out,
                                sweep_fingerprint(kScenario, {}, a));
}

}  // namespace

TEST_CASE("sweep checkpoint: an interrupted sweep keeps its finished rows and resumes to the same bytes",
          "[sweep_checkpoint]") {
  InterruptReset reset;
  TempDir d("resume");
  for (const std::string ext : {".csv", ".json"}) {
    INFO(ext);
    const std::string whole = d / ("whole" + ext), cut = d / ("cut" + ext);
    const CheckpointedSweep full = sweep_to(whole, 0);
    REQUIRE(full.records.size() == 4);
    CHECK(full.resumed == 0);
    CHECK_FALSE(fs::exists(partial_path(whole)));  // removed once the output is written

    // Interrupted after 2 of 4 points (threads = 1: points run in order 0, 1, ...).
    REQUIRE_THROWS_AS(sweep_to(cut, 2), Interrupted);
    request_interrupt(false);
    CHECK_FALSE(fs::exists(cut));
    REQUIRE(fs::exists(partial_path(cut)));
    CHECK(lines_of(partial_path(cut)) == 1 + 2);  // header + the 2 finished points

    const CheckpointedSweep resumed = sweep_to(cut, 0);
    CHECK(resumed.resumed == 2);
    CHECK(slurp(cut) == slurp(whole));
    CHECK_FALSE(fs::exists(partial_path(cut)));
  }
}

TEST_CASE("sweep checkpoint: the interruption message says how many points were kept and where",
          "[sweep_checkpoint]") {
  InterruptReset reset;
  TempDir d("message");
  REQUIRE_THROWS_WITH(sweep_to(d / "s.csv", 3),
                      Contains("interrupted: 3 of 4 points done, kept in") && Contains("s.csv.partial"));
}

TEST_CASE("sweep checkpoint: in parallel the resumed file is still in point order and identical",
          "[sweep_checkpoint]") {
  InterruptReset reset;
  TempDir d("parallel");
  sweep_to(d / "one.csv", 0, 1);
  REQUIRE_THROWS_AS(sweep_to(d / "two.csv", 1, 2), Interrupted);
  request_interrupt(false);
  const CheckpointedSweep r = sweep_to(d / "two.csv", 0, 2);
  CHECK(r.resumed >= 1);
  CHECK(slurp(d / "two.csv") == slurp(d / "one.csv"));
}

TEST_CASE("sweep checkpoint: a .partial of another sweep is not reused", "[sweep_checkpoint]") {
  InterruptReset reset;
  TempDir d("foreign");
  REQUIRE_THROWS_AS(sweep_to(d / "s.csv", 2), Interrupted);
  request_interrupt(false);
  // Same output name, different scenario text: a different fingerprint.
  SweepOptions opt;
  const auto a = axes();
  const std::string other = std::string(kScenario) + "# edited\n";
  const CheckpointedSweep r =
      run_sweep_checkpointed(parse_yaml_text(other), "sweep.yaml", a, opt, d / "s.csv", sweep_fingerprint(other, {}, a));
  CHECK(r.resumed == 0);
  CHECK(r.records.size() == 4);
}

TEST_CASE("sweep checkpoint: a sweep refused before simulating leaves no file", "[sweep_checkpoint]") {
  TempDir d("refused");
  SweepOptions opt;
  const std::vector<SweepAxis> bad = {parse_vary("engine.max_num_seq=1,2")};  // misspelt key
  REQUIRE_THROWS_AS(run_sweep_checkpointed(parse_yaml_text(kScenario), "sweep.yaml", bad, opt, d / "s.csv", "f"), Error);
  CHECK(fs::is_empty(d.path));
}

TEST_CASE("interrupt: a simulation stops within a few thousand events once the flag is set", "[sweep_checkpoint]") {
  InterruptReset reset;
  ConfigNode doc = parse_yaml_text(kScenario);
  set_number(doc, "workload.requests", 1000);
  const Scenario sc = parse_scenario(doc, "s.yaml");
  SimulationOptions step_by_step;
  step_by_step.fast_forward = false;  // one event per decode step: 1000 requests x ~25 steps >> 4096 events
  request_interrupt();
  REQUIRE_THROWS_AS(simulate(sc, step_by_step), Interrupted);
  request_interrupt(false);
  CHECK(simulate(sc, step_by_step).summary.completed == 1000);
}
