#include "microbench/gpu/gpu_bench.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <functional>
#include <memory>

#include "microbench/gpu/gpu_timing.h"
#include "core/common/progress.h"
#include "records/record_writer.h"
#include "core/common/error.h"

namespace dnnperf::bench {
namespace {

struct DTypeInfo {
  std::string name;
  int width;            // bytes per element
  bool bf16;
  cudaDataType_t cuda;
  cublasComputeType_t compute;
  cudnnDataType_t cudnn;
  cudnnMathType_t math;
};

DTypeInfo dtype_info(const std::string& name) {
  if (name == "f32") return {name, 4, false, CUDA_R_32F, CUBLAS_COMPUTE_32F, CUDNN_DATA_FLOAT, CUDNN_FMA_MATH};
  if (name == "tf32") return {name, 4, false, CUDA_R_32F, CUBLAS_COMPUTE_32F_FAST_TF32, CUDNN_DATA_FLOAT, CUDNN_TENSOR_OP_MATH_ALLOW_CONVERSION};
  if (name == "f16") return {name, 2, false, CUDA_R_16F, CUBLAS_COMPUTE_32F, CUDNN_DATA_HALF, CUDNN_TENSOR_OP_MATH};
  if (name == "bf16") return {name, 2, true, CUDA_R_16BF, CUBLAS_COMPUTE_32F, CUDNN_DATA_BFLOAT16, CUDNN_TENSOR_OP_MATH};
  throw InputError("--algorithms: unknown GPU dtype '" + name + "' (f32, tf32, f16, bf16)");
}

__global__ void empty_kernel() {}

__global__ void add_kernel(const float* a, const float* b, float* c, unsigned long long n) {
  for (unsigned long long i = blockIdx.x * 1ull * blockDim.x + threadIdx.x; i < n; i += 1ull * blockDim.x * gridDim.x) c[i] = a[i] + b[i];
}

// One block per row of `cols` floats: sum, softmax or layer normalisation of the row.
template <int kind>
__global__ void row_kernel(const float* x, float* y, int cols) {
  __shared__ float partial[256];
  const float* in = x + static_cast<long long>(blockIdx.x) * cols;
  float* out = y + static_cast<long long>(blockIdx.x) * cols;
  float acc = kind == 1 ? -3.4e38f : 0.0f;
  for (int i = threadIdx.x; i < cols; i += blockDim.x) acc = kind == 1 ? fmaxf(acc, in[i]) : acc + in[i];
  partial[threadIdx.x] = acc;
  __syncthreads();
  for (int s = blockDim.x / 2; s > 0; s /= 2) {
    if (threadIdx.x < s) partial[threadIdx.x] = kind == 1 ? fmaxf(partial[threadIdx.x], partial[threadIdx.x + s]) : partial[threadIdx.x] + partial[threadIdx.x + s];
    __syncthreads();
  }
  const float first = partial[0];
  __syncthreads();
  if (kind == 0) {
    if (threadIdx.x == 0) out[0] = first;
    return;
  }
  float second = 0;
  for (int i = threadIdx.x; i < cols; i += blockDim.x) {
    const float d = kind == 1 ? __expf(in[i] - first) : in[i] - first / cols;
    second += kind == 1 ? d : d * d;
  }
  partial[threadIdx.x] = second;
  __syncthreads();
  for (int s = blockDim.x / 2; s > 0; s /= 2) {
    if (threadIdx.x < s) partial[threadIdx.x] += partial[threadIdx.x + s];
    __syncthreads();
  }
  const float total = partial[0];
  for (int i = threadIdx.x; i < cols; i += blockDim.x)
    out[i] = kind == 1 ? __expf(in[i] - first) / total : (in[i] - first / cols) * rsqrtf(total / cols + 1e-5f);
}

class GpuBench {
 public:
  GpuBench(const GpuBenchOptions& o, const ShapeSet& shapes) : o_(o), shapes_(shapes), deadline_(o.time_budget_s) {}

