"""SPEC.md section 7: file storage — the marker, pack segments (shared and per zone),
format-1 pack files, packs, and the version log."""
import json
import os

from .binary import FormatError, Reader, sha256, string, varint
from .records import decode_record, first_of_each

VALUES, MAPS = 0, 1
COMMIT_TAG = 2
COMMITTING_MAGIC = b"LLVSPSG3"
ZONE_NAMES = {VALUES: "values", MAPS: "maps"}
PACK_MAGIC = b"LLVSPACK"


def encode_pack(version, items):
    """A pack of {key: data} for ``version``: keys in increasing byte order, then the data,
    then the digest of everything before it."""
    keys = sorted(items, key=lambda k: k.encode("utf-8"))
    body = PACK_MAGIC + b"\x01" + string(version) + varint(len(keys))
    body += b"".join(string(k) + varint(len(items[k])) for k in keys) + b"".join(bytes(items[k]) for k in keys)
    return body + sha256(body)


def decode_pack(data, what="pack"):
    """(version, {key: data}) of a pack; checks its digest, key order and bounds."""
    if len(data) < 32:
        raise FormatError(f"{what}: {len(data)} bytes, shorter than a digest", "truncated")
    if sha256(data[:-32]) != data[-32:]:
        raise FormatError(f"{what}: digest does not match", "checksumMismatch")
    reader = Reader(data[:-32], what)
    if reader.take(8) != PACK_MAGIC:
        reader.fail("not a pack (magic)", "unknownFormat")
    if reader.byte() != 1:
        reader.fail("unknown pack format", "unknownFormat")
    version = reader.string()
    count = reader.varint()
    if count > reader.remaining:
        reader.fail(f"{count} keys in {reader.remaining} bytes", "truncated")
    index = [(reader.string(), reader.varint()) for _ in range(count)]
    keys = [k.encode("utf-8") for k, _ in index]
    if any(a >= b for a, b in zip(keys, keys[1:])):
        reader.fail("keys not unique and in increasing byte order", "outOfOrder")
    items = {}
    for key, length in index:
        items[key] = reader.take(length)
    if not reader.at_end:
        reader.fail("bytes after the data", "trailingBytes")
    return version, items


def _pack_version(pack):
    """The version named by a pack's header, or None when the bytes do not begin a pack."""
    try:
        reader = Reader(pack, "pack header")
        if reader.take(8) != PACK_MAGIC or reader.byte() != 1:
            return None
        return reader.string()
    except FormatError:
        return None


def scan_segment_bytes(data, zone_of_layout, where="pack segment"):
    """Packs of a pack segment's bytes: [(zone, version, pack bytes, offset of the pack)]
    and the damage found. ``zone_of_layout`` is None for a shared segment (a zone byte per
    record) or the zone of a zone segment. The records end at the end of the bytes, at a
    zero length (preallocated space) or at a record running past the end (torn); a record
    that is not a pack ends them too, unless the record right after it is a pack: then it
    is damage, reported and skipped."""
    magics = (b"LLVSPSG2", COMMITTING_MAGIC) if zone_of_layout is None else (b"LLVSPSG1",)
    if data[:8] not in magics:
        raise FormatError(f"{where}: not a pack segment of this layout", "unknownFormat")
    header = 9 if zone_of_layout is None else 8

    def record(offset):
        """(end, zone, version or None) of the record at offset, or None where they end."""
        if len(data) - offset < header:
            return None
        length = int.from_bytes(data[offset:offset + 8], "little")
        if length == 0 or length > len(data) - offset - header:
            return None
        zone = data[offset + 8] if zone_of_layout is None else zone_of_layout
        version = _pack_version(data[offset + header:offset + header + length]) if zone in ZONE_NAMES else None
        return offset + header + length, zone, version

    packs, damage, offset = [], [], 8
    while (found := record(offset)) is not None:
        end, zone, version = found
        if zone == COMMIT_TAG:
            offset = end  # a commit record: see scan_commits_bytes
            continue
        if version is None:
            following = record(end)
            if following is None or (following[2] is None and following[1] != COMMIT_TAG):
                break  # torn, or still being written
            damage.append(f"{where} at offset {offset}: a record that is not a pack")
        else:
            packs.append((zone, version, data[offset + header:end], offset + header))
        offset = end
    return packs, damage


