#include "report/html_page.h"

#include "report/html_escape.h"

namespace servesim::report {
namespace {

constexpr const char* kStyle = R"(body{font-family:system-ui,-apple-system,"Segoe UI",sans-serif;margin:24px auto;max-width:1200px;color:#222;background:#fff}
h1{font-size:22px}h2{font-size:18px;border-bottom:1px solid #ddd;padding-bottom:4px;margin-top:28px}
table{border-collapse:collapse;font-size:13px;margin:8px 0}th,td{border:1px solid #ddd;padding:3px 8px;text-align:right}
th{background:#f4f4f4}td.l,th.l{text-align:left}.charts{display:flex;flex-wrap:wrap;gap:12px}
svg.chart{border:1px solid #e4e4e4;background:#fff}.plot{fill:#fcfcfc;stroke:#999}.grid{stroke:#e8e8e8}
.tick{font-size:10px;fill:#555}.axis{font-size:12px;fill:#333}.ctitle{font-size:13px;font-weight:600;fill:#222}
.legend{font-size:11px;fill:#333}.nodata{font-size:14px;fill:#a00}pre{background:#f6f6f6;padding:8px;font-size:12px;overflow:auto;max-height:600px}
.note{color:#555;font-size:13px}.bad{color:#a00;font-weight:600}.ok{color:#176117;font-weight:600}
.verdict{border:2px solid #999;border-radius:6px;padding:8px 14px;margin:12px 0}.verdict.good{border-color:#2e7d32;background:#f3faf3}
.verdict.bad{border-color:#b00020;background:#fdf3f4}.headline{font-size:20px;font-weight:700}.verdict.good .headline{color:#1b5e20}
.verdict.bad .headline{color:#b00020}.band{color:#555;font-size:12px}.setup{font-size:15px}tr.knee td{background:#fff6d6}
td.miss{color:#a00;font-weight:600}td.met{color:#176117})";

// Installed first so that an exception anywhere later marks the page; the last script
// marks success only if nothing failed before it.
constexpr const char* kErrorHook =
    "<script>window.onerror=function(m){document.documentElement.dataset.rendered='error: '+m;};</script>";
constexpr const char* kDoneMarker =
    "<script>(function(){var r=document.documentElement;if(!r.dataset.rendered){"
    "var n=document.querySelectorAll('svg.chart .series').length;r.dataset.rendered='ok';"
    "r.dataset.series=String(n);}})();</script>";

}  // namespace

std::string html_page(const std::string& title, const std::string& body) {
  std::string out = "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>";
  out += escape_html(title);
  out += "</title>\n<style>\n";
  out += kStyle;
  out += "\n</style>\n";
  out += kErrorHook;
  out += "\n</head>\n<body>\n<h1>";
  out += escape_html(title);
  out += "</h1>\n";
  out += body;
  out += kDoneMarker;
  out += "\n</body>\n</html>\n";
  return out;
}

std::string html_pre(const std::string& text) { return "<pre>" + escape_html(text) + "</pre>\n"; }

}  // namespace servesim::report
