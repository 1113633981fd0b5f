#!/usr/bin/env bash
# The block planner on MiniMalloc's challenging instances
# (../shared/planner-suite, A..K): `pteshare pack INSTANCE --json` with the
# default budget (or STEPS=N), one build directory after another for each
# instance, so builds are compared side by side in one run. Prints one
# Markdown row per build: the arena over the lower bound per instance and
# the mean, then one row of CPU seconds (user + sys of the whole command).
# Every placement pack prints has been checked by ValidateBlockSolution.
#
# Usage: tests/bench/planner_suite.sh BUILD_DIR [BUILD_DIR...]
#        SUITE=path/to/planner-suite (default ../shared/planner-suite),
#        STEPS=N (default: pack's default), SEED=N (default 0).
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/../.." && pwd)
SUITE=${SUITE:-$ROOT/../shared/planner-suite}
BUILDS=("$@")
[[ ${#BUILDS[@]} -gt 0 ]] || { echo "usage: planner_suite.sh BUILD_DIR [BUILD_DIR...]" >&2; exit 2; }
[[ -d $SUITE ]] || { echo "planner_suite: no suite at $SUITE" >&2; exit 2; }
for build in "${BUILDS[@]}"; do
  [[ -x $build/tools/pteshare ]] || { echo "planner_suite: $build/tools/pteshare not built" >&2; exit 2; }
done
ARGS=(--json --seed "${SEED:-0}")
[[ -n ${STEPS:-} ]] && ARGS+=(--steps "$STEPS")

WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
INSTANCES=()
for file in "$SUITE"/[A-K].*.csv; do INSTANCES+=("$(basename "$file" | cut -d. -f1)"); done

for name in "${INSTANCES[@]}"; do
  for b in "${!BUILDS[@]}"; do
    # `times` in a subshell: the CPU of its children, to the millisecond.
    (
      "${BUILDS[$b]}/tools/pteshare" pack "$SUITE/$name".*.csv "${ARGS[@]}" >"$WORK/$b.$name.json" 2>/dev/null
      times
    ) | tail -1 >"$WORK/$b.$name.cpu"
  done
done

python3 - "$WORK" "${#BUILDS[@]}" "${INSTANCES[@]}" -- "${BUILDS[@]}" <<'PY'
import json, re, sys
work, count = sys.argv[1], int(sys.argv[2])
split = sys.argv.index("--")
names, builds = sys.argv[3:split], sys.argv[split + 1:]

def seconds(text):  # "0m1.234s 0m0.010s" -> 1.244
    return sum(int(m) * 60 + float(s) for m, s in re.findall(r"(\d+)m([\d.]+)s", text))

print("| build | " + " | ".join(names) + " | mean |")
print("|---|" + "---:|" * (len(names) + 1))
for b in range(count):
    over, cpu = [], []
    for name in names:
        doc = json.load(open(f"{work}/{b}.{name}.json"))
        over.append(100.0 * (doc["arena_size"] - doc["lower_bound"]) / doc["lower_bound"])
        cpu.append(seconds(open(f"{work}/{b}.{name}.cpu").read()))
    cells = ["0" if o == 0 else f"+{o:.2f}%" for o in over]
    print(f"| {builds[b]} over LB | " + " | ".join(cells) + f" | +{sum(over) / len(over):.2f}% |")
    print(f"| {builds[b]} CPU s | " + " | ".join(f"{c:.2f}" for c in cpu) + f" | {sum(cpu) / len(cpu):.2f} |")
PY
