"""conformance/formats/sealed-versions.json (SPEC.md section 18): every valid blob opens to
its version and changes and seals back to the same bytes; every invalid one is refused with
its class; the ChaCha20-Poly1305 written here matches RFC 8439's test vector, and the
AES-256-GCM-SIV FIPS 197's and RFC 8452's."""
import unittest

from llvs_port.canonical_json import loads
from llvs_port.core_types import decode_change, decode_version, encode
from llvs_port import gcm_siv
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

    def test_fips_197_aes_256_vector(self):
        # FIPS 197 appendix C.3.
        round_keys = gcm_siv.expand_key(bytes(range(32)))
        ciphertext = gcm_siv.encrypt_block(round_keys, bytes.fromhex("00112233445566778899aabbccddeeff"))
        self.assertEqual(ciphertext.hex(), "8ea2b7ca516745bfeafc49904b496089")

    def test_rfc_8452_aes_256_gcm_siv_vectors(self):
        # RFC 8452 appendix C.2: key 01 00…, nonce 03 00…, no associated data.
        key, nonce = bytes([1]) + bytes(31), bytes([3]) + bytes(11)
        self.assertEqual(gcm_siv.seal(key, nonce, b"", b""), (b"", bytes.fromhex("07f5f4169bbf55a8400cd47ea6fd400f")))
        ciphertext, tag = gcm_siv.seal(key, nonce, bytes.fromhex("0100000000000000"), b"")
        self.assertEqual((ciphertext.hex(), tag.hex()), ("c2ef328e5c71c83b", "843122130f7364b761e0b97427e3df28"))
        self.assertEqual(gcm_siv.open_(key, nonce, ciphertext, tag, b""), bytes.fromhex("0100000000000000"))
        self.assertIsNone(gcm_siv.open_(key, nonce, ciphertext, bytes(16), b""))

    def test_padme(self):
        self.assertEqual(padme(300), 304)
        for length in range(2, 5000):
            self.assertGreaterEqual(padme(length), length)
            self.assertLessEqual(padme(length), length * 1.12 + 1)

    def test_valid_blobs_open_and_seal_back(self):
        self.assertGreaterEqual(len(self.file["valid"]), 8)
        self.assertEqual({case["format"] for case in self.file["valid"]}, {1, 2})
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
                                  case["epoch"], keys, case["format"])
                self.assertEqual(name.hex(), case["versionName"])
                self.assertEqual(blob.hex(), case["blob"])

    def test_invalid_blobs_are_refused_with_their_class(self):
        self.assertGreaterEqual(len(self.file["invalid"]), 17)
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
