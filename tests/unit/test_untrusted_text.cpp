// Names from inputs on their way into files other programs interpret
// (sim/util/untrusted_text.h), and the JSON nesting bound (sim/util/json_file.h).
#include <catch2/catch.hpp>

#include <string>

#include "util/error.h"
#include "util/json_file.h"
#include "util/untrusted_text.h"

using namespace servesim;
using Catch::Contains;

TEST_CASE("csv_cell: formulas become text, numbers stay numbers, RFC 4180 quoting", "[untrusted]") {
  CHECK(csv_cell("h100-sxm") == "h100-sxm");
  CHECK(csv_cell("=HYPERLINK(\"http://x\")") == "\"'=HYPERLINK(\"\"http://x\"\")\"");
  CHECK(csv_cell("=1+1") == "'=1+1");
  CHECK(csv_cell("@SUM(A1)") == "'@SUM(A1)");
  CHECK(csv_cell("+cmd") == "'+cmd");
  CHECK(csv_cell("-cmd|' /C calc'!A0") == "'-cmd|' /C calc'!A0");
  CHECK(csv_cell("\tx") == "'\tx");
  // Signed numbers are data, not formulas: left as they are.
  CHECK(csv_cell("-3.5") == "-3.5");
  CHECK(csv_cell("+1e3") == "+1e3");
  CHECK(csv_cell("-2E-7") == "-2E-7");
  CHECK(csv_cell("a,b") == "\"a,b\"");
  CHECK(csv_cell("line\nbreak") == "\"line\nbreak\"");
  CHECK(csv_cell("") == "");
}

TEST_CASE("is_plain_number: a whole decimal number, nothing more", "[untrusted]") {
  for (const char* yes : {"0", "-1", "+2.5", ".5", "5.", "1e9", "-1.5e-3"}) CHECK(is_plain_number(yes));
  for (const char* no : {"", "-", "+", ".", "e5", "1e", "1e+", "1-2", "inf", "nan", "0x10", "1 2", "=1"})
    CHECK_FALSE(is_plain_number(no));
}

TEST_CASE("gnuplot_string: single-quoted, quotes doubled, no line breaks", "[untrusted]") {
  CHECK(gnuplot_string("plain") == "'plain'");
  // Backquotes and $(...) stay text inside single quotes (gnuplot substitutes only in double quotes).
  CHECK(gnuplot_string("x`touch PWNED`$(id)") == "'x`touch PWNED`$(id)'");
  CHECK(gnuplot_string("it's") == "'it''s'");
  CHECK(gnuplot_string("a\nsystem 'id'\r\x7f") == "'a system ''id''  '");
  CHECK(gnuplot_string("back\\slash \"q\"") == "'back\\slash \"q\"'");
}

TEST_CASE("JSON deeper than the bound is refused before parsing, with its line", "[untrusted]") {
  // 256 levels pass; 257 do not (kMaxJsonDepth = 256).
  const std::string ok = std::string(256, '[') + std::string(256, ']');
  const std::string deep = "{\n\"a\":\n" + std::string(257, '[') + std::string(257, ']') + "}";
  CHECK(json_depth_exceeded_at(ok) == 0);
  CHECK(json_depth_exceeded_at(deep) == 3);
  // Brackets inside strings (and escaped quotes) do not count.
  CHECK(json_depth_exceeded_at("{\"s\": \"" + std::string(1000, '[') + "\\\"\"}") == 0);
  CHECK_NOTHROW(parse_json_text(ok, "ok.json"));
  CHECK_THROWS_WITH(parse_json_text(deep, "deep.json"), Contains("deep.json:3:") && Contains("nested deeper than 256"));
  CHECK(parse_json_or_discarded(deep).is_discarded());
  // 200,000 levels (400 kB): refused in linear time, no recursion.
  const std::string huge = std::string(200000, '[') + std::string(200000, ']');
  CHECK(parse_json_or_discarded(huge).is_discarded());
}
