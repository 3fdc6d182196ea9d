#!/usr/bin/env python3
"""bench/interleave.py: times shell commands like hyperfine, but interleaved — every round runs each command once, in
turn — so sshelf and its peer see the same load on a shared machine. Writes a hyperfine-shaped JSON export (the
commands in the given order: bench/summarize.py pairs 1 with 2, 3 with 4, ...).

    interleave.py --runs N --warmup W --export OUT.json NAME COMMAND [NAME COMMAND ...]
"""
import argparse
import json
import statistics
import subprocess
import time

parser = argparse.ArgumentParser()
parser.add_argument("--runs", type=int, default=20)
parser.add_argument("--warmup", type=int, default=3)
parser.add_argument("--export", required=True)
parser.add_argument("pairs", nargs="+")
arguments = parser.parse_args()
names, commands = arguments.pairs[0::2], arguments.pairs[1::2]
times = [[] for _ in commands]
for round_number in range(arguments.warmup + arguments.runs):
    for index, command in enumerate(commands):
        start = time.perf_counter()
        result = subprocess.run(command, shell=True, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                                stderr=subprocess.PIPE)
        elapsed = time.perf_counter() - start
        if result.returncode != 0:
            raise SystemExit(f"interleave: '{names[index]}' failed ({result.returncode}): {result.stderr.decode()}")
        if round_number >= arguments.warmup:
            times[index].append(elapsed)
results = [{"command": name, "times": values, "median": statistics.median(values), "interleaved": True}
           for name, values in zip(names, times)]
json.dump({"results": results}, open(arguments.export, "w"), indent=1)
for result in results:
    values = result["times"]
    print(f"{result['command']}: median {statistics.median(values) * 1000:.1f} ms "
          f"({min(values) * 1000:.1f}–{max(values) * 1000:.1f}), {len(values)} runs")
