#!/usr/bin/env python3
"""bench/interleave.py: times shell commands like hyperfine, but interleaved — every round runs each command once, in
turn — so sshelf and its peer see the same load on a shared machine. Writes a hyperfine-shaped JSON export (the
commands in the given order: bench/summarize.py pairs 1 with 2, 3 with 4, ...). Each result also has `cpu_times`: the
user + system CPU seconds of each run, its processes and all they waited for (not daemons they talk to).

    interleave.py --runs N --warmup W --export OUT.json NAME COMMAND [NAME COMMAND ...]
"""
import argparse
import resource
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
cpu = [[] for _ in commands]
for round_number in range(arguments.warmup + arguments.runs):
    for index, command in enumerate(commands):
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        start = time.perf_counter()
        result = subprocess.run(command, shell=True, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                                stderr=subprocess.PIPE)
        elapsed = time.perf_counter() - start
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        used = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
        if result.returncode != 0:
            raise SystemExit(f"interleave: '{names[index]}' failed ({result.returncode}): {result.stderr.decode()}")
        if round_number >= arguments.warmup:
            times[index].append(elapsed)
            cpu[index].append(used)
results = [{"command": name, "times": values, "median": statistics.median(values), "interleaved": True,
            "cpu_times": used} for name, values, used in zip(names, times, cpu)]
json.dump({"results": results}, open(arguments.export, "w"), indent=1)
for result in results:
    values = result["times"]
    print(f"{result['command']}: median {statistics.median(values) * 1000:.1f} ms "
          f"({min(values) * 1000:.1f}–{max(values) * 1000:.1f}), {len(values)} runs")
