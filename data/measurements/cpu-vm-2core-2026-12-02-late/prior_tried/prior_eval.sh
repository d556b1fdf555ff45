#!/bin/bash
# prior_eval.sh LAMBDA : refit both calibrations (with late) with the prior, judge on saved runs, and measure the fit's variance
L=$1; O=/tmp/late/prior_$L; mkdir -p $O
export DNNPERF_PRIOR=$L
B=/work/main/build/bin/dnnperf
C=/tmp/s26/calibrate_profile.calibration
$B fit $C/*.jsonl --hardware cpu --steps $C/steps --step-networks $C/networks -o $O/now.json > $O/now_fit.log 2>&1
$B fit /tmp/s26/prev_late/*.jsonl --hardware cpu --steps /work/main/data/measurements/cpu-vm-2core-2026-12-02-allocator/steps --step-networks /tmp/s25/calibrate_profile.calibration/networks -o $O/prev.json > $O/prev_fit.log 2>&1
(cd /tmp/s26 && ./judge_new.sh $O/now.json $O/judged_now > $O/judged_now.txt)
/tmp/late/judge.sh $O/prev.json $O/judged_prev > $O/judged_prev.txt
/usr/bin/python3 /tmp/late/spread.py $O/judged_now/train.json $O/judged_now/inf.json $O/judged_prev/train_first.json $O/judged_prev/train_repeat.json $O/judged_prev/inf_first.json $O/judged_prev/inf_repeat.json > $O/spread.txt
N=alexnet,vgg11,resnet18,resnet50,mobilenet_v2,densenet121,transformer_encoder
/usr/bin/python3 /work/main/scripts/fit_stability.py $C --networks $N --batch 4 --input 64 --fits 5 -o $O/stab_now > $O/stab_now.txt 2>&1
/usr/bin/python3 /work/main/scripts/fit_stability.py /tmp/s26/prev_late --networks $N --batch 4 --input 64 --fits 5 -o $O/stab_prev > $O/stab_prev.txt 2>&1
echo "== lambda $L"
grep -A9 "^class  " $O/now_fit.log | grep conv | grep analytic
grep "step spread" $O/now_fit.log $O/prev_fit.log
cat $O/judged_now.txt $O/judged_prev.txt $O/spread.txt
tail -10 $O/stab_now.txt | head -8; tail -10 $O/stab_prev.txt | head -8
