"""PyTorch definitions of zoo networks that torchvision does not provide.

Each mirrors its C++ builder in networks/zoo/ layer for layer, so that parameter counts, FLOPs and
measured times refer to the same network on both sides.
"""
import torch
from torch import nn


class TransformerEncoderClassifier(nn.Module):
    """networks/zoo/transformers.cc `transformer_encoder`: token and position embeddings,
    post-norm nn.TransformerEncoderLayer blocks (batch-first), mean pooling, linear classifier."""

    def __init__(self, layers=4, hidden=256, heads=4, ffn=1024, max_seq=128, vocab=10000,
                 classes=10, dropout=0.1, activation="relu"):
        super().__init__()
        self.token_embedding = nn.Embedding(vocab, hidden)
        self.position_embedding = nn.Embedding(max_seq, hidden)
        layer = nn.TransformerEncoderLayer(hidden, heads, ffn, dropout, activation=activation,
                                           batch_first=True)
        self.encoder = nn.TransformerEncoder(layer, layers, enable_nested_tensor=False)
        self.classifier = nn.Linear(hidden, classes)

    def forward(self, tokens):
        positions = torch.arange(tokens.shape[1], device=tokens.device).unsqueeze(0)
        x = self.token_embedding(tokens) + self.position_embedding(positions)
        x = self.encoder(x)
        return self.classifier(x.mean(dim=1))


def trainable_parameters(module):
    return sum(p.numel() for p in module.parameters() if p.requires_grad)
