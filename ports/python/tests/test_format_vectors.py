"""conformance/formats: the committed vectors are the ones this port makes, and the port
decodes every valid one to its fields and bytes and refuses every invalid one with its
error class."""
import sqlite3
import struct
import unittest

from llvs_port.binary import FormatError, Reader
from llvs_port.filestore import decode_pack, encode_pack, parse_log_segment, scan_commits_bytes, scan_segment_bytes
from llvs_port.format_vectors import FILES, render
from llvs_port.mapindex import Leaf, decode_node
from llvs_port.records import decode_record
from llvs_port import register
from llvs_port.archive import decode_archive
from llvs_port.sqlitearchive import decode_sqlite_archive
from llvs_port.sqlitestore import item_checksum
from llvs_port.binary import sha256

from tests.vector_support import DIRECTORY, VectorTestCase, load


class FormatVectorTests(VectorTestCase):
    def test_committed_files_are_current(self):
        for name, make in FILES.items():
            committed = load(name)
            if committed.get("madeWithSQLite", sqlite3.sqlite_version) != sqlite3.sqlite_version:
                # VACUUM INTO's bytes differ between SQLite releases (the header names the
                # release); the vectors still decode as they say (test_sqlite_archives).
                continue
            with self.subTest(name):
                self.assertEqual((DIRECTORY / name).read_text(encoding="utf-8"), render(make),
                                 f"regenerate with: python3 -m llvs_port vectors {DIRECTORY}")

    def test_primitives(self):
        vectors = load("primitives.json")
        for case in vectors["valid"]:
            reader = Reader(bytes.fromhex(case["bytes"]), case["name"])
            value = reader.varint() if case["kind"] == "varint" else reader.string()
            self.assertEqual(str(value) if case["kind"] == "varint" else value, case["value"])
            self.assertTrue(reader.at_end)
        for case in vectors["invalid"]:
            self.assertRefused(case, lambda b, kind=case["kind"]: getattr(Reader(b, "vector"), kind)())

    def test_map_nodes(self):
        vectors = load("map-nodes.json")
        for case in vectors["valid"]:
            node, digest = decode_node(bytes.fromhex(case["bytes"]))
            self.assertEqual(digest.hex(), case["hash"])
            if case["kind"] == "leaf":
                self.assertIsInstance(node, Leaf)
                self.assertEqual([list(e) for e in node.entries], case["entries"])
            else:
                self.assertEqual(node.bitmap, case["bitmap"])
                self.assertEqual([{"hash": h.hex(), "count": c, "location": l} for h, c, l in node.children], case["children"])
        for case in vectors["invalid"]:
            self.assertRefused(case, decode_node)

    def test_version_records(self):
        vectors = load("version-records.json")
        for case in vectors["valid"]:
            record = decode_record(bytes.fromhex(case["bytes"]))
            self.assertEqual((record.identifier, record.predecessors, record.value_data_size),
                             (case["identifier"], case["predecessors"], case["valueDataSize"]))
            self.assertEqual(struct.pack("<d", record.timestamp).hex(), case["timestampBits"])
            self.assertEqual({k: v.hex() for k, v in record.metadata.items()}, case["metadata"])
            root = case["root"]
            self.assertEqual(record.root, root and (bytes.fromhex(root["hash"]), root["location"], root["count"]))
        for case in vectors["invalid"]:
            self.assertRefused(case, decode_record)

    def test_packs(self):
        vectors = load("packs.json")
        for case in vectors["valid"]:
            items = {k: bytes.fromhex(v) for k, v in case["items"].items()}
            self.assertEqual(decode_pack(bytes.fromhex(case["bytes"])), (case["version"], items))
            self.assertEqual(encode_pack(case["version"], items).hex(), case["bytes"])
        for case in vectors["invalid"]:
            self.assertRefused(case, decode_pack)

    def test_sqlite_checksums(self):
        for case in load("sqlite-checksums.json")["valid"]:
            if case["kind"] == "item":
                actual = item_checksum(case["zone"], case["version"].encode(), case["key"].encode(), bytes.fromhex(case["data"]))
            else:
                actual = sha256(bytes.fromhex(case["record"]))[:8]
            self.assertEqual(actual.hex(), case["checksum"], case["name"])

    def test_segments(self):
        vectors = load("segments.json")
        for case in vectors["valid"]:
            data = bytes.fromhex(case["bytes"])
            if case["kind"] == "log":
                self.assertEqual([r.hex() for r in parse_log_segment(data)], case["records"], case["name"])
                continue
            if case["kind"] == "commits":
                self.assertEqual([r.hex() for r in scan_commits_bytes(data)], case["records"], case["name"])
            packs, damage = scan_segment_bytes(data, 0 if case.get("layout") == "zone" else None)
            self.assertEqual([{"zone": z, "version": v, "offset": o} for z, v, _, o in packs], case["packs"], case["name"])
            self.assertEqual(bool(damage), case["damaged"], case["name"])
        for case in vectors["invalid"]:
            if case["kind"] == "log":
                self.assertRefused(case, parse_log_segment)
            elif case["kind"] == "commits":
                self.assertRefused(case, scan_commits_bytes)
            else:
                self.assertRefused(case, lambda b: scan_segment_bytes(b, None))

    def test_archives(self):
        vectors = load("archives.json")
        for case in vectors["valid"]:
            entries = decode_archive(bytes.fromhex(case["bytes"]))
            self.assertEqual([p for p, _ in entries], case["paths"], case["name"])
            records = [r.hex() for p, body in entries if p.endswith(".log") for r in parse_log_segment(body)]
            self.assertEqual(records, case["records"], case["name"])
            packs = [decode_pack(body) for p, body in entries if p.startswith("values/")]
            found = [{"version": v, "key": k, "data": d.hex()} for v, items in packs for k, d in items.items()]
            self.assertEqual(found, case["values"], case["name"])
        for case in vectors["invalid"]:
            self.assertRefused(case, decode_archive)

    def test_sqlite_archives(self):
        vectors = load("sqlite-archives.json")
        for case in vectors["valid"]:
            records, items = decode_sqlite_archive(bytes.fromhex(case["bytes"]))
            self.assertEqual([r.hex() for r in records], case["records"], case["name"])
            found = [{"version": v, "key": k, "data": d.hex()} for zone, v, k, d in items if zone == 0]
            self.assertEqual(sorted(found, key=str), sorted(case["values"], key=str), case["name"])
        for case in vectors["invalid"]:
            self.assertRefused(case, decode_sqlite_archive)

    def test_registers(self):
        vectors = load("registers.json")
        for case in vectors["valid"]:
            self.assertEqual(register.encode(register.decode(case["json"])), case["json"], case["name"])
        for case in vectors["invalid"]:
            with self.subTest(case["name"]):
                with self.assertRaises(FormatError):
                    register.decode(case["json"])
        for case in vectors["joins"]:
            joined = register.join(register.decode(case["x"]), register.decode(case["y"]))
            self.assertEqual(register.encode(joined), case["join"], case["name"])
        for case in vectors["writes"]:
            payload = dict(case["payload"])
            if "blob" in payload:
                payload["blob"] = bytes.fromhex(payload["blob"])
            after = register.write(register.decode(case["before"]), case["actor"], case["author"], case["timestamp"], payload)
            self.assertEqual(register.encode(after), case["after"], case["name"])


if __name__ == "__main__":
    unittest.main()
