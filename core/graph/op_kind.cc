#include "core/graph/op_kind.h"


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


}  // namespace dnnperf
