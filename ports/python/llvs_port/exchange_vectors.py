"""The format vectors of the file-system exchange (SPEC.md section 11, both formats) and of
the snapshot manifest (section 13), made with ``exchange``'s encoders and hand-built
damage; ``format_vectors.FILES`` lists them, so ``python3 -m llvs_port vectors DIR``
writes them with the others."""
import struct

from .archive import encode_archive
from .binary import blob, sha256, string, varint
from .canonical_json import dumps
from .exchange import (BATCH_MAGIC, LOG_MAGIC, MARKER_NAME, batch_path, chunk_path, encode_batch, encode_changes,
                       encode_changes_file, encode_entry_record, encode_log_record, encode_marker,
                       encode_version_file, file_name, seal, shard, version_file_path)
from .filestore import encode_pack
from .mapindex import encode_leaf
from .records import VersionRecord, encode_record

HEADER = {"format": "llvs-conformance-formats", "formatVersion": 1}


def _file(section, about, valid, invalid):
    return dict(HEADER, section=section, about=about, valid=valid, invalid=invalid)


A = "0F1E2D3C-4B5A-4978-8796-A5B4C3D2E1F0"
B = "11111111-2222-4333-8444-555555555555"
C = "22222222-3333-4444-8555-666666666666"
D = "33333333-4444-4555-8666-777777777777"
M = "5A0B4C1D-7E2F-3A6B-9C8D-0E1F2A3B4C5D"  # a merge of B and C

V1 = {"identifier": A, "timestamp": 785000000.0, "valueDataSize": 5, "metadata": {"__llvs_branch": b'"main"'}}
C1 = [{"insert": {"id": "greeting", "data": b"hello", "storedVersionId": A}}]
V2 = {"identifier": B, "predecessors": {"idOfFirst": A}, "timestamp": 785000001.125, "valueDataSize": 300,
      "metadata": {"__llvs_branch": b'"main"', "message": b'"long"'}}
C2 = [{"update": {"id": "greeting", "data": bytes(range(256)) + b"x" * 44, "storedVersionId": B}},
      {"insert": {"id": "a\0b", "data": b"", "storedVersionId": B}}]
V3 = {"identifier": C, "predecessors": {"idOfFirst": A}, "timestamp": 785000002.5, "valueDataSize": 2}
C3 = [{"insert": {"id": "other", "data": b"\x00\xff"}}, {"remove": "greeting"}]
VM = {"identifier": M, "predecessors": {"idOfFirst": B, "idOfSecond": C}, "timestamp": 785000002.5, "valueDataSize": 0}
CM = [{"preserve": {"storedVersionId": C, "valueId": "other"}}, {"preserveRemoval": "gone"}]
V4 = {"identifier": D, "predecessors": {"idOfFirst": M}, "timestamp": -1.5}
C4 = [{"remove": "a\0b"}]

E1 = {"identifier": "é", "timestamp": 1.25e-05, "metadata": {"k\0": b"", "é": b"\xff"}}
EC1 = [{"insert": {"id": "", "data": b"", "storedVersionId": "é"}}, {"insert": {"id": "e\u0301", "data": b"\0"}}]
E2 = {"identifier": "a\0b", "predecessors": {"idOfFirst": "é"}, "timestamp": 1e16, "valueDataSize": 0}
EC2 = [{"remove": "e\u0301"}]
E3 = {"identifier": "e\u0301", "predecessors": {"idOfFirst": "a\0b", "idOfSecond": "é"}, "timestamp": 0.0}
EC3 = []

LONG_ID = "L" + "o" * 98 + "g"  # 100 characters: its own name
TOO_LONG_ID = LONG_ID + "x"  # 101 characters: named by its hash


def _entry_json(version, changes):
    return {"version": dumps(version), "changes": dumps(changes)}


def _log_record(payload, good=True):
    checksum = sha256(payload)[:8] if good else bytes(b ^ 0xFF for b in sha256(payload)[:8])
    return struct.pack("<I", len(payload)) + payload + checksum


def _segment(*records, tail=b""):
    return LOG_MAGIC + b"".join(_log_record(r) for r in records) + tail


def _batch_case(name, entries):
    data = encode_batch(entries)
    digest = sha256(data)
    return {"name": name, "kind": "batch", "bytes": data.hex(), "digest": digest.hex(), "path": batch_path(digest),
            "entries": [_entry_json(v, c) for v, c in entries]}


# MARK: exchange-batches.json

