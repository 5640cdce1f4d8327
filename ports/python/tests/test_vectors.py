"""The conformance vectors of SPEC.md that exist today: map roots (section 6) and merge
identifiers (section 9), recomputed by the port."""
import base64
import json
import pathlib
import unittest

from llvs_port.binary import FormatError
from llvs_port.core_types import decode, encode
from llvs_port.mapindex import canonical_root
from llvs_port.merge_identity import ABSENT, merge_identifier, new_data, stored

REPOSITORY = pathlib.Path(__file__).resolve().parents[3]


def load(path):
    return json.loads((REPOSITORY / path).read_text(encoding="utf-8"))


def outcome(o):
    if o.get("storedBy") is not None:
        return stored(o["storedBy"])
    if o.get("newData") is not None:
        return new_data(base64.b64decode(o["newData"]))
    return ABSENT


class VectorTests(unittest.TestCase):
    def test_core_codable(self):
        vectors = load("Packages/LLVSCore/Tests/LLVSCoreTests/Vectors/core-codable.json")
        self.assertGreater(len(vectors["valid"]), 0)
        for case in vectors["valid"]:
            with self.subTest(case["name"]):
                self.assertEqual(encode(decode(case["type"], case["json"])), case["json"])
        for case in vectors["invalid"]:
            with self.subTest(case["name"]):
                with self.assertRaises(FormatError):
                    decode(case["type"], case["json"])

    def test_map_roots(self):
        cases = load("Packages/LLVSMap/Tests/LLVSMapTests/Vectors/map-roots.json")["cases"]
        self.assertGreater(len(cases), 0)
        for case in cases:
            with self.subTest(case["name"]):
                digest, nodes = canonical_root([tuple(e) for e in case["entries"]])
                self.assertEqual(digest.hex() if digest else None, case["rootHash"])
                self.assertEqual(nodes, case["nodeCount"])

    def test_merge_identifiers(self):
        cases = load("Packages/LLVSStore/Tests/LLVSStoreTests/Vectors/merge-ids.json")["cases"]
        self.assertGreater(len(cases), 0)
        for case in cases:
            with self.subTest(case["name"]):
                outcomes = {v["valueId"]: (outcome(v["first"]), outcome(v["second"]), outcome(v["merge"])) for v in case["values"]}
                metadata = {e["key"]: base64.b64decode(e["value"]) for e in case["metadata"]}
                self.assertEqual(merge_identifier(case["predecessors"], outcomes, metadata, case["virtual"]), case["identifier"])


if __name__ == "__main__":
    unittest.main()
