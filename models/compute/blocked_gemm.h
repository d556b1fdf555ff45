#pragma once
// BlockedGemm: how a CPU BLAS spends a GEMM's time, for the analytic family.
//
// A CPU BLAS (ATLAS, OpenBLAS, BLIS, MKL) copies ("packs") A and B into contiguous panels, then
// multiplies whole cache blocks of `block` rows and columns with one tuned micro-kernel and what
// is left over at the edges with clean-up code. So a GEMM's time is a sum, not a rate:
//
//   t = call_overhead
//     + sum over the 8 regions of (m, n, k) into whole blocks and remainders:
//         FLOPs(region) / (block_flops * partial_efficiency[region])
//         * product over the region's remainder dimensions d of
//             (misaligned_slowdown[d] if d is a multiple of neither vector_width nor
//              cleanup_width[d])
//     + sum over A and B of bytes * layout_packing * long_rows(row bytes) * large(bytes)
//                                     * aliased(row bytes, B only) / operand_bandwidth   (packing)
//     + batch * m n * element_bytes * large(output bytes) / output_bandwidth   (writing C)
//
// Clean-up code is vectorised only where the leftover dimension fills whole vectors; elsewhere it
// runs scalar. Packing an operand is a copy along its stored rows or a gather across them, at a
// rate of its own per operand and layout (layout_packing, against A stored [m, k]): on the VM B
// stored [k, n] packs 1.2x slower than A, which the batch-4 classifiers' backward GEMMs stream.
// An operand far beyond the last cache level packs slower again (large_operand, an edge like the
// output's at exponent 4): on the VM from ~80 MB, 1.24x — GEMMs of up to 8 rows streaming B of
// 1-16 MB were priced 15% slow and of 20-400 MB 10% fast with one rate for both. Packing reads an operand a panel of rows at a time; once a panel of rows as long
// as the operand's stored rows no longer fits the core's cache, it slows down, by a factor of its
// own for each operand and layout: long_rows(L) = 1 + (long_row_slowdown - 1) r^a / (1 + r^a),
// r = L / long_row_bytes (a capacity edge; on the VM 12-14 KiB rows, 48 of them ~ the 512 KiB L2
// of a Zen core; its steepness a is fitted, 11 there: rows of 8 KB stream at 5-6 GB/s, of 14 KB
// at 2.5). Batch-4 classifier GEMMs of 4 x 4096 x 9216 weights stored [n, k]
// stream their weights at 2.2 GB/s, those of 2,000-float rows at 6 GB/s. Outputs far beyond the
// caches are written slower again, large(B) = 1 + (large_output_slowdown - 1) r^b / (1 + r^b),
// r = B / large_output_bytes: on the VM outputs of 50-120 MB are written at 6.5-7.6 GB/s, of
// 140-250 MB at 1.8-2.0 GB/s (fresh pages; a batch-4 weight gradient of VGG-11's first classifier
// layer, 411 MB, takes 200 ms for 0.8 GFLOP): a step, whose fitted steepness b sits at its bound
// of 64. On the dev VM (PyTorch 1.13 on Debian's ATLAS) a fit finds blocks of 48 and vectors
// of 4 floats: 337 x 3191 x 32 runs at 41 GFLOP/s, 337 x 3191 x 30 at 10, and k = 73 (48 + 25,
// misaligned) at half the rate of k = 72. A smooth rate curve cannot follow that sawtooth; this
// sum does (held-out MAPE on 1,600 sampled GEMMs: docs/fitting.md). The clean-up code along n has
// a second width of its own on that ATLAS: leftovers of 6, 18, 30 and 42 columns (multiples of 6,
// not of 4) run at 17-31 GFLOP/s where 22 and 26 run at 9.5; one width for all priced them 2-3x slow
// (n leftover = 6 mod 12: MAPE 31.5% against 7-13% for the other residues).
//
// Packing B also slows when its stored rows are a whole number of aliased_row_bytes apart (2 KiB):
// the rows a panel gathers then fall into a few cache sets of the core's L1 and evict each other.
// On the Intel VM (2026-12-04) 4 x n x k with B stored [k, n] takes 1.32-1.38x as long for
// n = 512, 2048, 4096, 9216, 9728 or 10240 as for n a few columns off, 1.13x for rows a whole
// number of 1 KiB apart but not 2 KiB (n = 8960), none from 512 bytes down; with B stored [n, k]
// 0.97-1.26x, erratic (fitted 1.11 and 1.0 on two calibrations); with A transposed none; from 64 rows up the arithmetic hides it. Real networks' widths
// are such round numbers (AlexNet's 9216 and 4096, VGG's 25088): the random calibration shapes
// rarely are. So per B layout, aliased(L) = aliased_slowdown for L a multiple of aliased_row_bytes,
// its square root for L a multiple of half of it, 1 otherwise.
//
// The tiled model of MatrixEfficiency prices GPU GEMMs (a partial tile costs a whole one); `dnnperf
// fit` keeps this model only where it predicts GEMMs the fit did not see better.
#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>

