// The generic per-request CSV (servesim's own trace format) and its measured
// latencies for validation.
#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <map>

#include "util/error.h"
#include "util/text.h"
#include "workload/measured_requests.h"
#include "workload/trace_reader.h"
#include "workload/trace_text.h"

namespace servesim {

namespace {
using trace_detail::fail_at;

const std::vector<std::string> kRequired = {"arrival_s", "input_tokens", "output_tokens"};
const std::vector<std::string> kOptional = {"hash_ids", "ttft_ms", "tpot_ms", "e2e_ms"};

// The header line and each row split against it.
class CsvTable {
 public:
  CsvTable(const std::string& path, const std::vector<std::string>& required, const std::vector<std::string>& optional,
           const std::string& format_note)
      : in_(path) {
    std::string line;
    while (in_.next(line)) {
      const std::string t = trim(line);
      if (t.empty() || t[0] == '#') continue;
      for (const auto& f : trace_detail::split_csv(t)) header_.push_back(trim(f));
      break;
    }
    if (header_.empty()) throw Error(fmt::format("{}: the trace file is empty (expected a header line)", path));
    header_line_ = in_.line_number();
    std::vector<std::string> missing;
    for (const auto& name : required)
      if (!index(name)) missing.push_back(name);
    if (!missing.empty()) {
      throw Error(fmt::format("{}:{}: missing required column{} {}; found columns: {}; required: {}{}{}", path,
                              header_line_, missing.size() > 1 ? "s" : "", join(missing), join(header_),
                              join(required), optional.empty() ? "" : "; optional: " + join(optional),
                              format_note));
    }
  }

  // Column index of `name` (case-insensitive), or nullopt.
  std::optional<std::size_t> index(const std::string& name) const {
    const std::string want = to_lower(name);
    for (std::size_t i = 0; i < header_.size(); ++i)
      if (to_lower(header_[i]) == want) return i;
    return std::nullopt;
  }

  // The next data row split into exactly header-many fields; nullopt at the end.
  std::optional<std::vector<std::string>> row() {
    std::string line;
    while (in_.next(line)) {
      const std::string t = trim(line);
      if (t.empty() || t[0] == '#') continue;
      std::vector<std::string> fields = trace_detail::split_csv(line);
      if (fields.size() != header_.size())
        fail_at(path(), line_number(),
                fmt::format("expected {} columns ({}), found {}", header_.size(), join(header_), fields.size()));
      return fields;
    }
    return std::nullopt;
  }

  std::int64_t line_number() const { return in_.line_number(); }
  const std::string& path() const { return in_.path(); }

 private:
  trace_detail::LineReader in_;
  std::vector<std::string> header_;
  std::int64_t header_line_ = 0;
};

std::vector<std::uint64_t> parse_hash_ids(const std::string& text, const std::string& path, std::int64_t line) {
  std::vector<std::uint64_t> ids;
  std::string_view s = text;
  std::size_t i = 0;
  while (i < s.size()) {
    while (i < s.size() && (s[i] == ' ' || s[i] == '\t' || s[i] == '[' || s[i] == ']')) ++i;
    std::size_t j = i;
    while (j < s.size() && s[j] != ' ' && s[j] != '\t' && s[j] != ']') ++j;
    if (j == i) break;
    const std::string_view tok = s.substr(i, j - i);
    std::uint64_t v = 0;
    const auto [p, ec] = std::from_chars(tok.data(), tok.data() + tok.size(), v);
    if (ec != std::errc() || p != tok.data() + tok.size())
      fail_at(path, line, fmt::format("hash_ids entry '{}' is not a non-negative integer", excerpt(tok)));
    ids.push_back(v);
    i = j;
  }
  return ids;
}

class CsvTraceReader final : public TraceReader {
 public:
  CsvTraceReader(const std::string& path, std::int32_t block)
      : TraceReader(path, TraceFormat::csv),
        table_(path, kRequired, kOptional, " (generic servesim CSV; use format: azure for TIMESTAMP,ContextTokens,...)"),
        block_(block) {
    arrival_ = *table_.index("arrival_s");
    input_ = *table_.index("input_tokens");
    output_ = *table_.index("output_tokens");
    hashes_ = table_.index("hash_ids");
  }

