#!/bin/bash
# judge_new.sh PROFILE OUTDIR : this session's grid runs (ground_truth[_inference]/), priced by PROFILE, no runs
P=$1; O=$2; mkdir -p $O
B=${DNNPERF:-$(git -C "$(dirname "$0")" rev-parse --show-toplevel 2>/dev/null || echo /work/main)/build/bin/dnnperf}
NETS=alexnet,vgg11,resnet18,resnet50,mobilenet_v2,densenet121,transformer_encoder
$B validate --hardware $P --networks $NETS --batch 4,16,32 --input 64 --iterations 3 --json --measured ground_truth > $O/train.json 2>/dev/null
$B validate --hardware $P --networks $NETS --batch 4,16,32 --input 64 --iterations 3 --inference --json --measured ground_truth_inference > $O/inf.json 2>/dev/null
$B validate --hardware $P --networks inception_v3_noaux --batch 4,16,32 --input 128 --iterations 3 --json --measured ground_truth > $O/inc_train.json 2>/dev/null
$B validate --hardware $P --networks inception_v3_noaux --batch 4,16,32 --input 128 --iterations 3 --inference --json --measured ground_truth_inference > $O/inc_inf.json 2>/dev/null
/usr/bin/python3 - $O <<'PY'
import json,sys
O=sys.argv[1]
for f in ['train','inf','inc_train','inc_inf']:
    d=json.load(open(f'{O}/{f}.json'))
    cs=[c for c in d['cases'] if c.get('status')=='ok']
    b4=[c for c in cs if c['batch']==4]
    print('%-10s MAPE %5.1f (drift-adjusted %5.1f)  inside %d/%d  batch 4: %s' % (f, d['absolute_error_percent']['mean'], d.get('drift_adjusted_error_percent',{}).get('mean',float('nan')), sum(bool(c['inside_interval']) for c in cs), len(cs), ' '.join('%s %+.0f'%(c['network'][:6],c['error_percent']) for c in b4)))
PY
