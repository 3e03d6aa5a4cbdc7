#pragma once
// The requests.csv format of `servesim run --out`: one row per finished request.
#include <ostream>
#include <string_view>

#include "metrics/request_result.h"

namespace servesim {

// With request classes (workload.classes) a last column, `class`, names each
// request's class; other runs' files are unchanged.
void write_requests_csv_header(std::ostream& out, bool with_class = false);
void write_requests_csv_row(std::ostream& out, const RequestResult& r, std::string_view class_name = {});

// `r` with its numbers as requests.csv prints them: arrival_s to 6 decimals (1 us),
// latencies to 3 decimals of a ms (1 us), rounded exactly as the text is. plan,
// validate and validate-experiments used to read the results back from that text;
// reading them through this keeps their outputs byte-identical to before. (The
// exact values differ by at most 0.5 us per request: validate's JSON would move
// in about the 9th significant digit.)
RequestResult at_csv_precision(RequestResult r);

}  // namespace servesim
