# Run from this folder: makes ref.json (the profile's reference kernels) first.
/usr/bin/python3 -c "import json; p=json.load(open('fresh/calibrate_profile.json')); json.dump([{'op':k['op'],'params':k['params']} for k in p['reference_kernels']], open('ref.json','w'))"
for i in 1 2; do
/usr/bin/python3 reference_fresh_process.py
for n in mobilenet_v2:32 resnet18:4; do
 /usr/bin/python3 ../../../scripts/torch_train.py --network ${n%:*} --batch ${n#*:} --input 64 --iterations 3 --reference ref.json -o /tmp/tt.json > /dev/null 2>&1
 /usr/bin/python3 -c "
import json, statistics; d=json.load(open('/tmp/tt.json')); p=json.load(open('fresh/calibrate_profile.json'))
b=[r['before_s']/k['seconds'] for r,k in zip(d['reference'],p['reference_kernels'])]; a=[r['after_s']/k['seconds'] for r,k in zip(d['reference'],p['reference_kernels'])]
print('$n in-process: before %.3f after %.3f' % (statistics.median(b), statistics.median(a)), ' '.join('%.2f'%x for x in b))"
done; done
