#!/usr/bin/python3
"""Writes small ONNX models as the fuzzer's ONNX seeds: torch.onnx.export of tiny networks that
use the operators the importer reads (convolution, batch norm, pooling, linear, attention's
matmuls and softmax, layer norm, GELU, reshapes), in training and inference mode, at two opsets.
Kept tiny (a few kB) so that libFuzzer's mutations stay fast.

    /usr/bin/python3 tests/fuzz/make_onnx_seeds.py OUT_DIR
"""
import os
import sys
import warnings

import torch
from torch import nn


class TinyCnn(nn.Module):
    def __init__(self):
        super().__init__()
        self.features = nn.Sequential(nn.Conv2d(3, 4, 3, padding=1), nn.BatchNorm2d(4), nn.ReLU(), nn.MaxPool2d(2),
                                      nn.Conv2d(4, 4, 3, stride=2, groups=2), nn.AdaptiveAvgPool2d(1))
        self.head = nn.Linear(4, 3)

    def forward(self, x):
        return self.head(torch.flatten(self.features(x), 1))


class TinyAttention(nn.Module):
    def __init__(self, hidden=8, heads=2):
        super().__init__()
        self.heads = heads
        self.qkv = nn.Linear(hidden, 3 * hidden)
        self.norm = nn.LayerNorm(hidden)
        self.mlp = nn.Sequential(nn.Linear(hidden, 2 * hidden), nn.GELU(), nn.Dropout(0.1), nn.Linear(2 * hidden, hidden))

    def forward(self, x):
        b, s, h = x.shape
        q, k, v = self.qkv(x).reshape(b, s, 3, self.heads, h // self.heads).permute(2, 0, 3, 1, 4)
        scores = torch.softmax(q @ k.transpose(-1, -2) / (h // self.heads) ** 0.5, dim=-1)
        x = self.norm(x + (scores @ v).transpose(1, 2).reshape(b, s, h))
        return x + self.mlp(x)


def main():
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    torch.manual_seed(0)
    cases = {"cnn": (TinyCnn(), torch.randn(1, 3, 8, 8)), "attention": (TinyAttention(), torch.randn(1, 4, 8))}
    warnings.filterwarnings("ignore")
    for name, (model, example) in cases.items():
        for opset, mode in ((13, torch.onnx.TrainingMode.TRAINING), (17, torch.onnx.TrainingMode.EVAL)):
            path = os.path.join(out, f"{name}_op{opset}.onnx")
            model.train(mode == torch.onnx.TrainingMode.TRAINING)
            torch.onnx.export(model, example, path, opset_version=opset, training=mode, do_constant_folding=False)
            print(path, os.path.getsize(path), "bytes")


if __name__ == "__main__":
    main()
