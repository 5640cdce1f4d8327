#!/usr/bin/env python3
"""Turns llvs-bench JSON lines into benchmarks/results.md (called by Scripts/bench).

Usage: bench-report.py RESULTS.jsonl RESULTS.md SCALE ELAPSED_SECONDS

The report names the machine and the commit, checks the performance targets of issue 8
(README, "Performance") against the figures, tabulates the HTTP exchange (W9), and lists
every figure.
"""
import datetime
import json
import os
import platform
import subprocess
import sys

GIB = 1 << 30


def run(command):
    try:
        return subprocess.run(command, capture_output=True, text=True, check=False).stdout.strip()
    except OSError:
        return ""


def machine():
    cpu = "unknown"
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    cpu = line.split(":", 1)[1].strip()
                    break
    except OSError:
        pass
    memory = "unknown"
    try:
        with open("/proc/meminfo") as f:
            kib = int(f.readline().split()[1])
            memory = f"{kib / (1 << 20):.1f} GiB"
    except (OSError, ValueError, IndexError):
        pass
    temporary = os.environ.get("TMPDIR", "/tmp")
    filesystem = run(["df", "-T", temporary]).splitlines()[-1:] or ["unknown"]
    swift = run(["swift", "--version"]).splitlines()[:1] or ["unknown"]
    return [
        ("CPU", f"{cpu}, {os.cpu_count()} cores"),
        ("memory", memory),
        ("kernel", f"{platform.system()} {platform.release()}"),
        ("Swift", swift[0]),
        ("stores written to", f"{temporary} ({' '.join(filesystem[0].split()[:2])})"),
    ]


def commit():
    revision = run(["git", "rev-parse", "--short=12", "HEAD"]) or "unknown"
    dirty = run(["git", "status", "--porcelain", "--untracked-files=no"])
    return revision + (" with uncommitted changes" if dirty else "")


def figure(figures, workload, backend, metric, **parameters):
    for f in figures:
        if (f["workload"], f["backend"], f["metric"]) == (workload, backend, metric) and all(
            f.get(k) == v for k, v in parameters.items()
        ):
            return f["value"]
    return None


def targets(figures):
    """Rows of (target, backend, measured, met) for the issue-8 targets."""
    rows = []

    def check(target, backend, value, text, met):
        if value is not None:
            rows.append((target, backend, text, "yes" if met else "**no**"))

    for backend in ("file", "sqlite", "memory"):
        for kind, label in (("merge_base_ratio_deepest_shallowest", "merge base"), ("merge_ratio_deepest_shallowest", "full merge")):
            v = figure(figures, "W4", backend, kind)
            check(f"W4 {label} at 100,000 versions within 2× of 1,000", backend, v, f"{v:.2f}×" if v is not None else "", v is not None and v <= 2)
    for backend in ("file", "sqlite", "memory"):
        v = figure(figures, "W7", backend, "diff_ratio_largest_smallest")
        check("W7 diff at 1,000,000 values within 3× of 10,000", backend, v, f"{v:.2f}×" if v is not None else "", v is not None and v <= 3)
    for backend in ("file", "sqlite", "memory"):
        v = figure(figures, "W5", backend, "open_ms", versions=100000)
        check("W5 open a 100,000-version store in under 1 s", backend, v, f"{v:.0f} ms" if v is not None else "", v is not None and v < 1000)
    for backend, limit in (("file", 2.0), ("sqlite", 1.0)):
        v = figure(figures, "W1", backend, "ms_per_version")
        check(f"W1 serial version of 10 updates under {limit:g} ms", backend, v, f"{v:.3f} ms" if v is not None else "", v is not None and v < limit)
    for backend in ("file", "sqlite", "memory"):
        t = figure(figures, "W8", backend, "insert_ms")
        m = figure(figures, "W8", backend, "peak_rss_bytes")
        if t is not None and m is not None:
            check("W8 1,000,000 values in one version: under 10 s and 1 GiB peak", backend, t,
                  f"{t / 1000:.1f} s, {m / GIB:.2f} GiB", t < 10000 and m < GIB)
    for backend in ("file", "sqlite", "memory"):
        v = figure(figures, "W2", backend, "us_per_read_warm")
        check("W2 warm point read under 20 µs", backend, v, f"{v:.1f} µs" if v is not None else "", v is not None and v < 20)
    return rows


