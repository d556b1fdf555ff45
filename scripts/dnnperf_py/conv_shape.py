"""A convolution's parameters as dnnperf's records name them (docs/measurement-format.md)."""

CONV_PARAMS = ("n", "c", "h", "w", "k", "r", "s", "pad_h", "pad_w", "stride_h", "stride_w", "dilation_h", "dilation_w", "groups")


def conv_output(p):
    """Output height and width of convolution parameters `p`."""
    oh = (p["h"] + 2 * p["pad_h"] - p["dilation_h"] * (p["r"] - 1) - 1) // p["stride_h"] + 1
    ow = (p["w"] + 2 * p["pad_w"] - p["dilation_w"] * (p["s"] - 1) - 1) // p["stride_w"] + 1
    return oh, ow
