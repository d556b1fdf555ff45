# VGG-11's first classifier layer and 48-64 KiB rows at batches 4 and 16 (more.py's pair()).
import sys
sys.argv = [sys.argv[0], "none"]
exec(open(__file__.replace("vgg.py", "more.py")).read())
for m in (4, 16):
    pair(m, 25088, 4096, 0, 0, 25000, 4096, label="vgg fc1 dX")
    pair(m, 4096, 25088, 0, 1, 4096, 25000, label="vgg fc1 fwd")
    pair(m, 16384, 4096, 0, 0, 16300, 4096, label="64K row dX")
    pair(m, 12288, 4096, 0, 0, 12200, 4096, label="48K row dX")
