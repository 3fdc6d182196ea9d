#!/usr/bin/env python3
"""bench/enter-to-prompt.py: the measuring half of bench/enter-to-prompt.bench. In a private tmux server, from outside
the programs: the time from pressing Enter on a host in `sshelf ui` until the remote shell's prompt is on the pane,
against the time from pressing Enter on an `ssh` command line in a local shell until the same prompt — rounds
interleaved. The pane's output is copied to a file by `tmux pipe-pane`; the clock stops when the prompt's bytes
arrive there. Writes a hyperfine-shaped JSON (bench/summarize.py makes the table) and prints a summary.

    enter-to-prompt.py SOCKET RUNS OUT.json   (the tmux server, sessions "tui" and "ssh", is set up by the .bench)
"""
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time

PROMPT = b"bench-prompt$ "


def tmux(socket, *arguments):
    return subprocess.run(["tmux", "-L", socket, *arguments], check=True, capture_output=True, text=True).stdout


def screen(socket, target):
    return tmux(socket, "capture-pane", "-p", "-t", target)


def wait_screen(socket, target, text, timeout=30, last_line=False):
    """Until `text` is on the pane (or, with last_line, is its last non-empty line)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        shown = screen(socket, target)
        lines = [line.rstrip() for line in shown.splitlines() if line.strip()]
        if (lines and lines[-1] == text) if last_line else text in shown:
            return
        time.sleep(0.02)
    raise SystemExit(f"enter-to-prompt: '{text}' never appeared in {target}:\n{screen(socket, target)}")


def enter_to_prompt(socket, target):
    """Seconds from sending Enter to `target` until PROMPT arrives in its output."""
    with tempfile.NamedTemporaryFile(prefix="sshelf-pane-", delete=False) as capture:
        path = capture.name
    tmux(socket, "pipe-pane", "-t", target, f"cat >> {path}")
    try:
        with open(path, "rb") as stream:
            start = time.perf_counter()
            tmux(socket, "send-keys", "-t", target, "Enter")
            seen = b""
            deadline = start + 30
            while time.perf_counter() < deadline:
                chunk = stream.read()
                if chunk:
                    seen += chunk
                    if PROMPT in seen:
                        return time.perf_counter() - start
                else:
                    time.sleep(0.0005)
            raise SystemExit(f"enter-to-prompt: no remote prompt in {target}:\n{screen(socket, target)}")
    finally:
        tmux(socket, "pipe-pane", "-t", target)
        os.unlink(path)


def leave(socket, target, back, last_line=False):
    tmux(socket, "send-keys", "-t", target, "-l", "exit")
    tmux(socket, "send-keys", "-t", target, "Enter")
    wait_screen(socket, target, back, last_line=last_line)


def main(socket, runs, out):
    ssh_commands = {
        "ssh-default": os.environ["SSH_DEFAULT"],
        "ssh-same": os.environ["SSH_SAME"],
    }
    times = {"tui": [], "ssh-same": [], "ssh-default": []}
    for round_number in range(runs + 2):
        # sshelf ui: the one host is selected; Enter logs in and hands the terminal to the remote shell.
        wait_screen(socket, "tui", "1 host")
        elapsed = enter_to_prompt(socket, "tui")
        leave(socket, "tui", "session to bench ended")
        if round_number >= 2:  # two warm-up rounds
            times["tui"].append(elapsed)
        for name, command in ssh_commands.items():
            tmux(socket, "send-keys", "-t", "ssh", "-l", command)
            elapsed = enter_to_prompt(socket, "ssh")
            leave(socket, "ssh", "local$", last_line=True)
            if round_number >= 2:
                times[name].append(elapsed)
    results = [
        {"command": "sshelf ui: Enter on a host → remote prompt", "times": times["tui"], "interleaved": True},
        {"command": "ssh HOST (defaults) → remote prompt", "times": times["ssh-default"], "interleaved": True},
        {"command": "sshelf ui: Enter on a host → remote prompt", "times": times["tui"], "interleaved": True},
        {"command": "ssh HOST (libssh2's KEX, cipher, MAC) → remote prompt", "times": times["ssh-same"], "interleaved": True},
    ]
    json.dump({"results": results}, open(out, "w"), indent=1)
    for name, values in times.items():
        print(f"{name}: median {statistics.median(values) * 1000:.1f} ms "
              f"({min(values) * 1000:.1f}–{max(values) * 1000:.1f}), {len(values)} runs")


main(sys.argv[1], int(sys.argv[2]), sys.argv[3])
