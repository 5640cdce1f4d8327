"""conformance/formats for the file-system exchange (SPEC.md section 11) and the snapshot
manifest (section 13): the committed files are what the port makes; every valid case
decodes to its fields and encodes back to its bytes; every invalid one is refused with its
class; every directory reads as stated, from memory and from disk."""
import os
import struct
import tempfile
import unittest

from llvs_port.archive import decode_archive
from llvs_port.binary import FormatError, sha256
from llvs_port.canonical_json import dumps, loads
from llvs_port.core_types import decode_change, decode_version
from llvs_port.exchange import (ExchangeDirectory, ExchangeError, MemoryFiles, batch_path, decode_batch,
                                decode_changes_file, decode_log_record, decode_manifest, decode_marker,
                                decode_version_file, encode_batch, encode_changes_file, encode_log_record,
                                encode_marker, encode_version_file, read_all, verify_chunks, version_file_path)
from llvs_port.exchange_vectors import FILES
from llvs_port.filestore import parse_log_segment
from llvs_port.format_vectors import FILES as ALL_FILES, render
from llvs_port.records import decode_record, first_of_each

from tests.vector_support import DIRECTORY, VectorTestCase, load


def version_of(text):
    return decode_version(loads(text))


def changes_of(text):
    return [decode_change(c) for c in loads(text)]


