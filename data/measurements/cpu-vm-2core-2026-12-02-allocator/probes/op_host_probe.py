import sys; sys.path.insert(0, '/work/main/scripts')
import torch
torch.set_num_threads(1)
from torch import nn
from dnnperf_py import op_host
for ch in (16, 8, 4, 1):
    op_host.OPS['conv_c%d' % ch] = op_host._module(lambda ch=ch: nn.Conv2d(ch, ch, 3, padding=1), (2, ch, 8, 8))
    op_host.OPS['conv1x1_c%d' % ch] = op_host._module(lambda ch=ch: nn.Conv2d(ch, ch, 1), (2, ch, 8, 8))
for k in ['conv_c16', 'conv_c8', 'conv_c4', 'conv_c1', 'conv1x1_c16', 'conv1x1_c4', 'conv1x1_c1', 'batch_norm', 'linear', 'relu6']:
    f, b = op_host.measure(k, 'cpu')
    print('%-12s fwd %.1f us  bwd %.1f us' % (k, 1e6 * f, 1e6 * b))
