"""ONNX graphs executed by PyTorch, node by node, for inference and for training.

dnnperf predicts ONNX files with its own importer (networks/import/onnx_import.cc); the ground
truth for the same file has to come from a framework. This module runs the importer's operator
set with torch.nn.functional, so that an ONNX network can be timed where the zoo's networks are
(scripts/torch_train.py) and executed across devices (scripts/run_schedule_torch.py).

    data = load_onnx("model.onnx")          # plain data: nodes, initializers, input, output
    model = OnnxModule(data)                # an nn.Module; float initializers become parameters
    model.train(); loss = f(model(x)); loss.backward()

The batch dimension is whatever the input carries, as dnnperf's importer overrides it; a file
whose reshapes bake in the exported batch fails at that node, named. Training follows the
module's mode, not the file's: batch normalisation normalises by the batch's statistics and
dropout drops when the module trains, as the zoo's networks do in torch_train.py.
"""
import os
import sys

import torch
import torch.nn.functional as F

# ONNX TensorProto element types -> torch dtypes (the ones exporters write for networks).
DTYPES = {1: torch.float32, 2: torch.uint8, 3: torch.int8, 6: torch.int32, 7: torch.int64, 9: torch.bool,
          10: torch.float16, 11: torch.float64, 16: torch.bfloat16}


class Node:
    """An ONNX node as plain data (name, op_type, input and output names, attributes)."""

    def __init__(self, name, op_type, inputs, outputs, attributes):
        self.name, self.op_type, self.input, self.output, self.attrs = name, op_type, inputs, outputs, attributes


def load_onnx(path):
    """The graph of an ONNX file as plain data (torch tensors, lists), so it can also be torch.save'd."""
    try:
        import onnx
        from onnx import numpy_helper
    except ImportError:
        sys.exit(f"{path}: reading .onnx needs the onnx package (python3-onnx)")

    def value(a):
        v = onnx.helper.get_attribute_value(a)
        if isinstance(v, onnx.TensorProto):
            return torch.from_numpy(numpy_helper.to_array(v).copy())
        if isinstance(v, bytes):
            return v.decode()
        return list(v) if isinstance(v, (list, tuple)) or type(v).__name__ == "RepeatedScalarContainer" else v

    try:
        proto = onnx.load(path)
    except Exception as e:  # a truncated or foreign file: name it, not protobuf's internals
        sys.exit(f"{path}: not a readable ONNX model ({e})")
    g = proto.graph
    weights = {i.name: torch.from_numpy(numpy_helper.to_array(i).copy()) for i in g.initializer}
    nodes = [Node(n.name or f"{n.op_type}_{k}", n.op_type, list(n.input), list(n.output), {a.name: value(a) for a in n.attribute})
             for k, n in enumerate(g.node)]
    inputs = [i for i in g.input if i.name not in weights]
    if len(inputs) != 1:
        sys.exit(f"{path}: {len(inputs)} graph inputs besides the initializers; one (the network's input) is supported")
    inp = inputs[0]
    tensor_type = inp.type.tensor_type
    out_type = g.output[0].type.tensor_type
    return {"nodes": [vars(n) for n in nodes], "weights": weights, "input": inp.name,
            "input_shape": [d.dim_value for d in tensor_type.shape.dim],
            "input_dtype": str(DTYPES.get(tensor_type.elem_type, torch.float32)).replace("torch.", ""),
            "output": g.output[0].name, "output_shape": [d.dim_value for d in out_type.shape.dim]}


# A bundle (`bundle`) keeps tensors up to this size with their values: shapes, indices, constants.
BUNDLE_EXACT_ELEMENTS = 4096


