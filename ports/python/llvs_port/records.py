"""SPEC.md section 8: version records."""
import math

from .binary import FormatError, Reader, blob, string, utf8, varint
import struct


class VersionRecord:
    def __init__(self, identifier, predecessors, timestamp, value_data_size, metadata, root):
        self.identifier = identifier
        self.predecessors = predecessors  # [] , [first] or [first, second]
        self.timestamp = timestamp
        self.value_data_size = value_data_size  # int or None
        self.metadata = metadata  # {key: bytes}
        self.root = root  # (digest, location, count) or None


def read_version_fields(reader):
    """(identifier, predecessors, timestamp, value data size or None, metadata) as a version
    record (section 8) and an exchange batch entry (section 11) both write them, with every
    check section 8 lists."""
    identifier = reader.string()
    count = reader.byte()
    if count > 2:
        reader.fail(f"{count} predecessors")
    predecessors = [reader.string() for _ in range(count)]
    if count == 2 and predecessors[0] == predecessors[1]:
        reader.fail("identical predecessors")
    if identifier in predecessors:
        reader.fail("a version that is its own predecessor")
    timestamp = reader.f64le()
    if not math.isfinite(timestamp):
        reader.fail("timestamp not finite")
    flag = reader.byte()
    if flag not in (0, 1):
        reader.fail("value data size flag not 0 or 1")
    size = reader.varint() if flag else None
    entries = reader.varint()
    if entries > reader.remaining:
        reader.fail(f"{entries} metadata entries in {reader.remaining} bytes", "truncated")
    metadata, previous = {}, None
    for _ in range(entries):
        key = reader.string()
        if previous is not None and utf8(key) <= utf8(previous):
            reader.fail("metadata keys not in increasing byte order", "outOfOrder")
        metadata[key] = reader.blob()
        previous = key
    return identifier, predecessors, timestamp, size, metadata


def decode_record(payload, what="version record"):
    reader = Reader(payload, what)
    if reader.byte() != 1:
        reader.fail("unknown record format", "unknownFormat")
    identifier, predecessors, timestamp, size, metadata = read_version_fields(reader)
    flag = reader.byte()
    if flag not in (0, 1):
        reader.fail("map root flag not 0 or 1")
    root = (reader.digest(), reader.string(), reader.varint()) if flag else None
    if not reader.at_end:
        reader.fail("bytes after the record", "trailingBytes")
    return VersionRecord(identifier, predecessors, timestamp, size, metadata, root)


def first_of_each(records):
    """The records of an iterable, the first of each identifier kept (a version may be
    recorded more than once: two writers adding it)."""
    seen, result = set(), []
    for record in records:
        if record.identifier not in seen:
            seen.add(record.identifier)
            result.append(record)
    return result


def check_joining(payloads, what, held=None):
    """The version records of a snapshot archive as a restore takes them into a store that
    holds ``held`` ({identifier: record bytes}; empty by default): each decodes, one
    identifier has one record (in the archive and in the store), and every predecessor is in
    the store or the archive (SPEC.md sections 10 and 14). Returns them decoded."""
    held = dict(held or {})
    decoded = []
    for index, payload in enumerate(payloads):
        record = decode_record(payload, f"{what}: version record {index + 1}")
        if held.get(record.identifier, payload) != payload:
            raise FormatError(f"{what}: two records for version {record.identifier!r}")
        held[record.identifier] = payload
        decoded.append(record)
    for record in decoded:
        for predecessor in record.predecessors:
            if predecessor not in held:
                raise FormatError(f"{what}: version {record.identifier!r} names {predecessor!r}, which neither the store nor the archive holds")
    return decoded


def encode_record(record):
    out = b"\x01" + string(record.identifier) + bytes([len(record.predecessors)])
    out += b"".join(string(p) for p in record.predecessors)
    out += struct.pack("<d", record.timestamp)
    out += b"\x00" if record.value_data_size is None else b"\x01" + varint(record.value_data_size)
    keys = sorted(record.metadata, key=utf8)
    out += varint(len(keys)) + b"".join(string(k) + blob(record.metadata[k]) for k in keys)
    if record.root is None:
        return out + b"\x00"
    digest, location, count = record.root
    return out + b"\x01" + digest + string(location) + varint(count)
