#include "fitting/compute/gpu_fit.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <functional>
#include <map>
#include <memory>

#include "core/common/error.h"
#include "fitting/ceres_solve.h"
#include "models/compute/gpu/gpu_compute_model.h"

namespace dnnperf::fitting {
namespace {

/// One fitted parameter: where it lives in GpuKernelParams and its physical range. Fitted as the
/// log of its value, so that every bound is a ratio and every step relative.
struct Slot {
  std::string name;
  std::function<double&(GpuKernelParams&)> ref;
  double low = 0, high = 0;
  double start = 0;  // where a fit starts that the base profile leaves at a bound or lacks; 0: the range's middle
};

constexpr int kConvDirections = 3;

/// The parameter slots, in a fixed order, and which of them each sample's price depends on.
struct Layout {
  std::vector<Slot> slots;
  std::vector<std::vector<int>> of_sample;
};

int alignment_class(const DeviceSpec& device, const ComputeSample& s) {
  const Kernel& k = s.kernel;
  const int by = dtype_bytes(k.dtype);
  if (k.cls == KernelClass::gemm) return gemm_alignment_bytes(k.gemm, by);
  GemmShape channels;
  const std::int64_t groups = std::max<std::int64_t>(k.conv.groups, 1);
  channels.m = channels.n = k.conv.k / groups;
  channels.k = k.conv.c / groups;
  (void)device;
  return gemm_alignment_bytes(channels, by);
}

bool tiled(const Kernel& k) { return k.cls == KernelClass::gemm || (k.cls == KernelClass::conv && !thin_group_conv(k.conv)); }

/// Which maths the samples time GEMMs and (tiled) convolutions in. A math with convolutions but no
/// GEMM fits the convolutions' own k-loop (GpuKernelParams::conv_loop), which says nothing of the
/// math's GEMMs; with both, the two share the math's.
struct MathUse {
  std::array<bool, kGpuMaths> gemm{}, conv{};
  bool conv_only(std::size_t m) const { return conv[m] && !gemm[m]; }
};

MathUse math_use(const GpuComputeModel& model, const std::vector<const ComputeSample*>& samples) {
  MathUse use;
  for (const ComputeSample* s : samples) {
    if (!tiled(s->kernel)) continue;
    const auto m = static_cast<std::size_t>(model.math(s->kernel, ExecutionOptions{s->tf32}));
    (s->kernel.cls == KernelClass::gemm ? use.gemm : use.conv)[m] = true;
  }
  return use;
}

Layout layout_for(const DeviceSpec& device, const GpuComputeModel& model, const std::vector<const ComputeSample*>& samples, const MathUse& use) {
  Layout l;
  std::map<std::string, int> index;
  const auto slot = [&](const std::string& name, std::function<double&(GpuKernelParams&)> ref, double low, double high, double start = 0) {
    auto [it, fresh] = index.try_emplace(name, static_cast<int>(l.slots.size()));
    if (fresh) l.slots.push_back({name, std::move(ref), low, high, start});
    return it->second;
  };
  for (const ComputeSample* s : samples) {
    std::vector<int> used;
    const Kernel& k = s->kernel;
    // DRAM's rate is the streams' (fit_staged): a tiled kernel prices its operands at it.
    if (!tiled(k)) used.push_back(slot("dram_efficiency", [](GpuKernelParams& p) -> double& { return p.dram_efficiency; }, 0.2, 1.0));
    if (tiled(k)) {
      if (k.cls == KernelClass::gemm)
        used.push_back(slot("kernel_min_s", [](GpuKernelParams& p) -> double& { return p.kernel_min_s; }, 5e-7, 3e-5));
      const ExecutionOptions options{s->tf32};
      const GpuMath math = model.math(k, options);
      const auto m = static_cast<std::size_t>(math);
      // A convolution in a math no GEMM here runs in fits the convolutions' own k-loop (engaged by
      // fit_gpu_kernels before any slot is read).
      const bool own = k.cls == KernelClass::conv && use.conv_only(m);
      const std::string name = (own ? "conv_loop." : "math.") + std::string(gpu_math_name(math));
      const auto loop = [m, own](GpuKernelParams& p) -> GpuMathParams& { return own ? *p.conv_loop[m] : p.math[m]; };
      used.push_back(slot(name + ".max_efficiency", [loop](GpuKernelParams& p) -> double& { return loop(p).max_efficiency; }, 0.02, 1.0));
      used.push_back(slot(name + ".tile_fixed_s", [loop](GpuKernelParams& p) -> double& { return loop(p).tile_fixed_s; }, 1e-8, 2e-5));
      used.push_back(slot(name + ".operand_bandwidth", [loop](GpuKernelParams& p) -> double& { return loop(p).operand_bandwidth; }, 1e12, 1e14));
      used.push_back(slot(name + ".k_step_min_s", [loop](GpuKernelParams& p) -> double& { return loop(p).k_step_min_s; }, 1e-10, 2.5e-7));
      const int a = alignment_class(device, *s);
      if (a < 16) {
        const int i = a >= 8 ? 0 : a >= 4 ? 1 : 2;
        const std::string which = std::to_string(a >= 8 ? 8 : a >= 4 ? 4 : 2);
        used.push_back(slot(name + ".misaligned_efficiency[" + which + " bytes]",
                            [loop, i](GpuKernelParams& p) -> double& { return loop(p).misaligned_efficiency[static_cast<std::size_t>(i)]; }, 0.01, 1.0));
      }
      if (k.cls == KernelClass::conv) {
        const int d = std::min(static_cast<int>(k.phase), kConvDirections - 1);
        const std::string dir = "conv." + std::string(phase_name(k.phase));
        used.push_back(slot(dir + ".efficiency", [d](GpuKernelParams& p) -> double& { return p.conv[static_cast<std::size_t>(d)].efficiency; }, 0.05, 2.0));
        used.push_back(slot(dir + ".tile_fixed_s", [d](GpuKernelParams& p) -> double& { return p.conv[static_cast<std::size_t>(d)].tile_fixed_s; }, 1e-9, 5e-5));
        used.push_back(slot(dir + ".fixed_s", [d](GpuKernelParams& p) -> double& { return p.conv[static_cast<std::size_t>(d)].fixed_s; }, 5e-7, 2e-4));
      }
    } else {
      used.push_back(slot("pass_min_s", [](GpuKernelParams& p) -> double& { return p.pass_min_s; }, 2e-7, 3e-5));
      if (!tiled(k) && k.cls != KernelClass::conv)
        used.push_back(slot("l2_speedup", [](GpuKernelParams& p) -> double& { return p.l2_speedup; }, 1.0, 8.0, 1.5));
      if (k.cls == KernelClass::conv) {
        const int d = std::min(static_cast<int>(k.phase), kConvDirections - 1);
        used.push_back(slot("conv." + std::string(phase_name(k.phase)) + ".thin_group_efficiency",
                            [d](GpuKernelParams& p) -> double& { return p.conv[static_cast<std::size_t>(d)].thin_group_efficiency; }, 0.002, 1.0, 0.05));
      }
      const std::string key(gpu_pass_key(k));
      if (!key.empty()) {
        used.push_back(slot("pass_efficiency." + key, [key](GpuKernelParams& p) -> double& { return p.pass_efficiency[key]; }, 0.02, 2.0));
        used.push_back(slot("pass_kernels." + key, [key](GpuKernelParams& p) -> double& { return p.pass_kernels[key]; }, 1.0, 64.0, 1.0));
      }
    }
    l.of_sample.push_back(std::move(used));
  }
  return l;
}

/// A sample's log error as a function of its slots' log values.
struct SampleResidual {
  const DeviceSpec* device;
  const ComputeSample* sample;
  const std::vector<Slot>* slots;
  std::vector<int> used;
  double bracket_s;
  double scale;  // the sample's weight's square root
  mutable GpuKernelParams params;  // the start, with the slots overwritten at each evaluation

