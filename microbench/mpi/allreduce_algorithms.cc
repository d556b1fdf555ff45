#include "microbench/mpi/allreduce_algorithms.h"

#include <algorithm>

namespace dnnperf::bench {
namespace {

constexpr int kTag = 4711;

void add(float* into, const float* from, int n) {
  for (int i = 0; i < n; ++i) into[i] += from[i];
}

/// Offset of block b when `count` elements are cut into `blocks` nearly equal blocks.
int offset(int b, int blocks, int count) { return static_cast<int>(static_cast<long long>(b) * count / blocks); }

void exchange(const float* send, int send_count, float* recv, int recv_count, int peer, MPI_Comm comm) {
  MPI_Sendrecv(send, send_count, MPI_FLOAT, peer, kTag, recv, recv_count, MPI_FLOAT, peer, kTag, comm, MPI_STATUS_IGNORE);
}

// Patarasuk & Yuan: reduce-scatter then allgather around the ring, p - 1 steps each.
void ring(float* data, int count, MPI_Comm comm, std::vector<float>& tmp) {
  int rank = 0, p = 1;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &p);
  if (p == 1) return;
  const int right = (rank + 1) % p, left = (rank + p - 1) % p;
  tmp.resize(static_cast<std::size_t>(count / p + 1));
  for (int s = 0; s < p - 1; ++s) {
    const int sb = (rank - s + p) % p, rb = (rank - s - 1 + 2 * p) % p;
    const int so = offset(sb, p, count), sn = offset(sb + 1, p, count) - so;
    const int ro = offset(rb, p, count), rn = offset(rb + 1, p, count) - ro;
    MPI_Sendrecv(data + so, sn, MPI_FLOAT, right, kTag, tmp.data(), rn, MPI_FLOAT, left, kTag, comm, MPI_STATUS_IGNORE);
    add(data + ro, tmp.data(), rn);
  }
  for (int s = 0; s < p - 1; ++s) {
    const int sb = (rank + 1 - s + p) % p, rb = (rank - s + p) % p;
    const int so = offset(sb, p, count), sn = offset(sb + 1, p, count) - so;
    const int ro = offset(rb, p, count), rn = offset(rb + 1, p, count) - ro;
    MPI_Sendrecv(data + so, sn, MPI_FLOAT, right, kTag, data + ro, rn, MPI_FLOAT, left, kTag, comm, MPI_STATUS_IGNORE);
  }
}

/// Thakur et al.'s treatment of p not a power of two: the first 2r ranks pair up, even ranks fold
/// their data into their odd partner and sit out. Returns the rank among the p' = 2^floor(lg p)
/// that go on, or -1 for a rank that sits out.
int fold_in(float* data, int count, int rank, int p, int p2, MPI_Comm comm, std::vector<float>& tmp) {
  const int r = p - p2;
  if (rank < 2 * r) {
    if (rank % 2 == 0) {
      MPI_Send(data, count, MPI_FLOAT, rank + 1, kTag, comm);
      return -1;
    }
    tmp.resize(static_cast<std::size_t>(count));
    MPI_Recv(tmp.data(), count, MPI_FLOAT, rank - 1, kTag, comm, MPI_STATUS_IGNORE);
    add(data, tmp.data(), count);
    return rank / 2;
  }
  return rank - r;
}

int real_rank(int virtual_rank, int r) { return virtual_rank < r ? 2 * virtual_rank + 1 : virtual_rank + r; }

void fold_out(float* data, int count, int rank, int p, int p2, MPI_Comm comm) {
  const int r = p - p2;
  if (rank >= 2 * r) return;
  if (rank % 2 == 0) MPI_Recv(data, count, MPI_FLOAT, rank + 1, kTag, comm, MPI_STATUS_IGNORE);
  else MPI_Send(data, count, MPI_FLOAT, rank - 1, kTag, comm);
}

int largest_power_of_two(int p) {
  int p2 = 1;
  while (p2 * 2 <= p) p2 *= 2;
  return p2;
}

void recursive_doubling(float* data, int count, MPI_Comm comm, std::vector<float>& tmp) {
  int rank = 0, p = 1;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &p);
  const int p2 = largest_power_of_two(p), r = p - p2;
  const int v = fold_in(data, count, rank, p, p2, comm, tmp);
  if (v >= 0) {
    tmp.resize(static_cast<std::size_t>(count));
    for (int mask = 1; mask < p2; mask <<= 1) {
      exchange(data, count, tmp.data(), count, real_rank(v ^ mask, r), comm);
      add(data, tmp.data(), count);
    }
  }
  fold_out(data, count, rank, p, p2, comm);
}

