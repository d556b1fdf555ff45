"""A step's convolutions as torch.profiler saw them, matched to the kernels dnnperf lists.

The profiler records each op's input shapes, not its strides or padding: a step's convolution is
known by its input and filter sizes (and, for a backward, the gradient's height and width), and a
listed kernel is matched to it only where no other listed kernel of the same direction has the
same sizes.
"""
from .conv_shape import conv_output

# The framework's entry points, whose total times hold everything a call costs (dispatch, the
# library's kernel, a fallback path's im2col): what an isolated torch.nn.functional.conv2d or
# aten.convolution_backward call is timed as.
FORWARD_ENTRY = "aten::conv2d"
BACKWARD_ENTRY = "aten::convolution_backward"


def conv_key(p):
    """Record parameters `p` as the profiler sees the shape: input, filter and output sizes."""
    oh, ow = conv_output(p)
    x = (p["n"], p["c"], p["h"], p["w"])
    w = (p["k"], p["c"] // p["groups"], p["r"], p["s"])
    return x, w, (oh, ow)


def step_convolutions(events, steps):
    """{(direction, (input, filter, output hw or None)): [calls per step, seconds per call]} from
    torch.profiler's key_averages(group_by_input_shape=True) over `steps` steps; direction is
    "forward" or "backward" (a backward computes the data and filter gradients in one call)."""
    found = {}
    for e in events:
        if e.key not in (FORWARD_ENTRY, BACKWARD_ENTRY) or not e.count:
            continue
        shapes = [s for s in e.input_shapes if s]
        backward = e.key == BACKWARD_ENTRY
        # backward: grad_output, input, weight; forward: input, weight (bias)
        x, w = (shapes[1], shapes[2]) if backward else (shapes[0], shapes[1])
        out_hw = tuple(shapes[0][2:4]) if backward else None
        entry = found.setdefault(("backward" if backward else "forward", (tuple(x), tuple(w), out_hw)), [0.0, 0.0])
        # Several groups may share a key (a bias or none): calls add, time per call is their mean.
        calls = e.count / steps
        seconds = e.cpu_time_total * 1e-6 / e.count
        entry[1] = (entry[0] * entry[1] + calls * seconds) / (entry[0] + calls)
        entry[0] += calls
    return found


def kernel_table(kernels):
    """Listed kernels ({"op", "params"}) by op and shape key, for match()."""
    table = {}
    for k in kernels:
        if k["op"].startswith("conv_"):
            table.setdefault(k["op"], {}).setdefault(conv_key(k["params"]), []).append(k)
    return table


def match(table, direction, key):
    """The listed kernels a step's convolution ran: one forward, or the backward's data and filter
    gradients (the filter's alone for a network's first layer, whose input needs no gradient);
    None where none is listed, "ambiguous" where several listed kernels have these sizes."""
    x, w, out_hw = key
    ops = ("conv_forward",) if direction == "forward" else ("conv_backward_data", "conv_backward_filter")
    matched = []
    for op in ops:
        candidates = [c for k, cs in table.get(op, {}).items()
                      if k[0] == x and k[1] == w and (out_hw is None or k[2] == out_hw) for c in cs]
        if len(candidates) > 1:
            return "ambiguous"
        matched += candidates
    return matched or None