  int run() {
    int count = 0;
    const cudaError_t status = cudaGetDeviceCount(&count);
    if (status != cudaSuccess || count == 0) {
      std::fprintf(stderr, "dnnperf bench %s: no CUDA device available (%s); nothing measured\n", o_.op.c_str(),
                   status != cudaSuccess ? cudaGetErrorString(status) : "0 devices");
      return 77;
    }
    if (o_.device < 0 || o_.device >= count) throw InputError("--device index " + std::to_string(o_.device) + " does not exist");
    DNNPERF_CUDA(cudaSetDevice(o_.device));
    DNNPERF_CUDA(cudaGetDeviceProperties(&props_, o_.device));
    DNNPERF_CUDA(cudaStreamCreate(&stream_));
    DNNPERF_CUBLAS(cublasCreate(&cublas_));
    DNNPERF_CUBLAS(cublasSetStream(cublas_, stream_));
    DNNPERF_CUDNN(cudnnCreate(&cudnn_));
    DNNPERF_CUDNN(cudnnSetStream(cudnn_, stream_));
    int runtime = 0, driver = 0;
    cudaRuntimeGetVersion(&runtime);
    cudaDriverGetVersion(&driver);
    int cublas_version = 0;
    cublasGetVersion(cublas_, &cublas_version);
    versions_ = {{"cuda_runtime", runtime}, {"cuda_driver", driver}, {"cublas", cublas_version}, {"cudnn", cudnnGetVersion()}};
    layout_ = {{"device", props_.name}, {"index", o_.device}, {"compute_capability", std::to_string(props_.major) + "." + std::to_string(props_.minor)}};
    writer_ = std::make_unique<RecordWriter>(o_.output, o_.resume, run_context(versions_));
    if (o_.op == "gemm") gemms();
    else if (o_.op == "conv") convs();
    else if (o_.op == "memory") memory();
    else if (o_.op == "launch") launch();
    else if (o_.op == "nccl_allreduce" || o_.op == "nccl_allgather" || o_.op == "nccl_reduce_scatter" || o_.op == "nccl_alltoall") nccl(count);
    else throw InputError("unknown GPU benchmark '" + o_.op + "'");
    cudnnDestroy(cudnn_);
    cublasDestroy(cublas_);
    cudaStreamDestroy(stream_);
    std::fprintf(stderr, "dnnperf bench: %d records written to %s\n", written_, o_.output.c_str());
    return 0;
  }

 private:
  std::vector<std::string> dtypes() const {
    return o_.dtypes.empty() ? std::vector<std::string>{"f32", "tf32", "f16", "bf16"} : o_.dtypes;
  }

  Record base(const std::string& op, const std::string& dtype, const std::string& library, const std::string& version) const {
    Record r;
    r.op = op;
    r.dtype = dtype;
    r.layout = layout_;
    // How the events were placed (gpu_timing.h); part of the record's key, so that --resume never
    // completes a file of one timing with records of the other.
    r.layout["timing"] = op == "launch" ? "unheld" : "queued";
    r.library = library;
    r.library_version = version;
    r.host = hostname();
    r.date = utc_now();
    return r;
  }

  static TimingPlan unheld() {
    TimingPlan plan;
    plan.behind_hold = false;
    return plan;
  }

  /// The host's side of a timed call: its time to queue the call, and how often it outlasted the
  /// hold (those calls were timed again).
  static void add_host_metrics(Record& r, const TimedCalls& timed) {
    r.metrics["dispatch_s"] = timed.dispatch_s;
    if (timed.hold_overruns > 0) r.metrics["hold_overruns"] = timed.hold_overruns;
  }

  /// Measures unless done (resume) or out of budget; `body` fills the record. Errors of one
  /// measurement (out of memory, an unsupported configuration) are recorded, not fatal.
  bool measure(Record& r, const std::function<void(Record&)>& body, Progress& progress) {
    if (deadline_.expired()) return false;
    if (!writer_->done(r.key())) {
      try {
        body(r);
      } catch (const std::exception& e) {
        r.status = "skipped";
        r.reason = e.what();
        r.timing.reset();
        cudaGetLastError();  // clear a sticky-free error such as an allocation failure
      }
      writer_->write(r);
      ++written_;
    }
    progress.step(r.op + " " + r.params.dump());
    return true;
  }