def bundle(onnx_path, out_path):
    """Writes an ONNX file's graph with torch.save, for machines without the onnx package (GPU
    machines lent for measurement): small tensors exactly, large weights as their shapes only,
    drawn again where the bundle is read (timing does not depend on their values)."""
    data = load_onnx(onnx_path)
    specs = {}
    for name, t in list(data["weights"].items()):
        if t.numel() > BUNDLE_EXACT_ELEMENTS and t.is_floating_point():
            specs[name] = (list(t.shape), str(t.dtype).replace("torch.", ""))
            del data["weights"][name]
    data["weight_specs"] = specs
    data["source"] = os.path.basename(onnx_path)
    torch.save(data, out_path)


def materialise(specs):
    """Seeded weights of the recorded shapes, scaled by 1/sqrt(fan-in) so activations stay finite."""
    g = torch.Generator().manual_seed(0)
    out = {}
    for name in sorted(specs):
        shape, dtype = specs[name]
        fan_in = max(1, int(torch.tensor(shape[1:]).prod().item()) if len(shape) > 1 else shape[0])
        out[name] = (torch.randn(*shape, generator=g) / fan_in ** 0.5).to(getattr(torch, dtype))
    return out


def load_graph(path):
    """An ONNX file's graph (load_onnx) or a bundle's, its weights complete either way; "source"
    names the ONNX file it came from."""
    if not path.endswith(".pt"):
        data = load_onnx(path)
        data["source"] = os.path.basename(path)
        return data
    data = torch.load(path)
    data["weights"] = dict(data["weights"])
    data["weights"].update(materialise(data.pop("weight_specs", {})))
    return data


def pads_of(a, rank=2):
    p = list(a.get("pads", [0] * (2 * rank)))
    return p[:rank], p[rank:]


def ints(t):
    """A shape-like input (tensor or list) as Python ints."""
    return [int(v) for v in (t.tolist() if isinstance(t, torch.Tensor) else t)]


def conv(node, x, w, b=None):
    a = node.attrs
    begin, end = pads_of(a)
    if begin != end:
        x = F.pad(x, (begin[1], end[1], begin[0], end[0]))
        begin = [0, 0]
    return F.conv2d(x, w, b, stride=a.get("strides", [1, 1]), padding=begin, dilation=a.get("dilations", [1, 1]), groups=a.get("group", 1))


def pool(node, x, kind):
    a = node.attrs
    begin, end = pads_of(a)
    k, s = a["kernel_shape"], a.get("strides", a["kernel_shape"])
    if begin != end:
        x = F.pad(x, (begin[1], end[1], begin[0], end[0]), value=float("-inf") if kind == "max" else 0.0)
        begin = [0, 0]
    if kind == "max":
        return F.max_pool2d(x, k, s, begin, ceil_mode=bool(a.get("ceil_mode", 0)))
    return F.avg_pool2d(x, k, s, begin, ceil_mode=bool(a.get("ceil_mode", 0)), count_include_pad=bool(a.get("count_include_pad", 0)))


def gemm(node, a_, b_, c=None):
    a = node.attrs
    if a.get("transA", 0):
        a_ = a_.t()
    if a.get("transB", 0):
        b_ = b_.t()
    y = a_ @ b_
    if a.get("alpha", 1.0) != 1.0:
        y = a["alpha"] * y
    if c is None:
        return y
    return y + (c if a.get("beta", 1.0) == 1.0 else a["beta"] * c)


def pad(node, x, pads=None, value=None, *rest):
    a = node.attrs
    if a.get("mode", "constant") != "constant":
        raise ValueError(f"Pad mode {a['mode']} is not supported")
    p = ints(pads) if pads is not None else ints(a["pads"])
    rank = len(p) // 2
    torch_pads = []
    for d in reversed(range(rank)):
        torch_pads += [p[d], p[d + rank]]
    v = float(value.item()) if value is not None else float(a.get("value", 0.0))
    return F.pad(x, torch_pads, value=v)


def batch_norm(node, x, scale, bias, mean, var, training=False):
    # ONNX's momentum weighs the running value (default 0.9); PyTorch's weighs the new batch.
    momentum = 1.0 - node.attrs.get("momentum", 0.9)
    return F.batch_norm(x, mean, var, scale, bias, training, momentum, node.attrs.get("epsilon", 1e-5))