class ExchangeVectorTests(VectorTestCase):
    def test_committed_files_are_current_and_registered(self):
        for name, make in FILES.items():
            with self.subTest(name):
                self.assertIs(ALL_FILES.get(name), make, "format_vectors.FILES must list it")
                self.assertEqual((DIRECTORY / name).read_text(encoding="utf-8"), render(make),
                                 f"regenerate with: python3 -m llvs_port vectors {DIRECTORY}")
                self.assertLess((DIRECTORY / name).stat().st_size, 300_000)

    def test_batches(self):
        vectors = load("exchange-batches.json")
        kinds = {c["kind"] for c in vectors["valid"]} | {c["kind"] for c in vectors["invalid"]}
        self.assertEqual(kinds, {"batch", "logRecord"})
        for case in vectors["valid"]:
            data = bytes.fromhex(case["bytes"])
            with self.subTest(case["name"]):
                self.assertEqual(sha256(data).hex() if case["kind"] == "batch" else None,
                                 case["digest"] if case["kind"] == "batch" else None)
                if case["kind"] == "batch":
                    self.assertEqual(case["path"], batch_path(sha256(data)))
                    self.assertEqual(case["path"], f"batches/{case['digest'][:2]}/{case['digest']}.batch")
                    entries = decode_batch(data)
                    self.assertEqual([(dumps(v), dumps(c)) for v, c in entries],
                                     [(e["version"], e["changes"]) for e in case["entries"]])
                    fields = [(version_of(e["version"]), changes_of(e["changes"])) for e in case["entries"]]
                    self.assertEqual(encode_batch(fields), data)
                else:
                    self.assertEqual(decode_log_record(data), (bytes.fromhex(case["digest"]), case["versionIds"]))
                    self.assertEqual(encode_log_record(bytes.fromhex(case["digest"]), case["versionIds"]), data)
        for case in vectors["invalid"]:
            self.assertRefused(case, decode_batch if case["kind"] == "batch" else decode_log_record)

    def test_version_and_changes_files(self):
        vectors = load("exchange-files.json")
        for case in vectors["valid"]:
            data = bytes.fromhex(case["bytes"])
            with self.subTest(case["name"]):
                if case["kind"] == "marker":
                    marker = decode_marker(data)
                    self.assertEqual((marker["formatVersion"], marker["identifier"], marker.get("checksums")),
                                     (case["formatVersion"], case["identifier"], case["checksums"]))
                    self.assertEqual(encode_marker(case["formatVersion"], case["identifier"], case["checksums"]) == data,
                                     case["canonical"])
                    continue
                folder = "versions" if case["kind"] == "version" else "changes"
                self.assertEqual(case["path"], version_file_path(folder, case["versionId"]))
                sealed = case["checksum"] is not None
                self.assertEqual(data.startswith(b'{"checksum":"'), sealed)
                if sealed:
                    self.assertEqual(data[13:77].decode(), case["checksum"])
                if case["kind"] == "version":
                    version = decode_version_file(data, case["versionId"], case["checksumsRequired"])
                    self.assertEqual(dumps(version), case["version"])
                    self.assertEqual(encode_version_file(version_of(case["version"]), sealed), data)
                else:
                    changes = decode_changes_file(data, case["versionId"], case["checksumsRequired"])
                    self.assertEqual(dumps(changes), case["changes"])
                    self.assertEqual(encode_changes_file(case["versionId"], changes_of(case["changes"]), sealed), data)
        for case in vectors["invalid"]:
            data = bytes.fromhex(case["bytes"])
            with self.subTest(case["name"]):
                if case["kind"] == "marker":
                    with self.assertRaises(ExchangeError) as caught:
                        decode_marker(data)
                    self.assertEqual(caught.exception.kind, case["exchangeError"], str(caught.exception))
                    continue
                decode = decode_version_file if case["kind"] == "version" else decode_changes_file
                self.assertRefused(case, lambda b: decode(b, case["versionId"], case["checksumsRequired"]))
                # In a directory: the same file, logged, gives the ExchangeError named.
                files = {"llvs-exchange.json": encode_marker(1, "x", True if case["checksumsRequired"] else None),
                         "log/w.log": b"LLVSLOG1" + struct.pack("<I", len(case["versionId"].encode()))
                         + case["versionId"].encode() + sha256(case["versionId"].encode())[:8],
                         version_file_path("versions", case["versionId"]): encode_version_file({"identifier": case["versionId"], "timestamp": 1.0}),
                         version_file_path("changes", case["versionId"]): encode_changes_file(case["versionId"], [])}
                files[version_file_path("versions" if case["kind"] == "version" else "changes", case["versionId"])] = data
                directory = ExchangeDirectory(MemoryFiles(files))
                self.assertEqual(directory.list_versions(), [case["versionId"]])
                with self.assertRaises(ExchangeError) as caught:
                    (directory.version if case["kind"] == "version" else directory.changes)(case["versionId"])
                self.assertEqual(caught.exception.kind, case["exchangeError"], str(caught.exception))

    def test_snapshot_manifests(self):
        vectors = load("snapshot-manifests.json")
        for case in vectors["valid"]:
            with self.subTest(case["name"]):
                manifest = decode_manifest(case["json"])
                self.assertEqual(dumps(manifest), case["json"])
                archive = verify_chunks(manifest, [bytes.fromhex(c) for c in case["chunks"]])
                records = first_of_each(decode_record(r) for p, body in decode_archive(archive) if p.endswith(".log")
                                        for r in parse_log_segment(body))
                self.assertEqual(len(records), manifest["versionCount"])
                self.assertIn(manifest["latestVersionId"], [r.identifier for r in records])
        rules = set()
        for case in vectors["invalid"]:
            with self.subTest(case["name"]):
                with self.assertRaises(ExchangeError) as caught:
                    manifest = decode_manifest(case["json"])
                    self.assertIn("chunks", case, "a consistent manifest must come with chunks")
                    verify_chunks(manifest, [None if c is None else bytes.fromhex(c) for c in case["chunks"]])
                self.assertEqual(caught.exception.kind, case["error"], str(caught.exception))
                expected = str(case["chunkIndex"]) if case["error"] == "corruptSnapshotChunk" else case["rule"]
                self.assertEqual(caught.exception.rule, expected, str(caught.exception))
                rules.add(case["rule"])
        self.assertEqual(rules, {"snapshotId", "chunkCount", "chunkChecksums", "chunkSize", "totalSize", "versionCount",
                                 "checksumHex", "fields", "json", "chunk", "sha256"})

    def check_directory(self, case, directory):
        if "step" not in case:
            found = read_all(directory)
            self.assertEqual(found["versionIds"], case["versionIds"])
            self.assertEqual([{"id": i, "version": dumps(v), "changes": dumps(c)} for i, (v, c) in
                              ((i, found["versions"][i]) for i in found["versionIds"])], case["versions"])
            snapshot = found["snapshot"]
            self.assertEqual(snapshot and dumps(snapshot[0]), case["snapshot"])
            return
        with self.assertRaises(ExchangeError) as caught:
            read_all(directory)
        error = caught.exception
        self.assertEqual((error.step, error.step_version, error.kind), (case["step"], case["versionId"], case["error"]), str(error))

    def test_directories(self):
        vectors = load("exchange-directories.json")
        for case in vectors["valid"] + vectors["invalid"]:
            files = {p: bytes.fromhex(d) for p, d in case["files"].items()}
            with self.subTest(case["name"], where="memory"):
                self.check_directory(case, ExchangeDirectory(MemoryFiles(files)))
            with self.subTest(case["name"], where="disk"), tempfile.TemporaryDirectory() as root:
                for path, data in files.items():
                    os.makedirs(os.path.join(root, os.path.dirname(path)), exist_ok=True)
                    with open(os.path.join(root, path), "wb") as file:
                        file.write(data)
                self.check_directory(case, ExchangeDirectory(root))
        steps = {(c["step"], c["error"]) for c in vectors["invalid"]}
        for needed in [("version", "damagedFile"), ("version", "missingVersion"), ("version", "malformedData"),
                       ("changes", "damagedFile"), ("changes", "missingValueChanges"), ("marker", "unsupportedFormat"),
                       ("list", "malformedData")]:
            self.assertIn(needed, steps)

    def test_sends(self):
        vectors = load("exchange-directories.json")
        directories = {c["name"]: {p: bytes.fromhex(d) for p, d in c["files"].items()} for c in vectors["valid"]}
        outcomes = set()
        for case in vectors["sends"]:
            with self.subTest(case["name"]):
                directory = ExchangeDirectory(MemoryFiles(directories[case["directory"]]))
                version, changes = version_of(case["version"]), changes_of(case["changes"])
                if case["outcome"] == "conflictingVersion":
                    with self.assertRaises(ExchangeError) as caught:
                        directory.send_outcome(version, changes)
                    self.assertEqual((caught.exception.kind, caught.exception.version), ("conflictingVersion", version["identifier"]))
                else:
                    self.assertEqual(directory.send_outcome(version, changes), case["outcome"])
                outcomes.add(case["outcome"])
        self.assertEqual(outcomes, {"new", "alreadyLogged", "conflictingVersion"})

    def test_first_record_wins_and_formats_told_apart(self):
        """Two records of one version naming different batches: the reader reads the first;
        the formats' log records are told apart by their first byte."""
        vectors = load("exchange-directories.json")
        case = vectors["valid"][0]
        files = {p: bytes.fromhex(d) for p, d in case["files"].items()}
        directory = ExchangeDirectory(MemoryFiles(files))
        directory.list_versions()
        digests = [decode_log_record(r)[0] for _, r in directory.log_records()]
        second = case["versionIds"][1]
        holding = [d for d in digests if second in {v["identifier"] for v, _ in decode_batch(files[batch_path(d)])}]
        self.assertEqual(len(holding), 2, "the vector logs that version in two batches")
        self.assertEqual(directory.located[second], holding[0])
        other = dict(decode_batch(files[batch_path(holding[1])])[0][0])
        self.assertNotEqual(dumps(other), dumps(directory.version(second)))
        with self.assertRaises(FormatError):
            decode_log_record(case["versionIds"][0].encode())
        with self.assertRaises(UnicodeDecodeError):
            encode_log_record(holding[0], [second]).decode("utf-8")


if __name__ == "__main__":
    unittest.main()
