"""Opens a store of either backend and checks every version against SPEC.md: its record,
its map (each node's hash, counts and placement, and that the canonical map of its entries
has the recorded root: the same identifiers), every value's data, the value data size it
recorded, and, for merges, the content-derived identifier of section 9."""
import os

from .binary import FormatError
from .filestore import FileStore
from .mapindex import canonical_root, read_map
from .merge_identity import identifier_from_maps
from .sqlitestore import DATABASE_NAME, SQLiteStore

VALUES, MAPS = 0, 1


def open_store(root):
    """A FileStore or an SQLiteStore, by what the directory holds."""
    if os.path.exists(os.path.join(root, DATABASE_NAME)):
        return SQLiteStore(root)
    return FileStore(root)


def verify(root):
    """A report: counts of what was checked and a list of problems (empty when intact)."""
    return examine(root)[0]


def examine(root):
    """(report, store, records, {version id: {value id: storing version}}) of the store at
    ``root``, every version checked (see ``verify``)."""
    store = open_store(root)
    report = {"backend": "sqlite" if isinstance(store, SQLiteStore) else "file", "versions": 0, "nodes": 0,
              "values": 0, "merges": 0, "derivedMergeIds": 0, "problems": list(store.damage)}
    problems = report["problems"]
    records = store.records()
    known = {r.identifier for r in records}
    maps = {}
    for record in records:
        report["versions"] += 1
        for predecessor in record.predecessors:
            if predecessor not in known:
                problems.append(f"version {record.identifier}: predecessor {predecessor} is not in the store")
        try:
            entries, nodes = read_map(record.root, lambda h, location: store.data(MAPS, location, h))
        except FormatError as error:
            problems.append(f"version {record.identifier}: {error}")
            continue
        report["nodes"] += nodes
        maps[record.identifier] = entries
        expected, _ = canonical_root(entries.items())
        actual = record.root[0] if record.root else None
        if expected != actual:
            problems.append(f"version {record.identifier}: root {actual and actual.hex()} is not the canonical map "
                            f"of its {len(entries)} entries ({expected and expected.hex()})")
        if record.root and record.root[2] != len(entries):
            problems.append(f"version {record.identifier}: root count {record.root[2]}, {len(entries)} entries")
        own = 0
        for value_id, storing in entries.items():
            if storing not in known:
                problems.append(f"version {record.identifier}: value {value_id!r} stored by unknown version {storing}")
                continue
            try:
                data = store.data(VALUES, storing, value_id)
            except FormatError as error:
                problems.append(f"version {record.identifier}: {error}")
                continue
            if data is None:
                problems.append(f"version {record.identifier}: data of {value_id!r} stored by {storing} is missing")
                continue
            report["values"] += 1
            if storing == record.identifier:
                own += len(data)
        if record.value_data_size is not None and record.value_data_size != own:
            problems.append(f"version {record.identifier}: records {record.value_data_size} bytes of value data, "
                            f"its map holds {own}")
    for record in records:
        if len(record.predecessors) != 2 or not all(p in maps for p in record.predecessors + [record.identifier]):
            continue
        report["merges"] += 1
        first, second = (maps[p] for p in record.predecessors)
        derived = identifier_from_maps(record.identifier, record.predecessors, first, second, maps[record.identifier],
                                       lambda value_id: store.data(VALUES, record.identifier, value_id), record.metadata)
        if derived == record.identifier:
            report["derivedMergeIds"] += 1
    return report, store, records, maps
