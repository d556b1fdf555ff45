#pragma once
// RecordWriter: appends measurement records to a JSON Lines file, one flushed and synced line at a
// time, so that whatever stops a run (a budget, Ctrl-C, a dead rank) leaves a valid file with
// everything measured so far. With resume, records already in the file are not measured again.
#include <cstdio>
#include <set>
#include <string>

#include "records/measurement.h"

namespace dnnperf::bench {

class RecordWriter {
 public:
  /// Opens `path`. Without `resume`, an existing non-empty file is an InputError (never
  /// overwritten); with it, the file's records are loaded as done, and a last line cut short by
  /// an interrupted run is removed. Writes `context` as the run's first line.
  RecordWriter(const std::string& path, bool resume, const nlohmann::json& context);
  ~RecordWriter();
  RecordWriter(const RecordWriter&) = delete;
  RecordWriter& operator=(const RecordWriter&) = delete;

  /// True if a record with this key is in the file already.
  bool done(const std::string& key) const { return done_.count(key) > 0; }
  std::size_t done_count() const { return done_.size(); }
  void write(const Record& record);
  const std::string& path() const { return path_; }

 private:
  void write_line(const std::string& line);

  std::string path_;
  std::FILE* file_ = nullptr;
  std::set<std::string> done_;
};

}  // namespace dnnperf::bench
