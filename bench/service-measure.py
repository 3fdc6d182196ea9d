#!/usr/bin/env python3
"""bench/service-measure.py: CPU time, wake-ups and resident memory of groups of processes over one idle window.
Usage: service-measure.py SECONDS LABEL=PID[,PID…] …  — prints a Markdown table. Wake-ups are every thread's
voluntary plus involuntary context switches (/proc/PID/task/*/status): each is the thread leaving the CPU after
having run, so an idle thread that never wakes adds none. Resident memory is VmRSS at the window's end, with its
anonymous part (RssAnon: the process's own pages; the rest is pages of files, shared with every process mapping them)."""
import os
import sys
import time

TICK = os.sysconf("SC_CLK_TCK")


def sample(pid):
    cpu = switches = 0
    for task in os.listdir(f"/proc/{pid}/task"):
        try:
            fields = open(f"/proc/{pid}/task/{task}/stat").read().rsplit(")", 1)[1].split()
            cpu += int(fields[11]) + int(fields[12])  # utime + stime, in ticks
            for line in open(f"/proc/{pid}/task/{task}/status"):
                if line.startswith(("voluntary_ctxt_switches", "nonvoluntary_ctxt_switches")):
                    switches += int(line.split()[1])
        except (FileNotFoundError, ProcessLookupError, IndexError):
            pass
    rss = anon = 0
    for line in open(f"/proc/{pid}/status"):
        if line.startswith("VmRSS:"):
            rss = int(line.split()[1])
        if line.startswith("RssAnon:"):
            anon = int(line.split()[1])
    return cpu, switches, rss, anon


seconds = float(sys.argv[1])
groups = [(arg.split("=", 1)[0], [int(p) for p in arg.split("=", 1)[1].split(",")]) for arg in sys.argv[2:]]
before = {label: [sample(p) for p in pids] for label, pids in groups}
start = time.monotonic()
time.sleep(seconds)
elapsed = time.monotonic() - start
print(f"idle window: {elapsed:.0f} s\n")
print("| process(es) | CPU time in the window | wake-ups per second | resident memory | of it anonymous |")
print("|---|---|---|---|---|")
for label, pids in groups:
    after = [sample(p) for p in pids]
    cpu = sum(a[0] - b[0] for a, b in zip(after, before[label])) / TICK
    wakes = sum(a[1] - b[1] for a, b in zip(after, before[label])) / elapsed
    rss = sum(a[2] for a in after) / 1024
    anon = sum(a[3] for a in after) / 1024
    print(f"| {label} | {cpu * 1000:.0f} ms | {wakes:.2f} | {rss:.1f} MiB | {anon:.1f} MiB |")
