#!/usr/bin/env bash
# The libraries' layers point one way: a source file may include headers of its own folder and of
# folders below it, never of one beside or above it. Fails listing every include that crosses.
#   tests/layers_test.sh [SOURCE_ROOT]
set -uo pipefail
root=${1:-$(cd "$(dirname "$0")/.." && pwd)}
# Bottom to top; folders on one line are beside each other and may not include one another.
layers=(
  "core"
  "records"
  "profile"
  "models networks"
  "fitting predictor"
  "microbench scheduler validation"
  "calibration"
  "apps"
)
declare -A rank
for i in "${!layers[@]}"; do for f in ${layers[$i]}; do rank[$f]=$i; done; done

bad=0 checked=0
for folder in "${!rank[@]}"; do
  while IFS= read -r hit; do
    file=${hit%%:*}; rest=${hit#*:}; line=${rest%%:*}
    target=$(sed -E 's/.*#include "([a-z_]+)\/.*/\1/' <<<"$rest")
    checked=$((checked + 1))
    [ "$target" = "$folder" ] && continue
    if [ -z "${rank[$target]+x}" ]; then
      echo "$file:$line: includes \"$target/...\", a folder that is no layer"; bad=1
    elif [ "${rank[$target]}" -ge "${rank[$folder]}" ]; then
      echo "$file:$line: $folder (layer ${rank[$folder]}) includes $target (layer ${rank[$target]}): layers point down only"; bad=1
    fi
  done < <(cd "$root" && grep -rnE '^\s*#\s*include "[a-z_]+/' "$folder" --include='*.h' --include='*.cc' --include='*.cu')
done
[ "$checked" -gt 100 ] || { echo "layers: only $checked includes found under $root: wrong root?"; exit 1; }
[ $bad -eq 0 ] && echo "layers: $checked includes, all pointing down"
exit $bad
