"""The format vectors of conformance/formats: valid inputs with their exact encodings and
invalid inputs with the error class a reader must report (conformance/README.md), made
with this port's encoders and hand-built damage. `python3 -m llvs_port vectors DIR`
writes them; the port's tests check that the committed files are these, and the Swift
packages' tests read the same files."""
import json
import struct

from .binary import string, varint, sha256
from .filestore import encode_pack, scan_segment_bytes
from .mapindex import encode_interior, encode_leaf, leaf_order
from .records import VersionRecord, encode_record
from .sqlitestore import item_checksum

HEADER = {"format": "llvs-conformance-formats", "formatVersion": 1}


def _file(section, about, valid, invalid):
    return dict(HEADER, section=section, about=about, valid=valid, invalid=invalid)


def primitives():
    numbers = [0, 1, 127, 128, 300, 16_383, 16_384, 2**32, 2**53 + 1, 2**63, 2**64 - 1]
    strings = ["", "a", "é", "a\0b", "日本語", "\U0001F600", "Z" * 130]
    valid = [{"name": f"varint {n}", "kind": "varint", "value": str(n), "bytes": varint(n).hex()} for n in numbers]
    valid += [{"name": f"string {s[:12]!r}", "kind": "string", "value": s, "bytes": string(s).hex()} for s in strings]
    invalid = [
        {"name": "varint cut off", "kind": "varint", "bytes": "80", "errorClass": "truncated"},
        {"name": "varint of nothing", "kind": "varint", "bytes": "", "errorClass": "truncated"},
        {"name": "varint over 64 bits (tenth byte over 1)", "kind": "varint", "bytes": "ff" * 9 + "02", "errorClass": "malformedVarint"},
        {"name": "varint of eleven bytes", "kind": "varint", "bytes": "ff" * 10 + "01", "errorClass": "malformedVarint"},
        {"name": "varint 0 in two bytes (not the shortest form)", "kind": "varint", "bytes": "8000", "errorClass": "malformedVarint"},
        {"name": "varint 127 in two bytes", "kind": "varint", "bytes": "ff00", "errorClass": "malformedVarint"},
        {"name": "varint 2^63 with a last group of 0 (eleven bytes)", "kind": "varint", "bytes": "80" * 9 + "8100", "errorClass": "malformedVarint"},
        {"name": "string longer than the bytes", "kind": "string", "bytes": "036162", "errorClass": "truncated"},
        {"name": "string of invalid UTF-8", "kind": "string", "bytes": "02c328", "errorClass": "invalidUTF8"},
        {"name": "string holding a UTF-16 surrogate", "kind": "string", "bytes": "03eda080", "errorClass": "invalidUTF8"},
        {"name": "string of a lone continuation byte", "kind": "string", "bytes": "0180", "errorClass": "invalidUTF8"},
    ]
    return _file("5", "varint: the value (decimal text) and its bytes; string: the text and its bytes.", valid, invalid)