  std::size_t memory_budget() const {
    std::size_t free = 0, total = 0;
    cudaMemGetInfo(&free, &total);
    return free / 2;
  }

  void gemms() {
    Progress progress(shapes_.gemms.size() * dtypes().size(), o_.progress);
    for (const GemmShape& g : shapes_.gemms)
      for (const std::string& d : dtypes()) {
        const DTypeInfo t = dtype_info(d);
        Record r = base("gemm", d, "cuBLAS", versions_["cublas"].dump());
        r.algorithm = "cublas:default";
        r.params = gemm_params(g);
        if (!measure(r, [&](Record& rec) { time_gemm(rec, g, t); }, progress)) return;
      }
    progress.finish();
  }

  void time_gemm(Record& r, const GemmShape& g, const DTypeInfo& t) {
    const std::size_t a = static_cast<std::size_t>(g.m * g.k * g.batch), b = static_cast<std::size_t>(g.k * g.n * g.batch),
                      c = static_cast<std::size_t>(g.m * g.n * g.batch);
    const std::size_t set = (a + b + c) * static_cast<std::size_t>(t.width);
    const int copies = rotation_copies(set, static_cast<std::size_t>(props_.l2CacheSize), memory_budget());
    std::vector<DeviceBuffer> buffers;
    for (int i = 0; i < copies; ++i) {
      buffers.emplace_back(set);
      fill_random(buffers.back().get(), a + b + c, t.width, t.bf16, 17u + static_cast<unsigned>(i), stream_);
    }
    const float alpha = 1.0f, beta = 0.0f;
    const int lda = static_cast<int>(g.trans_a ? g.k : g.m), ldb = static_cast<int>(g.trans_b ? g.n : g.k), ldc = static_cast<int>(g.m);
    const auto call = [&](int copy) {
      char* base = static_cast<char*>(buffers[static_cast<std::size_t>(copy)].get());
      void* A = base;
      void* B = base + a * t.width;
      void* C = base + (a + b) * t.width;
      const cublasOperation_t ta = g.trans_a ? CUBLAS_OP_T : CUBLAS_OP_N, tb = g.trans_b ? CUBLAS_OP_T : CUBLAS_OP_N;
      if (g.batch == 1) {
        DNNPERF_CUBLAS(cublasGemmEx(cublas_, ta, tb, static_cast<int>(g.m), static_cast<int>(g.n), static_cast<int>(g.k), &alpha, A, t.cuda, lda, B,
                                    t.cuda, ldb, &beta, C, t.cuda, ldc, t.compute, CUBLAS_GEMM_DEFAULT));
      } else {
        DNNPERF_CUBLAS(cublasGemmStridedBatchedEx(cublas_, ta, tb, static_cast<int>(g.m), static_cast<int>(g.n), static_cast<int>(g.k), &alpha, A,
                                                  t.cuda, lda, g.m * g.k, B, t.cuda, ldb, g.k * g.n, &beta, C, t.cuda, ldc, g.m * g.n,
                                                  static_cast<int>(g.batch), t.compute, CUBLAS_GEMM_DEFAULT));
      }
    };
    r.verified = true;  // cuBLAS statuses are checked on every call
    const TimedCalls timed = time_calls(call, copies, stream_, {});
    r.timing = summarize(timed.seconds);
    r.metrics = {{"flop_rate", 2.0 * g.m * g.n * g.k * g.batch / r.timing->median}, {"rotation_copies", copies}};
    add_host_metrics(r, timed);
  }

  void convs() {
    const std::vector<std::string> layouts = {"NCHW", "NHWC"};
    Progress progress(shapes_.convs.size() * dtypes().size() * layouts.size() * 2, o_.progress);
    for (const ConvCase& c : shapes_.convs)
      for (const std::string& d : dtypes())
        for (const std::string& layout : layouts)
          for (const bool search : {false, true}) {
            const DTypeInfo t = dtype_info(d);
            Record r = base(conv_op(c.phase), d, "cuDNN", versions_["cudnn"].dump());
            r.params = conv_params(c.shape);
            r.params["layout"] = layout;
            r.algorithm = search ? "cudnn:search" : "cudnn:heuristic";
            if (!measure(r, [&](Record& rec) { time_conv(rec, c, t, layout == "NHWC", search); }, progress)) return;
          }
    progress.finish();
  }

