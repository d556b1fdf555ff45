#pragma once
// Convolutions timed inside real steps and alone (scripts/torch_step_warmth.py), priced with a
// fitted profile: the observations fitting/compute/realized_share_fit.h fits the share of the
// step warmth's savings that steps realize on.
#include <array>
#include <string>
#include <vector>

#include "validation/ground_truth.h"
#include "fitting/compute/realized_share_fit.h"
#include "profile/hardware_profile.h"

namespace dnnperf {

struct InStepWarmth {
  /// Per kind: [0] training steps, [1] inferences.
  std::array<std::vector<fitting::InStepObservation>, 2> observations;
  std::vector<std::string> skipped;  // records not used, with why
};

/// Reads `file`'s step_warmth records and prices each convolution in the step it ran in: lowered
/// from its network at its batch, replayed through `fitted`'s step cache (StepCacheState::resident), its
/// cold time, the savings of `fitted`'s step warmth with the whole of them realized, and its
/// operand bytes beyond the cold timings' reach (StepCacheState::far_bytes). Network
/// files that are not where a record names them are looked for in `networks_dir` by file name;
/// `loaded` keeps the networks between calls. Throws InputError naming the file, line and field of
/// a malformed record; `fitted` must have its warmth enabled.
InStepWarmth in_step_warmth(const HardwareProfile& fitted, const std::string& file, const std::string& networks_dir, StepNetworks& loaded);

}  // namespace dnnperf