  std::optional<TraceRecord> read() override {
    auto fields = table_.row();
    if (!fields) return std::nullopt;
    const std::int64_t line = table_.line_number();
    TraceRecord r;
    r.line = line;
    const auto t = trace_detail::parse_number((*fields)[arrival_]);
    if (!t) fail_at(path(), line, fmt::format("arrival_s '{}' is not a number", excerpt(trim((*fields)[arrival_]))));
    if (*t < 0.0) fail_at(path(), line, fmt::format("arrival_s must be >= 0, got {}", *t));
    r.time_ns = trace_detail::seconds_to_ns(*t, "arrival_s", path(), line);
    r.input_tokens = trace_detail::token_count((*fields)[input_], "input_tokens", path(), line);
    r.output_tokens = trace_detail::token_count((*fields)[output_], "output_tokens", path(), line);
    if (hashes_) {
      r.block_hashes = parse_hash_ids((*fields)[*hashes_], path(), line);
      const auto full = static_cast<std::size_t>(r.input_tokens / block_);
      if (r.block_hashes.size() > full) r.block_hashes.resize(full);
      if (!r.block_hashes.empty()) r.hash_block_tokens = block_;
    }
    return r;
  }

 private:
  CsvTable table_;
  std::int32_t block_;
  std::size_t arrival_ = 0, input_ = 0, output_ = 0;
  std::optional<std::size_t> hashes_;
};

class AzureTraceReader final : public TraceReader {
 public:
  explicit AzureTraceReader(const std::string& path)
      : TraceReader(path, TraceFormat::azure),
        table_(path, {"TIMESTAMP", "ContextTokens", "GeneratedTokens"}, {}, " (Azure LLM inference trace)") {
    time_ = *table_.index("TIMESTAMP");
    context_ = *table_.index("ContextTokens");
    generated_ = *table_.index("GeneratedTokens");
  }

  std::optional<TraceRecord> read() override {
    auto fields = table_.row();
    if (!fields) return std::nullopt;
    const std::int64_t line = table_.line_number();
    TraceRecord r;
    r.line = line;
    const std::string stamp = trim((*fields)[time_]);
    const auto t = parse_azure_timestamp(stamp);
    if (!t) {
      const bool dated = stamp.size() > 4 && stamp[4] == '-' &&
                         std::all_of(stamp.begin(), stamp.begin() + 4, [](char c) { return c >= '0' && c <= '9'; });
      const int year = dated ? std::stoi(stamp.substr(0, 4)) : 0;
      if (dated && (year < kMinAzureYear || year > kMaxAzureYear))
        fail_at(path(), line,
                fmt::format("TIMESTAMP '{}': year {} is outside {}-{} (timestamps are int64 nanoseconds since 1970, "
                            "which cover 1677-09-21 to 2262-04-11)",
                            stamp, year, kMinAzureYear, kMaxAzureYear));
      fail_at(path(), line,
              fmt::format("TIMESTAMP '{}' is not a date and time like 2023-11-16 18:15:46.6805900", stamp));
    }
    r.time_ns = *t;
    r.input_tokens = trace_detail::token_count((*fields)[context_], "ContextTokens", path(), line);
    r.output_tokens = trace_detail::token_count((*fields)[generated_], "GeneratedTokens", path(), line);
    return r;
  }

