"""conformance/histories/histories.json: 200 histories the Swift store made from fixed
seeds. The port replays each: every version's changes onto its first predecessor's map
(the values at every version), its record decoded and its root recomputed, every merge
identifier derived, and every merge the store ran — bases, virtual ancestors made
recursively from the recorded arbiter decisions, forks — done again and compared."""
import json
import os
import pathlib
import unittest

from llvs_port.core_types import decode_change
from llvs_port.history import NEW, Graph, MergeReplay, apply_changes
from llvs_port.mapindex import canonical_root
from llvs_port.merge_identity import identifier_from_maps
from llvs_port.records import decode_record

# LLVS_HISTORY_VECTORS=PATH replays another file (say, 1,000 histories the Swift test
# wrote with LLVS_HISTORY_OUTPUT and LLVS_HISTORY_COUNT).
PATH = pathlib.Path(os.environ.get("LLVS_HISTORY_VECTORS") or
                    pathlib.Path(__file__).resolve().parents[3] / "conformance" / "histories" / "histories.json")


def replay(history):
    """Counts of what was checked in one history; raises AssertionError on a mismatch."""
    graph, maps, data, records = Graph(), {}, {}, {}
    counts = {"versions": 0, "mergeIds": 0, "merges": 0, "virtualSteps": 0, "mergesWritingData": 0, "mergesWithMetadata": 0}
    for entry in history["versions"]:
        record = decode_record(bytes.fromhex(entry["record"]))
        assert record.identifier == entry["id"], entry["id"]
        graph.add(record.identifier, record.predecessors)
        entries = apply_changes(maps[record.predecessors[0]] if record.predecessors else {}, map(decode_change, entry["changes"]),
                                record.identifier, data)
        maps[record.identifier] = entries
        root, _ = canonical_root(entries.items())
        assert root == (record.root[0] if record.root else None), f"root of {record.identifier}"
        if len(record.predecessors) == 2:
            first, second = (maps[p] for p in record.predecessors)
            derived = identifier_from_maps(record.identifier, record.predecessors, first, second, entries,
                                           lambda value_id: data[(value_id, record.identifier)], record.metadata)
            assert derived == record.identifier, f"merge id of {record.identifier}: {derived}"
            counts["mergeIds"] += 1
        records[record.identifier] = record
        counts["versions"] += 1
    for merge in history["merges"]:
        final = merge["calls"][-1]
        merge_replay = MergeReplay(graph, maps, merge["calls"])
        bases = graph.merge_bases([final["first"]], [final["second"]])
        merged, new = merge_replay.step(final["first"], final["second"], bases)
        result = merge["result"]
        expected = {v: (NEW if s == result else s) for v, s in maps[result].items()}
        assert merged == expected, f"the merge of {final['first']} and {final['second']} does not give {result}'s values"
        for value_id, written in new.items():
            assert written == data[(value_id, result)], f"the data {result} stores for {value_id!r}"
        counts["mergesWritingData"] += bool(new)
        counts["mergesWithMetadata"] += bool(records[result].metadata)
        assert not merge_replay.unused(), f"arbiter calls left over in the merge giving {result}"
        counts["merges"] += 1
        counts["virtualSteps"] += len(merge["calls"]) - 1
    return counts


class HistoryVectorTests(unittest.TestCase):
    def test_histories(self):
        histories = json.loads(PATH.read_text(encoding="utf-8"))["histories"]
        self.assertGreaterEqual(len(histories), 200)
        totals = {}
        for history in histories:
            with self.subTest(seed=history["seed"]):
                for key, value in replay(history).items():
                    totals[key] = totals.get(key, 0) + value
        for shape in ("virtualSteps", "mergesWritingData", "mergesWithMetadata"):
            self.assertGreater(totals.get(shape, 0), 0, shape)
        print(f"\n{len(histories)} histories: {totals}")


if __name__ == "__main__":
    unittest.main()
