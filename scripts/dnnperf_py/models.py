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


class BertClassifier(nn.Module):
    """networks/zoo/transformers.cc `bert`: word, position and token-type embeddings with a layer
    norm and dropout, post-norm encoder layers (GELU, layer norm eps 1e-12), the pooler (the first
    token through a dense layer and tanh) and, for training, a 2-way classifier on it. BertModel's
    parameters: BERT-base 109,482,240, BERT-large 335,141,888."""

    def __init__(self, layers, hidden, heads, max_seq=512, vocab=30522, dropout=0.1):
        super().__init__()
        self.word_embeddings = nn.Embedding(vocab, hidden)
        self.position_embeddings = nn.Embedding(max_seq, hidden)
        self.token_type_embeddings = nn.Embedding(2, hidden)
        self.embedding_norm = nn.LayerNorm(hidden, eps=1e-12)
        self.embedding_dropout = nn.Dropout(dropout)
        layer = nn.TransformerEncoderLayer(hidden, heads, 4 * hidden, dropout, activation="gelu", layer_norm_eps=1e-12,
                                           batch_first=True)
        self.encoder = nn.TransformerEncoder(layer, layers, enable_nested_tensor=False)
        self.pooler = nn.Linear(hidden, hidden)
        self.classifier = nn.Sequential(nn.Dropout(dropout), nn.Linear(hidden, 2))

    def forward(self, tokens):
        positions = torch.arange(tokens.shape[1], device=tokens.device).unsqueeze(0)
        types = torch.zeros_like(tokens)
        x = self.word_embeddings(tokens) + self.position_embeddings(positions) + self.token_type_embeddings(types)
        x = self.encoder(self.embedding_dropout(self.embedding_norm(x)))
        return self.classifier(torch.tanh(self.pooler(x[:, 0])))


BERT = {"bert-base": dict(layers=12, hidden=768, heads=12), "bert-large": dict(layers=24, hidden=1024, heads=16)}


def trainable_parameters(module):
    return sum(p.numel() for p in module.parameters() if p.requires_grad)
