// `servesim report` pieces (sim/report/html_*, svg_chart, csv_table, report_input):
// escaping, CDF quantiles against closed forms, CSV splitting, input detection and
// the page's determinism and escaping of names from the input.
#include <catch2/catch.hpp>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <string>

#include "report/csv_table.h"
#include "report/html_escape.h"
#include "report/html_report.h"
#include "report/report_input.h"
#include "report/svg_chart.h"
#include "util/error.h"

using namespace servesim;
using namespace servesim::report;
namespace fs = std::filesystem;

namespace {
fs::path fresh_dir(const std::string& name) {
  auto dir = fs::temp_directory_path() / ("servesim-test-report-" + name);
  fs::remove_all(dir);
  fs::create_directories(dir);
  return dir;
}
void write(const fs::path& p, const std::string& text) { std::ofstream(p) << text; }
size_t count(const std::string& hay, const std::string& needle) {
  size_t n = 0;
  for (auto pos = hay.find(needle); pos != std::string::npos; pos = hay.find(needle, pos + 1)) ++n;
  return n;
}
}  // namespace

TEST_CASE("escape_html replaces the five characters that can break out of text or attributes") {
  CHECK(escape_html("a<b>&\"c'") == "a&lt;b&gt;&amp;&quot;c&#39;");
  CHECK(escape_html("plain") == "plain");
  CHECK(format_number(1234.5678) == "1235");  // 4 significant digits
  CHECK(format_number(0.5) == "0.5");
  CHECK(format_number(58940.0) == "58940");  // not 5.894e+04
  CHECK(format_number(NAN) == "-");
}

TEST_CASE("cdf_series takes nearest-rank quantiles at evenly spaced probabilities") {
  // values 1..101 (shuffled order), 101 points: p_k = k/100, index round(k/100 * 100) = k,
  // so x_k = k + 1 exactly.
  std::vector<double> v;
  for (int i = 101; i >= 1; --i) v.push_back(i);
  auto s = cdf_series("x", v, 101);
  REQUIRE(s.x.size() == 101);
  for (size_t k = 0; k < 101; ++k) {
    CHECK(s.x[k] == static_cast<double>(k + 1));
    CHECK(s.y[k] == Approx(static_cast<double>(k) / 100.0));
  }
  // 1M values 0..999999 with the default 200 points: 200 pairs, not 1M; the median
  // point is not on the grid, but the ends are min and max, and p = 100/199 gives index
  // round(100 * 999999 / 199) = round(99999900 / 199) = round(502512.06) = 502512.
  std::vector<double> big(1000000);
  for (size_t i = 0; i < big.size(); ++i) big[i] = static_cast<double>(i);
  auto b = cdf_series("big", big);
  REQUIRE(b.x.size() == 200);
  CHECK(b.x.front() == 0);
  CHECK(b.x.back() == 999999);
  CHECK(b.x[100] == 502512);
  // NaNs (failed requests' blanks) are dropped; no values gives no points.
  CHECK(cdf_series("n", {NAN, 2.0}, 2).x == std::vector<double>{2.0, 2.0});
  CHECK(cdf_series("e", {}, 200).x.empty());
}

TEST_CASE("split_csv_line honours quotes and doubled quotes") {
  CHECK(split_csv_line("a,\"b,c\",d") == std::vector<std::string>{"a", "b,c", "d"});
  CHECK(split_csv_line("\"say \"\"hi\"\"\",") == std::vector<std::string>{"say \"hi\"", ""});
}

TEST_CASE("render_svg_chart draws one path per series, and says no data when empty") {
  Chart c{"id1", "t<i>", "x", "y", {Series{"s", {0, 1, 2}, {0, 1, 4}}}};
  const auto svg = render_svg_chart(c);
  CHECK(count(svg, "<path class=\"series\"") == 1);
  // (0,0) at the plot's lower-left corner: x = left margin 70, y = top 30 + plot height
  // (320 - 30 - 45 = 245) = 275.
  CHECK(svg.find("M70.0 275.0 L") != std::string::npos);
  CHECK(svg.find("t&lt;i&gt;") != std::string::npos);
  CHECK(svg.find("<i>") == std::string::npos);
  const auto empty = render_svg_chart({"id2", "t", "x", "y", {Series{"s", {}, {}}}});
  CHECK(empty.find("no data") != std::string::npos);
  CHECK(count(empty, "class=\"series\"") == 0);
}

