#!/usr/bin/env python3
"""Python at CLI speed (issue 29): `pteshare.rewrite(data, share_auto=True)`
on a program's bytes, against `pteshare rewrite FILE --share-auto -o OUT` on
the same file, side by side in one run, on `pte-synth llm` programs.

Each run is a fresh process, the two kinds taking turns (so that a busy
machine slows both alike):
  - the CLI: wall time from start to exit, CPU (user + sys) and max RSS from
    its rusage (wait4). It reads the file, plans, writes OUT and fsyncs it.
  - Python: a fresh interpreter reads the file into a bytes object (what an
    export script holds after to_executorch()), then makes the one call.
    Timed: that call alone, wall and CPU (getrusage), its minor page faults,
    and its memory, the call's peak RSS growth: ru_maxrss after the call
    minus the RSS before it (the input bytes already resident), so the
    rewritten bytes and the planner's temporaries, nothing else.
Every Python result is compared with the CLI's OUT, byte for byte.

Printed: a Markdown table of the medians of REPS runs with the ratios
against issue 29's targets, Python wall <= 1.3x the CLI's and the call's
memory <= 1.5x the file. The numbers depend on the machine (and on the
disk, for the CLI's fsync); the ratios are the point.

Usage: tests/bench/python_rewrite.py [BUILD_DIR] (default: build)
       LAYERS="128 512 1024" (default), REPS=N (default 5).
Exits 0 with a message when the module was not built (no pybind11).
"""

import hashlib
import json
import os
import pathlib
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = pathlib.Path(__file__).resolve().parents[2]
WALL_TARGET = 1.3
MEMORY_TARGET = 1.5

# The child interpreter: argv[1] the program. Prints one JSON line.
CALL = r"""
import hashlib, json, resource, sys, time
import pteshare
with open(sys.argv[1], "rb") as f:
    data = f.read()
with open("/proc/self/statm") as f:
    rss_before = int(f.read().split()[1]) * resource.getpagesize()
before = resource.getrusage(resource.RUSAGE_SELF)
start = time.perf_counter()
result = pteshare.rewrite(data, share_auto=True)
wall = time.perf_counter() - start
after = resource.getrusage(resource.RUSAGE_SELF)
print(json.dumps({
    "wall_ms": wall * 1000,
    "cpu_ms": (after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime) * 1000,
    "faults": after.ru_minflt - before.ru_minflt,
    "growth": after.ru_maxrss * 1024 - rss_before,
    "sha256": hashlib.sha256(result.data).hexdigest(),
}))
"""


