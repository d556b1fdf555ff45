#!/usr/bin/env bash
# End-to-end checks of `dnnperf net`: output, JSON fields and exit codes on bad input.
set -u
bin=$1
src=$2
fail=0
check() {  # check NAME EXPECTED_RC PATTERN -- command...
  local name=$1 rc_expected=$2 pattern=$3
  shift 4
  local out rc
  out=$("$@" 2>&1)
  rc=$?
  if [ "$rc" -ne "$rc_expected" ] || ! grep -qE -- "$pattern" <<<"$out"; then
    echo "FAIL $name: rc=$rc (expected $rc_expected), output did not match /$pattern/:"
    echo "$out" | head -20
    fail=1
  else
    echo "ok   $name"
  fi
}
check list 0 'resnet50 +ResNet-50' -- "$bin" net list
check show_table 0 'parameters +25,557,032' -- "$bin" net show resnet50
check show_json 0 '"params": 25557032' -- "$bin" net show resnet50 --json
check show_json_layers 0 '"name": "layer4.2.conv3"' -- "$bin" net show resnet50 --json
check show_file 0 'tiny_cnn' -- "$bin" net show "$src/data/networks/tiny_cnn.json" --batch 2
check help 0 'Usage' -- "$bin" net show --help
check unknown_network 1 "error: unknown network 'resnet5'" -- "$bin" net show resnet5
check missing_file 1 'no such file' -- "$bin" net show /nonexistent/model.onnx
check bad_batch 105 'batch' -- "$bin" net show resnet50 --batch -3
check malformed_json 1 'malformed.json: not valid JSON' -- "$bin" net show "$src/tests/import/data/malformed.json"
check no_subcommand 106 'subcommand' -- "$bin" net
# The JSON is one parseable object with the documented fields.
"$bin" net show gpt2 --seq 128 --json | /usr/bin/python3 -c '
import json, sys
j = json.load(sys.stdin)
t = j["totals"]
assert t["params"] == 124439808, t["params"]
assert t["forward_flops"] > 0 and t["backward_flops"] > t["forward_flops"]
assert len(j["layers"]) > 100 and all("backward_flops" in l for l in j["layers"])
' && echo "ok   json_fields" || { echo "FAIL json_fields"; fail=1; }
exit $fail
