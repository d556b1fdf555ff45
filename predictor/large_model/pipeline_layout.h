#pragma once
// A pipeline's layers placed by hand, in Megatron-LM's notation (--pipeline-model-parallel-layout,
// Megatron-Bridge's pipeline_model_parallel_layout): the model chunks in pipeline order, separated
// by "|", each a run of "E" (the embedding), "t" (a transformer layer) and "L" (the output layer
// and loss); "x*n" repeats a letter, "(...)*n" a group; commas are cosmetic. Chunk c runs on
// pipeline rank c mod pp as its virtual stage c / pp, so a layout of pp x v chunks interleaves v
// stages per GPU. Example: Megatron-Bridge's Llama 3 70B recipe on PP 8 x VP 5,
// "Et*2|(t*2|)*34,t*3|(t*2|)*3,tL": two layers per chunk, one moved off the last.
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace dnnperf {

/// The transformer layers of each chunk, in pipeline order. Throws InputError naming the layout
/// for a letter other than E, t and L (Megatron's "m", multi-token prediction, is not modelled),
/// an unbalanced group, a repeat without a count, an embedding not at its start or a loss not at
/// its end (each exactly once), a chunk count that is not a multiple of `pp`, or a layer count
/// other than `layers`.
std::vector<std::int64_t> parse_pipeline_layout(std::string_view layout, int pp, std::int64_t layers);

}  // namespace dnnperf