def http_exchange(figures):
    """Rows of the W9 table: (backend, push ms, pull ms, versions/s, lost), one per backend run."""
    rows = []
    for backend in ("file", "sqlite", "memory"):
        values = [figure(figures, "W9", backend, m) for m in ("push_ms", "pull_ms", "versions_per_s", "lost_versions")]
        if all(v is None for v in values):
            continue
        push, pull, rate, lost = (
            "–" if v is None else text(v)
            for v, text in zip(values, (
                lambda v: f"{v:,.1f}",
                lambda v: f"{v:,.1f}",
                lambda v: f"{v:,.0f}",
                lambda v: f"{v:.0f}" if v == 0 else f"**{v:.0f}**",
            ))
        )
        rows.append((backend, push, pull, rate, lost))
    return rows


def format_value(value, unit):
    if unit == "bytes":
        return f"{value:,.0f}"
    if value == int(value) and abs(value) < 1e15:
        return f"{int(value):,}"
    return f"{value:.6f}" if abs(value) < 0.01 else f"{value:,.3f}"


def main():
    source, destination, scale, elapsed = sys.argv[1:5]
    with open(source) as f:
        figures = [json.loads(line) for line in f if line.strip()]
    now = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    lines = [
        "# llvs-bench results",
        "",
        f"Written by `Scripts/bench --scale {scale}` on {now}, commit `{commit()}`, in {int(elapsed) // 60} min {int(elapsed) % 60} s.",
        "Each workload ran on each backend in a process of its own, release build. BENCHMARKS.md",
        "defines the workloads; the README's Performance section explains the figures.",
        "",
        "## Machine",
        "",
        "| | |",
        "|---|---|",
    ]
    lines += [f"| {name} | {value} |" for name, value in machine()]
    lines += ["", "## Targets", ""]
    if scale != "full":
        lines.append("The targets are stated for full scale; this run was at small scale, so none is judged here.")
    else:
        lines += ["| target | backend | measured | met |", "|---|---|---|---|"]
        lines += [f"| {t} | {b} | {m} | {ok} |" for t, b, m, ok in targets(figures)]
    w9 = http_exchange(figures)
    if w9:
        versions = next((f.get("versions") for f in figures if f["workload"] == "W9" and "versions" in f), None)
        clients = next((f for f in figures if f["workload"] == "W9" and "clients" in f), None)
        lines += ["", "## HTTP exchange (W9)", ""]
        if versions is not None and clients is not None:
            lines.append(f"Push of a {versions:,}-version store and pull into an empty store; then {clients['clients']} clients "
                         f"each pushing {clients['versions_per_client']} versions concurrently (versions/s of that phase). "
                         "Lost versions must be 0.")
            lines.append("")
        lines += ["| backend | push ms | pull ms | versions/s | lost versions |", "|---|---|---|---|---|"]
        lines += [f"| {b} | {push} | {pull} | {rate} | {lost} |" for b, push, pull, rate, lost in w9]
    lines += ["", "## Every figure", "", "| workload | backend | metric | parameters | value | unit |", "|---|---|---|---|---|---|"]
    fixed = {"workload", "backend", "metric", "value", "unit", "scale"}
    for f in figures:
        parameters = " ".join(f"{k}={f[k]}" for k in sorted(f) if k not in fixed)
        lines.append(f"| {f['workload']} | {f['backend']} | {f['metric']} | {parameters} | {format_value(f['value'], f['unit'])} | {f['unit']} |")
    with open(destination, "w") as out:
        out.write("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
