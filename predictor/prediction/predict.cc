#include "predictor/prediction/predict.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <cmath>
#include <cstring>
#include <functional>
#include <set>
#include <string>
#include <string_view>
#include <tuple>
#include <type_traits>
#include <unordered_map>

#include "models/comm/fitted_comm_model.h"
#include "models/compute/profile_model.h"
#include "models/compute/step_warmth.h"
#include "core/analysis/step_residency.h"
#include "core/common/error.h"

namespace dnnperf {
namespace {

/// What a kernel's price depends on: every field of the Kernel but the op it came from, and of what
/// the step's cache left it, taken apart by structured bindings, so that a field added to Kernel,
/// GemmShape, ConvShape or StepCacheState fails to compile here until the key holds it.
using KernelKey = std::array<std::uint64_t, 41>;

std::uint64_t key_bits(double d) {
  std::uint64_t b;
  std::memcpy(&b, &d, sizeof b);
  return b;
}
std::uint64_t key_bits(std::string_view text) { return std::hash<std::string_view>{}(text); }
template <typename T>
  requires std::is_integral_v<T> || std::is_enum_v<T>
std::uint64_t key_bits(T v) {
  return static_cast<std::uint64_t>(v);
}

KernelKey kernel_key(const Kernel& kernel, const StepCacheState& state) {
  const auto& [cls, phase, dtype, op_kind, op, gemm, conv, elements, flops, bytes_read, bytes_written, footprint_bytes, pass, run_elements,
               shares_call] = kernel;
  const auto& [resident, far_bytes, far_read_bytes, far_written_bytes] = state;
  (void)op;  // where the kernel came from, not what it costs
  const auto& [m, n, k, batch, trans_a, trans_b] = gemm;
  const auto& [cn, cc, ch, cw, ck, cr, cs, cp, cq, stride_h, stride_w, pad_h, pad_w, dilation_h, dilation_w, groups] = conv;
  const auto& [input, weight, output, call] = resident;
  KernelKey key{};
  std::size_t i = 0;
  const auto put = [&](const auto&... values) { ((key[i++] = key_bits(values)), ...); };
  put(cls, phase, dtype, op_kind, elements, flops, bytes_read, bytes_written, footprint_bytes, pass, run_elements, shares_call);
  put(m, n, k, batch, trans_a, trans_b);
  put(cn, cc, ch, cw, ck, cr, cs, cp, cq, stride_h, stride_w, pad_h, pad_w, dilation_h, dilation_w, groups);
  put(input, weight, output, call, far_bytes, far_read_bytes, far_written_bytes);
  DNNPERF_CHECK(i == key.size());
  return key;
}

struct KernelKeyHash {
  std::size_t operator()(const KernelKey& key) const {
    std::uint64_t h = 1469598103934665603ull;  // FNV-1a over the fields
    for (const std::uint64_t v : key) h = (h ^ v) * 1099511628211ull;
    return static_cast<std::size_t>(h);
  }
};

/// The host's time to queue each kernel: its class's measured dispatch time (plain passes' where
/// its pass family has none). An optimizer's kernels are queued by one call per step (PyTorch's
/// multi-tensor "foreach" path on GPUs): its family's time is charged once. Ops of a kind whose
/// host time the profile measured whole (DeviceSpec::host_op_s) are charged that instead, on
/// their first kernel of the phase; an op that queues no kernel of its own in a phase (a view, a
/// reshape) passes its time to the next kernel queued.
std::vector<double> host_dispatch_times(const Graph& graph, const std::vector<Kernel>& kernels, const DeviceSpec& d) {
  std::vector<double> host(kernels.size(), 0.0);
  std::set<std::string> optimizer_calls;
  const auto measured = [&](OpKind kind) { return d.host_op_s.find(op_kind_name(kind)); };
  for (std::size_t i = 0; i < kernels.size(); ++i) {
    const Kernel& k = kernels[i];
    const std::string cls = calibration_class(k);
    if (k.phase == Phase::update && !optimizer_calls.insert(cls).second) continue;
    if (k.phase != Phase::update && measured(k.op_kind) != d.host_op_s.end()) continue;
    auto it = d.host_dispatch_s.find(cls);
    if (it == d.host_dispatch_s.end() && cls.rfind("pass:", 0) == 0) it = d.host_dispatch_s.find("memory");
    if (it != d.host_dispatch_s.end()) host[i] = it->second;
  }
  if (d.host_op_s.empty() || kernels.empty()) return host;
  const int n = static_cast<int>(graph.ops().size());
  std::vector<std::size_t> first_forward(static_cast<std::size_t>(n), kernels.size()), first_backward = first_forward;
  std::size_t last_forward = kernels.size(), last_backward = kernels.size();
  for (std::size_t i = kernels.size(); i-- > 0;) {
    const Kernel& k = kernels[i];
    if (k.op < 0 || k.op >= n || k.phase == Phase::update) continue;
    const bool forward = k.phase == Phase::forward;
    (forward ? first_forward : first_backward)[static_cast<std::size_t>(k.op)] = i;
    std::size_t& last = forward ? last_forward : last_backward;
    if (last == kernels.size()) last = i;
  }
  const auto charge = [&](int op, bool backward, double& carry) {
    const auto it = measured(graph.op(op).kind);
    if (it != d.host_op_s.end()) carry += backward ? it->second.backward : it->second.forward;
    const std::size_t i = (backward ? first_backward : first_forward)[static_cast<std::size_t>(op)];
    if (i < kernels.size() && carry > 0) host[i] += carry, carry = 0;
  };
  double carry = 0;
  for (int op = 0; op < n; ++op) charge(op, false, carry);
  if (carry > 0 && last_forward < kernels.size()) host[last_forward] += carry;  // a forward ending in views
  carry = 0;
  bool any_backward = false;
  for (int op = n - 1; op >= 0; --op) {
    const Op& o = graph.op(op);
    if (!std::any_of(o.inputs.begin(), o.inputs.end(), [&](int t) { return graph.tensor(t).requires_grad; })) continue;
    any_backward = true;
    charge(op, true, carry);
  }
  if (any_backward && carry > 0 && last_backward < kernels.size()) host[last_backward] += carry;
  return host;
}

/// Turns kernel times into their shares of the device's timeline when the host queues kernel i
/// `host[i]` after kernel i - 1 and the device starts it once it is queued and its predecessor
/// has finished. Returns the device's total waiting time.
double onto_device_timeline(const std::vector<double>& host, std::vector<double>& seconds, std::vector<double>* waiting = nullptr) {
  double queued = 0, end = 0, busy = 0;
  if (waiting) waiting->assign(seconds.size(), 0.0);
  for (std::size_t i = 0; i < seconds.size(); ++i) {
    queued += host[i];
    const double finish = std::max(queued, end) + seconds[i];
    busy += seconds[i];
    if (waiting) (*waiting)[i] = std::max(0.0, finish - end - seconds[i]);  // rounding: never a negative wait
    seconds[i] = finish - end;
    end = finish;
  }
  return end - busy;
}

std::int64_t batch_of(const Graph& g) {
  for (const Tensor& t : g.tensors())
    if (t.role == TensorRole::input && t.shape.rank() > 0) return t.shape[0];
  return 1;
}

}  // namespace

CommGroup comm_group(const HardwareProfile& hw, int ranks, int ranks_per_node) {
  CommGroup g;
  g.ranks = ranks;
  g.ranks_per_node = ranks_per_node;
  g.intra = {hw.node.intra.latency_s, 1.0 / hw.node.intra.bandwidth};
  g.inter = {hw.cluster.inter.latency_s, 1.0 / hw.cluster.achieved_bandwidth()};
  g.nics_per_node = hw.cluster.nics_per_node;
  g.fabric = fabric_of(hw.cluster);
  if (!hw.cluster.gpudirect_rdma) {
    // Staged through host memory: the sender's device copies out and the receiver's copies in.
    g.inter.alpha += 2 * hw.node.host.latency_s;
    g.staging_beta = 1.0 / hw.node.host.bandwidth;
  }
  // Reducing two buffers into one reads two bytes and writes one per byte of message.
  g.gamma = 3.0 / hw.device.memory_bandwidth;
  return g;
}

NcclMachine nccl_machine(const HardwareProfile& hw) {
  NcclMachine m;
  const std::string& intra = hw.node.intra.kind;
  m.nvlink = intra.find("nvlink") != std::string::npos || intra.find("nvswitch") != std::string::npos;
  m.ll128 = m.nvlink && hw.supports(MathMode::fp16_tensor);
  return m;
}

CommGroup comm_group(const HardwareProfile& hw, const ParallelPlan& plan) { return comm_group(hw, plan.data_parallel(), plan.devices_per_node); }

AllReducePricer allreduce_pricer(const HardwareProfile& hw, const ParallelPlan& plan, IntervalBound bound) {
  const int ranks = plan.data_parallel();
  // A step's gradient all-reduces follow each other on the communication stream: priced as a
  // stream of calls where the profile measured one (bench --mode stream), else as isolated calls.
  const std::optional<CommMode> mode = comm_mode_for(hw, "allreduce", CommMode::stream);
  std::vector<const FittedCommModel*> fitted;
  for (const FittedCommModel& m : hw.communication)
    if (m.collective == "allreduce" && m.mode == mode) fitted.push_back(&m);
  if (!fitted.empty()) {
    const FittedCommModel* forced = nullptr;
    if (!plan.allreduce_library.empty()) {
      const std::string name = library_choice_name(plan.allreduce_library);
      // A library timed only one way (torch_comm_bench.py times isolated calls) prices either.
      forced = find_comm_model_either_mode(hw, "allreduce", name, *mode);
      if (!forced) {
        std::string have;
        for (const FittedCommModel* m : fitted) have += (have.empty() ? "" : ", ") + m->algorithm;
        throw InputError("profile '" + hw.name + "' has no fitted allreduce model of " + plan.allreduce_library + "'s own choice ('" + name +
                         "'; it has: " + have + "); measure it (" +
                         (plan.allreduce_library == "mpi" ? std::string("mpirun dnnperf bench allreduce") : std::string("scripts/torch_comm_bench.py")) +
                         ") and fit it in");
      }
    } else if (plan.allreduce) {
      forced = find_comm_model_either_mode(hw, "allreduce", std::string(allreduce_name(*plan.allreduce)), *mode);
      if (!forced)
        throw InputError("profile '" + hw.name + "' has no fitted allreduce model for '" + std::string(allreduce_name(*plan.allreduce)) + "'");
    }
    const auto price = [bound, ranks](const FittedCommModel* m, double bytes) {
      if (bound == IntervalBound::center) return comm_seconds(*m, bytes, ranks);
      const CommPrediction p = comm_prediction(*m, bytes, ranks);
      return bound == IntervalBound::low ? p.low : p.high;
    };
    return [fitted, forced, ranks, price](double bytes) {
      if (forced) return std::pair<std::string, double>{forced->algorithm, price(forced, bytes)};
      // The algorithm is chosen by the central estimate; the bound prices the chosen one.
      const FittedCommModel* best = nullptr;
      double best_t = 0;
      for (const FittedCommModel* m : fitted) {
        if (is_library_choice(m->algorithm)) continue;
        const double t = comm_seconds(*m, bytes, ranks);
        if (!best || t < best_t) best = m, best_t = t;
      }
      if (!best) best = fitted.front();
      return std::pair<std::string, double>{best->algorithm, price(best, bytes)};
    };
  }
  const CommGroup group = comm_group(hw, plan);
  if (plan.allreduce_library == "nccl" && hw.device.kind == "gpu") {
    // Unmeasured NCCL on a GPU: its own tuner's choice (models/comm/nccl_tuning.h).
    const NcclMachine machine = nccl_machine(hw);
    return [group, machine](double bytes) {
      const NcclChoice c = nccl_allreduce(bytes, group, machine);
      return std::pair<std::string, double>{c.algorithm, c.seconds};
    };
  }
  if (!plan.allreduce_library.empty())
    throw InputError("profile '" + hw.name + "' has no fitted communication models, so no model of " + plan.allreduce_library +
                     "'s own all-reduce; measure and fit one (docs/models/fitting-notes.md)" +
                     (plan.allreduce_library == "nccl" ? "" : std::string(", or take --allreduce best or an algorithm")));
  const std::optional<AllReduceAlgorithm> algorithm = plan.allreduce;
  return [group, algorithm](double bytes) {
    if (algorithm) return std::pair<std::string, double>{std::string(allreduce_name(*algorithm)), allreduce_seconds(*algorithm, bytes, group)};
    const auto [a, t] = best_allreduce(bytes, group);
    return std::pair<std::string, double>{std::string(allreduce_name(a)), t};
  };
}

PricedStep price_step(const Graph& graph, const HardwareProfile& hw, const RunConfig& config) {
  config.plan.validate(hw);
  PricedStep step;
  const LoweringOptions lowering = lowering_for(config.precision, !config.inference, config.optimizer, config.fused_optimizer);
  lower(graph, lowering, step.kernels);
  const StepWarmth& warmth = hw.device.step_warmth;
  step.cache = replay_step_cache(graph, step.kernels, warmth.cache_bytes, warmth.cold_reach());
  const ProfileComputeModel model(hw);
  const DeviceSpec& d = hw.device;
  step.calibrated = !hw.compute_regression.empty() || !hw.communication.empty() || d.gemm.residual_sigma > 0 || d.conv.residual_sigma > 0 ||
                    d.memory.residual_sigma > 0 || d.step_sigma > 0;
  ExecutionOptions execution;
  execution.allow_tf32 = config.precision == Precision::tf32;
  if (const std::optional<MathMode> needed = required_tensor_math(config.precision); needed && !hw.supports(*needed)) {
    std::string math(precision_name(config.precision));
    std::transform(math.begin(), math.end(), math.begin(), [](unsigned char c) { return static_cast<char>(std::toupper(c)); });
    throw InputError("hardware '" + hw.name + "' (" + hw.device.model + ") has no " + math + " tensor cores (device.peak_flops." +
                     std::string(math_mode_name(*needed)) + ")");
  }
  step.seconds.reserve(step.kernels.size());
  // Networks repeat their layers (96 identical ones in GPT-3): price each distinct kernel once.
  struct Priced {
    double seconds = 0;
    ProfileComputeModel::Uncertainty uncertainty;
  };
  std::unordered_map<KernelKey, Priced, KernelKeyHash> priced;
  priced.reserve(step.kernels.size() / 4 + 16);
  // The step's spread in log terms: shared family errors add up, a kernel's own average out
  // (models/compute/error_family.h). With w = t / total and shares s, spreads sigma per kernel:
  //   var = sum over families (sum of w * s)^2 + sum over kernels w^2 (sigma^2 - s^2).
  std::unordered_map<std::string, double> family_shared;  // sum of t * s per family
  double own = 0, total = 0;
  // Ranks sharing a CPU's memory system slow each other's kernels (DeviceSpec::co_run_slowdown).
  const double co_run = co_run_factor(d, config.plan.devices_per_node);
  for (std::size_t i = 0; i < step.kernels.size(); ++i) {
    const Kernel& k = step.kernels[i];
    auto [it, fresh] = priced.try_emplace(kernel_key(k, step.cache[i]));
    if (fresh) {
      const double cold = model.seconds(k, execution);
      it->second.seconds = co_run * (cold - warm_savings_seconds(d.step_warmth, k, step.cache[i], cold, config.inference));
      if (step.calibrated) it->second.uncertainty = model.uncertainty(k, execution);
    }
    const double t = it->second.seconds;
    step.seconds.push_back(t);
    total += t;
    if (step.calibrated) {
      const ProfileComputeModel::Uncertainty& u = it->second.uncertainty;
      family_shared[u.family] += t * u.shared;
      own += t * t * (u.sigma * u.sigma - u.shared * u.shared);
    }
  }
  if (!config.inference)
    for (const Tensor& t : graph.tensors()) {
      if (t.role != TensorRole::parameter || !t.requires_grad) continue;
      Kernel add;  // the kept gradient += this micro-batch's
      add.cls = KernelClass::elementwise;
      add.phase = Phase::backward_weight;
      add.dtype = lowering.compute_dtype && is_floating(t.dtype) ? *lowering.compute_dtype : t.dtype;
      add.elements = t.shape.numel();
      add.flops = static_cast<double>(add.elements);
      add.bytes_written = static_cast<double>(add.elements) * dtype_bytes(add.dtype);
      add.bytes_read = 2 * add.bytes_written;
      step.gradient_accumulation_s += co_run * model.seconds(add, execution);
    }
  if (step.calibrated && total > 0) {
    double variance = own;
    for (const auto& [family, shared] : family_shared) variance += shared * shared;
    variance += (d.step_sigma * total) * (d.step_sigma * total);  // the step's own error, beside its kernels' 
    const double spread = 1.96 * std::sqrt(std::max(variance, 0.0)) / total;
    for (const double t : step.seconds) {
      step.low.push_back(t * std::exp(-spread));
      step.high.push_back(t * std::exp(spread));
    }
  }
  if (d.host_dispatch_s.empty() && !d.host_op_s.empty()) {
    // A synchronous device (a CPU): the framework's work per op runs on the same thread, before
    // the op's kernels, and adds to them. Calibration times kernels without it (no autograd, no
    // module calls); the cold calibration's call overhead stood in for it until warmth took that
    // off (models/compute/step_warmth.h).
    const std::vector<double> host = host_dispatch_times(graph, step.kernels, d);
    for (std::size_t i = 0; i < host.size(); ++i) {
      step.seconds[i] += host[i];
      step.framework_s += host[i];
      if (step.kernels[i].phase == Phase::update) step.framework_update_s += host[i];
      if (!step.low.empty()) step.low[i] += host[i], step.high[i] += host[i];
    }
  }
  if (config.launch == Launch::graph && hw.device.kind != "gpu")
    throw InputError("--launch graph: hardware '" + hw.name + "' is a " + hw.device.kind +
                     ", whose kernels run on the thread that calls them; graph replay applies to GPUs");
  if (!d.host_dispatch_s.empty() && config.launch == Launch::eager) {
    step.host_seconds = host_dispatch_times(graph, step.kernels, d);
    step.device_waiting_s = onto_device_timeline(step.host_seconds, step.seconds, &step.waiting_seconds);
    if (!step.low.empty()) {
      // The host's times move together: they share the framework and the host's speed.
      const double spread = std::exp(1.96 * d.host_dispatch_sigma);
      std::vector<double> host = step.host_seconds;
      for (double& h : host) h /= spread;
      onto_device_timeline(host, step.low);
      for (double& h : host) h *= spread * spread;
      onto_device_timeline(host, step.high);
    }
  }
  step.gradient_bytes_per_element = lowering.compute_dtype ? dtype_bytes(*lowering.compute_dtype) : 4.0;
  step.copy_seconds_per_byte = ddp_copy_seconds_per_byte(hw, lowering.compute_dtype.value_or(DType::f32), config.plan.devices_per_node);
  return step;
}

double ddp_copy_seconds_per_byte(const HardwareProfile& hw, DType dtype, int processes_per_node) {
  Kernel copy;  // one DDP bucket's worth
  copy.cls = KernelClass::copy;
  copy.dtype = dtype;
  copy.bytes_read = copy.bytes_written = 25.0 * 1024 * 1024;
  copy.elements = static_cast<std::int64_t>(copy.bytes_read / dtype_bytes(dtype));
  return co_run_factor(hw.device, processes_per_node) * ProfileComputeModel(hw).seconds(copy, ExecutionOptions{}) / copy.bytes_read;
}

double bucket_communication_seconds(const HardwareProfile& hw, const ParallelPlan& plan, std::span<const double> bucket_bytes) {
  const AllReducePricer price = allreduce_pricer(hw, plan, IntervalBound::center);
  const double copy = ddp_copy_seconds_per_byte(hw, DType::f32, plan.devices_per_node);
  double seconds = 0;
  for (const double bytes : bucket_bytes) seconds += price(bytes).second + 2 * bytes * copy;
  return seconds;
}

Prediction simulate_step(const Graph& graph, const PricedStep& step, const HardwareProfile& hw, const RunConfig& config) {
  config.plan.validate(hw);
  Prediction p;
  p.network = graph.name();
  p.hardware = hw.name;
  p.config = config;
  p.devices = config.plan.data_parallel();
  p.batch_per_device = batch_of(graph);
  const int micro_batches = config.inference ? 1 : config.accumulation_steps;
  if (micro_batches < 1) throw InputError("gradient accumulation needs at least 1 micro-batch per step, not " + std::to_string(micro_batches));
  if (config.inference && config.accumulation_steps != 1)
    throw InputError("gradient accumulation applies to training, not inference");
  // 2^53: a sample count that a double still counts exactly, far beyond any real run.
  if (static_cast<double>(p.batch_per_device) * p.devices * micro_batches > 9007199254740992.0)
    throw InputError("batch " + std::to_string(p.batch_per_device) + " x " + std::to_string(p.devices) + " devices x " +
                     std::to_string(micro_batches) + " micro-batches is too many samples per step");
  p.global_batch = p.batch_per_device * p.devices * micro_batches;
  p.layers.resize(graph.ops().size());
  for (std::size_t i = 0; i < graph.ops().size(); ++i) p.layers[i].op = static_cast<int>(i);

  // Ranks that meet every training step wait for the slowest (sync_wait_factor): the computation
  // between meetings stretches, on every rank alike. They meet once per optimizer step, so over K
  // micro-batches a rank's own wander averages out; its device's persistent speed does not, nor
  // do persistent stragglers (ClusterSpec::straggler_share).
  const double wait = config.inference ? 1.0
                                       : sync_wait_factor(hw.device, config.plan.data_parallel(), micro_batches) *
                                             straggler_factor(hw.cluster, config.plan.nodes);
  std::array<std::vector<double>, 3> copies;  // only where there is a wait: a sweep simulates many plans
  const auto stretched = [wait](const std::vector<double>& times, std::vector<double>& copy) -> const std::vector<double>& {
    if (wait == 1.0) return times;
    copy = times;
    for (double& t : copy) t *= wait;
    return copy;
  };
  const std::vector<double>& seconds = stretched(step.seconds, copies[0]);
  const std::vector<double>& low = stretched(step.low, copies[1]);
  const std::vector<double>& high = stretched(step.high, copies[2]);
  p.sync_wait = wait;
  p.framework_s = wait * (step.framework_s + (micro_batches - 1) * (step.framework_s - step.framework_update_s));

  // With gradient accumulation, forward and backward run once per micro-batch, the update once.
  const auto runs = [&](const Kernel& k) { return k.phase == Phase::update ? 1.0 : static_cast<double>(micro_batches); };
  double waiting = 0;  // over the step's micro-batches
  for (std::size_t i = 0; i < step.kernels.size(); ++i) {
    const Kernel& k = step.kernels[i];
    const double n = runs(k);
    const double s = seconds[i] * n;
    LayerTime& layer = p.layers[static_cast<std::size_t>(k.op)];
    switch (k.phase) {
      case Phase::forward: layer.forward_s += s; p.forward_s += s; break;
      case Phase::update: layer.update_s += s; p.update_s += s; break;
      default: layer.backward_s += s; p.backward_s += s; break;
    }
    if (k.op_kind == OpKind::cross_entropy && k.phase != Phase::update) p.loss_s += s;
    if (!step.host_seconds.empty()) {
      Prediction::PhaseLoad& load = k.phase == Phase::forward ? p.forward_load : k.phase == Phase::update ? p.update_load : p.backward_load;
      load.host_s += n * step.host_seconds[i];
      load.waiting_s += n * step.waiting_seconds[i];
      load.kernels_s += n * (step.seconds[i] - step.waiting_seconds[i]);
      p.host_dispatch_s += n * step.host_seconds[i];
      waiting += n * step.waiting_seconds[i];
    }
  }
  p.memory = estimate_memory(graph, hw, config);
  p.device_waiting_s = micro_batches > 1 ? waiting : step.device_waiting_s;

  if (config.inference) {
    p.compute_s = p.forward_s;
    p.iteration_s = p.forward_s;
    if (step.calibrated) {
      p.iteration_low_s = p.iteration_high_s = 0;
      for (std::size_t i = 0; i < step.kernels.size(); ++i) {
        p.iteration_low_s += step.low[i];
        p.iteration_high_s += step.high[i];
      }
    }
  } else {
    ParallelPlan plan = config.plan;
    plan.communication_on_compute_cores = hw.device.kind == "cpu";
    const double ddp = ddp_step_overhead_seconds(hw.device, plan.data_parallel());
    const double overlap = overlap_slowdown(hw);
    DataParallelIteration dp = simulate_data_parallel(graph, step.kernels, seconds, plan,
                                                      allreduce_pricer(hw, plan, IntervalBound::center), step.gradient_bytes_per_element,
                                                      step.copy_seconds_per_byte, ddp, overlap);
    if (step.calibrated) {
      // The interval: every kernel at the step's bounds (price_step), every all-reduce at its own.
      p.iteration_low_s = simulate_data_parallel(graph, step.kernels, low, plan, allreduce_pricer(hw, plan, IntervalBound::low),
                                                 step.gradient_bytes_per_element, step.copy_seconds_per_byte, ddp, overlap).iteration_s;
      p.iteration_high_s = simulate_data_parallel(graph, step.kernels, high, plan, allreduce_pricer(hw, plan, IntervalBound::high),
                                                  step.gradient_bytes_per_element, step.copy_seconds_per_byte, ddp, overlap).iteration_s;
    }
    if (micro_batches > 1) {
      // The micro-batches before the last run forward and backward back to back, exchanging
      // nothing (DDP's no_sync); the simulation above is the last one, its exchange and the update.
      // Each micro-batch after the first also adds its gradients into the kept ones.
      const double adds = (micro_batches - 1) * step.gradient_accumulation_s * wait;
      const auto before_last = [&](const std::vector<double>& times) {
        double t = 0;
        for (std::size_t i = 0; i < step.kernels.size(); ++i)
          if (step.kernels[i].phase != Phase::update) t += times[i];
        return (micro_batches - 1) * t + adds;
      };
      const double more = before_last(seconds);
      dp.iteration_s += more;
      dp.compute_s += more;
      p.backward_s += adds;
      if (step.calibrated) {
        p.iteration_low_s += before_last(low);
        p.iteration_high_s += before_last(high);
      }
    }
    p.ddp_overhead_s = dp.ddp_overhead_s;
    p.overlap_cost_s = dp.overlap_cost_s;
    p.fitted_communication = !hw.communication.empty();
    p.iteration_s = dp.iteration_s;
    p.compute_s = dp.compute_s;
    p.comm_s = dp.comm_s;
    p.comm_exposed_s = dp.comm_exposed_s;
    p.gradient_bytes = dp.gradient_bytes;
    p.allreduces = std::move(dp.allreduces);
  }
  if (!step.calibrated) p.iteration_low_s = p.iteration_high_s = p.iteration_s;
  p.samples_per_s = p.iteration_s > 0 ? static_cast<double>(p.global_batch) / p.iteration_s : 0.0;
  if (config.dataset_size) {
    if (*config.dataset_size <= 0) throw InputError("the dataset size must be positive");
    p.iterations_per_epoch = (*config.dataset_size + p.global_batch - 1) / p.global_batch;
    p.epoch_s = static_cast<double>(*p.iterations_per_epoch) * p.iteration_s;
  }
  return p;
}

Prediction predict(const Graph& graph, const HardwareProfile& hw, const RunConfig& config) {
  return simulate_step(graph, price_step(graph, hw, config), hw, config);
}

}  // namespace dnnperf
