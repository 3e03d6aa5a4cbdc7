#include "planning/sweep_checkpoint.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>

#include "core/rng.h"
#include "util/json_file.h"
#include "util/atomic_file.h"
#include "util/error.h"
#include "util/interrupt.h"
#include "util/output_target.h"
#include "util/text.h"

namespace servesim::planning {
namespace {

constexpr int kCheckpointVersion = 1;

nlohmann::ordered_json header_json(const std::string& fingerprint, std::size_t points) {
  return {{"servesim_sweep_checkpoint", kCheckpointVersion}, {"fingerprint", fingerprint}, {"points", points}};
}

// The finished points of a matching .partial; empty when there is none, or when it
// belongs to another sweep (it is then started anew). A last line cut short by a
// kill is dropped: that point is simulated again.
std::map<std::size_t, PointRecord> read_partial(const std::string& path, const std::string& fingerprint,
                                                std::size_t points) {
  std::map<std::size_t, PointRecord> out;
  std::ifstream in(path, std::ios::binary);
  if (!in) return out;
  std::string line;
  if (!std::getline(in, line) || in.eof()) return out;
  const auto header = parse_ordered_json_or_discarded(line);
  if (header.is_discarded() || header != header_json(fingerprint, points)) return out;
  while (std::getline(in, line)) {
    if (in.eof()) break;  // no newline: the write was cut short
    const auto j = parse_ordered_json_or_discarded(line);
    if (j.is_discarded() || !j.is_object()) break;
    try {
      PointRecord r = record_from_json(j);
      if (r.index < points) out[r.index] = std::move(r);
    } catch (const nlohmann::json::exception&) {
      break;  // not what this version writes: keep what was read so far
    }
  }
  return out;
}

// Appends one line per finished point, flushed, so a kill loses at most the point
// being written.
class PartialWriter {
 public:
  PartialWriter(std::string path, const std::string& fingerprint, std::size_t points,
                const std::map<std::size_t, PointRecord>& kept)
      : path_(std::move(path)) {
    // Rewritten from what was read (drops a torn last line and any foreign content).
    out_.open(path_, std::ios::binary | std::ios::trunc);
    if (!out_) fail();
    write_line(header_json(fingerprint, points).dump());
    for (const auto& [i, r] : kept) write_line(record_json(r).dump());
  }
  void append(const PointRecord& r) { write_line(record_json(r).dump()); }
  void close_and_remove() {
    out_.close();
    std::remove(path_.c_str());
  }

 private:
  void write_line(const std::string& text) {
    out_ << text << '\n';
    out_.flush();
    if (!out_) fail();
  }
  [[noreturn]] void fail() {
    const int err = errno;
    throw Error(fmt::format("{}: cannot write the sweep checkpoint: {}", path_,
                            err ? std::strerror(err) : "unknown reason"));
  }
  std::string path_;
  std::ofstream out_;
};

// The checkpoint held for the whole sweep: an exclusive flock on the .partial, so a
// second servesim sweeping into the same --out is refused at once instead of sharing
// (and truncating) the first one's checkpoint. Created when absent, and removed again
// when the sweep kept nothing in it.
class PartialLock {
 public:
  explicit PartialLock(const std::string& path) : path_(path) {
    (void)checked_output_target(path_, "--out");  // a regular file or nothing
    for (int attempt = 0; attempt < 8; ++attempt) {
      struct stat before {};
      created_ = ::lstat(path_.c_str(), &before) != 0;
      fd_ = ::open(path_.c_str(), O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0644);
      if (fd_ < 0)
        throw Error(fmt::format("{}: cannot open the sweep checkpoint: {}", path_, os_reason(errno)));
      if (::flock(fd_, LOCK_EX | LOCK_NB) != 0) {
        const int err = errno;
        ::close(fd_);
        fd_ = -1;
        throw Error(err == EWOULDBLOCK
                        ? fmt::format("{}: another servesim is running a sweep into the same --out (it holds this "
                                      "checkpoint); wait for it to finish or choose another --out",
                                      path_)
                        : fmt::format("{}: cannot lock the sweep checkpoint: {}", path_, os_reason(err)));
      }
      // Locked; but the name may have been removed (a finished sweep) and made anew
      // in between: keep the lock only if it is on the file the name names now.
      struct stat held {}, named {};
      if (::fstat(fd_, &held) == 0 && ::stat(path_.c_str(), &named) == 0 && held.st_dev == named.st_dev &&
          held.st_ino == named.st_ino)
        return;
      ::close(fd_);
      fd_ = -1;
    }
    throw Error(fmt::format("{}: the sweep checkpoint keeps being replaced by another process", path_));
  }
  ~PartialLock() {
    if (fd_ < 0) return;
    struct stat st {};
    if (remove_if_empty_ && ::fstat(fd_, &st) == 0 && st.st_size == 0) ::unlink(path_.c_str());
    ::close(fd_);
  }
  PartialLock(const PartialLock&) = delete;
  PartialLock& operator=(const PartialLock&) = delete;
  // On the way out without a point kept: the file this sweep created goes again.
  void remove_if_empty() { remove_if_empty_ = created_; }

