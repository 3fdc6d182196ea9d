#!/usr/bin/env python3
"""bench/forward-push.py: the measuring half of bench/forward.bench. Pushes random data through each forwarder in
turn (interleaved, so every round measures sshelf and its peers under the same load), one stream or several at once,
and prints a Markdown table: MB/s, the forwarding client's CPU seconds per GiB, and sshd's side per GiB (CPU
seconds, read and write system calls, context switches: what the server pays to serve each client). Ratios are of
medians, with the min-max of the per-round ratios.

    forward-push.py PLAN.json   (written by forward.bench: the forwarders, their ports and pids, the sink)
"""
import json
import os
import socket
import statistics
import subprocess
import sys
import threading
import time

TICK = os.sysconf("SC_CLK_TCK")
BLOCK = os.urandom(1 << 20)


def proc_counters(pid):
    """CPU seconds (user+system over all threads), read and write syscalls, context switches of one process."""
    try:
        fields = open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()
        cpu = (int(fields[11]) + int(fields[12])) / TICK
        io = dict(line.split(": ") for line in open(f"/proc/{pid}/io").read().splitlines())
        switches = 0
        for task in os.listdir(f"/proc/{pid}/task"):
            for line in open(f"/proc/{pid}/task/{task}/status"):
                if line.startswith(("voluntary_ctxt_switches", "nonvoluntary_ctxt_switches")):
                    switches += int(line.split()[1])
        return [cpu, int(io["syscr"]), int(io["syscw"]), switches]
    except (FileNotFoundError, ProcessLookupError, KeyError):
        return [0.0, 0, 0, 0]


def total(pids):
    sums = [0.0, 0, 0, 0]
    for pid in pids:
        for index, value in enumerate(proc_counters(pid)):
            sums[index] += value
    return sums


def sshd_pids():
    out = subprocess.run(["pgrep", "-x", "sshd"], capture_output=True, text=True).stdout.split()
    return [int(pid) for pid in out]


def push(ports, streams, mebibytes, client_pids):
    """`streams` connections at once (stream i on ports[i % len]), each sending `mebibytes` MiB and waiting for the
    sink's byte count. Returns MB/s and, per GiB, client CPU s, sshd CPU s, sshd reads, writes, context switches."""
    sockets = [socket.create_connection(("127.0.0.1", ports[i % len(ports)])) for i in range(streams)]
    time.sleep(0.3)  # channels open before the clock starts
    servers = sshd_pids()
    client_before, sshd_before = total(client_pids), total(servers)
    start = time.perf_counter()
    failures = []

    def run(sock):
        for _ in range(mebibytes):
            sock.sendall(BLOCK)
        sock.shutdown(socket.SHUT_WR)
        ack = b""
        while len(ack) < 8:
            data = sock.recv(8 - len(ack))
            if not data:
                break
            ack += data
        sock.close()
        if int.from_bytes(ack, "big") != mebibytes << 20:
            failures.append("short transfer")

    threads = [threading.Thread(target=run, args=(sock,)) for sock in sockets]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    elapsed = time.perf_counter() - start
    if failures:
        raise SystemExit(f"forward-push: {failures[0]} through port(s) {ports}")
    gib = streams * mebibytes / 1024
    client_after, sshd_after = total(client_pids), total(servers)
    return {
        "rate": streams * mebibytes * 1.048576 / elapsed,
        "client": (client_after[0] - client_before[0]) / gib,
        "sshd": (sshd_after[0] - sshd_before[0]) / gib,
        "reads": (sshd_after[1] - sshd_before[1]) / gib,
        "writes": (sshd_after[2] - sshd_before[2]) / gib,
        "switches": (sshd_after[3] - sshd_before[3]) / gib,
    }


def spread(values):
    return statistics.median(values), min(values), max(values)


def main(plan_path):
    plan = json.load(open(plan_path))
    rounds = plan["rounds"]
    print(f"{plan['title']}\n")
    for group in plan["groups"]:
        results = {entry["name"]: [] for entry in group["forwarders"]}
        for _ in range(rounds):
            for entry in group["forwarders"]:
                results[entry["name"]].append(
                    push(entry["ports"], group["streams"], group["mebibytes"], entry["pids"]))
        print(f"**{group['title']}** ({group['streams']} × {group['mebibytes']} MiB per run, median of {rounds} runs)\n")
        print("| forwarder | MB/s (min–max) | client CPU s/GiB | sshd CPU s/GiB | sshd reads / writes / switches per GiB |"
              " MB/s ratio (min–max) |")
        print("|---|---|---|---|---|---|")
        base = group["forwarders"][0]["name"]
        for entry in group["forwarders"]:
            runs = results[entry["name"]]
            rate = spread([r["rate"] for r in runs])
            line = (f"| {entry['label']} | {rate[0]:.0f} ({rate[1]:.0f}–{rate[2]:.0f}) | "
                    f"{statistics.median(r['client'] for r in runs):.2f} | "
                    f"{statistics.median(r['sshd'] for r in runs):.2f} | "
                    f"{statistics.median(r['reads'] for r in runs):.0f} / {statistics.median(r['writes'] for r in runs):.0f}"
                    f" / {statistics.median(r['switches'] for r in runs):.0f} |")
            if entry["name"] == base:
                line += " — |"
            else:
                ratios = [ours["rate"] / theirs["rate"] for ours, theirs in zip(results[base], runs)]
                ours = statistics.median(r["rate"] for r in results[base])
                line += f" {ours / rate[0]:.2f} ({min(ratios):.2f}–{max(ratios):.2f}) |"
            print(line)
        print(f"\nratio: {group['forwarders'][0]['label']} ÷ that row, per round for the range.\n")


main(sys.argv[1])
