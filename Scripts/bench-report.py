#!/usr/bin/env python3
"""Turns llvs-bench JSON lines into benchmarks/results.md (called by Scripts/bench).

Usage: bench-report.py RESULTS.jsonl RESULTS.md SCALE ELAPSED_SECONDS

The report names the machine and the commit, checks the performance targets of issue 8
(README, "Performance") against the figures, puts the reference systems' figures
(BENCHMARKS.md) beside ours with the ratio, tabulates the HTTP exchange (W9), and lists
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
    # The results files themselves are being rewritten: they do not make the tree differ.
    dirty = run(["git", "status", "--porcelain", "--untracked-files=no", "--", ".", ":!benchmarks"])
    return revision + (" with uncommitted changes" if dirty else "")


def figure(figures, workload, backend, metric, **parameters):
    for f in figures:
        if (f["workload"], f["backend"], f["metric"]) == (workload, backend, metric) and all(
            f.get(k) == v for k, v in parameters.items()
        ):
            return f["value"]
    return None


def targets(figures):
    """Rows of (target, backend, measured, met) for the targets of issues 8, 22, 34 and 35."""
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
    # Issue 22.
    for backend in ("file", "sqlite"):
        v = figure(figures, "W6", backend, "send_versions_per_s", versions=1000)
        check("W6 send: 3,000 versions/s or more (5× the reference)", backend, v, f"{v:,.0f}/s" if v is not None else "", v is not None and v >= 3000)
    v = figure(figures, "W6", "file", "retrieve_versions_per_s", versions=1000)
    check("W6 retrieve into a file store: 2,000 versions/s or more", "file", v, f"{v:,.0f}/s" if v is not None else "", v is not None and v >= 2000)
    v = figure(figures, "W1", "file", "ms_per_version_in_floor_syncs")
    floor = figure(figures, "W1", "file", "fdatasync_floor_ms")
    check("W1 serial version at most 3 fdatasyncs' worth", "file", v,
          f"{v:.2f} (floor {floor:.3f} ms)" if v is not None and floor is not None else "", v is not None and v <= 3)
    v = figure(figures, "W1", "sqlite", "ms_per_version")
    check("W1 serial version, every commit durable, at most 0.75 ms", "sqlite", v, f"{v:.3f} ms" if v is not None else "", v is not None and v <= 0.75)
    for backend in ("file", "sqlite"):
        v = figure(figures, "W5", backend, "open_resident_bytes_per_version", versions=100000)
        check("W5 at most 500 bytes resident per version (100,000 versions)", backend, v, f"{v:,.0f} B" if v is not None else "", v is not None and v <= 500)
        v = figure(figures, "W5", backend, "open_ms", versions=100000)
        check("W5 open a 100,000-version store in under 200 ms", backend, v, f"{v:.0f} ms" if v is not None else "", v is not None and v < 200)
        # The peak of a process that only opens the store (as an app does at launch); the
        # workload's own process also built the store and holds the writer's history.
        v = figure(figures, "W5", backend, "open_process_peak_rss_bytes", versions=100000)
        check("W5 peak of a process opening 100,000 versions under 100 MB", backend, v, f"{v / 1e6:.0f} MB" if v is not None else "", v is not None and v < 100e6)
    for backend in ("file", "sqlite", "memory"):
        t = figure(figures, "W8", backend, "insert_ms")
        m = figure(figures, "W8", backend, "peak_rss_bytes")
        if t is not None and m is not None:
            check("W8 1,000,000 values in one version: under 5 s and 500 MB peak", backend, t,
                  f"{t / 1000:.1f} s, {m / 1e6:.0f} MB", t < 5000 and m < 500e6)
    for backend, writes, query, peak in (("memory", 3660, 0.96, 50 * MIB), ("sqlite", 577, 1.18, 45 * MIB)):
        v = figure(figures, "W10", backend, "write_one_call_each_ops_per_s")
        check("W10 writes, one call each: 2× the reference", backend, v, f"{v / writes:.2f}×" if v is not None else "", v is not None and v >= 2 * writes)
        v = figure(figures, "W10", backend, "search_ms_per_query")
        check("W10 full-text query: 2× the reference", backend, v, f"{query / v:.2f}×" if v else "", v is not None and v > 0 and query / v >= 2)
        v = figure(figures, "W10", backend, "peak_rss_bytes")
        check("W10 peak RSS at or below KeyValueCRDT's", backend, v, f"{v / MIB:.0f} MiB (reference {peak / MIB:.0f})" if v is not None else "", v is not None and v <= peak)
    # Issue 34: typed models.
    for backend in ("file", "sqlite", "memory"):
        v = figure(figures, "W12", backend, "model_merge_ratio")
        check("W12 model merge at most 3× the plain merge of the same versions", backend, v, f"{v:.2f}×" if v is not None else "",
              v is not None and v <= 3)
        v = figure(figures, "W12", backend, "typed_save_ratio")
        check("W12 typed save at most 1.5× a plain save of the same bytes", backend, v, f"{v:.2f}×" if v is not None else "",
              v is not None and v <= 1.5)
    # Issue 35: projections.
    for backend in ("file", "sqlite", "memory"):
        v = figure(figures, "W13", backend, "initial_projection_ms", models=100000)
        check("W13 initial projection of 100,000 models within 10 s", backend, v, f"{v / 1000:.1f} s" if v is not None else "",
              v is not None and v <= 10000)
        v = figure(figures, "W13", backend, "update_after_save_ms", models=100000)
        check("W13 per-version update after a save within 2 ms", backend, v, f"{v:.2f} ms" if v is not None else "",
              v is not None and v <= 2)
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


MIB = 1 << 20

# The reference systems' figures (BENCHMARKS.md, "Reference figures": the reference LLVS
# and KeyValueCRDT built on Linux, measured on this kind of machine on 2026-11-24), each
# beside the llvs-bench figure it compares with: (figure, workload, metric, parameters the
# figure must have, {backend: reference value}, whether lower is better, unit shown).
REFERENCE = [
    ("W1 initial insert of 10,000 values", "W1", "initial_insert_ms", {}, {"file": 7172, "sqlite": 10786}, True, "ms"),
    ("W1 serial version", "W1", "ms_per_version", {}, {"file": 18.3, "sqlite": 31.1}, True, "ms"),
    ("W2 point read, cold", "W2", "us_per_read_cold", {}, {"file": 41.0, "sqlite": 34.0}, True, "µs"),
    ("W2 point read, warm", "W2", "us_per_read_warm", {}, {"file": 13.4, "sqlite": 15.9}, True, "µs"),
    ("W3 merge (1,818 forks, 82 conflicting)", "W3", "merge_ms", {}, {"file": 277, "sqlite": 435}, True, "ms"),
    ("W4 merge base at depth 1,000", "W4", "merge_base_ms", {"depth": 1000}, {"file": 0.50, "sqlite": 0.53}, True, "ms"),
    ("W4 merge base at depth 10,000", "W4", "merge_base_ms", {"depth": 10000}, {"file": 11.9}, True, "ms"),
    ("W4 full merge at depth 1,000", "W4", "merge_ms", {"depth": 1000}, {"file": 8.4, "sqlite": 10.1}, True, "ms"),
    ("W4 full merge at depth 10,000", "W4", "merge_ms", {"depth": 10000}, {"file": 17.2}, True, "ms"),
    ("W5 open at 1,000 versions", "W5", "open_ms", {"versions": 1000}, {"file": 31.4, "sqlite": 28.4}, True, "ms"),
    ("W5 open at 10,000 versions", "W5", "open_ms", {"versions": 10000}, {"file": 264}, True, "ms"),
    ("W6 send 1,000 versions", "W6", "send_versions_per_s", {"versions": 1000}, {"file": 704, "sqlite": 551}, False, "versions/s"),
    ("W6 retrieve 1,000 versions", "W6", "retrieve_versions_per_s", {"versions": 1000}, {"file": 96, "sqlite": 44}, False, "versions/s"),
    ("W7 diff at 10,000 values", "W7", "diff_ms", {"values": 10000}, {"file": 5.2, "sqlite": 5.8}, True, "ms"),
    ("W7 diff at 100,000 values", "W7", "diff_ms", {"values": 100000}, {"file": 33.8}, True, "ms"),
    ("W10 writes, one call each", "W10", "write_one_call_each_ops_per_s", {}, {"memory": 3660, "sqlite": 577}, False, "writes/s"),
    ("W10 10,000 writes in one bulk write", "W10", "bulk_write_ms", {}, {"memory": 1756, "sqlite": 1983}, True, "ms"),
    ("W10 random reads", "W10", "random_read_ops_per_s", {}, {"memory": 13237, "sqlite": 10609}, False, "reads/s"),
    ("W10 merge, 2,000 keys changed", "W10", "merge_ms", {}, {"memory": 807, "sqlite": 1096}, True, "ms"),
    ("W10 full-text query over 10,000 texts", "W10", "search_ms_per_query", {}, {"memory": 0.96, "sqlite": 1.18}, True, "ms"),
    ("W10 peak RSS of the process", "W10", "peak_rss_bytes", {}, {"memory": 50 * MIB, "sqlite": 45 * MIB}, True, "MiB"),
]


def beside_references(figures):
    """Rows of (figure, backend, reference, ours, ratio) for every reference figure this run
    measured; the ratio is how many times better ours is (below 1: worse)."""
    rows = []
    for label, workload, metric, parameters, references, lower_is_better, unit in REFERENCE:
        for backend, reference in references.items():
            ours = figure(figures, workload, backend, metric, **parameters)
            if ours is None or ours <= 0:
                continue
            ratio = reference / ours if lower_is_better else ours / reference
            divisor = MIB if unit == "MiB" else 1
            def shown(value):
                value /= divisor
                return f"{value:,.0f}" if value >= 100 else f"{value:.2f}" if value >= 1 else f"{value:.4f}".rstrip("0")
            rows.append((label, backend, f"{shown(reference)} {unit}", f"{shown(ours)} {unit}",
                         f"{ratio:,.2f}×" if ratio >= 1 else f"**{ratio:.2f}×**"))
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
    lines += ["", "## Beside the reference systems", ""]
    if scale != "full":
        lines.append("The reference figures are for full scale; this run was at small scale, so none is compared here.")
    else:
        lines += ["The reference LLVS and KeyValueCRDT, measured on this kind of machine (BENCHMARKS.md, \"Reference figures\").",
                  "The ratio is how many times better this run's figure is (faster, more per second, less memory);",
                  "a bold ratio is below 1: the reference is ahead.",
                  "",
                  "| figure | backend | reference | LLVS for Swift on Linux | ratio |", "|---|---|---:|---:|---:|"]
        lines += [f"| {f} | {b} | {r} | {o} | {x} |" for f, b, r, o, x in beside_references(figures)]
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
