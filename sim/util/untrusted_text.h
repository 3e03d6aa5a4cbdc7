#pragma once
// Text that came from an input (a trace file's name, a GPU file's `name:`, a model
// folder) on its way into a file another program interprets. Names are whatever a
// stranger chose: "x`touch PWNED`.csv" or "=HYPERLINK(...)" must stay text there.
#include <string>
#include <string_view>

namespace servesim {

// One CSV cell (RFC 4180): quoted when it holds a comma, quote or line break, quotes
// doubled. A cell that a spreadsheet would evaluate as a formula (first character
// '=', '+', '-', '@', tab or carriage return) and that is not a plain number gets a
// leading apostrophe (the OWASP "CSV injection" rule); "-3.5" and "+1e3" stay numbers.
std::string csv_cell(std::string_view text);

// A gnuplot string literal that gnuplot takes as plain text. Single quotes: gnuplot
// runs `backquoted` commands and expands escapes inside double quotes only; a single
// quote inside is written twice. Control characters (a newline would end the command
// and start another) become spaces. Pair it with `noenhanced` where enhanced text mode
// is on, so that '_' and '^' print as themselves.
std::string gnuplot_string(std::string_view text);

// True when `text` parses in full as a decimal number (optional sign, digits, point,
// exponent; "inf"/"nan" are not numbers here).
bool is_plain_number(std::string_view text);

}  // namespace servesim
