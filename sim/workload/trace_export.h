#pragma once
// What benchmark tools' result files have in common once read (internal to
// sim/workload; the readers are trace_guidellm.cpp, trace_aiperf.cpp and
// trace_aiperf_summary.cpp): the requests a run sent, in the order it sent them,
// with what it measured of each. Such a file is one document (or a JSONL of
// records written in completion order), so it is read whole and sorted by send
// time; a request's index in that order is its replayed Request id, which is how
// `validate` pairs measured and predicted requests.
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "workload/measured_requests.h"
#include "workload/trace_reader.h"

namespace servesim::trace_detail {

struct ExportedRequest {
  double start_s = 0;               // send time on the tool's clock (epoch seconds for both tools)
  std::int64_t input_tokens = 0;    // as replayed: >= 1
  std::int64_t output_tokens = 0;   // as replayed: >= 1
  bool measured = false;            // completed successfully: the latencies below are measurements
  bool tokens_adjusted = false;     // a count was missing or 0 (a failed request) and replayed as 1
  std::optional<double> ttft_ms, tpot_ms, e2e_ms;
  std::vector<double> itl_ms;       // per-token gaps when the file has them (AIPerf), else empty
  std::string where;                // "benchmarks[0].requests.successful[3]" / "line 7": for messages
};

struct ExportedRun {
  std::string path;                       // the file it was read from, for messages
  std::vector<ExportedRequest> requests;  // sorted by start_s (stable: file order among equals)
  std::string model_id;                   // the served model as the file names it, "" when it does not
  std::int64_t failed = 0;                // requests the tool recorded as errored, incomplete or cancelled
  std::int64_t tokens_adjusted = 0;       // of all requests, those replayed with a count made 1
};

// A JSON document, or for a .yaml/.yml path a YAML one converted to JSON by the
// reader set_yaml_document_reader installed. Errors name the file.
nlohmann::json read_export_document(const std::string& path);

// The YAML parser belongs to the config layer, which sits above this one (it reads
// workload specs), so the workload cannot call it: config/yaml_text.cpp lends it here
// when the program starts (plain scalars that read as numbers become numbers, null/~
// null, true/false booleans). Without it a YAML trace is an Error saying so.
using YamlDocumentReader = nlohmann::json (*)(const std::string& path);
void set_yaml_document_reader(YamlDocumentReader reader);

// A latency field `{"value": v, "unit": "ms"}` (AIPerf) or a bare number in `unit`, in
// milliseconds; nullopt when absent or null. Throws "<path>: <where>: ..." for a value
// that is not a finite number >= 0 or a unit that is not ns/us/ms/s/sec.
std::optional<double> latency_ms(const nlohmann::json& value, const std::string& unit, const std::string& path,
                                 const std::string& where);

// The runs of each tool's file (trace_guidellm.cpp, trace_aiperf.cpp), sorted by send
// time. Throw servesim::Error naming the file and the request ("benchmarks[0].requests.
// successful[3]", "line 7") for a missing or malformed field.
ExportedRun load_guidellm_report(const std::string& path);
ExportedRun load_aiperf_records(const std::string& path);

// Warns, with the counts, when requests were replayed with a token count made 1
// (failed requests whose lengths the file does not give).
void warn_adjusted(const std::string& path, const ExportedRun& run);

// Sorts a run's requests by send time, stably.
void sort_by_start(ExportedRun& run);

// A TraceReader over an already-read run (record k = request k, line = k + 1).
std::unique_ptr<TraceReader> open_exported_run(const std::string& path, TraceFormat format, ExportedRun run);

// The requests as MeasuredRequests (index = position in send order; arrival_s =
// seconds after the first send; latencies only for measured requests) and, appended
// to *itl_gaps when given, every per-token gap of the measured requests.
std::vector<MeasuredRequest> measured_requests(const ExportedRun& run, std::vector<double>* itl_gaps = nullptr);

}  // namespace servesim::trace_detail
