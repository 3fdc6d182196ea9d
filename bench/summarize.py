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

def spread(values, unit="ms", scale=1.0):
    values = [v * scale for v in values]
    return f"{statistics.median(values):.1f} {unit} ({min(values):.1f}–{max(values):.1f})"

def tui_table(path):
    """bench/tui's runs: per data set, sshelf (catalog cache current, and rebuilt first) against fzf."""
    runs = [json.loads(line) for line in path.read_text().splitlines() if line.strip()]
    sets = []
    for run in runs:
        key = (run["data"], run["hosts"], run["query"])
        if key not in sets:
            sets.append(key)
    lines = ["| TUI (bench/tui, from outside on a pty) | sshelf | fzf | ratio | sshelf, catalog cache rebuilt first |",
             "|---|---|---|---|---|"]
    measures = [
        ("host rows on screen", lambda r: [r["rows_ms"]], "ms", 1.0),
        ("whole list loaded", lambda r: [r["ready_ms"]], "ms", 1.0),
        ("slowest key, complete results drawn", lambda r: [max(r["keys_ms"])], "ms", 1.0),
        ("every key (all runs)", lambda r: r["keys_ms"], "ms", 1.0),
        ("peak memory (VmHWM)", lambda r: [r["hwm_kib"]], "MiB", 1 / 1024),
    ]
    for data, hosts, query in sets:
        def values(tool, pick):
            out = []
            for r in runs:
                if (r["data"], r["hosts"], r["query"], r["tool"]) == (data, hosts, query, tool):
                    out += pick(r["result"])
            return out
        for name, pick, unit, scale in measures:
            ours, theirs, cold = values("sshelf", pick), values("fzf", pick), values("sshelf-cold", pick)
            if not ours or not theirs:
                continue
            ratio = statistics.median(ours) / statistics.median(theirs)
            label = f"{data} {hosts:,} hosts, '{query}': {name}"
            lines.append(f"| {label} | {spread(ours, unit, scale)} | {spread(theirs, unit, scale)} | {ratio:.2f} | "
                         f"{spread(cold, unit, scale) if cold else '—'} |")
    return lines

def main(directory):
    files = sorted(pathlib.Path(directory).glob("*.json"))
    print(f"machine: {platform.machine()}, {platform.system()} {platform.release()}, python {platform.python_version()}\n")
    print("| benchmark | sshelf | median (min–max) | peer | median (min–max) | ratio |")
    print("|---|---|---|---|---|---|")
    for path in files:
        for line in rows(path):
            print(line)
    tui = pathlib.Path(directory) / "tui.jsonl"
    if tui.exists():
        print()
        for line in tui_table(tui):
            print(line)
    for extra in sorted(pathlib.Path(directory).glob("*.txt")):
        print(f"\n{extra.stem}: {extra.read_text().strip()}")

main(sys.argv[1])
