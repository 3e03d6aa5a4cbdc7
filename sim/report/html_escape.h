#pragma once
// Text that goes into the report page: every scenario name, label and CSV cell is
// escaped, so a name like "<script>" shows as text and never runs.
#include <string>
#include <string_view>

namespace servesim::report {

// & < > " ' replaced by their entities; safe inside elements and quoted attributes.
std::string escape_html(std::string_view text);

// Numbers as the page shows them: up to 4 significant digits (whole numbers from 10^4
// on), "-" for NaN/inf.
// Locale-independent, so the same input gives the same bytes.
std::string format_number(double value);

}  // namespace servesim::report
