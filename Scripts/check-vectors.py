#!/usr/bin/env python3
"""An independent implementation of SPEC.md section 6 (map placement, canonical shape and
node hashes) in Python, run against the map vectors. It shows the format is specified
precisely enough for a port: it shares no code with the Swift implementation.

Usage: Scripts/check-vectors.py   (exit status 0 when every vector matches)
"""
import hashlib
import json
import pathlib
import sys

LEAF_CAPACITY = 16
MAX_DEPTH = 64


def varint(n):
    out = bytearray()
    while n >= 0x80:
        out.append((n & 0x7F) | 0x80)
        n >>= 7
    out.append(n)
    return bytes(out)


def string(s):
    b = s.encode("utf-8")
    return varint(len(b)) + b


def nibble(key_hash, depth):
    byte = key_hash[depth // 2]
    return byte >> 4 if depth % 2 == 0 else byte & 0x0F


def build(entries, depth):
    """Returns (hash, count, node_count) of the canonical node for sorted entries."""
    if len(entries) <= LEAF_CAPACITY or depth >= MAX_DEPTH:
        body = b"L" + varint(len(entries)) + b"".join(string(v) + string(s) for _, v, s in entries)
        return hashlib.sha256(body).digest(), len(entries), 1
    groups = {}
    for entry in entries:
        groups.setdefault(nibble(entry[0], depth), []).append(entry)
    bitmap, children, nodes = 0, b"", 1
    for n in sorted(groups):
        child_hash, count, child_nodes = build(groups[n], depth + 1)
        bitmap |= 1 << n
        children += child_hash + varint(count)
        nodes += child_nodes
    body = b"I" + bytes([bitmap >> 8, bitmap & 0xFF]) + children
    return hashlib.sha256(body).digest(), len(entries), nodes


def main():
    root = pathlib.Path(__file__).resolve().parent.parent
    path = root / "Packages/LLVSMap/Tests/LLVSMapTests/Vectors/map-roots.json"
    vectors = json.loads(path.read_text(encoding="utf-8"))
    failures = 0
    for case in vectors["cases"]:
        # Leaf order: key hash, then identifier bytes.
        entries = sorted(
            ((hashlib.sha256(v.encode("utf-8")).digest(), v, s) for v, s in case["entries"]),
            key=lambda e: (e[0], e[1].encode("utf-8")),
        )
        digest, _, nodes = build(entries, 0)
        ok = digest.hex() == case["rootHash"] and nodes == case["nodeCount"]
        failures += 0 if ok else 1
        print(("ok   " if ok else "FAIL ") + case["name"])
    print(f"{len(vectors['cases']) - failures} of {len(vectors['cases'])} map vectors match")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