  bool operator()(double const* const* x, double* residual) const {
    for (std::size_t i = 0; i < used.size(); ++i) (*slots)[static_cast<std::size_t>(used[i])].ref(params) = std::exp(x[i][0]);
    const double t = gpu_sample_seconds(*device, params, *sample, bracket_s);
    residual[0] = scale * std::log(t / sample->seconds);
    return std::isfinite(residual[0]);
  }
};

/// Fits the slots the samples inform, from `start`; returns the fitted parameters.
GpuKernelParams fit_once(const DeviceSpec& device, const GpuKernelParams& start, const std::vector<const ComputeSample*>& samples,
                         const Layout& layout, const std::vector<double>& weights, const std::vector<std::size_t>& which, double bracket_s,
                         SolveResult* result) {
  std::vector<double> x(layout.slots.size());
  std::vector<bool> in_problem(x.size(), false);
  for (const std::size_t i : which)
    for (const int s : layout.of_sample[i]) in_problem[static_cast<std::size_t>(s)] = true;
  // Only the slots this fit moves take their starting values: a slot another stage fitted to its
  // bound keeps that value.
  GpuKernelParams start_copy = start;
  for (std::size_t i = 0; i < x.size(); ++i) {
    const Slot& s = layout.slots[i];
    double& v = s.ref(start_copy);
    if (in_problem[i] && s.start > 0 && !(v > s.low && v < s.high)) v = s.start;
    if (!(v > 0)) v = std::sqrt(s.low * s.high);  // a pass family the start lacks
    x[i] = std::log(std::clamp(v, s.low, s.high));
  }
  ceres::Problem problem;
  for (const std::size_t i : which) {
    auto* functor = new SampleResidual{&device, samples[i], &layout.slots, layout.of_sample[i], bracket_s, std::sqrt(weights[i]), start_copy};
    auto* cost = new ceres::DynamicNumericDiffCostFunction<SampleResidual, ceres::CENTRAL>(functor);
    std::vector<double*> blocks;
    for (const int s : layout.of_sample[i]) {
      cost->AddParameterBlock(1);
      blocks.push_back(&x[static_cast<std::size_t>(s)]);
    }
    cost->SetNumResiduals(1);
    problem.AddResidualBlock(cost, new ceres::SoftLOneLoss(0.1), blocks);
  }
  for (std::size_t i = 0; i < x.size(); ++i) {
    if (!in_problem[i]) continue;
    problem.SetParameterLowerBound(&x[i], 0, std::log(layout.slots[i].low));
    problem.SetParameterUpperBound(&x[i], 0, std::log(layout.slots[i].high));
  }
  *result = solve_quietly(problem, 150);
  GpuKernelParams out = start_copy;
  for (std::size_t i = 0; i < x.size(); ++i)
    if (in_problem[i]) layout.slots[i].ref(out) = std::exp(x[i]);
  return out;
}

/// Two fits in turn: the memory passes first, which alone fix DRAM's rate as a stream benchmark
/// does; then the GEMMs and convolutions at that rate. One fit of both let the convolutions' DRAM
/// floor pull DRAM's rate down to make slow convolutions slower (H200, PyTorch's records: 69% of
/// the datasheet against the copies' 92%), and the passes then came out 47% slow.
GpuKernelParams fit_staged(const DeviceSpec& device, const GpuKernelParams& start, const std::vector<const ComputeSample*>& samples,
                           const Layout& layout, const std::vector<double>& weights, const std::vector<std::size_t>& which, double bracket_s,
                           SolveResult* result) {
  std::vector<std::size_t> streams, matrices;
  for (const std::size_t i : which) (tiled(samples[i]->kernel) ? matrices : streams).push_back(i);
  GpuKernelParams p = start;
  SolveResult first, second;
  if (!streams.empty()) p = fit_once(device, p, samples, layout, weights, streams, bracket_s, &first);
  if (!matrices.empty()) p = fit_once(device, p, samples, layout, weights, matrices, bracket_s, &second);
  const bool both = !streams.empty() && !matrices.empty();
  *result = streams.empty() ? second : first;
  if (both) {
    result->converged = first.converged && second.converged;
    if (!first.converged) result->message = first.message;
    else if (!second.converged) result->message = second.message;
  }
  return p;
}

double bias_of(const std::vector<std::pair<double, double>>& pairs) {
  double measured = 0, predicted = 0;
  for (const auto& [m, p] : pairs) measured += m, predicted += p;
  return measured > 0 ? predicted / measured - 1 : 0.0;
}

}  // namespace

std::string gpu_report_class(const DeviceSpec& device, const ComputeSample& s) {
  const Kernel& k = s.kernel;
  const std::string cls = calibration_class(k);
  if (k.cls != KernelClass::gemm && k.cls != KernelClass::conv) return cls;
  if (!tiled(k)) return cls + " depthwise";
  DeviceSpec d = device;
  d.gpu.enabled = true;
  return cls + " " + std::string(gpu_math_name(GpuComputeModel(d).math(k, ExecutionOptions{s.tf32})));
}

double gpu_sample_seconds(const DeviceSpec& device, const GpuKernelParams& params, const ComputeSample& s, double bracket_s) {
  const GpuComputeModel model(device);
  const double t = model.cost_with(params, s.kernel, ExecutionOptions{s.tf32}).seconds;
  return s.bracketed ? t + bracket_s : t;
}

GpuFit fit_gpu_kernels(const DeviceSpec& base, const ComputeData& data) {
  if (base.kind != "gpu") throw InputError("the GPU kernel family fits GPU measurements, and the base profile's device is a " + base.kind);
  DeviceSpec device = base;
  if (!device.gpu.enabled) device.gpu.enabled = true;  // GpuKernelParams' defaults start the fit
  std::vector<const ComputeSample*> samples;
  for (const ComputeSample& s : data.samples)
    if (s.kernel_class != "per_image_gemm") samples.push_back(&s);
  for (const ComputeSample& s : data.tf32_samples) samples.push_back(&s);
  if (samples.empty()) throw InputError("no GEMM, convolution or memory-pass measurement to fit the GPU kernel family to");
  bool bracketed = false;
  for (const ComputeSample* s : samples) bracketed |= s->bracketed;
  if (bracketed && !(data.bracket_s > 0))
    throw InputError("records timed by dnnperf bench's GPU programs include the host's launch in their times, and no launch record of one kernel "
                     "says how long that is: give the launch records of the same run (launch.jsonl) with the others");
  const GpuComputeModel model(device);
  // Convolutions share their math's k-loop with the GEMMs timed beside them; alone in a math, they
  // fit a k-loop of their own, starting from the base's.
  const MathUse use = math_use(model, samples);
  for (std::size_t m = 0; m < use.conv.size(); ++m) {
    auto& loop = device.gpu.conv_loop[m];
    if (use.conv_only(m)) loop = loop.value_or(device.gpu.math[m]);
    else if (use.conv[m]) loop.reset();
  }
  const Layout layout = layout_for(device, model, samples, use);
  const std::vector<double> weights(samples.size(), 1.0);  // log errors alike: per-kernel accuracy first
  GpuFit fit;
  fit.samples = static_cast<int>(samples.size());
  std::vector<std::size_t> all(samples.size());
  for (std::size_t i = 0; i < all.size(); ++i) all[i] = i;
  SolveResult solved;
  fit.params = fit_staged(device, device.gpu, samples, layout, weights, all, data.bracket_s, &solved);
  fit.params.enabled = true;
  fit.converged = solved.converged;
  fit.message = solved.message;
  // Held out: each fold's shapes priced by a fit on the others, from the same start.
  std::vector<ComputeSample> copies;
  for (const ComputeSample* s : samples) copies.push_back(*s);
  const std::vector<int> fold = shape_folds(copies, true);
  std::vector<double> held_out(samples.size(), 0);
  for (int f = 0; f < 5; ++f) {
    std::vector<std::size_t> train;
    for (std::size_t i = 0; i < samples.size(); ++i)
      if (fold[i] != f) train.push_back(i);
    SolveResult r;
    const GpuKernelParams p = fit_staged(device, device.gpu, samples, layout, weights, train, data.bracket_s, &r);
    for (std::size_t i = 0; i < samples.size(); ++i)
      if (fold[i] == f) held_out[i] = gpu_sample_seconds(device, p, *samples[i], data.bracket_s);
  }
  std::vector<std::string> order;
  std::map<std::string, std::vector<std::pair<double, double>>> out_pairs, in_pairs;
  std::map<std::string, std::vector<double>> log_errors;  // per calibration class, held out
  std::map<std::string, std::pair<double, double>> sums;
  std::map<std::string, std::vector<std::pair<double, double>>> by_calibration_class;
  for (std::size_t i = 0; i < samples.size(); ++i) {
    const ComputeSample& s = *samples[i];
    const std::string cls = gpu_report_class(device, s);
    if (!out_pairs.count(cls)) order.push_back(cls);
    out_pairs[cls].emplace_back(s.seconds, held_out[i]);
    out_pairs["all"].emplace_back(s.seconds, held_out[i]);
    by_calibration_class[calibration_class(s.kernel)].emplace_back(s.seconds, held_out[i]);
    const double in = gpu_sample_seconds(device, fit.params, s, data.bracket_s);
    in_pairs[cls].emplace_back(s.seconds, in);
    in_pairs["all"].emplace_back(s.seconds, in);
    // Intervals are of the kernel's own time: the bracket is the measurement's, not the kernel's.
    const double offset = s.bracketed ? data.bracket_s : 0.0;
    if (s.seconds > offset && held_out[i] > offset) {
      const std::string calibration = calibration_class(s.kernel);
      log_errors[calibration].push_back(std::log((held_out[i] - offset) / (s.seconds - offset)));
      sums[calibration].first += held_out[i] - offset;
      sums[calibration].second += s.seconds - offset;
    }
  }
  order.push_back("all");
  for (const auto& [cls, pairs] : by_calibration_class) fit.held_out_by_class[cls] = error_stats(pairs, 0);
  for (const std::string& cls : order)
    fit.classes.push_back({cls, error_stats(out_pairs[cls], 0), bias_of(out_pairs[cls]), error_stats(in_pairs[cls], 0)});
  fit.params.residual_sigma.clear();
  fit.params.shared_sigma.clear();
  for (const auto& [cls, errors] : log_errors) {
    double squares = 0;
    for (const double e : errors) squares += e * e;
    const double sigma = std::sqrt(squares / static_cast<double>(errors.size()));
    fit.params.residual_sigma[cls] = sigma;
    fit.params.shared_sigma[cls] = std::min(sigma, std::abs(std::log(sums[cls].first / sums[cls].second)));
  }
  // What no record informed keeps the start's value: say which.
  std::vector<bool> informed(layout.slots.size(), false);
  for (const auto& used : layout.of_sample)
    for (const int s : used) informed[static_cast<std::size_t>(s)] = true;
  for (const GpuMath m : kAllGpuMaths) {
    const std::string name = "math." + std::string(gpu_math_name(m)) + ".max_efficiency";
    if (std::none_of(layout.slots.begin(), layout.slots.end(), [&](const Slot& s) { return s.name == name; }))
      fit.not_fitted.push_back("math." + std::string(gpu_math_name(m)));
  }
  for (const GpuMath m : kAllGpuMaths)
    if (fit.params.conv_loop[static_cast<std::size_t>(m)] && !use.conv_only(static_cast<std::size_t>(m)))
      fit.not_fitted.push_back("conv_loop." + std::string(gpu_math_name(m)));
  for (const Phase phase : {Phase::forward, Phase::backward_data, Phase::backward_weight}) {
    const std::string name = "conv." + std::string(phase_name(phase)) + ".efficiency";
    if (std::none_of(layout.slots.begin(), layout.slots.end(), [&](const Slot& s) { return s.name == name; }))
      fit.not_fitted.push_back("conv." + std::string(phase_name(phase)));
  }
  return fit;
}

}  // namespace dnnperf::fitting