def dropout(node, x, ratio=None, training_mode=None, training=False):
    p = float(ratio.item()) if ratio is not None else float(node.attrs.get("ratio", 0.5))
    return F.dropout(x, p, training) if p > 0 else x


def clip(node, x, lo=None, hi=None):
    lo = lo.item() if lo is not None else node.attrs.get("min")
    hi = hi.item() if hi is not None else node.attrs.get("max")
    if lo is not None and hi is not None and x.is_floating_point():
        # What an exporter writes for ReLU6, and what the network ran: hardtanh. PyTorch 1.13's
        # clamp is the same function with a backward 5-7x slower on a CPU (forward and backward of
        # [4, 96, 32, 32]: 2.7 ms against 0.4), which made MobileNetV2's ONNX export train 15%
        # slower than the network it came from.
        return F.hardtanh(x, float(lo), float(hi))
    return torch.clamp(x, lo, hi)


def div(node, a, b):
    if not a.is_floating_point() and not b.is_floating_point():
        return torch.div(a, b, rounding_mode="trunc")  # ONNX divides integers as C does
    return a / b


def reshape(node, x, shape):
    target = ints(shape)
    if not node.attrs.get("allowzero", 0):
        target = [x.shape[i] if v == 0 else v for i, v in enumerate(target)]
    return x.reshape(target)


def gather(node, data, indices):
    axis = node.attrs.get("axis", 0) % data.dim()
    if axis == 0 and indices.dim() > 0 and data.is_floating_point() and data.dim() == 2:
        return F.embedding(indices, data)  # an embedding lookup: the kernel PyTorch's nn.Embedding runs
    return data[(slice(None),) * axis + (indices,)]


def axes_of(node, axes_input, rank):
    axes = ints(axes_input) if axes_input is not None else node.attrs.get("axes")
    return None if axes is None else sorted(a % rank for a in axes)


def reduce_mean(node, x, axes=None):
    keep = bool(node.attrs.get("keepdims", 1))
    dims = axes_of(node, axes, x.dim())
    return x.mean(dim=dims, keepdim=keep) if dims else x.mean()


def squeeze(node, x, axes=None):
    dims = axes_of(node, axes, x.dim())
    if dims is None:
        return x.squeeze()
    for d in reversed(dims):
        x = x.squeeze(d)
    return x


def unsqueeze(node, x, axes=None):
    given = ints(axes) if axes is not None else node.attrs["axes"]
    rank = x.dim() + len(given)
    for d in sorted(a % rank for a in given):
        x = x.unsqueeze(d)
    return x


def slice_(node, x, starts, ends, axes=None, steps=None):
    starts, ends = ints(starts), ints(ends)
    axes = ints(axes) if axes is not None else list(range(len(starts)))
    steps = ints(steps) if steps is not None else [1] * len(starts)
    index = [slice(None)] * x.dim()
    for s, e, a, st in zip(starts, ends, axes, steps):
        if st <= 0:
            raise ValueError(f"Slice with step {st} is not supported")
        index[a % x.dim()] = slice(s, e, st)
    return x[tuple(index)]


def split(node, x, sizes=None):
    axis = node.attrs.get("axis", 0)
    sizes = ints(sizes) if sizes is not None else node.attrs.get("split")
    if sizes is None:
        parts = node.attrs.get("num_outputs", len(node.output))
        return tuple(torch.chunk(x, parts, dim=axis))
    return tuple(torch.split(x, sizes, dim=axis))


def shape(node, x):
    dims = list(x.shape)[node.attrs.get("start", 0):node.attrs.get("end", x.dim())]
    return torch.tensor(dims, dtype=torch.int64)


def constant(node):
    a = node.attrs
    if "value" in a:
        return a["value"]
    for key, dtype in (("value_float", torch.float32), ("value_floats", torch.float32), ("value_int", torch.int64), ("value_ints", torch.int64)):
        if key in a:
            return torch.tensor(a[key], dtype=dtype)
    raise ValueError(f"Constant with attributes {sorted(a)} is not supported")


