#!/usr/bin/env python3
"""bench/files-list.py: the file pane on a big remote folder, measured from outside (bench/ptydrive on a pty, the
way a person sees it), round by round with `sftp -b` listing the same folder (`ls -l`, output to /dev/null).

  files-list.py tree DIR COUNT SIZE     makes DIR with COUNT files of SIZE bytes, named WORD-NNNNN (ten words, one
                                        of them, quebec, the only one with a q: the filter key narrows to a tenth)
  files-list.py measure --runs N --out RESULTS --count COUNT --sftp 'COMMAND' -- SSHELF FILES ARGS...

For sshelf, from the moment before fork: the pane drawn ("this machine:"), the host's side logged in ("connecting
to" gone), the first screenful of the host's names, the whole folder listed ("COUNT entries" without "reading...");
then, in the complete listing, each key of j k G g / q Backspace to its screen (the bottom row names the entry under
the cursor; the footer shows the filter and its count). For sftp: from the moment before it starts, its first line of
the listing (it logs in, reads the whole folder and sorts it before printing any: the same login as sshelf's, so the
first screenful of each is compared from process start) and its exit. Writes RESULTS/files-list.json
(hyperfine-shaped, interleaved: bench/summarize.py pairs them), files-list.jsonl (every ptydrive result),
files-list-screen.dump (the last screen) and files-list-pane.txt (the first screenful, the login, every key:
min/median/max).
"""
import argparse
import json
import os
import pathlib
import re
import statistics
import subprocess
import sys
import time

WORDS = ["alpha", "bravo", "charlie", "delta", "echo", "foxtrot", "golf", "hotel", "india", "quebec"]


def name(index):
    return f"{WORDS[index % len(WORDS)]}-{index:05d}"


def tree(directory, count, size):
    folder = pathlib.Path(directory)
    folder.mkdir(parents=True, exist_ok=True)
    block = os.urandom(size)
    for index in range(count):
        (folder / name(index)).write_bytes(block)


def details(entry):
    """The pane's bottom row with `entry` under the cursor: `MODE OWNER GROUP SIZE bytes TIME NAME`."""
    return r"(?m)bytes .* " + entry + r" *$"


