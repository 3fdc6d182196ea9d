#!/usr/bin/env python3
"""bench/summarize.py: turns a results folder into Markdown — hyperfine JSON exports and bench/interleave.py's (the same
shape; one per comparison, a run may hold several pairs) into a table of medians, min and max, and the ratio of sshelf
to its peer measured in the same run; bench/recording-cpu.py's and recording-server.py's runs (*.runs, or *.json) into
a table of CPU or instructions; bench/tui's tui.jsonl into its own table; each *.txt as it is. A file it cannot read (not JSON, or JSON
of another shape) is skipped, and the summary says which and why, rather than the whole summary failing."""
import json
import pathlib
import platform
import statistics
import sys

class Unreadable(Exception):
    """A results file this script cannot summarize; the message says why."""


def load(path):
    try:
        return json.loads(pathlib.Path(path).read_text())
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as error:
        raise Unreadable(f"not JSON ({error})")


def timed_results(data):
    """The `results` of a hyperfine or interleave.py export, each with a command and at least one time."""
    if not isinstance(data, dict) or not isinstance(data.get("results"), list):
        raise Unreadable("no \"results\" list (not a hyperfine or bench/interleave.py export)")
    results = data["results"]
    for result in results:
        if not isinstance(result, dict) or not isinstance(result.get("command"), str):
            raise Unreadable("a result without a command")
        times = result.get("times")
        if not isinstance(times, list) or not times or not all(isinstance(t, (int, float)) for t in times):
            raise Unreadable(f"no times for `{result['command']}`")
    return results


def ratio(ours, theirs):
    return f"{ours / theirs:.2f}" if theirs > 0 else "—"


def rows(path, data):
    """One row per pair: commands 1 and 2 of a run, then 3 and 4, and so on (sshelf first, its peer second)."""
    data = timed_results(data)
    def stats(result):
        times = result["times"]
        return statistics.median(times), min(times), max(times)
    lines = []
    for index in range(0, len(data), 2):
        ours = stats(data[index])
        line = f"| {pathlib.Path(path).stem} | `{data[index]['command']}` | {ours[0]*1000:.1f} ms ({ours[1]*1000:.1f}–{ours[2]*1000:.1f}) |"
        if index + 1 < len(data):
            peer = stats(data[index + 1])
            shown = ratio(ours[0], peer[0])
            # Interleaved runs (bench/interleave.py, tui-connect.py) pair up round by round: the ratio's min–max.
            if data[index].get("interleaved") and data[index + 1].get("interleaved"):
                rounds = [a / b for a, b in zip(data[index]["times"], data[index + 1]["times"]) if b > 0]
                if rounds:
                    shown += f" ({min(rounds):.2f}–{max(rounds):.2f})"
            line += f" `{data[index + 1]['command']}` | {peer[0]*1000:.1f} ms ({peer[1]*1000:.1f}–{peer[2]*1000:.1f}) | {shown} |"
        else:
            line += " — | — | — |"
        lines.append(line)
    return lines


def usage_rows(path, data):
    """interleave.py's CPU seconds and peak memory per command, when the export has them."""
    lines = []
    for result in timed_results(data):
        cpu, rss = result.get("cpu_times"), result.get("peak_rss_kib")
        if not isinstance(cpu, list) or not cpu or not isinstance(rss, list) or not rss:
            continue
        lines.append(f"| {pathlib.Path(path).stem} | `{result['command']}` | {spread(cpu, 'ms', 1000)} | "
                     f"{spread(rss, 'MiB', 1 / 1024)} |")
    return lines


def cpu_rows(path, data):
    """bench/recording-cpu.py's and recording-server.py's runs: per command, the median task-clock (ms), instructions
    (G) or server CPU (ms), with min–max, and each command's ratio to the first."""
    commands = data.get("commands") if isinstance(data, dict) else None
    if not isinstance(commands, list) or not commands:
        raise Unreadable("no \"commands\" list (not a bench/recording-cpu.py export)")
    lines, first = [], None
    for command in commands:
        runs = command.get("runs") if isinstance(command, dict) else None
        if not isinstance(runs, list) or not runs or not all(isinstance(run, dict) and len(run) == 1 for run in runs):
            raise Unreadable("a command without runs")
        key = next(iter(runs[0]))
        units = {
            "task_ms": ("ms task-clock", 1), "instructions": ("G instructions", 1e-9),
            "server_cpu_ms": ("ms server CPU", 1),
        }
        unit, scale = units.get(key, (key, 1))
        values = [run.get(key) for run in runs]
        if not all(isinstance(value, (int, float)) for value in values):
            raise Unreadable(f"runs of `{command.get('name')}` without {key}")
        median = statistics.median(values)
        first = median if first is None else first
        lines.append(f"| {pathlib.Path(path).name} | `{command.get('name')}` | {spread(values, unit, scale)} | "
                     f"{ratio(median, first) if lines else '—'} |")
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
    folder = pathlib.Path(directory)
    skipped = []
    timed, usage, cpu = [], [], []
    for path in sorted(folder.glob("*.json")) + sorted(folder.glob("*.runs")):
        try:
            data = load(path)
            if isinstance(data, dict) and "commands" in data and "results" not in data:
                cpu += cpu_rows(path, data)
            else:
                timed += rows(path, data)
                usage += usage_rows(path, data)
        except Unreadable as why:
            skipped.append(f"{path.name}: {why}")
    print(f"machine: {platform.machine()}, {platform.system()} {platform.release()}, python {platform.python_version()}\n")
    print("| benchmark | sshelf | median (min–max) | peer | median (min–max) | ratio |")
    print("|---|---|---|---|---|---|")
    for line in timed:
        print(line)
    if usage:
        print("\n| benchmark (bench/interleave.py) | command | CPU, median (min–max) | peak memory, median (min–max) |")
        print("|---|---|---|---|")
        for line in usage:
            print(line)
    if cpu:
        print("\n| CPU (bench/recording-cpu.py, recording-server.py) | command | median (min–max) | ratio to the first |")
        print("|---|---|---|---|")
        for line in cpu:
            print(line)
    tui = folder / "tui.jsonl"
    if tui.exists():
        print()
        try:
            for line in tui_table(tui):
                print(line)
        except (OSError, ValueError, KeyError, TypeError, statistics.StatisticsError) as error:
            skipped.append(f"{tui.name}: not bench/tui's runs ({error!r})")
    # Other JSON lines are raw rounds whose summary is in a .json or .txt beside them (files-list.jsonl).
    for raw in sorted(folder.glob("*.jsonl")):
        if raw.name != "tui.jsonl":
            skipped.append(f"{raw.name}: raw rounds (summarized in the files beside it)")
    for extra in sorted(folder.glob("*.txt")):
        print(f"\n{extra.stem}: {extra.read_text(errors='replace').strip()}")
    if skipped:
        print("\nNot summarized:")
        for line in skipped:
            print(f"- {line}")
            print(f"summarize: skipped {line}", file=sys.stderr)


if __name__ == "__main__":
    if len(sys.argv) != 2:
        raise SystemExit("usage: bench/summarize.py RESULTS_FOLDER")
    main(sys.argv[1])
