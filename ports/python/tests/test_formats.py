"""Round trips and refusals of the binary formats (sections 5, 6, 7, 8)."""
import unittest

from llvs_port.binary import FormatError, Reader, string, varint
from llvs_port.filestore import decode_pack, encode_pack
from llvs_port.mapindex import decode_node, encode_interior, encode_leaf, key_hash
from llvs_port.records import VersionRecord, decode_record, encode_record


class FormatTests(unittest.TestCase):
    def test_varints(self):
        for n in (0, 1, 127, 128, 300, 2**32, 2**64 - 1):
            self.assertEqual(Reader(varint(n), "v").varint(), n)
        with self.assertRaises(FormatError):
            Reader(b"\xff" * 10 + b"\x01", "v").varint()
        with self.assertRaises(FormatError):
            Reader(b"\x80\x80", "v").varint()
        with self.assertRaises(FormatError):
            Reader(b"\xff" * 9 + b"\x02", "v").varint()

    def test_strings_refuse_bad_utf8_and_truncation(self):
        with self.assertRaises(FormatError):
            Reader(b"\x02\xc3\x28", "s").string()
        with self.assertRaises(FormatError):
            Reader(b"\x05ab", "s").string()
        self.assertEqual(Reader(string("a\0b"), "s").string(), "a\0b")

    def test_nodes(self):
        entries = sorted([("b", "V"), ("a\0", "W"), ("é", "V")], key=lambda e: (key_hash(e[0]), e[0].encode()))
        data, digest = encode_leaf(entries)
        node, hashed = decode_node(data)
        self.assertEqual((node.entries, hashed), (entries, digest))
        with self.assertRaises(FormatError):
            decode_node(encode_leaf(list(reversed(entries)))[0])
        children = [(b"\x01" * 32, 20, "V1"), (b"\x02" * 32, 17, "V2")]
        data, digest = encode_interior(0b1000_0000_0000_0001, children)
        node, hashed = decode_node(data)
        self.assertEqual((node.children, hashed), (children, digest))
        # Locations are not hashed.
        self.assertEqual(encode_interior(0b1000_0000_0000_0001, [(h, c, "elsewhere") for h, c, _ in children])[1], digest)
        with self.assertRaises(FormatError):
            decode_node(data + b"x")

    def test_records(self):
        record = VersionRecord("V3", ["V1", "V2"], 785000001.5, 12, {"b": b"2", "a": b"1"}, (b"\x07" * 32, "V3", 4))
        decoded = decode_record(encode_record(record))
        self.assertEqual((decoded.identifier, decoded.predecessors, decoded.timestamp, decoded.value_data_size,
                          decoded.metadata, decoded.root), ("V3", ["V1", "V2"], 785000001.5, 12, {"a": b"1", "b": b"2"}, record.root))
        bad = encode_record(VersionRecord("V", [], float("inf"), None, {}, None))
        with self.assertRaises(FormatError):
            decode_record(bad)
        with self.assertRaises(FormatError):
            decode_record(encode_record(VersionRecord("V", ["P", "P"], 0.0, None, {}, None)))

    def test_packs(self):
        data = encode_pack("V", {"b": b"2", "a": b"", "a\0": b"x"})
        self.assertEqual(decode_pack(data), ("V", {"a": b"", "a\0": b"x", "b": b"2"}))
        damaged = bytearray(data)
        damaged[12] ^= 1
        with self.assertRaises(FormatError):
            decode_pack(bytes(damaged))


if __name__ == "__main__":
    unittest.main()
