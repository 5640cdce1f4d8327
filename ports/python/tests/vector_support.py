"""What the format and exchange vector tests share: where conformance/formats is, reading
one of its files, and checking that a decoder refuses an invalid case with its class."""
import json
import pathlib
import unittest

from llvs_port.binary import FormatError

DIRECTORY = pathlib.Path(__file__).resolve().parents[3] / "conformance" / "formats"
MODELS = DIRECTORY.parent / "models"


def load(name):
    return json.loads((DIRECTORY / name).read_text(encoding="utf-8"))


class VectorTestCase(unittest.TestCase):
    def assertRefused(self, case, decode):
        """``decode`` of the case's bytes raises a FormatError of the case's error class."""
        with self.subTest(case["name"]):
            with self.assertRaises(FormatError) as caught:
                decode(bytes.fromhex(case["bytes"]))
            self.assertEqual(caught.exception.error_class, case["errorClass"], str(caught.exception))
