#include "fitting/compute/compute_fit.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <functional>
#include <limits>
#include <map>
#include <numeric>
#include <optional>
#include <random>
#include <set>
#include <tuple>

#include <ceres/ceres.h>

#include "fitting/ceres_solve.h"
#include "records/measurement.h"
#include "models/compute/analytic_model.h"
#include "models/compute/blocked_gemm.h"
#include "models/compute/direct_conv.h"
#include "models/compute/error_family.h"
#include "core/common/error.h"
#include "records/kernel_record.h"
#include "core/graph/op_kind.h"
#include "core/graph/shape_inference.h"
#include "core/lowering/lower.h"

namespace dnnperf::fitting {
namespace {

constexpr int kFolds = 5;
// Regression features are chosen by held-out error; one shuffle's folds leave that choice to the
// luck of the split (on 200 convolutions, a feature worth 3 points of MAPE came and went with
// it), so each candidate is scored over this many shuffles.
constexpr int kRegressionShuffles = 3;
// Enough for a second-order surface in the sizes and the code-path terms on top; selection stops
// earlier where a feature no longer lowers the held-out error.
constexpr std::size_t kMaxRegressionFeatures = 14;

std::optional<Kernel> kernel_of(const bench::Record& r) {
  const auto dtype = parse_dtype(r.dtype);
  if (!dtype) return std::nullopt;
  const nlohmann::json& p = r.params;
  if (r.op.rfind("memory_", 0) == 0) {
    // Traffic as the lowering counts it for the same pass (docs/measurement-format.md).
    const std::int64_t n = p.at("bytes").get<std::int64_t>() / dtype_bytes(*dtype);
    Kernel k;
    k.dtype = *dtype;
    k.elements = n;
    const double b = static_cast<double>(n) * dtype_bytes(*dtype);
    if (r.op == "memory_copy") k.cls = KernelClass::copy, k.bytes_read = b, k.bytes_written = b;
    else if (r.op == "memory_elementwise") {
      // scripts/torch_bench.py before layout.distinct_inputs timed x + x: one buffer read, as a copy.
      const bool one_input = r.library == "PyTorch" && !(r.layout.is_object() && r.layout.contains("distinct_inputs"));
      k.cls = KernelClass::elementwise, k.bytes_read = one_input ? b : 2 * b, k.bytes_written = b, k.flops = static_cast<double>(n);
    }
    else if (r.op == "memory_activation") k.cls = KernelClass::elementwise, k.bytes_read = b, k.bytes_written = b, k.flops = static_cast<double>(n);
    // ReLU6 in place on a tensor autograd tracks (PyTorch clones it first): its own family.
    else if (r.op == "memory_relu6") k.cls = KernelClass::elementwise, k.bytes_read = b, k.bytes_written = b, k.flops = 2.0 * static_cast<double>(n), k.pass = "relu6";
    else if (r.op == "memory_softmax") k.cls = KernelClass::reduction, k.bytes_read = b, k.bytes_written = b, k.flops = 5.0 * static_cast<double>(n), k.pass = "softmax";
    // Op-specific passes (scripts/torch_bench.py), with traffic as the lowering counts it for a
    // training step, and their pass family. Pooling: one 16-channel image, 3x3 max windows at
    // stride 2 (int64 indices kept for the backward) or 2x2 average: a quarter of the output.
    else if (r.op == "memory_max_pool") k.cls = KernelClass::reduction, k.bytes_read = b, k.bytes_written = 0.75 * b, k.flops = 9.0 * static_cast<double>(n) / 4, k.pass = "max_pool";
    else if (r.op == "memory_max_pool_backward") k.cls = KernelClass::elementwise, k.bytes_read = 0.75 * b, k.bytes_written = b, k.flops = static_cast<double>(n), k.pass = "max_pool_backward";
    else if (r.op == "memory_avg_pool") k.cls = KernelClass::reduction, k.bytes_read = b, k.bytes_written = b / 4, k.flops = static_cast<double>(n), k.pass = "avg_pool";
    // The same families' 3x3 windows at stride 1 and padding 1: an output (and an index) per input.
    else if (r.op == "memory_max_pool_stride1") k.cls = KernelClass::reduction, k.bytes_read = b, k.bytes_written = b + 8.0 * static_cast<double>(n), k.flops = 9.0 * static_cast<double>(n), k.pass = "max_pool";
    else if (r.op == "memory_avg_pool_stride1") k.cls = KernelClass::reduction, k.bytes_read = b, k.bytes_written = b, k.flops = 9.0 * static_cast<double>(n), k.pass = "avg_pool";
    // Training batch norm, statistics and normalisation in one call: two reads and one write; its
    // backward (both gradients in one call) as the lowering's two passes: four reads, one write.
    else if (r.op == "memory_batch_norm") k.cls = KernelClass::elementwise, k.bytes_read = 2 * b, k.bytes_written = b, k.flops = 6.0 * static_cast<double>(n), k.pass = "batch_norm";
    else if (r.op == "memory_batch_norm_backward") k.cls = KernelClass::elementwise, k.bytes_read = 4 * b, k.bytes_written = b, k.flops = 11.0 * static_cast<double>(n), k.pass = "batch_norm_backward";
    // Inference batch norm, the running statistics' affine map: one read, one write (the lowering
    // counts the four per-channel vectors too; a few kB beside the image).
    else if (r.op == "memory_batch_norm_inference") k.cls = KernelClass::elementwise, k.bytes_read = b, k.bytes_written = b, k.flops = 2.0 * static_cast<double>(n), k.pass = "batch_norm_inference";
    // Every row of a table of 256-element rows gathered once, int64 ids.
    else if (r.op == "memory_embedding") k.cls = KernelClass::gather, k.bytes_read = b + 8.0 * static_cast<double>(n) / 256, k.bytes_written = b, k.pass = "embedding";
    // Optimizer updates of one parameter tensor (lower_update's traffic).
    else if (r.op == "memory_sgd") k.cls = KernelClass::elementwise, k.bytes_read = 2 * b, k.bytes_written = b, k.flops = 2.0 * static_cast<double>(n), k.pass = "sgd";
    else if (r.op == "memory_momentum") k.cls = KernelClass::elementwise, k.bytes_read = 3 * b, k.bytes_written = 2 * b, k.flops = 4.0 * static_cast<double>(n), k.pass = "momentum";
    // Training dropout: read, write, and a one-byte mask per element (lower_dropout's traffic).
    else if (r.op == "memory_dropout") k.cls = KernelClass::elementwise, k.bytes_read = b, k.bytes_written = b + static_cast<double>(n), k.flops = 2.0 * static_cast<double>(n), k.pass = "dropout";
    else if (r.op == "memory_adam") k.cls = KernelClass::elementwise, k.bytes_read = 4 * b, k.bytes_written = 3 * b, k.flops = 12.0 * static_cast<double>(n), k.pass = "adam";
    else throw InputError("no kernel the lowering emits is measured by " + r.op);
    // An optimizer step timed over parameters taken in turn (scripts/torch_bench.py
    // optimizer_rotation) met each one cold, as a training step's update does: it is one pass of
    // a stream as long as the rotation, which the lowering's update passes are too
    // (Kernel::footprint_bytes), so the fit prices it as the step will.
    if (r.layout.is_object() && r.layout.contains("rotated_parameters")) {
      const nlohmann::json& rotated = r.layout.at("rotated_parameters");
      if (!rotated.is_number_integer() || rotated.get<std::int64_t>() < 1)
        throw InputError(r.op + ": layout.rotated_parameters must be a positive integer, not " + rotated.dump());
      k.footprint_bytes = static_cast<double>(rotated.get<std::int64_t>()) * (k.bytes_read + k.bytes_written);
    }
    if (k.pass == "batch_norm" || k.pass == "batch_norm_backward" || k.pass == "batch_norm_inference") {
      // Its runs: the image's batch x channels where the record gives them (--bn-shapes), else
      // torch_bench's one image of pass_channels channels (16 on a CPU, 256 on a GPU).
      const std::int64_t channels = p.contains("channels") ? p.at("channels").get<std::int64_t>()
                                    : r.layout.is_object() && r.layout.contains("pass_channels") ? r.layout.at("pass_channels").get<std::int64_t>() : 16;
      const std::int64_t runs = (p.contains("batch") ? p.at("batch").get<std::int64_t>() : 1) * channels;
      if (runs <= 0) throw InputError(r.op + ": batch and channels must be positive");
      k.run_elements = n / runs;
    }
    return k;
  }
  auto k = matrix_kernel_of(r.op, p, *dtype);
  // cuBLAS's column-major call is the row-major product with m and n, and A and B, swapped
  // (models/compute/gpu/gpu_gemm.h): kernels are row-major, as frameworks call them.
  if (k && k->cls == KernelClass::gemm && r.library == "cuBLAS") {
    std::swap(k->gemm.m, k->gemm.n);
    std::swap(k->gemm.trans_a, k->gemm.trans_b);
  }
  return k;
}

/// A record of a GPU library's own call (bench's GPU programs), not of a framework's op.
bool library_call(const bench::Record& r) { return r.library == "cuBLAS" || r.library == "cuDNN" || r.library == "CUDA"; }

/// Whether a record was timed by `dnnperf bench`'s GPU programs (microbench/gpu/gpu_timing.cu)
/// with CUDA events around one call on an idle GPU, so that the host's launch of the call lies
/// inside the bracket (ComputeData::bracket_s). Records since 2026-12-07 say `"timing": "queued"`
/// in their layout: queued behind a kernel that held the GPU, their events time the GPU alone.
bool bracketed_on_idle_gpu(const bench::Record& r) {
  return library_call(r) && r.layout.is_object() && r.layout.contains("compute_capability") &&
         r.layout.value("timing", std::string("unheld")) != "queued";
}

/// The fold of each sample, by its shape: a kernel's repeats (the same shape in several files or
/// runs) always fall in one fold, so that none is held out while its twin trains, and a sample's
/// fold does not move when measurements of other kernels join the data (with a round-robin over
/// the list, adding 120 batch-norm records moved the convolutions' held-out figures by up to 17
/// points). `shuffle` draws another assignment.
std::vector<int> folds(const std::vector<ComputeSample>& samples, std::uint64_t shuffle = 0) { return shape_folds(samples, false, shuffle); }

}  // namespace

std::vector<int> shape_folds(const std::vector<ComputeSample>& samples, bool across_types, std::uint64_t shuffle) {
  std::vector<int> f(samples.size());
  for (std::size_t i = 0; i < samples.size(); ++i) {
    const Kernel& k = samples[i].kernel;
    const GemmShape& g = k.gemm;
    const ConvShape& c = k.conv;
    std::uint64_t h = 1469598103934665603ull ^ (0x9e3779b97f4a7c15ull * (shuffle + 1));
    const auto mix = [&h](std::uint64_t v) { h = (h ^ v) * 1099511628211ull; };
    const auto bits = [](double d) { std::uint64_t b; std::memcpy(&b, &d, sizeof b); return b; };
    const std::int64_t type = across_types ? 0 : static_cast<std::int64_t>(k.dtype);
    for (const std::int64_t v : {static_cast<std::int64_t>(k.cls), static_cast<std::int64_t>(k.phase), type, g.m, g.n, g.k,
                                 g.batch, static_cast<std::int64_t>(g.trans_a * 2 + g.trans_b), c.n, c.c, c.h, c.w, c.k, c.r, c.s, c.stride_h, c.stride_w,
                                 c.pad_h, c.pad_w, c.groups, k.elements, k.run_elements})
      mix(static_cast<std::uint64_t>(v));
    if (!across_types) {  // bytes count the element's size
      mix(bits(k.bytes_read));
      mix(bits(k.bytes_written));
    }
    for (const char ch : k.pass) mix(static_cast<unsigned char>(ch));
    // A final avalanche (splitmix64), so that the low bits the modulo keeps depend on every field.
    h ^= h >> 30, h *= 0xbf58476d1ce4e5b9ull, h ^= h >> 27, h *= 0x94d049bb133111ebull, h ^= h >> 31;
    f[i] = static_cast<int>(h % kFolds);
  }
  return f;
}

namespace {

// One measurement's log error under a linear model: its Jacobian is the feature vector itself,
// so it is given, not differentiated (automatic differentiation made feature selection, some
// 10,000 solves, the slowest part of a fit).
class RegressionResidual final : public ceres::CostFunction {
 public:
  RegressionResidual(std::vector<double> values, double log_measured) : values_(std::move(values)), log_measured_(log_measured) {
    set_num_residuals(1);
    mutable_parameter_block_sizes()->push_back(static_cast<std::int32_t>(values_.size()));
  }
  bool Evaluate(double const* const* w, double* residual, double** jacobians) const override {
    double sum = 0;
    for (std::size_t i = 0; i < values_.size(); ++i) sum += w[0][i] * values_[i];
    residual[0] = sum - log_measured_;
    if (jacobians && jacobians[0]) std::copy(values_.begin(), values_.end(), jacobians[0]);
    return true;
  }

