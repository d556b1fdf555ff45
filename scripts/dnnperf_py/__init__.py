"""Python side of dnnperf: network definitions shared with the C++ zoo, ONNX export, and (later)
the PyTorch calibration and ground-truth runners. Runs with Debian's /usr/bin/python3."""
