#!/usr/bin/env python3
"""bench/recording-cpu.py: what a recorded session costs in CPU, which a shared machine's load changes far less than
wall-clock time: each command's task-clock under `perf stat` (CPU time of the command and all its threads and
children), and with --instructions the instructions it executes, counted by valgrind's callgrind (this machine's
virtual CPU has no hardware counters for perf; callgrind's count does not depend on the load at all, but it runs
some 50 times slower, so it gets a smaller stream). Alternating, round by round; prints medians with min-max and the
ratio of the first command to the second, and writes the runs as JSON (named *.runs by recording.bench;
bench/summarize.py reads them, under either name, as a CPU table of their own).

    recording-cpu.py --runs N [--instructions] --export OUT.json NAME COMMAND NAME COMMAND

COMMAND is a shell line whose `{run}` is replaced by what measures the program after it.
"""
import argparse
import glob
import json
import os
import statistics
import subprocess
import tempfile


def task_clock(command):
    """Milliseconds of CPU of one run of `command` (perf stat's task-clock)."""
    with tempfile.NamedTemporaryFile(mode="r", suffix=".csv") as out:
        prefix = f"perf stat -x, -e task-clock -o {out.name}"
        subprocess.run(["sh", "-c", command.replace("{run}", prefix)], check=True)
        for line in out.read().splitlines():
            fields = line.split(",")
            if len(fields) > 2 and fields[2].startswith("task-clock"):
                return float(fields[0])
    raise SystemExit("perf stat printed no task-clock")


def instructions(command):
    """Instructions executed by one run of `command` (callgrind's totals, every process it started)."""
    with tempfile.TemporaryDirectory() as directory:
        prefix = f"valgrind --tool=callgrind --trace-children=yes --callgrind-out-file={directory}/out.%p"
        subprocess.run(["sh", "-c", command.replace("{run}", prefix)], check=True, stderr=subprocess.DEVNULL)
        total = 0
        for path in glob.glob(os.path.join(directory, "out.*")):
            for line in open(path):
                if line.startswith("totals:") or line.startswith("summary:"):
                    total += int(line.split()[1])
                    break
        return total


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--instructions", action="store_true")
    parser.add_argument("--export", required=True)
    parser.add_argument("pairs", nargs="+")
    args = parser.parse_args()
    names, commands = args.pairs[0::2], args.pairs[1::2]
    measure, key, scale, unit = task_clock, "task_ms", 1, "ms task-clock"
    if args.instructions:
        measure, key, scale, unit = instructions, "instructions", 1e9, "G instructions"
    runs = {name: [] for name in names}
    for _ in range(args.runs):
        for name, command in zip(names, commands):
            runs[name].append({key: measure(command)})
    with open(args.export, "w") as out:
        json.dump({"commands": [{"name": n, "command": c, "runs": runs[n]} for n, c in zip(names, commands)]}, out,
                  indent=1)
    medians = []
    for name in names:
        values = sorted(run[key] / scale for run in runs[name])
        medians.append(statistics.median(values))
        print(f"{name}: {statistics.median(values):,.3f} {unit} ({values[0]:,.3f}-{values[-1]:,.3f})")
    rounds = [a[key] / b[key] for a, b in zip(runs[names[0]], runs[names[1]])]
    print(f"  ratio {medians[0] / medians[1]:.3f} (by round {min(rounds):.3f}-{max(rounds):.3f})")


if __name__ == "__main__":
    main()
