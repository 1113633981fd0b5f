#!/usr/bin/env bash
# Instructions a `pteshare rewrite --share-auto -o` executes, counted by
# valgrind's callgrind (Ir: the same count on a busy machine as on an idle
# one, where CPU time on this project's shared 2 cores varies by 20%), in
# total and per stage (the inclusive count of the stage's function), for
# `pte-synth llm` programs of growing depth. Several binaries run on the
# same programs side by side, e.g. a copy of the binary before a change
# and the one after.
#
# Usage: tests/bench/rewrite_instructions.sh PTESHARE [PTESHARE...]
#        LAYERS="128 512 1024" (default), SYNTH=path/to/pte-synth (default:
#        the pte-synth next to the first PTESHARE).
# Needs valgrind (callgrind_annotate comes with it). A 1024-layer run takes
# about half a minute per binary.
set -euo pipefail

BINARIES=("$@")
[[ ${#BINARIES[@]} -gt 0 ]] || { echo "usage: $0 PTESHARE [PTESHARE...]" >&2; exit 2; }
for binary in "${BINARIES[@]}"; do
  [[ -x $binary ]] || { echo "rewrite_instructions: $binary is not an executable" >&2; exit 2; }
done
command -v valgrind >/dev/null || { echo "rewrite_instructions: valgrind not installed" >&2; exit 2; }
LAYERS=${LAYERS:-128 512 1024}
SYNTH=${SYNTH:-$(dirname "${BINARIES[0]}")/pte-synth}
[[ -x $SYNTH ]] || { echo "rewrite_instructions: $SYNTH not built (set SYNTH)" >&2; exit 2; }

WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT

# Stages: the column's name and the function whose inclusive count it is.
STAGE_NAMES=(open plan verify patch write)
STAGE_FUNCTIONS=("pteshare::OpenProgram(" "pteshare::MakePlan(" "pteshare::VerifyPlan("
  "pteshare::MakePatchSet(" "pteshare::WritePatchedCopy(")

# Millions of instructions, one decimal: "4,566,674,833" -> "4566.7".
millions() { tr -d , | awk '{ printf "%.1f", $1 / 1e6 }'; }

printf '| layers | binary | total M Ir |'
printf ' %s |' "${STAGE_NAMES[@]}"
printf '\n|---:|---|---:|'
for _ in "${STAGE_NAMES[@]}"; do printf -- '---:|'; done
printf '\n'
for layers in $LAYERS; do
  input=$WORK/llm$layers.pte
  "$SYNTH" llm --layers "$layers" -o "$input" >/dev/null
  for binary in "${BINARIES[@]}"; do
    profile=$WORK/callgrind.out
    rm -f "$WORK/out.pte"
    valgrind --tool=callgrind --callgrind-out-file="$profile" \
      "$binary" rewrite "$input" --share-auto -o "$WORK/out.pte" >/dev/null 2>"$WORK/valgrind.log" ||
      { echo "rewrite_instructions: $binary failed on $layers layers:" >&2; tail -5 "$WORK/valgrind.log" >&2; exit 1; }
    annotated=$(callgrind_annotate --inclusive=yes --threshold=100 --auto=no "$profile")
    total=$(awk '/PROGRAM TOTALS/ { print $1; exit }' <<<"$annotated" | millions)
    printf '| %s | %s | %s |' "$layers" "$binary" "$total"
    for function in "${STAGE_FUNCTIONS[@]}"; do
      # The first line naming it is the whole function (sorted by count; the
      # lines after are code inlined into it from other files).
      count=$(awk -v f="$function" 'index($0, f) { print $1; exit }' <<<"$annotated")
      printf ' %s |' "$( [[ -n $count ]] && millions <<<"$count" || echo -)"
    done
    printf '\n'
  done
done
