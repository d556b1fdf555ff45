#pragma once
// Which kernels a fitted model tends to get wrong together.
//
// A profile's error on one kernel is not independent of its error on the next: a network's 1x1
// convolutions of one size are all off by much the same factor, while its 3x3 ones are off by
// another. A network's time is a sum, so those shared errors add up where independent ones
// average out. dnnperf splits each kernel class's held-out log error into a part shared by a
// family of similar kernels (`shared_sigma`, estimated at fit time by one-way random-effects
// analysis of the held-out errors grouped by family) and the kernel's own rest
// (predictor/prediction/predict.cc adds them up into an iteration's interval).
//
// A family is the kernel class with the shape traits that pick a library's code path — window,
// stride, grouping, transposes, a degenerate dimension — and the decade of its work.
#include <string>

#include "core/lowering/kernel.h"

namespace dnnperf {

std::string error_family(const Kernel& kernel);

}  // namespace dnnperf
