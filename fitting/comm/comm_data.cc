#include "fitting/comm/comm_data.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <numeric>
#include <set>
#include <tuple>

#include "records/measurement.h"
#include "core/common/error.h"
#include "core/common/json_reader.h"
#include "profile/hardware_profile.h"

namespace dnnperf::fitting {

RunNoise run_noise(const std::vector<CommSample>& samples) {
  RunNoise n;
  for (const CommSample& s : samples)
    if (s.runs > 1) n.mean_percent += 100 * s.run_spread, ++n.points;
  if (n.points) n.mean_percent /= n.points;
  return n;
}

CommData load_comm_data(const std::vector<std::string>& files, const std::string& collective) {
  CommData data;
  std::set<std::string> hosts;
  // Where each point was first seen, its sample, and the times of its runs (one per file).
  struct Seen {
    std::string where, file, where_in_file;  // first record; the latest run's file and record
    std::size_t sample = 0;
    std::vector<double> runs;
  };
  std::map<std::tuple<std::string, CommMode, double, int>, Seen> seen;
  for (const std::string& file : files) {
    bench::RecordStream records(file);
    while (const bench::Record* record = records.next()) {
      const bench::Record& r = *record;
      const std::size_t i = records.index();
      if (r.op != collective) continue;
      const std::string where = file + " record " + std::to_string(i + 1);
      if (r.status != "ok" || !r.timing) {
        data.excluded.push_back({where, "status " + r.status + (r.reason.empty() ? "" : ": " + r.reason)});
        continue;
      }
      const double t = r.timing->median;
      if (!std::isfinite(t) || t <= 0) {
        data.excluded.push_back({where, "time is not a positive number"});
        continue;
      }
      if (!r.params.contains("bytes") || !r.layout.contains("ranks")) {
        data.excluded.push_back({where, "no bytes or ranks"});
        continue;
      }
      CommSample s;
      s.algorithm = r.algorithm == "mpi:default" ? "default" : r.algorithm.rfind("dnnperf:", 0) == 0 ? r.algorithm.substr(8) : r.algorithm;
      // read_records has checked that params hold no negative numbers; a message still needs bytes.
      const nlohmann::json& ranks = r.layout["ranks"];
      if (!r.params["bytes"].is_number() || r.params["bytes"].get<double>() <= 0 || !ranks.is_number_integer() ||
          json_integer(ranks, where + " layout.ranks") < 1 || ranks.get<std::int64_t>() > kMaxRanks) {
        data.excluded.push_back({where, "bytes must be a positive number and ranks an integer in [1, " + std::to_string(kMaxRanks) + "]"});
        continue;
      }
      if (r.layout.contains("mode")) {
        const nlohmann::json& mode = r.layout["mode"];
        const std::optional<CommMode> parsed = mode.is_string() ? parse_comm_mode(mode.get<std::string>()) : std::nullopt;
        if (!parsed) {
          data.excluded.push_back({where, "layout.mode must be isolated or stream, is " + mode.dump()});
          continue;
        }
        s.mode = *parsed;
      }
      s.bytes = r.params["bytes"].get<double>();
      s.ranks = ranks.get<int>();
      s.seconds = t;
      // What the benchmark recorded about the system, where it could: 0 when absent.
      std::string bad;
      const auto known = [&](const char* field) {
        if (!r.layout.contains(field)) return 0.0;
        const nlohmann::json& v = r.layout[field];
        if (!v.is_number() || v.get<double>() <= 0) bad = bad.empty() ? field : bad;
        return v.is_number() ? v.get<double>() : 0.0;
      };
      if (r.layout.contains("mpi_threads") && r.layout["mpi_threads"].is_string()) s.mpi_threads = r.layout["mpi_threads"].get<std::string>();
      s.eager_limit = known("eager_limit");
      s.nodes = static_cast<int>(known("nodes"));
      s.cpus_per_node = static_cast<int>(known("cpus_per_node"));
      if (!bad.empty()) {
        data.excluded.push_back({where, "layout." + bad + " is not a positive number"});
        continue;
      }
      if (s.ranks < 2) {
        data.excluded.push_back({where, "one rank: nothing is communicated"});
        continue;
      }
      const auto key = std::make_tuple(s.algorithm, s.mode, s.bytes, s.ranks);
      if (const auto it = seen.find(key); it != seen.end()) {
        Seen& first = it->second;
        CommSample& f = data.samples[first.sample];
        // Layout fields a record lacks (0) are unknown, not different: older records did not carry them.
        const auto clash = [](double a, double b) { return a > 0 && b > 0 && a != b; };
        if (first.file == file) {
          data.excluded.push_back({where + " (a repeat of " + first.where_in_file + ")", "measured again in the same file: the first record is kept"});
        } else if (clash(s.eager_limit, f.eager_limit) || clash(s.nodes, f.nodes) || clash(s.cpus_per_node, f.cpus_per_node) ||
                   (!s.mpi_threads.empty() && !f.mpi_threads.empty() && s.mpi_threads != f.mpi_threads)) {
          data.excluded.push_back({where, "a run of " + first.where + " on another layout (eager limit, nodes, CPUs or MPI thread level)"});
        } else {
          f.eager_limit = std::max(f.eager_limit, s.eager_limit);
          f.nodes = std::max(f.nodes, s.nodes);
          f.cpus_per_node = std::max(f.cpus_per_node, s.cpus_per_node);
          if (f.mpi_threads.empty()) f.mpi_threads = s.mpi_threads;
          first.runs.push_back(t);
          first.file = file;
          first.where_in_file = where;
          hosts.insert(r.host);
        }
        continue;
      }
      seen[key] = {where, file, where, data.samples.size(), {t}};
      hosts.insert(r.host);
      data.samples.push_back(s);
    }
  }
  for (auto& [key, point] : seen) {
    if (point.runs.size() < 2) continue;
    CommSample& s = data.samples[point.sample];
    const bench::Timing runs = bench::summarize(point.runs);  // the runs as one record's repetitions
    const double mean = std::accumulate(point.runs.begin(), point.runs.end(), 0.0) / static_cast<double>(point.runs.size());
    s.seconds = runs.median;
    s.runs = runs.repetitions;
    s.run_spread = (runs.max - runs.min) / mean;
  }
  std::set<std::string> levels;
  for (const CommSample& s : data.samples)
    if (!s.mpi_threads.empty()) levels.insert(s.mpi_threads);
  if (levels.size() > 1) {
    std::string list;
    for (const auto& l : levels) list += (list.empty() ? "" : ", ") + l;
    throw InputError("the measurements ran at several MPI thread levels (" + list +
                     "), which price small calls differently; fit or score one level at a time (bench --mpi-threads)");
  }
  if (hosts.size() > 1) {
    std::string list;
    for (const auto& h : hosts) list += (list.empty() ? "" : ", ") + h;
    throw InputError("the measurements come from several systems (" + list + "); fit one system at a time");
  }
  if (!hosts.empty()) data.host = *hosts.begin();
  return data;
}

void log_exclusions(std::ostream& log, const std::vector<Exclusion>& excluded, std::size_t most) {
  std::map<std::string, std::pair<std::string, std::size_t>> by_reason;  // reason -> first where, count
  std::vector<std::string> reasons;
  for (const Exclusion& e : excluded) {
    auto [it, fresh] = by_reason.try_emplace(e.reason, e.where, 0);
    if (fresh) reasons.push_back(e.reason);
    ++it->second.second;
  }
  for (std::size_t i = 0; i < reasons.size() && i < most; ++i) {
    const auto& [where, count] = by_reason.at(reasons[i]);
    log << "excluded: " << where << (count > 1 ? " and " + std::to_string(count - 1) + " more" : "") << ": " << reasons[i] << "\n";
  }
  if (reasons.size() > most) log << "excluded: " << reasons.size() - most << " more reasons\n";
}

}  // namespace dnnperf::fitting
