#include "records/record_writer.h"

#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>

#include "core/common/error.h"
#include "core/common/json_reader.h"

namespace dnnperf::bench {

RecordWriter::RecordWriter(const std::string& path, bool resume, const nlohmann::json& context) : path_(path) {
  namespace fs = std::filesystem;
  std::error_code ec;
  if (fs::is_directory(path, ec)) throw InputError(path + ": is a directory; name a file for the records");
  // Only a regular file holds records to resume; a device (/dev/null, /dev/full) is written to.
  if (fs::is_regular_file(path, ec) && fs::file_size(path) > 0) {
    if (!resume) throw InputError(path + ": exists already; pass --resume to continue it, or choose another output");
    // Keep every complete line; drop a last line an interrupted run left unfinished.
    std::ifstream in(path);
    std::string line, kept;
    int number = 0;
    while (std::getline(in, line)) {
      ++number;
      const bool complete = !in.eof();  // getline stopped at a newline
      nlohmann::json j;
      try {
        j = parse_json(line, path + ":" + std::to_string(number));
      } catch (const InputError&) {
        if (!complete) break;
        throw InputError(path + ":" + std::to_string(number) + ": not a JSON line; the file is not a measurement file");
      }
      if (!complete && !line.empty()) break;
      if (j.value("type", "") == "record") done_.insert(Record::from_json(j, path + ":" + std::to_string(number)).key());
      kept += line + "\n";
    }
    in.close();
    if (kept.size() != fs::file_size(path)) {
      std::ofstream out(path, std::ios::trunc);
      out << kept;
    }
  }
  file_ = std::fopen(path.c_str(), "a");
  if (!file_) throw InputError(path + ": cannot write: " + std::strerror(errno));
  write_line(context.dump());
}

RecordWriter::~RecordWriter() {
  if (file_) std::fclose(file_);
}

void RecordWriter::write(const Record& record) {
  write_line(record.to_json().dump());
  done_.insert(record.key());
}

void RecordWriter::write_line(const std::string& line) {
  const std::string text = line + "\n";
  if (std::fwrite(text.data(), 1, text.size(), file_) != text.size() || std::fflush(file_) != 0)
    throw InputError(path_ + ": write failed: " + std::strerror(errno));
  fsync(fileno(file_));
}

}  // namespace dnnperf::bench
