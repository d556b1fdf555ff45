#include "networks/zoo/zoo.h"

#include <charconv>
#include <functional>

#include "core/common/error.h"
#include "networks/zoo/transformer_spec.h"
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

std::string Settings::choice(const std::string& key, const std::string& fallback, std::initializer_list<const char*> options) {
  const auto it = values_.find(key);
  if (it == values_.end()) return fallback;
  used_[key] = true;
  std::string listed;
  for (const char* o : options) {
    if (it->second == o) return it->second;
    listed += std::string(listed.empty() ? "" : ", ") + o;
  }
  throw InputError("network '" + network_ + "': setting '" + key + "' must be one of " + listed + ", got '" + it->second + "'");
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
  /// Decoder transformers: the spec their settings give (the large-model planner's input).
  std::function<TransformerSpec(Settings&)> decoder;
};

Factory fixed(std::function<Graph(const NetworkOptions&)> f) {
  return [f = std::move(f)](Settings& s, const NetworkOptions& o) {
    s.check_all_used();  // fixed architectures take no settings
    return f(o);
  };
}

// A decoder transformer's settings over a base spec: every hyper-parameter may be overridden.
TransformerSpec decoder_spec(const std::string& name, TransformerSpec c, Settings& s) {
  c.name = name;
  c.layers = s.integer("layers", c.layers, 1, kMaxLayers);
  c.hidden = s.integer("hidden", c.hidden);
  c.heads = s.integer("heads", c.heads);
  c.kv_heads = s.integer("kv_heads", c.kv_heads, 0);
  c.ffn = s.integer("ffn", c.ffn ? c.ffn : 4 * c.hidden);
  c.sequence = s.integer("seq", c.sequence);
  c.vocabulary = s.integer("vocab", c.vocabulary);
  c.dropout = s.real("dropout", c.dropout, 0.0, 0.99);
  c.experts = s.integer("experts", c.experts, 0, 1 << 16);
  c.top_k = s.integer("top_k", c.top_k, 1, 1 << 16);
  c.capacity_factor = s.real("capacity_factor", c.capacity_factor, 0.01, 64);
  c.moe_every = s.integer("moe_every", c.moe_every, 1, kMaxLayers);
  c.flash = s.integer("flash", c.flash ? 1 : 0, 0, 1) == 1;
  c.mlp = s.choice("mlp", c.mlp == MlpKind::swiglu ? "swiglu" : "gelu", {"gelu", "swiglu"}) == "swiglu" ? MlpKind::swiglu : MlpKind::gelu;
  c.norm = s.choice("norm", c.norm == NormKind::rms_norm ? "rms" : "layer", {"layer", "rms"}) == "rms" ? NormKind::rms_norm : NormKind::layer_norm;
  const bool rotary = s.choice("position", c.position == PositionKind::rotary ? "rotary" : "learned", {"learned", "rotary"}) == "rotary";
  c.position = rotary ? PositionKind::rotary : PositionKind::learned;
  c.tied_head = s.integer("tied_head", c.tied_head ? 1 : 0, 0, 1) == 1;
  c.bias = s.integer("bias", c.bias ? 1 : 0, 0, 1) == 1;
  s.check_all_used();
  c.validate();
  return c;
}

TransformerSpec gpt_spec(std::int64_t layers, std::int64_t hidden, std::int64_t heads, std::int64_t sequence, std::int64_t vocabulary,
                         double dropout) {
  TransformerSpec c;
  c.layers = layers, c.hidden = hidden, c.heads = heads, c.sequence = sequence, c.vocabulary = vocabulary, c.dropout = dropout;
  return c;
}