def measure(args, sshelf):
    count = args.count
    ordered = sorted(name(index) for index in range(count))
    first, second, last = ordered[0], ordered[1], ordered[-1]
    filtered = sum(1 for n in ordered if "q" in n)
    keys = ["j", "k", "G", "g", "/", "q", "\x7f"]
    shown = ["j", "k", "G", "g", "/", "q", "Backspace"]
    expect = [
        [details(second)],
        [details(first)],
        [details(last)],
        [details(first)],
        [rf"\b{count} entries  /_"],
        [rf"\b{filtered} entries of {count}  /q_"],
        [rf"\b{count} entries  /_"],
    ]
    out = pathlib.Path(args.out)
    expect_file = out / "files-list-expect.jsonl"
    expect_file.write_text("".join(json.dumps({"all": e}) + "\n" for e in expect))
    # A full screenful of the host's side: 40 rows leave 34 for entries; 30 names on screen is that page drawn.
    screenful = r"(?s)(?:\b[a-z]+-\d{5}\b.*?){30}"
    drive = [
        str(pathlib.Path(__file__).parent / "ptydrive"), "--rows", "40", "--cols", "160", "--rows-text",
        "this machine:", "--mark", "connected=!connecting to", "--mark", f"screenful={screenful}",
        "--ready", rf"\b{count} entries\b", "--not-ready", r"reading\.\.\.",
        # The cursor stays on the entry it was on while the folder arrived: g first, untimed, puts it on top.
        "--prelude", "g", "--prelude-ready", details(first), "--query", "".join(keys),
        "--expect", str(expect_file), "--quit", "\x1bq\x1bq", "--timeout", "30", "--dump",
        str(out / "files-list-screen.dump"), "--"] + sshelf
    results, whole, peer, peer_first = [], [], [], []
    for round_number in range(args.warmup + args.runs):
        done = subprocess.run(drive, stdout=subprocess.PIPE, stdin=subprocess.DEVNULL, check=False)
        if done.returncode != 0:
            raise SystemExit(f"files-list: ptydrive failed ({done.returncode})")
        result = json.loads(done.stdout)
        start = time.perf_counter()
        sftp = subprocess.Popen(args.sftp, shell=True, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE)
        first_line = None
        for line in sftp.stdout:
            if first_line is None and re.search(rb"\b[a-z]+-\d{5}\b", line):
                first_line = time.perf_counter() - start
        if sftp.wait() != 0 or first_line is None:
            raise SystemExit(f"files-list: sftp failed ({sftp.returncode}) or listed nothing")
        elapsed = time.perf_counter() - start
        if round_number < args.warmup:
            continue
        results.append(result)
        whole.append(result["ready_ms"] / 1000)
        peer.append(elapsed)
        peer_first.append(first_line * 1000)
        print(f"round {round_number - args.warmup + 1}: sshelf {result['ready_ms']:.0f} ms (screenful "
              f"{result['marks_ms']['screenful']:.0f} ms), sftp {elapsed * 1000:.0f} ms (first line "
              f"{first_line * 1000:.0f} ms)", file=sys.stderr)
    with open(out / "files-list.jsonl", "a") as raw:
        for result in results:
            raw.write(json.dumps(result) + "\n")
    export = [
        {"command": f"sshelf files: {count} entries listed, on screen", "times": whole,
         "median": statistics.median(whole), "interleaved": True},
        {"command": f"sftp -b 'ls -l', {count} entries, to /dev/null", "times": peer,
         "median": statistics.median(peer), "interleaved": True},
    ]
    (out / "files-list.json").write_text(json.dumps({"results": export}, indent=1))

    def spread(values):
        return f"{statistics.median(values):.1f} ms ({min(values):.1f}–{max(values):.1f})"

    lines = [f"file pane, {count} remote entries, {len(results)} runs (from outside on a pty, ms from start):"]
    lines.append(f"  logged in (connecting gone): {spread([r['marks_ms']['connected'] for r in results])}")
    lines.append(f"  first screenful of names: {spread([r['marks_ms']['screenful'] for r in results])}")
    lines.append("  first screenful after the login: " + spread(
        [r["marks_ms"]["screenful"] - r["marks_ms"]["connected"] for r in results]))
    lines.append(f"  whole folder listed: {spread([r['ready_ms'] for r in results])}")
    screenfuls = [r["marks_ms"]["screenful"] for r in results]
    lines.append(f"  sftp -b 'ls -l', its first line of the listing: {spread(peer_first)}")
    lines.append("  first screenful ÷ sftp's first line, round by round: " + ", ".join(
        f"{mine / theirs:.2f}" for mine, theirs in zip(screenfuls, peer_first)))
    every = []
    for index, key in enumerate(shown):
        values = [r["keys_ms"][index] for r in results]
        every += values
        lines.append(f"  key {key}: {spread(values)}")
    lines.append(f"  every key: {spread(every)}; over 16 ms: {sum(1 for v in every if v > 16)} of {len(every)}")
    lines.append(f"  peak memory (VmHWM): {max(r['hwm_kib'] for r in results) / 1024:.1f} MiB")
    (out / "files-list-pane.txt").write_text("\n".join(lines) + "\n")
    print("\n".join(lines))


def main():
    if len(sys.argv) > 1 and sys.argv[1] == "tree":
        tree(sys.argv[2], int(sys.argv[3]), int(sys.argv[4]))
        return
    split = sys.argv.index("--") if "--" in sys.argv else len(sys.argv)
    parser = argparse.ArgumentParser()
    parser.add_argument("mode", choices=["measure"])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--warmup", type=int, default=1)
    parser.add_argument("--out", required=True)
    parser.add_argument("--count", type=int, required=True)
    parser.add_argument("--sftp", required=True, help="the peer's command line (a shell command)")
    args = parser.parse_args(sys.argv[1:split])
    sshelf = sys.argv[split + 1:]
    measure(args, sshelf)


main()
