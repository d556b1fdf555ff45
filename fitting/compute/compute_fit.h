#pragma once
// Fitting the two compute families to GEMM and convolution measurements (from `dnnperf bench` or
// the PyTorch backend, scripts/torch_bench.py):
//
//  * analytic: the roofline model's own parameters — effective fp32 peak, launch overhead and the
//    GEMM pipeline fill from GEMMs; convolution efficiency and fill, and memory bandwidth, from
//    convolutions — by Ceres on log errors, bounded to stay physical; beside the tiles, a CPU
//    BLAS's cache-blocked GEMM (models/compute/blocked_gemm.h) and, per direction, a CPU
//    library's direct convolution (models/compute/direct_conv.h), each kept where it predicts better.
//  * regression: per kernel class, log time linear in shape features (regression_model.h), by
//    Ceres with a Huber loss in log space; features chosen greedily by cross-validated error.
//
// Errors are always on shapes a fit did not see (5 folds over the measured shapes).
#include <map>
#include <string>
#include <vector>

#include "fitting/comm/comm_data.h"
#include "fitting/compute/session_speed.h"
#include "fitting/error_stats.h"
#include "models/compute/regression_model.h"
#include "profile/hardware_profile.h"
#include "core/lowering/kernel.h"

namespace dnnperf::fitting {

struct ComputeSample {
  Kernel kernel;
  std::string kernel_class;  // regression_class()
  double seconds = 0;
  int runs = 1;           // measurement files that timed this kernel: `seconds` is their median
  /// Its first run's time (on the reference session's scale): what does not move when later
  /// files add runs, so that what is chosen by it (reference kernels) stays chosen.
  double first_seconds = 0;
  double run_spread = 0;  // (slowest - fastest) / mean of those runs' times; 0 for one run
  /// Its weight in the structural models' fits (cache-blocked GEMM, direct convolution): 1, or
  /// as weigh_by_time sets it.
  double weight = 1;
  /// An fp32 kernel timed on TF32 tensor cores (a `dnnperf bench` record of dtype tf32): only
  /// the GPU family, which has a TF32 math, fits and scores these (ComputeData::tf32_samples).
  bool tf32 = false;
  /// Timed with the host's launch inside the timing (bracketed_on_idle_gpu): its time is the
  /// kernel's plus ComputeData::bracket_s.
  bool bracketed = false;
};

struct ComputeData {
  std::vector<ComputeSample> samples;
  /// fp32 GEMMs and convolutions timed on TF32 (ComputeSample::tf32), apart from `samples` so
  /// that the families without a TF32 math never see them.
  std::vector<ComputeSample> tf32_samples;
  /// What `dnnperf bench`'s GPU programs time for one empty kernel on an idle GPU (their launch
  /// record of one kernel): the host's launch and the kernel's least time, which every record
  /// they time includes (ComputeSample::bracketed). 0: no such record in the files.
  double bracket_s = 0;
  std::vector<Exclusion> excluded;
  std::string host;
  std::string device;
  int threads = 0;  // CPU threads the backend used (0: not a CPU measurement)
  std::string library;  // the measuring library ("PyTorch", "cuDNN", ...) of the last record
  /// Whether the fp32 convolutions ran on TF32 tensor cores (the framework's switch on, on a GPU:
  /// PyTorch's torch.backends.cudnn.allow_tf32 in the run's context); nullopt: no fp32
  /// convolutions. Records timed the other way than the first are excluded: one fit, one math.
  std::optional<bool> fp32_conv_tf32;
  /// Per measurement file, how fast the machine ran against the other files that timed the same
  /// kernels (session_speed.h); every sample's time is on its group's reference file's scale.
  std::vector<SessionSpeed> sessions;
  /// Kernels timed again while P - 1 other processes ran kernels beside them (records with layout
  /// co_running = P, scripts/torch_bench.py --co-run): per P, each one's time over its time alone
  /// (co_running = 1 in the same file where it was timed so, else the samples' time). Neither
  /// kind is a sample.
  std::map<int, std::vector<double>> co_run_ratios;
  /// Training steps of P ranks meeting before every step (records of op sync_step,
  /// scripts/torch_sync_steps.py): per P and per record, a rank's own step over a lone process's
  /// (co-running, of whole steps) and the slowest rank's over a rank's own (the wait). Not samples.
  std::map<int, std::vector<double>> step_co_run_ratios, sync_wait_ratios;
  /// The same ranks' steps under DistributedDataParallel, where the record has them (metrics
  /// ddp_slowest_median_s, ddp_bucket_bytes): what DDP added to the synchronised step (the slowest
  /// rank's median DDP step less its median step without communication) and the gradient buckets
  /// it all-reduced. Not samples: the data-parallel step's overhead is fitted on them once the
  /// all-reduce is (device.ddp_step_overhead_s).
  struct DdpStep {
    std::string network;
    int ranks = 0;
    double added_s = 0;
    std::vector<double> bucket_bytes;
  };
  std::vector<DdpStep> ddp_steps;
  /// Per calibration_class(), the host's time to queue one call where the backend measured it
  /// (records' metrics.dispatch_s: scripts/torch_bench.py on CUDA); empty for synchronous devices.
  std::map<std::string, std::vector<double>> dispatch_seconds;
  /// Convolutions timed cold and right after back to back (records with layout caches = hot,
  /// scripts/torch_bench.py --hot-pairs, paired with the same file's cold record), both on the
  /// scale of the file's session. Not samples: fit_warm_savings' data.
  struct HotPair {
    Kernel kernel;
    double cold_s = 0, hot_s = 0;
  };
  std::vector<HotPair> hot_pairs;
  /// A 4 MiB memory pass read or written where it was last touched far back, beside the same pass
  /// timed hot right before (records of op pass_distance, scripts/torch_bench.py --pass-distances).
  /// Not samples: fit_pass_far_prices' data (fitting/compute/pass_far_fit.h).
  struct PassDistance {
    bool written = false;          // written (a product into the buffer) or read (a sum of it)
    double bytes = 0;              // of the buffer
    double distance_bytes = 0;     // other buffers' bytes touched since it was, as the step replay counts them
    double seconds = 0, hot_seconds = 0;  // medians, far and hot
  };
  std::vector<PassDistance> pass_distances;
  /// Per IR op kind, the host's seconds per op, forward and backward (records of op host_op:
  /// scripts/torch_bench.py --op-host), on the scale of the file's session (its overall factor). Not samples.
  std::map<std::string, std::vector<std::pair<double, double>>> op_host_seconds;
};

/// Whether `data` holds convolutions `dnnperf bench` timed with unheld events (records without
/// layout.timing "queued", before 2026-12-07): their times hold cuDNN's own host time.
bool has_unheld_convolutions(const ComputeData& data);
/// What that means for them, as fit and score say it.
extern const char* const kUnheldConvolutionsNote;

/// GEMM and convolution records of the files. A shape timed again in another file is another run
/// of it: the sample takes the median of its runs and their spread (the run-to-run noise, the
/// floor any model's error has on single runs); timed twice in one file, the second is excluded
/// as a duplicate. Files that share kernels are first put on one speed (`sessions`): each run is
/// divided by its file's factor for its class. Throws InputError for measurements of several hosts or devices, which one fit
/// must not mix.
ComputeData load_compute_data(const std::vector<std::string>& files);

/// Throws InputError where `data` was measured on another kind of device than `profile`
/// describes (records of a CPU against a GPU profile, or the reverse): their times would be fitted
/// or scored by the other kind's models, a silently wrong price. `files` name them in the message.
void check_device_kind(const ComputeData& data, const HardwareProfile& profile, const std::vector<std::string>& files);

/// Keeps the GEMMs and convolutions of one element type, `dtype` or by default f32 where there
/// are any (else the most measured type), and moves the others to `data.excluded`: both families
/// fit one surface per kernel class, which two element types' rates would blur. Returns the type
/// kept (nullopt without GEMMs and convolutions).
std::optional<DType> keep_one_matrix_type(ComputeData& data, std::optional<DType> dtype = std::nullopt);

/// DeviceSpec::pointwise_conv_gemm_below_batch for the framework that measured `data`: 16 where
/// PyTorch measured on one CPU thread (ATen's own 1x1 path, models/compute/conv_as_gemm.h), else 0.
std::int64_t pointwise_conv_gemm_below_batch(const ComputeData& data);

/// Weighs every GEMM and convolution sample in the structural models' fits by its time against
/// its class's median, (seconds / median)^exponent, kept within [kMinTimeWeight, kMaxTimeWeight];
/// exponent 0 weighs them alike. Why: those fits minimise log errors, which count a 20 us kernel
/// as much as a 20 ms one, while a network's step is a sum in which the long kernels decide. On a
/// quiet Intel VM (2026-12-03) the unweighted fits priced the validated CNNs' own batch-16 kernels
/// 11-12% fast in sum (each class's in-sample time-weighted bias -7..-11%) and every training step
/// 10% fast; weighted with exponent 0.5, the training MAPE fell 10.2 -> 7.8% on the same runs
/// (docs/models/cpu-evidence.md: cpu-vm-2core-2026-12-03-intel). On the noisier AMD calibrations a fixed
/// exponent moved the errors either way, so `fit` chooses it on networks not validated
/// (--time-weight auto). It trades kernels for sums: weighted, DenseNet-121's own kernels were
/// priced at 28% MAPE against 13%, its whole steps closer.
void weigh_by_time(std::vector<ComputeSample>& samples, double exponent);
constexpr double kMinTimeWeight = 0.05, kMaxTimeWeight = 20;

/// The fold (of kFolds) of each sample, by its shape alone: the same kernel in several files
/// always falls in one fold, and a sample's fold does not move when others join the data.
/// `across_types`: a shape's fold is the same in every element type (a fit across types must not
/// train on a shape's bf16 time while holding out its f16 one). `shuffle` draws another assignment.
std::vector<int> shape_folds(const std::vector<ComputeSample>& samples, bool across_types, std::uint64_t shuffle = 0);

struct RegressionFit {
  RegressionModel model;
  bool converged = false;
  std::string message;
  ErrorStats held_out;
};

RegressionFit fit_regression(const std::string& kernel_class, const std::vector<ComputeSample>& samples);

struct StructuralChoice {
  std::string kernel_class;
  std::string model;  // "cache-blocked" or "direct"
  ErrorStats structural, tiled;
  bool kept = false;
  /// Held-out folds whose training part was too small for the model (those folds' kernels are
  /// priced by the tiles in `structural` too): a small calibration, not a bad model.
  int folds_without = 0;
};

struct AnalyticFit {
  DeviceSpec device;      // the base device with the fitted parameters
  bool converged = false;
  std::string message;
  std::vector<std::pair<std::string, ErrorStats>> held_out;  // per kernel class
  /// Per class where a structural model was fitted (gemm: the cache-blocked GEMM; each
  /// convolution direction: the direct model), its held-out errors and the tiles': it is kept in
  /// `device` only where its MAPE + weighted error is the lower.
  std::vector<StructuralChoice> choices;
  /// Classes measured too few times for their structural model (priced by the tiles): what, how
  /// many, how many it needs.
  std::vector<std::string> too_few;
};

AnalyticFit fit_analytic(const DeviceSpec& base, const ComputeData& data);

}  // namespace dnnperf::fitting
