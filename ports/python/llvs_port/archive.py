"""SPEC.md section 10: the file store's snapshot archive, read with every check a restore
makes before touching the store (an empty one: its version records join no others)."""
import re
import struct

from .binary import FormatError, sha256
from .filestore import decode_pack, parse_log_segment
from .records import check_joining

MAGIC = b"LLVSSNP1"
PACK_PATH = re.compile(r"(values|maps)/[0-9a-f]{2}/([^/\0]+\.pack)")
LOG_PATH = re.compile(r"versions/([^/\0]+\.log)")


def _safe(name, suffix):
    return len(name) > len(suffix) and len(name) <= 255 and not name.startswith(".")


def path_allowed(path):
    """Whether an archive may hold a file at ``path``: only a pack of a zone or a version
    log segment, so a restore never writes outside the store."""
    match = PACK_PATH.fullmatch(path)
    if match:
        return _safe(match.group(2), ".pack")
    match = LOG_PATH.fullmatch(path)
    return bool(match) and _safe(match.group(1), ".log")


def decode_archive(data, what="snapshot archive"):
    """[(path, bytes)] of an archive; raises FormatError for anything a restore refuses."""
    if data[:8] != MAGIC:
        raise FormatError(f"{what}: not a snapshot archive", "unknownFormat")
    entries, records, offset = [], [], 8

    def take(count):
        nonlocal offset
        if len(data) - offset < count:
            raise FormatError(f"{what}: ends inside an entry at byte {offset}", "truncated")
        offset += count
        return data[offset - count:offset]

    while True:
        start = offset
        path_length = struct.unpack("<I", take(4))[0]
        if path_length == 0:
            count = struct.unpack("<Q", take(8))[0]
            if count != len(entries):
                raise FormatError(f"{what}: the end counts {count} entries, the archive holds {len(entries)}")
            if offset != len(data):
                raise FormatError(f"{what}: {len(data) - offset} bytes after the end", "trailingBytes")
            check_joining(records, what)
            return entries
        if path_length > 4096:
            raise FormatError(f"{what}: a path of {path_length} bytes")
        try:
            path = take(path_length).decode("utf-8")
        except UnicodeDecodeError:
            raise FormatError(f"{what}: a path that is not UTF-8", "invalidUTF8") from None
        body = take(struct.unpack("<Q", take(8))[0])
        if sha256(data[start:offset]) != take(32):
            raise FormatError(f"{what}: the entry {path!r} fails its checksum", "checksumMismatch")
        if not path_allowed(path):
            raise FormatError(f"{what}: the path {path!r} is outside the store's layout")
        if path.endswith(".pack"):
            decode_pack(body, f"{what}: {path}")
        else:
            records += parse_log_segment(body, f"{what}: {path}", complete=True)
        entries.append((path, body))


def encode_archive(entries):
    out = MAGIC
    for path, body in entries:
        header = struct.pack("<I", len(path.encode("utf-8"))) + path.encode("utf-8") + struct.pack("<Q", len(body))
        out += header + body + sha256(header + body)
    return out + struct.pack("<I", 0) + struct.pack("<Q", len(entries))