def map_nodes():
    def leaf(name, entries):
        ordered = sorted(entries, key=leaf_order)
        data, digest = encode_leaf(ordered)
        return {"name": name, "kind": "leaf", "entries": [list(e) for e in ordered], "bytes": data.hex(), "hash": digest.hex()}

    def interior(name, bitmap, children):
        data, digest = encode_interior(bitmap, children)
        return {"name": name, "kind": "interior", "bitmap": bitmap,
                "children": [{"hash": h.hex(), "count": c, "location": l} for h, c, l in children],
                "bytes": data.hex(), "hash": digest.hex()}

    valid = [
        leaf("leaf of one entry", [("a", "V1")]),
        leaf("leaf of sixteen entries", [(f"k{i}", "V") for i in range(16)]),
        leaf("leaf with a NUL and non-ASCII identifiers", [("a\0b", "V\0"), ("é", "V"), ("e\u0301", "V")]),
        interior("interior of two children", 0b1000_0000_0000_0001,
                 [(sha256(b"left"), 9, "V1"), (sha256(b"right"), 8, "V2")]),
        interior("interior of sixteen children", 0xFFFF, [(sha256(bytes([i])), 17 + i, f"L{i}") for i in range(16)]),
    ]
    ordered = sorted([("a", "V"), ("b", "V")], key=leaf_order)
    two = encode_leaf(ordered)[0]
    backwards = b"L" + varint(2) + b"".join(string(v) + string(s) for v, s in reversed(ordered))
    one_child = encode_interior(0b10, [(sha256(b"c"), 20, "V")])[0]
    invalid = [
        {"name": "no bytes", "bytes": "", "errorClass": "truncated"},
        {"name": "unknown tag", "bytes": "58" + two[1:].hex(), "errorClass": "unknownFormat"},
        {"name": "leaf entries in the wrong order", "bytes": backwards.hex(), "errorClass": "outOfOrder"},
        {"name": "leaf with a byte after its entries", "bytes": (two + b"\0").hex(), "errorClass": "trailingBytes"},
        {"name": "leaf counting more entries than its bytes hold", "bytes": ("4c05" + string("a").hex() + string("V").hex()), "errorClass": "truncated"},
        {"name": "leaf cut inside an identifier", "bytes": two[:-1].hex(), "errorClass": "truncated"},
        {"name": "interior without children", "bytes": "490000", "errorClass": "invalidContent"},
        {"name": "interior cut inside a child hash", "bytes": one_child[:20].hex(), "errorClass": "truncated"},
        {"name": "interior with a byte after its locations", "bytes": (one_child + b"\0").hex(), "errorClass": "trailingBytes"},
        {"name": "leaf identifier of invalid UTF-8", "bytes": "4c0101ff0156", "errorClass": "invalidUTF8"},
        {"name": "interior whose child counts add up past 2^63 - 1",
         "bytes": encode_interior(0b11, [(sha256(b"a"), 2**62, "V"), (sha256(b"b"), 2**62, "V")])[0].hex(), "errorClass": "invalidContent"},
        {"name": "interior with a child count of 2^63",
         "bytes": encode_interior(0b1, [(sha256(b"a"), 2**63, "V")])[0].hex(), "errorClass": "invalidContent"},
    ]
    return _file("6", "leaf: its entries [valueId, storedVersionId] in leaf order; interior: its bitmap and children; "
                      "bytes are the stored node, hash the SHA-256 of its hashed part (section 6).", valid, invalid)


def version_records():
    def record(name, *fields):
        r = VersionRecord(*fields)
        return {"name": name, "identifier": r.identifier, "predecessors": r.predecessors,
                "timestampBits": struct.pack("<d", r.timestamp).hex(), "timestamp": r.timestamp,
                "valueDataSize": r.value_data_size, "metadata": {k: v.hex() for k, v in r.metadata.items()},
                "root": None if r.root is None else {"hash": r.root[0].hex(), "location": r.root[1], "count": r.root[2]},
                "bytes": encode_record(r).hex()}

    root = (sha256(b"root"), "V3", 42)
    valid = [
        record("initial version, empty map", "V1", [], 785000000.0, None, {}, None),
        record("ordinary version with a value data size and a root", "V2", ["V1"], 785000000.125, 12, {}, (sha256(b"r2"), "V2", 3)),
        record("merge with metadata and a root stored by another version", "V3", ["A", "B"], -1.5, 0,
               {"__llvs_branch": b'"draft"', "app": b"\x00\xff"}, root),
        record("identifiers with NUL and non-ASCII", "V\0é", ["P\0"], 0.0, None, {"k\0": b""}, None),
    ]
    base = VersionRecord("V", ["P"], 1.0, None, {}, None)
    good = encode_record(base)
    two_keys = VersionRecord("V", [], 1.0, None, {"a": b"1", "b": b"2"}, None)
    swapped = encode_record(two_keys).replace(string("a") + varint(1) + b"1" + string("b") + varint(1) + b"2",
                                              string("b") + varint(1) + b"2" + string("a") + varint(1) + b"1")
    repeated = encode_record(two_keys).replace(string("b") + varint(1) + b"2", string("a") + varint(1) + b"2")
    flag_at = len(good) - 3  # the value data size flag, before the metadata count and the root flag
    invalid = [
        {"name": "unknown record format", "bytes": "02" + good[1:].hex(), "errorClass": "unknownFormat"},
        {"name": "three predecessors", "bytes": (b"\x01" + string("V") + b"\x03" + string("A") + string("B") + string("C")
                                                  + struct.pack("<d", 1.0) + b"\x00\x00\x00").hex(), "errorClass": "invalidContent"},
        {"name": "the same predecessor twice", "bytes": encode_record(VersionRecord("V", ["P", "P"], 1.0, None, {}, None)).hex(),
         "errorClass": "invalidContent"},
        {"name": "its own predecessor", "bytes": encode_record(VersionRecord("V", ["V"], 1.0, None, {}, None)).hex(),
         "errorClass": "invalidContent"},
        {"name": "a timestamp that is not finite", "bytes": encode_record(VersionRecord("V", [], float("nan"), None, {}, None)).hex(),
         "errorClass": "invalidContent"},
        {"name": "a value data size flag of 2", "bytes": (good[:flag_at] + b"\x02" + good[flag_at + 1:]).hex(), "errorClass": "invalidContent"},
        {"name": "a map root flag of 2", "bytes": (good[:-1] + b"\x02").hex(), "errorClass": "invalidContent"},
        {"name": "metadata keys out of order", "bytes": swapped.hex(), "errorClass": "outOfOrder"},
        {"name": "a metadata key twice", "bytes": repeated.hex(), "errorClass": "outOfOrder"},
        {"name": "a byte after the record", "bytes": (good + b"\x00").hex(), "errorClass": "trailingBytes"},
        {"name": "cut inside the timestamp", "bytes": good[:len(good) - 6].hex(), "errorClass": "truncated"},
        {"name": "cut inside the root", "bytes": encode_record(VersionRecord("V", [], 1.0, None, {}, root))[:-10].hex(),
         "errorClass": "truncated"},
    ]
    return _file("8", "Fields and the record's bytes (timestampBits: the IEEE 754 double's 8 bytes, little-endian; "
                      "metadata values and hashes in hex; valueDataSize and root null when absent).", valid, invalid)