def constant_of_shape(node, dims):
    value = node.attrs.get("value")
    fill = value.reshape(()) if value is not None else torch.tensor(0.0)
    return torch.full(ints(dims), fill.item(), dtype=fill.dtype)


def softmax_axis(node):
    return node.attrs.get("axis", -1)


OPS = {
    "Add": lambda n, a, b: a + b,
    "Sub": lambda n, a, b: a - b,
    "Mul": lambda n, a, b: a * b,
    "Div": div,
    "Pow": lambda n, a, b: torch.pow(a, b),
    "Neg": lambda n, x: -x,
    "Reciprocal": lambda n, x: torch.reciprocal(x),
    "Sqrt": lambda n, x: torch.sqrt(x),
    "Exp": lambda n, x: torch.exp(x),
    "Erf": lambda n, x: torch.erf(x),
    "Tanh": lambda n, x: torch.tanh(x),
    "Relu": lambda n, x: torch.relu(x),
    "Sigmoid": lambda n, x: torch.sigmoid(x),
    "HardSigmoid": lambda n, x: torch.clamp(n.attrs.get("alpha", 0.2) * x + n.attrs.get("beta", 0.5), 0.0, 1.0),
    "HardSwish": lambda n, x: F.hardswish(x),
    "Gelu": lambda n, x: F.gelu(x, approximate=n.attrs.get("approximate", "none")),
    "Clip": clip,
    "Cast": lambda n, x: x.to(DTYPES[n.attrs["to"]]),
    "Conv": conv,
    "Pad": pad,
    "MaxPool": lambda n, x: pool(n, x, "max"),
    "AveragePool": lambda n, x: pool(n, x, "avg"),
    "GlobalAveragePool": lambda n, x: x.mean(dim=tuple(range(2, x.dim())), keepdim=True),
    "GlobalMaxPool": lambda n, x: x.amax(dim=tuple(range(2, x.dim())), keepdim=True),
    "BatchNormalization": batch_norm,
    "LayerNormalization": lambda n, x, s, b=None: F.layer_norm(x, x.shape[n.attrs.get("axis", -1) % x.dim():], s, b, n.attrs.get("epsilon", 1e-5)),
    "Dropout": dropout,
    "Gemm": gemm,
    "MatMul": lambda n, a, b: torch.matmul(a, b),
    "Softmax": lambda n, x: torch.softmax(x, softmax_axis(n)),
    "LogSoftmax": lambda n, x: torch.log_softmax(x, softmax_axis(n)),
    "ReduceMean": reduce_mean,
    "Concat": lambda n, *xs: torch.cat(xs, dim=n.attrs["axis"]),
    "Flatten": lambda n, x: torch.flatten(x, n.attrs.get("axis", 1)) if n.attrs.get("axis", 1) > 0 else x.reshape(1, -1),
    "Reshape": reshape,
    "Transpose": lambda n, x: x.permute(n.attrs.get("perm", list(reversed(range(x.dim()))))),
    "Squeeze": squeeze,
    "Unsqueeze": unsqueeze,
    "Slice": slice_,
    "Split": split,
    "Gather": gather,
    "Shape": shape,
    "Size": lambda n, x: torch.tensor(x.numel(), dtype=torch.int64),
    "Identity": lambda n, x: x,
    # Shape arithmetic that exporters emit around reshapes and masks (dnnperf's importer folds
    # these into constants: networks/import/onnx_constants.cc).
    "Range": lambda n, start, limit, delta: torch.arange(start.item(), limit.item(), delta.item(), dtype=start.dtype),
    "ConstantOfShape": constant_of_shape,
    "Expand": lambda n, x, dims: x * torch.ones(ints(dims), dtype=x.dtype, device=x.device),
    "Where": lambda n, c, a, b: torch.where(c, a, b),
    "Equal": lambda n, a, b: a == b,
    "Less": lambda n, a, b: a < b,
    "Greater": lambda n, a, b: a > b,
    "Max": lambda n, *xs: xs[0] if len(xs) == 1 else torch.stack(torch.broadcast_tensors(*xs)).amax(0),
    "Min": lambda n, *xs: xs[0] if len(xs) == 1 else torch.stack(torch.broadcast_tensors(*xs)).amin(0),
    "Floor": lambda n, x: torch.floor(x),
    "Ceil": lambda n, x: torch.ceil(x),
}
# Operators whose result depends on whether the network trains.
TRAINING_DEPENDENT = {"BatchNormalization", "Dropout"}


