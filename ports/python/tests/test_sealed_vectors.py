"""conformance/formats/sealed-versions.json (SPEC.md section 18): every valid blob opens to
its version and changes and seals back to the same bytes; every invalid one is refused with
its class; the ChaCha20-Poly1305 written here matches RFC 8439's test vector."""
import unittest

from llvs_port.canonical_json import loads
from llvs_port.core_types import decode_change, decode_version, encode
from llvs_port.sealed import Keys, SealedError, aead_seal, open_blob, padme, seal

from tests.vector_support import DIRECTORY


def keys_of(case):
    return Keys(bytes.fromhex(case["storeKey"]), {int(e): bytes.fromhex(k) for e, k in case["epochKeys"].items()})


class SealedVectorTests(unittest.TestCase):
    def setUp(self):
        self.file = loads((DIRECTORY / "sealed-versions.json").read_text(encoding="utf-8"))

    def test_rfc_8439_aead_vector(self):
        # RFC 8439 section 2.8.2.
        plaintext = (b"Ladies and Gentlemen of the class of '99: If I could offer you only one tip for the future, "
                     b"sunscreen would be it.")
        key = bytes(range(0x80, 0xA0))
        nonce = bytes.fromhex("070000004041424344454647")
        aad = bytes.fromhex("50515253c0c1c2c3c4c5c6c7")
        ciphertext, tag = aead_seal(key, nonce, plaintext, aad)
        self.assertEqual(ciphertext[:16].hex(), "d31a8d34648e60db7b86afbc53ef7ec2")
        self.assertEqual(tag.hex(), "1ae10b594f09e26a7e902ecbd0600691")

    def test_padme(self):
        self.assertEqual(padme(300), 304)
        for length in range(2, 5000):
            self.assertGreaterEqual(padme(length), length)
            self.assertLessEqual(padme(length), length * 1.12 + 1)

    def test_valid_blobs_open_and_seal_back(self):
        self.assertGreaterEqual(len(self.file["valid"]), 4)
        for case in self.file["valid"]:
            with self.subTest(case["name"]):
                keys = keys_of(case)
                self.assertEqual(keys.store_identifier.hex(), case["storeIdentifier"])
                self.assertEqual(keys.name_key.hex(), case["nameKey"])
                kind, version, changes = open_blob(bytes.fromhex(case["blob"]), bytes.fromhex(case["versionName"]), keys)
                self.assertEqual(kind, "version")
                self.assertEqual(encode(version), case["version"])
                self.assertEqual(encode(changes), case["changes"])
                name, blob = seal(decode_version(loads(case["version"])), [decode_change(c) for c in loads(case["changes"])],
                                  case["epoch"], keys)
                self.assertEqual(name.hex(), case["versionName"])
                self.assertEqual(blob.hex(), case["blob"])

    def test_invalid_blobs_are_refused_with_their_class(self):
        self.assertGreaterEqual(len(self.file["invalid"]), 10)
        for case in self.file["invalid"]:
            with self.subTest(case["name"]):
                try:
                    result = open_blob(bytes.fromhex(case["blob"]), bytes.fromhex(case["versionName"]), keys_of(case))
                    found = result[0] if result[0] == "pending" else "opened"
                except SealedError as error:
                    found = error.error_class
                self.assertEqual(found, case["errorClass"])


if __name__ == "__main__":
    unittest.main()