def packs():
    def pack(name, version, items):
        return {"name": name, "version": version, "items": {k: v.hex() for k, v in sorted(items.items())},
                "bytes": encode_pack(version, items).hex()}

    valid = [
        pack("empty pack", "V1", {}),
        pack("values with empty, binary and long data", "V2", {"a": b"", "b": bytes(range(256)), "c": b"x" * 300}),
        pack("keys ordered by bytes, NUL and non-ASCII", "V\0", {"a\0": b"1", "a": b"2", "é": b"3", "Z": b"4"}),
    ]
    good = encode_pack("V", {"a": b"1", "b": b"2"})
    body = good[:-32]
    reseal = lambda b: (b + sha256(b)).hex()
    swapped = body.replace(string("a") + varint(1) + string("b") + varint(1), string("b") + varint(1) + string("a") + varint(1))
    twice = body.replace(string("b") + varint(1), string("a") + varint(1))
    invalid = [
        {"name": "a data byte changed (digest mismatch)", "bytes": (body[:-1] + b"3" + good[-32:]).hex(), "errorClass": "checksumMismatch"},
        {"name": "shorter than a digest", "bytes": good[:20].hex(), "errorClass": "truncated"},
        {"name": "wrong magic", "bytes": reseal(b"LLVSPACX" + body[8:]), "errorClass": "unknownFormat"},
        {"name": "unknown pack format", "bytes": reseal(body[:8] + b"\x02" + body[9:]), "errorClass": "unknownFormat"},
        {"name": "keys out of order", "bytes": reseal(swapped), "errorClass": "outOfOrder"},
        {"name": "a key twice", "bytes": reseal(twice), "errorClass": "outOfOrder"},
        {"name": "a byte after the data", "bytes": reseal(body + b"\x00"), "errorClass": "trailingBytes"},
        {"name": "data shorter than its length says", "bytes": reseal(body[:-1]), "errorClass": "truncated"},
    ]
    return _file("7", "A pack: its version, its items (key: data in hex) and its bytes, digest included.", valid, invalid)


def sqlite_checksums():
    items = [(0, "V1", "a", b"hello"), (1, "V1", "0" * 64, b"L\x01"), (0, "V\0", "k\0é", b""), (1, "", "", bytes(range(40)))]
    valid = [{"name": f"zone {z}, {k[:8]!r}@{v!r}", "kind": "item", "zone": z, "version": v, "key": k, "data": d.hex(),
              "checksum": item_checksum(z, v.encode(), k.encode(), d).hex()} for z, v, k, d in items]
    records = [encode_record(VersionRecord("V1", [], 1.0, None, {}, None)), b""]
    valid += [{"name": f"record of {len(r)} bytes", "kind": "record", "record": r.hex(), "checksum": sha256(r)[:8].hex()}
              for r in records]
    return _file("14", "Row checksums: an item's (zone, version, key, data) and a version record's bytes, with the "
                       "8-byte checksum a row carries.", valid, [])


