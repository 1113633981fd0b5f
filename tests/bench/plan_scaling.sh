#!/usr/bin/env bash
# How plan + verify grows with the program: `pteshare plan --share-auto`
# (which plans, verifies and prints, writing nothing) on `pte-synth llm`
# programs of growing depth, CPU seconds (user + sys, median of REPS runs)
# per build directory side by side, and the time exponent between
# successive sizes and over the whole range (log t2/t1 / log n2/n1). The
# target of issue 14: an exponent of at most 1.2 from 128 to 1024 layers.
# Then the same for one deeper program whose methods have 50,000 planned
# tensors or more each (issue 14: plan + verify of such a method within 2 s
# CPU; `plan` verifies both layouts, so it does that twice per method).
#
# Usage: tests/bench/plan_scaling.sh BUILD_DIR [BUILD_DIR...] (default build-bench)
#        LAYERS="128 256 512 1024" (default), REPS=N (default 1),
#        DEEP_LAYERS=1316 (default; 50,019 planned tensors per method; 0: skip).
# Every BUILD_DIR needs tools/pteshare; programs are made by the first one's
# tools/pte-synth, so every build plans the same bytes.
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/../.." && pwd)
BUILDS=("$@")
[[ ${#BUILDS[@]} -gt 0 ]] || BUILDS=("$ROOT/build-bench")
LAYERS=${LAYERS:-128 256 512 1024}
REPS=${REPS:-1}
DEEP_LAYERS=${DEEP_LAYERS:-1316}
for build in "${BUILDS[@]}"; do
  [[ -x $build/tools/pteshare ]] || { echo "plan_scaling: $build/tools/pteshare not built" >&2; exit 2; }
done
SYNTH=${BUILDS[0]}/tools/pte-synth
[[ -x $SYNTH ]] || { echo "plan_scaling: $SYNTH not built" >&2; exit 2; }

WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT

# CPU seconds (user + sys) of one run of "$@", to the millisecond: the
# `times` builtin of a subshell reports its children (/usr/bin/time rounds
# to 10 ms, a fifth of the smallest program's time).
cpu_of() {
  (
    "$@" >/dev/null 2>&1 || true
    times
  ) | awk 'NR == 2 { split($1, u, /[ms]/); split($2, s, /[ms]/); printf "%.3f", u[1] * 60 + u[2] + s[1] * 60 + s[2] }'
}

# Median CPU seconds of REPS runs of "$@".
median_cpu() {
  local times=()
  for ((i = 0; i < REPS; i++)); do times+=("$(cpu_of "$@")"); done
  printf '%s\n' "${times[@]}" | sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'
}

# A build's name in the table: its folder, with the parent's when the
# folder is just "build" (two worktrees side by side).
label() {
  local path name
  path=$(cd "$1" && pwd)
  name=$(basename "$path")
  [[ $name == build ]] && name="$(basename "$(dirname "$path")")/$name"
  echo "$name"
}

# Planned tensors per method of FILE, as `plan` counts them (each distinct
# count once, comma-grouped as plan prints them).
planned_per_method() {
  "${BUILDS[0]}/tools/pteshare" plan "$1" --share-auto |
    awk '/planned tensors move/ { print $(NF - 3) }' | sort -un | paste -sd ' '
}

declare -A cpu tensors
for layers in $LAYERS; do
  file=$WORK/llm$layers.pte
  "$SYNTH" llm --layers "$layers" --named -o "$file" >/dev/null
  tensors[$layers]=$(planned_per_method "$file")
  for build in "${BUILDS[@]}"; do
    cpu[$build,$layers]=$(median_cpu "$build/tools/pteshare" plan "$file" --share-auto)
    echo "plan_scaling: $(label "$build"), $layers layers: ${cpu[$build,$layers]} CPU s" >&2
  done
  rm -f "$file"
done

exponent() { awk -v a="$1" -v b="$2" -v n="$3" -v m="$4" \
  'BEGIN { if (a > 0 && b > 0) printf "%.2f", log(b / a) / log(m / n); else print "-" }'; }

printf '| layers | planned tensors per method |'
for build in "${BUILDS[@]}"; do printf ' %s CPU s | exponent |' "$(label "$build")"; done
printf '\n|---:|---:|'
for build in "${BUILDS[@]}"; do printf -- '---:|---:|'; done
printf '\n'
previous=
for layers in $LAYERS; do
  printf '| %s | %s |' "$layers" "${tensors[$layers]}"
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
  echo "$(label "$build"): exponent $first -> $last layers:" \
    "$(exponent "${cpu[$build,$first]}" "${cpu[$build,$last]}" "$first" "$last")"
done

if [[ $DEEP_LAYERS != 0 ]]; then
  file=$WORK/llm$DEEP_LAYERS.pte
  "$SYNTH" llm --layers "$DEEP_LAYERS" --named -o "$file" >/dev/null
  deep_tensors=$(planned_per_method "$file")
  for build in "${BUILDS[@]}"; do
    echo "$(label "$build"): $DEEP_LAYERS layers (planned tensors per method: $deep_tensors):" \
      "plan $(median_cpu "$build/tools/pteshare" plan "$file" --share-auto) CPU s"
  done
fi