  void time_conv(Record& r, const ConvCase& c, const DTypeInfo& t, bool nhwc, bool search) {
    const ConvShape& s = c.shape;
    const cudnnTensorFormat_t format = nhwc ? CUDNN_TENSOR_NHWC : CUDNN_TENSOR_NCHW;
    cudnnTensorDescriptor_t x, y;
    cudnnFilterDescriptor_t w;
    cudnnConvolutionDescriptor_t conv;
    DNNPERF_CUDNN(cudnnCreateTensorDescriptor(&x));
    DNNPERF_CUDNN(cudnnCreateTensorDescriptor(&y));
    DNNPERF_CUDNN(cudnnCreateFilterDescriptor(&w));
    DNNPERF_CUDNN(cudnnCreateConvolutionDescriptor(&conv));
    struct Destroy {
      cudnnTensorDescriptor_t x, y;
      cudnnFilterDescriptor_t w;
      cudnnConvolutionDescriptor_t c;
      ~Destroy() {
        cudnnDestroyTensorDescriptor(x);
        cudnnDestroyTensorDescriptor(y);
        cudnnDestroyFilterDescriptor(w);
        cudnnDestroyConvolutionDescriptor(c);
      }
    } destroy{x, y, w, conv};
    const int n = static_cast<int>(s.n), ch = static_cast<int>(s.c), k = static_cast<int>(s.k);
    DNNPERF_CUDNN(cudnnSetTensor4dDescriptor(x, format, t.cudnn, n, ch, static_cast<int>(s.h), static_cast<int>(s.w)));
    DNNPERF_CUDNN(cudnnSetFilter4dDescriptor(w, t.cudnn, format, k, ch / static_cast<int>(s.groups), static_cast<int>(s.r), static_cast<int>(s.s)));
    DNNPERF_CUDNN(cudnnSetConvolution2dDescriptor(conv, static_cast<int>(s.pad_h), static_cast<int>(s.pad_w), static_cast<int>(s.stride_h),
                                                  static_cast<int>(s.stride_w), static_cast<int>(s.dilation_h), static_cast<int>(s.dilation_w),
                                                  CUDNN_CROSS_CORRELATION, t.width == 2 ? CUDNN_DATA_FLOAT : t.cudnn));
    DNNPERF_CUDNN(cudnnSetConvolutionGroupCount(conv, static_cast<int>(s.groups)));
    DNNPERF_CUDNN(cudnnSetConvolutionMathType(conv, t.math));
    int on = 0, oc = 0, oh = 0, ow = 0;
    DNNPERF_CUDNN(cudnnGetConvolution2dForwardOutputDim(conv, x, w, &on, &oc, &oh, &ow));
    DNNPERF_CUDNN(cudnnSetTensor4dDescriptor(y, format, t.cudnn, on, oc, oh, ow));
    const std::size_t xe = static_cast<std::size_t>(n) * ch * s.h * s.w, we = static_cast<std::size_t>(k) * (ch / s.groups) * s.r * s.s,
                      ye = static_cast<std::size_t>(on) * oc * oh * ow;
    const std::size_t set = (xe + we + ye) * static_cast<std::size_t>(t.width);
    const int copies = rotation_copies(set, static_cast<std::size_t>(props_.l2CacheSize), memory_budget() / 2);
    std::vector<DeviceBuffer> buffers;
    for (int i = 0; i < copies; ++i) {
      buffers.emplace_back(set);
      fill_random(buffers.back().get(), xe + we + ye, t.width, t.bf16, 29u + static_cast<unsigned>(i), stream_);
    }
    const auto ptrs = [&](int copy) {
      char* b = static_cast<char*>(buffers[static_cast<std::size_t>(copy)].get());
      return std::tuple<void*, void*, void*>(b, b + xe * t.width, b + (xe + we) * t.width);
    };
    const float alpha = 1.0f, beta = 0.0f;
    int algo = -1;
    std::size_t workspace = 0;
    DeviceBuffer scratch;
    auto [X, W, Y] = ptrs(0);
    constexpr int kMaxAlgos = 16;
    int returned = 0;
    switch (c.phase) {
      case Phase::forward: {
        cudnnConvolutionFwdAlgoPerf_t perf[kMaxAlgos];
        if (search) {
          scratch = DeviceBuffer(std::min<std::size_t>(memory_budget() / 4, 1ull << 30));
          DNNPERF_CUDNN(cudnnFindConvolutionForwardAlgorithmEx(cudnn_, x, X, w, W, conv, y, Y, kMaxAlgos, &returned, perf, scratch.get(), scratch.bytes()));
        } else {
          DNNPERF_CUDNN(cudnnGetConvolutionForwardAlgorithm_v7(cudnn_, x, w, conv, y, kMaxAlgos, &returned, perf));
        }
        for (int i = 0; i < returned && algo < 0; ++i)
          if (perf[i].status == CUDNN_STATUS_SUCCESS) algo = perf[i].algo, workspace = perf[i].memory;
        break;
      }
      case Phase::backward_data: {
        cudnnConvolutionBwdDataAlgoPerf_t perf[kMaxAlgos];
        if (search) {
          scratch = DeviceBuffer(std::min<std::size_t>(memory_budget() / 4, 1ull << 30));
          DNNPERF_CUDNN(cudnnFindConvolutionBackwardDataAlgorithmEx(cudnn_, w, W, y, Y, conv, x, X, kMaxAlgos, &returned, perf, scratch.get(), scratch.bytes()));
        } else {
          DNNPERF_CUDNN(cudnnGetConvolutionBackwardDataAlgorithm_v7(cudnn_, w, y, conv, x, kMaxAlgos, &returned, perf));
        }
        for (int i = 0; i < returned && algo < 0; ++i)
          if (perf[i].status == CUDNN_STATUS_SUCCESS) algo = perf[i].algo, workspace = perf[i].memory;
        break;
      }
      default: {
        cudnnConvolutionBwdFilterAlgoPerf_t perf[kMaxAlgos];
        if (search) {
          scratch = DeviceBuffer(std::min<std::size_t>(memory_budget() / 4, 1ull << 30));
          DNNPERF_CUDNN(cudnnFindConvolutionBackwardFilterAlgorithmEx(cudnn_, x, X, y, Y, conv, w, W, kMaxAlgos, &returned, perf, scratch.get(), scratch.bytes()));
        } else {
          DNNPERF_CUDNN(cudnnGetConvolutionBackwardFilterAlgorithm_v7(cudnn_, x, y, conv, w, kMaxAlgos, &returned, perf));
        }
        for (int i = 0; i < returned && algo < 0; ++i)
          if (perf[i].status == CUDNN_STATUS_SUCCESS) algo = perf[i].algo, workspace = perf[i].memory;
        break;
      }
    }
    if (algo < 0) throw std::runtime_error("cuDNN offers no algorithm for this configuration");
    scratch = DeviceBuffer();
    DeviceBuffer ws(workspace);
    r.algorithm += ":" + std::to_string(algo);
    const auto call = [&](int copy) {
      auto [cx, cw, cy] = ptrs(copy);
      switch (c.phase) {
        case Phase::forward:
          DNNPERF_CUDNN(cudnnConvolutionForward(cudnn_, &alpha, x, cx, w, cw, conv, static_cast<cudnnConvolutionFwdAlgo_t>(algo), ws.get(), workspace, &beta, y, cy));
          break;
        case Phase::backward_data:
          DNNPERF_CUDNN(cudnnConvolutionBackwardData(cudnn_, &alpha, w, cw, y, cy, conv, static_cast<cudnnConvolutionBwdDataAlgo_t>(algo), ws.get(), workspace, &beta, x, cx));
          break;
        default:
          DNNPERF_CUDNN(cudnnConvolutionBackwardFilter(cudnn_, &alpha, x, cx, y, cy, conv, static_cast<cudnnConvolutionBwdFilterAlgo_t>(algo), ws.get(), workspace, &beta, w, cw));
          break;
      }
    };
    r.verified = true;
    const TimedCalls timed = time_calls(call, copies, stream_, {});
    r.timing = summarize(timed.seconds);
    const double flops = 2.0 * static_cast<double>(ye) * static_cast<double>(ch / s.groups) * static_cast<double>(s.r * s.s);
    r.metrics = {{"flop_rate", flops / r.timing->median}, {"workspace_bytes", workspace}, {"rotation_copies", copies}};
    add_host_metrics(r, timed);
  }

