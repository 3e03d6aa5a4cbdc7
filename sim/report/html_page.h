#pragma once
// The frame of the report page: head with inline CSS, the marker script the browser
// test reads (body data-rendered = "ok", or "error: ..." from window.onerror).
#include <string>

namespace servesim::report {

std::string html_page(const std::string& title, const std::string& body);

// A <pre> block of pretty-printed, escaped text (the configuration).
std::string html_pre(const std::string& text);

}  // namespace servesim::report
