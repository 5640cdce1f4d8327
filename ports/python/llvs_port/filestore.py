"""SPEC.md section 7: file storage — the marker, pack segments (shared and per zone),
format-1 pack files, packs, and the version log."""
import json
import os

from .binary import FormatError, Reader, sha256, string, varint
from .records import decode_record, first_of_each

VALUES, MAPS = 0, 1
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


def scan_segment(path, zone_of_layout):
    """Packs of a pack segment: [(zone, version, pack bytes)] and the damage found.
    ``zone_of_layout`` is None for a shared segment (a zone byte per record) or the zone
    of a zone segment."""
    data = open(path, "rb").read()
    magic = b"LLVSPSG2" if zone_of_layout is None else b"LLVSPSG1"
    if data[:8] != magic:
        raise FormatError(f"{path}: not a pack segment of this layout")
    packs, damage, offset = [], [], 8
    pending_bad = None
    while offset + 8 <= len(data):
        length = int.from_bytes(data[offset:offset + 8], "little")
        if length == 0:
            break
        header = 9 if zone_of_layout is None else 8
        end = offset + header + length
        if end > len(data):
            break  # a torn or in-progress write: the scan stops before it
        zone = data[offset + 8] if zone_of_layout is None else zone_of_layout
        pack = data[offset + header:end]
        version = _pack_version(pack)
        if version is None or zone not in ZONE_NAMES:
            pending_bad = f"{path} at offset {offset}: a record that is not a pack"
        else:
            if pending_bad:
                damage.append(pending_bad)  # a bad record followed by a pack is damage
                pending_bad = None
            packs.append((zone, version, pack, f"{path} at offset {offset}"))
        offset = end
    return packs, damage


def format1_pack_paths(root, zone):
    base = os.path.join(root, ZONE_NAMES[zone])
    for shard in sorted(os.listdir(base)) if os.path.isdir(base) else []:
        directory = os.path.join(base, shard)
        if len(shard) == 2 and os.path.isdir(directory):
            for name in sorted(os.listdir(directory)):
                if name.endswith(".pack"):
                    yield os.path.join(directory, name)


def read_log_segment(path):
    """The record payloads of a version log segment; raises on corruption (a bad record
    followed by a good one)."""
    data = open(path, "rb").read()
    if data[:8] != b"LLVSLOG1":
        raise FormatError(f"{path}: not a version log segment")
    records, offset, bad = [], 8, None
    while offset + 12 <= len(data):
        length = int.from_bytes(data[offset:offset + 4], "little")
        if length == 0 and data[offset + 4:offset + 12] == bytes(8):
            break
        end = offset + 4 + length + 8
        if end > len(data):
            break
        payload = data[offset + 4:offset + 4 + length]
        if sha256(payload)[:8] != data[end - 8:end]:
            bad = bad or f"{path} at offset {offset}: record checksum mismatch"
            offset = end
            continue
        if bad:
            raise FormatError(f"{bad}, followed by a good record: corruption")
        records.append(payload)
        offset = end
    return records


class FileStore:
    """A file store opened for reading (formats 1-3)."""

    def __init__(self, root):
        self.root = root
        marker = json.load(open(os.path.join(root, "llvs-store.json"), encoding="utf-8"))
        if marker.get("format") != "llvs-file-store" or marker.get("formatVersion") not in (1, 2, 3):
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
        for zone_found, version, pack, where in packs:
            self.packs.setdefault((zone_found, version), []).append((pack, where))

    def records(self):
        """Every version record, the first of each identifier kept."""
        directory = os.path.join(self.root, "versions")
        paths = [os.path.join(directory, name) for name in sorted(os.listdir(directory)) if name.endswith(".log")] \
            if os.path.isdir(directory) else []
        return first_of_each(decode_record(payload, f"record in {path}") for path in paths for payload in read_log_segment(path))

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