def segments():
    def log_record(payload, good=True):
        checksum = sha256(payload)[:8] if good else bytes(b ^ 0xFF for b in sha256(payload)[:8])
        return struct.pack("<I", len(payload)) + payload + checksum

    p1 = encode_record(VersionRecord("V1", [], 785000000.0, 5, {}, None))
    p2 = encode_record(VersionRecord("V2", ["V1"], 785000001.0, None, {"k": b"v"}, None))
    p3 = b"any payload: the log does not decode it"
    log = b"LLVSLOG1"
    logs = [
        ("magic only", log, []),
        ("two records", log + log_record(p1) + log_record(p2), [p1, p2]),
        ("records, then preallocated zeros", log + log_record(p1) + bytes(64), [p1]),
        ("a torn final record (its length runs past the end)", log + log_record(p1) + log_record(p3)[:-3], [p1]),
        ("a final record failing its checksum", log + log_record(p1) + log_record(p3, good=False), [p1]),
        ("an empty payload", log + log_record(b"") + log_record(p2), [b"", p2]),
        ("two bad records, then a good one: the first bad one ends the records",
         log + log_record(p1) + log_record(p2, good=False) + log_record(p3, good=False) + log_record(p1), [p1]),
    ]
    valid = [{"name": n, "kind": "log", "bytes": b.hex(), "records": [r.hex() for r in rs]} for n, b, rs in logs]
    invalid = [
        {"name": "a bad record followed by a good one", "kind": "log",
         "bytes": (log + log_record(p1, good=False) + log_record(p2)).hex(), "errorClass": "checksumMismatch"},
        {"name": "not a log segment", "kind": "log", "bytes": (b"LLVSLOG2" + log_record(p1)).hex(), "errorClass": "unknownFormat"},
    ]

    def shared(zone, pack):
        return struct.pack("<Q", len(pack)) + bytes([zone]) + pack

    def zoned(pack):
        return struct.pack("<Q", len(pack)) + pack

    values, maps = encode_pack("V1", {"a": b"1"}), encode_pack("V1", {"0" * 64: b"L\x00"})
    later = encode_pack("V2", {"b": b"2"})
    garbage = b"not a pack at all, but framed as one"
    head = b"LLVSPSG2"

    def found(*packs):
        """The packs a segment holds: (zone, version, record start, header size, pack)."""
        return [{"zone": z, "version": v, "offset": start + size} for z, v, start, size in packs]

    one = len(head)
    first_end = one + 9 + len(values)
    packs_cases = [
        ("two packs of both zones, then preallocated zeros", "shared", None,
         head + shared(0, values) + shared(1, maps) + bytes(100),
         found((0, "V1", one, 9), (1, "V1", first_end, 9)), False),
        ("a torn final record", "shared", None, head + shared(0, values) + shared(0, later)[:-5],
         found((0, "V1", one, 9)), False),
        ("a final record that is not a pack: torn, not damage", "shared", None, head + shared(0, values) + shared(0, garbage),
         found((0, "V1", one, 9)), False),
        ("a record that is not a pack, followed by a pack: damage, skipped", "shared", None,
         head + shared(0, garbage) + shared(1, later), found((1, "V2", one + 9 + len(garbage), 9)), True),
        ("a record naming no zone, followed by a pack: damage, skipped", "shared", None,
         head + shared(7, values) + shared(0, later), found((0, "V2", one + 9 + len(values), 9)), True),
        ("two records that are not packs, then a pack: the first ends the records", "shared", None,
         head + shared(0, values) + shared(0, garbage) + shared(0, garbage) + shared(0, later),
         found((0, "V1", one, 9)), False),
        ("a zone segment", "zone", 0, b"LLVSPSG1" + zoned(values) + zoned(later),
         found((0, "V1", one, 8), (0, "V2", one + 8 + len(values), 8)), False),
    ]
    valid += [{"name": n, "kind": "packs", "layout": layout, "bytes": b.hex(), "packs": p, "damaged": d}
              for n, layout, _, b, p, d in packs_cases]
    invalid.append({"name": "not a pack segment", "kind": "packs", "layout": "shared",
                    "bytes": (b"LLVSPSG9" + shared(0, values)).hex(), "errorClass": "unknownFormat"})
    valid += _commit_cases(shared, log_record, values, maps, later, p1, p2, packs_cases[0][3])
    invalid += _invalid_commit_cases(shared, log_record, values, maps, later, p1, p2)
    return _file("7", "log: a version log segment's bytes and the payloads of its records (a torn final record "
                      "is no record); packs: a pack segment's bytes (layout shared: a zone byte per record; zone: "
                      "none, values here), the packs a reader finds (zone, version, offset of the pack) and whether "
                      "it reports damage; commits: a pack segment's bytes, the version records of its commit "
                      "records a reader finds (format 4), and what a zone's reader finds in it (packs, damaged).",
                 valid, invalid)


