#pragma once
// Line-level helpers shared by the trace readers (internal to sim/workload).
#include <cstdint>
#include <fstream>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace servesim::trace_detail {

// Reads a text file one line at a time (the only buffering is std::ifstream's),
// stripping a trailing '\r' and counting 1-based line numbers. A last line without
// a newline is an Error (it may be a file cut short in the middle of a number).
class LineReader {
 public:
  // Throws servesim::Error "<path>: cannot open trace file" if it cannot be read.
  // `require_final_newline` false: for sniffing the format of a file that may be one
  // JSON document (which needs no final newline).
  explicit LineReader(const std::string& path, bool require_final_newline = true);
  bool next(std::string& line);
  std::int64_t line_number() const { return line_; }
  const std::string& path() const { return path_; }

 private:
  std::string path_;
  std::ifstream in_;
  std::int64_t line_ = 0;
  bool require_final_newline_ = true;
};

// Splits one CSV line on commas; a field in double quotes may hold commas, and
// "" inside it stands for one quote. Fields are returned untrimmed.
std::vector<std::string> split_csv(std::string_view line);

// The whole (trimmed) text as a finite number, else nullopt.
std::optional<double> parse_number(std::string_view text);
// The whole (trimmed) text as an integer ("512" or an integral "512.0"), else nullopt.
std::optional<std::int64_t> parse_integer(std::string_view text);

// "<path>:<line>: <message>".
[[noreturn]] void fail_at(const std::string& path, std::int64_t line, const std::string& message);

// A token count read from `column`: an integer >= 1 (else fail_at naming the column).
std::int64_t token_count(std::string_view text, const std::string& column, const std::string& path,
                         std::int64_t line);

// Seconds as integer nanoseconds (rounded), failing when out of range.
std::int64_t seconds_to_ns(double seconds, const std::string& column, const std::string& path, std::int64_t line);

}  // namespace servesim::trace_detail