TEST_CASE("detect_report_input tells runs, sweeps and plans apart and refuses the rest") {
  const auto dir = fresh_dir("detect");
  fs::create_directories(dir / "run");
  write(dir / "run" / "summary.json", "{}");
  fs::create_directories(dir / "plan");
  write(dir / "plan" / "plan.json", "{\"candidates\": []}");
  write(dir / "sweep.csv", "point,workload.arrival.rate,status\n0,1,ok\n");
  write(dir / "other.csv", "id,x\n1,2\n");
  write(dir / "other.json", "{\"a\": 1}");
  CHECK(detect_report_input((dir / "run").string()).kind == InputKind::Run);
  CHECK(detect_report_input((dir / "plan").string()).kind == InputKind::Plan);
  CHECK(detect_report_input((dir / "plan" / "plan.json").string()).kind == InputKind::Plan);
  CHECK(detect_report_input((dir / "sweep.csv").string()).kind == InputKind::Sweep);
  CHECK_THROWS_WITH(detect_report_input((dir / "other.csv").string()), Catch::Contains("not a sweep"));
  CHECK_THROWS_WITH(detect_report_input((dir / "other.json").string()), Catch::Contains("not a plan"));
  CHECK_THROWS_WITH(detect_report_input((dir / "missing").string()), Catch::Contains("no such file"));
  CHECK_THROWS_WITH(detect_report_input(dir.string()), Catch::Contains("without summary.json or plan.json"));
}

TEST_CASE("a sweep report escapes names from the input and is the same bytes twice") {
  const auto dir = fresh_dir("sweep");
  const std::string cols =
      "ttft_ms.p50,ttft_ms.p99,tpot_ms.p50,tpot_ms.p99,throughput.output_tokens_per_s_per_gpu,"
      "throughput.requests_per_s";
  write(dir / "s.csv", "point,setup.gpu,status,reason," + cols +
                           "\n0,<script>alert(1)</script>,ok,,10,20,5,6,100,1\n1,h100,infeasible,\"a, b\",,,,,,\n");
  const ReportInput in{InputKind::Sweep, (dir / "s.csv").string()};
  const auto page = render_html_report(in);
  CHECK(page == render_html_report(in));
  CHECK(page.find("<script>alert") == std::string::npos);
  CHECK(page.find("&lt;script&gt;alert(1)") != std::string::npos);
  // The verdict leads: point 0 passes (ok, no SLO columns), point 1 is infeasible with its reason.
  CHECK(page.find("1 of 2 points pass") != std::string::npos);
  CHECK(page.find("<span class=\"bad\">infeasible</span>: a, b") != std::string::npos);
  // The second point's latencies are blank: 3 charts, each with one point drawn from row 0.
  CHECK(count(page, "<svg id=\"sweep-") == 3);
}

TEST_CASE("a run folder missing requests.csv is an error naming the file") {
  const auto dir = fresh_dir("run-missing");
  write(dir / "summary.json", "{}");
  CHECK_THROWS_WITH(render_html_report({InputKind::Run, dir.string()}), Catch::Contains("requests.csv"));
}

TEST_CASE("read_csv_columns keeps only the named columns, blanks as NaN") {
  const auto dir = fresh_dir("columns");
  write(dir / "r.csv", "id,ttft_ms,failed,failure\n0,12.5,0,\n1,,1,\"too, long\"\n");
  const auto cols = read_csv_columns((dir / "r.csv").string(), {"failed", "ttft_ms"});
  REQUIRE(cols.size() == 2);
  CHECK(cols[0] == std::vector<double>{0, 1});
  CHECK(cols[1][0] == 12.5);
  CHECK(std::isnan(cols[1][1]));
  CHECK_THROWS_WITH(read_csv_columns((dir / "r.csv").string(), {"e2e_ms"}), Catch::Contains("no column e2e_ms"));
}
