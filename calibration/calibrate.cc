#include "calibration/calibrate.h"

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <functional>
#include <vector>

#include "calibration/calibration_plan.h"
#include "calibration/profile_fit.h"
#include "calibration/step_process.h"
#include "core/common/error.h"
#include "core/common/format.h"
#include "validation/ground_truth.h"

namespace dnnperf::calibration {
namespace {

/// Buffer sizes as torch_bench.py takes them: "4096,16384".
std::string joined_sizes(const std::vector<std::int64_t>& sizes) {
  std::string out;
  for (const std::int64_t s : sizes) out += (out.empty() ? "" : ",") + std::to_string(s);
  return out;
}

std::string quote(const std::string& s) { return "'" + s + "'"; }

/// The calibration's clock against its budget: each step says how long the calibration has run
/// and at most how long it has left.
struct Clock {
  std::chrono::steady_clock::time_point start = std::chrono::steady_clock::now();
  double budget_s = 0;
  double elapsed() const { return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count(); }
};

int run_step(std::ostream& log, const Clock& clock, const std::string& what, const std::string& command) {
  const double elapsed = clock.elapsed();
  log << "calibrate: [" << fixed(elapsed, 0) << " s, at most " << fixed(std::max(clock.budget_s - elapsed, 0.0), 0) << " s left] " << what << "\n" << std::flush;
  const StepExit e = run_step_process(command);
  if (e.signal) {
    // Interrupted: every file keeps what it measured (whole lines) and the profile is not written;
    // the same command resumes. Die of the same signal, as a shell expects of an interrupted job.
    log << "calibrate: interrupted (signal " << e.signal << ") during " << what
        << "; the measurements so far are kept: rerun the same command to resume\n" << std::flush;
    die_of_signal(e.signal);
  }
  return e.status;
}

/// What measure_steps leaves for the fit: the composition networks' runs (fit --steps) and, on a
/// CPU, their convolutions timed inside the steps and alone (fit --step-warmth) with the cold
/// timings as measurement records (kernels: real networks' convolutions for the compute fit);
/// "" where none.
struct StepMeasurements {
  std::string steps, step_warmth, kernels;
};

/// Times real training steps and inferences of the composition networks into WORK/steps (two runs
/// each, as `validate --save-measured` keeps them; runs already there are kept). On a CPU one
/// process per kind does it (scripts/torch_step_warmth.py --runs), timing each network's
/// convolutions inside its step and alone between its two runs, and a third process the
/// inferences' convolutions at batch 16 (no runs); on a GPU, a torch_train.py process per run.
StepMeasurements measure_steps(std::ostream& log, const Clock& clock, const CalibrationPlan& plan, const CalibrateOptions& o, const std::string& work, const std::string& dnnperf, const std::function<double()>& time_left) {
  const std::string networks = work + "/networks";
  const std::string steps = work + "/steps";
  std::filesystem::create_directories(steps);
  if (run_step(log, clock, "the composition networks as ONNX files (scripts/export_onnx.py composition)",
               o.python + " " + quote(std::string(DNNPERF_SOURCE_DIR) + "/scripts/export_onnx.py") + " --skip-existing " + quote(networks) + " composition >/dev/null") != 0) {
    log << "calibrate: exporting the composition networks failed (see above); intervals leave out the step's own error\n";
    return {};
  }
  // Batches as validated: 4 on a CPU, 32 on a GPU (small inputs, 64x64).
  const int batch = o.device == "cuda" ? plan.composition_cuda_batch : plan.composition_cpu_batch;
  std::vector<std::string> files;
  for (const auto& entry : std::filesystem::directory_iterator(networks))
    if (entry.path().extension() == ".onnx") files.push_back(entry.path().string());
  std::sort(files.begin(), files.end());
  StepMeasurements out;
  // Training steps first, then the same networks' inferences: warmth realized in each is fitted
  // apart (StepWarmth::realized_share_inference).
  if (o.device == "cpu") {
    const std::string warmth = work + "/torch_cpu_step_warmth.jsonl";
    const std::string kernels = work + "/torch_cpu_step_kernels.jsonl";
    std::string list;
    for (const std::string& file : files) list += " " + quote(file);
    // The whole steps at batch 4 (--runs), then the inferences' convolutions at batch 16 too: a
    // larger batch's step leaves other operands warm than a small one's, and a share fitted at
    // batch 4 alone priced batch-16 inferences' convolutions at too little of their savings
    // (MobileNetV2's ran at half their cold time; docs/models/fitting-notes.md).
    struct Pass {
      int batch;
      bool inference, runs;
      double later;  // seconds kept for the passes after it
    };
    const std::vector<Pass> passes{{batch, false, true, plan.composition_inferences_s + plan.large_batch_inferences_s},
                                   {batch, true, true, plan.large_batch_inferences_s},
                                   {plan.large_inference_batch, true, false, 0.0}};
    for (const Pass& pass : passes) {
      const std::string what = std::string(pass.inference ? "inferences" : "training steps") + " at batch " + std::to_string(pass.batch);
      // Networks not begun by then are left for a rerun.
      const double budget = time_left() - plan.fit_reserve_s - pass.later;
      if (budget < 5) {
        log << "calibrate: no time left for the composition networks' " << what << " (rerun to resume)\n";
        continue;
      }
      if (run_step(log, clock, "the composition networks' " + what + ": " + (pass.runs ? "two runs each, and their" : "their") +
                       " convolutions timed inside them and alone (" + fixed(budget, 0) + " s at most)",
                   "timeout --kill-after=10 " + fixed(budget + 120, 0) + " " + o.python + " " + quote(std::string(DNNPERF_SOURCE_DIR) + "/scripts/torch_step_warmth.py") +
                       " --batch " + std::to_string(pass.batch) + " --threads " + std::to_string(o.threads) + (pass.inference ? " --inference" : "") + " --time-budget " +
                       fixed(budget, 0) + (pass.runs ? " --runs " + quote(steps) : std::string()) + " --kernel-records " + quote(kernels) + " --dnnperf " + quote(dnnperf) +
                       " -o " + quote(warmth) + list) != 0)
        log << "calibrate: some composition networks failed (see above); the fit uses those that ran\n";
    }
    if (std::filesystem::exists(warmth)) out.step_warmth = warmth;
    if (std::filesystem::exists(kernels)) out.kernels = kernels;
  } else {
    bool out_of_time = false;
    for (const bool inference : {false, true})
      for (const std::string& file : files) {
        if (out_of_time) break;
        if (time_left() < plan.fit_reserve_s) {  // the fit keeps its time; the networks timed so far still count
          log << "calibrate: no time left for the other composition networks (rerun to resume)\n";
          out_of_time = true;
          break;
        }
        const std::string stem = steps + "/" + case_stem(file, batch, 1, inference);
        bool ok = true;  // a failed first run leaves the second out
        for (int r = 0; r < 2 && ok; ++r) {
          const std::string run = stem + "_run" + std::to_string(r) + ".json";
          if (std::filesystem::exists(run)) continue;
          ok = run_step(log, clock, std::string(inference ? "an inference" : "a training step") + " of " + std::filesystem::path(file).stem().string() + " at batch " +
                            std::to_string(batch) + ", run " + std::to_string(r + 1) + " of 2",
                        "timeout --kill-after=10 300 " + o.python + " " + quote(std::string(DNNPERF_SOURCE_DIR) + "/scripts/torch_train.py") + " --network " + quote(file) +
                            " --batch " + std::to_string(batch) + " --iterations 3 --device " + o.device + " --threads " + std::to_string(o.threads) +
                            (inference ? " --inference" : "") + " -o " + quote(run)) == 0;
        }
      }
  }
  // Runs timed now or by an earlier, interrupted calibration.
  for (const auto& entry : std::filesystem::directory_iterator(steps))
    if (entry.path().filename().string().ends_with("_run0.json")) {
      out.steps = steps;
      break;
    }
  return out;
}

}  // namespace

void calibrate(std::ostream& log, const CalibrateOptions& o) {
  const CalibrationPlan plan = read_calibration_plan(o.plan.empty() ? default_calibration_plan_path() : o.plan);
  const double budget = o.time_budget > 0 ? o.time_budget : plan.time_budget_s;
  const Clock clock{std::chrono::steady_clock::now(), budget};
  const auto elapsed = [&] { return clock.elapsed(); };
  if (o.backend != "torch") throw InputError("--backend: unknown backend '" + o.backend + "' (torch)");
  if (o.device != "cpu" && o.device != "cuda") throw InputError("--device: unknown device '" + o.device + "' (cpu or cuda)");
  if (!o.networks.empty() && o.batch <= 0) throw InputError("--networks needs --batch: the batch the networks' kernels are measured at");
  if (o.caches != "cold" && o.caches != "warm") throw InputError("--caches: '" + o.caches + "' is neither cold nor warm");
  if (!(budget > plan.fit_reserve_s + 30)) throw InputError("--time-budget must leave time to measure: at least " + fixed(plan.fit_reserve_s + 30, 0) + " s");
  const std::string hardware = !o.hardware.empty() ? o.hardware : o.device == "cpu" ? "cpu" : "";
  if (hardware.empty()) throw InputError("--device cuda: name this GPU's datasheet profile with --hardware (e.g. a100, h100, h200)");
  const std::string work = !o.work.empty() ? o.work : std::filesystem::path(o.output).replace_extension("").string() + ".calibration";
  std::filesystem::create_directories(work);

  // The backend needs PyTorch for the interpreter that runs it; say so plainly when it is missing.
  if (run_step(log, clock, "checking PyTorch", o.python + " -c 'import torch' 2>/dev/null") != 0)
    throw InputError(o.python + " cannot import torch: install python3-torch (scripts/setup.sh) or name another interpreter with --python");
  if (o.device == "cuda" && run_step(log, clock, "checking CUDA", o.python + " -c 'import torch, sys; sys.exit(0 if torch.cuda.is_available() else 1)'") != 0)
    throw InputError("PyTorch sees no CUDA device: calibrate --device cpu, or run on a GPU machine");

  const std::string script = std::string(DNNPERF_SOURCE_DIR) + "/scripts/torch_bench.py";
  // The steps call dnnperf back (shape sets, pricing): this very binary, wherever it was built, not
  // whichever one sits in the source tree's build/.
  std::error_code no_exe;
  const std::filesystem::path exe = std::filesystem::read_symlink("/proc/self/exe", no_exe);
  const std::string self = no_exe ? std::string(DNNPERF_SOURCE_DIR) + "/build/bin/dnnperf" : exe.string();
  const std::string common = " --device " + o.device + " --threads " + std::to_string(o.threads) + " --resume";
  // Every file of GEMMs and convolutions starts with the same anchor kernels: fit puts the files
  // on one speed by them (the machine's speed moves between the runs of one calibration).
  const std::string anchors = " --anchors";
  const std::string memory = work + "/torch_" + o.device + "_memory.jsonl";
  const std::string collectives = work + "/torch_" + o.device + "_allreduce.jsonl";
  const std::string kernels = work + "/torch_" + o.device + "_kernels.jsonl";
  // Inside a training step a layer's weights and inputs were last touched many kernels ago: timed
  // back to back with warm caches, a CPU's convolutions ran 1.2-1.5x faster than in the step (the
  // 2-core VM, 2026-11-30), and the profiles fitted to cold timings predicted whole steps better
  // (README, "Validating against real runs").
  const std::string cold = o.caches == "cold" ? " --cold" : "";
  // Memory passes are quick; the GEMMs and convolutions of the generic set take what is left.
  // Batch norm over real images comes with them (6 s on the 2-core VM: its short runs' scalar
  // rate, docs/models/fitting-notes.md), and the host's time per framework op (a few seconds): a GPU's host
  // timeline charges it, a CPU runs it before the op's kernels (docs/prediction.md). On a CPU also
  // the distance curve (4 s): passes are timed hot, a step's find their operands further out
  // (fitting/compute/pass_far_fit.h).
  const double memory_budget = std::max(plan.memory_min_s, plan.memory_share * (budget - plan.fit_reserve_s));
  if (run_step(log, clock, "memory-bound passes (" + fixed(memory_budget, 0) + " s at most)",
               o.python + " " + quote(script) + " --memory-sizes " + joined_sizes(plan.memory_sizes) + " --bn-shapes grid" + (o.device == "cuda" ? "," + joined_sizes(plan.gpu_memory_sizes) : " --large-memory-sizes " + joined_sizes(plan.cpu_parameter_sizes) + " --pass-distances default") + " --op-host all" +
                   common + " --time-budget " + fixed(memory_budget, 0) + " -o " + quote(memory)) != 0)
    throw InputError("the memory-pass measurements failed (see above); rerun to resume");
  // DDP's gradient all-reduces, through the library it uses (gloo or NCCL): before the kernels,
  // which take whatever time is left.
  std::string procs;  // as the scripts take them: "2,4"
  for (const int p : o.procs) procs += (procs.empty() ? "" : ",") + std::to_string(p);
  if (!o.procs.empty()) {
    const std::string comm_script = std::string(DNNPERF_SOURCE_DIR) + "/scripts/torch_comm_bench.py";
    const double comm_budget = std::max(plan.collectives_min_s, plan.collectives_share * (budget - plan.fit_reserve_s));
    if (run_step(log, clock, "all-reduce through torch.distributed on " + procs + " processes (" + fixed(comm_budget, 0) + " s at most per count)",
                 o.python + " " + quote(comm_script) + " --procs " + procs + " --device " + o.device + " --threads " + std::to_string(o.threads) +
                     " --resume --time-budget " + fixed(comm_budget, 0) + " -o " + quote(collectives)) != 0)
      throw InputError("the all-reduce measurements failed (see above); rerun to resume");
  }
  // The largest kernel worth timing: a second on one CPU thread, a few milliseconds on a GPU
  // (torch_bench.py's anchor_set names the anchors of these samples).
  const int max_gflop = o.device == "cuda" ? plan.max_gflop_cuda : plan.max_gflop_cpu;
  const std::string max_flops = " --max-flops " + std::to_string(max_gflop) + "e9";
  const std::string shapes = o.shapes.empty() ? plan.sample + ":" + std::to_string(max_gflop) : o.shapes;
  // Data-parallel ranks on one CPU share its caches and memory, and wait for the slowest every
  // step: after the kernels, as many ranks as the largest --procs count train side by side
  // (plan.co_running_reserve_s).
  const int most_procs = o.procs.empty() ? 1 : *std::max_element(o.procs.begin(), o.procs.end());
  const bool co_run = o.device == "cpu" && most_procs > 1;
  const bool with_cnn = o.shapes.empty();
  const bool warmth = o.device == "cpu" && o.caches == "cold" && with_cnn;
  // What the measurements of GEMMs and convolutions may still take.
  const auto kernel_time_left = [&] {
    return budget - plan.fit_reserve_s - plan.composition_reserve_s - (co_run ? plan.co_running_reserve_s : 0.0) - (warmth ? plan.hot_pairs_reserve_s : 0.0) - elapsed();
  };
  const bool corners_measured = with_cnn && o.device == "cpu";
  // On a CPU, corners of the shape space the free sample rarely reaches (the plan's corners:
  // large-output and skinny GEMMs, CNNs' last stages at small inputs; docs/models/calibration-plan.md).
  struct Corner {
    std::string set, what, file;
    bool capped, anchored;
    double reserve;
  };
  std::vector<Corner> corners;
  for (const CornerSet& c : plan.corners)
    corners.push_back({c.set + (c.gflop_suffix ? ":" + std::to_string(max_gflop) : std::string()), c.what, work + "/torch_" + o.device + "_" + c.file + ".jsonl",
                       c.capped, c.anchored, c.reserve_s});
  double corner_reserve = 0;
  for (const Corner& c : corners) corner_reserve += c.reserve;
  const double left = kernel_time_left() - (corners_measured ? corner_reserve : 0.0);
  // With the default set, a fifth of that goes to convolutions drawn as a CNN's layers are
  // (cnn:200:4): the free sample puts few of the small-image, many-channel layers networks run at
  // small inputs, and the batch-1 layers PyTorch keeps from oneDNN (docs/models/fitting-notes.md).
  double sample_budget = with_cnn ? (1 - plan.cnn_share) * left : left;
  // The sample into its one file: `only` adds torch_bench's --ops and --max-kernels.
  const auto time_sample = [&](const std::string& what, const std::string& only, double seconds) {
    if (run_step(log, clock, what + " of " + shapes + " (" + fixed(seconds, 0) + " s at most)",
                 o.python + " " + quote(script) + " --shapes " + shapes + max_flops + cold + anchors + common + only + " --time-budget " + fixed(seconds, 0) +
                     " --dnnperf " + quote(self) + " -o " + quote(kernels)) != 0)
      throw InputError("measuring " + what + " failed (see above); rerun to resume");
  };
  if (corners_measured && left > 10) {
    const double started = elapsed();
    time_sample("the first " + std::to_string(plan.gemms_first) + " GEMMs", " --ops gemm --max-kernels " + std::to_string(plan.gemms_first), plan.gemms_first_share * sample_budget);
    sample_budget -= elapsed() - started;
  }
  if (left > 10 && sample_budget > 5) time_sample("GEMMs and convolutions", "", sample_budget);
  for (const Corner& c : corners)
    if (corners_measured && kernel_time_left() > 10 &&
        run_step(log, clock, c.what + " (" + c.set + ")", o.python + " " + quote(script) + " --shapes " + c.set + (c.capped ? max_flops : "") + cold +
                                                               (c.anchored ? anchors : "") + common + " --time-budget " + fixed(std::min(c.reserve, kernel_time_left()), 0) +
                                                               " --dnnperf " + quote(self) + " -o " + quote(c.file)) != 0)
      throw InputError("the measurements of " + c.what + " failed (see above); rerun to resume");
  const std::string cnn_kernels = work + "/torch_" + o.device + "_cnn.jsonl";
  const double cnn_budget = kernel_time_left();
  if (with_cnn && cnn_budget > 10) {
    const std::string cnn = plan.cnn + ":" + std::to_string(max_gflop);
    if (run_step(log, clock, "convolutions of " + cnn + " (" + fixed(cnn_budget, 0) + " s at most)",
                 o.python + " " + quote(script) + " --shapes " + cnn + max_flops + cold + anchors + common + " --time-budget " + fixed(cnn_budget, 0) +
                     " --dnnperf " + quote(self) + " -o " + quote(cnn_kernels)) != 0)
      throw InputError("the CNN-shaped convolution measurements failed (see above); rerun to resume");
  }
  // No anchors: one session, and the pairs' cold records are not samples (docs/models/fitting-notes.md).
  const std::string pair_kernels = work + "/torch_cpu_hot_pairs.jsonl";
  if (warmth &&
      run_step(log, clock, "convolutions timed cold and back to back (" + plan.hot_pairs + ":" + std::to_string(max_gflop) + ", hot pairs; " + fixed(plan.hot_pairs_reserve_s, 0) + " s at most)",
               o.python + " " + quote(script) + " --shapes " + plan.hot_pairs + ":" + std::to_string(max_gflop) + max_flops + cold + " --hot-pairs" + common +
                   " --time-budget " + fixed(plan.hot_pairs_reserve_s, 0) + " --dnnperf " + quote(self) + " -o " + quote(pair_kernels)) != 0)
    log << "calibrate: the hot pairs failed (see above); convolutions keep their cold price\n";
  std::vector<std::string> files{memory};
  if (std::filesystem::exists(kernels)) files.push_back(kernels);
  if (std::filesystem::exists(cnn_kernels)) files.push_back(cnn_kernels);
  for (const Corner& c : corners)
    if (std::filesystem::exists(c.file)) files.push_back(c.file);
  if (std::filesystem::exists(pair_kernels)) files.push_back(pair_kernels);
  if (co_run) {
    const std::string co_run_file = work + "/torch_cpu_sync_steps.jsonl";
    if (run_step(log, clock, "training steps of " + std::to_string(most_procs) + " ranks sharing the node, meeting every step (scripts/torch_sync_steps.py)",
                 o.python + " " + quote(std::string(DNNPERF_SOURCE_DIR) + "/scripts/torch_sync_steps.py") + " --procs " + std::to_string(most_procs) +
                     " --threads " + std::to_string(o.threads) + " --resume -o " + quote(co_run_file)) != 0)
      log << "calibrate: a co-running measurement failed (see above); fit uses the networks that ran, if any\n";
    if (std::filesystem::exists(co_run_file)) files.push_back(co_run_file);
  }
  // The networks' own kernels, priced by their measured time in the profile (fit --measured-kernels).
  for (const std::string& network : o.networks) {
    const std::string spec = network + (o.input > 0 ? "@" + std::to_string(o.input) : "");
    const std::string exact = work + "/torch_" + o.device + "_exact_" + network + ".jsonl";
    if (run_step(log, clock, "the exact GEMMs and convolutions of " + spec + " at batch " + std::to_string(o.batch),
                 o.python + " " + quote(script) + " --shapes " + quote("zoo:" + spec) + " --batch " + std::to_string(o.batch) +
                     max_flops + cold + anchors + common + " --dnnperf " + quote(self) + " -o " + quote(exact)) != 0)
      throw InputError("the measurements of " + network + "'s kernels failed (see above); rerun to resume");
    files.push_back(exact);
  }
  if (!o.procs.empty() && std::filesystem::exists(collectives)) files.push_back(collectives);
  const StepMeasurements steps = measure_steps(log, clock, plan, o, work, self, [&] { return budget - elapsed(); });
  // The composition networks' convolutions, timed cold as the generic sample's: shapes real
  // networks have (other than those validated), which a sample of the shape space draws few of.
  if (!steps.kernels.empty()) files.push_back(steps.kernels);
  log << "calibrate: fitting (" << fixed(elapsed(), 0) << " s so far)\n";
  FitOptions fit;
  fit.files = files;
  fit.hardware = hardware;
  fit.output = o.output;
  fit.plots = work + "/report";
  fit.measured_kernels = !o.networks.empty();
  fit.steps = steps.steps;
  fit.step_networks = work + "/networks";
  fit.step_warmth = steps.step_warmth;
  fit_profile_files(log, fit);
  log << "calibrate: done in " << fixed(elapsed(), 0) << " s; measurements and report in " << work << "\n";
}


}  // namespace dnnperf::calibration