def exchange_batches():
    sends = [
        ("one initial version inserting one value", [(V1, C1)]),
        ("four versions of one send: an update of 300 bytes, an insert without a storing version, a removal, a merge "
         "with preserve and preserveRemoval", [(V1, C1), (V2, C2), (V3, C3), (VM, CM)]),
        ("identifiers with NUL and non-ASCII (é composed and decomposed are two versions), empty data and identifiers, "
         "no value data size, exponent timestamps", [(E1, EC1), (E2, EC2), (E3, EC3)]),
        ("a version that changed nothing, at timestamp 0", [({"identifier": "V", "predecessors": {"idOfFirst": "P"},
                                                              "timestamp": 0.0}, [])]),
    ]
    valid = [_batch_case(name, entries) for name, entries in sends]
    for (name, entries), what in zip(sends[:3], ("one version", "four versions", "identifiers with NUL and non-ASCII")):
        ids = [v["identifier"] for v, _ in entries]
        valid.append({"name": f"the log record of the batch of {what}", "kind": "logRecord",
                      "bytes": _record_of(entries).hex(), "digest": sha256(encode_batch(entries)).hex(), "versionIds": ids})

    good_record = encode_entry_record({"identifier": "V", "predecessors": {"idOfFirst": "P"}, "timestamp": 1.0})
    good_changes = encode_changes([{"insert": {"id": "k", "data": b"v", "storedVersionId": "V"}}])

    def batch(*entries, count=None):
        return BATCH_MAGIC + varint(len(entries) if count is None else count) + b"".join(entries)

    def entry(record=good_record, changes=good_changes):
        return blob(record) + blob(changes)

    def record(identifier=b"\x01V", predecessors=b"\x01\x01P", timestamp=struct.pack("<d", 1.0), size=b"\x00", metadata=b"\x00"):
        return identifier + predecessors + timestamp + size + metadata

    def invalid_batch(name, data, error_class):
        return {"name": name, "kind": "batch", "bytes": data.hex(), "errorClass": error_class}

    good = batch(entry())
    two_keys = string("a") + blob(b"1") + string("b") + blob(b"2")
    invalid = [
        invalid_batch("wrong magic", b"LLVSXBT2" + good[8:], "unknownFormat"),
        invalid_batch("only the magic", BATCH_MAGIC, "truncated"),
        invalid_batch("no entries (n = 0)", batch(), "invalidContent"),
        invalid_batch("n counting more entries than the file holds", batch(entry(), count=2), "truncated"),
        invalid_batch("three predecessors", batch(entry(record(predecessors=b"\x03\x01P\x01Q\x01R"))), "invalidContent"),
        invalid_batch("the same predecessor twice", batch(entry(record(predecessors=b"\x02\x01P\x01P"))), "invalidContent"),
        invalid_batch("its own predecessor", batch(entry(record(predecessors=b"\x01\x01V"))), "invalidContent"),
        invalid_batch("a NaN timestamp", batch(entry(record(timestamp=struct.pack("<d", float("nan"))))), "invalidContent"),
        invalid_batch("an infinite timestamp", batch(entry(record(timestamp=struct.pack("<d", float("inf"))))), "invalidContent"),
        invalid_batch("a value data size flag of 2", batch(entry(record(size=b"\x02\x05"))), "invalidContent"),
        invalid_batch("a value data size of 2^63", batch(entry(record(size=b"\x01" + varint(2 ** 63)))), "invalidContent"),
        invalid_batch("a value data size varint over 64 bits", batch(entry(record(size=b"\x01" + b"\xff" * 9 + b"\x02"))),
                      "malformedVarint"),
        invalid_batch("metadata keys out of order", batch(entry(record(metadata=b"\x02" + string("b") + blob(b"2") + string("a") + blob(b"1")))),
                      "outOfOrder"),
        invalid_batch("a metadata key twice", batch(entry(record(metadata=b"\x02" + string("a") + blob(b"1") + string("a") + blob(b"2")))),
                      "outOfOrder"),
        invalid_batch("a byte after the record's metadata, inside its bytes", batch(entry(record(metadata=b"\x02" + two_keys + b"\x00"))),
                      "trailingBytes"),
        invalid_batch("a version identifier of invalid UTF-8", batch(entry(record(identifier=b"\x02\xc3\x28"))), "invalidUTF8"),
        invalid_batch("change kind 0", batch(entry(changes=b"\x01\x00" + string("k"))), "unknownFormat"),
        invalid_batch("change kind 6", batch(entry(changes=b"\x01\x06" + string("k"))), "unknownFormat"),
        invalid_batch("an insert with a stored version flag of 2", batch(entry(changes=b"\x01\x01" + string("k") + blob(b"v") + b"\x02")),
                      "invalidContent"),
        invalid_batch("a byte after the last change, inside the changes bytes", batch(entry(changes=good_changes + b"\x00")),
                      "trailingBytes"),
        invalid_batch("a value identifier of invalid UTF-8 in a change", batch(entry(changes=b"\x01\x03\x01\xff")), "invalidUTF8"),
        invalid_batch("a change count larger than the changes bytes", batch(entry(changes=b"\x05\x03\x01k")), "truncated"),
        invalid_batch("the same version twice", batch(entry(), entry()), "outOfOrder"),
        invalid_batch("a byte after the last entry", good + b"\x00", "trailingBytes"),
        invalid_batch("cut inside the last entry", good[:-3], "truncated"),
        invalid_batch("an entry count varint over 64 bits", BATCH_MAGIC + b"\xff" * 10 + b"\x01" + entry(), "malformedVarint"),
    ]
    digest = sha256(good)

    def invalid_log(name, data, error_class):
        return {"name": name, "kind": "logRecord", "bytes": data.hex(), "errorClass": error_class}

    invalid += [
        invalid_log("a format-1 record (a version identifier's bytes)", A.encode("utf-8"), "unknownFormat"),
        invalid_log("opening with 0xFF 0x02", b"\xff\x02" + digest + varint(1) + string("V"), "unknownFormat"),
        invalid_log("naming no version (n = 0)", b"\xff\x01" + digest + varint(0), "invalidContent"),
        invalid_log("cut inside the digest", b"\xff\x01" + digest[:20], "truncated"),
        invalid_log("counting more identifiers than it holds", b"\xff\x01" + digest + varint(2) + string("V"), "truncated"),
        invalid_log("a byte after the last identifier", b"\xff\x01" + digest + varint(1) + string("V") + b"\x00", "trailingBytes"),
        invalid_log("an identifier of invalid UTF-8", b"\xff\x01" + digest + varint(1) + b"\x01\x80", "invalidUTF8"),
        invalid_log("a count varint over 64 bits", b"\xff\x01" + digest + b"\x80" * 10 + b"\x01", "malformedVarint"),
    ]
    return _file("11", "Format 2 of the file-system exchange. kind batch: a batch file's bytes, its SHA-256 (digest) and "
                       "the path it has in the directory (batches/<shard>/<digest>.batch); entries, in the file's "
                       "order, each with its version (section 3 Version, canonical JSON text; valueDataSize absent when "
                       "the record's flag is 0) and its changes (a JSON array of section 3 Value.Change, canonical JSON "
                       "text; storedVersionId absent when the change's flag is 0). Encoding the entries gives the bytes. "
                       "kind logRecord: the payload of a version-log record naming a batch, its digest and versionIds. "
                       "Invalid: decoding must fail with errorClass (section 5), where decoding a batch means decoding "
                       "every entry's record and changes. In a directory every one of these is malformedData.",
                 valid, invalid)


