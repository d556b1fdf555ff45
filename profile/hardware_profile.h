#pragma once
// HardwareProfile: what dnnperf knows about a machine — a device, the node that holds several of
// them, the cluster network between nodes — plus the parameters of the cost models for it.
//
// Profiles are JSON files (docs/hardware-format.md); data/hardware/ ships datasheet profiles of
// V100, A100 (40 and 80 GB), H100, H200 nodes and a generic CPU node. Datasheet profiles carry
// default model parameters; calibration (dnnperf fit) replaces them through the same fields.
#include <array>
#include <cstdint>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/common/dtype.h"
#include "profile/comm_model.h"
#include "profile/cpu_library_models.h"
#include "profile/gpu_kernel_params.h"
#include "profile/regression_model.h"

namespace dnnperf {

/// The arithmetic a kernel runs on: plain units or tensor cores, per element type.
enum class MathMode : std::uint8_t { fp64, fp64_tensor, fp32, tf32_tensor, fp16, fp16_tensor, bf16, bf16_tensor, fp8_tensor };
std::string_view math_mode_name(MathMode mode);

/// Efficiency of a GEMM-like kernel class (GEMM, convolution as implicit GEMM): the fraction of
/// peak reached by a large, well-shaped problem, reduced by tile and wave quantisation over the
/// device's multiprocessors and by the pipeline fill of each tile's loop over k,
/// k / (k + half_efficiency_k).
struct MatrixEfficiency {
  double max_efficiency = 0.8;
  std::int64_t tile_m = 128;
  std::int64_t tile_n = 128;
  double half_efficiency_k = 64;
  /// Spread of log(measured / modelled) on shapes the fit did not see (0: unknown): the 95%
  /// interval of a kernel the analytic model prices is its time times exp(+-1.96 sigma).
  double residual_sigma = 0;
  /// The part of that spread a family of similar kernels shares (models/compute/error_family.h),
  /// at most residual_sigma; 0: errors taken as independent between kernels.
  double shared_sigma = 0;
};

/// Efficiency of memory-bound passes: max_efficiency of peak bandwidth, with a ramp
/// bytes / (bytes + half_efficiency_bytes) for passes too small to hide latency. Where caches are
/// large against the passes (CPUs; GPU L2s of 50 MB and more), passes that overflow them run
/// slower by up to `dram_slowdown`: their time is multiplied by
///   1 + (dram_slowdown - 1) * bytes / (bytes + cache_bytes).
/// The default (slowdown 1) is a plain roofline.
struct MemoryEfficiency {
  double max_efficiency = 0.8;
  double half_efficiency_bytes = 1e6;
  double cache_bytes = 0;
  double dram_slowdown = 1;
  double short_run_element_s = 0;  // seconds per element in short runs (short_run_elements(): runs shorter than a vector)
  /// Seconds per operation (Kernel::flops) on top of the stream, for a pass whose arithmetic per
  /// byte varies from call to call: a pooling window's compares or sums, which a 3x3 window at
  /// stride 1 makes 9 per output and per input element where stride 2 makes 2.25 (on a CPU such
  /// pools cost far more than their traffic's ratio; docs/models/fitting-notes.md). 0: the pass is
  /// its traffic alone.
  double operation_s = 0;
  double residual_sigma = 0;  // as MatrixEfficiency::residual_sigma
  double shared_sigma = 0;    // as MatrixEfficiency::shared_sigma
};

struct DeviceSpec {
  std::string kind;   // "gpu" or "cpu"
  std::string model;  // e.g. "NVIDIA A100-SXM4-80GB"
  /// Peak arithmetic rate per math mode in FLOP/s; absent modes are unsupported.
  std::map<MathMode, double> peak_flops;
  double memory_bandwidth = 0;  // bytes/s
  double memory_bytes = 0;      // capacity
  std::int64_t multiprocessors = 1;  // SMs (GPU) or cores (CPU)
  double launch_overhead_s = 0;      // per kernel
  /// Memory not available to the network: runtime context, library workspaces, fragmentation.
  double reserved_bytes = 0;
  MatrixEfficiency gemm;
  /// Where calibration found a CPU BLAS's cache blocking, GEMMs are priced by it instead of by
  /// `gemm`'s tiles (models/compute/blocked_gemm.h); `gemm` still sets the effective peak.
  BlockedGemm blocked_gemm;
  MatrixEfficiency conv;
  /// The math fp32 convolutions run in: fp32, or tf32_tensor where the framework that calibrated
  /// the device ran them on TF32 tensor cores (PyTorch's default for cuDNN on Ampere and later:
  /// torch.backends.cudnn.allow_tf32, while its matrix products stay fp32). `dnnperf fit` reads it
  /// from the measurements' context; `conv` is then fitted against the TF32 peak and fp32
  /// convolutions are priced by it, as the framework runs them.
  MathMode fp32_conv_math = MathMode::fp32;
  /// Where calibration fitted a CPU library's convolutions as arithmetic plus traffic, per
  /// direction (index: Phase forward, backward_data, backward_weight), convolutions of that
  /// direction are priced by it instead of by `conv`'s tiles (models/compute/direct_conv.h).
  std::array<DirectConv, 3> direct_conv;
  MemoryEfficiency memory;
  /// The GPU kernel family's parameters: where enabled, GEMMs, convolutions and memory passes are
  /// priced by it (models/compute/gpu/gpu_compute_model.h) instead of by `gemm`, `conv`, `memory`
  /// and `passes`, which then serve only the CPU-side fits.
  GpuKernelParams gpu;
  /// Op-specific pass families (Kernel::pass) priced apart from plain passes, fitted from their
  /// own measurements; a family not listed runs at `memory`'s efficiency.
  std::map<std::string, MemoryEfficiency, std::less<>> passes;
  /// 1x1 unstrided convolutions with batches below this run as one GEMM per image, not as a
  /// convolution kernel, and are priced as those GEMMs (models/compute/conv_as_gemm.h); 0: none.
  /// `dnnperf fit` sets 16 for PyTorch's CPU backend on one thread, which routes exactly these
  /// convolutions to its im2col-and-GEMM code.
  std::int64_t pointwise_conv_gemm_below_batch = 0;
  /// Processes sharing this device's memory system (data-parallel ranks on one CPU's cores) slow
  /// each other's kernels: at P processes per node kernels take co_run_slowdown[P] times their
  /// time alone (measured: scripts/torch_bench.py --co-run P, fitted by `dnnperf fit`); empty: 1.
  std::map<int, double> co_run_slowdown;
  /// Data-parallel ranks meet every training step in the gradient all-reduce, so a step lasts as
  /// long as the slowest rank's; where a rank's step time wanders from step to step (a shared
  /// machine's other work, the OS), the slowest of P takes longer than a typical one. At P ranks
  /// a step's computation takes sync_wait[P] times one rank's own (measured on steps of networks
  /// that are not validated: scripts/torch_sync_steps.py, fitted by `dnnperf fit`); empty: 1.
  /// Beyond the measured counts, see sync_wait_factor().
  std::map<int, double> sync_wait;
  /// Where no sync_wait is measured (a datasheet profile): the relative spread of one rank's step
  /// time from step to step, the ranks taken to wander independently (sync_wait_factor()). 0: none.
  double step_jitter = 0;
  /// Where no sync_wait is measured: the relative spread of the devices' own speeds across a
  /// cluster of one model (manufacturing and power management: persistent, the same device slow
  /// in every step, so no number of micro-batches averages it out; sync_wait_factor()). 0: none.
  double speed_spread = 0;
  /// The fraction by which a kernel slows while a collective runs beside it: the collective's
  /// kernels hold SMs (NCCL runs each channel as a thread block for the collective's duration).
  /// Unset: overlap_slowdown() derives it from the datasheet.
  std::optional<double> overlap_slowdown;
  /// Seconds a DistributedDataParallel training step of P ranks takes beyond its kernels (with
  /// co_run_slowdown and sync_wait), its gradient all-reduces and their bucket copies: DDP's own
  /// work per step (the module buffers it broadcasts before every forward, its reducer), waiting
  /// in its collectives' hand-offs, whatever the gradients' size. Measured on networks
  /// that are not validated (scripts/torch_sync_steps.py), fitted by `dnnperf fit` once the
  /// all-reduce is; beyond the measured counts, see ddp_step_overhead_seconds(). Empty: none.
  std::map<int, double> ddp_step_overhead_s;
  /// Seconds the framework's host takes to queue one kernel, per calibration_class() ("gemm",
  /// "conv_forward", "pass:batch_norm", "memory", ...), for devices that run kernels
  /// asynchronously (GPUs): the host queues kernels one after another while the device runs them,
  /// so a step lasts as long as the later of the two timelines (price_step). Measured by
  /// scripts/torch_bench.py on CUDA, fitted as medians by `dnnperf fit`; empty: kernels are
  /// priced as if the host always kept ahead (datasheet profiles, CPUs).
  std::map<std::string, double, std::less<>> host_dispatch_s;
  /// The spread of those times in log terms (robust, pooled over the classes' calls): the
  /// prediction interval takes the host's times at exp(+-1.96 sigma), as one shared error.
  double host_dispatch_sigma = 0;
  /// Seconds the framework's host spends per op of an IR op kind (op_kind_name(): "attention",
  /// "linear", ...), forward and backward, all its calls included (views, transposes, autograd
  /// nodes, gradient accumulation: an nn.MultiheadAttention is some 20 of them for a handful of
  /// kernels). Measured by scripts/torch_bench.py --op-host on the device's host, medians kept by
  /// `dnnperf fit` for asynchronous devices; where an op's kind is here, its host time replaces
  /// its kernels' host_dispatch_s on the host's timeline (price_step).
  struct HostOpSeconds {
    double forward = 0, backward = 0;
  };
  std::map<std::string, HostOpSeconds, std::less<>> host_op_s;
  /// The error a whole step carries beside its kernels' (log terms): what composing them misses
  /// (caches warm from the previous kernel, the framework's calls between kernels). Measured by
  /// `dnnperf fit --steps` on real steps of networks other than those validated, as the spread
  /// their kernel intervals do not explain; the prediction interval adds it to the kernels' as
  /// one more shared error (price_step). 0: none known.
  double step_sigma = 0;
  /// What a training step's convolutions save against their cold calibration where the step
  /// left them warm (models/compute/step_warmth.h). Fitted by `dnnperf fit` from kernels timed
  /// cold and then back to back (scripts/torch_bench.py --hot-pairs); not enabled: cold prices.
  StepWarmth step_warmth;
};

/// The factor for `processes` sharing the device: the measured one, linear between measured
/// counts (and from 1 at one process), the largest measured one beyond them; 1 with none.
double co_run_factor(const DeviceSpec& device, int processes);

/// DDP's own seconds per training step at `ranks` data-parallel ranks: the measured ones, linear
/// between measured counts (from none at one rank), the largest measured count's beyond them; 0
/// with none measured.
double ddp_step_overhead_seconds(const DeviceSpec& device, int ranks);

/// The wait for the slowest of `ranks` ranks that meet once every `micro_batches` micro-batches,
/// as a factor on the computation between meetings. Measured (sync_wait): the factor w at that
/// count, linear between measured counts (and from 1 at one rank); beyond the largest measured
/// count P, ranks are taken to wander independently and normally, with the relative spread s that
/// P's factor implies (w_P = 1 + s E[max of P]), so w_N = 1 + s E[max of N], growing as
/// sqrt(2 ln N), to about 4.9 s at a million ranks; over K micro-batches the wander averages as
/// 1 + (w - 1) / sqrt(K). With none measured, a rank's time over K micro-batches spreads by
/// sqrt(speed_spread^2 + step_jitter^2 / K) (its persistent speed and its per-micro-batch
/// wander, independent), so the slowest of N takes 1 + E[max of N] times that (1 with neither).
double sync_wait_factor(const DeviceSpec& device, int ranks, std::int64_t micro_batches = 1);

/// E[max of n independent standard normal variables]: 0 for one, 0.564 for two, 1.029 for four,
/// 3.241 for a thousand (exact to 1e-6 for n up to a million).
double expected_maximum_of_normals(int n);

/// A point-to-point path: bandwidth in bytes/s per direction and per endpoint, latency in s.
struct LinkSpec {
  std::string kind;
  double bandwidth = 0;
  double latency_s = 0;
};

/// The most processes (devices, ranks) dnnperf prices: 2^24, some 16.8 million, a hundred times
/// the largest machines built. Counts are checked against it where they enter (profiles, --nodes,
/// --procs), so that rank arithmetic stays within int and no per-step loop of a collective runs long.
inline constexpr std::int64_t kMaxRanks = std::int64_t{1} << 24;

struct NodeSpec {
  int devices = 1;
  LinkSpec intra;  // between devices of one node (NVLink/NVSwitch, PCIe)
  /// A device's link to host memory (PCIe), where known (bandwidth 0: not given): what
  /// inter-node traffic crosses when it is staged through host memory (ClusterSpec::gpudirect_rdma).
  LinkSpec host;
};

/// The names `cluster.topology` takes.
inline constexpr const char* kTopologyNames = "fat-tree, rail-optimized, torus, dragonfly";

struct ClusterSpec {
  LinkSpec inter;   // per NIC, its line rate
  int nics_per_node = 1;
  /// How nodes are joined (models/comm/fabric.h): "fat-tree" (default), "rail-optimized", "torus"
  /// or "dragonfly".
  std::string topology = "fat-tree";
  /// Fat tree and rail-optimized: a leaf (or rail) switch's downlink bandwidth over its uplink
  /// bandwidth, >= 1 (1: full bisection), and its ports towards the nodes (0: one switch holds
  /// every node, so no traffic crosses the spine).
  double oversubscription = 1;
  int switch_ports = 0;
  /// Torus: nodes per dimension; the product bounds the nodes a run may use.
  std::vector<int> torus_dims;
  /// Dragonfly: nodes per group (all-to-all inside it) and the global links leaving a group, each
  /// at the NIC's rate.
  int group_nodes = 0;
  int global_links = 0;
  /// How collectives move bytes between nodes (profile/transport.h): "infiniband", "roce", "tcp";
  /// empty: as `inter.kind` implies. `achieved_fraction` (in (0, 1]; 0: the transport's published
  /// one) is the share of the line rate they reach.
  std::string transport;
  double achieved_fraction = 0;
  /// Whether the NICs read and write device memory directly (GPUDirect RDMA). Without it, each
  /// inter-node transfer is copied through host memory over the device's `node.host` link, which
  /// bounds the flow where slower than its share of the NIC, and adds that link's latency twice.
  bool gpudirect_rdma = true;
  /// Persistent stragglers: the share of nodes that run slower than the rest (a throttled GPU,
  /// a bad link, a noisy neighbour) in [0, 1), and their slowdown on a step's computation (>= 1).
  /// A synchronous step waits for them; 0: none.
  double straggler_share = 0;
  double straggler_slowdown = 1;

