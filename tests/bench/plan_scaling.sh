#!/usr/bin/env bash
# How plan + verify grows with the program: `pteshare plan --share-auto`
# (which plans, verifies and prints, writing nothing) on `pte-synth llm`
# programs of growing depth, CPU seconds (user + sys, median of REPS runs)
# per build directory side by side, and the time exponent between
# successive sizes and over the whole range (log t2/t1 / log n2/n1). The
# target of issue 14: an exponent of at most 1.2 from 128 to 1024 layers.
#
# Usage: tests/bench/plan_scaling.sh BUILD_DIR [BUILD_DIR...] (default build-bench)
#        LAYERS="128 256 512 1024" (default), REPS=N (default 1).
# Every BUILD_DIR needs tools/pteshare; programs are made by the first one's
# tools/pte-synth, so every build plans the same bytes.
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/../.." && pwd)
BUILDS=("$@")
[[ ${#BUILDS[@]} -gt 0 ]] || BUILDS=("$ROOT/build-bench")
LAYERS=${LAYERS:-128 256 512 1024}
REPS=${REPS:-1}
for build in "${BUILDS[@]}"; do
  [[ -x $build/tools/pteshare ]] || { echo "plan_scaling: $build/tools/pteshare not built" >&2; exit 2; }
done
SYNTH=${BUILDS[0]}/tools/pte-synth
[[ -x $SYNTH ]] || { echo "plan_scaling: $SYNTH not built" >&2; exit 2; }

WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT

# Median CPU seconds (user + sys) of REPS runs of "$@".
median_cpu() {
  local times=()
  for ((i = 0; i < REPS; i++)); do
    /usr/bin/time -f "%U %S" -o "$WORK/time" "$@" >/dev/null 2>&1 || true
    times+=("$(awk '{ printf "%.3f", $1 + $2 }' "$WORK/time")")
  done
  printf '%s\n' "${times[@]}" | sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'
}

declare -A cpu
for layers in $LAYERS; do
  file=$WORK/llm$layers.pte
  "$SYNTH" llm --layers "$layers" --named -o "$file" >/dev/null
  for build in "${BUILDS[@]}"; do
    cpu[$build,$layers]=$(median_cpu "$build/tools/pteshare" plan "$file" --share-auto)
    echo "plan_scaling: $(basename "$build"), $layers layers: ${cpu[$build,$layers]} CPU s" >&2
  done
  rm -f "$file"
done

exponent() { awk -v a="$1" -v b="$2" -v n="$3" -v m="$4" \
  'BEGIN { if (a > 0 && b > 0) printf "%.2f", log(b / a) / log(m / n); else print "-" }'; }

printf '| layers |'
for build in "${BUILDS[@]}"; do printf ' %s CPU s | exponent |' "$(basename "$build")"; done
printf '\n|---:|'
for build in "${BUILDS[@]}"; do printf -- '---:|---:|'; done
printf '\n'
previous=
for layers in $LAYERS; do
  printf '| %s |' "$layers"
  for build in "${BUILDS[@]}"; do
    e=-
    [[ -n $previous ]] && e=$(exponent "${cpu[$build,$previous]}" "${cpu[$build,$layers]}" "$previous" "$layers")
    printf ' %s | %s |' "${cpu[$build,$layers]}" "$e"
  done
  printf '\n'
  previous=$layers
done
first=${LAYERS%% *}
last=${LAYERS##* }
for build in "${BUILDS[@]}"; do
  echo "$(basename "$build"): exponent $first -> $last layers:" \
    "$(exponent "${cpu[$build,$first]}" "${cpu[$build,$last]}" "$first" "$last")"
done