 private:
  std::string path_;
  int fd_ = -1;
  bool created_ = false;
  bool remove_if_empty_ = false;
};

}  // namespace

nlohmann::ordered_json record_json(const PointRecord& r) {
  nlohmann::ordered_json cells = nlohmann::ordered_json::array();
  for (std::size_t i = 0; i < r.cells(); ++i) cells.push_back({r.key(i), std::string(r.cell(i))});
  return {{"point", r.index}, {"values", r.values}, {"json", r.json()}, {"csv", cells}};
}

PointRecord record_from_json(const nlohmann::ordered_json& j) {
  PointRecord r;
  r.index = j.at("point").get<std::size_t>();
  r.values = j.at("values").get<std::vector<std::string>>();
  r.json_text = j.at("json").dump();
  std::vector<std::pair<std::string, std::string>> cells;
  for (const auto& c : j.at("csv")) cells.emplace_back(c.at(0).get<std::string>(), c.at(1).get<std::string>());
  r.set_cells(cells);
  return r;
}

std::string sweep_fingerprint(const std::string& scenario_text, const std::vector<std::string>& sets,
                              const std::vector<SweepAxis>& axes) {
  std::string text = fmt::format("v{}\nscenario\n{}\n", kCheckpointVersion, scenario_text);
  for (const auto& s : sets) text += "--set " + s + "\n";
  for (const auto& a : axes) text += "--vary " + a.key + "=" + join(a.values, "\x1f") + "\n";
  return fmt::format("{:016x}", fnv1a64(text));
}

std::string partial_path(const std::string& out) { return out + ".partial"; }

CheckpointedSweep run_sweep_checkpointed(const ConfigNode& base, const std::string& source,
                                         const std::vector<SweepAxis>& axes, const SweepOptions& options,
                                         const std::string& out, const std::string& fingerprint) {
  const std::size_t total = sweep_point_count(axes, options.max_points);
  std::map<std::size_t, PointRecord> records;
  std::optional<PartialLock> lock;
  std::optional<PartialWriter> partial;
  CheckpointedSweep result;
  if (!out.empty()) {
    lock.emplace(partial_path(out));
    lock->remove_if_empty();  // until a point is written into it
    records = read_partial(partial_path(out), fingerprint, total);
    result.resumed = records.size();
  }
  // Opened when the first point finishes, not before: a sweep refused while its
  // points are parsed (a bad --vary) leaves no file behind.
  auto open_partial = [&] {
    if (!out.empty() && !partial) partial.emplace(partial_path(out), fingerprint, total, records);
  };
  SweepOptions opt = options;
  opt.keep_results = false;  // each point lives on as its record only
  opt.skip = [&](std::size_t i) { return records.count(i) > 0; };  // read-only while points run
  std::map<std::size_t, PointRecord> fresh;
  opt.on_point = [&](const PointResult& p) {  // run_sweep serialises the calls
    PointRecord r = point_record(p, axes);
    open_partial();
    if (partial) partial->append(r);
    fresh.emplace(p.index, std::move(r));
  };
  try {
    run_sweep(base, source, axes, opt);
  } catch (const Interrupted&) {
    const std::size_t done = records.size() + fresh.size();
    if (out.empty())
      throw Interrupted(fmt::format("interrupted: {} of {} points done; nothing kept (no --out)", done, total));
    if (done == 0) throw Interrupted(fmt::format("interrupted: 0 of {} points done; nothing kept", total));
    throw Interrupted(fmt::format("interrupted: {} of {} points done, kept in {}; run the same command again to "
                                  "finish the rest",
                                  done, total, partial_path(out)));
  }
  for (auto& [i, r] : fresh) records[i] = std::move(r);
  if (records.size() != total)
    throw Error(fmt::format("internal: the sweep finished {} of {} points", records.size(), total));
  result.records.reserve(total);
  for (auto& [i, r] : records) result.records.push_back(std::move(r));
  if (!out.empty()) {
    open_partial();  // every point came from the .partial: it is removed below
    write_file_atomically(out, ends_with(out, ".json") ? records_json_text(result.records) + "\n"
                                                       : records_csv(result.records, axes));
    partial->close_and_remove();
  }
  return result;
}

}  // namespace servesim::planning
