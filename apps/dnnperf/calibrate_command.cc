#include "apps/dnnperf/calibrate_command.h"

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <functional>
#include <fstream>
#include <iostream>
#include <memory>
#include <vector>

#include "apps/dnnperf/fit_command.h"
#include "apps/dnnperf/format.h"
#include "apps/dnnperf/ground_truth.h"
#include "predictor/common/error.h"
#include "predictor/hardware/fitted_sections.h"

namespace dnnperf::cli {
namespace {

struct Options {
  std::string backend = "torch";
  std::string device = "cpu";
  std::string hardware;
  double time_budget = 570;
  std::string shapes;  // default: sample:600:1:GFLOP, GFLOP the device's cap (max_gflop)
  int threads = 1;
  std::vector<int> procs;  // process counts for torch.distributed all-reduce measurements, e.g. {2}
  std::vector<std::string> networks;  // also their exact GEMMs and convolutions
  int batch = 0;
  int input = 0;
  std::string work;
  std::string output;
  std::string python = "/usr/bin/python3";
  std::string caches = "cold";  // GEMMs and convolutions timed after evicting the caches, or warm
};

// Memory-bound passes from 4 KiB to 64 MiB: where bandwidth ramps up and where it saturates; on a
// GPU also 256 MiB and 1 GiB, well past an L2 of 50-60 MB (A100, H100, H200).
constexpr const char* kMemorySizes = "4096,16384,65536,262144,1048576,4194304,16777216,67108864";
constexpr const char* kGpuMemorySizes = ",268435456,1073741824";
// On a CPU, a network's whole parameter set is streamed by its optimizer step (VGG-11's 133 M
// parameters at 64x64: 531 MB) and with no pass past 64 MiB the bandwidth curve's plateau was a
// guess: on the family-25 VM (2026-12-02) one fitted 6.3x beyond ~96 MiB and priced AlexNet's
// and VGG-11's updates 1.7-2.0x their measured time. The passes over parameters only, at
// 256 MiB (13 s there; docs/fitting.md).
constexpr const char* kCpuParameterSizes = " --large-memory-sizes 268435456";
// Seconds kept for the fit after measuring: with the composition steps, two fits (fit
// --time-weight auto) and one report's plots, 67 s on the 2-core Intel VM (2026-12-03) with both
// reports drawn; a single fit took 31-48 s there and on the AMD VMs.
constexpr double kFitReserve = 80;
// Training steps of four networks that are not validated, alone, with the ranks sharing the node
// meeting every step, and under DDP (scripts/torch_sync_steps.py; ~30 s on the 2-core VM).
constexpr double kCoRunReserve = 40;
// Real training steps and inferences of networks that are not validated (scripts/export_onnx.py
// COMPOSITION), two runs each: what a whole step costs beyond its kernels, for the prediction
// intervals; on a CPU with their convolutions timed inside the steps and alone, for the warmth
// each kind realizes (~65 s and ~21 s for the seven on the 2-core VM at batch 4, 64x64, in a slow
// hour; one process per kind; and the inferences' convolutions at batch 16, ~17 s).
constexpr double kStepReserve = 135;
// Of that, what the inferences keep from the training steps before them.
constexpr double kInferenceStepReserve = 25;
// Of that too, on a CPU, the inferences' convolutions timed inside them and alone at a validated
// larger batch (no whole-step runs; ~17 s for the seven on the VM at batch 16).
constexpr double kLargeBatchInferenceReserve = 20;
constexpr int kLargeInferenceBatch = 16;
// On a CPU, convolutions of a CNN's layers timed cold and then back to back (torch_bench.py
// --hot-pairs): what a step's warmth saves them (device.step_warmth; ~60 pairs in 45 s on the VM).
constexpr double kWarmthReserve = 45;
// On a CPU, each of the two corners of the GEMM space the free sample rarely reaches (wide:24 and
// skinny:32, below) with its anchors: 40-45 s on the VM at 2.5x its 2026-11-30 kernel times
// (skinny:32 35 s at its usual speed, 2026-12-04).
constexpr double kCornerReserve = 45;
// On a CPU, the convolutions of CNNs' last stages at small inputs (late:180, below), timed without
// anchors: ~50 s on the family-25 VM (2026-12-03; the first sixty 16-18 s).
constexpr double kLateReserve = 55;
// On a CPU, the sample's GEMMs timed first, anchors included, before the sample's interleaved
// run: the cache-blocked GEMM model needs 90 GEMMs in each of its held-out folds' training sets
// (fitting/compute/compute_fit.cc), which the wide and skinny corners' 56 do not make alone. The
// interleaved sample gives GEMMs a quarter of its kernels, and in a slow hour on the 2-core VM
// (2026-12-03, 11:27) its 38 s reached 136 kernels, 35 of them GEMMs: 80 in all, the model was
// not fitted, and the tiles priced the batch-4 classifiers' GEMMs of ResNet-18/50, MobileNetV2 and
// DenseNet-121 1.5-1.8x their time (4-11% off by the blocked model of a calibration at 08:28;
// data/measurements/cpu-vm-2core-2026-12-03-midday/). At most this share of the sample's time.
constexpr int kSampleGemms = 70;
constexpr double kSampleGemmShare = 0.6;

std::string quote(const std::string& s) { return "'" + s + "'"; }

int run_step(const std::string& what, const std::string& command) {
  std::cout << "calibrate: " << what << "\n" << std::flush;
  const int status = std::system(command.c_str());
  if (status == -1) throw InputError("cannot run: " + command);
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128;
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
StepMeasurements measure_steps(const Options& o, const std::string& work, const std::string& dnnperf, const std::function<double()>& time_left) {
  const std::string networks = work + "/networks";
  const std::string steps = work + "/steps";
  std::filesystem::create_directories(steps);
  if (run_step("the composition networks as ONNX files (scripts/export_onnx.py composition)",
               o.python + " " + quote(std::string(DNNPERF_SOURCE_DIR) + "/scripts/export_onnx.py") + " --skip-existing " + quote(networks) + " composition >/dev/null") != 0) {
    std::cout << "calibrate: exporting the composition networks failed (see above); intervals leave out the step's own error\n";
    return {};
  }
  // Batches as validated: 4 on a CPU, 32 on a GPU (small inputs, 64x64).
  const int batch = o.device == "cuda" ? 32 : 4;
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
    // (MobileNetV2's ran at half their cold time; docs/fitting.md).
    struct Pass {
      int batch;
      bool inference, runs;
      double later;  // seconds kept for the passes after it
    };
    const std::vector<Pass> passes{{batch, false, true, kInferenceStepReserve + kLargeBatchInferenceReserve},
                                   {batch, true, true, kLargeBatchInferenceReserve},
                                   {kLargeInferenceBatch, true, false, 0.0}};
    for (const Pass& pass : passes) {
      const std::string what = std::string(pass.inference ? "inferences" : "training steps") + " at batch " + std::to_string(pass.batch);
      // Networks not begun by then are left for a rerun.
      const double budget = time_left() - kFitReserve - pass.later;
      if (budget < 5) {
        std::cout << "calibrate: no time left for the composition networks' " << what << " (rerun to resume)\n";
        continue;
      }
      if (run_step("the composition networks' " + what + ": " + (pass.runs ? "two runs each, and their" : "their") +
                       " convolutions timed inside them and alone (" + fixed(budget, 0) + " s at most)",
                   "timeout --kill-after=10 " + fixed(budget + 120, 0) + " " + o.python + " " + quote(std::string(DNNPERF_SOURCE_DIR) + "/scripts/torch_step_warmth.py") +
                       " --batch " + std::to_string(pass.batch) + " --threads " + std::to_string(o.threads) + (pass.inference ? " --inference" : "") + " --time-budget " +
                       fixed(budget, 0) + (pass.runs ? " --runs " + quote(steps) : std::string()) + " --kernel-records " + quote(kernels) + " --dnnperf " + quote(dnnperf) +
                       " -o " + quote(warmth) + list) != 0)
        std::cout << "calibrate: some composition networks failed (see above); the fit uses those that ran\n";
    }
    if (std::filesystem::exists(warmth)) out.step_warmth = warmth;
    if (std::filesystem::exists(kernels)) out.kernels = kernels;
  } else {
    bool out_of_time = false;
    for (const bool inference : {false, true})
      for (const std::string& file : files) {
        if (out_of_time) break;
        if (time_left() < kFitReserve) {  // the fit keeps its time; the networks timed so far still count
          std::cout << "calibrate: no time left for the other composition networks (rerun to resume)\n";
          out_of_time = true;
          break;
        }
        const std::string stem = steps + "/" + case_stem(file, batch, 1, inference);
        bool ok = true;  // a failed first run leaves the second out
        for (int r = 0; r < 2 && ok; ++r) {
          const std::string run = stem + "_run" + std::to_string(r) + ".json";
          if (std::filesystem::exists(run)) continue;
          ok = run_step(std::string(inference ? "an inference" : "a training step") + " of " + std::filesystem::path(file).stem().string() + " at batch " +
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

void run(const Options& o) {
  const auto t0 = std::chrono::steady_clock::now();
  const auto elapsed = [&] { return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count(); };
  if (o.backend != "torch") throw InputError("--backend: unknown backend '" + o.backend + "' (torch)");
  if (o.device != "cpu" && o.device != "cuda") throw InputError("--device: unknown device '" + o.device + "' (cpu or cuda)");
  if (!o.networks.empty() && o.batch <= 0) throw InputError("--networks needs --batch: the batch the networks' kernels are measured at");
  if (o.caches != "cold" && o.caches != "warm") throw InputError("--caches: '" + o.caches + "' is neither cold nor warm");
  if (!(o.time_budget > kFitReserve + 30)) throw InputError("--time-budget must leave time to measure: at least " + fixed(kFitReserve + 30, 0) + " s");
  const std::string hardware = !o.hardware.empty() ? o.hardware : o.device == "cpu" ? "cpu" : "";
  if (hardware.empty()) throw InputError("--device cuda: name this GPU's datasheet profile with --hardware (e.g. a100, h100, h200)");
  const std::string work = !o.work.empty() ? o.work : std::filesystem::path(o.output).replace_extension("").string() + ".calibration";
  std::filesystem::create_directories(work);

  // The backend needs PyTorch for the interpreter that runs it; say so plainly when it is missing.
  if (run_step("checking PyTorch", o.python + " -c 'import torch' 2>/dev/null") != 0)
    throw InputError(o.python + " cannot import torch: install python3-torch (scripts/setup.sh) or name another interpreter with --python");
  if (o.device == "cuda" && run_step("checking CUDA", o.python + " -c 'import torch, sys; sys.exit(0 if torch.cuda.is_available() else 1)'") != 0)
    throw InputError("PyTorch sees no CUDA device: calibrate --device cpu, or run on a GPU machine");

  const std::string script = std::string(DNNPERF_SOURCE_DIR) + "/scripts/torch_bench.py";
  const std::string self = std::string(DNNPERF_SOURCE_DIR) + "/build/bin/dnnperf";
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
  // rate, docs/fitting.md), and the host's time per framework op (a few seconds): a GPU's host
  // timeline charges it, a CPU runs it before the op's kernels (docs/prediction.md). On a CPU also
  // the distance curve (4 s): passes are timed hot, a step's find their operands further out
  // (fitting/compute/pass_far_fit.h).
  const double memory_budget = std::max(20.0, 0.1 * (o.time_budget - kFitReserve));
  if (run_step("memory-bound passes (" + fixed(memory_budget, 0) + " s at most)",
               o.python + " " + quote(script) + " --memory-sizes " + kMemorySizes + " --bn-shapes grid" + (o.device == "cuda" ? kGpuMemorySizes : std::string(kCpuParameterSizes) + " --pass-distances default") + " --op-host all" +
                   common + " --time-budget " + fixed(memory_budget, 0) + " -o " + quote(memory)) != 0)
    throw InputError("the memory-pass measurements failed (see above); rerun to resume");
  // DDP's gradient all-reduces, through the library it uses (gloo or NCCL): before the kernels,
  // which take whatever time is left.
  std::string procs;  // as the scripts take them: "2,4"
  for (const int p : o.procs) procs += (procs.empty() ? "" : ",") + std::to_string(p);
  if (!o.procs.empty()) {
    const std::string comm_script = std::string(DNNPERF_SOURCE_DIR) + "/scripts/torch_comm_bench.py";
    const double comm_budget = std::max(20.0, 0.1 * (o.time_budget - kFitReserve));
    if (run_step("all-reduce through torch.distributed on " + procs + " processes (" + fixed(comm_budget, 0) + " s at most per count)",
                 o.python + " " + quote(comm_script) + " --procs " + procs + " --device " + o.device + " --threads " + std::to_string(o.threads) +
                     " --resume --time-budget " + fixed(comm_budget, 0) + " -o " + quote(collectives)) != 0)
      throw InputError("the all-reduce measurements failed (see above); rerun to resume");
  }
  // The largest kernel worth timing: a second on one CPU thread, a few milliseconds on a GPU
  // (torch_bench.py's anchor_set names the anchors of these samples).
  const int max_gflop = o.device == "cuda" ? 200 : 2;
  const std::string max_flops = " --max-flops " + std::to_string(max_gflop) + "e9";
  const std::string shapes = o.shapes.empty() ? "sample:600:1:" + std::to_string(max_gflop) : o.shapes;
  // Data-parallel ranks on one CPU share its caches and memory, and wait for the slowest every
  // step: after the kernels, as many ranks as the largest --procs count train side by side
  // (kCoRunReserve).
  const int most_procs = o.procs.empty() ? 1 : *std::max_element(o.procs.begin(), o.procs.end());
  const bool co_run = o.device == "cpu" && most_procs > 1;
  const bool with_cnn = o.shapes.empty();
  const bool warmth = o.device == "cpu" && o.caches == "cold" && with_cnn;
  // What the measurements of GEMMs and convolutions may still take.
  const auto kernel_time_left = [&] {
    return o.time_budget - kFitReserve - kStepReserve - (co_run ? kCoRunReserve : 0.0) - (warmth ? kWarmthReserve : 0.0) - elapsed();
  };
  const bool corners_measured = with_cnn && o.device == "cpu";
  // On a CPU, corners of the shape space the free sample rarely reaches. Two of the GEMM space,
  // where a large classifier at a small batch spends most of its step: GEMMs that write 40-400 MB
  // (wide:24, its weight gradient: a 10-minute profile without them priced VGG-11's first
  // classifier layer at 5x its time; ~15 s) and GEMMs of 1-16 rows against a 40-400 MB matrix
  // (skinny:32, its forward and input gradient: on an EPYC of family 25 the batch-4 input gradients
  // ran 3.6-4.8x slower than on family 26 against 1.7x for the forward, and a profile without them
  // priced AlexNet's batch-4 training 28.5% fast, with them 18.7%; ~35 s;
  // data/measurements/cpu-vm-2core-2026-12-02-family25/; half of them with the round widths that
  // make a BLAS pack rows slower, 1.35x on the Intel VM:
  // data/measurements/cpu-vm-2core-2026-12-04-aliasing/). And the convolutions of CNNs' last
  // stages at small inputs (late:180): 1x1 layers over 2x2-8x8 images at batches under 16 run as
  // per-image GEMMs of a few columns, which neither sample reaches in the input gradient's
  // direction; without them the fit's parameters for those paths are free to wander, and refits
  // on nine tenths of a calibration's kernels (scripts/fit_stability.py) spread MobileNetV2's,
  // ResNet-50's and DenseNet-121's batch-4 steps 1.2-14x wider (log sigma) than with them
  // (data/measurements/cpu-vm-2core-2026-12-02-late/). Sixty left MobileNetV2's batch-4 1x1 input
  // and weight gradients priced at 1.5x and 1.7x their time (a handful of the sixty at batch 4
  // with hundreds of channels); 120 more brought them to 0.99x and 1.23x, and the composition
  // steps' RMS log error from 17.1 to 11.8% (data/measurements/cpu-vm-2core-2026-12-03-late180/).
  // Its kernels are a few milliseconds each: timed without anchors, on the session's speed as it was.
  struct Corner {
    std::string set;
    const char* what;
    std::string file;
    bool capped;  // kernels above --max-flops skipped, as in the sample (wide's, mostly writing, are all timed)
    bool anchored;
    double reserve;
  };
  const std::vector<Corner> corners{{"wide:24:1", "GEMMs with large outputs", work + "/torch_" + o.device + "_wide.jsonl", false, true, kCornerReserve},
                                    {"skinny:32:1", "GEMMs of few rows against a large matrix", work + "/torch_" + o.device + "_skinny.jsonl", true, true, kCornerReserve},
                                    {"late:180:1:" + std::to_string(max_gflop), "convolutions of CNNs' last stages at small inputs",
                                     work + "/torch_" + o.device + "_late.jsonl", true, false, kLateReserve}};
  double corner_reserve = 0;
  for (const Corner& c : corners) corner_reserve += c.reserve;
  const double left = kernel_time_left() - (corners_measured ? corner_reserve : 0.0);
  // With the default set, a fifth of that goes to convolutions drawn as a CNN's layers are
  // (cnn:200:4): the free sample puts few of the small-image, many-channel layers networks run at
  // small inputs, and the batch-1 layers PyTorch keeps from oneDNN (docs/fitting.md).
  double sample_budget = with_cnn ? 0.8 * left : left;
  // The sample into its one file: `only` adds torch_bench's --ops and --max-kernels.
  const auto time_sample = [&](const std::string& what, const std::string& only, double budget) {
    if (run_step(what + " of " + shapes + " (" + fixed(budget, 0) + " s at most)",
                 o.python + " " + quote(script) + " --shapes " + shapes + max_flops + cold + anchors + common + only + " --time-budget " + fixed(budget, 0) +
                     " --dnnperf " + quote(self) + " -o " + quote(kernels)) != 0)
      throw InputError("measuring " + what + " failed (see above); rerun to resume");
  };
  if (corners_measured && left > 10) {
    const double started = elapsed();
    time_sample("the first " + std::to_string(kSampleGemms) + " GEMMs", " --ops gemm --max-kernels " + std::to_string(kSampleGemms), kSampleGemmShare * sample_budget);
    sample_budget -= elapsed() - started;
  }
  if (left > 10 && sample_budget > 5) time_sample("GEMMs and convolutions", "", sample_budget);
  for (const Corner& c : corners)
    if (corners_measured && kernel_time_left() > 10 &&
        run_step(std::string(c.what) + " (" + c.set + ")", o.python + " " + quote(script) + " --shapes " + c.set + (c.capped ? max_flops : "") + cold +
                                                               (c.anchored ? anchors : "") + common + " --time-budget " + fixed(std::min(c.reserve, kernel_time_left()), 0) +
                                                               " --dnnperf " + quote(self) + " -o " + quote(c.file)) != 0)
      throw InputError(std::string("the measurements of ") + c.what + " failed (see above); rerun to resume");
  const std::string cnn_kernels = work + "/torch_" + o.device + "_cnn.jsonl";
  const double cnn_budget = kernel_time_left();
  if (with_cnn && cnn_budget > 10) {
    const std::string cnn = "cnn:200:4:" + std::to_string(max_gflop);
    if (run_step("convolutions of " + cnn + " (" + fixed(cnn_budget, 0) + " s at most)",
                 o.python + " " + quote(script) + " --shapes " + cnn + max_flops + cold + anchors + common + " --time-budget " + fixed(cnn_budget, 0) +
                     " --dnnperf " + quote(self) + " -o " + quote(cnn_kernels)) != 0)
      throw InputError("the CNN-shaped convolution measurements failed (see above); rerun to resume");
  }
  // No anchors: one session, and the pairs' cold records are not samples (docs/fitting.md).
  const std::string pair_kernels = work + "/torch_cpu_hot_pairs.jsonl";
  if (warmth &&
      run_step("convolutions timed cold and back to back (cnn:120:9:" + std::to_string(max_gflop) + ", hot pairs; " + fixed(kWarmthReserve, 0) + " s at most)",
               o.python + " " + quote(script) + " --shapes cnn:120:9:" + std::to_string(max_gflop) + max_flops + cold + " --hot-pairs" + common +
                   " --time-budget " + fixed(kWarmthReserve, 0) + " --dnnperf " + quote(self) + " -o " + quote(pair_kernels)) != 0)
    std::cout << "calibrate: the hot pairs failed (see above); convolutions keep their cold price\n";
  std::vector<std::string> files{memory};
  if (std::filesystem::exists(kernels)) files.push_back(kernels);
  if (std::filesystem::exists(cnn_kernels)) files.push_back(cnn_kernels);
  for (const Corner& c : corners)
    if (std::filesystem::exists(c.file)) files.push_back(c.file);
  if (std::filesystem::exists(pair_kernels)) files.push_back(pair_kernels);
  if (co_run) {
    const std::string co_run_file = work + "/torch_cpu_sync_steps.jsonl";
    if (run_step("training steps of " + std::to_string(most_procs) + " ranks sharing the node, meeting every step (scripts/torch_sync_steps.py)",
                 o.python + " " + quote(std::string(DNNPERF_SOURCE_DIR) + "/scripts/torch_sync_steps.py") + " --procs " + std::to_string(most_procs) +
                     " --threads " + std::to_string(o.threads) + " --resume -o " + quote(co_run_file)) != 0)
      std::cout << "calibrate: a co-running measurement failed (see above); fit uses the networks that ran, if any\n";
    if (std::filesystem::exists(co_run_file)) files.push_back(co_run_file);
  }
  // The networks' own kernels, priced by their measured time in the profile (fit --measured-kernels).
  for (const std::string& network : o.networks) {
    const std::string spec = network + (o.input > 0 ? "@" + std::to_string(o.input) : "");
    const std::string exact = work + "/torch_" + o.device + "_exact_" + network + ".jsonl";
    if (run_step("the exact GEMMs and convolutions of " + spec + " at batch " + std::to_string(o.batch),
                 o.python + " " + quote(script) + " --shapes " + quote("zoo:" + spec) + " --batch " + std::to_string(o.batch) +
                     max_flops + cold + anchors + common + " --dnnperf " + quote(self) + " -o " + quote(exact)) != 0)
      throw InputError("the measurements of " + network + "'s kernels failed (see above); rerun to resume");
    files.push_back(exact);
  }
  if (!o.procs.empty() && std::filesystem::exists(collectives)) files.push_back(collectives);
  const StepMeasurements steps = measure_steps(o, work, self, [&] { return o.time_budget - elapsed(); });
  // The composition networks' convolutions, timed cold as the generic sample's: shapes real
  // networks have (other than those validated), which a sample of the shape space draws few of.
  if (!steps.kernels.empty()) files.push_back(steps.kernels);
  std::cout << "calibrate: fitting (" << fixed(elapsed(), 0) << " s so far)\n";
  fit_files(files, hardware, o.output, work + "/report", !o.networks.empty(), steps.steps, work + "/networks", steps.step_warmth);
  std::cout << "calibrate: done in " << fixed(elapsed(), 0) << " s; measurements and report in " << work << "\n";
}

}  // namespace

void add_calibrate_command(CLI::App& app) {
  auto o = std::make_shared<Options>();
  CLI::App* c = app.add_subcommand("calibrate", "Measure kernels through a framework and fit a calibrated profile, in one go");
  c->add_option("--backend", o->backend, "measurement backend: torch (scripts/torch_bench.py)")->capture_default_str();
  c->add_option("--device", o->device, "cpu or cuda")->capture_default_str();
  c->add_option("--hardware", o->hardware, "base profile to calibrate (default for cpu: cpu; required for cuda)");
  c->add_option("--time-budget", o->time_budget, "seconds for measuring and fitting together (resumable: rerun to continue)")->capture_default_str();
  c->add_option("--shapes", o->shapes, "the generic shape set for GEMMs and convolutions (default: sample:600:1:2 on a CPU, sample:600:1:200 on CUDA: every kernel under 2 or 200 GFLOP)");
  c->add_option("--threads", o->threads, "CPU threads the framework uses")->capture_default_str();
  c->add_option("--procs", o->procs, "also measure all-reduce through torch.distributed (gloo on cpu, NCCL on cuda) on these process counts, e.g. 2 or 2,4")->delimiter(',')->check(CLI::Range(1, 4096));
  c->add_option("--networks", o->networks, "also measure these zoo networks' exact GEMMs and convolutions (after the generic set, outside the time budget) and price them by their measured time")
      ->delimiter(',');
  c->add_option("--batch", o->batch, "batch for --networks");
  c->add_option("--input", o->input, "image size for --networks (zoo CNNs)");
  c->add_option("--work", o->work, "folder for measurements and report (default: OUTPUT without .json, plus .calibration)");
  c->add_option("--python", o->python, "Python interpreter with PyTorch")->capture_default_str();
  c->add_option("--caches", o->caches, "GEMMs and convolutions timed with the caches evicted before each repetition (cold: as inside a training step) or warm")->capture_default_str();
  c->add_option("-o,--output", o->output, "calibrated profile to write")->required();
  c->callback([o] { run(*o); });
}

}  // namespace dnnperf::cli
