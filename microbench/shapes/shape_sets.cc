#include "microbench/shapes/shape_sets.h"

#include <algorithm>
#include <array>
#include <charconv>
#include <limits>
#include <cmath>
#include <random>
#include <set>
#include <tuple>
#include <utility>

#include "core/common/error.h"
#ifndef DNNPERF_NO_NETWORKS
#include "networks/import/network_loader.h"
#include "core/lowering/lower.h"
#endif

namespace dnnperf::bench {
namespace {

ConvShape conv(std::int64_t n, std::int64_t c, std::int64_t h, std::int64_t w, std::int64_t k, std::int64_t r,
               std::int64_t s, std::int64_t stride, std::int64_t pad, std::int64_t groups = 1) {
  ConvShape x{n, c, h, w, k, r, s, 0, 0, stride, stride, pad, pad, 1, 1, groups};
  x.p = (h + 2 * pad - r) / stride + 1;
  x.q = (w + 2 * pad - s) / stride + 1;
  return x;
}

auto gemm_key(const GemmShape& g) { return std::tuple(g.m, g.n, g.k, g.batch, g.trans_a, g.trans_b); }
auto conv_key(const ConvCase& c) {
  const ConvShape& s = c.shape;
  return std::tuple(static_cast<int>(c.phase), s.n, s.c, s.h, s.w, s.k, s.r, s.s, s.stride_h, s.stride_w, s.pad_h,
                    s.pad_w, s.dilation_h, s.dilation_w, s.groups);
}

ShapeSet from_network(const std::string& spec, std::int64_t batch) {
#ifdef DNNPERF_NO_NETWORKS
  (void)batch;
  throw InputError("shape set 'zoo:" + spec + "' needs dnnperf's network support; this measurement-only build has "
                   "deepbench and sample:N (measure network shapes with `dnnperf bench` from a full build)");
#else
  // "NETWORK@H" or "NETWORK@HxW": the network at that image size (zoo CNNs).
  LoadOptions load;
  load.batch = batch;
  std::string network = spec;
  if (const std::size_t at = spec.find('@'); at != std::string::npos) {
    network = spec.substr(0, at);
    const std::string size = spec.substr(at + 1);
    const std::size_t x = size.find('x');
    try {
      const std::int64_t h = std::stoll(size.substr(0, x));
      const std::int64_t w = x == std::string::npos ? h : std::stoll(size.substr(x + 1));
      if (h <= 0 || w <= 0) throw std::invalid_argument("size");
      load.image = std::array<std::int64_t, 2>{h, w};
    } catch (const std::exception&) {
      throw InputError("shape set 'zoo:" + spec + "': the image size after '@' must be H or HxW, positive");
    }
  }
  const Graph g = load_network(network, load);
  ShapeSet set;
  set.name = "zoo:" + spec;
  std::set<decltype(gemm_key(GemmShape{}))> gemms;
  std::set<decltype(conv_key(ConvCase{}))> convs;
  for (const Kernel& k : lower(g)) {
    if (k.cls == KernelClass::gemm && gemms.insert(gemm_key(k.gemm)).second) set.gemms.push_back(k.gemm);
    if (k.cls == KernelClass::conv) {
      const ConvCase c{k.conv, k.phase};
      if (convs.insert(conv_key(c)).second) set.convs.push_back(c);
    }
  }
  return set;
#endif
}

// Training shapes in the style of DeepBench (Baidu Research, github.com/baidu-research/DeepBench,
// kernels/*.h): speech and language GEMMs (hidden sizes 1760-5124 over 16-7000 time-batch columns)
// and vision convolutions (DeepSpeech front ends, ResNet/VGG/Inception layers), all three phases.
ShapeSet deepbench() {
  ShapeSet set;
  set.name = "deepbench";
  for (std::int64_t h : {1760, 2048, 2560, 4096})
    for (std::int64_t n : {16, 32, 64, 128, 7000}) {
      set.gemms.push_back({h, n, h, 1, false, false});
      set.gemms.push_back({h, n, h, 1, true, false});
    }
  for (const auto& [m, n, k] : std::vector<std::tuple<std::int64_t, std::int64_t, std::int64_t>>{
           {5124, 9124, 1760}, {35, 8457, 1760}, {5124, 9124, 2048}, {35, 8457, 2048}, {5124, 9124, 2560},
           {35, 8457, 2560}, {3072, 128, 1024}, {512, 6000, 2816}, {1024, 16, 500000}, {7680, 5481, 2560}})
    set.gemms.push_back({m, n, k, 1, false, false});
  const std::vector<ConvShape> convs = {
      conv(4, 1, 161, 700, 32, 5, 20, 2, 0),  conv(4, 32, 79, 341, 32, 5, 10, 2, 0),
      conv(16, 1, 48, 480, 16, 3, 3, 1, 1),   conv(16, 16, 24, 240, 32, 3, 3, 1, 1),
      conv(16, 32, 12, 120, 64, 3, 3, 1, 1),  conv(16, 64, 6, 60, 128, 3, 3, 1, 1),
      conv(8, 3, 108, 108, 64, 3, 3, 2, 1),   conv(8, 64, 54, 54, 64, 3, 3, 1, 1),
      conv(8, 128, 27, 27, 128, 3, 3, 1, 1),  conv(8, 128, 14, 14, 256, 3, 3, 1, 1),
      conv(8, 256, 7, 7, 512, 3, 3, 1, 1),    conv(8, 3, 224, 224, 64, 3, 3, 1, 1),
      conv(8, 64, 112, 112, 128, 3, 3, 1, 1), conv(8, 128, 56, 56, 256, 3, 3, 1, 1),
      conv(8, 256, 28, 28, 512, 3, 3, 1, 1),  conv(8, 512, 14, 14, 512, 3, 3, 1, 1),
      conv(16, 3, 224, 224, 64, 7, 7, 2, 3),  conv(16, 192, 28, 28, 32, 5, 5, 1, 2),
      conv(16, 192, 28, 28, 64, 1, 1, 1, 0),  conv(16, 512, 14, 14, 48, 5, 5, 1, 2),
      conv(16, 832, 7, 7, 256, 1, 1, 1, 0),   conv(16, 64, 56, 56, 64, 3, 3, 1, 1),
      conv(16, 256, 56, 56, 64, 1, 1, 1, 0),  conv(16, 1024, 14, 14, 256, 1, 1, 1, 0),
      conv(16, 2048, 7, 7, 512, 1, 1, 1, 0),  conv(16, 512, 7, 7, 512, 3, 3, 1, 1)};
  for (const ConvShape& c : convs)
    for (Phase p : {Phase::forward, Phase::backward_data, Phase::backward_weight}) set.convs.push_back({c, p});
  return set;
}

/// The seeded draws the sampled sets make: raw 64-bit values, log-uniform sizes, picks from lists.
class Draws {
 public:
  explicit Draws(std::uint64_t seed) : rng_(seed) {}
  std::uint64_t operator()() { return rng_(); }
  std::int64_t log_uniform(double lo, double hi) {
    const double u = static_cast<double>(rng_() >> 11) * 0x1.0p-53;
    return static_cast<std::int64_t>(std::llround(std::exp(std::log(lo) + u * (std::log(hi) - std::log(lo)))));
  }
  std::int64_t pick(const std::vector<std::int64_t>& v) { return v[rng_() % v.size()]; }