  void memory() {
    std::vector<std::int64_t> sizes = o_.sizes;
    if (sizes.empty())
      for (std::int64_t s = 1 << 20; s <= (1LL << 30); s *= 4) sizes.push_back(s);
    static const std::vector<std::string> kinds = {"memory_copy", "memory_elementwise", "memory_reduction", "memory_softmax", "memory_layernorm"};
    Progress progress(sizes.size() * kinds.size(), o_.progress);
    for (std::int64_t bytes : sizes)
      for (const std::string& kind : kinds) {
        Record r = base(kind, "f32", "CUDA", versions_["cuda_runtime"].dump());
        r.params = {{"bytes", bytes}};
        if (kind == "memory_softmax" || kind == "memory_layernorm" || kind == "memory_reduction") r.params["row"] = 1024;
        if (!measure(r, [&](Record& rec) { time_memory(rec, kind, bytes); }, progress)) return;
      }
    progress.finish();
  }

  void time_memory(Record& r, const std::string& kind, std::int64_t bytes) {
    if (bytes < 4096) throw std::runtime_error("buffers below 4 KiB are launch-bound: measure `launch` instead");
    const std::size_t n = static_cast<std::size_t>(bytes) / 4;
    const int operands = kind == "memory_elementwise" ? 3 : 2;
    const int copies = rotation_copies(static_cast<std::size_t>(bytes) * operands, static_cast<std::size_t>(props_.l2CacheSize), memory_budget());
    std::vector<DeviceBuffer> buffers;
    for (int i = 0; i < copies * operands; ++i) {
      buffers.emplace_back(static_cast<std::size_t>(bytes));
      fill_random(buffers.back().get(), n, 4, false, 41u + static_cast<unsigned>(i), stream_);
    }
    const int rows = static_cast<int>(n / 1024), blocks = props_.multiProcessorCount * 8;
    double moved = 2.0 * bytes;
    std::function<void(int)> call;
    if (kind == "memory_copy") {
      call = [&](int c) { DNNPERF_CUDA(cudaMemcpyAsync(buffers[c * 2 + 1].get(), buffers[c * 2].get(), static_cast<std::size_t>(bytes), cudaMemcpyDeviceToDevice, stream_)); };
    } else if (kind == "memory_elementwise") {
      moved = 3.0 * bytes;
      call = [&](int c) {
        add_kernel<<<blocks, 256, 0, stream_>>>(static_cast<float*>(buffers[c * 3].get()), static_cast<float*>(buffers[c * 3 + 1].get()), static_cast<float*>(buffers[c * 3 + 2].get()), n);
      };
    } else {
      if (kind == "memory_reduction") moved = static_cast<double>(bytes) + 4.0 * rows;
      call = [&](int c) {
        const float* in = static_cast<float*>(buffers[c * 2].get());
        float* out = static_cast<float*>(buffers[c * 2 + 1].get());
        if (kind == "memory_reduction") row_kernel<0><<<rows, 256, 0, stream_>>>(in, out, 1024);
        else if (kind == "memory_softmax") row_kernel<1><<<rows, 256, 0, stream_>>>(in, out, 1024);
        else row_kernel<2><<<rows, 256, 0, stream_>>>(in, out, 1024);
      };
    }
    r.verified = true;
    const TimedCalls timed = time_calls(call, copies, stream_, {});
    r.timing = summarize(timed.seconds);
    r.metrics = {{"bytes_per_s", moved / r.timing->median}, {"bytes_moved", moved}, {"rotation_copies", copies}};
    add_host_metrics(r, timed);
  }

