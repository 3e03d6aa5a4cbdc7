#pragma once
// What `servesim report` was given: a run's --out folder, a sweep's CSV, or a plan
// (plan.json, or the folder `plan --out` wrote it to).
#include <string>

namespace servesim::report {

enum class InputKind { Run, Sweep, Plan };

struct ReportInput {
  InputKind kind;
  std::string path;  // the folder (Run) or the file (Sweep, Plan) to read
};

// Decides by what is there, not only by the name: a folder with summary.json is a run,
// a folder with plan.json a plan; a .json file with "candidates" is a plan; a .csv
// whose header starts with "point," is a sweep. Anything else is an Error that says
// what was found and what is accepted.
ReportInput detect_report_input(const std::string& path);

const char* input_kind_name(InputKind kind);

}  // namespace servesim::report
