// Each algorithm's step-by-step price against the closed forms of the literature (Thakur,
// Rabenseifner & Gropp 2005; Patarasuk & Yuan 2009), for powers of two and not.
#include "models/comm/allreduce.h"
#include "models/comm/comm_steps.h"

#include <cmath>
#include <string_view>
#include <vector>

#include <catch2/catch.hpp>

using namespace dnnperf;

namespace {

constexpr double kAlpha = 5e-6, kBeta = 1.0 / 25e9, kGamma = 1.0 / 600e9;

CommGroup one_node(int p) {
  CommGroup g;
  g.ranks = p;
  g.ranks_per_node = p;
  g.intra = {kAlpha, kBeta};
  g.inter = {1.0, 1.0};  // never used inside one node
  g.gamma = kGamma;
  return g;
}

CommGroup one_per_node(int p) {
  CommGroup g;
  g.ranks = p;
  g.ranks_per_node = 1;
  g.intra = {1.0, 1.0};  // never used with one rank per node
  g.inter = {kAlpha, kBeta};
  g.gamma = kGamma;
  return g;
}

double lg(int p) { return std::log2(static_cast<double>(p)); }

double ring(int p, double n) { return 2.0 * (p - 1) * kAlpha + 2.0 * (p - 1) / p * n * kBeta + (p - 1.0) / p * n * kGamma; }

double recursive_doubling(int p, double n) {
  const int p2 = 1 << static_cast<int>(std::floor(lg(p)));
  const double extra = p2 == p ? 0.0 : 2 * kAlpha + 2 * n * kBeta + n * kGamma;
  return std::log2(p2) * (kAlpha + n * kBeta + n * kGamma) + extra;
}

double rabenseifner(int p, double n) {
  const int p2 = 1 << static_cast<int>(std::floor(lg(p)));
  const double extra = p2 == p ? 0.0 : 2 * kAlpha + 2 * n * kBeta + n * kGamma;
  return 2 * std::log2(p2) * kAlpha + 2.0 * (p2 - 1) / p2 * n * kBeta + (p2 - 1.0) / p2 * n * kGamma + extra;
}

double binomial(int p, double n) { return std::ceil(lg(p)) * (2 * kAlpha + 2 * n * kBeta + n * kGamma); }

}  // namespace

TEST_CASE("AllReduce step sums equal the closed forms", "[models][allreduce]") {
  for (int p : {2, 3, 4, 5, 6, 7, 8, 12, 16, 33, 64, 1000}) {
    for (double n : {8.0, 4096.0, 1e6, 2.5e8}) {
      INFO("p=" << p << " n=" << n);
      for (const CommGroup& g : {one_node(p), one_per_node(p)}) {
        CHECK(allreduce_seconds(AllReduceAlgorithm::ring, n, g) == Approx(ring(p, n)));
        CHECK(allreduce_seconds(AllReduceAlgorithm::recursive_doubling, n, g) == Approx(recursive_doubling(p, n)));
        CHECK(allreduce_seconds(AllReduceAlgorithm::rabenseifner, n, g) == Approx(rabenseifner(p, n)));
        CHECK(allreduce_seconds(AllReduceAlgorithm::binomial_tree, n, g) == Approx(binomial(p, n)));
        // Inside one node, or one rank per node, the hierarchy has one level: it is a ring.
        CHECK(allreduce_seconds(AllReduceAlgorithm::hierarchical, n, g) == Approx(ring(p, n)));
      }
    }
  }
}

TEST_CASE("Hierarchical AllReduce composes intra- and inter-node rings", "[models][allreduce]") {
  CommGroup g;
  g.ranks = 32;
  g.ranks_per_node = 8;
  g.nics_per_node = 8;
  g.intra = {2e-6, 1.0 / 300e9};
  g.inter = {5e-6, 1.0 / 25e9};
  g.gamma = kGamma;
  const double n = 1e8;
  const double intra = 7 * (g.intra.alpha + n / 8 * g.intra.beta + n / 8 * kGamma) + 7 * (g.intra.alpha + n / 8 * g.intra.beta);
  const double slice = n / 8, inter = 2 * 3 * g.inter.alpha + 2.0 * 3 / 4 * slice * g.inter.beta + 3.0 / 4 * slice * kGamma;
  CHECK(allreduce_seconds(AllReduceAlgorithm::hierarchical, n, g) == Approx(intra + inter));
  // Fewer NICs than GPUs: the eight inter-node rings share them.
  g.nics_per_node = 2;
  CHECK(allreduce_seconds(AllReduceAlgorithm::hierarchical, n, g) > intra + inter);
}

TEST_CASE("best picks the cheapest algorithm: trees for small messages, rings for large", "[models][allreduce]") {
  const CommGroup g = one_per_node(64);
  for (double n : {8.0, 1e4, 1e6, 1e9}) {
    const auto [algorithm, seconds] = best_allreduce(n, g);
    for (AllReduceAlgorithm a : kAllReduceAlgorithms) CHECK(seconds <= allreduce_seconds(a, n, g));
    CHECK(allreduce_seconds(algorithm, n, g) == seconds);
  }
  CHECK(best_allreduce(8.0, g).first != AllReduceAlgorithm::ring);
  const auto large = best_allreduce(1e9, g).first;
  CHECK((large == AllReduceAlgorithm::ring || large == AllReduceAlgorithm::rabenseifner || large == AllReduceAlgorithm::hierarchical));
  CHECK(allreduce_seconds(AllReduceAlgorithm::ring, 1e6, one_node(1)) == 0);
}

TEST_CASE("Algorithm names round-trip", "[models][allreduce]") {
  for (AllReduceAlgorithm a : kAllReduceAlgorithms) CHECK(parse_allreduce(allreduce_name(a)) == a);
  CHECK_FALSE(parse_allreduce("bruck").has_value());
}

TEST_CASE("AllReduce steps name the ranks active in them", "[models][allreduce]") {
  const auto actives = [](std::string_view algorithm, int p) {
    std::vector<int> out;
    for (const CommStep& s : allreduce_steps(algorithm, 1e6, p))
      for (int i = 0; i < s.count; ++i) out.push_back(s.active);
    return out;
  };
  // A ring works on every rank in every step (0: all).
  CHECK(actives("ring", 3) == std::vector<int>{0, 0, 0, 0});
  // Recursive doubling on 3 ranks: a fold (2 ranks), the butterfly on 2, the result back (2).
  CHECK(actives("recursive_doubling", 3) == std::vector<int>{2, 2, 2});
  // On 6: two folds at once (4 ranks), the butterfly on 4.
  CHECK(actives("recursive_doubling", 6) == std::vector<int>{4, 4, 4, 4});
  CHECK(actives("rabenseifner", 3) == std::vector<int>{2, 2, 2, 2});
  CHECK(actives("rabenseifner", 4) == std::vector<int>{0, 0, 0, 0});
  // A binomial tree on 4 ranks: 4 at the leaves, then 2; on 5: 1 -> 0 and 3 -> 2 (4), 2 -> 0, 4 -> 0.
  CHECK(actives("binomial_tree", 4) == std::vector<int>{4, 2, 4, 2});
  CHECK(actives("binomial_tree", 5) == std::vector<int>{4, 2, 2, 4, 2, 2});
  // The library's own choice is unknown: every rank counts.
  CHECK(actives("default", 3) == std::vector<int>{0, 0, 0});
}
