#!/bin/bash
# judge.sh PROFILE OUTDIR : the grid on both saved sets of runs (no runs), training and inference
P=$1; O=$2; mkdir -p $O
ROOT=$(git rev-parse --show-toplevel)
D=$ROOT/data/measurements/cpu-vm-2core-2026-12-02-allocator
B=$ROOT/build/bin/dnnperf
NETS=alexnet,vgg11,resnet18,resnet50,mobilenet_v2,densenet121,transformer_encoder
for set in first repeat; do
  R=$D; [ $set = repeat ] && R=$D/repeat
  $B validate --hardware $P --networks $NETS --batch 4,16,32 --input 64 --iterations 3 --json --measured $R/ground_truth > $O/train_$set.json 2>/dev/null
  $B validate --hardware $P --networks $NETS --batch 4,16,32 --input 64 --iterations 3 --inference --json --measured $R/ground_truth_inference > $O/inf_$set.json 2>/dev/null
  $B validate --hardware $P --networks inception_v3_noaux --batch 4,16,32 --input 128 --iterations 3 --json --measured $R/ground_truth > $O/inc_train_$set.json 2>/dev/null
  $B validate --hardware $P --networks inception_v3_noaux --batch 4,16,32 --input 128 --iterations 3 --inference --json --measured $R/ground_truth_inference > $O/inc_inf_$set.json 2>/dev/null
done
/usr/bin/python3 - $O <<'PY'
import json,sys,glob,os
O=sys.argv[1]
for f in ['train_first','train_repeat','inf_first','inf_repeat','inc_train_first','inc_train_repeat','inc_inf_first','inc_inf_repeat']:
    d=json.load(open(f'{O}/{f}.json'))
    cs=[c for c in d['cases'] if c.get('status')=='ok']
    mb=[c for c in cs if c['network']=='mobilenet_v2']
    print('%-18s MAPE %5.1f  inside %d/%d  mbv2 %s' % (f, d['absolute_error_percent']['mean'] if isinstance(d['absolute_error_percent'],dict) else d['absolute_error_percent'], sum(bool(c['inside_interval']) for c in cs), len(cs), ' '.join('%+.0f'%c['error_percent'] for c in mb)))
PY