 private:
  CsvTable table_;
  std::size_t time_ = 0, context_ = 0, generated_ = 0;
};

// Days from 1970-01-01 to y-m-d in the proleptic Gregorian calendar (H. Hinnant).
std::int64_t days_from_civil(std::int64_t y, unsigned m, unsigned d) {
  y -= m <= 2;
  const std::int64_t era = (y >= 0 ? y : y - 399) / 400;
  const auto yoe = static_cast<unsigned>(y - era * 400);
  const unsigned doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
  const unsigned doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
  return era * 146097 + static_cast<std::int64_t>(doe) - 719468;
}

bool read_digits(const std::string& s, std::size_t& i, std::size_t n, int& out) {
  if (i + n > s.size()) return false;
  out = 0;
  for (std::size_t k = 0; k < n; ++k) {
    const char c = s[i + k];
    if (c < '0' || c > '9') return false;
    out = out * 10 + (c - '0');
  }
  i += n;
  return true;
}

}  // namespace

std::optional<std::int64_t> parse_azure_timestamp(const std::string& text) {
  const std::string s = trim(text);
  std::size_t i = 0;
  int y = 0, mo = 0, d = 0, h = 0, mi = 0, se = 0;
  auto expect = [&](char c) { return i < s.size() && s[i++] == c; };
  if (!read_digits(s, i, 4, y) || !expect('-') || !read_digits(s, i, 2, mo) || !expect('-') ||
      !read_digits(s, i, 2, d))
    return std::nullopt;
  if (i >= s.size() || (s[i] != ' ' && s[i] != 'T')) return std::nullopt;
  ++i;
  if (!read_digits(s, i, 2, h) || !expect(':') || !read_digits(s, i, 2, mi) || !expect(':') ||
      !read_digits(s, i, 2, se))
    return std::nullopt;
  if (mo < 1 || mo > 12 || d < 1 || d > 31 || h > 23 || mi > 59 || se > 60) return std::nullopt;
  // int64 nanoseconds since 1970 cover 1677-09-21 to 2262-04-11 only.
  if (y < kMinAzureYear || y > kMaxAzureYear) return std::nullopt;
  std::int64_t frac_ns = 0;
  if (i < s.size() && s[i] == '.') {
    ++i;
    int digits = 0;
    std::int64_t scale = 100000000;  // the first fractional digit is 1e8 ns
    while (i < s.size() && s[i] >= '0' && s[i] <= '9') {
      if (digits < 9) frac_ns += (s[i] - '0') * scale;
      scale /= 10;
      ++digits;
      ++i;
    }
    if (digits == 0) return std::nullopt;
  }
  std::int64_t offset_s = 0;  // the zone's offset from UTC
  if (i < s.size()) {
    if (s[i] == 'Z' && i + 1 == s.size()) {
      ++i;
    } else if (s[i] == '+' || s[i] == '-') {
      const int sign = s[i] == '+' ? 1 : -1;
      ++i;
      int oh = 0, om = 0;
      if (!read_digits(s, i, 2, oh)) return std::nullopt;
      if (i < s.size() && s[i] == ':') ++i;
      if (i < s.size() && !read_digits(s, i, 2, om)) return std::nullopt;
      offset_s = sign * (oh * 3600 + om * 60);
    }
    if (i != s.size()) return std::nullopt;
  }
  const std::int64_t secs = days_from_civil(y, static_cast<unsigned>(mo), static_cast<unsigned>(d)) * 86400 +
                            h * 3600 + mi * 60 + se - offset_s;
  return secs * 1000000000 + frac_ns;
}

std::unique_ptr<TraceReader> open_csv_trace(const std::string& path, std::int32_t hash_block_tokens) {
  return std::make_unique<CsvTraceReader>(path, hash_block_tokens);
}

std::unique_ptr<TraceReader> open_azure_trace(const std::string& path) {
  return std::make_unique<AzureTraceReader>(path);
}

std::vector<MeasuredRequest> read_measured_csv(const std::string& path) {
  CsvTable table(path, kRequired, kOptional, " (generic servesim CSV)");
  const std::size_t arrival = *table.index("arrival_s");
  const std::size_t input = *table.index("input_tokens");
  const std::size_t output = *table.index("output_tokens");
  const std::map<std::string, std::optional<std::size_t>> measured = {
      {"ttft_ms", table.index("ttft_ms")}, {"tpot_ms", table.index("tpot_ms")}, {"e2e_ms", table.index("e2e_ms")}};
  std::vector<MeasuredRequest> out;
  while (auto fields = table.row()) {
    const std::int64_t line = table.line_number();
    MeasuredRequest m;
    m.index = static_cast<std::int64_t>(out.size());
    const auto t = trace_detail::parse_number((*fields)[arrival]);
    if (!t) fail_at(path, line, fmt::format("arrival_s '{}' is not a number", excerpt(trim((*fields)[arrival]))));
    m.arrival_s = *t;
    m.input_tokens = trace_detail::token_count((*fields)[input], "input_tokens", path, line);
    m.output_tokens = trace_detail::token_count((*fields)[output], "output_tokens", path, line);
    for (const auto& [name, col] : measured) {
      if (!col) continue;
      const std::string text = trim((*fields)[*col]);
      if (text.empty() || to_lower(text) == "nan") continue;  // not measured (e.g. a failed request)
      const auto v = trace_detail::parse_number(text);
      if (!v || *v < 0.0) fail_at(path, line, fmt::format("{} '{}' is not a number >= 0", name, excerpt(text)));
      (name == "ttft_ms" ? m.ttft_ms : name == "tpot_ms" ? m.tpot_ms : m.e2e_ms) = *v;
    }
    // The first token arrives within the request: a row whose end-to-end time is shorter
    // than its TTFT is a broken measurement, and comparing against it would mislead.
    if (m.ttft_ms && m.e2e_ms && *m.e2e_ms < *m.ttft_ms)
      fail_at(path, line, fmt::format("e2e_ms {} is less than ttft_ms {}: the first token cannot come after the "
                                      "last; fix or drop the row",
                                      *m.e2e_ms, *m.ttft_ms));
    out.push_back(m);
  }
  return out;
}

}  // namespace servesim
