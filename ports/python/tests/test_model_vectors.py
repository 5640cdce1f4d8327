"""conformance/models (SPEC.md section 17): every property merge and model merge of
merges.json gives its result (or error) with its sides in either order, and the kept side;
every save of stored.json gives its stored object (or error); every recorded schema of
schemas.json reads as the file says (or is refused)."""
import unittest

from llvs_port.canonical_json import dumps
from llvs_port.models import (ModelError, Side, canonical, list_order, loads, matching, merge_models, merge_sides,
                              merge_text, read_schema, stored_form, strategy_from_json)

from tests.vector_support import MODELS


def load(name):
    """A vector file read as the port reads JSON (integers exact, `-0` a double)."""
    return loads((MODELS / name).read_text(encoding="utf-8"))


def side(case_side):
    version = case_side["version"]
    return Side(case_side.get("value"), version["id"], version["timestamp"])


def shown(value):
    return "absent" if value is None else dumps(value)


class ModelVectorTests(unittest.TestCase):
    def assertSameJSON(self, actual, expected, message):
        """Equal canonical JSON (so 1 and 1.0 agree), or both absent."""
        self.assertEqual(shown(actual), shown(expected), message)

    def assertFails(self, code, merge, message):
        with self.assertRaises(ModelError, msg=message) as caught:
            merge()
        self.assertEqual(caught.exception.code, code, message)

    def test_files(self):
        merges = load("merges.json")
        self.assertEqual((merges["format"], merges["formatVersion"]), ("llvs-conformance-models", 1))
        self.assertGreater(len(merges["properties"]), 0)
        self.assertGreater(len(merges["models"]), 0)
        self.assertGreater(len(load("stored.json")["saves"]), 0)

    def test_property_merges(self):
        for case in load("merges.json")["properties"]:
            strategy = strategy_from_json(case["strategy"])
            first, second = side(case["first"]), side(case["second"])
            for order, (x, y) in (("first, second", (first, second)), ("second, first", (second, first))):
                message = f"{case['name']!r} ({order})"
                with self.subTest(case["name"], order=order):
                    merge = lambda: merge_sides(case.get("base"), x, y, strategy)
                    if "error" in case:
                        self.assertFails(case["error"], merge, message)
                    else:
                        self.assertSameJSON(merge(), case.get("result"), message)

    def test_model_merges(self):
        for case in load("merges.json")["models"]:
            sides = {"first": side(case["first"]), "second": side(case["second"])}
            for order in (("first", "second"), ("second", "first")):
                message = f"{case['name']!r} ({', '.join(order)})"
                with self.subTest(case["name"], order=order):
                    merge = lambda: merge_models(case.get("base"), sides[order[0]], sides[order[1]],
                                                 case["schema"], case["modelVersion"])
                    if "error" in case:
                        self.assertFails(case["error"], merge, message)
                        continue
                    result, kept = merge()
                    self.assertSameJSON(result, case["result"], message)
                    expected = sides[case["keeps"]] if "keeps" in case else None
                    self.assertIs(kept, expected, f"{message}: keeps")

    def test_saves(self):
        for case in load("stored.json")["saves"]:
            message = repr(case["name"])
            with self.subTest(case["name"]):
                save = lambda: stored_form(case["encoded"], case["modelVersion"], case.get("knownKeys"),
                                           case.get("schema"), case.get("existing"))
                if "error" in case:
                    self.assertFails(case["error"], save, message)
                else:
                    self.assertSameJSON(save(), case["result"], message)


    def test_recorded_schemas(self):
        schemas = load("schemas.json")
        self.assertGreater(len(schemas["schemas"]), 5)
        for case in schemas["schemas"]:
            if "error" in case:
                with self.assertRaises(ModelError, msg=case["name"]) as caught:
                    read_schema(case["recorded"])
                self.assertEqual(caught.exception.code, case["error"], case["name"])
            else:
                self.assertSameJSON(read_schema(case["recorded"]), case["read"], case["name"])


class ModelRuleTests(unittest.TestCase):
    """Rules of section 17 the vectors reach only in passing."""

    def test_json_numbers(self):
        self.assertEqual(canonical(loads("[-0, 1.0, 1e16, 18446744073709551617]")), b"[-0,1,1e+16,18446744073709551617]")
        for text in ("NaN", "[Infinity]", "-Infinity", "1e999"):
            with self.assertRaises(ValueError, msg=text):
                loads(text)

    def test_matching(self):
        # Myers' choice of step: of [1, 2] and [2, 1] the 2 is matched.
        self.assertEqual(matching([1, 2], [2, 1]), [(1, 0)])
        self.assertEqual(matching("abc", "abc"), [(0, 0), (1, 1), (2, 2)])
        self.assertEqual(matching("", "x"), [])
        # Past min(1000, 10,000,000 // (n + m)) steps nothing of the middle is matched.
        # Moving a run of r elements over f others takes 2r steps, plus 4 for the ends.
        def moved(r, f):
            return "<" + "x" * r + "y" * f + ">", "[" + "y" * f + "x" * r + "]"
        self.assertEqual(len(matching(*moved(450, 450))), 450)  # 904 steps
        self.assertEqual(matching(*moved(520, 520)), [])  # 1,044 > 1,000
        self.assertEqual(len(matching(*moved(240, 9000))), 9000)  # 484 <= 10,000,000 // 18,484
        self.assertEqual(matching(*moved(260, 9500)), [])  # 524 > 10,000,000 // 19,524

    def test_text_and_list_order(self):
        self.assertEqual(merge_text("", "n", "o"), "on")
        self.assertEqual(merge_text("abc", "abc", "xbz"), "xbz")
        self.assertEqual(list_order(None, ["a"], ["b"], {"a", "b"}), ["b", "a"])


if __name__ == "__main__":
    unittest.main()