// Rabenseifner: reduce-scatter by recursive halving, allgather by recursive doubling.
void rabenseifner(float* data, int count, MPI_Comm comm, std::vector<float>& tmp) {
  int rank = 0, p = 1;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &p);
  const int p2 = largest_power_of_two(p), r = p - p2;
  const int v = fold_in(data, count, rank, p, p2, comm, tmp);
  if (v >= 0 && p2 > 1) {
    tmp.resize(static_cast<std::size_t>(count));
    int lo = 0, hi = p2;  // blocks this rank is responsible for
    for (int mask = p2 / 2; mask >= 1; mask >>= 1) {
      const int peer = real_rank(v ^ mask, r), mid = (lo + hi) / 2;
      const bool lower = (v & mask) == 0;
      const int keep_lo = lower ? lo : mid, keep_hi = lower ? mid : hi;
      const int send_lo = lower ? mid : lo, send_hi = lower ? hi : mid;
      const int ko = offset(keep_lo, p2, count), kn = offset(keep_hi, p2, count) - ko;
      const int so = offset(send_lo, p2, count), sn = offset(send_hi, p2, count) - so;
      exchange(data + so, sn, tmp.data(), kn, peer, comm);
      add(data + ko, tmp.data(), kn);
      lo = keep_lo;
      hi = keep_hi;
    }
    for (int mask = 1; mask < p2; mask <<= 1) {
      const int peer = real_rank(v ^ mask, r);
      const int size = hi - lo;
      const bool lower = (v & mask) == 0;
      const int peer_lo = lower ? hi : lo - size, peer_hi = peer_lo + size;
      const int mo = offset(lo, p2, count), mn = offset(hi, p2, count) - mo;
      const int po = offset(peer_lo, p2, count), pn = offset(peer_hi, p2, count) - po;
      exchange(data + mo, mn, data + po, pn, peer, comm);
      lo = std::min(lo, peer_lo);
      hi = std::max(hi, peer_hi);
    }
  }
  fold_out(data, count, rank, p, p2, comm);
}

void binomial_reduce(float* data, int count, MPI_Comm comm, std::vector<float>& tmp) {
  int rank = 0, p = 1;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &p);
  tmp.resize(static_cast<std::size_t>(count));
  for (int mask = 1; mask < p; mask <<= 1) {
    if (rank & mask) {
      MPI_Send(data, count, MPI_FLOAT, rank - mask, kTag, comm);
      return;
    }
    if (rank + mask < p) {
      MPI_Recv(tmp.data(), count, MPI_FLOAT, rank + mask, kTag, comm, MPI_STATUS_IGNORE);
      add(data, tmp.data(), count);
    }
  }
}

void binomial_broadcast(float* data, int count, MPI_Comm comm) {
  int rank = 0, p = 1;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &p);
  int top = 1;
  while (top * 2 < p) top *= 2;
  for (int mask = top; mask >= 1; mask >>= 1) {
    const int low = rank & (2 * mask - 1);
    if (low == 0 && rank + mask < p) MPI_Send(data, count, MPI_FLOAT, rank + mask, kTag, comm);
    else if (low == mask) MPI_Recv(data, count, MPI_FLOAT, rank - mask, kTag, comm, MPI_STATUS_IGNORE);
  }
}

}  // namespace

void allreduce(AllReduceAlgorithm algorithm, float* data, int count, MPI_Comm comm, MPI_Comm node, MPI_Comm leaders,
               std::vector<float>& scratch) {
  switch (algorithm) {
    case AllReduceAlgorithm::ring: return ring(data, count, comm, scratch);
    case AllReduceAlgorithm::recursive_doubling: return recursive_doubling(data, count, comm, scratch);
    case AllReduceAlgorithm::rabenseifner: return rabenseifner(data, count, comm, scratch);
    case AllReduceAlgorithm::binomial_tree:
      binomial_reduce(data, count, comm, scratch);
      return binomial_broadcast(data, count, comm);
    case AllReduceAlgorithm::hierarchical:
      // Inside the node to its first rank, across nodes among those, back inside the node.
      binomial_reduce(data, count, node, scratch);
      if (leaders != MPI_COMM_NULL) ring(data, count, leaders, scratch);
      return binomial_broadcast(data, count, node);
  }
}

}  // namespace dnnperf::bench
