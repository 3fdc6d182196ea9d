#!/usr/bin/env python3
"""bench/unlock-on-use.py: OpenSSH's ssh through the ssh_config bridge to a host whose key is in a locked sshelf vault,
the passphrase typed by this script at the bridge's prompt (in a pseudo-terminal, as a user at a terminal), against ssh
with OpenSSH's ssh-agent holding the same key. Both are timed from the moment the passphrase is sent (ssh-agent: from
the start) to ssh's exit; rounds interleave, the vault is locked again before each of sshelf's. Writes a
hyperfine-shaped JSON export (sshelf first, its peer second) for bench/summarize.py.

    unlock-on-use.py --runs N --export OUT.json --sshelf BIN --config FILE --host NAME --passphrase-file FILE
                     --peer "COMMAND"
"""
import argparse
import json
import os
import pty
import select
import statistics
import subprocess
import time

parser = argparse.ArgumentParser()
parser.add_argument("--runs", type=int, default=10)
parser.add_argument("--warmup", type=int, default=1)
parser.add_argument("--export", required=True)
parser.add_argument("--sshelf", required=True)
parser.add_argument("--config", required=True)
parser.add_argument("--host", required=True)
parser.add_argument("--passphrase-file", required=True)
parser.add_argument("--peer", required=True)
arguments = parser.parse_args()
passphrase = open(arguments.passphrase_file, "rb").read().strip()
PROMPT = b"Vault passphrase for sshelf"


def locked_ssh():
    """Seconds from the passphrase sent to ssh's exit, ssh run on a pseudo-terminal of its own."""
    subprocess.run([arguments.sshelf, "vault", "lock"], check=True, stdout=subprocess.DEVNULL)
    pid, fd = pty.fork()
    if pid == 0:
        os.execvp("ssh", ["ssh", "-F", arguments.config, arguments.host, "true"])
    seen = b""
    deadline = time.monotonic() + 30
    while PROMPT not in seen:
        if time.monotonic() > deadline:
            raise SystemExit(f"unlock-on-use: no passphrase prompt: {seen!r}")
        ready, _, _ = select.select([fd], [], [], 1)
        if ready:
            seen += os.read(fd, 4096)
    start = time.perf_counter()
    os.write(fd, passphrase + b"\n")
    while True:
        try:
            if not os.read(fd, 4096):
                break
        except OSError:
            break
    _, status = os.waitpid(pid, 0)
    elapsed = time.perf_counter() - start
    os.close(fd)
    if os.waitstatus_to_exitcode(status) != 0:
        raise SystemExit(f"unlock-on-use: ssh failed: {seen!r}")
    return elapsed


def agent_ssh():
    start = time.perf_counter()
    subprocess.run(arguments.peer, shell=True, check=True, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL)
    return time.perf_counter() - start


names = [f"ssh {arguments.host} true, vault locked, passphrase typed (from the passphrase sent)",
         f"ssh {arguments.host} true, key in ssh-agent"]
times = [[], []]
for round_number in range(arguments.warmup + arguments.runs):
    values = [locked_ssh(), agent_ssh()]
    if round_number >= arguments.warmup:
        for index, value in enumerate(values):
            times[index].append(value)
results = [{"command": name, "times": values, "median": statistics.median(values), "interleaved": True}
           for name, values in zip(names, times)]
json.dump({"results": results}, open(arguments.export, "w"), indent=1)
for result in results:
    values = result["times"]
    print(f"{result['command']}: median {statistics.median(values) * 1000:.1f} ms "
          f"({min(values) * 1000:.1f}–{max(values) * 1000:.1f}), {len(values)} runs")
