#!/usr/bin/env python3
"""bench/interleave.py: times shell commands like hyperfine, but interleaved — every round runs each command once, in
turn — so sshelf and its peer see the same load on a shared machine. Writes a hyperfine-shaped JSON export (the
commands in the given order: bench/summarize.py pairs 1 with 2, 3 with 4, ...). Each result also has `cpu_times`: the
user + system CPU seconds of each run, its processes and all they waited for (not daemons they talk to). Each
`--account LABEL=REGEX` adds `LABEL_cpu_times`: the CPU seconds, over the same run, of every process whose command line
matches REGEX (or, for `LABEL=@FILE`, whose process ID is a line of FILE) and of all its descendants (sshd and what it
starts; a client's daemons) — read from /proc before and after, so work the command caused in processes it never
waited for is counted too.

    interleave.py --runs N --warmup W --export OUT.json [--account LABEL=REGEX ...] NAME COMMAND [NAME COMMAND ...]
"""
import argparse
import os
import re
import resource
import json
import statistics
import subprocess
import time

TICKS = os.sysconf("SC_CLK_TCK")


def tree_cpu(roots_wanted):
    """CPU seconds so far of the processes matching `pattern` and their descendants: each live process's own time (its
    threads' run time in nanoseconds from schedstat: a daemon serving 200 short calls uses less than one clock tick in
    each of 200 processes) plus what its reaped children used (cutime/cstime), so every CPU second is counted once."""
    parents, used, roots = {}, {}, []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat") as stat_file:
                fields = stat_file.read().rsplit(")", 1)[1].split()
            with open(f"/proc/{entry}/cmdline", "rb") as cmdline_file:
                cmdline = cmdline_file.read().replace(b"\0", b" ").decode(errors="replace")
            own = 0
            for task in os.listdir(f"/proc/{entry}/task"):
                with open(f"/proc/{entry}/task/{task}/schedstat") as schedstat_file:
                    own += int(schedstat_file.read().split()[0])
        except OSError:
            continue  # ended while we looked
        pid = int(entry)
        parents[pid] = int(fields[1])
        used[pid] = own / 1e9 + (int(fields[13]) + int(fields[14])) / TICKS
        if isinstance(roots_wanted, set):
            if pid in roots_wanted:
                roots.append(pid)
        elif roots_wanted.search(cmdline) and pid != os.getpid():  # our own command line holds the pattern
            roots.append(pid)
    total, inside = 0.0, set(roots)
    for pid in parents:
        ancestor, chain = pid, []
        while ancestor > 1 and ancestor not in inside:
            chain.append(ancestor)
            ancestor = parents.get(ancestor, 0)
        if ancestor in inside:
            inside.update(chain)
    return sum(used[pid] for pid in inside)

parser = argparse.ArgumentParser()
parser.add_argument("--runs", type=int, default=20)
parser.add_argument("--warmup", type=int, default=3)
parser.add_argument("--export", required=True)
parser.add_argument("--account", action="append", default=[], metavar="LABEL=REGEX")
parser.add_argument("pairs", nargs="+")
arguments = parser.parse_args()
names, commands = arguments.pairs[0::2], arguments.pairs[1::2]


def roots_of(spec):
    if spec.startswith("@"):
        with open(spec[1:]) as pids:
            return {int(line) for line in pids if line.strip()}
    return re.compile(spec)


accounts = [(label, roots_of(spec)) for label, spec in (item.split("=", 1) for item in arguments.account)]
times = [[] for _ in commands]
cpu = [[] for _ in commands]
accounted = {label: [[] for _ in commands] for label, _ in accounts}
for round_number in range(arguments.warmup + arguments.runs):
    for index, command in enumerate(commands):
        trees_before = [tree_cpu(pattern) for _, pattern in accounts]
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        start = time.perf_counter()
        result = subprocess.run(command, shell=True, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                                stderr=subprocess.PIPE)
        elapsed = time.perf_counter() - start
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        trees_after = [tree_cpu(pattern) for _, pattern in accounts]
        used = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
        if result.returncode != 0:
            raise SystemExit(f"interleave: '{names[index]}' failed ({result.returncode}): {result.stderr.decode()}")
        if round_number >= arguments.warmup:
            times[index].append(elapsed)
            cpu[index].append(used)
            for (label, _), tree_before, tree_after in zip(accounts, trees_before, trees_after):
                accounted[label][index].append(tree_after - tree_before)
results = [{"command": name, "times": values, "median": statistics.median(values), "interleaved": True,
            "cpu_times": used} for name, values, used in zip(names, times, cpu)]
for label, per_command in accounted.items():
    for result, values in zip(results, per_command):
        result[f"{label}_cpu_times"] = values
json.dump({"results": results}, open(arguments.export, "w"), indent=1)
for result in results:
    values = result["times"]
    print(f"{result['command']}: median {statistics.median(values) * 1000:.1f} ms "
          f"({min(values) * 1000:.1f}–{max(values) * 1000:.1f}), {len(values)} runs")
