#include "profile/regression_model.h"

namespace dnnperf {

const std::vector<std::string>& regression_feature_names() {
  static const std::vector<std::string> names = {"one", "log_flops", "log_bytes", "log_m", "log_n", "log_k",
                                                 "log_min_dim", "log_flops_squared", "log_intensity", "log_batch",
                                                 "log_window", "log_stride", "trans_a", "trans_b", "k_fill",
                                                 "pointwise", "depthwise", "in_lane_fill", "out_lane_fill", "log_image",
                                                 "small_batch_pointwise", "depthwise_log_flops", "small_batch_pointwise_log_flops", "im2col_gemm",
                                                 "log_m_squared", "log_n_squared", "log_k_squared", "log_m_log_n", "log_m_log_k",
                                                 "log_n_log_k", "m_misaligned", "n_misaligned", "k_misaligned",
                                                 "m_block_remainder", "n_block_remainder", "k_block_remainder",
                                                 "nk_block_remainder"};
  return names;
}

bool is_blocking_feature(std::string_view name) { return name.ends_with("_block_remainder"); }

}  // namespace dnnperf
