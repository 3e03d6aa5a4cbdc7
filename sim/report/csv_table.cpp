#include "report/csv_table.h"

#include <fmt/format.h>

#include <charconv>
#include <cmath>
#include <fstream>
#include <limits>

#include "util/error.h"
#include "util/paths.h"

namespace servesim::report {

std::optional<size_t> CsvTable::column(const std::string& name) const {
  for (size_t i = 0; i < header.size(); ++i)
    if (header[i] == name) return i;
  return std::nullopt;
}

std::optional<double> CsvTable::number(size_t row, size_t col) const {
  const std::string& cell = rows.at(row).at(col);
  if (cell.empty()) return std::nullopt;
  double v = 0;
  auto [end, ec] = std::from_chars(cell.data(), cell.data() + cell.size(), v);
  if (ec != std::errc() || end != cell.data() + cell.size() || !std::isfinite(v)) return std::nullopt;
  return v;
}

std::vector<std::string> split_csv_line(const std::string& line) {
  std::vector<std::string> cells(1);
  bool quoted = false;
  for (size_t i = 0; i < line.size(); ++i) {
    char c = line[i];
    if (quoted) {
      if (c == '"' && i + 1 < line.size() && line[i + 1] == '"') {
        cells.back() += '"';
        ++i;
      } else if (c == '"') {
        quoted = false;
      } else {
        cells.back() += c;
      }
    } else if (c == '"') {
      quoted = true;
    } else if (c == ',') {
      cells.emplace_back();
    } else if (c != '\r') {
      cells.back() += c;
    }
  }
  return cells;
}

CsvTable read_csv_table(const std::string& path) {
  check_input_kind(path);
  std::ifstream in(path);
  if (!in) throw Error(fmt::format("{}: cannot open", path));
  CsvTable t;
  t.path = path;
  std::string line;
  if (!std::getline(in, line) || line.empty()) throw Error(fmt::format("{}: empty file, expected a CSV header", path));
  t.header = split_csv_line(line);
  size_t line_no = 1;
  while (std::getline(in, line)) {
    ++line_no;
    if (line.empty()) continue;
    auto cells = split_csv_line(line);
    if (cells.size() != t.header.size())
      throw Error(fmt::format("{}:{}: {} cells, the header has {}", path, line_no, cells.size(), t.header.size()));
    t.rows.push_back(std::move(cells));
  }
  return t;
}

std::vector<std::vector<double>> read_csv_columns(const std::string& path, const std::vector<std::string>& names) {
  check_input_kind(path);
  std::ifstream in(path);
  if (!in) throw Error(fmt::format("{}: cannot open", path));
  std::string line;
  if (!std::getline(in, line) || line.empty()) throw Error(fmt::format("{}: empty file, expected a CSV header", path));
  const auto header = split_csv_line(line);
  std::vector<size_t> index;
  for (const auto& name : names) {
    size_t i = 0;
    while (i < header.size() && header[i] != name) ++i;
    if (i == header.size()) throw Error(fmt::format("{}: no column {}", path, name));
    index.push_back(i);
  }
  std::vector<std::vector<double>> columns(names.size());
  size_t line_no = 1;
  while (std::getline(in, line)) {
    ++line_no;
    if (line.empty()) continue;
    const auto cells = split_csv_line(line);
    if (cells.size() != header.size())
      throw Error(fmt::format("{}:{}: {} cells, the header has {}", path, line_no, cells.size(), header.size()));
    for (size_t k = 0; k < index.size(); ++k) {
      const std::string& cell = cells[index[k]];
      double v = std::numeric_limits<double>::quiet_NaN();
      if (!cell.empty()) {
        auto [end, ec] = std::from_chars(cell.data(), cell.data() + cell.size(), v);
        if (ec != std::errc() || end != cell.data() + cell.size() || !std::isfinite(v))
          v = std::numeric_limits<double>::quiet_NaN();
      }
      columns[k].push_back(v);
    }
  }
  return columns;
}

}  // namespace servesim::report
