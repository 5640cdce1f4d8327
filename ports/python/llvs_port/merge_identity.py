"""SPEC.md section 9, "Merge identity": a merge version's identifier from its content."""
from .binary import blob, sha256, string, utf8, varint

ABSENT = ("absent",)


def stored(version):
    return ("stored", version)


def new_data(data):
    return ("new", bytes(data))


def identifier_from_maps(merge_id, predecessors, first, second, merged, data_of, metadata, virtual=False):
    """``merge_identifier`` of a merge given as maps {value id: storing version}: the
    merge's entries stored by ``merge_id`` are its new data, read with ``data_of(value id)``."""
    outcomes = {}
    for value_id in set(first) | set(second) | set(merged):
        def outcome(entries):
            return stored(entries[value_id]) if value_id in entries else ABSENT
        mine = new_data(data_of(value_id)) if merged.get(value_id) == merge_id else outcome(merged)
        outcomes[value_id] = (outcome(first), outcome(second), mine)
    return merge_identifier(predecessors, outcomes, metadata, virtual)


def merge_identifier(predecessors, outcomes, metadata, virtual=False):
    """The identifier of a merge of ``predecessors`` (two ids). ``outcomes`` maps each
    value id to its (first, second, merge) outcomes: ABSENT, stored(version) or
    new_data(bytes) (data the merge itself stores). ``metadata``: {key: bytes}."""
    body = string("llvs-virtual-merge-1" if virtual else "llvs-merge-1")
    body += varint(2) + b"".join(string(p) for p in sorted(predecessors, key=utf8))
    listed = sorted((v for v, (first, second, merge) in outcomes.items() if not (merge == first == second)), key=utf8)
    body += varint(len(listed))
    for value_id in listed:
        merge = outcomes[value_id][2]
        body += string(value_id)
        if merge[0] == "absent":
            body += b"\x00"
        elif merge[0] == "stored":
            body += b"\x01" + string(merge[1])
        else:
            body += b"\x02" + sha256(merge[1])
    keys = sorted(metadata, key=utf8)
    body += varint(len(keys)) + b"".join(string(k) + blob(metadata[k]) for k in keys)
    digest = sha256(body)[:16].hex().upper()
    identifier = "-".join(digest[a:b] for a, b in ((0, 8), (8, 12), (12, 16), (16, 20), (20, 32)))
    return ("virtual-" if virtual else "") + identifier
