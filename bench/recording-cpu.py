#!/usr/bin/env python3
"""bench/recording-cpu.py: what a recorded session costs in CPU, which a shared machine's load does not change (as it
does wall-clock time). Runs each command under `perf stat` (instructions retired and task-clock of the command and
all its threads and children), alternating, round by round; prints the medians with min-max and the ratio of the
first command to the second, and writes the runs as JSON.

    recording-cpu.py --runs N --export OUT.json NAME COMMAND NAME COMMAND
"""
import argparse
import json
import statistics
import subprocess
import tempfile


def perf_stat(command):
    """Instructions and task-clock (ms) of one run of `command` (a shell line)."""
    with tempfile.NamedTemporaryFile(mode="r", suffix=".csv") as out:
        subprocess.run(["perf", "stat", "-x,", "-e", "instructions,task-clock", "-o", out.name, "sh", "-c", command],
                       check=True)
        values = {}
        for line in out.read().splitlines():
            fields = line.split(",")
            if len(fields) > 2 and fields[0][:1].isdigit():
                values[fields[2].split(":")[0]] = float(fields[0])
    return {"instructions": values["instructions"], "task_ms": values["task-clock"]}


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--export", required=True)
    parser.add_argument("pairs", nargs="+")
    args = parser.parse_args()
    names, commands = args.pairs[0::2], args.pairs[1::2]
    runs = {name: [] for name in names}
    for _ in range(args.runs):
        for name, command in zip(names, commands):
            runs[name].append(perf_stat(command))
    with open(args.export, "w") as out:
        json.dump({"commands": [{"name": n, "command": c, "runs": runs[n]} for n, c in zip(names, commands)]}, out,
                  indent=1)
    for key, scale, unit in (("instructions", 1e9, "G instructions"), ("task_ms", 1, "ms task-clock")):
        medians = []
        for name in names:
            values = sorted(run[key] / scale for run in runs[name])
            medians.append(statistics.median(values))
            print(f"{name}: {statistics.median(values):,.2f} {unit} ({values[0]:,.2f}-{values[-1]:,.2f})")
        rounds = [a[key] / b[key] for a, b in zip(runs[names[0]], runs[names[1]])]
        print(f"  ratio {medians[0] / medians[1]:.3f} (by round {min(rounds):.3f}-{max(rounds):.3f})")


if __name__ == "__main__":
    main()
