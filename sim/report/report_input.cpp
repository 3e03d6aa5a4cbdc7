#include "report/report_input.h"

#include <fmt/format.h>

#include <filesystem>
#include <fstream>

#include "util/error.h"
#include "util/paths.h"
#include "util/json_file.h"

namespace servesim::report {
namespace fs = std::filesystem;

namespace {
constexpr const char* kAccepted =
    "expected a `run --out` folder (summary.json, requests.csv, timeline.csv), a `sweep --out` CSV, or a "
    "`plan --out` folder / its plan.json";

bool ends_with(const std::string& s, const std::string& tail) {
  return s.size() >= tail.size() && s.compare(s.size() - tail.size(), tail.size(), tail) == 0;
}
}  // namespace

const char* input_kind_name(InputKind kind) {
  switch (kind) {
    case InputKind::Run: return "run";
    case InputKind::Sweep: return "sweep";
    case InputKind::Plan: return "plan";
  }
  return "?";
}

ReportInput detect_report_input(const std::string& path) {
  std::error_code ec;
  if (!fs::exists(path, ec)) throw Error(fmt::format("{}: no such file or folder; {}", path, kAccepted));
  if (fs::is_directory(path, ec)) {
    if (fs::exists(fs::path(path) / "summary.json", ec)) return {InputKind::Run, path};
    if (fs::exists(fs::path(path) / "plan.json", ec)) return {InputKind::Plan, (fs::path(path) / "plan.json").string()};
    throw Error(fmt::format("{}: a folder without summary.json or plan.json; {}", path, kAccepted));
  }
  if (ends_with(path, ".json")) {
    const auto doc = read_json_file(path);
    if (doc.is_object() && doc.contains("candidates")) return {InputKind::Plan, path};
    throw Error(fmt::format("{}: a JSON file without \"candidates\" (not a plan); {}", path, kAccepted));
  }
  if (ends_with(path, ".csv")) {
    check_input_kind(path);
    std::ifstream in(path);
    std::string header;
    if (!in || !std::getline(in, header)) throw Error(fmt::format("{}: cannot read a CSV header", path));
    if (header.rfind("point,", 0) == 0) return {InputKind::Sweep, path};
    throw Error(fmt::format("{}: CSV header does not start with \"point,\" (not a sweep); {}", path, kAccepted));
  }
  throw Error(fmt::format("{}: unknown kind of file; {}", path, kAccepted));
}

}  // namespace servesim::report