#include "predictor/lowering/kernel.h"

namespace dnnperf {

struct BlockedGemm {
  /// Rows and columns of a cache block; 0: the device has no blocked GEMM model.
  std::int64_t block = 0;
  /// Elements per vector register: a remainder dimension not a multiple of it runs scalar.
  std::int64_t vector_width = 1;
  /// A second width the clean-up code along m, n, k handles vectorised (0: none): a remainder
  /// that is a multiple of it is not misaligned either.
  std::array<std::int64_t, 3> cleanup_width{0, 0, 0};
  /// FLOP/s inside whole blocks.
  double block_flops = 0;
  /// Rate of each region with remainders against whole blocks, in (0, 1]. Index: 4 * (m is a
  /// remainder) + 2 * (n is) + (k is) - 1.
  std::array<double, 7> partial_efficiency{1, 1, 1, 1, 1, 1, 1};
  /// Extra time of a region whose remainder along m, n or k is misaligned (>= 1).
  std::array<double, 3> misaligned_slowdown{1, 1, 1};
  double operand_bandwidth = 0;  // bytes/s packing A and B, rows short
  /// Stored row length (bytes) at which packing an operand is halfway to its slowdown.
  double long_row_bytes = 1e9;
  /// Packing slowdown of long rows (>= 1), per operand and layout: A stored [m, k], A stored
  /// [k, m] (trans_a), B stored [k, n], B stored [n, k] (trans_b).
  std::array<double, 4> long_row_slowdown{1, 1, 1, 1};
  /// Packing time per byte of each operand and layout against A stored [m, k] (index 0, always 1):
  /// a copy along stored rows and a gather across them need not run at one rate.
  std::array<double, 4> layout_packing{1, 1, 1, 1};
  /// Operand size (bytes) at which packing it is halfway to large_operand_slowdown (>= 1): an
  /// operand beyond the last cache level streams from memory.
  double large_operand_bytes = 1e12;
  double large_operand_slowdown = 1;
  /// Stored row length (bytes) whose multiples put B's rows into the same few L1 sets.
  std::int64_t aliased_row_bytes = 2048;
  /// Packing slowdown of B with such rows (>= 1): B stored [k, n], B stored [n, k] (trans_b).
  std::array<double, 2> aliased_slowdown{1, 1};
  double output_bandwidth = 0;   // bytes/s writing C, up to large_output_bytes
  /// Output size (bytes) at which writing it is halfway to large_output_slowdown (>= 1).
  double large_output_bytes = 1e12;
  double large_output_slowdown = 1;
  /// How sharply packing slows once rows pass long_row_bytes, and writing once outputs pass
  /// large_output_bytes: the exponent of r above (4 in profiles that do not give them).
  double long_row_steepness = 4;
  double large_output_steepness = 4;
  double call_overhead_s = 0;
  /// The element type it was fitted on; GEMMs of other types are priced by the tiled model.
  DType dtype = DType::f32;

