#pragma once
// Builders behind the zoo registry (zoo.cc). Internal to networks/zoo.
#include <map>
#include <tuple>

#include "core/common/error.h"
#include <string>

#include "core/graph/network_builder.h"
#include "networks/zoo/zoo.h"

namespace dnnperf::zoo {

/// Settings parsed from "name:key=value,..."; builders take what they know and reject the rest.
class Settings {
 public:
  Settings(std::string network, std::map<std::string, std::string> values)
      : network_(std::move(network)), values_(std::move(values)) {}
  /// The setting as an integer in [min, max]; InputError naming the network and setting otherwise.
  std::int64_t integer(const std::string& key, std::int64_t fallback, std::int64_t min = 1, std::int64_t max = kMaxTensorElements);
  double real(const std::string& key, double fallback, double min, double max);
  /// The setting as one of `options`; InputError listing them otherwise.
  std::string choice(const std::string& key, const std::string& fallback, std::initializer_list<const char*> options);
  /// Throws InputError if any setting was never read.
  void check_all_used() const;

 private:
  std::string network_;
  std::map<std::string, std::string> values_;
  std::map<std::string, bool> used_;
};

std::array<std::int64_t, 2> image_size(const NetworkOptions& o, std::int64_t standard);
/// Adds labels and a cross-entropy loss after `logits` when options ask for it.
void finish_classifier(NetworkBuilder& b, int logits, const NetworkOptions& o);

Graph lenet5(const NetworkOptions& o);
Graph alexnet(const NetworkOptions& o);
Graph vgg(int depth, const NetworkOptions& o);
Graph resnet(int depth, const NetworkOptions& o);
Graph inception_v3(bool aux_logits, const NetworkOptions& o);
Graph mobilenet_v2(const NetworkOptions& o);
Graph densenet121(const NetworkOptions& o);

struct BertConfig {
  std::int64_t layers = 12, hidden = 768, heads = 12, sequence = 512, vocabulary = 30522;
};
Graph bert(const std::string& name, const BertConfig& c, const NetworkOptions& o);

struct EncoderClassifierConfig {
  std::int64_t layers = 4, hidden = 256, heads = 4, ffn = 1024, sequence = 128, vocabulary = 10000, classes = 10;
  double dropout = 0.1;
};
Graph transformer_encoder(const EncoderClassifierConfig& c, const NetworkOptions& o);

enum class RandomGraphKind { watts_strogatz, erdos_renyi, barabasi_albert };
struct RandWireConfig {
  RandomGraphKind kind = RandomGraphKind::watts_strogatz;
  std::int64_t nodes = 32;     // nodes per random stage
  std::int64_t stages = 3;     // random stages (conv3..conv5 in Xie et al.'s small regime)
  std::int64_t channels = 78;  // C of the small regime
  std::int64_t k = 4;          // WS: neighbours in the ring lattice
  double p = 0.75;             // WS: rewiring probability; ER: edge probability (default 0.2)
  std::int64_t m = 5;          // BA: edges per new node
  std::uint64_t seed = 0;
  std::int64_t classes = 1000;
};
Graph randwire(const std::string& name, const RandWireConfig& c, const NetworkOptions& o);

}  // namespace dnnperf::zoo
