#!/usr/bin/env python3
"""bench/summarize.py: turns hyperfine JSON exports (one per comparison) into a Markdown table of medians,
min and max, and the ratio of sshelf to its peer measured in the same run."""
import json
import pathlib
import platform
import statistics
import sys

def row(path):
    data = json.loads(pathlib.Path(path).read_text())["results"]
    def stats(result):
        times = result["times"]
        return statistics.median(times), min(times), max(times)
    ours = stats(data[0])
    line = f"| {pathlib.Path(path).stem} | `{data[0]['command']}` | {ours[0]*1000:.1f} ms ({ours[1]*1000:.1f}–{ours[2]*1000:.1f}) |"
    if len(data) > 1:
        peer = stats(data[1])
        line += f" `{data[1]['command']}` | {peer[0]*1000:.1f} ms ({peer[1]*1000:.1f}–{peer[2]*1000:.1f}) | {ours[0]/peer[0]:.2f} |"
    else:
        line += " — | — | — |"
    return line

def main(directory):
    files = sorted(pathlib.Path(directory).glob("*.json"))
    print(f"machine: {platform.machine()}, {platform.system()} {platform.release()}, python {platform.python_version()}\n")
    print("| benchmark | sshelf | median (min–max) | peer | median (min–max) | ratio |")
    print("|---|---|---|---|---|---|")
    for path in files:
        print(row(path))
    for extra in sorted(pathlib.Path(directory).glob("*.txt")):
        print(f"\n{extra.stem}: {extra.read_text().strip()}")

main(sys.argv[1])
