#!/usr/bin/env bash
# What a user would do by hand without pteshare: dump the program to JSON
# with flatc, (edit the offsets,) and compile it back, timed against
# `pteshare rewrite --share-auto -o` on the same pte-synth programs. Nothing
# is edited, so the round trip is a lower bound on the manual way; and it is
# not even a correct rewrite: flatc writes only the flatbuffer, so the
# extended header (eh00) and every segment (weights, initial state) are
# lost. The table says so per file.
#
# Usage: tests/bench/flatc_roundtrip.sh [BUILD_DIR] (default build-bench)
#        REPS=N (default 5): runs per command; the median is reported.
#        LAYERS="8 32 ..." (default 8 32 64 128 256).
# Exits 0 with a message when flatc is absent.
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/../.." && pwd)
BUILD=${1:-$ROOT/build-bench}
REPS=${REPS:-5}
LAYERS=${LAYERS:-8 32 64 128 256}
SCHEMA=$ROOT/schema/program.fbs

if ! command -v flatc >/dev/null; then
  echo "flatc_roundtrip: flatc not installed (apt-get install flatbuffers-compiler); skipped"
  exit 0
fi
for tool in "$BUILD/tools/pte-synth" "$BUILD/tools/pteshare"; do
  [[ -x $tool ]] || { echo "flatc_roundtrip: $tool not built" >&2; exit 2; }
done

WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT

# Median wall time of REPS runs of "$@", in milliseconds (3 decimals).
median_ms() {
  local times=() start end
  for ((i = 0; i < REPS; i++)); do
    start=$(date +%s%N)
    "$@" >/dev/null 2>&1
    end=$(date +%s%N)
    times+=($((end - start)))
  done
  printf '%s\n' "${times[@]}" | sort -n |
    awk '{a[NR] = $1} END {m = (NR % 2) ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2;
                           printf "%.3f", m / 1e6}'
}

# Bytes 8..11 of a .pte: "eh00" when the extended header is there.
header_magic() { dd if="$1" bs=1 skip=8 count=4 2>/dev/null | tr -c '[:print:]' '.'; }

echo "flatc $(flatc --version | awk '{print $3}'), median of $REPS runs, wall-clock ms"
printf '| layers | .pte bytes | flatc -> json | json -> flatc | round trip | pteshare rewrite -o | ratio | round-trip bytes | eh00 kept |\n'
printf '|---:|---:|---:|---:|---:|---:|---:|---:|:---|\n'
for n in $LAYERS; do
  pte=$WORK/llm$n.pte
  "$BUILD/tools/pte-synth" llm --layers "$n" -o "$pte" >/dev/null
  # The user's dump, then the compile back of that same dump.
  to_json=$(median_ms flatc --json --raw-binary --strict-json --defaults-json \
    -o "$WORK" "$SCHEMA" -- "$pte")
  flatc --json --raw-binary --strict-json --defaults-json -o "$WORK" "$SCHEMA" -- "$pte"
  to_binary=$(median_ms flatc --binary -o "$WORK/bin" "$SCHEMA" "$WORK/llm$n.json")
  flatc --binary -o "$WORK/bin" "$SCHEMA" "$WORK/llm$n.json"
  # flatc names the output after the JSON, with the schema's file_extension.
  back=$WORK/bin/llm$n.pte
  rewrite=$(median_ms "$BUILD/tools/pteshare" rewrite "$pte" --share-auto -o "$WORK/shared$n.pte")
  kept=no
  [[ $(header_magic "$back") == eh00 ]] && kept=yes
  awk -v n="$n" -v size="$(stat -c %s "$pte")" -v j="$to_json" -v b="$to_binary" \
    -v r="$rewrite" -v back="$(stat -c %s "$back")" -v kept="$kept" 'BEGIN {
      printf "| %d | %d | %.1f | %.1f | %.1f | %.1f | %.1fx | %d | %s |\n",
             n, size, j, b, j + b, r, (j + b) / r, back, kept }'
  rm -f "$WORK/llm$n.json" "$back" "$WORK/shared$n.pte"
done
