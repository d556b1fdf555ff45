#include "networks/import/json_network.h"

#include <fstream>
#include <map>

#include <nlohmann/json.hpp>

#include "core/common/error.h"
#include "networks/zoo/transformer_spec.h"
#include "networks/zoo/zoo.h"
#include "core/common/json_reader.h"
#include "core/graph/network_builder.h"

namespace dnnperf {
namespace {

using nlohmann::json;

/// A layer's fields, besides the name, op and inputs every layer has.
class LayerReader : public JsonObjectReader {
 public:
  LayerReader(const json& layer, std::string where) : JsonObjectReader(layer, std::move(where)) {
    has("name");
    has("op");
    has("inputs");
  }
};

OpAttrs read_attrs(OpKind kind, LayerReader& r) {
  OpAttrs a;
  switch (op_family(kind)) {
    case OpFamily::convolution: {
      a.out_features = r.integer("out_channels", std::nullopt);
      a.kernel = r.pair("kernel", {1, 1}, true);
      a.stride = r.pair("stride", {1, 1});
      a.dilation = r.pair("dilation", {1, 1});
      a.groups = r.integer("groups", 1);
      a.bias = r.boolean("bias", true);
      const auto pad = r.integers("padding", false);
      if (pad.size() == 1) a.pad_begin = a.pad_end = {pad[0], pad[0]};
      else if (pad.size() == 2) a.pad_begin = a.pad_end = {pad[0], pad[1]};
      else if (pad.size() == 4) a.pad_begin = {pad[0], pad[1]}, a.pad_end = {pad[2], pad[3]};
      else if (!pad.empty()) r.fail("padding", "must be an integer or a list of 2 or 4 integers");
      break;
    }
    case OpFamily::gemm:
      if (kind == OpKind::linear) {
        a.out_features = r.integer("out_features", std::nullopt);
        a.bias = r.boolean("bias", true);
      }
      break;
    case OpFamily::pooling:
      if (kind == OpKind::adaptive_avg_pool2d || kind == OpKind::adaptive_max_pool2d) {
        a.output_size = r.pair("output_size", {1, 1});
        break;
      }
      a.kernel = r.pair("kernel", {1, 1}, true);
      a.stride = r.pair("stride", a.kernel);
      a.pad_begin = a.pad_end = r.pair("padding", {0, 0});
      a.ceil_mode = r.boolean("ceil_mode", false);
      if (kind == OpKind::avg_pool2d) a.count_include_pad = r.boolean("count_include_pad", true);
      else a.dilation = r.pair("dilation", {1, 1});
      break;
    case OpFamily::normalization:
      a.eps = r.real("eps", 1e-5);
      if (kind == OpKind::layer_norm || kind == OpKind::rms_norm) a.normalized_dims = r.integer("normalized_dims", 1);
      if (kind == OpKind::layer_norm) a.bias = r.boolean("bias", true);
      break;
    case OpFamily::unary:
      if (kind == OpKind::cast) {
        const std::string to = r.text("to");
        const auto dtype = parse_dtype(to);
        if (!dtype) r.fail("to", "names no known dtype: '" + to + "'");
        a.to = *dtype;
      }
      break;
    case OpFamily::reduction:
      if (kind == OpKind::reduce_mean) {
        a.axes = r.integers("axes", false);
        a.keepdims = r.boolean("keepdims", true);
      } else if (kind != OpKind::weighted_sum) {
        a.axis = r.integer("axis", -1);
      }
      break;
    case OpFamily::regularization:
      a.p = r.real("p", 0.5);
      break;
    case OpFamily::layout:
      switch (kind) {
        case OpKind::concat: a.axis = r.integer("axis", 1); break;
        case OpKind::split: a.axis = r.integer("axis", 1); a.split_sizes = r.integers("sizes", true); break;
        case OpKind::flatten: a.axis = r.integer("axis", 1); break;
        case OpKind::reshape: a.shape = r.integers("shape", true); break;
        case OpKind::transpose: a.perm = r.integers("perm", true); break;
        default:  // slice
          a.axis = r.integer("axis", std::nullopt);
          a.start = r.integer("start", 0);
          a.end = r.integer("end", std::nullopt);
          a.step = r.integer("step", 1);
          break;
      }
      break;
    case OpFamily::embedding:
      a.num_embeddings = r.integer("num_embeddings", std::nullopt);
      a.embedding_dim = r.integer("embedding_dim", std::nullopt);
      break;
    case OpFamily::attention:
      a.heads = r.integer("heads", std::nullopt);
      a.p = r.real("dropout", 0.0);
      a.causal = r.boolean("causal", false);
      a.bias = r.boolean("bias", true);
      a.kv_heads = r.integer("kv_heads", 0);
      a.head_dim = r.integer("head_dim", 0);
      a.flash = r.boolean("flash", false);
      a.rotary = r.boolean("rotary", false);
      break;
    case OpFamily::mixture:
      a.experts = r.integer("experts", std::nullopt);
      a.local_experts = r.integer("local_experts", 0);
      a.top_k = r.integer("top_k", 1);
      a.capacity_factor = r.real("capacity_factor", 1.0);
      a.out_features = r.integer("ffn", std::nullopt);
      a.gated = r.boolean("gated", false);
      break;
    case OpFamily::binary:
    case OpFamily::loss:
      break;
  }
  return a;
}

const json& member(const json& object, const char* key, const std::string& where) {
  if (!object.contains(key)) throw InputError(where + ": field '" + key + "' is required");
  return object.at(key);
}

std::string name_of(const json& object, const std::string& where) {
  const json& name = member(object, "name", where);
  if (!name.is_string() || name.get<std::string>().empty())
    throw InputError(where + ": field 'name' must be a non-empty string");
  return name.get<std::string>();
}

}  // namespace

Graph network_from_json(const json& doc, const std::string& source, const ImportOptions& options) {
  if (!doc.is_object()) throw InputError(source + ": a network must be a JSON object");
  if (is_transformer_document(doc)) {
    NetworkOptions o;
    o.batch = options.batch.value_or(1);
    return build_transformer(transformer_spec_from_json(doc, source), o);
  }
  for (auto it = doc.begin(); it != doc.end(); ++it)
    if (it.key() != "format" && it.key() != "version" && it.key() != "name" && it.key() != "inputs" &&
        it.key() != "layers" && it.key() != "output")
      throw InputError(source + ": unknown top-level field '" + it.key() + "'");
  if (doc.contains("format") && doc["format"] != "dnnperf.network")
    throw InputError(source + ": field 'format' must be \"dnnperf.network\", is " + doc["format"].dump());
  if (doc.contains("version") && doc["version"] != 1)
    throw InputError(source + ": field 'version' must be 1, is " + doc["version"].dump());
  std::string network_name = "network";
  if (doc.contains("name")) {
    if (!doc["name"].is_string()) throw InputError(source + ": field 'name' must be a string");
    network_name = doc["name"].get<std::string>();
  }
  NetworkBuilder b(network_name);
  std::map<std::string, int> tensors;  // name -> tensor index

  const json& inputs = member(doc, "inputs", source);
  if (!inputs.is_array() || inputs.empty()) throw InputError(source + ": field 'inputs' must be a non-empty list");
  for (std::size_t i = 0; i < inputs.size(); ++i) {
    const std::string where = source + ": inputs[" + std::to_string(i) + "]";
    const json& in = inputs[i];
    if (!in.is_object()) throw InputError(where + " must be an object");
    const std::string name = name_of(in, where);
    JsonObjectReader r(in, where + " '" + name + "'");
    r.has("name");
    std::vector<std::int64_t> dims = r.integers("shape", true);
    if (dims.empty()) r.fail("shape", "must not be empty");
    for (std::int64_t d : dims)
      if (d <= 0) r.fail("shape", "must hold positive sizes, is " + in["shape"].dump());
    if (options.batch) dims[0] = *options.batch;
    DType dtype = DType::f32;
    if (in.contains("dtype")) {
      const std::string text = r.text("dtype");
      const auto parsed = parse_dtype(text);
      if (!parsed) r.fail("dtype", "names no known dtype: '" + text + "'");
      dtype = *parsed;
    }
    r.check_unknown();
    if (tensors.count(name)) throw InputError(where + ": name '" + name + "' is used twice");
    try {
      tensors[name] = b.input(name, TensorShape(dims), dtype);
    } catch (const InputError& e) {
      throw with_context(where, e);
    }
  }

  const json& layers = member(doc, "layers", source);
  if (!layers.is_array() || layers.empty()) throw InputError(source + ": field 'layers' must be a non-empty list");
  Graph::check_op_count(static_cast<std::int64_t>(layers.size()), source + ": field 'layers'");
  // Layers may be listed in any order: sort them so each comes after the layers it reads.
  std::vector<std::string> names(layers.size());
  std::map<std::string, std::size_t> producer;
  std::vector<std::vector<std::string>> reads(layers.size());
  for (std::size_t i = 0; i < layers.size(); ++i) {
    const std::string where = source + ": layers[" + std::to_string(i) + "]";
    if (!layers[i].is_object()) throw InputError(where + " must be an object");
    names[i] = name_of(layers[i], where);
    const json& in = member(layers[i], "inputs", where + " '" + names[i] + "'");
    if (!in.is_array() || in.empty()) throw InputError(where + " '" + names[i] + "': field 'inputs' must be a non-empty list of names");
    for (const json& ref : in) {
      if (!ref.is_string()) throw InputError(where + " '" + names[i] + "': field 'inputs' must hold names, has " + ref.dump());
      reads[i].push_back(ref.get<std::string>());
    }
    if (tensors.count(names[i]) || producer.count(names[i]))
      throw InputError(where + ": name '" + names[i] + "' is used twice");
    producer[names[i]] = i;
  }
  const auto base_name = [](const std::string& ref) {
    const std::size_t colon = ref.rfind(':');
    return colon == std::string::npos ? ref : ref.substr(0, colon);
  };
  std::vector<int> pending(layers.size(), 0);
  std::vector<std::vector<std::size_t>> dependents(layers.size());
  for (std::size_t i = 0; i < layers.size(); ++i)
    for (const std::string& ref : reads[i]) {
      if (tensors.count(ref)) continue;
      const auto it = producer.find(base_name(ref));
      if (it == producer.end())
        throw InputError(source + ": layer '" + names[i] + "': input '" + ref + "' names no input or layer");
      ++pending[i];
      dependents[it->second].push_back(i);
    }
  std::vector<std::size_t> order;
  for (std::size_t i = 0; i < layers.size(); ++i)
    if (pending[i] == 0) order.push_back(i);
  for (std::size_t head = 0; head < order.size(); ++head)
    for (std::size_t d : dependents[order[head]])
      if (--pending[d] == 0) order.push_back(d);
  if (order.size() != layers.size()) {
    for (std::size_t i = 0; i < layers.size(); ++i)
      if (pending[i] > 0) throw InputError(source + ": the layers form a cycle through layer '" + names[i] + "'");
  }

  for (std::size_t i : order) {
    const std::string where = source + ": layer '" + names[i] + "'";
    const json& layer = layers[i];
    LayerReader r(layer, where);
    const std::string op_name = r.text("op");
    const auto kind = parse_op_kind(op_name);
    if (!kind) throw InputError(where + ": unknown op '" + op_name + "'");
    const OpAttrs attrs = read_attrs(*kind, r);
    r.check_unknown();
    std::vector<int> in;
    for (const std::string& ref : reads[i]) {
      const auto it = tensors.find(ref);
      if (it == tensors.end())
        throw InputError(where + ": input '" + ref + "' is not an output of layer '" + base_name(ref) + "'");
      in.push_back(it->second);
    }
    try {
      const auto outputs = b.add_layer(*kind, attrs, std::move(in), names[i]);
      if (outputs.size() == 1) tensors[names[i]] = outputs[0];
      for (std::size_t o = 0; o < outputs.size(); ++o) tensors[names[i] + ":" + std::to_string(o)] = outputs[o];
    } catch (const InputError& e) {
      throw with_context(source, e);
    }
  }
  if (doc.contains("output")) {
    const json& out = doc["output"];
    if (!out.is_string() || !tensors.count(out.get<std::string>()))
      throw InputError(source + ": field 'output' must name a layer, is " + out.dump());
    b.set_output(tensors[out.get<std::string>()]);
  }
  return std::move(b).finish();
}

Graph load_json_network(const std::string& path, const ImportOptions& options) { return network_from_json(read_json_file(path), path, options); }

}  // namespace dnnperf