UNWRITTEN_BLOCK = 512


def holds_unwritten_block(chunk, start):
    """Whether ``chunk`` (at offset ``start`` of its segment) holds 512 zero bytes at an
    offset that is a multiple of 512: space a write cut short never reached."""
    first = (-start) % UNWRITTEN_BLOCK
    return any(not any(chunk[i:i + UNWRITTEN_BLOCK])
               for i in range(first, len(chunk) - UNWRITTEN_BLOCK + 1, UNWRITTEN_BLOCK))


def scan_commits_bytes(data, where="pack segment"):
    """The version records of a committing pack segment's commit records (format 4), in
    order; an earlier layout's segment has none. Records are framed as in a shared segment;
    a commit record (tag 2) holds a u32 little-endian count, then that many version records
    framed as in a version log segment, with nothing after them. A commit record that ends the records (nothing complete follows)
    counts only if every record since the commit record before it is a pack passing its
    digest: otherwise it is a torn final write, and so is a final commit record that does
    not parse. One that does not parse with records after it is corruption, raised."""
    if data[:8] in (b"LLVSPSG1", b"LLVSPSG2"):
        return []
    if data[:8] != COMMITTING_MAGIC:
        raise FormatError(f"{where}: not a pack segment", "unknownFormat")

    def record(offset):
        """(end, tag, body start) of the record at offset, or None where they end."""
        if len(data) - offset < 9:
            return None
        length = int.from_bytes(data[offset:offset + 8], "little")
        if length == 0 or length > len(data) - offset - 9:
            return None
        return offset + 9 + length, data[offset + 8], offset + 9

    def torn(start, end):
        """Whether a record from start to end fails (not a pack, or its digest) and holds an
        unwritten block: a write cut short."""
        offset = start
        while offset < end:
            found = record(offset)
            if found is None:
                return True
            failing = found[1] not in ZONE_NAMES
            if not failing:
                try:
                    decode_pack(data[found[2]:found[0]])
                except FormatError:
                    failing = True
            if failing and holds_unwritten_block(data[found[2]:found[0]], found[2]):
                return True
            offset = found[0]
        return False

    records, offset, group_start = [], 8, 8
    while (found := record(offset)) is not None:
        end, tag, body = found
        if tag == COMMIT_TAG:
            is_last = record(end) is None
            try:
                if end - body < 4:
                    raise FormatError(f"{where} at offset {body}: a commit record shorter than its count", "truncated")
                found_records = parse_log_segment(b"LLVSLOG1" + data[body + 4:end], where, whole=True)
                if len(found_records) != int.from_bytes(data[body:body + 4], "little"):
                    raise FormatError(f"{where} at offset {body}: a commit record's count is not its records'", "invalidContent")
            except FormatError:
                if is_last:
                    break
                raise
            if is_last and torn(group_start, offset):
                break
            records += found_records
            group_start = end
        offset = end
    return records


def scan_segment(path, zone_of_layout):
    """``scan_segment_bytes`` of the file at ``path``."""
    with open(path, "rb") as file:
        return scan_segment_bytes(file.read(), zone_of_layout, path)


def format1_pack_paths(root, zone):
    base = os.path.join(root, ZONE_NAMES[zone])
    for shard in sorted(os.listdir(base)) if os.path.isdir(base) else []:
        directory = os.path.join(base, shard)
        if len(shard) == 2 and os.path.isdir(directory):
            for name in sorted(os.listdir(directory)):
                if name.endswith(".pack"):
                    yield os.path.join(directory, name)


