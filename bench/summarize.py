#!/usr/bin/env python3
"""bench/summarize.py: turns hyperfine JSON exports (one per comparison; a run may hold several pairs) into a Markdown table of medians,
min and max, and the ratio of sshelf to its peer measured in the same run."""
import json
import pathlib
import platform
import statistics
import sys

def rows(path):
    """One row per pair: commands 1 and 2 of a run, then 3 and 4, and so on (sshelf first, its peer second)."""
    data = json.loads(pathlib.Path(path).read_text())["results"]
    def stats(result):
        times = result["times"]
        return statistics.median(times), min(times), max(times)
    lines = []
    for index in range(0, len(data), 2):
        ours = stats(data[index])
        line = f"| {pathlib.Path(path).stem} | `{data[index]['command']}` | {ours[0]*1000:.1f} ms ({ours[1]*1000:.1f}–{ours[2]*1000:.1f}) |"
        if index + 1 < len(data):
            peer = stats(data[index + 1])
            ratio = f"{ours[0]/peer[0]:.2f}"
            # Interleaved runs (bench/interleave.py, tui-connect.py) pair up round by round: the ratio's min–max.
            if data[index].get("interleaved") and data[index + 1].get("interleaved"):
                rounds = [a / b for a, b in zip(data[index]["times"], data[index + 1]["times"])]
                ratio += f" ({min(rounds):.2f}–{max(rounds):.2f})"
            line += f" `{data[index + 1]['command']}` | {peer[0]*1000:.1f} ms ({peer[1]*1000:.1f}–{peer[2]*1000:.1f}) | {ratio} |"
        else:
            line += " — | — | — |"
        lines.append(line)
    return lines

def main(directory):
    files = sorted(pathlib.Path(directory).glob("*.json"))
    print(f"machine: {platform.machine()}, {platform.system()} {platform.release()}, python {platform.python_version()}\n")
    print("| benchmark | sshelf | median (min–max) | peer | median (min–max) | ratio |")
    print("|---|---|---|---|---|---|")
    for path in files:
        for line in rows(path):
            print(line)
    for extra in sorted(pathlib.Path(directory).glob("*.txt")):
        print(f"\n{extra.stem}: {extra.read_text().strip()}")

main(sys.argv[1])