def _commit(shared, log_record, records, count=None):
    """A commit record (tag 2) of ``records``: their count, then each framed as in a log."""
    count = len(records) if count is None else count
    return shared(2, struct.pack("<I", count) + b"".join(log_record(r) for r in records))


def _commit_cases(shared, log_record, values, maps, later, p1, p2, format3_segment):
    """Committing segments (format 4) and what readers find in them."""
    head = b"LLVSPSG3"
    group = shared(0, values) + shared(1, maps)
    damaged_later = bytearray(later)
    damaged_later[len(later) // 2] ^= 0xFF
    damaged_values = bytearray(values)
    damaged_values[len(values) // 2] ^= 0xFF
    large = encode_pack("V2", {"b": bytes(range(256)) * 12})
    torn_large = large[:len(large) // 3] + bytes(len(large) - len(large) // 3)
    final = _commit(shared, log_record, [p2])
    final_failing = bytearray(final)
    final_failing[-1] ^= 1
    commit1 = _commit(shared, log_record, [p1])
    cases = [
        ("a version's two packs and its commit record, then preallocated zeros", head + group + commit1 + bytes(64), [p1]),
        ("a batch: two versions' packs, then one commit record of both records",
         head + group + shared(0, later) + _commit(shared, log_record, [p1, p2]), [p1, p2]),
        ("a final commit record after a pack holding unwritten blocks: a torn final write, not counted",
         head + group + commit1 + shared(0, torn_large) + final, [p1]),
        ("a final commit record after a pack failing its digest with no unwritten block: counted (the pack is refused when read)",
         head + group + commit1 + shared(0, bytes(damaged_later)) + final, [p1, p2]),
        ("a pack failing its digest before a commit record that a record follows: counted (the pack is refused when read)",
         head + shared(0, bytes(damaged_values)) + shared(1, maps) + commit1 + shared(0, later) + final, [p1, p2]),
        ("a final commit record cut short", head + group + commit1 + shared(0, later) + final[:-3], [p1]),
        ("a final commit record whose version record fails its checksum: a torn final write",
         head + group + commit1 + shared(0, later) + bytes(final_failing), [p1]),
        ("packs made durable first, ended by an empty commit record, then the commit record",
         head + group + _commit(shared, log_record, []) + commit1, [p1]),
        ("packs after the last commit record (a batch not yet committed) are not versions",
         head + group + commit1 + shared(0, later), [p1]),
        ("a shared segment of format 3 holds no commit records", format3_segment, []),
    ]
    result = []
    for name, data, records in cases:
        packs, damage = scan_segment_bytes(data, None)
        result.append({"name": name, "kind": "commits", "bytes": data.hex(), "records": [r.hex() for r in records],
                       "packs": [{"zone": z, "version": v, "offset": o} for z, v, _, o in packs], "damaged": bool(damage)})
    return result


def _invalid_commit_cases(shared, log_record, values, maps, later, p1, p2):
    head = b"LLVSPSG3"
    group = shared(0, values) + shared(1, maps)
    failing = bytearray(_commit(shared, log_record, [p1]))
    failing[-1] ^= 1
    after = shared(0, later) + _commit(shared, log_record, [p2])
    return [
        {"name": "a commit record whose version record fails its checksum, with records after it", "kind": "commits",
         "bytes": (head + group + bytes(failing) + after).hex(), "errorClass": "truncated"},
        {"name": "a commit record whose count is not its records', with records after it", "kind": "commits",
         "bytes": (head + group + _commit(shared, log_record, [p1], count=2) + after).hex(), "errorClass": "invalidContent"},
        {"name": "not a pack segment", "kind": "commits", "bytes": (b"LLVSPSG9" + group).hex(), "errorClass": "unknownFormat"},
    ]


def _two_versions():
    """Two versions of a small store, for the archives: their records, their value items
    and their map nodes ({version: {key: data}} each)."""
    leaf1, hash1 = encode_leaf([("a", "V1")])
    leaf2, hash2 = encode_leaf(sorted([("a", "V1"), ("b", "V2"), ("c", "V2")], key=leaf_order))
    r1 = encode_record(VersionRecord("V1", [], 785000000.0, 1, {}, (hash1, "V1", 1)))
    r2 = encode_record(VersionRecord("V2", ["V1"], 785000001.0, 3, {}, (hash2, "V2", 3)))
    return [r1, r2], {"V1": {"a": b"1"}, "V2": {"b": b"22", "c": b""}}, {"V1": {hash1.hex(): leaf1}, "V2": {hash2.hex(): leaf2}}


def _expected_values(values):
    return [{"version": v, "key": k, "data": d.hex()} for v, items in values.items() for k, d in items.items()]


def _log_record(payload):
    return struct.pack("<I", len(payload)) + payload + sha256(payload)[:8]


def archives():
    from .archive import encode_archive

    def shard(version):
        return sha256(version.encode("utf-8"))[:1].hex()

    (r1, r2), values, nodes = _two_versions()
    log_record = _log_record
    log = b"LLVSLOG1" + log_record(r1) + log_record(r2) + bytes(40)
    files = [
        (f"values/{shard('V1')}/V1.pack", encode_pack("V1", values["V1"])),
        (f"values/{shard('V2')}/V2.pack", encode_pack("V2", {"b": b"22"})),
        (f"values/{shard('V2')}/V2~1.pack", encode_pack("V2", {"c": b""})),
        (f"maps/{shard('V1')}/V1.pack", encode_pack("V1", nodes["V1"])),
        (f"maps/{shard('V2')}/V2.pack", encode_pack("V2", nodes["V2"])),
        ("versions/writer-1.log", log),
    ]
    full = encode_archive(files)
    valid = [
        {"name": "an empty store", "bytes": encode_archive([]).hex(), "paths": [], "records": [], "values": []},
        {"name": "two versions, one with two value packs", "bytes": full.hex(), "paths": [p for p, _ in files],
         "records": [r1.hex(), r2.hex()], "values": _expected_values(values)},
    ]
    one = [files[0]]

    def with_path(path):
        return encode_archive([(path, files[0][1])]).hex()

    def with_entry(body, path="versions/writer-1.log"):
        return encode_archive([(path, body)]).hex()

    good = encode_archive(one)
    damaged_pack = bytearray(files[0][1])
    damaged_pack[12] ^= 1
    invalid = [
        {"name": "not an archive", "bytes": (b"LLVSSNP2" + good[8:]).hex(), "errorClass": "unknownFormat"},
        {"name": "an entry failing its checksum", "bytes": (good[:-13] + bytes([good[-13] ^ 1]) + good[-12:]).hex(), "errorClass": "checksumMismatch"},
        {"name": "a path leaving the store", "bytes": with_path("../escape.pack"), "errorClass": "invalidContent"},
        {"name": "a shard in upper case", "bytes": with_path("values/AB/V1.pack"), "errorClass": "invalidContent"},
        {"name": "a hidden log segment", "bytes": with_path("versions/.hidden.log"), "errorClass": "invalidContent"},
        {"name": "a file of another kind", "bytes": with_path("values/ab/V1.txt"), "errorClass": "invalidContent"},
        {"name": "an end counting the wrong number of entries", "bytes": (good[:-8] + struct.pack("<Q", 2)).hex(), "errorClass": "invalidContent"},
        {"name": "a byte after the end", "bytes": (good + b"\x00").hex(), "errorClass": "trailingBytes"},
        {"name": "cut inside an entry", "bytes": good[:40].hex(), "errorClass": "truncated"},
        {"name": "a pack failing its own digest", "bytes": with_entry(bytes(damaged_pack), files[0][0]), "errorClass": "checksumMismatch"},
        {"name": "a log segment whose last record is cut", "bytes": with_entry(b"LLVSLOG1" + log_record(r1) + log_record(r2)[:-4]), "errorClass": "truncated"},
    ] + [{"name": name, "bytes": with_entry(b"LLVSLOG1" + b"".join(map(log_record, records))), "errorClass": error_class}
         for name, records, error_class in _records_that_cannot_join(r1)]
    return _file("10", "A file store's snapshot archive: valid ones hold these paths and, restored, these version "
                       "records and values (data in hex); a restore into an empty store refuses the invalid ones and "
                       "leaves the store as it was.", valid, invalid)


def _records_that_cannot_join(r1):
    """Version records sound as bytes (their checksums right) that no store takes."""
    other = encode_record(VersionRecord("V1", [], 785000000.5, 1, {}, None))
    return [("a version record that does not decode", [r1, b"\x01\x02V"], "truncated"),
            ("a version record of an unknown format", [b"\x02" + r1[1:]], "unknownFormat"),
            ("a version naming a predecessor the archive lacks",
             [r1, encode_record(VersionRecord("V3", ["V9"], 785000002.0, 0, {}, None))], "invalidContent"),
            ("two records for one version", [r1, other], "invalidContent")]


def sqlite_archives():
    from .sqlitearchive import encode_sqlite_archive, make_database
    import sqlite3

    (r1, r2), values, nodes = _two_versions()
    items = [(0, v, k, d) for v, kv in values.items() for k, d in kv.items()] + \
            [(1, v, k, d) for v, kv in nodes.items() for k, d in kv.items()]

    def framed(schema="v3", rows=items, records=(r1, r2), **options):
        return encode_sqlite_archive(make_database(schema, rows, list(records), **options))

    expected = {"records": [r1.hex(), r2.hex()], "values": _expected_values(values)}
    valid = [dict(name="an empty store", bytes=framed(rows=[], records=[]).hex(), records=[], values=[]),
             dict(expected, name="two versions (schema v3)", bytes=framed().hex()),
             dict(expected, name="two versions in schema v2, migrated by the restore", bytes=framed("v2").hex()),
             dict(expected, name="two versions in schema v1 (text, no checksums), migrated by the restore",
                  bytes=framed("v1").hex())]
    good = framed()
    database = good[16:-32]
    damaged = bytearray(database)
    for offset in range(1024, len(damaged), 97):
        damaged[offset] ^= 0xFF

    def around(body):
        return encode_sqlite_archive(bytes(body)).hex()

    def tampered(sql):
        return framed(damage=lambda db: db.execute(sql)).hex()

    invalid = [
        {"name": "not an archive", "bytes": (b"LLVSSQL2" + good[8:]).hex(), "errorClass": "unknownFormat"},
        {"name": "shorter than its framing", "bytes": good[:40].hex(), "errorClass": "truncated"},
        {"name": "cut inside the database", "bytes": (good[:16] + database[:-100] + good[-32:]).hex(), "errorClass": "truncated"},
        {"name": "a byte after the checksum", "bytes": (good + b"\x00").hex(), "errorClass": "trailingBytes"},
        {"name": "database bytes failing their SHA-256", "bytes": (good[:100] + bytes([good[100] ^ 1]) + good[101:]).hex(),
         "errorClass": "checksumMismatch"},
        {"name": "bytes that are no database, framed right", "bytes": around(b"not a database " * 300), "errorClass": "invalidContent"},
        {"name": "a database failing SQLite's integrity check, framed right", "bytes": around(damaged), "errorClass": "invalidContent"},
        {"name": "a migration this reader does not know", "bytes": framed(migrations=["v1", "v2", "v3", "v4"]).hex(),
         "errorClass": "unknownFormat"},
        {"name": "no migrations listed", "bytes": framed(migrations=[]).hex(), "errorClass": "unknownFormat"},
        {"name": "an item failing its checksum", "bytes": tampered("UPDATE zone_item SET data = x'3939' WHERE zone = 0 AND key = x'62'"),
         "errorClass": "checksumMismatch"},
        {"name": "a version record failing its checksum", "bytes": tampered("UPDATE version_record SET checksum = x'0000000000000000' WHERE sequence = 2"),
         "errorClass": "checksumMismatch"},
    ] + [{"name": name, "bytes": framed(records=records).hex(), "errorClass": error_class}
         for name, records, error_class in _records_that_cannot_join(r1)]
    return dict(_file("14", "An SQLite store's snapshot archive (format llvs-sqlite-archive-1): valid ones, restored into "
                            "an empty SQLite store, give these version records (in sequence order) and values (data in "
                            "hex); a restore refuses the invalid ones and leaves the store as it was. The database bytes "
                            "are what VACUUM INTO made with the SQLite named in madeWithSQLite.", valid, invalid),
                madeWithSQLite=sqlite3.sqlite_version)


def registers():
    from . import register as r
    empty = {"context": {}, "entries": []}
    a, b = "0F1E2D3C-4B5A-6978-8796-A5B4C3D2E1F0", "11111111-2222-3333-4444-555555555555"
    hello = r.write(empty, "actor-a", a, 785000000.5, {"kind": "text", "text": "Hello"})
    blob = r.write(hello, "actor-b", b, 785000001, {"kind": "blob", "blob": bytes([0, 1, 255])})
    gone = r.write(hello, "actor-c", a, 785000001, {"kind": "tombstone"})
    doc = r.write(hello, "actor-a", b, -1.25, {"kind": "json", "text": '{"n":1}'})
    odd = r.write(empty, "é\0", a, 0, {"kind": "text", "text": "a\nb\u0001"})
    both = r.join(blob, gone)
    writes = [("first write", empty, "actor-a", a, 785000000.5, {"kind": "text", "text": "Hello"}),
              ("a second actor supersedes", hello, "actor-b", b, 785000001, {"kind": "blob", "blob": bytes([0, 1, 255])}),
              ("a delete", both, "actor-a", a, 785000002, {"kind": "tombstone"}),
              ("the same actor again", hello, "actor-a", b, -1.25, {"kind": "json", "text": '{"n":1}'})]
    valid = [{"name": n, "json": r.encode(x)} for n, x in
             [("empty", empty), ("one text", hello), ("a blob", blob), ("a tombstone", gone), ("json", doc),
              ("odd actor and text", odd), ("two concurrent writes", both), ("a context with unseen actors", r.join(both, doc))]]
    entry = r.encode(hello)[len('{"context":{"actor-a":1},"entries":['):-2]
    invalid = [
        {"name": "an entry its context has not seen", "json": '{"context":{"actor-a":0},"entries":[' + entry + ']}'},
        {"name": "an entry of an actor missing from the context", "json": '{"context":{},"entries":[' + entry + ']}'},
        {"name": "an unknown kind", "json": '{"context":{"x":1},"entries":[{"actor":"x","author":"' + a + '","counter":1,"kind":"number","timestamp":1}]}'},
        {"name": "a text entry without its text", "json": '{"context":{"x":1},"entries":[{"actor":"x","author":"' + a + '","counter":1,"kind":"text","timestamp":1}]}'},
        {"name": "a blob that is not base64", "json": '{"context":{"x":1},"entries":[{"actor":"x","author":"' + a + '","blob":"not base64!","counter":1,"kind":"blob","timestamp":1}]}'},
        {"name": "an author that is not a UUID", "json": '{"context":{"x":1},"entries":[{"actor":"x","author":"someone","counter":1,"kind":"tombstone","timestamp":1}]}'},
        {"name": "a negative context counter", "json": '{"context":{"x":-1},"entries":[]}'},
        {"name": "no entries list", "json": '{"context":{}}'},
        {"name": "a context counter above 2^53", "json": '{"context":{"x":9007199254740993},"entries":[]}'},
        {"name": "an entry counter above 2^53", "json": '{"context":{"x":9007199254740992},"entries":[{"actor":"x","author":"' + a + '","counter":9007199254740993,"kind":"tombstone","timestamp":1}]}'},
    ]
    joins = [{"name": n, "x": r.encode(x), "y": r.encode(y), "join": r.encode(r.join(x, y))} for n, x, y in
             [("a write and the state it superseded", hello, blob), ("two concurrent writes", blob, gone),
              ("a join with itself", both, both), ("unrelated registers", doc, odd), ("three ways", r.join(blob, doc), gone)]]
    writes = [{"name": n, "before": r.encode(x), "actor": actor, "author": author, "timestamp": t,
               "payload": {k: (v.hex() if isinstance(v, bytes) else v) for k, v in p.items()}, "after": r.encode(r.write(x, actor, author, t, p))}
              for n, x, actor, author, t, p in writes]
    return {"format": "llvs-conformance-registers", "formatVersion": 1, "section": "16",
            "about": "Registers as canonical JSON: valid ones decode and encode to the same text; invalid ones are "
                     "refused; a join of x and y gives join; a write of payload (blob in hex) by actor gives after.",
            "valid": valid, "invalid": invalid, "joins": joins, "writes": writes}


from .exchange_vectors import exchange_batches, exchange_directories, exchange_files, snapshot_manifests  # noqa: E402

FILES = {"primitives.json": primitives, "map-nodes.json": map_nodes, "version-records.json": version_records,
         "exchange-batches.json": exchange_batches, "exchange-files.json": exchange_files,
         "exchange-directories.json": exchange_directories, "snapshot-manifests.json": snapshot_manifests,
         "packs.json": packs, "sqlite-checksums.json": sqlite_checksums,
         "registers.json": registers, "segments.json": segments, "archives.json": archives,
         "sqlite-archives.json": sqlite_archives}


def render(make):
    # U+FEFF is written escaped: Foundation's JSONSerialization drops it from the start of a
    # string written as is (an escaped one it keeps).
    return json.dumps(make(), ensure_ascii=False, indent=1).replace("\ufeff", "\\ufeff") + "\n"
