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
//                                     / operand_bandwidth   (packing)
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
// sum does (held-out MAPE on 1,600 sampled GEMMs: docs/models/fitting-notes.md). The clean-up code along n has
// a second width of its own on that ATLAS: leftovers of 6, 18, 30 and 42 columns (multiples of 6,
// not of 4) run at 17-31 GFLOP/s where 22 and 26 run at 9.5; one width for all priced them 2-3x slow
// (n leftover = 6 mod 12: MAPE 31.5% against 7-13% for the other residues).
//
// The tiled model of MatrixEfficiency prices GPU GEMMs (a partial tile costs a whole one); `dnnperf
// fit` keeps this model only where it predicts GEMMs the fit did not see better.
#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>

#include "core/lowering/kernel.h"
#include "profile/cpu_library_models.h"

namespace dnnperf {

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
/// p[23..25] log layout_packing[1..3], p[26] log large_operand_bytes, p[27] log(large_operand_slowdown - 1).
constexpr int kBlockedGemmParameters = 28;
/// A model's continuous parameters in that form, and back (block, widths and type kept).
std::array<double, kBlockedGemmParameters> log_parameters(const BlockedGemm& model);
BlockedGemm with_log_parameters(BlockedGemm model, const double* p);

/// The time of one (batched) GEMM of elements `element_bytes` wide under `model`; `parts`, if
/// given, receives its compute (blocks and clean-up) and memory (packing and output) terms.
double blocked_gemm_seconds(const BlockedGemm& model, const GemmShape& g, double element_bytes, double* parts = nullptr);

template <typename T>
T blocked_gemm_seconds(const GemmShape& g, std::int64_t block, std::int64_t vector_width, const std::array<std::int64_t, 3>& cleanup_width,
                       double element_bytes, const T* p, T* parts = nullptr) {
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
    packing += operand_bytes[x] * per_layout * (T(1) + exp(p[15 + layout[x]]) * r / (T(1) + r)) * (T(1) + exp(p[27]) * big / (T(1) + big));
  }
  const double output_bytes = batch * m * n * element_bytes;
  const T r = pow(T(output_bytes) * exp(-p[19]), exp(p[22]));
  const T memory = packing * exp(-p[11]) + output_bytes * (T(1) + exp(p[20]) * r / (T(1) + r)) * exp(-p[12]);
  if (parts) parts[0] = compute, parts[1] = memory;
  return compute + memory + exp(p[13]);
}

}  // namespace dnnperf