  void launch() {
    Progress progress(2, o_.progress);
    Record single = base("launch", "none", "CUDA", versions_["cuda_runtime"].dump());
    single.params = {{"kernels", 1}};
    measure(single, [&](Record& r) {
      r.verified = true;
      r.timing = summarize(time_calls([&](int) { empty_kernel<<<1, 1, 0, stream_>>>(); }, 1, stream_, unheld()).seconds);
    }, progress);
    // Back to back, the GPU hides the launch of one kernel behind the previous one: the cost per
    // kernel of a stream of launches is what a framework's sequence of small kernels pays.
    Record burst = base("launch", "none", "CUDA", versions_["cuda_runtime"].dump());
    burst.params = {{"kernels", 1000}};
    measure(burst, [&](Record& r) {
      r.verified = true;
      r.timing = summarize(time_calls([&](int) { for (int i = 0; i < 1000; ++i) empty_kernel<<<1, 1, 0, stream_>>>(); }, 1, stream_, unheld()).seconds);
      r.metrics = {{"seconds_per_kernel", r.timing->median / 1000}};
    }, progress);
    progress.finish();
  }

  // NCCL collectives over all GPUs of this node, from one process (ncclCommInitAll); sizes as for
  // the MPI collectives, results checked before timing, bus bandwidth as nccl-tests define it.
  void nccl(int gpus) {
    std::vector<std::int64_t> sizes = o_.sizes;
    if (sizes.empty())
      for (std::int64_t s = 1024; s <= (1LL << 30); s *= 4) sizes.push_back(s);
    std::vector<ncclComm_t> comms(static_cast<std::size_t>(gpus));
    std::vector<int> devices(static_cast<std::size_t>(gpus));
    for (int i = 0; i < gpus; ++i) devices[static_cast<std::size_t>(i)] = i;
    DNNPERF_NCCL(ncclCommInitAll(comms.data(), gpus, devices.data()));
    int version = 0;
    ncclGetVersion(&version);
    std::vector<cudaStream_t> streams(static_cast<std::size_t>(gpus));
    for (int i = 0; i < gpus; ++i) {
      DNNPERF_CUDA(cudaSetDevice(i));
      DNNPERF_CUDA(cudaStreamCreate(&streams[static_cast<std::size_t>(i)]));
    }
    const std::string op = o_.op.substr(5);
    Progress progress(sizes.size(), o_.progress);
    for (std::int64_t bytes : sizes) {
      Record r = base(op, "f32", "NCCL", std::to_string(version));
      r.algorithm = "nccl:default";
      r.params = {{"bytes", bytes}};
      r.layout = {{"ranks", gpus}, {"nodes", 1}, {"ranks_per_node", gpus}, {"device", props_.name}};
      if (!measure(r, [&](Record& rec) { time_nccl(rec, op, bytes, comms, streams); }, progress)) break;
    }
    progress.finish();
    for (int i = 0; i < gpus; ++i) {
      cudaSetDevice(i);
      cudaStreamDestroy(streams[static_cast<std::size_t>(i)]);
      ncclCommDestroy(comms[static_cast<std::size_t>(i)]);
    }
    DNNPERF_CUDA(cudaSetDevice(o_.device));
  }