# MARK: exchange-files.json

def exchange_files():
    def version_case(name, version, sealed=True, required=True):
        data = encode_version_file(version, sealed)
        return {"name": name, "kind": "version", "versionId": version["identifier"],
                "path": version_file_path("versions", version["identifier"]), "checksumsRequired": required,
                "bytes": data.hex(), "checksum": data[13:77].decode("ascii") if sealed else None, "version": dumps(version)}

    def changes_case(name, version_id, changes, sealed=True, required=True):
        data = encode_changes_file(version_id, changes, sealed)
        return {"name": name, "kind": "changes", "versionId": version_id, "path": version_file_path("changes", version_id),
                "checksumsRequired": required, "bytes": data.hex(),
                "checksum": data[13:77].decode("ascii") if sealed else None, "changes": dumps(changes)}

    def marker_case(name, data, format_version, identifier, checksums):
        return {"name": name, "kind": "marker", "bytes": data.hex(), "formatVersion": format_version,
                "identifier": identifier, "checksums": checksums,
                "canonical": data == encode_marker(format_version, identifier, checksums)}

    valid = [
        version_case("an initial version with metadata (a UUID is its own name)", V1),
        version_case("a merge, identifier of a UUID form", VM),
        version_case("an identifier with NUL and non-ASCII: named by its hash", {**E2, "identifier": "a\0é", "predecessors": {"idOfFirst": "é"}}),
        version_case("the empty identifier: named by its hash", {"identifier": "", "timestamp": 785000000.5}),
        version_case("an identifier of 100 characters is its own name", {"identifier": LONG_ID, "timestamp": 1.0}),
        version_case("an identifier of 101 characters is named by its hash", {"identifier": TOO_LONG_ID, "timestamp": 1.0}),
        version_case("an identifier starting with a dot is named by its hash", {"identifier": ".hidden", "timestamp": 1.0}),
        version_case("an identifier starting with an underscore is named by its hash", {"identifier": "_x", "timestamp": 1.0}),
        version_case("an identifier of letters, digits, dots, dashes and underscores is its own name", {"identifier": "v1.2_3-4", "timestamp": 1.0}),
        changes_case("changes of every kind", M, C2 + C3 + CM),
        changes_case("no changes", B, []),
        changes_case("changes of a version with NUL and non-ASCII identifiers", "a\0b", EC1),
        version_case("a version file without a checksum, in a directory made before checksums", V2, sealed=False, required=False),
        changes_case("a changes file without a checksum, in a directory made before checksums", B, C2, sealed=False, required=False),
        version_case("a version file with its checksum, in a directory made before checksums (checked)", V3, required=False),
        marker_case("the marker of a new format-2 directory", encode_marker(2, "9F0A7C55-1B2D-4E3F-8A9B-0C1D2E3F4A5B"), 2,
                    "9F0A7C55-1B2D-4E3F-8A9B-0C1D2E3F4A5B", True),
        marker_case("the marker of a format-1 directory with checksums", encode_marker(1, "D1"), 1, "D1", True),
        marker_case("the marker of a format-1 directory made before checksums", encode_marker(1, "old", None), 1, "old", None),
        marker_case("a marker with checksums false", encode_marker(1, "off", False), 1, "off", False),
        marker_case("a marker in another key order, with white space", b'{ "identifier": "x", "formatVersion": 2,\n'
                    b'  "format": "llvs-file-exchange", "checksums": true }', 2, "x", True),
    ]

    def with_checksum(data, checksum):
        return data[:13] + checksum + data[77:]

    v1 = encode_version_file(V1)
    c1 = encode_changes_file(A, C1)
    digits = v1[13:77]
    flipped = digits[:10] + (b"0" if digits[10:11] != b"0" else b"1") + digits[11:]

    def invalid_file(name, kind, version_id, data, error_class, exchange_error, required=True):
        return {"name": name, "kind": kind, "versionId": version_id, "checksumsRequired": required, "bytes": data.hex(),
                "errorClass": error_class, "exchangeError": exchange_error}

    other = encode_version_file(V2)
    invalid = [
        invalid_file("a checksum with one digit changed", "version", A, with_checksum(v1, flipped), "checksumMismatch", "damagedFile"),
        invalid_file("a checksum in upper-case hex", "version", A, with_checksum(v1, digits.upper()), "checksumMismatch", "damagedFile"),
        invalid_file("a content byte changed", "changes", A, c1.replace(b"aGVsbG8=", b"aGVsbG9="), "checksumMismatch", "damagedFile"),
        invalid_file("no checksum in a directory whose marker says checksums: true", "version", A, encode_version_file(V1, sealed=False),
                     "checksumMismatch", "damagedFile"),
        invalid_file("no checksum in the changes file, checksums: true", "changes", A, encode_changes_file(A, C1, sealed=False),
                     "checksumMismatch", "damagedFile"),
        invalid_file("no '\",' at offsets 77-78 (a digit missing)", "version", A, v1[:76] + v1[77:], "checksumMismatch", "damagedFile"),
        invalid_file("'\";' at offsets 77-78", "changes", A, c1[:78] + b";" + c1[79:], "checksumMismatch", "damagedFile"),
        invalid_file("cut inside the checksum", "version", A, v1[:40], "checksumMismatch", "damagedFile"),
        invalid_file("a wrong checksum in a directory made before checksums", "version", A, with_checksum(v1, flipped),
                     "checksumMismatch", "damagedFile", required=False),
        invalid_file("a version file holding another version than its name says", "version", A, other, "invalidContent", "malformedData"),
        invalid_file("a changes file holding another version's changes", "changes", A, encode_changes_file(B, C2), "invalidContent",
                     "malformedData"),
        invalid_file("a good checksum over a version without a timestamp", "version", A,
                     seal(dumps({"identifier": A}).encode()), "invalidContent", "malformedData"),
        invalid_file("a good checksum over a version that is its own predecessor", "version", A,
                     seal(dumps({"identifier": A, "predecessors": {"idOfFirst": A}, "timestamp": 1}).encode()), "invalidContent",
                     "malformedData"),
        invalid_file("a good checksum over a change with two keys", "changes", A,
                     seal(dumps({"valueChanges": [{"remove": "k", "preserveRemoval": "k"}], "version": A}).encode()),
                     "invalidContent", "malformedData"),
        invalid_file("a good checksum over text that is not JSON", "version", A, seal(b"{not json}"), "invalidContent", "malformedData"),
    ]

    def invalid_marker(name, data, exchange_error):
        return {"name": name, "kind": "marker", "bytes": data.hex(), "exchangeError": exchange_error}

    invalid += [
        invalid_marker("an extra key", b'{"checksums":true,"extra":1,"format":"llvs-file-exchange","formatVersion":2,"identifier":"x"}',
                       "malformedData"),
        invalid_marker("a damaged key name (checksumz)", b'{"checksumz":true,"format":"llvs-file-exchange","formatVersion":1,"identifier":"x"}',
                       "malformedData"),
        invalid_marker("formatVersion 3", encode_marker(3, "x"), "unsupportedFormat"),
        invalid_marker("formatVersion 0", encode_marker(0, "x"), "unsupportedFormat"),
        invalid_marker("another format name", b'{"checksums":true,"format":"llvs-file-store","formatVersion":2,"identifier":"x"}',
                       "unsupportedFormat"),
        invalid_marker("no identifier", b'{"checksums":true,"format":"llvs-file-exchange","formatVersion":2}', "malformedData"),
        invalid_marker("formatVersion as a string", b'{"format":"llvs-file-exchange","formatVersion":"2","identifier":"x"}',
                       "malformedData"),
        invalid_marker("not JSON", b'{"format":"llvs-file-exchange",', "malformedData"),
        invalid_marker("an array", b'["llvs-file-exchange",2]', "malformedData"),
    ]
    return _file("11", "Format 1 of the file-system exchange. kind version / changes: a version file or a changes file "
                       "(bytes), the version it belongs to (versionId), the path its name and shard give it "
                       "(section 7 rule), whether the directory's marker says checksums: true (checksumsRequired), "
                       "the checksum it carries (null: none) and what it holds: version (section 3 Version, canonical "
                       "JSON text) or changes (a JSON array of section 3 Value.Change, canonical JSON text). Encoding "
                       "them (canonical JSON, then the checksum member inserted first when checksum is not null) gives "
                       "the bytes. kind marker: llvs-exchange.json and its fields (checksums null when absent); "
                       "canonical ones are what encoding the fields gives. "
                       "Invalid files: refused with errorClass (section 5) and the ExchangeError a directory reader "
                       "reports (exchangeError: damagedFile for every checksum failure, malformedData for the rest); "
                       "invalid markers: the ExchangeError (malformedData or unsupportedFormat).", valid, invalid)