 private:
  std::mt19937_64 rng_;
};

/// "PREFIX:N:SEED[:GFLOP]", the name a sampled set goes by.
std::string sampled_name(const std::string& prefix, std::int64_t count, std::uint64_t seed, double max_flops) {
  std::string name = prefix + ":" + std::to_string(count) + ":" + std::to_string(seed);
  if (max_flops > 0) name += ":" + std::to_string(static_cast<std::int64_t>(max_flops / 1e9));
  return name;
}

// FLOPs as the lowering counts them (this library also builds without the lowering, for the GPU
// measurement programs).
double gemm_flops(const GemmShape& g) { return 2.0 * static_cast<double>(g.m * g.n) * static_cast<double>(g.k * g.batch); }
double image_flops(const ConvShape& s) { return 2.0 * static_cast<double>(s.k * (s.c / s.groups) * s.r * s.s) * static_cast<double>(s.p * s.q); }

/// Shrinks a convolution's batch to fit under max_flops (0: no cap); false if one image is over it.
bool fit_batch_under(ConvShape& s, double max_flops) {
  if (max_flops <= 0) return true;
  const double per_image = image_flops(s);
  const double images = std::min(static_cast<double>(s.n), std::floor(max_flops / per_image));
  if (images < 1) return false;
  s.n = static_cast<std::int64_t>(images);
  return true;
}

ShapeSet sample(std::int64_t count, std::uint64_t seed, double max_flops) {
  ShapeSet set;
  set.name = sampled_name("sample", count, seed, max_flops);
  Draws rng(seed);
  // Half the GEMMs are free shapes; half are one of the three training GEMMs of a random fully
  // connected layer (rows: a batch, or batch x sequence, from 1; features 16-16384), laid out as
  // frameworks call them — where the skinny, transposed products of small batches live
  // (AlexNet's first classifier layer at batch 4 runs at a tenth of a square GEMM's rate on a CPU).
  for (std::int64_t i = 0; i < count; ++i) {
    GemmShape g{rng.log_uniform(16, 8192), rng.log_uniform(16, 8192), rng.log_uniform(16, 8192), 1, false, false};
    if (rng() % 2 == 0) {
      const std::int64_t rows = rng.log_uniform(1, 8192), in = rng.log_uniform(16, 16384), out = rng.log_uniform(16, 16384);
      switch (rng() % 3) {
        case 0: g = {rows, out, in, 1, false, true}; break;   // y = x W^T
        case 1: g = {rows, in, out, 1, false, false}; break;  // dx = dy W
        default: g = {out, in, rows, 1, true, false}; break;  // dW = dy^T x
      }
      if (g.m * g.n * g.k > (std::int64_t{1} << 34)) g.m = std::max<std::int64_t>(1, (std::int64_t{1} << 34) / (g.n * g.k));
    } else {
      if (rng() % 4 == 0) g.batch = rng.log_uniform(2, 64);
      g.trans_a = rng() % 3 == 0;
      g.trans_b = rng() % 2 == 0;
    }
    // Under a cap, m shrinks to fit; shapes that cannot are drawn again, so that every shape of
    // the set is one the device can time.
    if (max_flops > 0 && gemm_flops(g) > max_flops) {
      const double rows = std::floor(max_flops / (gemm_flops(g) / static_cast<double>(g.m)));
      if (rows < 1) { --i; continue; }
      g.m = static_cast<std::int64_t>(rows);
    }
    set.gemms.push_back(g);
  }
  // Channel counts of real networks; kernels 1, 3, 5, 7 with "same" padding; stride 2 sometimes.
  const std::vector<std::int64_t> channels = {3, 16, 24, 32, 48, 64, 96, 128, 192, 256, 384, 512, 768, 1024, 2048};
  // Images from 2x2 (the last stages of CNNs at small inputs) to 224x224.
  for (std::int64_t i = 0; i < count; ++i) {
    const std::int64_t r = rng.pick({1, 1, 3, 3, 3, 5, 7});
    const std::int64_t stride = rng() % 4 == 0 ? 2 : 1;
    const std::int64_t size = rng.log_uniform(2, 224);
    const std::int64_t c = rng.pick(channels), k = rng.pick(channels);
    const std::int64_t groups = rng() % 10 == 0 ? c : 1;  // depthwise now and then
    ConvShape s = conv(rng.log_uniform(1, 64), c, size, size, groups > 1 ? c : k, r, r, stride, r / 2, groups);
    const Phase phase = static_cast<Phase>(rng() % 3);
    if (!fit_batch_under(s, max_flops)) { --i; continue; }  // the batch shrinks to fit, as the GEMMs' rows do
    set.convs.push_back({s, phase});
  }
  return set;
}

/// kAnchorsPerClass of each class of sample:600:1:GFLOP, evenly spaced over the 25-60% quantiles of
/// its work: on the 2-core VM 0.2-18 ms each (median 1.3 ms), 17 s for all eighty on a day it ran
/// at half speed; inside the default calibration.
ShapeSet anchors(double max_flops) {
  const ShapeSet all = sample(600, 1, max_flops);
  ShapeSet set;
  set.name = "anchors:" + std::to_string(static_cast<std::int64_t>(max_flops / 1e9));
  const auto pick = [](auto kernels, auto work) {  // by value: sorted here
    std::stable_sort(kernels.begin(), kernels.end(), [&](const auto& a, const auto& b) { return work(a) < work(b); });
    decltype(kernels) out;
    const double n = static_cast<double>(kernels.size());
    for (int i = 0; i < kAnchorsPerClass && !kernels.empty(); ++i)
      out.push_back(kernels[static_cast<std::size_t>(n * (0.25 + 0.35 * i / (kAnchorsPerClass - 1)))]);
    return out;
  };
  set.gemms = pick(all.gemms, gemm_flops);
  for (const Phase phase : {Phase::forward, Phase::backward_data, Phase::backward_weight}) {
    std::vector<ConvCase> of_phase;
    for (const ConvCase& c : all.convs)
      if (c.phase == phase) of_phase.push_back(c);
    for (const ConvCase& c : pick(of_phase, [](const ConvCase& c) { return static_cast<double>(c.shape.n) * image_flops(c.shape); })) set.convs.push_back(c);
  }
  return set;
}

ShapeSet depthwise_sample(std::int64_t count, std::uint64_t seed, double max_flops) {
  ShapeSet set;
  set.name = sampled_name("depthwise", count, seed, max_flops);
  Draws rng(seed);
  // Channel counts of mobile networks (MobileNetV2's expansions 96-960, EfficientNet's 144-1152).
  const std::vector<std::int64_t> channels = {16, 24, 32, 48, 64, 96, 144, 192, 240, 384, 480, 576, 672, 960, 1152};
  for (std::int64_t i = 0; i < count; ++i) {
    const std::int64_t r = rng.pick({3, 3, 3, 5, 7});
    const std::int64_t stride = rng() % 3 == 0 ? 2 : 1;
    const std::int64_t size = rng.log_uniform(2, 224);
    const std::int64_t c = rng.pick(channels);
    ConvShape s = conv(rng.log_uniform(1, 64), c, size, size, c, r, r, stride, r / 2, c);
    const Phase phase = static_cast<Phase>(rng() % 3);
    if (!fit_batch_under(s, max_flops)) { --i; continue; }
    set.convs.push_back({s, phase});
  }
  return set;
}

ShapeSet cnn_sample(std::int64_t count, std::uint64_t seed, double max_flops) {
  ShapeSet set;
  set.name = sampled_name("cnn", count, seed, max_flops);
  Draws rng(seed);
  // A CNN's layers are not independent draws of channels and image size: stages trade pixels for
  // channels (ResNet-50 at 224x224: 64 x 56^2 ... 2048 x 7^2 per image), and a layer's outputs are
  // its inputs' count, twice or half it, or a bottleneck's quarter or four times. So: an image's
  // activations log-uniform over 2K-800K values (2x2 to 112x112 images at real channel counts),
  // channels from real networks, the side what the two leave, outputs related to inputs.
  const std::vector<std::int64_t> channels = {16, 24, 32, 48, 64, 96, 128, 160, 192, 256, 320, 384, 512, 768, 1024, 2048};
  const std::vector<std::int64_t> output_ratio_x4 = {4, 4, 4, 8, 2, 1, 16};  // outputs per 4 inputs
  for (std::int64_t i = 0; i < count; ++i) {
    const std::int64_t c = rng.pick(channels);
    const double activations = static_cast<double>(rng.log_uniform(2048, 800000));
    const std::int64_t side = std::max<std::int64_t>(2, std::llround(std::sqrt(activations / static_cast<double>(c))));
    const std::int64_t k = std::max<std::int64_t>(8, c * rng.pick(output_ratio_x4) / 4);
    const std::int64_t r = rng.pick({1, 1, 3, 3, 3, 3, 5, 7});
    const std::int64_t stride = side >= 4 && rng() % 4 == 0 ? 2 : 1;
    ConvShape s = conv(rng.log_uniform(1, 64), c, side, side, k, r, r, stride, r / 2, 1);
    const Phase phase = static_cast<Phase>(rng() % 3);
    if (!fit_batch_under(s, max_flops)) { --i; continue; }
    set.convs.push_back({s, phase});
  }
  return set;
}

ShapeSet late_stage_sample(std::int64_t count, std::uint64_t seed, double max_flops) {
  ShapeSet set;
  set.name = sampled_name("late", count, seed, max_flops);
  Draws rng(seed);
  // The last stages of CNNs at the small inputs a CPU trains: images of 2x2 to 8x8 under many
  // channels, mostly 1x1 (MobileNetV2's expansions and projections, 160 <-> 960 channels at 2x2
  // from a 64x64 input; ResNet-50's bottlenecks, 512 <-> 2048), some 3x3 and depthwise. PyTorch's
  // CPU backend runs a 1x1 at a batch under 16 as one GEMM per image whose columns are the
  // image's 4-64 pixels: there the leftover columns, not the arithmetic, set the rate. Of the
  // 800 convolutions of sample:600:1:2 and cnn:200:4:2, nine are such input gradients and one has
  // 256 channels or more on both sides (a 10-minute calibration times about half of them); a
  // profile fitted without this set priced MobileNetV2's at batch 4 at 2.6-4.3x their time
  // (docs/models/fitting-notes.md).
  const std::vector<std::int64_t> channels = {64, 96, 128, 160, 192, 256, 320, 384, 512, 576, 768, 960, 1024, 1280, 2048};
  const std::vector<std::int64_t> output_ratio_x12 = {2, 3, 6, 12, 24, 48, 72};  // outputs per 12 inputs: 1/6 to 6x
  for (std::int64_t i = 0; i < count; ++i) {
    const std::int64_t c = rng.pick(channels);
    const std::int64_t side = rng.log_uniform(2, 8);
    const std::int64_t kind = static_cast<std::int64_t>(rng() % 8);  // 0-5: 1x1, 6: 3x3, 7: depthwise 3x3
    const std::int64_t r = kind < 6 ? 1 : 3;
    const std::int64_t groups = kind == 7 ? c : 1;
    // Outputs in whole vectors of 8, as networks have them: a misaligned leftover is sample's to draw.
    const std::int64_t k = groups > 1 ? c : std::clamp<std::int64_t>(c * rng.pick(output_ratio_x12) / 96 * 8, 16, 4096);
    ConvShape s = conv(rng.log_uniform(1, 32), c, side, side, k, r, r, 1, r / 2, groups);
    const Phase phase = static_cast<Phase>(rng() % 3);
    if (!fit_batch_under(s, max_flops)) { --i; continue; }
    set.convs.push_back({s, phase});
  }
  return set;
}

/// A matrix of 1e7-1e8 f32 values (40-400 MB, a large classifier's weights): its first side drawn
/// from `shortest` to 30,000, the second what the size leaves.
std::pair<std::int64_t, std::int64_t> large_matrix(Draws& rng, std::int64_t shortest) {
  const std::int64_t elements = rng.log_uniform(1e7, 1e8);
  const std::int64_t first = rng.log_uniform(shortest, 30000);
  return {first, std::max<std::int64_t>(1, elements / first)};
}

ShapeSet wide_output_sample(std::int64_t count, std::uint64_t seed) {
  ShapeSet set;
  set.name = sampled_name("wide", count, seed, 0);
  Draws rng(seed);
  // A large fully connected layer's weight gradient at a small batch: k of 1-16 rows, an output of
  // 40-400 MB written once (VGG's first classifier layer, 25088 x 4096, is 411 MB). Where that
  // output leaves the caches, writing it sets the time; the free sample puts few shapes there.
  for (std::int64_t i = 0; i < count; ++i) {
    const auto [m, n] = large_matrix(rng, 600);
    const std::int64_t k = rng.pick({1, 2, 4, 8, 16});
    set.gemms.push_back({m, n, k, 1, rng() % 3 != 0, false});  // dW = dy^T x mostly: transposed
  }
  return set;
}

ShapeSet skinny_sample(std::int64_t count, std::uint64_t seed) {
  ShapeSet set;
  set.name = sampled_name("skinny", count, seed, 0);
  Draws rng(seed);
  // A large fully connected layer's forward and input gradient at a small batch: m of 1-16 rows
  // against a weight matrix of 40-400 MB read once (VGG's first classifier layer, 25088 x 4096,
  // is 411 MB), transposed as the forward reads it or as it lies for the input gradient. A BLAS
  // packs that matrix for so few rows: its traffic, not the arithmetic, sets the time.
  for (std::int64_t i = 0; i < count; ++i) {
    auto [n, k] = large_matrix(rng, 1000);
    // Half with the round widths real layers have (AlexNet's 9216 and 4096): a BLAS packs rows a
    // whole number of 1-2 KiB apart slower (models/compute/blocked_gemm.h), which random widths
    // almost never are.
    if (rng() % 2 == 0) {
      const std::int64_t unit = rng.pick({256, 512});
      const auto round = [unit](std::int64_t x) { return std::max<std::int64_t>(unit, (x + unit / 2) / unit * unit); };
      n = round(n), k = round(k);
      if (n * k < 9'750'000 || n * k > 100'000'000) { --i; continue; }  // rounded out of the size range: drawn again
    }
    const std::int64_t m = rng.pick({1, 2, 4, 8, 16});
    set.gemms.push_back({m, n, k, 1, false, rng() % 2 == 0});  // trans_b: y = x W^T, else dx = dy W
  }
  return set;
}

// A set of more shapes than this would take days to measure; a size past it is no GEMM a
// network runs (2^24 squared is one tensor's bound, kMaxTensorElements).
constexpr std::int64_t kMaxShapeCount = 100000;
constexpr std::int64_t kMaxSquareSize = std::int64_t{1} << 24;

std::int64_t parse_positive(std::string_view text, const std::string& spec, const char* what,
                            std::int64_t most = std::numeric_limits<std::int64_t>::max()) {
  std::int64_t v = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (ec != std::errc() || end != text.data() + text.size() || v <= 0)
    throw InputError("shape set '" + spec + "': " + what + " must be a positive integer, is '" + std::string(text) + "'");
  if (v > most) throw InputError("shape set '" + spec + "': " + what + " must be at most " + std::to_string(most) + ", is " + std::string(text));
  return v;
}

}  // namespace

nlohmann::json gemm_params(const GemmShape& g) {
  return {{"m", g.m}, {"n", g.n}, {"k", g.k}, {"batch", g.batch}, {"trans_a", g.trans_a}, {"trans_b", g.trans_b}};
}

nlohmann::json conv_params(const ConvShape& s) {
  return {{"n", s.n}, {"c", s.c}, {"h", s.h}, {"w", s.w}, {"k", s.k}, {"r", s.r}, {"s", s.s},
          {"stride_h", s.stride_h}, {"stride_w", s.stride_w}, {"pad_h", s.pad_h}, {"pad_w", s.pad_w},
          {"dilation_h", s.dilation_h}, {"dilation_w", s.dilation_w}, {"groups", s.groups}};
}

std::string conv_op(Phase phase) {
  return phase == Phase::forward ? "conv_forward" : phase == Phase::backward_data ? "conv_backward_data" : "conv_backward_filter";
}

nlohmann::json shape_set_json(const ShapeSet& set) {
  nlohmann::json out = nlohmann::json::array();
  for (const GemmShape& g : set.gemms) out.push_back({{"op", "gemm"}, {"params", gemm_params(g)}});
  for (const ConvCase& c : set.convs) out.push_back({{"op", conv_op(c.phase)}, {"params", conv_params(c.shape)}});
  return out;
}

ShapeSet shape_set(const std::string& spec, std::int64_t batch) {
  if (spec == "deepbench") return deepbench();
  if (spec.rfind("zoo:", 0) == 0) return from_network(spec.substr(4), batch);
  if (spec.rfind("square:", 0) == 0) {  // square GEMMs, e.g. square:4096,8192 (peak-rate checks)
    ShapeSet set;
    set.name = spec;
    std::string_view rest = std::string_view(spec).substr(7);
    while (!rest.empty()) {
      const std::size_t comma = rest.find(',');
      const std::int64_t n = parse_positive(rest.substr(0, comma), spec, "a size", kMaxSquareSize);
      set.gemms.push_back({n, n, n, 1, false, false});
      rest = comma == std::string_view::npos ? std::string_view{} : rest.substr(comma + 1);
    }
    return set;
  }
  if (spec.rfind("sample:", 0) == 0 || spec.rfind("depthwise:", 0) == 0 || spec.rfind("cnn:", 0) == 0 || spec.rfind("late:", 0) == 0) {
    const bool depthwise = spec.rfind("depthwise:", 0) == 0, cnn = spec.rfind("cnn:", 0) == 0, late = spec.rfind("late:", 0) == 0;
    const std::string rest = spec.substr(spec.find(':') + 1);
    const std::size_t colon = rest.find(':');
    const std::int64_t n = parse_positive(std::string_view(rest).substr(0, colon), spec, "the count", kMaxShapeCount);
    std::uint64_t seed = 1;
    double max_flops = 0;
    if (colon != std::string::npos) {
      const std::string_view tail = std::string_view(rest).substr(colon + 1);
      const std::size_t cap = tail.find(':');
      seed = static_cast<std::uint64_t>(parse_positive(tail.substr(0, cap), spec, "the seed"));
      if (cap != std::string_view::npos) max_flops = 1e9 * static_cast<double>(parse_positive(tail.substr(cap + 1), spec, "the GFLOP cap"));
    }
    return depthwise ? depthwise_sample(n, seed, max_flops)
           : cnn     ? cnn_sample(n, seed, max_flops)
           : late    ? late_stage_sample(n, seed, max_flops)
                     : sample(n, seed, max_flops);
  }
  if (spec.rfind("anchors:", 0) == 0) return anchors(1e9 * static_cast<double>(parse_positive(std::string_view(spec).substr(8), spec, "the GFLOP cap")));
  const bool wide = spec.rfind("wide:", 0) == 0, skinny = spec.rfind("skinny:", 0) == 0;
  if (wide || skinny) {
    const std::string rest = spec.substr(wide ? 5 : 7);
    const std::size_t colon = rest.find(':');
    const std::int64_t n = parse_positive(std::string_view(rest).substr(0, colon), spec, "the count", kMaxShapeCount);
    const std::uint64_t seed = colon == std::string::npos ? 1 : static_cast<std::uint64_t>(parse_positive(std::string_view(rest).substr(colon + 1), spec, "the seed"));
    return wide ? wide_output_sample(n, seed) : skinny_sample(n, seed);
  }
  throw InputError("unknown shape set '" + spec +
                   "' (zoo:NETWORK, deepbench, sample:N[:SEED[:GFLOP]], depthwise:N[:SEED[:GFLOP]], cnn:N[:SEED[:GFLOP]], late:N[:SEED[:GFLOP]], anchors:GFLOP, wide:N[:SEED], skinny:N[:SEED] or square:N,...)");
}

}  // namespace dnnperf::bench
