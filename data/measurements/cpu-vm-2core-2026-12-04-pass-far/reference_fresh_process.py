import sys, json, statistics
sys.path.insert(0, "../../../scripts")
import torch_train  # allocator policy
import torch
torch.set_num_threads(1)
p = json.load(open("fresh/calibrate_profile.json"))
ks = [{"op": k["op"], "params": k["params"]} for k in p["reference_kernels"]]
t = torch_train.time_reference(ks, torch.device("cpu"))
r = [a / k["seconds"] for a, k in zip(t, p["reference_kernels"])]
print("fresh process: median ratio %.3f" % statistics.median(r), " ".join("%.2f" % x for x in r))
