#!/usr/bin/env bash
# Appended bytes and segment moves of `pteshare rewrite FILE --in-place`
# (default strategy, no shared buffer: the arenas are replanned) on every
# program of ../shared/corpus that the rewrite changes. Each file is copied
# to a scratch folder first (the corpus is read-only), so the in-place path
# runs on the filesystem of that folder ($TMPDIR, or pass one).
#
#   bash tests/bench/corpus_appended.sh BUILD_DIR [SCRATCH_DIR]
#
# Prints one TSV row per changed file (file, bytes appended, how the
# segments fared) and a count at the end.
set -euo pipefail
build=${1:?usage: corpus_appended.sh BUILD_DIR [SCRATCH_DIR]}
here=$(cd "$(dirname "$0")/../.." && pwd)
corpus="$here/../shared/corpus"
scratch=$(mktemp -d "${2:-${TMPDIR:-/tmp}}/pteshare-corpus.XXXXXX")
trap 'rm -rf "$scratch"' EXIT

changed=0 copied=0 inserted=0
printf 'file\tbytes_appended\tsegments\n'
for f in "$corpus"/*.pte; do
  cp "$f" "$scratch/m.pte"
  out=$("$build/tools/pteshare" rewrite "$scratch/m.pte" --in-place -v 2>&1) || true
  case "$out" in *"bytes appended"*) ;; *) continue ;; esac
  changed=$((changed + 1))
  bytes=$(sed -n 's/.*, \([0-9,]*\) bytes appended.*/\1/p' <<<"$out" | tr -d ,)
  segments=$(sed -n 's/.*bytes appended, \(.*\)$/\1/p' <<<"$out" | head -1)
  # -v says "inserted N bytes at offset B" when a gap opened in place; a
  # move without it copied the segments (older builds, or a filesystem
  # that cannot insert a range, which also says "segments copied").
  case "$out" in
    *"inserted "*" bytes at offset"*) inserted=$((inserted + 1)) ;;
    *"moved up by"*) copied=$((copied + 1)) ;;
  esac
  printf '%s\t%s\t%s\n' "$(basename "$f")" "$bytes" "$segments"
done
echo "# $changed programs changed; segments copied in $copied, gap inserted in $inserted"
