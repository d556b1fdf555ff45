#include "predictor/graph/op_kind.h"

#include <array>

namespace dnnperf {
namespace {

struct OpKindInfo {
  OpKind kind;
  std::string_view name;
  OpFamily family;
};

constexpr OpKindInfo kOpKinds[] = {
#define DNNPERF_OP_INFO(name, family) {OpKind::name, #name, OpFamily::family},
    DNNPERF_OP_KINDS(DNNPERF_OP_INFO)
#undef DNNPERF_OP_INFO
};

constexpr auto kAllKinds = [] {
  std::array<OpKind, std::size(kOpKinds)> kinds{};
  for (std::size_t i = 0; i < kinds.size(); ++i) kinds[i] = kOpKinds[i].kind;
  return kinds;
}();

}  // namespace

std::string_view op_kind_name(OpKind kind) { return kOpKinds[static_cast<std::size_t>(kind)].name; }

OpFamily op_family(OpKind kind) { return kOpKinds[static_cast<std::size_t>(kind)].family; }

std::optional<OpKind> parse_op_kind(std::string_view name) {
  for (const auto& info : kOpKinds)
    if (info.name == name) return info.kind;
  if (name == "bmm") return OpKind::matmul;
  if (name == "global_avg_pool2d") return OpKind::adaptive_avg_pool2d;
  return std::nullopt;
}

std::span<const OpKind> all_op_kinds() { return kAllKinds; }

}  // namespace dnnperf
