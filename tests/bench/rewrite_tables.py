#!/usr/bin/env python3
"""The README's two rewrite_bench tables, printed as Markdown from one run of
the benchmark (so every number in them is this script's output):

  segments  rewrite time against segment bytes (Segments/in_place/{cold,read},
            Segments/copy_o at 1 MiB to 1 GiB), wall ms, and the flatness
            check Segments/in_place_1GiB_vs_1MiB/{cold,read}: the ratio of
            the 1 GiB to the 1 MiB mean, per repetition.
  scaling   plan, verify and rewrite -o against planned tensors (Plan/relocate,
            Plan/best, Verify/best, Rewrite/copy_o/best at 8 to 1024 layers),
            CPU ms, and the time exponent from 128 to 1024 layers.

Each benchmark runs REPS times (--benchmark_repetitions); the tables give
the median. An in-place row is itself the mean of the 20 rewrites of one
repetition. The numbers depend on the machine, its disk and its load; the
ratios less so.

Usage: tests/bench/rewrite_tables.py BUILD_DIR {segments|scaling}
       REPS=N (default 3). PTESHARE_BENCH_DIR=/some/disk picks the file
       system (rewrite_bench's scratch folder).
       --from FILE: render a JSON the same command wrote before
       (--benchmark_out=FILE --benchmark_out_format=json), without running.
"""

import json
import math
import os
import pathlib
import re
import statistics
import subprocess
import sys
import tempfile

FILTERS = {
    "segments": r"^Segments/(in_place/|copy_o/|in_place_1GiB_vs_1MiB/)",
    "scaling": r"^(Plan/(relocate|best)|Verify/best|Rewrite/copy_o/best)/",
}
SEGMENT_MIB = [1, 16, 256, 1024]


def run_bench(build, table, out):
    """Runs rewrite_bench for `table`, its JSON written to `out`."""
    bench = pathlib.Path(build) / "tests" / "rewrite_bench"
    if not os.access(bench, os.X_OK):
        sys.exit(f"rewrite_tables: {bench} not built (configure with -DPTESHARE_BUILD_BENCHMARKS=ON)")
    reps = int(os.environ.get("REPS", "3"))
    command = [
        str(bench),
        f"--benchmark_filter={FILTERS[table]}",
        f"--benchmark_repetitions={reps}",
        "--benchmark_display_aggregates_only=true",
        f"--benchmark_out={out}",
        "--benchmark_out_format=json",
    ]
    print("$ " + " ".join(command), file=sys.stderr)
    subprocess.run(command, check=True, stdout=sys.stderr)


def load_runs(path):
    """{run_name: [iteration records, one per repetition]}."""
    with open(path) as f:
        data = json.load(f)
    runs = {}
    for record in data["benchmarks"]:
        if record.get("run_type") != "iteration":
            continue
        if record.get("error_occurred"):
            sys.exit(f"rewrite_tables: {record['name']}: {record.get('error_message')}")
        runs.setdefault(record["run_name"], []).append(record)
    return data["context"], runs


def find(runs, pattern):
    """The repetitions of the one run whose name matches `pattern`."""
    matches = [name for name in runs if re.fullmatch(pattern, name)]
    if len(matches) != 1:
        sys.exit(f"rewrite_tables: {len(matches)} runs match {pattern} (filter or names changed?)")
    return runs[matches[0]]


def median(records, field):
    return statistics.median(r[field] for r in records)


def number(value):
    """Three significant digits, thousands grouped (as the README writes them)."""
    if value >= 100:
        return f"{value:,.0f}"
    if value >= 10:
        return f"{value:.1f}"
    return f"{value:.2f}"


def build_type(build):
    """CMAKE_BUILD_TYPE and its flags, from the build folder's cache."""
    cache = {}
    for line in (pathlib.Path(build) / "CMakeCache.txt").read_text().splitlines():
        if m := re.fullmatch(r"(CMAKE_BUILD_TYPE|CMAKE_CXX_FLAGS_\w+):\w+=(.*)", line):
            cache[m.group(1)] = m.group(2)
    kind = cache.get("CMAKE_BUILD_TYPE", "?")
    return f"{kind} ({cache.get('CMAKE_CXX_FLAGS_' + kind.upper(), '?')})"


