"""conformance/formats/sealed-snapshots.json (SPEC.md section 18.6): every valid part opens
to its payload and seals back to the same bytes; every invalid one is refused with its class."""
import unittest

from llvs_port.canonical_json import loads
from llvs_port.sealed import Keys, SealedError, open_snapshot_part, seal_snapshot_part, snapshot_manifest_name

from tests.vector_support import DIRECTORY


class SealedSnapshotVectorTests(unittest.TestCase):
    def setUp(self):
        self.file = loads((DIRECTORY / "sealed-snapshots.json").read_text(encoding="utf-8"))
        self.keys = Keys(bytes.fromhex(self.file["storeKey"]))

    def test_the_manifest_name_derives_from_the_snapshot_id(self):
        self.assertEqual(snapshot_manifest_name(self.file["snapshotId"], self.keys), self.file["manifestName"])

    def test_valid_parts_open_and_seal_back(self):
        self.assertGreaterEqual(len(self.file["valid"]), 8)
        self.assertEqual({part["format"] for part in self.file["valid"]}, {1, 2})
        for part in self.file["valid"]:
            with self.subTest(part["name"]):
                payload = open_snapshot_part(bytes.fromhex(part["blob"]), part["blobName"], part.get("fixedSize"), self.keys)
                self.assertEqual(payload.hex(), part["payload"])
                sealed = seal_snapshot_part(bytes.fromhex(part["payload"]), part["blobName"], part.get("fixedSize"), 0, self.keys,
                                            part["format"])
                self.assertEqual(sealed.hex(), part["blob"])

    def test_invalid_parts_are_refused_with_their_class(self):
        self.assertGreaterEqual(len(self.file["invalid"]), 10)
        for case in self.file["invalid"]:
            with self.subTest(case["name"]):
                with self.assertRaises(SealedError) as raised:
                    open_snapshot_part(bytes.fromhex(case["blob"]), case["blobName"], case.get("fixedSize"), self.keys)
                self.assertEqual(raised.exception.error_class, case["errorClass"])


if __name__ == "__main__":
    unittest.main()