def parse_log_segment(data, where="version log segment", complete=False, whole=False):
    """The record payloads of a version log segment's bytes. The records end at the end of
    the bytes, at a record running past it, at twelve zero bytes (preallocated space), or
    at a record failing its checksum (torn) — unless the record right after that one is
    good: then it is corruption, raised. A ``complete`` segment (in a snapshot archive)
    must have nothing but zeros after its last record; a ``whole`` one (a commit record's
    body) nothing at all."""
    if data[:8] != b"LLVSLOG1":
        raise FormatError(f"{where}: not a version log segment", "unknownFormat")

    def record(offset):
        """(end, payload, matches) of the record at offset, or None where they end."""
        if len(data) - offset < 4:
            return None
        length = int.from_bytes(data[offset:offset + 4], "little")
        end = offset + 4 + length + 8
        if end > len(data):
            return None
        payload, stored = data[offset + 4:offset + 4 + length], data[end - 8:end]
        if length == 0 and stored == bytes(8):
            return None
        return end, payload, sha256(payload)[:8] == stored

    records, offset = [], 8
    while (found := record(offset)) is not None:
        end, payload, matches = found
        if not matches:
            following = record(end)
            if following is not None and following[2]:
                raise FormatError(f"{where} at offset {offset}: a record fails its checksum and a good one follows",
                                  "checksumMismatch")
            break
        records.append(payload)
        offset = end
    if (complete and any(data[offset:])) or (whole and offset != len(data)):
        raise FormatError(f"{where}: the record at offset {offset} is incomplete or fails its checksum", "truncated")
    return records


def read_log_segment(path):
    """``parse_log_segment`` of the file at ``path``."""
    with open(path, "rb") as file:
        return parse_log_segment(file.read(), path)


class FileStore:
    """A file store opened for reading (formats 1-4)."""

    def __init__(self, root):
        self.root = root
        marker = json.load(open(os.path.join(root, "llvs-store.json"), encoding="utf-8"))
        if marker.get("format") != "llvs-file-store" or marker.get("formatVersion") not in (1, 2, 3, 4):
            raise FormatError(f"{root}: unsupported store marker {marker}")
        self.format_version = marker["formatVersion"]
        self.damage = []
        self.packs = {}  # (zone, version) -> [(pack bytes, where)], in the order found
        packs_dir = os.path.join(root, "packs")
        for name in sorted(os.listdir(packs_dir)) if os.path.isdir(packs_dir) else []:
            if name.endswith(".seg"):
                self._add_segment(os.path.join(packs_dir, name), None)
        for zone in ZONE_NAMES:
            directory = os.path.join(root, ZONE_NAMES[zone], "segments")
            for name in sorted(os.listdir(directory)) if os.path.isdir(directory) else []:
                if name.endswith(".seg"):
                    self._add_segment(os.path.join(directory, name), zone)
            for path in format1_pack_paths(root, zone):
                pack = open(path, "rb").read()
                version = _pack_version(pack)
                if version is None:
                    self.damage.append(f"{path}: not a pack")
                else:
                    self.packs.setdefault((zone, version), []).append((pack, path))
        self._decoded = {}

    def _add_segment(self, path, zone):
        packs, damage = scan_segment(path, zone)
        self.damage += damage
        for zone_found, version, pack, offset in packs:
            self.packs.setdefault((zone_found, version), []).append((pack, f"{path} at offset {offset}"))

    def records(self):
        """Every version record, the first of each identifier kept: those of the version log
        segments (formats 1-3, restored snapshots), then the commit records of the pack
        segments (format 4)."""
        directory = os.path.join(self.root, "versions")
        paths = [os.path.join(directory, name) for name in sorted(os.listdir(directory)) if name.endswith(".log")] \
            if os.path.isdir(directory) else []
        found = [(payload, path) for path in paths for payload in read_log_segment(path)]
        packs_dir = os.path.join(self.root, "packs")
        for name in sorted(os.listdir(packs_dir)) if os.path.isdir(packs_dir) else []:
            if name.endswith(".seg") and not name.startswith("."):
                path = os.path.join(packs_dir, name)
                with open(path, "rb") as file:
                    found += [(payload, path) for payload in scan_commits_bytes(file.read(), path)]
        return first_of_each(decode_record(payload, f"record in {path}") for payload, path in found)

    def data(self, zone, version, key):
        """The data stored under (zone, version, key), or None; checks each pack read."""
        for index, (pack, where) in enumerate(self.packs.get((zone, version), [])):
            cache_key = (zone, version, index)
            if cache_key not in self._decoded:
                named, items = decode_pack(pack, f"pack {where}")
                if named != version:
                    raise FormatError(f"pack {where} names version {named!r}, indexed as {version!r}")
                self._decoded[cache_key] = items
            found = self._decoded[cache_key].get(key)
            if found is not None:
                return found
        return None