def run_node(node, args, training=False):
    """Executes one node; returns its outputs as a tuple. Errors name the node."""
    try:
        if node.op_type in TRAINING_DEPENDENT:
            result = OPS[node.op_type](node, *args, training=training)
        else:
            result = OPS[node.op_type](node, *args)
    except Exception as e:
        shapes = ", ".join("-" if a is None else "x".join(str(d) for d in a.shape) or "scalar" for a in args)
        raise RuntimeError(f"node '{node.name}' ({node.op_type}, inputs {shapes}): {e}") from None
    return result if isinstance(result, tuple) else (result,)


def unsupported(nodes, where):
    """The first node this module cannot execute, as a message; None when all can."""
    for i, n in enumerate(nodes):
        if n.op_type not in OPS and n.op_type != "Constant":
            return f"{where}: node {i} '{n.name}' has op {n.op_type}, which PyTorch's ONNX runner here does not execute"
    return None


def learned_initializers(nodes, tensors):
    """Names of the initializers that a network trains: what PyTorch holds as nn.Parameter.

    Every floating-point tensor of more than one element but batch normalisation's running mean
    and variance: weights reach their layers through Transposes and Reshapes, so the consuming
    operator does not tell. Scalars are the constants an exporter writes (a clip's 6, a square
    root's 2), not learned.
    """
    statistics = batch_statistics(nodes)
    return {name for name, t in tensors.items() if t.is_floating_point() and t.numel() > 1 and name not in statistics}


class OnnxModule(torch.nn.Module):
    """An ONNX graph as a trainable module.

    Floating-point initializers that a layer learns (weights, biases, normalisation scales,
    embedding tables: `learned_initializers`) become parameters; the rest (batch normalisation's running
    statistics, scalar constants, shapes, indices, Constant nodes) become buffers, so that
    .to(device) moves everything a node reads.
    """

    def __init__(self, data, where="ONNX model"):
        super().__init__()
        nodes = [Node(n["name"], n["op_type"], n["input"], n["output"], n["attrs"]) for n in data["nodes"]]
        problem = unsupported(nodes, where)
        if problem:
            raise ValueError(problem)
        tensors = dict(data["weights"])
        for n in nodes:
            if n.op_type == "Constant":
                tensors[n.output[0]] = constant(n)
        self.nodes = [n for n in nodes if n.op_type != "Constant"]
        learned = learned_initializers(self.nodes, dict(data["weights"]))
        self.params = torch.nn.ParameterList()
        self.slots = {}  # initializer name -> ("p", index) or ("b", buffer name)
        for k, (name, t) in enumerate(tensors.items()):
            if t.is_floating_point() and name in learned:
                self.slots[name] = ("p", len(self.params))
                self.params.append(torch.nn.Parameter(t.clone()))
            else:
                self.register_buffer(f"c{k}", t.clone(), persistent=False)
                self.slots[name] = ("b", f"c{k}")
        self.input_name, self.output_name = data["input"], data["output"]
        self.static = static_nodes(self.nodes, {name for name, (kind, _) in self.slots.items() if kind == "b"} - batch_statistics(self.nodes))
        self.folded = {}  # (input shape, dtype, device) -> {output name: value} of the static nodes
        self.released = last_uses(self.nodes, keep={self.output_name} | set(self.slots))

    def tensor(self, name):
        kind, slot = self.slots[name]
        return self.params[slot] if kind == "p" else getattr(self, slot)

    def forward(self, x):
        # Initializers straight from the module's tables: nn.Module's attribute lookup, a few
        # microseconds a tensor, would be an interpreter's cost in every node of every step.
        params, buffers = list(self.params), self._buffers
        consts = {name: params[slot] if kind == "p" else buffers[slot] for name, (kind, slot) in self.slots.items()}
        env = {self.input_name: x}
        key = (tuple(x.shape), x.dtype, x.device)
        folded = self.folded.get(key)
        fold = {}
        if folded is not None:
            env.update(folded)
        for i, n in enumerate(self.nodes):
            if folded is not None and i in self.static:
                continue
            args = [None if not name else (consts[name] if name in consts else env[name]) for name in n.input]
            for name, value in zip(n.output, run_node(n, args, self.training)):
                env[name] = value
            if folded is None and i in self.static:
                fold.update((name, env[name]) for name in n.output)
            for name in self.released[i]:
                env.pop(name, None)
        if folded is None:
            self.folded[key] = fold
        return env[self.output_name]