# MARK: snapshots

def _archive(version_ids):
    """A file store's snapshot archive (section 10) of initial versions, one value each."""
    files, records = [], []
    for index, version_id in enumerate(version_ids):
        leaf, digest = encode_leaf([("k", version_id)])
        records.append(encode_record(VersionRecord(version_id, [], 785000000.0 + index, 1, {}, (digest, version_id, 1))))
        where = f"{shard(version_id)}/{file_name(version_id)}.pack"
        files.append((f"values/{where}", encode_pack(version_id, {"k": bytes([index])})))
        files.append((f"maps/{where}", encode_pack(version_id, {digest.hex(): leaf})))
    files.append(("versions/writer.log", _segment(*records)))
    return encode_archive(files)


def _manifest(snapshot_id, archive, chunk_size, latest, version_count, created_at=785000100.25):
    chunks = [archive[i:i + chunk_size] for i in range(0, len(archive), chunk_size)]
    return {"snapshotId": snapshot_id, "format": "llvs-file-store-archive-1", "createdAt": created_at,
            "latestVersionId": latest, "versionCount": version_count, "chunkCount": len(chunks), "chunkSize": chunk_size,
            "totalSize": len(archive), "chunkChecksums": [sha256(c).hex() for c in chunks], "sha256": sha256(archive).hex()}, chunks


