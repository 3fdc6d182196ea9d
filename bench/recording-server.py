#!/usr/bin/env python3
"""bench/recording-server.py: the CPU the server spends on one session, by client — sshd's session process and all it
starts (the shell, cat), which sshd -D reaps, so they land in the listener's children's CPU (/proc/PID/stat's cutime
and cstime) once the session has ended. The session's buffers are sshd's: a client that opens a deep window lets
sshd read far ahead of it (docs/PERFORMANCE.md, "A session's throughput"), and that shows here, not in the client's
CPU. Alternating, round by round; prints medians with min-max per command and writes the runs as JSON (named *.runs
by recording.bench; bench/summarize.py reads them, under either name, as a CPU table of their own).

    recording-server.py --sshd PID --runs N --export OUT NAME COMMAND [NAME COMMAND ...]
"""
import argparse
import json
import os
import statistics
import subprocess
import time

TICKS = os.sysconf("SC_CLK_TCK")


def reaped_cpu(pid):
    """CPU seconds of the children `pid` has reaped (sshd -D's ended sessions)."""
    with open(f"/proc/{pid}/stat") as stat:
        fields = stat.read().rsplit(")", 1)[1].split()
    return (int(fields[13]) + int(fields[14])) / TICKS


def children(pid):
    try:
        with open(f"/proc/{pid}/task/{pid}/children") as listed:
            return listed.read().split()
    except OSError:
        return []


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--sshd", type=int, required=True)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--export", required=True)
    parser.add_argument("pairs", nargs="+")
    args = parser.parse_args()
    names, commands = args.pairs[0::2], args.pairs[1::2]
    runs = {name: [] for name in names}
    for _ in range(args.runs):
        for name, command in zip(names, commands):
            before = reaped_cpu(args.sshd)
            subprocess.run(["sh", "-c", command], check=True, stdin=subprocess.DEVNULL)
            # The session's sshd ends a moment after the client: wait (bounded) until the listener reaped it.
            deadline = time.monotonic() + 10
            while children(args.sshd) and time.monotonic() < deadline:
                time.sleep(0.01)
            runs[name].append({"server_cpu_ms": (reaped_cpu(args.sshd) - before) * 1000})
    with open(args.export, "w") as out:
        json.dump({"commands": [{"name": n, "command": c, "runs": runs[n]} for n, c in zip(names, commands)]}, out,
                  indent=1)
    for name in names:
        values = sorted(run["server_cpu_ms"] for run in runs[name])
        print(f"{name}: server CPU {statistics.median(values):,.0f} ms ({values[0]:,.0f}-{values[-1]:,.0f})")


if __name__ == "__main__":
    main()
