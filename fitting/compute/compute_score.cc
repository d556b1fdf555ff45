#include "fitting/compute/compute_score.h"

#include <algorithm>
#include <cmath>
#include <map>

#include "core/common/error.h"
#include "models/compute/profile_model.h"

namespace dnnperf::fitting {
namespace {

struct Tally {
  std::vector<std::pair<double, double>> pairs;  // measured, predicted
  int inside = 0;
  double measured = 0, predicted = 0;
  std::map<std::string, int> priced_by;

  void add(double measured_s, double predicted_s, std::pair<double, double> interval, const std::string& by) {
    pairs.emplace_back(measured_s, predicted_s);
    inside += measured_s >= interval.first && measured_s <= interval.second;
    measured += measured_s;
    predicted += predicted_s;
    ++priced_by[by];
  }

  ClassScore score(const std::string& cls) const {
    ClassScore s;
    s.kernel_class = cls;
    s.errors = error_stats(pairs, inside);
    s.measured_seconds = measured;
    s.predicted_seconds = predicted;
    int most = 0;
    for (const auto& [by, n] : priced_by)
      if (n > most) most = n, s.priced_by = by;
    return s;
  }
};

}  // namespace

std::vector<ClassScore> score_compute(const HardwareProfile& profile, const ComputeData& data, std::vector<ScoredKernel>* kernels) {
  // Each record is priced in the math it ran in, whatever framework calibrated the profile: fp32
  // convolutions on TF32 tensor cores where the records' context says so (PyTorch's default), in
  // FP32 where not (bench's f32, cuDNN's FMA math).
  HardwareProfile priced = profile;
  if (data.fp32_conv_tf32) {
    if (*data.fp32_conv_tf32 && !profile.device.peak_flops.count(MathMode::tf32_tensor))
      throw InputError("the records ran fp32 convolutions on TF32 tensor cores (their context: torch.backends.cudnn.allow_tf32), but profile '" +
                       profile.name + "' lists no device.peak_flops.tf32_tensor to price them with");
    const MathMode ran = *data.fp32_conv_tf32 ? MathMode::tf32_tensor : MathMode::fp32;
    if (ran != profile.device.fp32_conv_math) {
      // Its fp32 convolution regressions were fitted in the other math: the family prices these.
      std::erase_if(priced.compute_regression, [](const RegressionModel& m) {
        return m.dtype == DType::f32 && m.kernel_class.rfind("conv_", 0) == 0;
      });
      priced.device.fp32_conv_math = ran;
    }
  }
  const ProfileComputeModel model(priced);
  std::vector<std::string> order;
  std::map<std::string, Tally> tallies;
  Tally all;
  const DeviceSpec& device = priced.device;
  // A time bracketed with its launch (ComputeSample::bracketed) holds the host's part of the
  // bracket (fitting/compute/gpu_fit.h); the model prices the kernel.
  const double offset = device.gpu.enabled ? data.bracket_s : 0.0;
  std::vector<const ComputeSample*> samples;
  for (const ComputeSample& s : data.samples) samples.push_back(&s);
  for (const ComputeSample& s : data.tf32_samples) samples.push_back(&s);
  for (const ComputeSample* sample : samples) {
    const ComputeSample& s = *sample;
    const ExecutionOptions options{s.tf32};
    const double added = s.bracketed ? offset : 0.0;
    const double predicted = model.seconds(s.kernel, options) + added;
    std::pair<double, double> interval = model.interval(s.kernel, options);
    interval.first += added, interval.second += added;
    std::string by(model.priced_by(s.kernel));
    if (s.tf32) by += " tf32";
    // Convolutions priced as per-image GEMMs are a population of their own: scored apart.
    const std::string cls = s.kernel_class + (by.rfind("GEMMs", 0) == 0 ? " as GEMMs" : "") + (s.tf32 ? " tf32" : "");
    if (!tallies.count(cls)) order.push_back(cls);
    tallies[cls].add(s.seconds, predicted, interval, by);
    all.add(s.seconds, predicted, interval, by);
    if (kernels) kernels->push_back({&s, by, predicted, interval.first, interval.second});
  }
  std::vector<ClassScore> out;
  for (const std::string& cls : order) out.push_back(tallies.at(cls).score(cls));
  if (!data.samples.empty()) out.push_back(all.score("all"));
  return out;
}

}  // namespace dnnperf::fitting