def header(build, context, runs):
    reps = max(len(r) for r in runs.values())
    return (f"rewrite_bench, {build_type(build)} build, "
            f"{context.get('num_cpus')} CPUs, load average "
            f"{', '.join(f'{x:.2f}' for x in context.get('load_avg', []))} at the start; "
            f"median of {reps} repetitions")


def segments_table(build, context, runs):
    cold = {m: find(runs, rf"Segments/in_place/cold/segment_MiB:{m}/.*") for m in SEGMENT_MIB}
    read = {m: find(runs, rf"Segments/in_place/read/segment_MiB:{m}/.*") for m in SEGMENT_MIB}
    copy = {m: find(runs, rf"Segments/copy_o/segment_MiB:{m}/.*") for m in SEGMENT_MIB}
    first = cold[SEGMENT_MIB[0]][0]
    moved = all(r["segments_moved"] == 1 for m in SEGMENT_MIB for r in cold[m] + read[m])
    print(header(build, context, runs) + "; wall ms")
    print(f"program: {first['layers']:.0f} layers, segments moved by every in-place rewrite: "
          f"{'yes' if moved else 'NO'}; -o iterations per repetition: "
          + ", ".join(f"{copy[m][0]['iterations']}" for m in SEGMENT_MIB))
    print()
    print("| trailing segment | `--in-place`, pages not cached | "
          "`--in-place`, pages cached after a read | `-o OUT` |")
    print("|---:|---:|---:|---:|")
    for m in SEGMENT_MIB:
        size = f"{m} MiB" if m < 1024 else f"{m // 1024} GiB"
        print(f"| {size} | {number(median(cold[m], 'real_time'))} | "
              f"{number(median(read[m], 'real_time'))} | {number(median(copy[m], 'real_time'))} |")
    print()
    for cache in ("cold", "read"):
        flat = find(runs, rf"Segments/in_place_1GiB_vs_1MiB/{cache}/.*")
        ratios = ", ".join(f"{r['ratio_1GiB_1MiB']:.2f}" for r in flat)
        print(f"Segments/in_place_1GiB_vs_1MiB/{cache}: ratio of the means 1 GiB / 1 MiB "
              f"per repetition {ratios} (1 MiB {number(median(flat, 'ms_1MiB'))} ms, "
              f"1 GiB {number(median(flat, 'ms_1GiB'))} ms, medians)")


def scaling_table(build, context, runs):
    columns = [("plan relocate", "Plan/relocate"), ("plan best", "Plan/best"),
               ("verify (best)", "Verify/best"), ("rewrite -o (best)", "Rewrite/copy_o/best")]
    layers = sorted({int(m.group(1)) for name in runs
                     if (m := re.fullmatch(r"Plan/relocate/layers:(\d+)/.*", name))})
    cpu = {(b, n): median(find(runs, rf"{re.escape(b)}/layers:{n}/.*"), "cpu_time")
           for _, b in columns for n in layers}
    print(header(build, context, runs) + "; CPU ms")
    print()
    print("| layers | planned tensors | " + " | ".join(title for title, _ in columns) + " |")
    print("|---:|---:|" + "---:|" * len(columns))
    for n in layers:
        tensors = find(runs, rf"Plan/relocate/layers:{n}/.*")[0]["planned_tensors"]
        print(f"| {n} | {tensors:,.0f} | "
              + " | ".join(number(cpu[(b, n)]) for _, b in columns) + " |")
    if 128 in layers and 1024 in layers:
        print()
        print("exponent 128 -> 1024 layers: " + ", ".join(
            f"{title} {math.log(cpu[(b, 1024)] / cpu[(b, 128)]) / math.log(1024 / 128):.2f}"
            for title, b in columns))


def main():
    args = sys.argv[1:]
    source = None
    if "--from" in args:
        at = args.index("--from")
        source = args[at + 1]
        del args[at:at + 2]
    if len(args) != 2 or args[1] not in FILTERS:
        sys.exit("usage: rewrite_tables.py BUILD_DIR {segments|scaling} [--from JSON]")
    build, table = args
    with tempfile.TemporaryDirectory() as work:
        if source is None:
            source = os.path.join(work, f"{table}.json")
            run_bench(build, table, source)
        context, runs = load_runs(source)
    {"segments": segments_table, "scaling": scaling_table}[table](build, context, runs)


if __name__ == "__main__":
    main()
