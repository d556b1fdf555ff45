#include "predictor/simulation/timeline.h"

#include <catch2/catch.hpp>

using namespace dnnperf;

TEST_CASE("Streams run in order and tasks wait for their dependencies", "[simulation]") {
  Timeline t;
  const int compute = t.add_stream("compute"), comm = t.add_stream("comm");
  const int a = t.add_task(compute, 2.0, {}, TaskKind::compute);
  const int b = t.add_task(compute, 3.0, {}, TaskKind::compute);
  const int c = t.add_task(comm, 4.0, {a}, TaskKind::communication);  // overlaps b
  const int d = t.add_task(compute, 1.0, {c}, TaskKind::compute);     // waits for c, not just b
  CHECK(t.task(b).start == 2.0);
  CHECK(t.task(c).start == 2.0);
  CHECK(t.task(c).finish == 6.0);
  CHECK(t.task(d).start == 6.0);
  CHECK(t.makespan() == 7.0);
  CHECK(t.busy(compute) == 6.0);
  CHECK(t.busy(comm) == 4.0);
}