 private:
  std::vector<double> values_;
  double log_measured_;
};

bool solve_regression(RegressionModel& m, const std::vector<const ComputeSample*>& train, bool covariance, std::string* message) {
  const std::size_t n = m.features.size();
  m.weights.assign(n, 0.0);
  ceres::Problem problem;
  for (const ComputeSample* s : train) {
    auto* cost = new RegressionResidual(regression_features(m, s->kernel), std::log(s->seconds));
    problem.AddResidualBlock(cost, new ceres::HuberLoss(0.1), m.weights.data());
  }
  const SolveResult solved = solve_quietly(problem, 100);
  if (message) *message = solved.message;
  if (!solved.usable) return false;
  double sum = 0;
  for (const ComputeSample* s : train) {
    const double r = std::log(regression_seconds(m, s->kernel) / s->seconds);
    sum += r * r;
  }
  m.residual_sigma = std::sqrt(sum / static_cast<double>(std::max<std::size_t>(1, train.size() - std::min(train.size() - 1, n))));
  m.covariance.clear();
  if (covariance) {
    ceres::Covariance::Options co;
    co.algorithm_type = ceres::DENSE_SVD;
    co.null_space_rank = -1;
    ceres::Covariance cov(co);
    const std::vector<std::pair<const double*, const double*>> blocks = {{m.weights.data(), m.weights.data()}};
    if (cov.Compute(blocks, &problem)) {
      m.covariance.assign(n * n, 0.0);
      cov.GetCovarianceBlock(m.weights.data(), m.weights.data(), m.covariance.data());
      // (J'J)^-1 is the weights' covariance for residuals of unit variance; these have
      // residual_sigma's (as the communication fits: fitting/comm/comm_fit.cc).
      for (double& c : m.covariance) c *= m.residual_sigma * m.residual_sigma;
    }
  }
  return true;
}

ErrorStats cross_validate_regression(const RegressionModel& shape, const std::vector<ComputeSample>& samples,
                                     std::vector<std::pair<std::string, double>>* family_log_errors = nullptr) {
  std::vector<std::pair<double, double>> pairs;  // measured, predicted
  int inside = 0;
  for (int shuffle = 0; shuffle < kRegressionShuffles; ++shuffle) {
    const std::vector<int> f = folds(samples, static_cast<std::uint64_t>(shuffle));
    for (int fold = 0; fold < kFolds; ++fold) {
      std::vector<const ComputeSample*> train, test;
      for (std::size_t i = 0; i < samples.size(); ++i) (f[i] == fold ? test : train).push_back(&samples[i]);
      if (test.empty() || train.size() <= shape.features.size()) continue;
      RegressionModel m = shape;
      if (!solve_regression(m, train, true, nullptr)) continue;
      for (const ComputeSample* s : test) {
        pairs.emplace_back(s->seconds, regression_seconds(m, s->kernel));
        if (family_log_errors) family_log_errors->emplace_back(error_family(s->kernel), std::log(pairs.back().second / s->seconds));
        const auto [low, high] = regression_interval(m, s->kernel);
        inside += s->seconds >= low && s->seconds <= high;
      }
    }
  }
  return error_stats(pairs, inside);
}

// Analytic family: a device with some parameters replaced, in log form where they are scales.
enum class Stage { memory, gemm, conv };

/// Sets the parameters a stage fits (scales in log form) on a device.
void apply(Stage stage, const double* p, DeviceSpec& d) {
  switch (stage) {
    case Stage::memory:  // the bandwidth is the cache-resident one; larger passes slow down
      d.memory_bandwidth = std::exp(p[0]);
      d.memory.half_efficiency_bytes = std::exp(p[1]);
      d.launch_overhead_s = std::exp(p[2]);
      d.memory.cache_bytes = std::exp(p[3]);
      d.memory.dram_slowdown = 1 + std::exp(p[4]);
      d.memory.max_efficiency = 1.0;
      break;
    case Stage::gemm:  // the peak is effective: GEMM efficiency stays 1, or the two would be one unknown
      d.peak_flops[MathMode::fp32] = std::exp(p[0]);
      d.gemm.half_efficiency_k = std::max(0.0, p[1]);
      d.launch_overhead_s = std::exp(p[2]);
      d.gemm.max_efficiency = 1.0;
      break;
    case Stage::conv:
      d.conv.max_efficiency = std::clamp(p[0], 1e-3, 1.0);
      d.conv.half_efficiency_k = std::max(0.0, p[1]);
      break;
  }
}

struct AnalyticResidual {
  const DeviceSpec* base;
  const Kernel* kernel;
  double log_measured;
  Stage stage;
  bool operator()(double const* const* p, double* residual) const {
    DeviceSpec d = *base;
    apply(stage, p[0], d);
    const AnalyticComputeModel model(d);
    residual[0] = std::log(model.seconds(*kernel, {})) - log_measured;
    return true;
  }
};

bool in_stage(Stage stage, const Kernel& k) {
  if (stage == Stage::gemm) return k.cls == KernelClass::gemm;
  if (stage == Stage::conv) return k.cls == KernelClass::conv;
  return k.cls != KernelClass::gemm && k.cls != KernelClass::conv && k.pass.empty();
}

bool solve_stage_once(DeviceSpec& device, const std::vector<const ComputeSample*>& train, Stage stage, bool launch_known,
                      std::string* message, double* cost) {
  std::vector<double> p;
  switch (stage) {
    case Stage::memory:
      p = {std::log(device.memory_bandwidth), std::log(std::max(device.memory.half_efficiency_bytes, 1.0)), std::log(std::max(device.launch_overhead_s, 1e-7)),
           std::log(device.memory.cache_bytes > 0 ? device.memory.cache_bytes : 8e6), std::log(std::max(device.memory.dram_slowdown - 1, 0.5))};
      break;
    case Stage::gemm:
      p = {std::log(device.peak_flops.at(MathMode::fp32)), device.gemm.half_efficiency_k, std::log(std::max(device.launch_overhead_s, 1e-7))};
      break;
    case Stage::conv: p = {device.conv.max_efficiency, device.conv.half_efficiency_k}; break;
  }
  ceres::Problem problem;
  int used = 0;
  for (const ComputeSample* s : train) {
    if (!in_stage(stage, s->kernel)) continue;
    ++used;
    auto* residual = new ceres::DynamicNumericDiffCostFunction<AnalyticResidual>(new AnalyticResidual{&device, &s->kernel, std::log(s->seconds), stage});
    residual->AddParameterBlock(static_cast<int>(p.size()));
    residual->SetNumResiduals(1);
    problem.AddResidualBlock(residual, new ceres::HuberLoss(0.1), p.data());
  }
  static const char* kNames[] = {"memory passes", "GEMMs", "convolutions"};
  if (used < 5) {
    if (message) *message = std::to_string(used) + " " + kNames[static_cast<int>(stage)] + ": too few to fit";
    return false;
  }
  if (stage != Stage::memory) problem.SetParameterLowerBound(p.data(), 1, 0.0);
  if (stage == Stage::conv) {
    problem.SetParameterLowerBound(p.data(), 0, 1e-3);
    problem.SetParameterUpperBound(p.data(), 0, 1.0);
  }
  // The memory passes measured the launch overhead already: GEMMs keep it.
  if (stage == Stage::gemm && launch_known) problem.SetManifold(p.data(), new ceres::SubsetManifold(3, {2}));
  if (stage == Stage::memory) {
    // A ramp that reaches half speed somewhere between a byte and a terabyte: unbounded, a fold
    // of few passes sends it to exp(4000), and the model's times to infinity.
    problem.SetParameterLowerBound(p.data(), 1, 0.0);
    problem.SetParameterUpperBound(p.data(), 1, std::log(1e12));
    // A cache between 32 KiB and 4 GiB; overflowing it costs 1.01x to 100x.
    problem.SetParameterLowerBound(p.data(), 3, std::log(32768.0));
    problem.SetParameterUpperBound(p.data(), 3, std::log(4294967296.0));
    problem.SetParameterLowerBound(p.data(), 4, std::log(0.01));
    problem.SetParameterUpperBound(p.data(), 4, std::log(100.0));
  }
  const SolveResult solved = solve_quietly(problem, 100);
  if (message) *message = solved.message;
  if (!solved.usable) return false;
  apply(stage, p.data(), device);
  if (cost) *cost = solved.cost;
  return true;
}

/// Fits a stage; GEMMs and convolutions once per tile size (a discrete choice no gradient moves:
/// a GPU's 128 x 128 tiles against a CPU micro-kernel's few rows), keeping the best fit.
bool solve_stage(DeviceSpec& device, const std::vector<const ComputeSample*>& train, Stage stage, bool launch_known,
                 std::string* message) {
  if (stage == Stage::memory) return solve_stage_once(device, train, stage, launch_known, message, nullptr);
  std::optional<std::pair<double, DeviceSpec>> best;
  for (const std::int64_t tile : {8, 16, 32, 64, 128, 256}) {
    DeviceSpec d = device;
    MatrixEfficiency& e = stage == Stage::gemm ? d.gemm : d.conv;
    e.tile_m = e.tile_n = tile;
    double cost = 0;
    if (solve_stage_once(d, train, stage, launch_known, message, &cost) && (!best || cost < best->first)) best = {cost, d};
  }
  if (!best) return false;
  device = best->second;
  return true;
}

// Blocked GEMM (models/compute/blocked_gemm.h): the continuous parameters by Ceres for one block
// and vector width; those two are discrete, so each candidate is a fit of its own.
struct BlockedResidual {
  GemmShape gemm;
  std::int64_t block, vector_width;
  std::array<std::int64_t, 3> cleanup_width;
  double element_bytes, log_measured;
  template <typename T>
  bool operator()(const T* p, T* residual) const {
    using std::log;
    residual[0] = log(blocked_gemm_seconds(gemm, block, vector_width, cleanup_width, element_bytes, p)) - T(log_measured);
    return true;
  }
};

constexpr std::int64_t kBlockCandidates[] = {8, 16, 24, 32, 40, 48, 56, 64, 80, 96, 128, 192, 256};
constexpr std::int64_t kVectorWidthCandidates[] = {1, 2, 4, 8, 16};
// Second clean-up widths tried per dimension: register tiles of 2, 3 and 6 are common in CPU
// micro-kernels beside the vector width.
constexpr std::int64_t kCleanupWidthCandidates[] = {2, 3, 6};

/// Bounds on parameters first..last (log form).
struct Bound {
  int first, last;
  double low, high;
};

/// Fits a structural model's continuous parameters, in their log form (log_parameters,
/// with_log_parameters), to `samples` by Ceres with a Huber loss on log errors (each sample's
/// scaled by its weight), each within its
/// bound, those `held` at their start; `make` builds one measurement's residual functor. The robust cost with the fitted model;
/// nullopt if Ceres found nothing.
template <typename Residual, int N, typename Model, typename Make>
std::optional<std::pair<double, Model>> solve_log_parameters(const Model& start, const std::vector<const ComputeSample*>& samples, Make make,
                                                             std::initializer_list<Bound> bounds, const std::vector<int>& held = {}) {
  auto p = log_parameters(start);
  ceres::Problem problem;
  for (const ComputeSample* s : samples) {
    ceres::LossFunction* loss = new ceres::HuberLoss(0.1);
    if (s->weight != 1) loss = new ceres::ScaledLoss(loss, s->weight, ceres::TAKE_OWNERSHIP);
    problem.AddResidualBlock(new ceres::AutoDiffCostFunction<Residual, 1, N>(new Residual(make(*s))), loss, p.data());
  }
  for (const Bound& b : bounds)
    for (int i = b.first; i <= b.last; ++i) {
      problem.SetParameterLowerBound(p.data(), i, b.low);
      problem.SetParameterUpperBound(p.data(), i, b.high);
    }
  if (!held.empty()) problem.SetManifold(p.data(), new ceres::SubsetManifold(N, held));
  const SolveResult solved = solve_quietly(problem, 100);
  if (!solved.usable) return std::nullopt;
  return std::make_pair(solved.cost, with_log_parameters(start, p.data()));
}

/// How sharp a capacity edge may be fitted: from a gentle slope over a decade to a step within a
/// few percent of its size.
constexpr double kSteepnessRange[2] = {2, 64};

/// The fit for one block and vector width. Physical bounds: clean-up never outruns whole blocks,
/// misalignment and long rows never speed anything up. The edges' steepness is held at its start
/// unless `edge_steepness` (two more shape parameters would let noise decide the discrete choices,
/// made before it is freed).
std::optional<std::pair<double, BlockedGemm>> solve_blocked_once(const BlockedGemm& start, const std::vector<const ComputeSample*>& gemms,
                                                                 bool edge_steepness = false) {
  const auto make = [&](const ComputeSample& s) {
    return BlockedResidual{implicit_gemm(s.kernel), start.block, start.vector_width, start.cleanup_width,
                           static_cast<double>(dtype_bytes(s.kernel.dtype)), std::log(s.seconds)};
  };
  const double ln = std::log(1e-3), slow = std::log(100.0), rate = std::log(1e6);
  // The output edge stays within the outputs measured: one fitted past them is no finding, its
  // plateau extrapolated from the slope of its foot. On the dev VM (2026-12-02, family 25) outputs
  // up to 246 MB wrote at 2-3.6 GB/s and 298-326 MB at 0.9-1.0 (heap pages kept against pages
  // mapped afresh); an edge fitted at 432 MB with a 48x plateau priced VGG-11's 411 MB weight
  // gradient at 1.63 s, measured 0.32 s.
  double largest_output = 2e6;
  for (const ComputeSample* s : gemms) {
    const GemmShape g = implicit_gemm(s->kernel);
    largest_output = std::max(largest_output, static_cast<double>(std::max<std::int64_t>(g.batch, 1)) * static_cast<double>(g.m) * static_cast<double>(g.n) *
                                                  static_cast<double>(dtype_bytes(s->kernel.dtype)));
  }
  BlockedGemm from = start;
  from.large_output_bytes = std::min(from.large_output_bytes, largest_output);
  return solve_log_parameters<BlockedResidual, kBlockedGemmParameters>(
      from, gemms, make,
      {{0, 0, rate, std::log(1e17)}, {1, 7, ln, 0.0}, {8, 10, 0.0, slow}, {11, 12, rate, std::log(1e14)}, {13, 13, std::log(1e-8), std::log(1e-2)},
       {14, 14, std::log(64.0), std::log(1e9)}, {15, 18, ln, slow}, {19, 19, std::log(1e6), std::log(largest_output)}, {20, 20, ln, slow},
       {21, 22, std::log(kSteepnessRange[0]), std::log(kSteepnessRange[1])}, {23, 25, std::log(0.2), std::log(5.0)},
       {26, 26, std::log(1e6), std::log(1e12)}, {27, 27, ln, slow}},
      edge_steepness ? std::vector<int>{} : std::vector<int>{21, 22});
}

/// The training samples `pick` selects, of the element type measured most; nullopt when fewer than
/// `at_least` (a structural model wants three per parameter).
template <typename Pick>
std::optional<std::pair<DType, std::vector<const ComputeSample*>>> most_measured_type(const std::vector<const ComputeSample*>& train, Pick pick,
                                                                                       std::size_t at_least) {
  std::map<DType, std::vector<const ComputeSample*>> by_type;
  for (const ComputeSample* s : train)
    if (pick(s->kernel)) by_type[s->kernel.dtype].push_back(s);
  if (by_type.empty()) return std::nullopt;
  const auto most = std::max_element(by_type.begin(), by_type.end(), [](const auto& a, const auto& b) { return a.second.size() < b.second.size(); });
  if (most->second.size() < at_least) return std::nullopt;
  return *most;
}

/// The fewest measurements of a class its structural model is fitted to: three per parameter (the
/// direct model's every fit has; the native path's optional terms ask for their own,
/// kNativeColumnSamples and kNativeCallSamples, so that a small calibration's weight gradients,
/// ~120 in dnnperf calibrate's 10 minutes, keep the model they had before them).
constexpr std::size_t kBlockedGemmMinSamples = 3 * kBlockedGemmParameters;
constexpr std::size_t kDirectConvMinSamples = 3 * kDirectConvRequiredParameters;

/// The blocked GEMM model of the training GEMMs of the most measured element type: vector width
/// at a middling block, then the block at that width, then the width again (both matter: with
/// no vector width the block is not identifiable on the dev VM's ATLAS, with it 48 stands out).
/// With `refit`, only its continuous parameters are fitted again from its values (the held-out
/// folds: the discrete choices and the starts were made on all the data, as the regression's
/// blocking is).
std::optional<BlockedGemm> solve_blocked(const DeviceSpec& device, const std::vector<const ComputeSample*>& train, const BlockedGemm* refit) {
  const auto most = most_measured_type(train, [](const Kernel& k) { return k.cls == KernelClass::gemm; }, kBlockedGemmMinSamples);
  if (!most) return std::nullopt;
  const std::vector<const ComputeSample*>& gemms = most->second;
  if (refit) {
    if (!refit->enabled() || refit->dtype != most->first) return std::nullopt;
    const auto fit = solve_blocked_once(*refit, gemms, true);
    return fit ? std::optional<BlockedGemm>(fit->second) : std::nullopt;
  }
  BlockedGemm best;
  best.dtype = most->first;
  best.block = 64;
  best.vector_width = 1;
  best.block_flops = device.peak_flops.at(MathMode::fp32);
  best.partial_efficiency.fill(0.5);
  best.misaligned_slowdown.fill(2.0);
  best.operand_bandwidth = best.output_bandwidth = device.memory_bandwidth / 20;
  best.call_overhead_s = std::max(device.launch_overhead_s, 1e-6);
  best.long_row_bytes = 16384;
  best.long_row_slowdown.fill(1.5);
  best.large_output_bytes = 5e7;
  best.large_output_slowdown = 2;
  best.large_operand_bytes = 3e7;
  best.large_operand_slowdown = 1.5;
  const BlockedGemm start = best;
  double best_cost = std::numeric_limits<double>::infinity();
  bool any = false;
  const auto try_candidate = [&](std::int64_t block, std::int64_t width) {
    BlockedGemm candidate = start;
    candidate.block = block;
    candidate.vector_width = width;
    if (const auto fit = solve_blocked_once(candidate, gemms); fit && fit->first < best_cost) best_cost = fit->first, best = fit->second, any = true;
  };
  for (const std::int64_t width : kVectorWidthCandidates) try_candidate(best.block, width);
  const std::int64_t width = best.vector_width;
  for (const std::int64_t block : kBlockCandidates) try_candidate(block, width);
  const std::int64_t block = best.block;
  for (const std::int64_t w : kVectorWidthCandidates) try_candidate(block, w);
  if (!any) return std::nullopt;
  // A second clean-up width per dimension, kept where it lowers the training cost clearly: along
  // a dimension where misalignment costs nothing every width fits alike, and noise would pick
  // one. A width that divides the vector width changes nothing and is not tried.
  constexpr double kClearGain = 0.98;
  for (int d = 0; d < 3; ++d) {
    const BlockedGemm before = best;
    const double before_cost = best_cost;
    for (const std::int64_t w : kCleanupWidthCandidates) {
      if (before.vector_width % w == 0) continue;
      BlockedGemm candidate = start;
      candidate.block = before.block, candidate.vector_width = before.vector_width, candidate.cleanup_width = before.cleanup_width;
      candidate.cleanup_width[d] = w;
      if (const auto fit = solve_blocked_once(candidate, gemms); fit && fit->first < kClearGain * before_cost && fit->first < best_cost)
        best_cost = fit->first, best = fit->second;
    }
  }
  // The row and output sizes where packing and writing slow down are capacity edges: from one
  // start Ceres may slide the edge past every measured size instead of finding it. Several starts,
  // and the fit so far; from here how sharp each edge is is fitted too.
  const BlockedGemm chosen = best;
  if (const auto fit = solve_blocked_once(chosen, gemms, true); fit && fit->first < best_cost) best_cost = fit->first, best = fit->second;
  for (const double rows : {4096.0, 16384.0, 65536.0})
    for (const double output : {3e7, 3e8}) {
      BlockedGemm candidate = start;
      candidate.block = chosen.block, candidate.vector_width = chosen.vector_width, candidate.cleanup_width = chosen.cleanup_width;
      candidate.long_row_bytes = rows, candidate.large_output_bytes = output;
      if (const auto fit = solve_blocked_once(candidate, gemms, true); fit && fit->first < best_cost) best_cost = fit->first, best = fit->second;
    }
  return best;
}

// Direct convolutions (models/compute/direct_conv.h), one model per direction: the continuous
// parameters by Ceres for one lane width, which is discrete.
struct DirectConvResidual {
  ConvShape conv;
  ConvPath path;
  DirectConvLayout layout;
  double element_bytes, log_measured;
  template <typename T>
  bool operator()(const T* p, T* residual) const {
    using std::log;
    residual[0] = log(direct_conv_seconds(conv, path, layout, element_bytes, p)) - T(log_measured);
    return true;
  }
};

constexpr std::int64_t kLaneCandidates[] = {1, 4, 8, 16, 32};

/// The fewest measurements on oneDNN's im2col-and-GEMM fallback that price it (four parameters of
/// its own); with fewer those shapes are priced on the path they took before it.
constexpr std::size_t kGemmPathSamples = 10;
/// The fewest native-path measurements with columns past whole blocks that price the leftover
/// (two parameters).
constexpr std::size_t kNativeColumnSamples = 10;
/// The fewest native-path measurements that price its call overhead apart from the other paths'.
constexpr std::size_t kNativeCallSamples = 5;

/// The fit for one lane width. A path the data never takes keeps its start (Ceres sees no
/// gradient); the rest stay physical: partly filled lanes never speed anything up.
std::optional<std::pair<double, DirectConv>> solve_direct_conv_once(const DirectConv& start, Phase phase, const std::vector<const ComputeSample*>& convs) {
  const auto make = [&](const ComputeSample& s) {
    return DirectConvResidual{s.kernel.conv, priced_conv_path(start, s.kernel.conv, phase), layout_of(start), static_cast<double>(dtype_bytes(s.kernel.dtype)),
                              std::log(s.seconds)};
  };
  using I = DirectConvIndex;
  constexpr int last_path = kConvPaths - 1;
  const double rate = std::log(1e6), slow = std::log(100.0);
  // The filter streamed per image is a weight gradient's term (direct_conv.h): held at none in the
  // other directions, where fitted on the Intel VM its edge wandered over 0.4-17 MB between two
  // calibrations (inference 11.2 -> 12.0% on one, unchanged on the other).
  std::vector<int> held;
  if (phase != Phase::backward_weight) held = {I::image_weight_bandwidth, I::weight_cache_bytes};
  return solve_log_parameters<DirectConvResidual, kDirectConvParameters>(
      start, convs, make,
      {{I::rate, I::rate + last_path, rate, std::log(1e17)},
       {I::input_fill_exponent, I::output_fill_exponent, 0.0, 4.0},
       {I::window_exponent, I::window_exponent, -2.0, 2.0},
       {I::input_bandwidth, I::input_bandwidth + last_path, rate, std::log(1e14)},
       {I::weight_bandwidth, I::weight_bandwidth, rate, std::log(1e14)},
       {I::output_bandwidth, I::output_bandwidth + last_path, rate, std::log(1e14)},
       {I::call_overhead, I::call_overhead, std::log(1e-8), std::log(1e-2)},
       {I::native_call_overhead, I::native_call_overhead, std::log(1e-8), std::log(1e-2)},
       {I::image_weight_bandwidth, I::image_weight_bandwidth, rate, std::log(1e14)},
       {I::weight_cache_bytes, I::weight_cache_bytes, std::log(1e5), std::log(1e9)},
       {I::large_bytes, I::large_bytes, std::log(1e5), std::log(1e12)},
       {I::large_slowdown, I::large_slowdown, std::log(1e-3), slow},
       {I::narrow_input_fill_exponent, I::narrow_input_fill_exponent, 0.0, 4.0},
       {I::stride_exponent, I::stride_exponent + last_path, -1.0, 2.0},
       {I::large_weight_bytes, I::large_weight_bytes, std::log(1e5), std::log(1e12)},
       {I::large_weight_slowdown, I::large_weight_slowdown, std::log(1e-3), slow},
       {I::depthwise_window_exponent, I::depthwise_window_exponent, -2.0, 2.0},
       {I::image_call, I::image_call, std::log(1e-9), std::log(1e-3)},
       {I::native_leftover_columns, I::native_leftover_columns, std::log(1e-3), std::log(1e4)},
       {I::native_misaligned, I::native_misaligned, 0.0, std::log(50.0)}},
      held);
}

/// The direct model of one direction's training convolutions of the most measured element type:
/// the lane width from one start, then several starts at that width (arithmetic against traffic
/// is a sum of two unknown rates, and a start far on one side can settle there).
/// With `refit`, as solve_blocked.
/// `cpu`: a CPU backend's measurements, where PyTorch has a convolution path of its own (native)
/// that calls `blas`, the GEMM model fitted beside this one.
std::optional<DirectConv> solve_direct_conv(const std::vector<const ComputeSample*>& train, Phase phase, bool cpu, const BlockedGemm& blas,
                                            const DirectConv* refit) {
  const auto most = most_measured_type(train, [phase](const Kernel& k) { return k.cls == KernelClass::conv && k.phase == phase; },
                                       kDirectConvMinSamples);
  if (!most) return std::nullopt;
  const std::vector<const ComputeSample*>& convs = most->second;
  if (refit) {
    if (!refit->enabled() || refit->dtype != most->first) return std::nullopt;
    const auto fit = solve_direct_conv_once(*refit, phase, convs);
    return fit ? std::optional<DirectConv>(fit->second) : std::nullopt;
  }
  std::size_t on_gemm_path = 0, on_native_path = 0, native_leftovers = 0;
  for (const ComputeSample* s : convs) {
    const ConvShape& c = s->kernel.conv;
    const ConvPath path = conv_path(c, phase);
    on_gemm_path += path == ConvPath::gemm;
    on_native_path += path == ConvPath::native;
    native_leftovers += path == ConvPath::native && c.groups <= 1 && blas.enabled() && (c.p * c.q) % blas.block != 0;
  }
  // The native path's GEMM columns (the output pixels of an image) are a weight gradient's
  // reduction and the other directions' columns: the clean-up width of that dimension of the BLAS.
  const int column_dimension = phase == Phase::backward_weight ? 2 : 1;
  const bool native_columns = cpu && native_leftovers >= kNativeColumnSamples;
  const bool native_call = cpu && on_native_path >= kNativeCallSamples;
  const auto start_at = [&](std::int64_t lanes, double rate, double bandwidth) {
    DirectConv d;
    d.dtype = most->first;
    d.gemm_path = on_gemm_path >= kGemmPathSamples;
    if (native_columns) {
      d.native_column_block = blas.block, d.native_column_vector = blas.vector_width;
      d.native_column_cleanup = blas.cleanup_width[column_dimension];
      d.native_leftover_columns = 10, d.native_misaligned_slowdown = 2;
    }
    d.image_call_s = 1e-7;
    if (phase == Phase::backward_weight) d.image_weight_bandwidth = bandwidth, d.weight_cache_bytes = 2e6;
    d.lanes = lanes;
    d.rate.fill(rate);
    d.input_bandwidth.fill(bandwidth);
    d.output_bandwidth.fill(bandwidth);
    d.weight_bandwidth = bandwidth;
    d.call_overhead_s = 1e-6;
    d.native_call_overhead_s = native_call ? 1e-6 : 0.0;
    d.large_bytes = 1e8;
    d.large_slowdown = 2;
    d.large_weight_bytes = 5e7;
    d.large_weight_slowdown = 2;
    return d;
  };
  std::optional<std::pair<double, DirectConv>> best;
  const auto consider = [&](const DirectConv& start) {
    if (const auto fit = solve_direct_conv_once(start, phase, convs); fit && (!best || fit->first < best->first)) best = fit;
  };
  for (const std::int64_t lanes : kLaneCandidates) consider(start_at(lanes, 1e10, 1e10));
  if (!best) return std::nullopt;
  const std::int64_t lanes = best->second.lanes;
  for (const double rate : {1e10, 2.7e10, 7.4e10})
    for (const double bandwidth : {1e10, 7.4e10}) consider(start_at(lanes, rate, bandwidth));
  return best->second;
}

/// One pass family's efficiency on top of the fitted bandwidth and launch overhead: its
/// max_efficiency (in log form, at most 1), half_efficiency_bytes (log form), scalar rate of short
/// runs (log form), slowdown beyond the cache (log of slowdown - 1) and seconds per operation (log form).
struct PassResidual {
  const DeviceSpec* device;
  const Kernel* kernel;
  double log_measured;
  bool operator()(const double* p, double* residual) const {
    DeviceSpec d = *device;
    d.passes[std::string(kernel->pass)] = {std::exp(p[0]), std::exp(p[1]), d.memory.cache_bytes, 1 + std::exp(p[3]), std::exp(p[2]), std::exp(p[4])};
    residual[0] = std::log(AnalyticComputeModel(d).seconds(*kernel, {})) - log_measured;
    return true;
  }
};

/// Fits every pass family with enough measurements; families with too few are named in `skipped`.
void solve_passes(DeviceSpec& device, const std::vector<const ComputeSample*>& train, std::string* skipped) {
  std::map<std::string, std::vector<const ComputeSample*>, std::less<>> families;
  for (const ComputeSample* s : train)
    if (!s->kernel.pass.empty()) families[std::string(s->kernel.pass)].push_back(s);
  for (const auto& [name, samples] : families) {
    if (samples.size() < 4) {  // two parameters, and some left to tell a fit from an interpolation
      if (skipped) *skipped += (skipped->empty() ? "" : "; ") + name + ": " + std::to_string(samples.size()) + " measurements, too few to fit";
      continue;
    }
    // A scalar rate for short runs only where the family was measured with and without them.
    int short_runs = 0;
    for (const ComputeSample* s : samples) short_runs += short_run_elements(s->kernel) > 0;
    const bool scalar = short_runs >= 3 && short_runs + 3 <= static_cast<int>(samples.size());
    // Its own slowdown beyond the cache where it was measured there, twice at least; else the
    // plain passes'. A pass's time in the cache need not be its traffic's (SGD's add with a scale
    // ran at 60% of a copy's rate there and the same from DRAM on the VM, 2026-12-02): one factor
    // for all priced SGD over 256 MiB 24% slow, and the optimizer steps of AlexNet and VGG-11 so.
    int beyond = 0;
    for (const ComputeSample* s : samples)
      beyond += std::max(s->kernel.bytes_read + s->kernel.bytes_written, s->kernel.footprint_bytes) > 2 * device.memory.cache_bytes;
    const bool own_dram = device.memory.dram_slowdown > 1 && beyond >= 2 && static_cast<int>(samples.size()) >= 6;
    // A rate per operation only where the family was measured at two arithmetic intensities at
    // least (pooling windows of several sizes and strides), three times each: else the
    // operations scale with the bytes and the efficiency holds them.
    const auto intensity = [](const Kernel& k) { return k.flops / std::max(k.bytes_read + k.bytes_written, 1.0); };
    double lowest = std::numeric_limits<double>::infinity();
    for (const ComputeSample* s : samples) lowest = std::min(lowest, intensity(s->kernel));
    int denser = 0;
    for (const ComputeSample* s : samples) denser += intensity(s->kernel) > 1.5 * lowest;
    const bool per_operation = lowest > 0 && denser >= 3 && denser + 3 <= static_cast<int>(samples.size());
    std::vector<double> p = {std::log(device.memory.max_efficiency), std::log(std::max(device.memory.half_efficiency_bytes, 1.0)), std::log(scalar ? 1e-8 : 1e-300),
                             std::log(std::max(device.memory.dram_slowdown - 1, 1e-300)), std::log(per_operation ? 1e-10 : 1e-300)};
    // First on the plain passes' slowdown, then, where the family has its own, from there: four
    // parameters at once from the generic start found a worse minimum in one fold of six.
    const auto solve = [&](bool free_dram) {
      ceres::Problem problem;
      for (const ComputeSample* s : samples)
        problem.AddResidualBlock(new ceres::NumericDiffCostFunction<PassResidual, ceres::CENTRAL, 1, 5>(
                                     new PassResidual{&device, &s->kernel, std::log(s->seconds)}),
                                 new ceres::HuberLoss(0.1), p.data());
      problem.SetParameterUpperBound(p.data(), 0, 0.0);  // no pass outruns the device's bandwidth
      problem.SetParameterLowerBound(p.data(), 0, std::log(1e-5));
      problem.SetParameterLowerBound(p.data(), 1, 0.0);
      problem.SetParameterUpperBound(p.data(), 1, std::log(1e12));
      std::vector<int> fixed;
      if (scalar) {
        problem.SetParameterLowerBound(p.data(), 2, std::log(1e-12));
        problem.SetParameterUpperBound(p.data(), 2, std::log(1e-3));
      } else {
        fixed.push_back(2);
      }
      if (free_dram) {  // as the plain passes' (solve_stage_once): 1.01x to 101x
        problem.SetParameterLowerBound(p.data(), 3, std::log(0.01));
        problem.SetParameterUpperBound(p.data(), 3, std::log(100.0));
      } else {
        fixed.push_back(3);
      }
      if (per_operation) {
        problem.SetParameterLowerBound(p.data(), 4, std::log(1e-15));
        problem.SetParameterUpperBound(p.data(), 4, std::log(1e-6));
      } else {
        fixed.push_back(4);
      }
      if (!fixed.empty()) problem.SetManifold(p.data(), new ceres::SubsetManifold(5, fixed));
      return solve_quietly(problem, 100);
    };
    SolveResult solved = solve(false);
    if (solved.usable && own_dram) {
      const std::vector<double> shared = p;
      if (!solve(true).usable) p = shared;  // the plain passes' slowdown, then
    }
    if (!solved.usable) {
      if (skipped) *skipped += (skipped->empty() ? "" : "; ") + name + ": " + solved.message;
      continue;
    }
    device.passes[name] = {std::exp(p[0]), std::exp(p[1]), device.memory.cache_bytes, own_dram ? 1 + std::exp(p[3]) : device.memory.dram_slowdown,
                           scalar ? std::exp(p[2]) : 0.0, per_operation ? std::exp(p[4]) : 0.0};
  }
}

/// Memory passes first (bandwidth, ramp, launch overhead), then GEMMs (peak, fill, efficiency)
/// and convolutions on top of them, and the op-specific pass families on the fitted bandwidth.
/// With `refit` (a device fitted to all the data), the structural models keep its discrete
/// choices and start from its parameters.
/// `cpu`: the measurements come from a CPU backend, where PyTorch has its own convolution path.
bool fit_device(DeviceSpec& device, const std::vector<const ComputeSample*>& train, bool cpu, std::string* message, const DeviceSpec* refit = nullptr) {
  bool any = false, launch_known = false;
  std::string all;
  for (Stage stage : {Stage::memory, Stage::gemm, Stage::conv}) {
    std::string m;
    const bool ok = solve_stage(device, train, stage, launch_known, &m);
    if (ok && stage == Stage::memory) launch_known = true;
    any = any || ok;
    if (!ok) all += (all.empty() ? "" : "; ") + m;
  }
  // Fitted beside the tiles; fit_analytic keeps, per class, whichever predicts held-out kernels better.
  device.blocked_gemm = solve_blocked(device, train, refit ? &refit->blocked_gemm : nullptr).value_or(BlockedGemm{});
  for (const Phase phase : {Phase::forward, Phase::backward_data, Phase::backward_weight}) {
    const int i = static_cast<int>(phase);
    device.direct_conv[i] = solve_direct_conv(train, phase, cpu, device.blocked_gemm, refit ? &refit->direct_conv[i] : nullptr).value_or(DirectConv{});
  }
  if (launch_known) solve_passes(device, train, &all);
  if (message) *message = all.empty() ? "converged" : all;
  return any;
}

// The sum a regression's selection minimises; a step must lower it by this much to count.
double selection_score(const ErrorStats& e) { return e.mape + e.weighted; }
constexpr double kSelectionStep = 0.4;

std::int64_t regression_blocking(const std::vector<ComputeSample>& samples) {
  // A fixed surface in the sizes, with and without the share of n and k outside whole blocks, for
  // each candidate blocking: the best keeps its place only where those shares explain something.
  RegressionModel reference;
  reference.features = {"one", "log_flops", "log_bytes", "log_m", "log_n", "log_k", "log_min_dim", "log_flops_squared"};
  double best = selection_score(cross_validate_regression(reference, samples)) - kSelectionStep;
  std::int64_t chosen = 0;
  reference.features.insert(reference.features.end(), {"m_block_remainder", "n_block_remainder", "k_block_remainder", "nk_block_remainder"});
  for (const std::int64_t block : {8, 16, 24, 32, 40, 48, 56, 64, 80, 96, 128, 192, 256}) {
    reference.blocking = block;
    const ErrorStats e = cross_validate_regression(reference, samples);
    if (e.count && selection_score(e) < best) best = selection_score(e), chosen = block;
  }
  return chosen;
}

}  // namespace

void weigh_by_time(std::vector<ComputeSample>& samples, double exponent) {
  if (!(exponent >= 0)) throw InputError("a time weight's exponent must be at least 0 (got " + std::to_string(exponent) + ")");
  std::map<std::string, std::vector<double>> times;
  for (const ComputeSample& s : samples)
    if (s.kernel.cls == KernelClass::gemm || s.kernel.cls == KernelClass::conv) times[s.kernel_class].push_back(s.seconds);
  std::map<std::string, double> median;
  for (auto& [cls, t] : times) {
    std::nth_element(t.begin(), t.begin() + static_cast<std::ptrdiff_t>(t.size() / 2), t.end());
    median[cls] = t[t.size() / 2];
  }
  for (ComputeSample& s : samples) {
    const auto it = median.find(s.kernel_class);
    s.weight = it == median.end() || exponent == 0 ? 1.0 : std::clamp(std::pow(s.seconds / it->second, exponent), kMinTimeWeight, kMaxTimeWeight);
  }
}

std::optional<DType> keep_one_matrix_type(ComputeData& data, std::optional<DType> dtype) {
  std::map<DType, int> counts;
  for (const ComputeSample& s : data.samples)
    if (s.kernel.cls == KernelClass::gemm || s.kernel.cls == KernelClass::conv) ++counts[s.kernel.dtype];
  if (counts.empty()) return std::nullopt;
  if (!dtype && counts.count(DType::f32)) dtype = DType::f32;
  if (!dtype)
    dtype = std::max_element(counts.begin(), counts.end(), [](const auto& a, const auto& b) { return a.second < b.second; })->first;
  std::vector<ComputeSample> kept;
  for (ComputeSample& s : data.samples) {
    if ((s.kernel.cls == KernelClass::gemm || s.kernel.cls == KernelClass::conv) && s.kernel.dtype != *dtype)
      data.excluded.push_back({s.kernel_class + " in " + std::string(dtype_name(s.kernel.dtype)),
                               "one element type per fit: this one fits " + std::string(dtype_name(*dtype)) + " (--dtype picks another)"});
    else
      kept.push_back(std::move(s));
  }
  data.samples = std::move(kept);
  return dtype;
}

namespace {

/// A host_op record: its op kind's forward and backward host seconds, or an exclusion saying why not.
std::optional<std::tuple<std::string, double, double>> read_op_host(const bench::Record& r, const std::string& where, ComputeData& d) {
  if (r.status != "ok") {
    d.excluded.push_back({where, "status " + r.status + (r.reason.empty() ? "" : ": " + r.reason)});
    return std::nullopt;
  }
  const std::string kind = r.params.is_object() && r.params.contains("op_kind") && r.params["op_kind"].is_string() ? r.params["op_kind"].get<std::string>() : "";
  if (!parse_op_kind(kind)) {
    d.excluded.push_back({where, "host_op record of an unknown op kind '" + kind + "'"});
    return std::nullopt;
  }
  const auto seconds = [&](const char* name) {
    const auto it = r.metrics.find(name);
    return it != r.metrics.end() && it->is_number() && std::isfinite(it->get<double>()) && it->get<double>() >= 0 ? it->get<double>() : -1.0;
  };
  const double forward = seconds("forward_host_s"), backward = seconds("backward_host_s");
  if (forward < 0 || backward < 0) {
    d.excluded.push_back({where, "host_op record without non-negative metrics forward_host_s and backward_host_s"});
    return std::nullopt;
  }
  return std::tuple{kind, forward, backward};
}

/// A sync_step record: its co-running and wait ratios, or an exclusion saying why not. Whether it
/// was used.
bool read_sync_step(const bench::Record& r, const std::string& where, ComputeData& d) {
  if (r.status != "ok") {
    d.excluded.push_back({where, "status " + r.status + (r.reason.empty() ? "" : ": " + r.reason)});
    return false;
  }
  const int ranks = r.layout.is_object() && r.layout.contains("co_running") && r.layout["co_running"].is_number_integer()
                        ? r.layout["co_running"].get<int>() : 0;
  if (ranks < 2) {
    d.excluded.push_back({where, "sync_step record without a layout co_running of at least 2 ranks"});
    return false;
  }
  const auto seconds = [&](const char* name) {
    const auto it = r.metrics.find(name);
    return it != r.metrics.end() && it->is_number() && std::isfinite(it->get<double>()) && it->get<double>() > 0 ? it->get<double>() : -1.0;
  };
  const double lone = seconds("lone_median_s"), own = seconds("own_median_s"), slowest = seconds("slowest_median_s");
  if (lone < 0 || own < 0 || slowest < 0) {
    d.excluded.push_back({where, "sync_step record without positive metrics lone_median_s, own_median_s and slowest_median_s"});
    return false;
  }
  if (slowest < own) {
    d.excluded.push_back({where, "sync_step record whose slowest rank's median step is below a rank's own (slowest_median_s < own_median_s)"});
    return false;
  }
  d.step_co_run_ratios[ranks].push_back(own / lone);
  d.sync_wait_ratios[ranks].push_back(slowest / own);
  // Records from before 2026-12-03's night have no DDP steps: their ratios stand alone.
  if (!r.metrics.contains("ddp_slowest_median_s")) return true;
  const double ddp = seconds("ddp_slowest_median_s");
  const auto buckets = r.metrics.find("ddp_bucket_bytes");
  const bool named = r.params.is_object() && r.params.contains("network") && r.params["network"].is_string();
  ComputeData::DdpStep step{named ? r.params["network"].get<std::string>() : "?", ranks, ddp - slowest, {}};
  if (buckets != r.metrics.end() && buckets->is_array())
    for (const nlohmann::json& b : *buckets)
      if (b.is_number() && b.get<double>() > 0) step.bucket_bytes.push_back(b.get<double>());
  if (ddp < 0 || step.bucket_bytes.empty() || buckets->size() != step.bucket_bytes.size())
    d.excluded.push_back({where, "sync_step record's DDP steps without a positive ddp_slowest_median_s and positive ddp_bucket_bytes (its co-running kept)"});
  else
    d.ddp_steps.push_back(std::move(step));
  return true;
}

/// A pass_distance record, or an exclusion saying why not.
std::optional<ComputeData::PassDistance> read_pass_distance(const bench::Record& r, const std::string& where, ComputeData& d) {
  if (r.status != "ok" || !r.timing) {
    d.excluded.push_back({where, "status " + r.status + (r.reason.empty() ? "" : ": " + r.reason)});
    return std::nullopt;
  }
  const auto number = [](const nlohmann::json& j, const char* name) {
    return j.is_object() && j.contains(name) && j[name].is_number() && std::isfinite(j[name].get<double>()) ? j[name].get<double>() : -1.0;
  };
  const std::string direction = r.params.is_object() && r.params.contains("direction") && r.params["direction"].is_string() ? r.params["direction"].get<std::string>() : "";
  ComputeData::PassDistance p{direction == "write", number(r.params, "bytes"), number(r.metrics, "distance_bytes"), r.timing->median, number(r.metrics, "hot_median_s")};
  if (direction != "read" && direction != "write") {
    d.excluded.push_back({where, "pass_distance record whose params.direction is neither read nor write"});
    return std::nullopt;
  }
  if (!(p.bytes > 0) || p.distance_bytes < 0 || !(p.seconds > 0) || !(p.hot_seconds > 0)) {
    d.excluded.push_back({where, "pass_distance record without a positive params.bytes, time and metrics.hot_median_s and a non-negative metrics.distance_bytes"});
    return std::nullopt;
  }
  return p;
}

/// Whether an fp32 record ran with its framework's TF32 switch on, which scripts/torch_bench.py
/// writes into the run's context: convolutions torch.backends.cudnn.allow_tf32 (on by default,
/// libraries.tf32.cudnn), GEMMs torch.backends.cuda.matmul.allow_tf32 (off by default,
/// libraries.tf32.matmul). A CPU has no such math.
bool ran_tf32(const bench::Record& r) {
  if (!r.context || !r.layout.is_object() || r.layout.value("device", std::string("cpu")) == "cpu") return false;
  const nlohmann::json::json_pointer switch_on(r.op == "gemm" ? "/libraries/tf32/matmul" : "/libraries/tf32/cudnn");
  return r.context->contains(switch_on) && r.context->at(switch_on).is_boolean() && r.context->at(switch_on).get<bool>();
}

}  // namespace

const char* const kUnheldConvolutionsNote =
    "convolutions timed by bench with unheld events (records without layout.timing \"queued\", before 2026-12-07) hold cuDNN's own "
    "host time, tens of microseconds that vary from call to call: their rows say little of the GPU's work";

bool has_unheld_convolutions(const ComputeData& data) {
  const auto unheld = [](const ComputeSample& s) { return s.bracketed && s.kernel.cls == KernelClass::conv; };
  return std::any_of(data.samples.begin(), data.samples.end(), unheld) || std::any_of(data.tf32_samples.begin(), data.tf32_samples.end(), unheld);
}

void check_device_kind(const ComputeData& data, const HardwareProfile& profile, const std::vector<std::string>& files) {
  if (data.device.empty() || data.device == "?") return;  // records that name no device
  const std::string kind = data.device == "cpu" ? "cpu" : "gpu";  // the PyTorch backend and bench name a GPU by its model
  if (kind == profile.device.kind) return;
  std::string names;
  for (const std::string& f : files) names += (names.empty() ? "" : ", ") + f;
  throw InputError(names + ": measured on " + (kind == "cpu" ? "a CPU" : "a GPU (" + data.device + ")") + ", but profile '" + profile.name +
                   "' describes a " + profile.device.kind + " (" + profile.device.model + "); fit or score records against a profile of their own kind" +
                   (kind == "cpu" ? " (--hardware cpu)" : " (--hardware h200, a100, ...)"));
}

ComputeData load_compute_data(const std::vector<std::string>& files) {
  ComputeData d;
  std::set<std::string> hosts, devices;
  std::set<std::string> seen;
  std::map<std::string, std::pair<std::size_t, std::string>> sample_of;  // per shape: its sample and the algorithm timed
  std::map<std::size_t, std::vector<std::pair<std::string, double>>> runs_of;  // per sample timed in several files: its other runs (file, time)
  std::vector<std::string> sample_file;                                   // per sample: the file its first run is from
  std::vector<SessionTime> timed;                                         // every run, for the sessions' speeds
  std::set<std::pair<std::string, std::string>> timed_in;                // (file, shape) of every run taken
  struct CoRun {
    std::string file, id;
    int processes;
    double seconds;
  };
  std::vector<CoRun> co_run;
  std::map<std::string, std::map<std::string, double>> alone;  // per file, per kernel: its time alone
  struct Hot {
    std::string file, id, where;
    Kernel kernel;
    std::string cls;
    double seconds;
  };
  std::vector<Hot> hot;
  std::map<std::string, std::map<std::string, double>> pair_cold;  // per file, per kernel: a hot pair's cold time
  struct OpHost {
    std::string file, kind;
    double forward, backward;
  };
  std::vector<OpHost> op_host;
  std::vector<std::pair<std::string, ComputeData::PassDistance>> pass_distances;  // with their file
  for (const std::string& file : files) {
    bench::RecordStream records(file);
    while (const bench::Record* record = records.next()) {
      const bench::Record& r = *record;
      const std::size_t i = records.index();
      const std::string where = file + " record " + std::to_string(i + 1);
      if (r.op == "host_op") {
        if (const auto t = read_op_host(r, where, d)) op_host.push_back({file, std::get<0>(*t), std::get<1>(*t), std::get<2>(*t)});
        if (r.status == "ok") hosts.insert(r.host), devices.insert(r.layout.value("device", std::string("?")));
        continue;
      }
      if (r.op == "pass_distance") {
        if (const auto p = read_pass_distance(r, where, d)) pass_distances.emplace_back(file, *p);
        if (r.status == "ok") hosts.insert(r.host), devices.insert(r.layout.value("device", std::string("?")));
        continue;
      }
      if (r.op == "launch" && bracketed_on_idle_gpu(r)) {
        if (r.status == "ok" && r.timing && r.params.value("kernels", 0) == 1 && std::isfinite(r.timing->median) && r.timing->median > 0)
          d.bracket_s = r.timing->median;
        continue;
      }
      if (r.op == "sync_step") {
        if (read_sync_step(r, where, d)) hosts.insert(r.host), devices.insert(r.layout.value("device", std::string("?")));
        continue;
      }
      if (r.op != "gemm" && r.op.rfind("conv_", 0) != 0 && r.op.rfind("memory_", 0) != 0) continue;
      if (r.status != "ok" || !r.timing) {
        d.excluded.push_back({where, "status " + r.status + (r.reason.empty() ? "" : ": " + r.reason)});
        continue;
      }
      if (!std::isfinite(r.timing->median) || r.timing->median <= 0) {
        d.excluded.push_back({where, "time is not a positive number"});
        continue;
      }
      // A kernel has an element type, not a math mode: these are fp32 GEMMs and convolutions on TF32
      // (bench's "tf32" records; PyTorch's matmuls with its TF32 switch on).
      const bool tf32_record = r.dtype == "tf32" || (r.op == "gemm" && r.dtype == "f32" && ran_tf32(r));
      if (tf32_record && r.op != "gemm" && r.op.rfind("conv_", 0) != 0) {
        d.excluded.push_back({where, "TF32 is a math of GEMMs and convolutions, not of memory passes"});
        continue;
      }
      if (r.op.rfind("conv_", 0) == 0 && r.dtype == "f32") {
        const bool tf32 = ran_tf32(r);
        if (!d.fp32_conv_tf32) d.fp32_conv_tf32 = tf32;
        if (*d.fp32_conv_tf32 != tf32) {
          d.excluded.push_back({where, std::string("an fp32 convolution timed with TF32 math ") + (tf32 ? "on" : "off") + ", the fit's first ones with it " +
                                           (tf32 ? "off" : "on") + " (PyTorch's torch.backends.cudnn.allow_tf32): one fit keeps one math mode"});
          continue;
        }
      }
      std::optional<Kernel> k;
      try {
        if (tf32_record) {
          bench::Record as_f32 = r;
          as_f32.dtype = "f32";
          k = kernel_of(as_f32);
        } else {
          k = kernel_of(r);
        }
      } catch (const std::exception& e) {
        d.excluded.push_back({where, std::string("parameters unusable: ") + e.what()});
        continue;
      }
      if (!k) {
        d.excluded.push_back({where, "unknown dtype " + r.dtype});
        continue;
      }
      const std::string cls = calibration_class(*k);
      const bool few_channel_gpu_batch_norm =
          r.op.rfind("memory_batch_norm", 0) == 0 && r.layout.is_object() && r.layout.value("device", std::string("cpu")) != "cpu" &&
          !(r.layout.contains("pass_channels") && r.layout["pass_channels"].is_number() && r.layout["pass_channels"].get<double>() >= 128);
      // An optimizer step over rotated parameters (met cold) is another measurement than one
      // parameter stepped again and again: never a repeat of it, nor a session anchor for it.
      const std::string id = r.op + r.params.dump() + r.dtype + (k->footprint_bytes > 0 ? "|rotated " + r.layout.at("rotated_parameters").dump() : "");
      hosts.insert(r.host);
      devices.insert(r.layout.value("device", std::string("?")));
      const int co_running = r.layout.is_object() && r.layout.contains("co_running") && r.layout["co_running"].is_number_integer()
                                 ? r.layout["co_running"].get<int>() : 1;
      if (co_running > 1) {
        co_run.push_back({file, id, co_running, r.timing->median});
        continue;
      }
      if (r.layout.is_object() && r.layout.contains("hot_pair") && r.layout["hot_pair"] == true) {
        // Either half of a hot pair: the cold one is the pair's baseline, not a sample (the
        // file's anchors, never paired, put it on the other files' speed).
        if (k->cls != KernelClass::conv) d.excluded.push_back({where, "a hot pair of a kernel other than a convolution (only convolutions' warmth is modelled)"});
        else if (r.layout.value("caches", std::string()) == "hot") hot.push_back({file, id, where, *k, cls, r.timing->median});
        else pair_cold[file].try_emplace(id, r.timing->median);
        continue;
      }
      alone[file].try_emplace(id, r.timing->median);
      if (r.layout.is_object() && r.layout.contains("co_running")) continue;  // a co-running kernel's baseline only
      if (!seen.insert(id).second) {
        // cuDNN records of one shape: its heuristic's choice and the fastest a search found. The
        // heuristic's is what frameworks run by default (PyTorch without cudnn.benchmark).
        const auto kept = sample_of.find(id);
        const bool variant = kept != sample_of.end() && kept->second.second != r.algorithm;
        // Another file's run of the shape, unless this file has timed it already (a second timing
        // in one file is a duplicate, whichever file the sample came from).
        if (!variant && kept != sample_of.end() && sample_file[kept->second.first] != file && timed_in.emplace(file, id).second) {
          runs_of[kept->second.first].emplace_back(file, r.timing->median);
          timed.push_back({file, id, cls, r.timing->median});
          continue;
        }
        if (variant && r.algorithm.find(":heuristic:") != std::string::npos && kept->second.second.find(":heuristic:") == std::string::npos) {
          d.samples[kept->second.first].seconds = r.timing->median;
          kept->second.second = r.algorithm;
        }
        d.excluded.push_back({where, variant ? "another algorithm of a measured shape (cuDNN's heuristic choice is kept, as frameworks run by default)"
                                             : "duplicate shape"});
        continue;
      }
      // How long the framework's host takes to queue the kernel (CUDA: torch_bench's dispatch_s).
      // bench's GPU programs time their library's call alone (cuBLAS, cuDNN), which a framework
      // adds its own work to: not the profile's host_dispatch_s.
      if (const auto it = r.metrics.find("dispatch_s"); !library_call(r) && it != r.metrics.end() && it->is_number() && it->get<double>() > 0)
        d.dispatch_seconds[cls].push_back(it->get<double>());
      if (few_channel_gpu_batch_norm) {
        d.excluded.push_back({where, "training batch norm on a GPU over an image of few channels (scripts/torch_bench.py before its pass_channels): "
                                     "most multiprocessors idle, unlike a network's layers; its time is not used, its host dispatch time is"});
        continue;
      }
      d.threads = r.layout.value("threads", 0);
      d.library = r.library;
      ComputeSample sample{*k, cls, r.timing->median};
      sample.bracketed = bracketed_on_idle_gpu(r);
      if (tf32_record) {
        sample.tf32 = true;
        d.tf32_samples.push_back(sample);
        continue;
      }
      sample_of[id] = {d.samples.size(), r.algorithm};
      timed_in.emplace(file, id);
      d.samples.push_back(sample);
      sample_file.push_back(file);
      timed.push_back({file, id, cls, r.timing->median});
    }
  }
  // Every run on the scale of its group's reference session, before runs of one shape are merged.
  d.sessions = session_speeds(timed);
  std::map<std::string, const SessionSpeed*> speed_of;
  for (const SessionSpeed& s : d.sessions) speed_of[s.session] = &s;
  for (std::size_t i = 0; i < d.samples.size(); ++i) {
    d.samples[i].seconds /= speed_of.at(sample_file[i])->factor(d.samples[i].kernel_class);
    d.samples[i].first_seconds = d.samples[i].seconds;
  }
  const auto speed = [&](const std::string& file, const std::string* cls) {
    const auto it = speed_of.find(file);
    return it == speed_of.end() ? 1.0 : cls ? it->second->factor(*cls) : it->second->overall.applied;
  };
  for (const Hot& h : hot) {
    const auto& cold = pair_cold[h.file];
    const auto it = cold.find(h.id);
    if (it == cold.end()) {
      d.excluded.push_back({h.where, "a hot timing without its cold one in the same file (scripts/torch_bench.py --cold --hot-pairs writes both)"});
      continue;
    }
    const double f = speed(h.file, &h.cls);
    d.hot_pairs.push_back({h.kernel, it->second / f, h.seconds / f});
  }
  for (auto [file, p] : pass_distances) {
    const double f = speed(file, nullptr);
    p.seconds /= f, p.hot_seconds /= f;
    d.pass_distances.push_back(p);
  }
  for (const OpHost& o : op_host) {
    const double f = speed(o.file, nullptr);
    d.op_host_seconds[o.kind].push_back({o.forward / f, o.backward / f});
  }
  for (auto& [index, others] : runs_of) {
    ComputeSample& s = d.samples[index];
    std::vector<double> runs{s.seconds};
    for (const auto& [file, seconds] : others) runs.push_back(seconds / speed_of.at(file)->factor(s.kernel_class));
    const bench::Timing t = bench::summarize(runs);  // the runs as one record's repetitions, as for collectives
    s.seconds = t.median;
    s.runs = t.repetitions;
    s.run_spread = (t.max - t.min) / (std::accumulate(runs.begin(), runs.end(), 0.0) / static_cast<double>(runs.size()));
  }
  const auto several = [](const std::set<std::string>& s) {
    std::string out;
    for (const auto& x : s) out += (out.empty() ? "" : ", ") + x;
    return out;
  };
  // A co-running kernel against the same kernel alone, from the same session where there is one.
  for (const CoRun& c : co_run) {
    const double* base = nullptr;
    if (const auto f = alone[c.file].find(c.id); f != alone[c.file].end()) base = &f->second;
    for (auto it = alone.begin(); !base && it != alone.end(); ++it)
      if (const auto f = it->second.find(c.id); f != it->second.end()) base = &f->second;
    if (base) d.co_run_ratios[c.processes].push_back(c.seconds / *base);
    else d.excluded.push_back({c.file, "a co-running kernel never timed alone: " + c.id});
  }
  if (hosts.size() > 1) throw InputError("compute measurements from several hosts (" + several(hosts) + "); fit one system at a time");
  if (devices.size() > 1) throw InputError("compute measurements from several devices (" + several(devices) + "); fit one device at a time");
  if (!hosts.empty()) d.host = *hosts.begin();
  if (!devices.empty()) d.device = *devices.begin();
  return d;
}

std::int64_t pointwise_conv_gemm_below_batch(const ComputeData& data) {
  // ATen (PyTorch 1.13, aten/src/ATen/native/Convolution.cpp, use_mkldnn): "For 1x1 filters,
  // MKLDNN is faster than THNN when multi-threaded, but THNN is faster when single-threaded" —
  // oneDNN unless the convolution is 1x1, unstrided, undilated, its batch under 16 and one thread.
  return data.library == "PyTorch" && data.device == "cpu" && data.threads == 1 ? 16 : 0;
}

RegressionFit fit_regression(const std::string& kernel_class, const std::vector<ComputeSample>& all) {
  RegressionFit out;
  std::vector<ComputeSample> samples;
  for (const ComputeSample& s : all)
    if (s.kernel_class == kernel_class) samples.push_back(s);
  out.model.kernel_class = kernel_class;
  if (samples.size() < 12) {
    out.message = std::to_string(samples.size()) + " measurements: too few to fit and cross-validate";
    return out;
  }
  out.model.dtype = samples.front().kernel.dtype;
  out.model.blocking = regression_blocking(samples);
  // Greedy forward selection by cross-validated error, never by training error.
  out.model.features = {"one", "log_flops"};
  ErrorStats best = cross_validate_regression(out.model, samples);
  const auto& names = regression_feature_names();
  while (out.model.features.size() < kMaxRegressionFeatures) {
    std::string pick;
    ErrorStats pick_stats = best;
    for (const std::string& f : names) {
      if (std::find(out.model.features.begin(), out.model.features.end(), f) != out.model.features.end()) continue;
      if (is_blocking_feature(f) && out.model.blocking == 0) continue;
      RegressionModel candidate = out.model;
      candidate.features.push_back(f);
      const ErrorStats e = cross_validate_regression(candidate, samples);
      if (e.count && selection_score(e) < selection_score(pick_stats) - kSelectionStep) pick = f, pick_stats = e;
    }
    if (pick.empty()) break;
    out.model.features.push_back(pick);
    best = pick_stats;
  }
  std::vector<const ComputeSample*> train;
  for (const ComputeSample& s : samples) train.push_back(&s);
  out.converged = solve_regression(out.model, train, true, &out.message);
  out.held_out = best;
  std::vector<std::pair<std::string, double>> family_log_errors;
  cross_validate_regression(out.model, samples, &family_log_errors);
  out.model.shared_sigma = shared_log_sigma(family_log_errors);
  return out;
}

constexpr std::pair<const char*, Phase> kConvDirections[] = {
    {"conv_forward", Phase::forward}, {"conv_backward_data", Phase::backward_data}, {"conv_backward_filter", Phase::backward_weight}};

AnalyticFit fit_analytic(const DeviceSpec& base, const ComputeData& data) {
  AnalyticFit out;
  out.device = base;
  // A CPU backend's threads are its "SMs"; a GPU's records name the host's threads, which are not.
  const bool threads_are_units = data.threads > 0 && base.kind != "gpu";
  if (threads_are_units) out.device.multiprocessors = data.threads;
  std::vector<const ComputeSample*> all;
  for (const ComputeSample& s : data.samples) all.push_back(&s);
  out.converged = fit_device(out.device, all, threads_are_units, &out.message);
  // Held-out errors per class: refit on the other folds.
  const std::vector<int> f = folds(data.samples);
  std::map<std::string, std::vector<std::pair<double, double>>> pairs;  // per class: measured, predicted
  std::map<std::string, std::vector<std::pair<std::string, double>>> families;  // per class: family, log error
  // GEMMs and convolutions priced by the tiles alone, to weigh the structural models against.
  std::map<std::string, std::vector<std::pair<double, double>>> tiled_pairs;
  std::map<std::string, std::vector<std::pair<std::string, double>>> tiled_families;
  std::map<std::string, int> folds_without;  // per class: folds too small for its structural model
  for (int fold = 0; fold < kFolds; ++fold) {
    std::vector<const ComputeSample*> train;
    for (std::size_t i = 0; i < data.samples.size(); ++i)
      if (f[i] != fold) train.push_back(&data.samples[i]);
    DeviceSpec d = base;
    if (threads_are_units) d.multiprocessors = data.threads;
    if (!fit_device(d, train, threads_are_units, nullptr, &out.device)) continue;
    if (out.device.blocked_gemm.enabled() && !d.blocked_gemm.enabled()) ++folds_without["gemm"];
    for (const auto& [cls, phase] : kConvDirections)
      if (out.device.direct_conv[static_cast<int>(phase)].enabled() && !d.direct_conv[static_cast<int>(phase)].enabled()) ++folds_without[cls];
    const AnalyticComputeModel model(d);
    DeviceSpec tiled_device = d;
    tiled_device.blocked_gemm = BlockedGemm{};
    tiled_device.direct_conv = {};
    const AnalyticComputeModel tiled(tiled_device);
    for (std::size_t i = 0; i < data.samples.size(); ++i)
      if (f[i] == fold) {
        const ComputeSample& s = data.samples[i];
        pairs[s.kernel_class].emplace_back(s.seconds, model.seconds(s.kernel, {}));
        families[s.kernel_class].emplace_back(error_family(s.kernel), std::log(pairs[s.kernel_class].back().second / s.seconds));
        if (s.kernel.cls != KernelClass::gemm && s.kernel.cls != KernelClass::conv) continue;
        tiled_pairs[s.kernel_class].emplace_back(s.seconds, tiled.seconds(s.kernel, {}));
        tiled_families[s.kernel_class].emplace_back(error_family(s.kernel), std::log(tiled_pairs[s.kernel_class].back().second / s.seconds));
      }
  }
  // Each structural model stays only where it predicts its class's held-out kernels better than
  // the tiles (MAPE + weighted); the blocked GEMM model's class also decides for per_image_gemm.
  const auto choose = [&](const std::string& cls, const std::string& model, bool enabled, const std::function<void()>& disable,
                          std::vector<std::string> follow) {
    if (!enabled || !pairs.count(cls) || !tiled_pairs.count(cls)) return;
    StructuralChoice c{cls, model, error_stats(pairs[cls], 0), error_stats(tiled_pairs[cls], 0), true, folds_without[cls]};
    c.kept = c.structural.mape + c.structural.weighted < c.tiled.mape + c.tiled.weighted;
    out.choices.push_back(c);
    if (c.kept) return;
    disable();
    follow.push_back(cls);
    for (const std::string& name : follow)
      if (tiled_pairs.count(name)) pairs[name] = tiled_pairs[name], families[name] = tiled_families[name];
  };
  choose("gemm", "cache-blocked", out.device.blocked_gemm.enabled(), [&] { out.device.blocked_gemm = BlockedGemm{}; }, {"per_image_gemm"});
  for (const auto& [cls, phase] : kConvDirections) {
    DirectConv& d = out.device.direct_conv[static_cast<int>(phase)];
    choose(cls, "direct", d.enabled(), [&d] { d = DirectConv{}; }, {});
  }
  // Measured, but too few for a structural model at all: said, not left to the tiles' error.
  const auto count = [&](const std::string& cls) {
    return std::count_if(data.samples.begin(), data.samples.end(), [&](const ComputeSample& s) { return s.kernel_class == cls; });
  };
  const auto too_few = [&](const std::string& cls, const std::string& model, bool fitted, std::size_t needs) {
    if (const auto n = count(cls); !fitted && n > 0 && static_cast<std::size_t>(n) < needs)
      out.too_few.push_back(cls + ": " + model + " model not fitted: " + std::to_string(n) + " measurements, it needs " + std::to_string(needs) +
                            "; priced by the tiles");
  };
  too_few("gemm", "cache-blocked", out.device.blocked_gemm.enabled(), kBlockedGemmMinSamples);
  for (const auto& [cls, phase] : kConvDirections)
    too_few(cls, "direct", out.device.direct_conv[static_cast<int>(phase)].enabled(), kDirectConvMinSamples);
  // Each class's held-out spread becomes the interval of the kernels it prices; the three
  // convolution directions share one efficiency, and so one spread.
  std::vector<std::pair<double, double>> conv;
  std::vector<std::pair<std::string, double>> conv_families;
  const auto set = [](auto& efficiency, double sigma, const std::vector<std::pair<std::string, double>>& by_family) {
    efficiency.residual_sigma = sigma;
    efficiency.shared_sigma = std::min(sigma, shared_log_sigma(by_family));
  };
  for (auto& [cls, errors] : pairs) {
    out.held_out.push_back({cls, error_stats(errors, 0)});
    const double sigma = out.held_out.back().second.log_sigma;
    const auto& of_class = families[cls];
    if (cls == "gemm") set(out.device.gemm, sigma, of_class);
    else if (cls == "memory") set(out.device.memory, sigma, of_class);
    else if (cls.rfind("conv_", 0) == 0) {
      conv.insert(conv.end(), errors.begin(), errors.end());
      conv_families.insert(conv_families.end(), of_class.begin(), of_class.end());
    } else if (cls.rfind("pass:", 0) == 0)
      if (const auto it = out.device.passes.find(cls.substr(5)); it != out.device.passes.end()) set(it->second, sigma, of_class);
  }
  if (!conv.empty()) set(out.device.conv, error_stats(conv, 0).log_sigma, conv_families);
  return out;
}

}  // namespace dnnperf::fitting
