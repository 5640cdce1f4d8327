"""conformance/formats/keyrings.json (SPEC.md 18.1-18.3): phrases encode and decode, device
records, identifiers and codes come from the private keys, every keyring opens to the
secrets (or the error) each member expects, and every invalid one is refused; X25519 and
Ed25519 match their RFCs' test vectors."""
import unittest

from llvs_port.canonical_json import loads
from llvs_port.keyring import (KeyringError, device_record, ed25519_public, ed25519_verify, open_keyring, phrase_secret,
                               phrase_words, x25519, x25519_public)

from tests.vector_support import DIRECTORY


class KeyringVectorTests(unittest.TestCase):
    def setUp(self):
        self.file = loads((DIRECTORY / "keyrings.json").read_text(encoding="utf-8"))
        self.devices = {d["name"]: bytes.fromhex(d["x25519PrivateKey"]) for d in self.file["devices"]}

    def test_rfc_7748_and_8032_vectors(self):
        # RFC 7748 section 5.2, first vector; section 6.1 (Alice's public key).
        scalar = bytes.fromhex("a546e36bf0527c9d3b16154b82465edd62144c0ac1fc5a18506a2244ba449ac4")
        u = bytes.fromhex("e6db6867583030db3594c1a424b15f7c726624ec26b3353b10a903a6d0ab1c4c")
        self.assertEqual(x25519(scalar, u).hex(), "c3da55379de9c6908e94ea4df28d084f32eccf03491c71f754b4075577a28552")
        alice = bytes.fromhex("77076d0a7318a57d3c16c17251b26645df4c2f87ebc0992ab177fba51db92c2a")
        self.assertEqual(x25519_public(alice).hex(), "8520f0098930a754748b7ddcb43ef75a0dbf3a0d26381af4eba4a98eaa9b4e6a")
        # RFC 8032 section 7.1, test 2.
        seed = bytes.fromhex("4ccd089b28ff96da9db6c346ec114e0f5b8a319f35aba624da8cf6ed4fb8a6fb")
        public = ed25519_public(seed)
        self.assertEqual(public.hex(), "3d4017c3e843895a92b70aa74d1b7ebc9c982ccf2ec4968cc0cd55f12af4660c")
        signature = bytes.fromhex("92a009a9f0d4cab8720e820b5f642540a2b27b5416503f8fb3762223ebdb69da"
                                  "085ac1e43e15996e458f3613d0f11d8c387b2eaeb4302aeeb00d291612bb0c00")
        self.assertTrue(ed25519_verify(public, bytes([0x72]), signature))
        self.assertFalse(ed25519_verify(public, bytes([0x73]), signature))

    def test_phrases(self):
        for case in self.file["phrases"]:
            secret = bytes.fromhex(case["secret"])
            self.assertEqual(phrase_words(secret), case["words"])
            self.assertEqual(phrase_secret(case["words"].upper()), secret)
        words = self.file["phrases"][0]["words"].split()
        with self.assertRaises(KeyringError):
            phrase_secret(" ".join(words[:23]))

    def test_devices(self):
        for case in self.file["devices"]:
            record, identifier, code = device_record(case["name"], bytes.fromhex(case["x25519PrivateKey"]), bytes.fromhex(case["ed25519Seed"]))
            self.assertEqual((record.hex(), identifier.hex(), code), (case["record"], case["id"], case["enrollmentCode"]), case["name"])

    def _open(self, revisions, member):
        kind, _, value = member.partition(":")
        if kind == "device":
            return open_keyring(revisions, device=(value, self.devices[value]))
        return open_keyring(revisions, phrase=phrase_secret(value))

    def test_keyrings_open_as_they_say(self):
        for case in self.file["keyrings"]:
            revisions = [bytes.fromhex(r) for r in case["revisions"]]
            for expected in case["openings"]:
                try:
                    secrets = self._open(revisions, expected["member"])
                    found = {"storeKey": secrets["storeKey"].hex(), "recoverySecret": secrets["recoverySecret"].hex(),
                             "epochKeys": [k.hex() for k in secrets["epochKeys"]]}
                except KeyringError as error:
                    found = {"errorClass": error.error_class}
                wanted = {k: v for k, v in expected.items() if k != "member"}
                self.assertEqual(found, wanted, f"{case['name']} as {expected['member'][:30]}")

    def test_invalid_keyrings_are_refused(self):
        for case in self.file["invalid"]:
            with self.assertRaises(KeyringError, msg=case["name"]) as raised:
                self._open([bytes.fromhex(r) for r in case["revisions"]], case["member"])
            self.assertEqual(raised.exception.error_class, case["errorClass"], case["name"])


if __name__ == "__main__":
    unittest.main()
