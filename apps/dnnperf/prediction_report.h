#pragma once
// How predict and scale report a prediction: the text table, one JSON object, the scaling sweep's
// table, JSON and CSV. Shared by both commands so that a figure reads the same in each.
#include <ostream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/graph/graph.h"
#include "predictor/prediction/scaling.h"

namespace dnnperf::cli {

/// Milliseconds with three decimals.
std::string ms(double seconds);
std::string sync_name(GradientSync s);
/// The prediction as JSON: totals, memory, and with `layers` every layer's times.
nlohmann::json prediction_json(const Prediction& p, const Graph& g, bool layers);
/// What bounds the step (step_limit.h) into a prediction's JSON: "bound" and "bound_parts_s".
void add_step_limit(nlohmann::json& j, const StepLimit& limit);
/// The same as one line of the text report.
void print_step_limit(std::ostream& out, const StepLimit& limit);
/// Memory per device by part, and DOES NOT FIT with the shortfall.
void print_memory(std::ostream& out, const Prediction& p);
/// The per-layer table (unless `summary`), the totals and memory.
void print_prediction(std::ostream& out, const Prediction& p, const Graph& g, bool summary);

}  // namespace dnnperf::cli