// Llama and Mixtral: RMSNorm, SwiGLU, rotary positions, no biases, an untied head.
TransformerSpec llama_spec(std::int64_t layers, std::int64_t hidden, std::int64_t heads, std::int64_t kv_heads, std::int64_t ffn,
                           std::int64_t sequence, std::int64_t vocabulary) {
  TransformerSpec c;
  c.layers = layers, c.hidden = hidden, c.heads = heads, c.kv_heads = kv_heads, c.ffn = ffn;
  c.sequence = sequence, c.vocabulary = vocabulary;
  c.mlp = MlpKind::swiglu, c.norm = NormKind::rms_norm, c.position = PositionKind::rotary;
  c.tied_head = false, c.bias = false;
  // Trained with fused attention that keeps no scores (Touvron et al. 2023, LLaMA, section 2.4:
  // xformers' causal attention "does not store the attention weights"), as every framework that
  // trains these models runs it; `flash=0` prices the unfused form.
  c.flash = true;
  return c;
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
    r.push_back({{std::move(name), std::move(description), false}, std::move(f), {}});
  };
  // Transformers are sized by a sequence length.
  const auto add_sequence_model = [&](std::string name, std::string description, Factory f) {
    r.push_back({{std::move(name), std::move(description), true}, std::move(f), {}});
  };
  const auto add_decoder = [&](std::string name, std::string description, TransformerSpec base) {
    std::function<TransformerSpec(Settings&)> spec = [name, base](Settings& s) { return decoder_spec(name, base, s); };
    Factory build = [spec](Settings& s, const NetworkOptions& o) { return build_transformer(spec(s), o); };
    r.push_back({{std::move(name), std::move(description), true}, std::move(build), std::move(spec)});
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
  add_decoder("gpt2", "GPT-2 small (124M), seq 1024", gpt_spec(12, 768, 12, 1024, 50257, 0.1));
  add_decoder("gpt2-medium", "GPT-2 medium (355M), seq 1024", gpt_spec(24, 1024, 16, 1024, 50257, 0.1));
  add_decoder("gpt2-large", "GPT-2 large (774M), seq 1024", gpt_spec(36, 1280, 20, 1024, 50257, 0.1));
  add_decoder("gpt2-xl", "GPT-2 XL (1.5B), seq 1024", gpt_spec(48, 1600, 25, 1024, 50257, 0.1));
  // GPT-3: Brown et al. 2020, Table 2.1 (context 2048). The 13B model's d_model of 5140 is not a
  // multiple of its 40 heads, and the 1.3B model's 24 heads of 128 do not make 2048; implementations
  // use 5120 and 16 heads, as here.
  const std::vector<std::tuple<std::string, std::int64_t, std::int64_t, std::int64_t>> gpt3 = {
      {"125m", 12, 768, 12},  {"350m", 24, 1024, 16}, {"760m", 24, 1536, 16}, {"1.3b", 24, 2048, 16},
      {"2.7b", 32, 2560, 32}, {"6.7b", 32, 4096, 32}, {"13b", 40, 5120, 40},  {"175b", 96, 12288, 96}};
  for (const auto& [size, layers, hidden, heads] : gpt3)
    add_decoder("gpt3-" + size, "GPT-3 " + size + " (" + std::to_string(layers) + " layers, hidden " + std::to_string(hidden) + "), seq 2048",
        gpt_spec(layers, hidden, heads, 2048, 50257, 0.0));
  // Megatron-LM shapes: Korthikanti et al. 2022, Table 3 (sequence 2048, vocabulary 51200).
  const std::vector<std::tuple<std::string, std::int64_t, std::int64_t, std::int64_t>> megatron = {
      {"22b", 48, 6144, 64}, {"175b", 96, 12288, 96}, {"530b", 105, 20480, 128}, {"1t", 128, 25600, 160}};
  for (const auto& [size, layers, hidden, heads] : megatron)
    add_decoder("megatron-" + size, "Megatron-style GPT " + size + " (" + std::to_string(layers) + " layers, hidden " + std::to_string(hidden) + "), seq 2048",
        gpt_spec(layers, hidden, heads, 2048, 51200, 0.0));
  add_decoder("gpt", "GPT family builder: gpt:layers=L,hidden=H,heads=A[,ffn=F,seq=S,vocab=V,dropout=P]", gpt_spec(12, 768, 12, 1024, 50257, 0.1));
  // Llama 2: Touvron et al. 2023b, Table 1 and the released configs (vocabulary 32000, context
  // 4096; the 70B model's grouped-query attention has 8 kv heads). Llama 3 and 3.1: Dubey et al.
  // 2024, Table 3 (vocabulary 128256, 8 kv heads; context 8192 for the training runs).
  add_decoder("llama2-7b", "Llama 2 7B (32 layers, hidden 4096, ffn 11008), seq 4096", llama_spec(32, 4096, 32, 32, 11008, 4096, 32000));
  add_decoder("llama2-13b", "Llama 2 13B (40 layers, hidden 5120, ffn 13824), seq 4096", llama_spec(40, 5120, 40, 40, 13824, 4096, 32000));
  add_decoder("llama2-70b", "Llama 2 70B (80 layers, hidden 8192, 8 kv heads, ffn 28672), seq 4096", llama_spec(80, 8192, 64, 8, 28672, 4096, 32000));
  add_decoder("llama3-8b", "Llama 3 8B (32 layers, hidden 4096, 8 kv heads, ffn 14336), seq 8192", llama_spec(32, 4096, 32, 8, 14336, 8192, 128256));
  add_decoder("llama3-70b", "Llama 3 70B (80 layers, hidden 8192, 8 kv heads, ffn 28672), seq 8192", llama_spec(80, 8192, 64, 8, 28672, 8192, 128256));
  add_decoder("llama3-405b", "Llama 3.1 405B (126 layers, hidden 16384, 8 kv heads, ffn 53248), seq 8192", llama_spec(126, 16384, 128, 8, 53248, 8192, 128256));
  // Mixtral 8x7B: Jiang et al. 2024 (Mistral 7B's layers with 8 SwiGLU experts, top 2, in every layer).
  TransformerSpec mixtral = llama_spec(32, 4096, 32, 8, 14336, 4096, 32000);
  mixtral.experts = 8, mixtral.top_k = 2;
  add_decoder("mixtral-8x7b", "Mixtral 8x7B mixture of experts (32 layers, 8 experts, top 2), seq 4096", mixtral);
  add_decoder("transformer", "Decoder builder: transformer:layers=,hidden=,heads=[,kv_heads=,ffn=,seq=,vocab=,mlp=gelu|swiglu,norm=layer|rms,"
              "position=learned|rotary,tied_head=0|1,bias=0|1,flash=0|1,experts=,top_k=,capacity_factor=,moe_every=]",
              llama_spec(32, 4096, 32, 0, 11008, 4096, 32000));  // kv_heads 0: as many as heads, whatever heads= says
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

namespace {

zoo::Settings parse_settings(std::string_view spec) {
  const std::size_t colon = spec.find(':');
  const std::string name(spec.substr(0, colon));
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
  return zoo::Settings(name, std::move(values));
}

}  // namespace

std::optional<TransformerSpec> zoo_transformer_spec(std::string_view spec) {
  const zoo::Registered* r = zoo::find(spec.substr(0, spec.find(':')));
  if (!r || !r->decoder) return std::nullopt;
  zoo::Settings settings = parse_settings(spec);
  return r->decoder(settings);
}

Graph build_zoo_network(std::string_view spec, const NetworkOptions& options) {
  const std::size_t colon = spec.find(':');
  const std::string name(spec.substr(0, colon));
  const zoo::Registered* r = zoo::find(name);
  if (!r) throw InputError("unknown network '" + name + "' (see `dnnperf net list`)");
  zoo::Settings settings = parse_settings(spec);
  if (options.batch <= 0) throw InputError("batch must be positive, is " + std::to_string(options.batch));
  if (options.sequence && *options.sequence <= 0) throw InputError("sequence must be positive, is " + std::to_string(*options.sequence));
  if (r->entry.takes_sequence && options.image)
    throw InputError("network '" + name + "' is a transformer: it takes a sequence length (--seq), not an image size");
  if (!r->entry.takes_sequence && options.sequence)
    throw InputError("network '" + name + "' takes an image size (--input), not a sequence length");
  return r->build(settings, options);
}

}  // namespace dnnperf