  void time_nccl(Record& r, const std::string& op, std::int64_t bytes, const std::vector<ncclComm_t>& comms,
                 const std::vector<cudaStream_t>& streams) {
    const int p = static_cast<int>(comms.size());
    const std::size_t count = static_cast<std::size_t>(bytes) / 4;
    if (count == 0 || count % static_cast<std::size_t>(p) != 0)
      throw std::runtime_error("size is not a multiple of " + std::to_string(p) + " floats");
    const std::size_t part = count / static_cast<std::size_t>(p);
    const std::size_t in_count = op == "allgather" ? part : count, out_count = op == "reduce_scatter" ? part : count;
    std::vector<DeviceBuffer> in, out;
    for (int i = 0; i < p; ++i) {
      DNNPERF_CUDA(cudaSetDevice(i));
      in.emplace_back(in_count * 4);
      out.emplace_back(out_count * 4);
      // Rank i contributes i + 1 everywhere: sums are exact, gathers identify their source.
      std::vector<float> host(in_count, static_cast<float>(i + 1));
      DNNPERF_CUDA(cudaMemcpy(in.back().get(), host.data(), in_count * 4, cudaMemcpyHostToDevice));
    }
    const auto call = [&] {
      DNNPERF_NCCL(ncclGroupStart());
      for (int i = 0; i < p; ++i) {
        const auto k = static_cast<std::size_t>(i);
        if (op == "allreduce") DNNPERF_NCCL(ncclAllReduce(in[k].get(), out[k].get(), count, ncclFloat, ncclSum, comms[k], streams[k]));
        else if (op == "allgather") DNNPERF_NCCL(ncclAllGather(in[k].get(), out[k].get(), part, ncclFloat, comms[k], streams[k]));
        else if (op == "alltoall") {
          // NCCL has no all-to-all call: a part to and from every peer, grouped (as its docs show).
          for (int j = 0; j < p; ++j) {
            const std::size_t at = static_cast<std::size_t>(j) * part;
            DNNPERF_NCCL(ncclSend(static_cast<float*>(in[k].get()) + at, part, ncclFloat, j, comms[k], streams[k]));
            DNNPERF_NCCL(ncclRecv(static_cast<float*>(out[k].get()) + at, part, ncclFloat, j, comms[k], streams[k]));
          }
        } else DNNPERF_NCCL(ncclReduceScatter(in[k].get(), out[k].get(), part, ncclFloat, ncclSum, comms[k], streams[k]));
      }
      DNNPERF_NCCL(ncclGroupEnd());
      for (int i = 0; i < p; ++i) {
        DNNPERF_CUDA(cudaSetDevice(i));
        DNNPERF_CUDA(cudaStreamSynchronize(streams[static_cast<std::size_t>(i)]));
      }
    };
    call();
    std::vector<float> result(out_count);
    DNNPERF_CUDA(cudaSetDevice(0));
    DNNPERF_CUDA(cudaMemcpy(result.data(), out[0].get(), out_count * 4, cudaMemcpyDeviceToHost));
    const float sum = static_cast<float>(p * (p + 1) / 2);
    bool ok = true;
    for (std::size_t j = 0; j < out_count && ok; ++j)
      ok = op == "allgather" || op == "alltoall" ? result[j] == static_cast<float>(j / part + 1) : result[j] == sum;
    r.verified = ok;
    if (!ok) {
      r.status = "failed";
      r.reason = "wrong result";
      return;
    }
    // Several GPUs: host wall time around the group, after every stream has finished.
    std::vector<double> samples;
    for (int i = 0; i < 3; ++i) call();
    const auto now = [] { return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count(); };
    double t0 = now();
    call();
    const int reps = std::clamp(static_cast<int>(0.2 / std::max(now() - t0, 1e-6)), 10, 2000);
    for (int i = 0; i < reps; ++i) {
      t0 = now();
      call();
      samples.push_back(now() - t0);
    }
    r.timing = summarize(samples);
    const double algbw = static_cast<double>(bytes) / r.timing->median;
    const double factor = op == "allreduce" ? 2.0 * (p - 1) / p : static_cast<double>(p - 1) / p;
    r.metrics = {{"algbw_bytes_per_s", algbw}, {"busbw_bytes_per_s", algbw * factor}};
  }

  const GpuBenchOptions& o_;
  const ShapeSet& shapes_;
  Deadline deadline_;
  cudaDeviceProp props_{};
  cudaStream_t stream_ = nullptr;
  cublasHandle_t cublas_ = nullptr;
  cudnnHandle_t cudnn_ = nullptr;
  nlohmann::json versions_, layout_;
  std::unique_ptr<RecordWriter> writer_;
  int written_ = 0;
};

}  // namespace

int run_gpu_bench(const GpuBenchOptions& options, const ShapeSet& shapes) { return GpuBench(options, shapes).run(); }

}  // namespace dnnperf::bench