def last_uses(nodes, keep):
    """For each node, the values no later node reads (but those in `keep`): what a framework's
    eager model frees as it goes. Holding every intermediate to the end of an inference would
    give each layer fresh memory to write where PyTorch's allocator hands back the block the
    layer before last freed, still in the cache: on the dev VM (2026-12-03, A/B interleaved) the
    seven composition networks' inferences at batch 4 ran 0.4-5.9% slower holding them."""
    last = {}
    for i, n in enumerate(nodes):
        for name in n.output:
            last[name] = i  # a value nothing reads goes right away
        for name in n.input:
            if name:
                last[name] = i
    released = [[] for _ in nodes]
    for name, i in last.items():
        if name not in keep:
            released[i].append(name)
    return released


def batch_statistics(nodes):
    """Batch normalisation's running mean and variance: buffers that training updates in place."""
    return {name for n in nodes if n.op_type == "BatchNormalization" for name in n.input[3:5]}


def static_nodes(nodes, constants):
    """Indices of the nodes whose outputs are fixed once the input's shape is: shapes of tensors
    and arithmetic on them and on `constants`. Exporters emit these around reshapes (torchvision's
    channel shuffle: Shape, Gather, Div, Unsqueeze, Concat before each Reshape); dnnperf's importer
    folds them into constants (networks/import/onnx_constants.cc) and a framework's own model
    computes them as Python integers, so executing them as tensor operations in every step would
    time this interpreter, not the network. OnnxModule evaluates them on the first pass at an
    input shape and reuses their values."""
    known = set(constants)
    static = set()
    for i, n in enumerate(nodes):
        if n.op_type in TRAINING_DEPENDENT:
            continue
        inputs = [name for name in n.input if name]
        if n.op_type in ("Shape", "Size") or (inputs and all(name in known for name in inputs)):
            static.add(i)
            known.update(n.output)
    return static


def example_input(data, batch, generator=None):
    """An input for the graph at `batch`: images drawn normal, token ids below the vocabulary that
    the first lookup reading the input indexes (2 where none does)."""
    dims = [batch] + [d if d > 0 else 1 for d in data["input_shape"][1:]]
    dtype = getattr(torch, data.get("input_dtype", "float32"))
    if dtype.is_floating_point:
        return torch.randn(*dims, generator=generator, dtype=dtype)
    vocabulary = 2
    for n in data["nodes"]:
        if n["op_type"] == "Gather" and len(n["input"]) > 1 and n["input"][1] == data["input"] and n["input"][0] in data["weights"]:
            vocabulary = data["weights"][n["input"][0]].shape[0]
            break
    return torch.randint(0, vocabulary, dims, generator=generator, dtype=dtype)