def snapshot_manifests():
    archive = _archive(["S1", "S2"])
    odd = _archive(["a\0b"])
    divisor = next(d for d in range(len(archive) // 3, 1, -1) if len(archive) % d == 0)

    def case(name, manifest, chunks):
        return {"name": name, "json": dumps(manifest), "chunks": [c.hex() for c in chunks]}

    valid = [
        case("one chunk holding the whole archive", *_manifest("3F2504E0-4F89-41D3-9A0C-0305E82C3301", archive, 4 << 20, "S2", 2)),
        case("chunks of 100 bytes, the last shorter", *_manifest("chunks-100", archive, 100, "S2", 2)),
        case(f"chunks of {divisor} bytes, the last as long as the others",
             *_manifest("exact", archive, divisor, "S2", 2)),
        case("a snapshot id of 128 characters of every kind allowed, a latest version with NUL and non-ASCII",
             *_manifest(("Az09-_" * 22)[:128], odd, 64, "a\0b", 1, created_at=-0.5)),
    ]
    base, chunks = _manifest("snap", archive, 100, "S2", 2)

    def changed(**fields):
        return dumps({**base, **fields})

    def bad(name, text, rule, stated, error="invalidSnapshotManifest", chunk_list=None, chunk=None):
        result = {"name": name, "json": text, "error": error, "rule": rule, "stated": stated}
        if chunk_list is not None:
            result["chunks"] = [None if c is None else c.hex() for c in chunk_list]
        if chunk is not None:
            result["chunkIndex"] = chunk
        return result

    n, size = base["chunkCount"], base["chunkSize"]
    damaged = list(chunks)
    damaged[1] = bytes([chunks[1][0] ^ 1]) + chunks[1][1:]
    longer = chunks[:-1] + [chunks[-1] + b"\0"]
    other_sha = "0" * 64
    invalid = [
        bad("an empty snapshot id", changed(snapshotId=""), "snapshotId", True),
        bad("a snapshot id of 129 characters", changed(snapshotId="a" * 129), "snapshotId", True),
        bad("a snapshot id with a slash", changed(snapshotId="../x"), "snapshotId", True),
        bad("a snapshot id with a dot", changed(snapshotId="a.b"), "snapshotId", True),
        bad("a snapshot id with a non-ASCII letter", changed(snapshotId="é"), "snapshotId", True),
        bad("no chunks", changed(chunkCount=0, chunkChecksums=[], totalSize=0), "chunkCount", True),
        bad("fewer checksums than chunks", changed(chunkChecksums=base["chunkChecksums"][:-1]), "chunkChecksums", True),
        bad("more checksums than chunks", changed(chunkChecksums=base["chunkChecksums"] + [other_sha]), "chunkChecksums", True),
        bad("a total size too small for the chunks before the last", changed(totalSize=size * (n - 1) - 1), "totalSize", True),
        bad("an empty last chunk (total size = chunkSize × (chunkCount - 1))", changed(totalSize=size * (n - 1)), "totalSize", True),
        bad("a last chunk longer than chunkSize", changed(totalSize=size * n + 1), "totalSize", True),
        bad("a chunk size of 0", changed(chunkSize=0, chunkCount=1, chunkChecksums=[other_sha], totalSize=5), "chunkSize", True),
        bad("a negative version count", changed(versionCount=-1), "versionCount", True),
        bad("a chunk checksum in upper-case hex", changed(chunkChecksums=[base["chunkChecksums"][0].upper()] + base["chunkChecksums"][1:]),
            "checksumHex", True),
        bad("a chunk checksum of 63 digits", changed(chunkChecksums=[base["chunkChecksums"][0][:63]] + base["chunkChecksums"][1:]),
            "checksumHex", True),
        bad("a whole-archive sha256 that is not hex", changed(sha256="g" * 64), "checksumHex", True),
        bad("a chunk checksum of full-width hex digits (64 characters, not 64 bytes)",
            changed(chunkChecksums=["\uff10" * 64] + base["chunkChecksums"][1:]), "checksumHex", True),
        bad("chunk sizes whose sum does not fit 64 bits", changed(chunkCount=3, chunkChecksums=[other_sha] * 3,
                                                                   chunkSize=2**63 - 1, totalSize=2**63 - 1), "totalSize", True),
        bad("chunk sizes reaching 2^63", changed(chunkCount=3, chunkChecksums=[other_sha] * 3, chunkSize=2**62,
                                                  totalSize=2**63 - 1), "totalSize", True),
        bad("a negative total size", changed(totalSize=-(2**63)), "totalSize", True),
        bad("no sha256", dumps({k: v for k, v in base.items() if k != "sha256"}), "fields", True),
        bad("chunkCount as a string", changed(chunkCount=str(n)), "fields", True),
        bad("createdAt as a string", changed(createdAt="2025-01-01"), "fields", True),
        bad("not JSON", dumps(base)[:-1], "json", True),
        bad("an array", "[" + dumps(base) + "]", "json", True),
        bad("chunk 1 with a byte changed", dumps(base), "chunk", True, "corruptSnapshotChunk", damaged, 1),
        bad("chunk 0 missing", dumps(base), "chunk", True, "corruptSnapshotChunk", [None] + chunks[1:], 0),
        bad("the last chunk one byte longer", dumps(base), "chunk", True, "corruptSnapshotChunk", longer, n - 1),
        bad("every chunk matching its checksum, the whole archive not its sha256", changed(sha256=other_sha), "sha256", True,
            chunk_list=chunks),
    ]
    return _file("13", "Snapshot manifests as canonical JSON text (json) with their chunks in hex (the chunks of valid "
                       "ones make a file store's snapshot archive, section 10, holding latestVersionId and versionCount "
                       "versions). Valid: decoding json and encoding it canonically gives json; every chunk matches "
                       "its size and checksum and the whole archive sha256. Invalid: error is the ExchangeError a "
                       "restorer reports (invalidSnapshotManifest for the manifest, before any chunk is read, or "
                       "for a whole archive not matching sha256; corruptSnapshotChunk at chunkIndex for a chunk that "
                       "is missing (null) or does not match its size and checksum) and rule the check: snapshotId "
                       "(1-128 of A-Z a-z 0-9 - _), chunkCount (>= 1), chunkChecksums (one per chunk), chunkSize "
                       "(>= 1), totalSize (every chunk but the last exactly chunkSize, the last 1 to chunkSize bytes), "
                       "versionCount (>= 0), checksumHex (64 lower-case hex digits, section 5), fields (a field "
                       "missing or of another type), json, chunk, sha256. stated: SPEC.md states the rule in words; "
                       "false: SPEC.md implies it and the Swift restorer checks it.", valid, invalid)


# MARK: exchange-directories.json

def _files(files):
    return {path: data.hex() for path, data in sorted(files.items())}


def _format2(entries_by_batch, segments, marker=None, extra=None):
    """Files of a format-2 directory: each batch of entries written under its digest, the
    log segments given as {name: [payload or (payload, good)] or bytes}."""
    files = {MARKER_NAME: marker or encode_marker(2, "D2-" + str(len(entries_by_batch)))}
    for entries in entries_by_batch:
        data = encode_batch(entries)
        files[batch_path(sha256(data))] = data
    for name, segment in segments.items():
        files[f"log/{name}"] = segment
    files.update(extra or {})
    return files


def _record_of(entries):
    return encode_log_record(sha256(encode_batch(entries)), [v["identifier"] for v, _ in entries])


def _format1(versions, segments, marker=None, sealed=True, extra=None):
    files = {MARKER_NAME: marker or encode_marker(1, "D1")}
    for version, changes in versions:
        files[version_file_path("versions", version["identifier"])] = encode_version_file(version, sealed)
        files[version_file_path("changes", version["identifier"])] = encode_changes_file(version["identifier"], changes, sealed)
    for name, segment in segments.items():
        files[f"log/{name}"] = segment
    files.update(extra or {})
    return files


def _ids(*ids):
    return [i.encode("utf-8") for i in ids]


def exchange_directories():
    X, Y = [(V1, C1), (V2, C2)], [(V3, C3), (VM, CM)]
    V2_OTHER = {**V2, "timestamp": 785000009.0}
    Z = [(V2_OTHER, C2), (V4, C4)]
    unnamed = [({"identifier": "never-logged", "timestamp": 1.0}, [])]
    torn = _log_record(encode_log_record(sha256(encode_batch(unnamed)), ["never-logged"]))[:-5]
    snapshot_archive = _archive(["S1"])
    manifest, chunks = _manifest("snap-2", snapshot_archive, 128, "S1", 1)
    old_manifest, old_chunks = _manifest("snap-1", _archive(["S0"]), 128, "S0", 1)
    snapshot_files = {"snapshots/latest.json": dumps(manifest).encode("utf-8")}
    snapshot_files.update({chunk_path("snap-2", i): c for i, c in enumerate(chunks)})
    snapshot_files.update({chunk_path("snap-1", i): c for i, c in enumerate(old_chunks)})
    writers = _format2(
        [X, Y, Z, unnamed],
        {"B-writer.log": _segment(_record_of(X)) + torn,
         "a-writer.log": _segment(_record_of(Y), _record_of(Z), tail=bytes(48)),
         ".tmp-3F2A.log": b"a temporary file: never read"},
        extra={"batches/00/.tmp-1C2B": b"a temporary batch file: never read", **snapshot_files})

    def expect(order, table):
        return {"versionIds": order, "versions": [{"id": i, **_entry_json(*table[i])} for i in order]}

    table = {v["identifier"]: (v, c) for v, c in X + Y + [(V4, C4)]}
    valid = [
        {"name": "format 2: two writers' segments (read in byte order of their names: B before a), three sends, a "
                 "version logged twice with other content the second time (the first record wins), a torn final record, "
                 "preallocated zeros, a batch no record names, temporary files, a snapshot and the previous one's chunks",
         "format": 2, "files": _files(writers), **expect([A, B, C, M, D], table), "snapshot": dumps(manifest)},
    ]
    E = [(E1, EC1), (E2, EC2)]
    F = [(E1, EC1), (E3, EC3)]  # the same entry for é again (two writers sent it at once), and a new version
    odd = _format2([E, F], {"w1.log": _segment(_record_of(E)), "w2.log": _segment(_record_of(F))})
    table.update({v["identifier"]: (v, c) for v, c in E + F})
    valid.append({"name": "format 2: identifiers with NUL and non-ASCII, a version two writers both sent", "format": 2,
                  "files": _files(odd), **expect(["é", "a\0b", "e\u0301"], table), "snapshot": None})
    valid.append({"name": "format 2: a new directory (a marker and an empty segment)", "format": 2,
                  "files": _files({MARKER_NAME: encode_marker(2, "new"), "log/w.log": LOG_MAGIC}), "versionIds": [],
                  "versions": [], "snapshot": None})

    F1 = [(V1, C1), ({**E2, "identifier": "a\0b", "predecessors": {"idOfFirst": A}}, EC2),
          ({"identifier": "", "timestamp": 785000000.5}, []), ({"identifier": TOO_LONG_ID, "timestamp": 2.0}, C4),
          ({"identifier": "\ufeffBOM", "predecessors": {"idOfFirst": A}, "timestamp": 2.5}, [])]
    table.update({v["identifier"]: (v, c) for v, c in F1})
    bad_tail = _log_record(b"torn-version", good=False)
    format1 = _format1(F1 + [({"identifier": "torn-version", "timestamp": 3.0}, [])],
                       {"1.log": _segment(*_ids(A, "a\0b")) + bad_tail, "2.log": _segment(*_ids("a\0b", "", TOO_LONG_ID, "\ufeffBOM"), tail=bytes(12))})
    valid.append({"name": "format 1: identifiers with NUL, empty, of 101 characters and opening with U+FEFF (named by "
                           "their hash), a version logged twice, a final record failing its checksum (torn: not listed), "
                           "preallocated zeros",
                  "format": 1, "files": _files(format1), **expect([A, "a\0b", "", TOO_LONG_ID, "\ufeffBOM"], table),
                  "snapshot": None})
    legacy = _format1([(V1, C1)], {"1.log": _segment(*_ids(A, B))}, marker=encode_marker(1, "old", None), sealed=False)
    legacy[version_file_path("versions", B)] = encode_version_file(V2)
    legacy[version_file_path("changes", B)] = encode_changes_file(B, C2)
    valid.append({"name": "format 1 made before checksums (no checksums key): files without a checksum read unchecked, "
                           "files with one checked", "format": 1, "files": _files(legacy), **expect([A, B], table),
                  "snapshot": None})

    def fail(name, files, step, version_id, error):
        return {"name": name, "files": _files(files), "step": step, "versionId": version_id, "error": error}

    simple = _format2([X], {"w.log": _segment(_record_of(X))})
    damaged = dict(simple)
    path = batch_path(sha256(encode_batch(X)))
    damaged[path] = damaged[path][:40] + bytes([damaged[path][40] ^ 1]) + damaged[path][41:]
    absent = {k: v for k, v in simple.items() if k != path}
    lacking = _format2([[(V1, C1)]], {"w.log": _segment(encode_log_record(sha256(encode_batch([(V1, C1)])), [A, B]))})
    garbage = b"matches its digest, but is not a batch"
    unparsable = {MARKER_NAME: encode_marker(2, "g"), batch_path(sha256(garbage)): garbage,
                  "log/w.log": _segment(encode_log_record(sha256(garbage), [A]))}
    first_wins = _format2([X], {"w.log": _segment(encode_log_record(sha256(b"absent"), [A]), _record_of(X))})
    f1 = _format1([(V1, C1), (V2, C2)], {"1.log": _segment(*_ids(A, B))})
    changes_damaged = dict(f1)
    changes_damaged[version_file_path("changes", B)] = f1[version_file_path("changes", B)].replace(b'"version"', b'"Version"')
    unsealed = dict(f1)
    unsealed[version_file_path("versions", A)] = encode_version_file(V1, sealed=False)
    swapped = dict(f1)
    swapped[version_file_path("versions", B)] = encode_version_file(V3)
    swapped_changes = dict(f1)
    swapped_changes[version_file_path("changes", B)] = encode_changes_file(A, C1)
    no_changes = {k: v for k, v in f1.items() if k != version_file_path("changes", B)}
    no_version = {k: v for k, v in f1.items() if k != version_file_path("versions", A)}
    not_json = dict(f1)
    not_json[version_file_path("versions", B)] = seal(b"{not json}")
    broken_manifest = dict(writers)
    broken_manifest["snapshots/latest.json"] = dumps({**manifest, "chunkCount": 0}).encode("utf-8")
    broken_chunk = dict(writers)
    broken_chunk[chunk_path("snap-2", 1)] = b"\0" + chunks[1][1:]
    invalid = [
        fail("format 2: a batch file whose bytes do not match its digest", damaged, "version", A, "damagedFile"),
        fail("format 2: an absent batch file", absent, "version", A, "missingVersion"),
        fail("format 2: a batch file matching its digest that lacks a version its log record lists", lacking, "version", B,
             "malformedData"),
        fail("format 2: a batch file matching its digest that does not parse", unparsable, "version", A, "malformedData"),
        fail("format 2: the first record listing a version names an absent batch, a later one a good batch (the first "
             "record wins)", first_wins, "version", A, "missingVersion"),
        fail("format 2: a log record that is not a batch record (a format-1 record)",
             _format2([X], {"w.log": _segment(_record_of(X), A.encode())}), "list", None, "malformedData"),
        fail("format 2: a log record failing its checksum, followed by a good one",
             _format2([X], {"w.log": LOG_MAGIC + _log_record(_record_of(X), good=False) + _log_record(_record_of(X))}),
             "list", None, "malformedData"),
        fail("a log segment of another magic", _format2([X], {"w.log": b"LLVSLOG2" + _log_record(_record_of(X))}),
             "list", None, "malformedData"),
        fail("a marker of formatVersion 3", {**simple, MARKER_NAME: encode_marker(3, "x")}, "marker", None, "unsupportedFormat"),
        fail("a marker of another format", {**simple, MARKER_NAME: b'{"format":"llvs-file-store","formatVersion":2,"identifier":"x"}'},
             "marker", None, "unsupportedFormat"),
        fail("a marker with an extra key", {**simple, MARKER_NAME: b'{"checksums":true,"format":"llvs-file-exchange",'
                                                                 b'"formatVersion":2,"identifier":"x","more":0}'},
             "marker", None, "malformedData"),
        fail("format 1: a changes file failing its checksum", changes_damaged, "changes", B, "damagedFile"),
        fail("format 1: a version file without a checksum, checksums: true", unsealed, "version", A, "damagedFile"),
        fail("format 1: a version file holding another version than its name says", swapped, "version", B, "malformedData"),
        fail("format 1: a changes file holding another version's changes", swapped_changes, "changes", B, "malformedData"),
        fail("format 1: an absent changes file", no_changes, "changes", B, "missingValueChanges"),
        fail("format 1: an absent version file", no_version, "version", A, "missingVersion"),
        fail("format 1: a version file that is not JSON behind a good checksum", not_json, "version", B, "malformedData"),
        fail("format 1: a log record that is not UTF-8 (a batch record)",
             _format1([(V1, C1)], {"1.log": _segment(A.encode(), _record_of(X))}), "list", None, "malformedData"),
        fail("format 2: a snapshot manifest with no chunks", broken_manifest, "snapshot", None, "invalidSnapshotManifest"),
        fail("format 2: a snapshot chunk with a byte changed", broken_chunk, "snapshot", None, "corruptSnapshotChunk"),
    ]
    def send(name, directory, version, changes, outcome):
        assert any(c["name"] == directory for c in valid), directory
        return {"name": name, "directory": directory, **_entry_json(version, changes), "outcome": outcome}

    other_data = [{"insert": {**C1[0]["insert"], "data": b"hellO"}}]
    sends = [
        send("format 2: a logged version with the same entry", valid[0]["name"], V1, C1, "alreadyLogged"),
        send("format 2: a version logged twice, with the content of its first record", valid[0]["name"], V2, C2, "alreadyLogged"),
        send("format 2: a version logged twice, with the content of its second record", valid[0]["name"], V2_OTHER, C2,
             "conflictingVersion"),
        send("format 2: a logged version with other data", valid[0]["name"], V1, other_data, "conflictingVersion"),
        send("format 2: a logged version with other metadata", valid[0]["name"], {**V1, "metadata": {}}, C1, "conflictingVersion"),
        send("format 2: a logged version whose changes come in another order", valid[0]["name"], V3, list(reversed(C3)),
             "conflictingVersion"),
        send("format 2: a version not logged", valid[0]["name"], {"identifier": "new", "timestamp": 5.0}, [], "new"),
        send("format 2: a version whose batch file no record names (a killed sender's)", valid[0]["name"],
             *unnamed[0], "new"),
        send("format 1: a logged version with the same files", valid[3]["name"], V1, C1, "alreadyLogged"),
        send("format 1: a logged version with another timestamp", valid[3]["name"], {**V1, "timestamp": 785000000.5}, C1,
             "conflictingVersion"),
        send("format 1: a version whose files are there but whose log record tore", valid[3]["name"],
             {"identifier": "torn-version", "timestamp": 4.0}, [], "new"),
        send("format 1 made before checksums: files without a checksum equal to the new ones without theirs", valid[4]["name"],
             V1, C1, "alreadyLogged"),
        send("format 1 made before checksums: other changes", valid[4]["name"], V1, other_data, "conflictingVersion"),
    ]
    result = _file("11", "Whole exchange directories: files maps each relative path to the file's bytes (hex). A reader "
                       "reads the marker, lists the log, then reads each listed version's record and then its changes, "
                       "in listing order, then the newest snapshot (snapshots/latest.json and its chunks). Valid: "
                       "versionIds are the logged versions, each once, in the order of the first log record listing "
                       "it (segments: log/*.log not starting with '.', in byte order of their names; records in "
                       "order); versions give each one's Version and changes as canonical JSON text (section 3); "
                       "snapshot is the manifest's canonical JSON text, or null. Invalid: the first step that fails "
                       "(marker, list, version or changes of versionId, snapshot) and the ExchangeError it reports; "
                       "every step before it succeeds. sends: sending version with changes to the valid directory "
                       "named finds it new (the log does not list it), alreadyLogged (what the first log record "
                       "listing it names is what this sender writes: format 2, the batch entry byte for byte; format "
                       "1, each file, or a file without a checksum equal to the new one without its checksum member) "
                       "or fails with conflictingVersion, logging nothing of the send.", valid, invalid)
    result["sends"] = sends
    return result


FILES = {"exchange-batches.json": exchange_batches, "exchange-files.json": exchange_files,
         "exchange-directories.json": exchange_directories, "snapshot-manifests.json": snapshot_manifests}
