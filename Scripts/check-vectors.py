#!/usr/bin/env python3
"""Independent implementations, in Python, of SPEC.md section 6 (map placement, canonical
shape and node hashes) and of the merge identity of section 9 (which values it lists, in
what order, and the identifier), run against the map and merge-identifier vectors. They
show the formats are specified precisely enough for a port: they share no code with the
Swift implementation.

Usage: Scripts/check-vectors.py   (exit status 0 when every vector matches)
"""
import base64
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


def outcome(o):
    """A value's outcome in a vector: absent, a storing version, or new data."""
    if o.get("storedBy") is not None:
        return ("stored", o["storedBy"])
    if o.get("newData") is not None:
        return ("new", base64.b64decode(o["newData"]))
    return ("absent",)


def merge_identifier(case):
    """SPEC.md section 9, "Merge identity", from its words alone."""
    utf8 = lambda s: s.encode("utf-8")
    body = string("llvs-virtual-merge-1" if case["virtual"] else "llvs-merge-1")
    body += varint(2) + b"".join(string(p) for p in sorted(case["predecessors"], key=utf8))
    listed = [v for v in case["values"]
              if not (outcome(v["merge"]) == outcome(v["first"]) == outcome(v["second"]))]
    body += varint(len(listed))
    for value in sorted(listed, key=lambda v: utf8(v["valueId"])):
        body += string(value["valueId"])
        kind = outcome(value["merge"])
        if kind[0] == "absent":
            body += b"\x00"
        elif kind[0] == "stored":
            body += b"\x01" + string(kind[1])
        else:
            body += b"\x02" + hashlib.sha256(kind[1]).digest()
    metadata = sorted(case["metadata"], key=lambda e: utf8(e["key"]))
    body += varint(len(metadata))
    for entry in metadata:
        data = base64.b64decode(entry["value"])
        body += string(entry["key"]) + varint(len(data)) + data
    digest = hashlib.sha256(body).digest()[:16].hex().upper()
    identifier = "-".join(digest[a:b] for a, b in ((0, 8), (8, 12), (12, 16), (16, 20), (20, 32)))
    return ("virtual-" if case["virtual"] else "") + identifier


def check_merge_identifiers(root):
    path = root / "Packages/LLVSStore/Tests/LLVSStoreTests/Vectors/merge-ids.json"
    vectors = json.loads(path.read_text(encoding="utf-8"))
    failures = 0
    for case in vectors["cases"]:
        ok = merge_identifier(case) == case["identifier"]
        failures += 0 if ok else 1
        print(("ok   " if ok else "FAIL ") + "merge id: " + case["name"])
    print(f"{len(vectors['cases']) - failures} of {len(vectors['cases'])} merge-identifier vectors match")
    return failures


def main():
    root = pathlib.Path(__file__).resolve().parent.parent
    merge_failures = check_merge_identifiers(root)
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
    return 1 if failures or merge_failures else 0


if __name__ == "__main__":
    sys.exit(main())