  bool enabled() const { return block > 0; }
  /// The time of one (batched) GEMM of elements `element_bytes` wide; `parts`, if given,
  /// receives its compute (blocks and clean-up) and memory (packing and output) terms.
  double seconds(const GemmShape& g, double element_bytes, double* parts = nullptr) const;
};

/// How much of the aliased slowdown a stored row of `row_bytes` pays, as a power of it: all for a
/// multiple of `aliased_row_bytes`, half for a multiple of half of it, none otherwise.
inline double aliasing_exponent(double row_bytes, std::int64_t aliased_row_bytes) {
  const auto bytes = static_cast<std::int64_t>(row_bytes);
  if (aliased_row_bytes <= 0 || bytes <= 0) return 0;
  if (bytes % aliased_row_bytes == 0) return 1;
  return aliased_row_bytes % 2 == 0 && bytes % (aliased_row_bytes / 2) == 0 ? 0.5 : 0;
}

/// Whether a dimension's leftover after whole blocks runs scalar: it is a whole number of neither
/// vectors nor the clean-up code's second width (the fit's flags and the model's are the same test).
inline bool misaligned(std::int64_t dimension, std::int64_t vector_width, std::int64_t cleanup_width = 0) {
  return vector_width > 1 && dimension % vector_width != 0 && !(cleanup_width > 0 && dimension % cleanup_width == 0);
}

/// The formula above with its continuous parameters given in log form, as Ceres fits them
/// (`parts`, if given, receives the compute and the memory terms):
/// p[0] log block_flops, p[1..7] log partial_efficiency, p[8..10] log misaligned_slowdown (m, n,
/// k), p[11] log operand_bandwidth, p[12] log output_bandwidth, p[13] log call_overhead_s,
/// p[14] log long_row_bytes, p[15..18] log(long_row_slowdown - 1), p[19] log large_output_bytes,
/// p[20] log(large_output_slowdown - 1), p[21] log long_row_steepness, p[22] log large_output_steepness,
/// p[23..25] log layout_packing[1..3], p[26] log large_operand_bytes, p[27] log(large_operand_slowdown - 1),
/// p[28..29] log aliased_slowdown.
constexpr int kBlockedGemmParameters = 30;
/// A model's continuous parameters in that form, and back (block, widths, aliased rows and type kept).
std::array<double, kBlockedGemmParameters> log_parameters(const BlockedGemm& model);
BlockedGemm with_log_parameters(BlockedGemm model, const double* p);

template <typename T>
T blocked_gemm_seconds(const GemmShape& g, std::int64_t block, std::int64_t vector_width, const std::array<std::int64_t, 3>& cleanup_width,
                       std::int64_t aliased_row_bytes, double element_bytes, const T* p, T* parts = nullptr) {
  using std::exp;
  using std::pow;
  const std::int64_t dims[3] = {g.m, g.n, g.k};
  double whole[3], rest[3];
  bool slow[3];
  for (int d = 0; d < 3; ++d) {
    whole[d] = static_cast<double>(dims[d] / block * block);
    rest[d] = static_cast<double>(dims[d]) - whole[d];
    slow[d] = misaligned(dims[d], vector_width, cleanup_width[d]);
  }
  const double batch = static_cast<double>(std::max<std::int64_t>(g.batch, 1));
  T compute = T(0);
  for (int region = 0; region < 8; ++region) {
    const bool part[3] = {(region & 4) != 0, (region & 2) != 0, (region & 1) != 0};
    double flops = 2 * batch;
    T log_cost = -p[0];
    for (int d = 0; d < 3; ++d) {
      flops *= part[d] ? rest[d] : whole[d];
      if (part[d] && slow[d]) log_cost += p[8 + d];
    }
    if (flops <= 0) continue;
    if (region > 0) log_cost -= p[region];
    compute += flops * exp(log_cost);
  }
  const double m = static_cast<double>(g.m), n = static_cast<double>(g.n), k = static_cast<double>(g.k);
  // Each operand's stored rows: A is [m, k] or, transposed, [k, m]; B is [k, n] or [n, k].
  const double row_bytes[2] = {(g.trans_a ? m : k) * element_bytes, (g.trans_b ? k : n) * element_bytes};
  const double operand_bytes[2] = {batch * m * k * element_bytes, batch * k * n * element_bytes};
  const int layout[2] = {g.trans_a ? 1 : 0, g.trans_b ? 3 : 2};
  T packing = T(0);
  for (int x = 0; x < 2; ++x) {
    const T r = pow(T(row_bytes[x]) * exp(-p[14]), exp(p[21]));
    const T per_layout = layout[x] == 0 ? T(1) : exp(p[22 + layout[x]]);
    const T big = pow(T(operand_bytes[x]) * exp(-p[26]), 4.0);
    const T aliased = x == 1 ? exp(p[26 + layout[x]] * aliasing_exponent(row_bytes[x], aliased_row_bytes)) : T(1);  // p[28], p[29]
    packing += operand_bytes[x] * per_layout * (T(1) + exp(p[15 + layout[x]]) * r / (T(1) + r)) * (T(1) + exp(p[27]) * big / (T(1) + big)) * aliased;
  }
  const double output_bytes = batch * m * n * element_bytes;
  const T r = pow(T(output_bytes) * exp(-p[19]), exp(p[22]));
  const T memory = packing * exp(-p[11]) + output_bytes * (T(1) + exp(p[20]) * r / (T(1) + r)) * exp(-p[12]);
  if (parts) parts[0] = compute, parts[1] = memory;
  return compute + memory + exp(p[13]);
}

}  // namespace dnnperf
