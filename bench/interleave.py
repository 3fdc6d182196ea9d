#!/usr/bin/env python3
"""bench/interleave.py: times shell commands like hyperfine, but interleaved — every round runs each command once, in
turn — so sshelf and its peer see the same load on a shared machine. Writes a hyperfine-shaped JSON export (the
commands in the given order: bench/summarize.py pairs 1 with 2, 3 with 4, ...). Each result also has `cpu_times`: the
user + system CPU seconds of each run, its processes and all they waited for (not daemons they talk to), and
`peak_rss_kib`: each run's peak resident memory (the largest of its processes, as wait4's ru_maxrss gives it). Each
`--account LABEL=WHAT` adds `LABEL_cpu_times`, the CPU seconds other processes used over the same run: for
`cgroup:DIR`, every process in that control group (cgroup v1 cpuacct or v2; servers and all they start, counted even
when nobody waits for them); for `@FILE`, the processes whose IDs are the lines of FILE (daemons a client talks to).

    interleave.py --runs N --warmup W --export OUT.json [--account LABEL=WHAT ...] NAME COMMAND [NAME COMMAND ...]
"""
import argparse
import os
import json
import statistics
import subprocess
import tempfile
import time

TICKS = os.sysconf("SC_CLK_TCK")


def cgroup_cpu(directory):
    """CPU seconds so far of every process that was ever in the control group."""
    if os.path.exists(f"{directory}/cpuacct.usage"):
        with open(f"{directory}/cpuacct.usage") as usage:
            return int(usage.read()) / 1e9
    with open(f"{directory}/cpu.stat") as stat:
        fields = dict(line.split() for line in stat)
    return int(fields["usage_usec"]) / 1e6


def processes_cpu(pids):
    """CPU seconds so far of these processes: their threads' run time in nanoseconds (schedstat: a daemon serving one
    short call a run uses less than a clock tick) and what their reaped children used."""
    total = 0.0
    for pid in pids:
        try:
            for task in os.listdir(f"/proc/{pid}/task"):
                with open(f"/proc/{pid}/task/{task}/schedstat") as schedstat:
                    total += int(schedstat.read().split()[0]) / 1e9
            with open(f"/proc/{pid}/stat") as stat:
                fields = stat.read().rsplit(")", 1)[1].split()
            total += (int(fields[13]) + int(fields[14])) / TICKS
        except OSError:
            pass  # ended: a daemon gone is one not counted
    return total


def cgroup_processes(directory):
    with open(f"{directory}/cgroup.procs") as procs:
        return sum(1 for _ in procs)


def meter(what):
    """(read, count): the CPU seconds so far, and how many processes there are now (a run is over for the servers once
    the sessions it started have ended: a session still closing when the client has exited belongs to this run)."""
    if what.startswith("cgroup:"):
        directory = what[len("cgroup:"):]
        return lambda: cgroup_cpu(directory), lambda: cgroup_processes(directory)
    with open(what.removeprefix("@")) as lines:
        pids = [int(line) for line in lines if line.strip()]
    return lambda: processes_cpu(pids), lambda: 0


def settled(count, before):
    deadline = time.monotonic() + 10
    while count() > before and time.monotonic() < deadline:
        time.sleep(0.005)

parser = argparse.ArgumentParser()
parser.add_argument("--runs", type=int, default=20)
parser.add_argument("--warmup", type=int, default=3)
parser.add_argument("--export", required=True)
parser.add_argument("--account", action="append", default=[], metavar="LABEL=WHAT")
parser.add_argument("pairs", nargs="+")
arguments = parser.parse_args()
names, commands = arguments.pairs[0::2], arguments.pairs[1::2]
meters = [(label, *meter(what)) for label, what in (item.split("=", 1) for item in arguments.account)]
times = [[] for _ in commands]
cpu = [[] for _ in commands]
peak = [[] for _ in commands]
accounted = {label: [[] for _ in commands] for label, _, _ in meters}
for round_number in range(arguments.warmup + arguments.runs):
    for index, command in enumerate(commands):
        counts_before = [count() for _, _, count in meters]
        others_before = [read() for _, read, _ in meters]
        errors = tempfile.TemporaryFile()
        start = time.perf_counter()
        process = subprocess.Popen(command, shell=True, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                                   stderr=errors)
        # wait4 gives this run's own usage: its CPU (and all it waited for) and its largest process's peak memory.
        _, status, usage = os.wait4(process.pid, 0)
        process.returncode = os.waitstatus_to_exitcode(status)
        elapsed = time.perf_counter() - start
        errors.seek(0)
        for (_, _, count), count_before in zip(meters, counts_before):
            settled(count, count_before)
        others_after = [read() for _, read, _ in meters]
        used = usage.ru_utime + usage.ru_stime
        if process.returncode != 0:
            raise SystemExit(f"interleave: '{names[index]}' failed ({process.returncode}): {errors.read().decode()}")
        if round_number >= arguments.warmup:
            times[index].append(elapsed)
            cpu[index].append(used)
            peak[index].append(usage.ru_maxrss)
            for (label, _, _), other_before, other_after in zip(meters, others_before, others_after):
                accounted[label][index].append(other_after - other_before)
results = [{"command": name, "times": values, "median": statistics.median(values), "interleaved": True,
            "cpu_times": used, "peak_rss_kib": rss} for name, values, used, rss in zip(names, times, cpu, peak)]
for label, per_command in accounted.items():
    for result, values in zip(results, per_command):
        result[f"{label}_cpu_times"] = values
json.dump({"results": results}, open(arguments.export, "w"), indent=1)
for result in results:
    values = result["times"]
    print(f"{result['command']}: median {statistics.median(values) * 1000:.1f} ms "
          f"({min(values) * 1000:.1f}–{max(values) * 1000:.1f}), {len(values)} runs")