  /// The bandwidth collectives get from one NIC: the line rate times the achieved fraction (the
  /// line rate itself for a link kind that implies no transport and no fraction given).
  double achieved_bandwidth() const;
};

/// A memory-bound pass of a calibration and its time then (HardwareProfile::reference_passes).
struct ReferencePass {
  std::string op;          // a measurement record's op: memory_copy, memory_activation, ...
  std::int64_t bytes = 0;  // the buffer it streams (the record's params.bytes)
  DType dtype = DType::f32;
  double seconds = 0;      // the record's median
};

/// The smallest buffer a reference pass streams (on a CPU, calibrate times 16 and 64 MiB).
constexpr std::int64_t kReferencePassBytes = 16 << 20;

struct HardwareProfile {
  std::string name;
  std::vector<std::string> aliases;  // other names find_hardware_profile knows it by
  DeviceSpec device;
  NodeSpec node;
  ClusterSpec cluster;
  std::map<std::string, std::string> sources;  // field -> where its figure comes from
  /// Communication models fitted by `dnnperf fit` (empty for datasheet profiles).
  std::vector<FittedCommModel> communication;
  /// The regression family's models per kernel class, where fitting found them better than the
  /// analytic model (empty for datasheet profiles).
  std::vector<RegressionModel> compute_regression;
  /// GEMMs and convolutions measured exactly (`dnnperf fit --measured-kernels`): a kernel of the
  /// same shape and type is priced by its measured time, before any model.
  std::vector<std::pair<Kernel, double>> measured_kernels;
  /// A few of the calibration's own GEMMs and convolutions with the times measured then (`dnnperf
  /// fit` keeps them): timed again later (`dnnperf validate`), they tell how fast the machine runs
  /// now against its calibration — a shared VM moves 10-30% between sessions.
  std::vector<std::pair<Kernel, double>> reference_kernels;
  /// The same for memory: the calibration's memory-bound passes over buffers of 16 MiB and more
  /// (PyTorch backend records `memory_copy`, `memory_activation`, ...), with their times then.
  /// Memory can slow where arithmetic does not (a neighbour streaming DRAM; a machine that maps
  /// fresh pages more slowly: on this project's VM a relu writing a fresh 64 MB tensor ran 4.5x
  /// slower with transparent huge pages on madvise than always), and the reference kernels alone
  /// would not see it.
  std::vector<ReferencePass> reference_passes;
  /// The CPU the calibration's measurements ran on (`measured_on.cpu`, which `dnnperf fit` takes
  /// from the files' context lines; profile/cpu_identity.h), null where unknown: a
  /// datasheet profile, or files that did not name it.
  nlohmann::json measured_on_cpu;
  /// The PyTorch backend's allocator policy the measurements ran with (`measured_on.allocator`,
  /// as their context lines name it; scripts/dnnperf_py/allocator.py), empty where unknown: it
  /// decides whether large tensors land on pages touched before or mapped afresh, and a step's
  /// time with it.
  std::string measured_with_allocator;
  std::string path;                            // file it was read from

