#pragma once
// How a fitted communication model prices a message: FittedCommModel's parameters
// (profile/comm_model.h, where the forms are written out) over the algorithm's steps
// (comm_steps.h).
#include <cmath>

#include "models/comm/comm_steps.h"
#include "profile/comm_model.h"

namespace dnnperf {

/// Seconds for `bytes` over `ranks` under `model` (or its own model of that rank count), with
/// the 95% interval from the parameters' covariance and the residual spread. Never less than
/// the time over ranks/2, ranks/4, ... (down to 2): monotone along doublings of the ranks, also
/// past the counts the model was fitted to.
CommPrediction comm_prediction(const FittedCommModel& model, double bytes, int ranks);
double comm_seconds(const FittedCommModel& model, double bytes, int ranks);

/// log(time / form) that `model`'s own size corrections give `bytes` over `ranks` (0 without).
double size_correction(const FittedCommModel& model, double bytes, int ranks);

/// `model`'s form with explicit parameters `p` (templated for automatic differentiation);
/// at_ranks unused.
template <typename T>
T comm_seconds_with(const FittedCommModel& model, const T* p, double bytes, int ranks) {
  T total = T(0);
  for (const CommStep& s : allreduce_steps(model.steps_of(bytes, ranks), bytes, ranks)) {
    T step = T(0);
    switch (model.kind) {
      case CommModelKind::hockney:
        step = p[0] + s.bytes * p[1] + s.reduced * p[2];
        break;
      case CommModelKind::loggp: {
        const T transfer = s.bytes * p[2];
        step = p[0] + (p[1] > transfer ? p[1] : transfer) + s.reduced * p[3];
        break;
      }
      case CommModelKind::dnnperf: {
        // A step waits for its peers to be scheduled among all the node's ranks (x), but copies
        // compete only with the step's active ranks (l).
        const double excess = ranks > model.oversubscribed_from ? ranks - model.oversubscribed_from : 0.0;
        const int active = model.active_ranks_load && s.active > 0 ? s.active : ranks;
        const double active_excess = active > model.oversubscribed_from ? active - model.oversubscribed_from : 0.0;
        const double load = model.busiest_core_load && active_excess > 0 ? std::ceil(active / model.oversubscribed_from) - 1 : active_excess;
        const T eager = p[0] + s.bytes * p[1] + (s.bytes >= model.fast_limit ? p[10] : T(0));
        step = ((s.bytes < model.eager_limit ? eager : p[2] + s.bytes * p[3]) +
                (s.bytes > model.cache_bytes ? (s.bytes - model.cache_bytes) * p[4] : T(0)) +
                (s.bytes > model.memory_bytes ? (s.bytes - model.memory_bytes) * p[8] : T(0)) + s.reduced * p[5]) *
                   (T(1.0) + load * p[7]) +
               excess * p[6];
        break;
      }
    }
    total += static_cast<double>(s.count) * step;
  }
  // Time-shared ranks reach the collective at different times: the last to be scheduled holds
  // every other up once per call, however many steps follow.
  if (model.kind == CommModelKind::dnnperf && ranks > model.oversubscribed_from) total += (ranks - model.oversubscribed_from) * p[9];
  return total;
}

}  // namespace dnnperf