def run_cli(pteshare, program, out):
    """One `pteshare rewrite --share-auto -o`: wall, CPU (ms) and max RSS (bytes)."""
    if out.exists():
        out.unlink()
    start = time.perf_counter()
    child = subprocess.Popen([str(pteshare), "rewrite", str(program), "--share-auto", "-o",
                              str(out)], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    _, status, usage = os.wait4(child.pid, 0)
    wall = time.perf_counter() - start
    stderr = child.stderr.read().decode(errors="replace")
    child.stderr.close()
    if os.waitstatus_to_exitcode(status) != 0:
        sys.exit(f"python_rewrite: pteshare rewrite {program} failed: {stderr.strip()}")
    return {"wall_ms": wall * 1000, "cpu_ms": (usage.ru_utime + usage.ru_stime) * 1000,
            "maxrss": usage.ru_maxrss * 1024}


def build_interpreter(build):
    """The interpreter the build made the module for (CMake's FindPython3),
    else this one."""
    cache = build / "CMakeCache.txt"
    if cache.is_file():
        for line in cache.read_text(errors="replace").splitlines():
            if line.startswith("_Python3_EXECUTABLE:"):
                return line.split("=", 1)[1]
    return sys.executable


def run_python(interpreter, module_dir, program):
    """One `pteshare.rewrite(data, share_auto=True)` in a fresh interpreter."""
    env = dict(os.environ, PYTHONPATH=str(module_dir))
    done = subprocess.run([interpreter, "-c", CALL, str(program)], capture_output=True,
                          text=True, env=env, check=False)
    if done.returncode != 0:
        sys.exit(f"python_rewrite: rewrite({program.name}) failed: {done.stderr.strip()}")
    return json.loads(done.stdout)


def sha256(path):
    with open(path, "rb") as f:
        return hashlib.sha256(f.read()).hexdigest()


def main():
    build = pathlib.Path(sys.argv[1] if len(sys.argv) > 1 else ROOT / "build").resolve()
    layers = [int(n) for n in os.environ.get("LAYERS", "128 512 1024").split()]
    reps = int(os.environ.get("REPS", "5"))
    pteshare, synth = build / "tools" / "pteshare", build / "tools" / "pte-synth"
    module_dir = build / "python"
    for tool in (pteshare, synth):
        if not os.access(tool, os.X_OK):
            sys.exit(f"python_rewrite: {tool} not built")
    if not list((module_dir / "pteshare").glob("_native*.so")):
        print(f"python_rewrite: the Python module is not built in {build} (no pybind11); skipped")
        return
    interpreter = build_interpreter(build)

    print(f"pteshare.rewrite(bytes, share_auto=True) vs pteshare rewrite --share-auto -o, "
          f"median of {reps} runs (ms; memory in MB: the CLI's max RSS, the Python call's "
          f"peak RSS growth)")
    print("| layers | file MB | CLI wall | Python wall | ratio | CLI CPU | Python CPU | ratio "
          "| CLI max RSS | Python growth | / file | Python faults |")
    print("|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    missed = []
    with tempfile.TemporaryDirectory() as work:
        work = pathlib.Path(work)
        for n in layers:
            program, out = work / f"llm{n}.pte", work / f"out{n}.pte"
            subprocess.run([str(synth), "llm", "--layers", str(n), "-o", str(program)],
                           check=True, stdout=subprocess.DEVNULL)
            size = program.stat().st_size
            runs_cli, runs_python = [], []
            for _ in range(reps):
                runs_cli.append(run_cli(pteshare, program, out))
                runs_python.append(run_python(interpreter, module_dir, program))
            expected = sha256(out)
            if any(run["sha256"] != expected for run in runs_python):
                sys.exit(f"python_rewrite: {n} layers: rewrite(bytes) is not the CLI's -o output")
            cli = {key: statistics.median(run[key] for run in runs_cli) for key in runs_cli[0]}
            py = {key: statistics.median(run[key] for run in runs_python)
                  for key in ("wall_ms", "cpu_ms", "faults", "growth")}
            wall_ratio, memory_ratio = py["wall_ms"] / cli["wall_ms"], py["growth"] / size
            if wall_ratio > WALL_TARGET:
                missed.append(f"{n} layers: wall {wall_ratio:.2f}x > {WALL_TARGET}x")
            if memory_ratio > MEMORY_TARGET:
                missed.append(f"{n} layers: memory {memory_ratio:.2f}x > {MEMORY_TARGET}x")
            print(f"| {n} | {size / 1e6:.1f} | {cli['wall_ms']:.0f} | {py['wall_ms']:.0f} "
                  f"| {wall_ratio:.2f}x | {cli['cpu_ms']:.0f} | {py['cpu_ms']:.0f} "
                  f"| {py['cpu_ms'] / cli['cpu_ms']:.2f}x | {cli['maxrss'] / 1e6:.1f} "
                  f"| {py['growth'] / 1e6:.1f} | {memory_ratio:.2f}x | {py['faults']:,.0f} |",
                  flush=True)
            program.unlink()
            out.unlink()
    print(f"targets (issue 29): Python wall <= {WALL_TARGET}x the CLI's, the call's memory <= "
          f"{MEMORY_TARGET}x the file: " + ("met" if not missed else "missed: " + "; ".join(missed)))


if __name__ == "__main__":
    main()
