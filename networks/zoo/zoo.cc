#include "networks/zoo/zoo.h"

#include <charconv>
#include <functional>

#include "core/common/error.h"
#include "networks/zoo/zoo_builders.h"

namespace dnnperf {
namespace zoo {

std::int64_t Settings::integer(const std::string& key, std::int64_t fallback, std::int64_t min, std::int64_t max) {
  const auto it = values_.find(key);
  if (it == values_.end()) return fallback;
  used_[key] = true;
  std::int64_t v = 0;
  const std::string& text = it->second;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (ec != std::errc() || end != text.data() + text.size() || v < min || v > max)
    throw InputError("network '" + network_ + "': setting '" + key + "' must be an integer in [" + std::to_string(min) + ", " +
                     std::to_string(max) + "], got '" + text + "'");
  return v;
}

double Settings::real(const std::string& key, double fallback, double min, double max) {
  const auto it = values_.find(key);
  if (it == values_.end()) return fallback;
  used_[key] = true;
  double v = 0;
  const std::string& text = it->second;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (ec != std::errc() || end != text.data() + text.size() || !(v >= min && v <= max))
    throw InputError("network '" + network_ + "': setting '" + key + "' must be a number in [" +
                     std::to_string(min) + ", " + std::to_string(max) + "], got '" + text + "'");
  return v;
}

void Settings::check_all_used() const {
  for (const auto& [key, value] : values_)
    if (!used_.count(key))
      throw InputError("network '" + network_ + "' has no setting '" + key + "'");
}

std::array<std::int64_t, 2> image_size(const NetworkOptions& o, std::int64_t standard) {
  if (o.batch <= 0) throw InputError("batch must be positive, is " + std::to_string(o.batch));
  const auto size = o.image.value_or(std::array<std::int64_t, 2>{standard, standard});
  if (size[0] <= 0 || size[1] <= 0)
    throw InputError("input size must be positive, is " + std::to_string(size[0]) + "x" + std::to_string(size[1]));
  return size;
}

void finish_classifier(NetworkBuilder& b, int logits, const NetworkOptions& o) {
  if (!o.with_loss) {
    b.set_output(logits);
    return;
  }
  const int labels = b.input("labels", {b.shape(logits)[0]}, DType::i64);
  b.set_output(b.cross_entropy(logits, labels, "loss"));
}

namespace {

// Bounds on a builder's repetitions, so that a typo cannot build a graph for minutes or past
// memory: the deepest published transformers have about 128 layers, randomly wired networks
// 32 nodes a stage (Xie et al. 2019); docs/network-format.md states them.
constexpr std::int64_t kMaxLayers = 4096;
constexpr std::int64_t kMaxRandomNodes = 1024;
constexpr std::int64_t kMaxStages = 64;

using Factory = std::function<Graph(Settings&, const NetworkOptions&)>;

struct Registered {
  ZooEntry entry;
  Factory build;
};

Factory fixed(std::function<Graph(const NetworkOptions&)> f) {
  return [f = std::move(f)](Settings& s, const NetworkOptions& o) {
    s.check_all_used();  // fixed architectures take no settings
    return f(o);
  };
}

Factory gpt_factory(std::string name, GptConfig base) {
  return [name = std::move(name), base](Settings& s, const NetworkOptions& o) {
    GptConfig c = base;
    c.layers = s.integer("layers", c.layers, 1, kMaxLayers);
    c.hidden = s.integer("hidden", c.hidden);
    c.heads = s.integer("heads", c.heads);
    c.ffn = s.integer("ffn", c.ffn ? c.ffn : 4 * c.hidden);
    c.sequence = s.integer("seq", c.sequence);
    c.vocabulary = s.integer("vocab", c.vocabulary);
    c.dropout = s.real("dropout", c.dropout, 0.0, 0.99);
    s.check_all_used();
    NetworkOptions opts = o;
    if (!opts.sequence) opts.sequence = c.sequence;
    return gpt(name, c, opts);
  };
}

Factory bert_factory(std::string name, BertConfig base) {
  return [name = std::move(name), base](Settings& s, const NetworkOptions& o) {
    BertConfig c = base;
    c.layers = s.integer("layers", c.layers, 1, kMaxLayers);
    c.hidden = s.integer("hidden", c.hidden);
    c.heads = s.integer("heads", c.heads);
    s.check_all_used();
    return bert(name, c, o);
  };
}

Factory randwire_factory(std::string name, RandomGraphKind kind) {
  return [name = std::move(name), kind](Settings& s, const NetworkOptions& o) {
    RandWireConfig c;
    c.kind = kind;
    c.nodes = s.integer("nodes", c.nodes, 2, kMaxRandomNodes);
    c.stages = s.integer("stages", c.stages, 1, kMaxStages);
    c.channels = s.integer("channels", c.channels, 2);
    c.k = s.integer("k", c.k);
    c.p = s.real("p", kind == RandomGraphKind::erdos_renyi ? 0.2 : c.p, 0.0, 1.0);
    c.m = s.integer("m", c.m);
    c.seed = static_cast<std::uint64_t>(s.integer("seed", 0, 0));
    c.classes = s.integer("classes", c.classes);
    s.check_all_used();
    return randwire(name, c, o);
  };
}

std::vector<Registered> make_registry() {
  std::vector<Registered> r;
  const auto add = [&](std::string name, std::string description, Factory f) {
    r.push_back({{std::move(name), std::move(description), false}, std::move(f)});
  };
  // Transformers are sized by a sequence length.
  const auto add_sequence_model = [&](std::string name, std::string description, Factory f) {
    r.push_back({{std::move(name), std::move(description), true}, std::move(f)});
  };
  add("lenet5", "LeNet-5 (LeCun 1998), 1x32x32", fixed(lenet5));
  add("alexnet", "AlexNet (torchvision), 224x224", fixed(alexnet));
  for (int d : {11, 16, 19})
    add("vgg" + std::to_string(d), "VGG-" + std::to_string(d) + " (torchvision, no BN), 224x224", fixed([d](const NetworkOptions& o) { return vgg(d, o); }));
  for (int d : {18, 34, 50, 101, 152})
    add("resnet" + std::to_string(d), "ResNet-" + std::to_string(d) + " (torchvision), 224x224", fixed([d](const NetworkOptions& o) { return resnet(d, o); }));
  add("inception_v3", "Inception-v3 with auxiliary classifier (torchvision), 299x299", fixed([](const NetworkOptions& o) { return inception_v3(true, o); }));
  add("inception_v3_noaux", "Inception-v3 without auxiliary classifier, 299x299", fixed([](const NetworkOptions& o) { return inception_v3(false, o); }));
  add("mobilenet_v2", "MobileNetV2 (torchvision), 224x224", fixed(mobilenet_v2));
  add("densenet121", "DenseNet-121 (torchvision), 224x224", fixed(densenet121));
  add_sequence_model("bert-base", "BERT-base encoder + pooler, seq 128 (max 512)", bert_factory("bert-base", {12, 768, 12, 512, 30522}));
  add_sequence_model("bert-large", "BERT-large encoder + pooler, seq 128 (max 512)", bert_factory("bert-large", {24, 1024, 16, 512, 30522}));
  // GPT-2 sizes: Radford et al. 2019, Table 2 (context 1024, vocabulary 50257).
  add_sequence_model("gpt2", "GPT-2 small (124M), seq 1024", gpt_factory("gpt2", {12, 768, 12, 0, 1024, 50257, 0.1}));
  add_sequence_model("gpt2-medium", "GPT-2 medium (355M), seq 1024", gpt_factory("gpt2-medium", {24, 1024, 16, 0, 1024, 50257, 0.1}));
  add_sequence_model("gpt2-large", "GPT-2 large (774M), seq 1024", gpt_factory("gpt2-large", {36, 1280, 20, 0, 1024, 50257, 0.1}));
  add_sequence_model("gpt2-xl", "GPT-2 XL (1.5B), seq 1024", gpt_factory("gpt2-xl", {48, 1600, 25, 0, 1024, 50257, 0.1}));
  // GPT-3: Brown et al. 2020, Table 2.1 (context 2048). The 13B model's d_model of 5140 is not a
  // multiple of its 40 heads, and the 1.3B model's 24 heads of 128 do not make 2048; implementations
  // use 5120 and 16 heads, as here.
  const std::vector<std::tuple<std::string, std::int64_t, std::int64_t, std::int64_t>> gpt3 = {
      {"125m", 12, 768, 12},  {"350m", 24, 1024, 16}, {"760m", 24, 1536, 16}, {"1.3b", 24, 2048, 16},
      {"2.7b", 32, 2560, 32}, {"6.7b", 32, 4096, 32}, {"13b", 40, 5120, 40},  {"175b", 96, 12288, 96}};
  for (const auto& [size, layers, hidden, heads] : gpt3)
    add_sequence_model("gpt3-" + size, "GPT-3 " + size + " (" + std::to_string(layers) + " layers, hidden " + std::to_string(hidden) + "), seq 2048",
        gpt_factory("gpt3-" + size, {layers, hidden, heads, 0, 2048, 50257, 0.0}));
  // Megatron-LM shapes: Korthikanti et al. 2022, Table 3 (sequence 2048, vocabulary 51200).
  const std::vector<std::tuple<std::string, std::int64_t, std::int64_t, std::int64_t>> megatron = {
      {"22b", 48, 6144, 64}, {"175b", 96, 12288, 96}, {"530b", 105, 20480, 128}, {"1t", 128, 25600, 160}};
  for (const auto& [size, layers, hidden, heads] : megatron)
    add_sequence_model("megatron-" + size, "Megatron-style GPT " + size + " (" + std::to_string(layers) + " layers, hidden " + std::to_string(hidden) + "), seq 2048",
        gpt_factory("megatron-" + size, {layers, hidden, heads, 0, 2048, 51200, 0.0}));
  add_sequence_model("gpt", "GPT family builder: gpt:layers=L,hidden=H,heads=A[,ffn=F,seq=S,vocab=V,dropout=P]", gpt_factory("gpt", {}));
  add_sequence_model("transformer_encoder", "Transformer encoder classifier (4 layers, hidden 256), seq 128",
      [](Settings& s, const NetworkOptions& o) {
        EncoderClassifierConfig c;
        c.layers = s.integer("layers", c.layers, 1, kMaxLayers);
        c.hidden = s.integer("hidden", c.hidden);
        c.heads = s.integer("heads", c.heads);
        c.ffn = s.integer("ffn", c.ffn);
        c.sequence = s.integer("max_seq", c.sequence);
        c.vocabulary = s.integer("vocab", c.vocabulary);
        c.classes = s.integer("classes", c.classes);
        c.dropout = s.real("dropout", c.dropout, 0.0, 0.99);
        s.check_all_used();
        return transformer_encoder(c, o);
      });
  add("randwire-ws", "Randomly wired network, Watts-Strogatz (k=4, p=0.75); nodes=,stages=,seed=", randwire_factory("randwire-ws", RandomGraphKind::watts_strogatz));
  add("randwire-er", "Randomly wired network, Erdos-Renyi (p=0.2); nodes=,stages=,seed=", randwire_factory("randwire-er", RandomGraphKind::erdos_renyi));
  add("randwire-ba", "Randomly wired network, Barabasi-Albert (m=5); nodes=,stages=,seed=", randwire_factory("randwire-ba", RandomGraphKind::barabasi_albert));
  return r;
}

const std::vector<Registered>& registry() {
  static const std::vector<Registered> r = make_registry();
  return r;
}

const Registered* find(std::string_view name) {
  for (const Registered& r : registry())
    if (r.entry.name == name) return &r;
  return nullptr;
}

}  // namespace
}  // namespace zoo

const std::vector<ZooEntry>& zoo_networks() {
  static const std::vector<ZooEntry> entries = [] {
    std::vector<ZooEntry> e;
    for (const auto& r : zoo::registry()) e.push_back(r.entry);
    return e;
  }();
  return entries;
}

bool is_zoo_network(std::string_view spec) { return zoo::find(spec.substr(0, spec.find(':'))) != nullptr; }

bool is_zoo_sequence_model(std::string_view spec) {
  const zoo::Registered* r = zoo::find(spec.substr(0, spec.find(':')));
  return r && r->entry.takes_sequence;
}

Graph build_zoo_network(std::string_view spec, const NetworkOptions& options) {
  const std::size_t colon = spec.find(':');
  const std::string name(spec.substr(0, colon));
  const zoo::Registered* r = zoo::find(name);
  if (!r) throw InputError("unknown network '" + name + "' (see `dnnperf net list`)");
  std::map<std::string, std::string> values;
  if (colon != std::string_view::npos) {
    std::string_view rest = spec.substr(colon + 1);
    while (!rest.empty()) {
      const std::size_t comma = rest.find(',');
      const std::string_view item = rest.substr(0, comma);
      const std::size_t eq = item.find('=');
      if (eq == std::string_view::npos || eq == 0)
        throw InputError("network '" + name + "': setting '" + std::string(item) + "' is not key=value");
      values[std::string(item.substr(0, eq))] = std::string(item.substr(eq + 1));
      rest = comma == std::string_view::npos ? std::string_view{} : rest.substr(comma + 1);
    }
  }
  zoo::Settings settings(name, std::move(values));
  if (options.batch <= 0) throw InputError("batch must be positive, is " + std::to_string(options.batch));
  if (options.sequence && *options.sequence <= 0) throw InputError("sequence must be positive, is " + std::to_string(*options.sequence));
  if (r->entry.takes_sequence && options.image)
    throw InputError("network '" + name + "' is a transformer: it takes a sequence length (--seq), not an image size");
  if (!r->entry.takes_sequence && options.sequence)
    throw InputError("network '" + name + "' takes an image size (--input), not a sequence length");
  return r->build(settings, options);
}

}  // namespace dnnperf
