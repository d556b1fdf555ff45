#pragma once
// How `dnnperf schedule` reports: every method's schedule as JSON (placements, stages, its ratio to
// the lower bound, the checker's verdict), the comparison table, the files (-o, --gantt), and the
// symmetric multi-server comparison (--method symmetric).
#include <cstdint>
#include <ostream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/graph/graph.h"
#include "scheduler/bounds.h"
#include "scheduler/platform.h"
#include "scheduler/schedule.h"
#include "scheduler/task_graph.h"

namespace dnnperf::cli {

/// Seconds as s, ms or us with the unit.
std::string time_text(double s);
/// One method's schedule; `problems` the checker's findings (empty: valid).
nlohmann::json schedule_json(const Schedule& s, const TaskGraph& g, const Platform& p, double bound, const std::vector<std::string>& problems);
/// The checker's findings for each of `results` (empty: valid, or nothing found).
std::vector<std::vector<std::string>> check_schedules(const TaskGraph& tasks, const Platform& platform, const std::vector<Schedule>& results);
/// The whole result: network, platform, tasks, the bound and every method with its verdict
/// (`problems`, as check_schedules gives them).
nlohmann::json schedule_document(const Graph& graph, const Platform& platform, const TaskGraph& tasks, int ops, const std::string& objective_name,
                                 std::int64_t batch, const LowerBound& bound, double lb, const std::vector<Schedule>& results,
                                 const std::vector<std::vector<std::string>>& problems);
/// Writes `doc` to `output` (or beside `gantt`) and draws the Gantt chart; nothing when both are empty.
void write_schedule_files(const nlohmann::json& doc, const std::string& output, const std::string& gantt);
/// The methods' comparison table; a schedule the checker rejected (`problems`) is marked invalid.
void print_schedules(std::ostream& out, const std::string& network, std::int64_t batch, int ops, const TaskGraph& tasks, const Platform& platform,
                     const std::string& objective_name, Objective objective, const LowerBound& bound, double lb, const std::vector<Schedule>& results,
                     const std::vector<std::vector<std::string>>& problems);
/// --method symmetric: layers onto servers, against the same server-level problem without symmetry.
void run_symmetric(std::ostream& out, const TaskGraph& tasks, const Platform& platform, Objective objective, const std::string& objective_name, double time_limit_s,
                   const std::string& output, bool json);

}  // namespace dnnperf::cli
