#pragma once
// A CSV file as a header and rows of text cells, for the report: the outputs servesim
// writes (requests.csv, timeline.csv, sweep CSVs) with RFC 4180 quoting.
#include <optional>
#include <string>
#include <vector>

namespace servesim::report {

struct CsvTable {
  std::string path;
  std::vector<std::string> header;
  std::vector<std::vector<std::string>> rows;
  // Index of a column, or nullopt when the file has none by that name.
  std::optional<size_t> column(const std::string& name) const;
  // Cell as a number; nullopt when empty or not a number (a failed request's blank).
  std::optional<double> number(size_t row, size_t col) const;
};

// Splits one line into cells ("a,\"b,c\"" -> a | b,c); quotes inside quotes doubled.
std::vector<std::string> split_csv_line(const std::string& line);

// Reads the whole file; an Error naming the path (and line) when it cannot be opened,
// is empty, or a row has a different number of cells than the header.
CsvTable read_csv_table(const std::string& path);

// Only the named columns, as numbers (NaN for a blank or non-number cell), read line by
// line: a 1M-row requests.csv costs 8 bytes per kept cell, not a string per cell.
// An Error names the file when a column is missing or a row's cell count is off.
std::vector<std::vector<double>> read_csv_columns(const std::string& path, const std::vector<std::string>& names);

}  // namespace servesim::report