  /// Peak rate of `mode`; throws InputError naming the profile if the device lacks it.
  double peak(MathMode mode) const;
  bool supports(MathMode mode) const { return peak_flops_has(mode); }

 private:
  bool peak_flops_has(MathMode mode) const { return device.peak_flops.count(mode) > 0; }
};

/// The slowdown of kernels overlapped by a collective (DeviceSpec::overlap_slowdown): the
/// profile's figure, else for a GPU NCCL's channels over its SMs, two channels per NIC (NCCL
/// builds a ring per NIC and runs two channels on each; one thread block, one SM, per channel),
/// at most half the SMs; 0 for a CPU, whose MPI progresses in the calls.
double overlap_slowdown(const HardwareProfile& hardware);

/// Persistent stragglers (ClusterSpec::straggler_share, straggler_slowdown): the factor on a
/// step's computation at `nodes` nodes, the expected slowdown over placements,
/// 1 + (slowdown - 1) (1 - (1 - share)^nodes); 1 without stragglers.
double straggler_factor(const ClusterSpec& cluster, int nodes);

/// The fitted communication model of a collective, algorithm ("default": the library's own
/// choice) and mode, or null.
const FittedCommModel* find_comm_model(const HardwareProfile& profile, const std::string& collective, const std::string& algorithm,
                                       CommMode mode = CommMode::isolated);

/// The model of a collective and algorithm in `preferred` mode, else in the other one (a library
/// timed one way only prices calls issued either way), or null.
const FittedCommModel* find_comm_model_either_mode(const HardwareProfile& profile, const std::string& collective, const std::string& algorithm,
                                                   CommMode preferred);

/// The mode whose models price `collective`'s calls issued as `wanted`: `wanted` where the profile
/// has models of it, else the mode it has (isolated models for streams when only those were
/// measured); nullopt when it has none of the collective.
std::optional<CommMode> comm_mode_for(const HardwareProfile& profile, const std::string& collective, CommMode wanted);

/// Reads and validates a profile file: unknown fields, missing or non-positive figures are
/// InputErrors naming the file and field.
HardwareProfile load_hardware_profile(const std::string& path);

/// The same from a parsed document; `source` names it in errors (`fit` checks the profile it is
/// about to write this way).
HardwareProfile hardware_profile_from_json(const nlohmann::json& document, const std::string& source);

/// A profile by short name ("a100", "h100-sxm5-80gb", "cpu") from data/hardware/, or by path.
/// The data directory is DNNPERF_DATA_DIR if set, else the source tree's data/ (compiled in).
HardwareProfile find_hardware_profile(const std::string& name_or_path);

/// The folder of the shipped data (hardware profiles, platforms, calibration plans):
/// DNNPERF_DATA_DIR if set, else the source tree's data/ (compiled in).
std::filesystem::path shipped_data_dir();

/// Names (and aliases) of the shipped profiles.
std::vector<std::pair<std::string, std::vector<std::string>>> shipped_hardware_profiles();

}  // namespace dnnperf
