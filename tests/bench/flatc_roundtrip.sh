#!/usr/bin/env bash
# What a user would do by hand without pteshare: dump the program to JSON
# with flatc, (edit the offsets,) and compile it back, timed against
# `pteshare rewrite --share-auto`, `-o` and `--in-place` (on a fresh copy of
# the input each run, the copy not timed), on the same pte-synth programs. Nothing
# is edited, so the round trip is a lower bound on the manual way; and it is
# not even a correct rewrite: flatc writes only the flatbuffer, so the
# extended header (eh00) and every segment (weights, initial state) are
# lost. The table says so per file.
#
# Wall time and CPU time (user + sys) are both reported: `rewrite -o` must
# copy every segment byte to the new file and fsync it before the file may
# stand, which flatc never does; that floor is timed on its own as `dd
# conv=fsync` of the same file (copy and fsync, nothing else), and depends
# on the disk, where the CPU ratio does not. In place reads and writes only
# the flatbuffer (the segments stay, or a gap opens under them), but it
# fsyncs its journal, the file and the folder, which flatc never does.
#
# Usage: tests/bench/flatc_roundtrip.sh [BUILD_DIR] (default build-bench)
#        REPS=N (default 5): runs per command; the median is reported.
#        LAYERS="8 32 ..." (default 128 256 512 1024, issue 14's sizes).
# Exits 0 with a message when flatc is absent.
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/../.." && pwd)
BUILD=${1:-$ROOT/build-bench}
REPS=${REPS:-5}
LAYERS=${LAYERS:-128 256 512 1024}
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

# One run of "$@": "WALL_MS CPU_MS" (CPU: user + sys of the children, by
# the `times` builtin of a subshell, to the millisecond).
measure() {
  local start end
  start=$(date +%s%N)
  local cpu
  cpu=$(
    "$@" >/dev/null 2>&1
    times
  )
  end=$(date +%s%N)
  echo "$cpu" | awk -v wall=$(((end - start) / 1000)) 'NR == 2 {
    split($1, u, /[ms]/); split($2, s, /[ms]/)
    printf "%.3f %.3f\n", wall / 1000, (u[1] * 60 + u[2] + s[1] * 60 + s[2]) * 1000 }'
}

# The median of the numbers on stdin.
median() {
  sort -n | awk '{ v[NR] = $1 } END { printf "%.3f", (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}

# Median wall and CPU ms of REPS runs of "$@" ("WALL CPU", each its median).
median_ms() {
  local i runs
  runs=$(for ((i = 0; i < REPS; i++)); do measure "$@"; done)
  echo "$(awk '{ print $1 }' <<<"$runs" | median) $(awk '{ print $2 }' <<<"$runs" | median)"
}

# As median_ms for `pteshare rewrite COPY --in-place "$@"`, COPY made
# afresh from $PTE before each run and synced (not timed): a user's file
# is on disk already, and the journal's fsync would otherwise wait for the
# copy's 100 MB of dirty pages (ext4 commits them with it).
median_in_place_ms() {
  local i runs
  runs=$(for ((i = 0; i < REPS; i++)); do
    cp "$PTE" "$WORK/in_place.pte"
    sync "$WORK/in_place.pte"
    measure "$BUILD/tools/pteshare" rewrite "$WORK/in_place.pte" --in-place "$@"
  done)
  echo "$(awk '{ print $1 }' <<<"$runs" | median) $(awk '{ print $2 }' <<<"$runs" | median)"
}

# Bytes 8..11 of a .pte: "eh00" when the extended header is there.
header_magic() { dd if="$1" bs=1 skip=8 count=4 2>/dev/null | tr -c '[:print:]' '.'; }

echo "flatc $(flatc --version | awk '{print $3}'), median of $REPS runs, ms (wall, and CPU = user + sys)"
printf '| layers | .pte bytes | flatc wall | rewrite -o wall | ratio | in place wall | ratio | flatc CPU | rewrite -o CPU | ratio | in place CPU | ratio | copy + fsync wall | round-trip bytes | eh00 kept |\n'
printf '|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|:---|\n'
for n in $LAYERS; do
  pte=$WORK/llm$n.pte
  PTE=$pte
  "$BUILD/tools/pte-synth" llm --layers "$n" -o "$pte" >/dev/null
  sync "$pte"  # on disk, as a user's input is
  # The user's dump, then the compile back of that same dump.
  read -r json_wall json_cpu < <(median_ms flatc --json --raw-binary --strict-json --defaults-json \
    -o "$WORK" "$SCHEMA" -- "$pte")
  flatc --json --raw-binary --strict-json --defaults-json -o "$WORK" "$SCHEMA" -- "$pte"
  read -r bin_wall bin_cpu < <(median_ms flatc --binary -o "$WORK/bin" "$SCHEMA" "$WORK/llm$n.json")
  flatc --binary -o "$WORK/bin" "$SCHEMA" "$WORK/llm$n.json"
  # flatc names the output after the JSON, with the schema's file_extension.
  back=$WORK/bin/llm$n.pte
  read -r rewrite_wall rewrite_cpu < <(median_ms "$BUILD/tools/pteshare" rewrite "$pte" \
    --share-auto -o "$WORK/shared$n.pte")
  read -r in_place_wall in_place_cpu < <(median_in_place_ms --share-auto)
  read -r copy_wall copy_cpu < <(median_ms dd if="$pte" of="$WORK/copy$n.pte" bs=4M conv=fsync)
  kept=no
  [[ $(header_magic "$back") == eh00 ]] && kept=yes
  awk -v n="$n" -v size="$(stat -c %s "$pte")" -v jw="$json_wall" -v bw="$bin_wall" \
    -v rw="$rewrite_wall" -v jc="$json_cpu" -v bc="$bin_cpu" -v rc="$rewrite_cpu" \
    -v iw="$in_place_wall" -v ic="$in_place_cpu" \
    -v cw="$copy_wall" -v back="$(stat -c %s "$back")" -v kept="$kept" 'BEGIN {
      printf "| %d | %d | %.1f | %.1f | %.1fx | %.1f | %.1fx | %.1f | %.1f | %.1fx | %.1f | %.1fx | %.1f | %d | %s |\n",
             n, size, jw + bw, rw, (jw + bw) / rw, iw, (jw + bw) / iw,
             jc + bc, rc, (jc + bc) / rc, ic, (jc + bc) / ic, cw, back, kept }'
  rm -f "$WORK/llm$n.json" "$back" "$WORK/shared$n.pte" "$WORK/copy$n.pte" "$WORK/in_place.pte" "$pte"
done
