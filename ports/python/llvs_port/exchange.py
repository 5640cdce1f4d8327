"""SPEC.md sections 11 and 13: the file-system exchange directory — its marker, the
format-2 batch files and the log records naming them, the format-1 version and changes
files with their checksums — read with every check the sections list, and the snapshot
manifest with its chunks.

Byte-level decoders raise ``FormatError`` with a section 5 error class; the directory
reader raises ``ExchangeError`` named as SPEC names them (``damagedFile``,
``missingVersion``, ``missingValueChanges``, ``malformedData``, ``unsupportedFormat``,
``conflictingVersion``) and, for snapshots, ``invalidSnapshotManifest`` and
``corruptSnapshotChunk``.

Versions are dicts of section 3's Version form as ``core_types`` decodes it (timestamp a
float, metadata values bytes, ``valueDataSize`` and ``metadata`` absent when absent) and
changes are section 3 Value.Change dicts (data as bytes), so ``canonical_json.dumps``
writes both as section 3's canonical JSON."""
import math
import os
import re
import struct

from .binary import FormatError, Reader, blob, sha256, string, utf8, varint
from .canonical_json import dumps, loads
from .core_types import decode_change, decode_version
from .filestore import parse_log_segment
from .records import decode_record, first_of_each, read_version_fields

BATCH_MAGIC = b"LLVSXBT1"
LOG_OPENING = b"\xff\x01"
LOG_MAGIC = b"LLVSLOG1"
CHANGE_KINDS = {1: "insert", 2: "update", 3: "remove", 4: "preserve", 5: "preserveRemoval"}
KIND_OF_CHANGE = {name: kind for kind, name in CHANGE_KINDS.items()}
MARKER_NAME = "llvs-exchange.json"
MARKER_KEYS = {"checksums", "format", "formatVersion", "identifier"}
EXCHANGE_FORMAT = "llvs-file-exchange"
SEALED_OPENING = b'{"checksum":"'
SEALED_HEADER = len(SEALED_OPENING) + 64 + 2  # 79: the opening, 64 hex digits, '",'
LITERAL_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,99}")
SNAPSHOT_ID = re.compile(r"[A-Za-z0-9_-]{1,128}")
HEX_DIGEST = re.compile(r"[0-9a-f]{64}")

ERRORS = ("damagedFile", "missingVersion", "missingValueChanges", "malformedData", "unsupportedFormat",
          "conflictingVersion", "invalidSnapshotManifest", "corruptSnapshotChunk")


class ExchangeError(Exception):
    """What a reader of an exchange directory reports: ``kind`` is one of ``ERRORS``,
    ``version`` the version it names (if any), ``location`` the file, ``rule`` (snapshot
    manifests) the rule broken."""

    def __init__(self, kind, reason, version=None, location=None, rule=None):
        assert kind in ERRORS, kind
        where = f"{location}: " if location and location not in reason else ""
        super().__init__(f"{kind}: {where}{reason}")
        self.kind, self.version, self.location, self.rule = kind, version, location, rule


# MARK: identifiers in paths (section 7)

def shard(identifier):
    """The first two hex digits of the SHA-256 of the identifier's UTF-8 bytes."""
    return sha256(utf8(identifier)).hex()[:2]


def file_name(identifier):
    """The identifier itself when it is 1-100 characters of A-Z a-z 0-9 . _ - starting with
    a letter or digit, else ``~`` and the hex SHA-256 of its bytes."""
    if LITERAL_NAME.fullmatch(identifier):
        return identifier
    return "~" + sha256(utf8(identifier)).hex()


def version_file_path(folder, identifier):
    """``versions/<shard>/<name>.json`` or ``changes/<shard>/<name>.json``."""
    return f"{folder}/{shard(identifier)}/{file_name(identifier)}.json"


def batch_path(digest):
    """``batches/<shard>/<digest>.batch`` of a batch file's SHA-256 (32 bytes)."""
    text = digest.hex()
    return f"batches/{text[:2]}/{text}.batch"


# MARK: format 2, batch files and their log records

def _predecessor_list(version):
    predecessors = version.get("predecessors") or {}
    return [predecessors[k] for k in ("idOfFirst", "idOfSecond") if k in predecessors]


def encode_entry_record(version):
    """The ``record`` of a batch entry (section 11): identifier, predecessors, timestamp,
    value data size, metadata in key byte order."""
    predecessors = _predecessor_list(version)
    out = string(version["identifier"]) + bytes([len(predecessors)]) + b"".join(string(p) for p in predecessors)
    out += struct.pack("<d", version["timestamp"])
    size = version.get("valueDataSize")
    out += b"\x00" if size is None else b"\x01" + varint(size)
    metadata = version.get("metadata") or {}
    keys = sorted(metadata, key=utf8)
    return out + varint(len(keys)) + b"".join(string(k) + blob(metadata[k]) for k in keys)


def encode_changes(changes):
    """The ``changes`` of a batch entry: a count, then each change by kind."""
    out = varint(len(changes))
    for change in changes:
        (case, payload), = change.items()
        out += bytes([KIND_OF_CHANGE[case]])
        if case in ("insert", "update"):
            out += string(payload["id"]) + blob(payload["data"])
            stored = payload.get("storedVersionId")
            out += b"\x00" if stored is None else b"\x01" + string(stored)
        elif case == "preserve":
            out += string(payload["valueId"]) + string(payload["storedVersionId"])
        else:
            out += string(payload)
    return out


def encode_entry(version, changes):
    return blob(encode_entry_record(version)) + blob(encode_changes(changes))


def encode_batch(entries):
    """A batch file of [(version, changes)], in order."""
    return BATCH_MAGIC + varint(len(entries)) + b"".join(encode_entry(v, c) for v, c in entries)


def _count(reader, what):
    """A count of items of at least one byte each: more than the bytes left is truncated."""
    count = reader.varint()
    if count > reader.remaining:
        reader.fail(f"{count} {what} in {reader.remaining} bytes", "truncated")
    return count


def decode_entry_record(data, what="batch entry record"):
    """A batch entry's record as a Version, with section 11's checks."""
    reader = Reader(data, what)
    identifier, predecessors, timestamp, size, metadata = read_version_fields(reader)
    version = {"identifier": identifier, "timestamp": timestamp}
    if predecessors:
        version["predecessors"] = dict(zip(("idOfFirst", "idOfSecond"), predecessors))
    if size is not None:
        if size >= 1 << 63:
            reader.fail(f"a value data size of {size}, not below 2^63")
        version["valueDataSize"] = size
    if metadata:
        version["metadata"] = metadata
    if not reader.at_end:
        reader.fail("bytes after the record", "trailingBytes")
    return version


def decode_changes(data, what="batch entry changes"):
    """A batch entry's changes as Value.Change dicts."""
    reader = Reader(data, what)
    changes = []
    for _ in range(_count(reader, "changes")):
        kind = reader.byte()
        if kind not in CHANGE_KINDS:
            reader.fail(f"an unknown change kind {kind}", "unknownFormat")
        case = CHANGE_KINDS[kind]
        if case in ("insert", "update"):
            value = {"id": reader.string(), "data": reader.blob()}
            flag = reader.byte()
            if flag not in (0, 1):
                reader.fail(f"a stored version flag of {flag}")
            if flag:
                value["storedVersionId"] = reader.string()
            changes.append({case: value})
        elif case == "preserve":
            value_id = reader.string()
            changes.append({case: {"storedVersionId": reader.string(), "valueId": value_id}})
        else:
            changes.append({case: reader.string()})
    if not reader.at_end:
        reader.fail("bytes after the last change", "trailingBytes")
    return changes


def decode_batch(data, what="batch file"):
    """[(version, changes)] of a batch file, every entry's record and changes decoded and
    checked: the magic, n >= 1, each version once, nothing after the last entry."""
    return [(version, changes) for version, changes, _ in decode_batch_entries(data, what)]


def decode_batch_entries(data, what="batch file"):
    """``decode_batch`` with each entry's bytes (its record and changes with their lengths),
    which a sender compares with the entry it would write."""
    reader = Reader(data, what)
    if reader.take(len(BATCH_MAGIC)) != BATCH_MAGIC:
        reader.fail("not an exchange batch file (magic)", "unknownFormat")
    count = _count(reader, "entries")
    if count == 0:
        reader.fail("a batch of no version")
    entries, seen = [], set()
    for index in range(count):
        start = reader.offset
        version = decode_entry_record(reader.blob(), f"{what}, record of entry {index}")
        changes = decode_changes(reader.blob(), f"{what}, changes of version {version['identifier']!r}")
        if version["identifier"] in seen:
            reader.fail(f"version {version['identifier']!r} twice", "outOfOrder")
        seen.add(version["identifier"])
        entries.append((version, changes, data[start:reader.offset]))
    if not reader.at_end:
        reader.fail("bytes after the last entry", "trailingBytes")
    return entries


def encode_log_record(digest, version_ids):
    """The log record of a batch: 0xFF 0x01, its SHA-256, its versions in its order."""
    return LOG_OPENING + bytes(digest) + varint(len(version_ids)) + b"".join(string(i) for i in version_ids)


def decode_log_record(payload, what="batch log record"):
    """(digest, [version id]) of a format-2 log record."""
    reader = Reader(payload, what)
    if reader.take(2) != LOG_OPENING:
        reader.fail("not a batch record (it does not open with 0xFF 0x01)", "unknownFormat")
    digest = reader.digest()
    count = _count(reader, "version identifiers")
    if count == 0:
        reader.fail("a batch record naming no version")
    ids = [reader.string() for _ in range(count)]
    if not reader.at_end:
        reader.fail("bytes after the last version identifier", "trailingBytes")
    return digest, ids


# MARK: format 1, version and changes files with their checksums

def seal(canonical):
    """A canonical JSON object's bytes with its checksum member inserted first."""
    return SEALED_OPENING + sha256(canonical).hex().encode("ascii") + b'",' + canonical[1:]


def unseal(data, required, what="exchange file"):
    """The content of a version or changes file, checked against the checksum it carries:
    the file without its checksum member (``{`` and the bytes from offset 79), or the file
    itself when it carries none and ``required`` is false. Raises checksumMismatch."""
    if not data.startswith(SEALED_OPENING):
        if required:
            raise FormatError(f"{what}: carries no checksum, which every file of this directory must", "checksumMismatch")
        return data
    if len(data) < SEALED_HEADER or data[SEALED_HEADER - 2:SEALED_HEADER] != b'",':
        raise FormatError(f"{what}: the checksum member is cut short or malformed", "checksumMismatch")
    content = b"{" + data[SEALED_HEADER:]
    written = data[len(SEALED_OPENING):SEALED_HEADER - 2]
    if sha256(content).hex().encode("ascii") != written:
        raise FormatError(f"{what}: its content does not match its checksum", "checksumMismatch")
    return content


def _json_object(content, what):
    try:
        text = content.decode("utf-8")
    except UnicodeDecodeError:
        raise FormatError(f"{what}: not UTF-8", "invalidUTF8") from None
    value = loads(text)
    if not isinstance(value, dict):
        raise FormatError(f"{what}: not a JSON object")
    return value


def encode_version_file(version, sealed=True):
    canonical = dumps(version).encode("utf-8")
    return seal(canonical) if sealed else canonical


def decode_version_file(data, version_id, required, what="version file"):
    """The Version a format-1 version file holds, checked: its checksum, its Version form,
    and that it is the version its name says."""
    version = decode_version(_json_object(unseal(data, required, what), what))
    if version["identifier"] != version_id:
        raise FormatError(f"{what}: holds version {version['identifier']!r}, expected {version_id!r}")
    return version


def encode_changes_file(version_id, changes, sealed=True):
    canonical = dumps({"valueChanges": changes, "version": version_id}).encode("utf-8")
    return seal(canonical) if sealed else canonical


def decode_changes_file(data, version_id, required, what="changes file"):
    """The changes a format-1 changes file holds, checked as a version file is."""
    obj = _json_object(unseal(data, required, what), what)
    if not isinstance(obj.get("version"), str) or not isinstance(obj.get("valueChanges"), list):
        raise FormatError(f"{what}: needs a version string and a valueChanges array")
    if obj["version"] != version_id:
        raise FormatError(f"{what}: holds the changes of version {obj['version']!r}, expected {version_id!r}")
    return [decode_change(c) for c in obj["valueChanges"]]


# MARK: the marker

def encode_marker(format_version, identifier, checksums=True):
    marker = {"format": EXCHANGE_FORMAT, "formatVersion": format_version, "identifier": identifier}
    if checksums is not None:
        marker["checksums"] = checksums
    return dumps(marker).encode("utf-8")


def decode_marker(data, location=MARKER_NAME):
    """The marker's fields; ``malformedData`` for anything but an object of exactly the
    four keys (checksums optional) of the right types, ``unsupportedFormat`` for another
    format or format version."""
    def malformed(reason):
        return ExchangeError("malformedData", reason, location=location)
    try:
        marker = _json_object(data, "exchange marker")
    except FormatError as error:
        raise malformed(str(error)) from None
    unknown = sorted(set(marker) - MARKER_KEYS, key=utf8)
    if unknown:
        raise malformed(f"unknown key {unknown[0]!r} in the exchange marker")
    for key, kind in (("format", str), ("identifier", str)):
        if not isinstance(marker.get(key), kind):
            raise malformed(f"{key} is not a string")
    if isinstance(marker.get("formatVersion"), bool) or not isinstance(marker.get("formatVersion"), int):
        raise malformed("formatVersion is not an integer")
    if "checksums" in marker and not isinstance(marker["checksums"], bool):
        raise malformed("checksums is not true or false")
    if marker["format"] != EXCHANGE_FORMAT or marker["formatVersion"] not in (1, 2):
        raise ExchangeError("unsupportedFormat", f"{marker['format']} version {marker['formatVersion']}", location=location)
    return marker


# MARK: the snapshot manifest (section 13)

MANIFEST_FIELDS = {"snapshotId": str, "format": str, "createdAt": float, "latestVersionId": str, "versionCount": int,
                   "chunkCount": int, "chunkSize": int, "totalSize": int, "chunkChecksums": list, "sha256": str}


def _invalid_manifest(rule, reason, location):
    return ExchangeError("invalidSnapshotManifest", reason, location=location, rule=rule)


def decode_manifest(text, location="snapshots/latest.json"):
    """A snapshot manifest's fields, checked for consistency (``check_manifest``)."""
    if isinstance(text, (bytes, bytearray)):
        try:
            text = bytes(text).decode("utf-8")
        except UnicodeDecodeError:
            raise _invalid_manifest("json", "not UTF-8", location) from None
    try:
        manifest = loads(text)
    except FormatError as error:
        raise _invalid_manifest("json", str(error), location) from None
    if not isinstance(manifest, dict):
        raise _invalid_manifest("json", "not a JSON object", location)
    for key, kind in MANIFEST_FIELDS.items():
        value = manifest.get(key)
        if kind is float:
            good = isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)
        else:
            good = isinstance(value, kind) and not isinstance(value, bool) and (kind is not int or -2 ** 63 <= value < 2 ** 63)
        if not good:
            raise _invalid_manifest("fields", f"{key} missing or not of its type", location)
    if not all(isinstance(c, str) for c in manifest["chunkChecksums"]):
        raise _invalid_manifest("fields", "chunkChecksums holds a non-string", location)
    manifest = {key: manifest[key] for key in MANIFEST_FIELDS}  # unknown keys are ignored (section 2)
    check_manifest(manifest, location)
    return manifest


def check_manifest(manifest, location="snapshots/latest.json"):
    """The consistency checks of section 13 (and those it implies, see the vectors' rules)."""
    if not SNAPSHOT_ID.fullmatch(manifest["snapshotId"]):
        raise _invalid_manifest("snapshotId", f"snapshot id {manifest['snapshotId']!r} is not 1-128 of A-Z a-z 0-9 - _", location)
    count, size, total = manifest["chunkCount"], manifest["chunkSize"], manifest["totalSize"]
    if count < 1:
        raise _invalid_manifest("chunkCount", f"{count} chunks", location)
    if len(manifest["chunkChecksums"]) != count:
        raise _invalid_manifest("chunkChecksums", f"{len(manifest['chunkChecksums'])} checksums for {count} chunks", location)
    if size < 1:
        raise _invalid_manifest("chunkSize", f"a chunk size of {size}", location)
    if not size * (count - 1) < total <= size * count:
        raise _invalid_manifest("totalSize", f"total size {total} does not fit {count} chunks of {size} bytes "
                                             f"(every chunk but the last of exactly that size, the last of 1 to {size})", location)
    if manifest["versionCount"] < 0:
        raise _invalid_manifest("versionCount", f"a version count of {manifest['versionCount']}", location)
    for checksum in manifest["chunkChecksums"] + [manifest["sha256"]]:
        if not HEX_DIGEST.fullmatch(checksum):
            raise _invalid_manifest("checksumHex", f"checksum {checksum!r} is not 64 lower-case hex digits", location)


def chunk_size(manifest, index):
    count, size = manifest["chunkCount"], manifest["chunkSize"]
    return manifest["totalSize"] - size * (count - 1) if index == count - 1 else size


def chunk_path(snapshot_id, index):
    return f"snapshots/{snapshot_id}/chunk-{index:06d}"


def verify_chunks(manifest, chunks, location="snapshot"):
    """The archive the chunks make (each chunk None when absent), after checking each
    against its size and checksum (``corruptSnapshotChunk``) and the whole against
    ``sha256`` (``invalidSnapshotManifest``)."""
    if len(chunks) != manifest["chunkCount"]:
        raise ExchangeError("corruptSnapshotChunk", f"{len(chunks)} chunks for {manifest['chunkCount']}", location=location)
    for index, chunk in enumerate(chunks):
        if chunk is None or len(chunk) != chunk_size(manifest, index) or sha256(chunk).hex() != manifest["chunkChecksums"][index]:
            raise ExchangeError("corruptSnapshotChunk", f"chunk {index} is missing or does not match its size and checksum",
                                location=location, rule=str(index))
    archive = b"".join(chunks)
    if sha256(archive).hex() != manifest["sha256"]:
        raise _invalid_manifest("sha256", "the chunks match their checksums but not the whole archive's SHA-256", location)
    return archive


# MARK: the directory

class DirectoryFiles:
    """The files of an exchange directory on disk, by relative path."""

    def __init__(self, root):
        self.root = root

    def read(self, path):
        try:
            with open(os.path.join(self.root, *path.split("/")), "rb") as file:
                return file.read()
        except FileNotFoundError:
            return None

    def names(self, folder):
        directory = os.path.join(self.root, *folder.split("/"))
        return [n for n in os.listdir(directory) if os.path.isfile(os.path.join(directory, n))] \
            if os.path.isdir(directory) else []


class MemoryFiles:
    """The files of an exchange directory as {relative path: bytes}."""

    def __init__(self, files):
        self.files = dict(files)

    def read(self, path):
        return self.files.get(path)

    def names(self, folder):
        prefix = folder + "/"
        return [p[len(prefix):] for p in self.files if p.startswith(prefix) and "/" not in p[len(prefix):]]


class ExchangeDirectory:
    """A reader of an exchange directory of format 1 or 2 (section 11): ``open`` reads the
    marker, ``list_versions`` the log, ``version`` and ``changes`` a logged version's record
    and changes, ``snapshot`` the newest snapshot (section 13)."""

    def __init__(self, files):
        self.files = files if hasattr(files, "read") else DirectoryFiles(files)
        self.marker = None
        self.located = None  # version id -> digest of the first record listing it (format 2)
        self.logged = None  # the logged versions, each once, in order
        self.batches = {}  # digest -> {version id: (version, changes)}, read once
        self.batch_count = 0
        self.entry_bytes = {}  # (digest, version id) -> the entry's bytes

    @property
    def format_version(self):
        return self.marker["formatVersion"]

    def open(self):
        data = self.files.read(MARKER_NAME)
        if data is None:
            raise ExchangeError("malformedData", "no exchange marker", location=MARKER_NAME)
        self.marker = decode_marker(data)
        return self.marker

    def log_records(self):
        """(segment, payload) of every record of every segment of ``log/`` (names ending in
        ``.log``, not hidden, in byte order), each segment read by section 7's rules."""
        records = []
        for name in sorted((n for n in self.files.names("log") if n.endswith(".log") and not n.startswith(".")), key=utf8):
            location = f"log/{name}"
            data = self.files.read(location)
            if len(data) < len(LOG_MAGIC) and LOG_MAGIC.startswith(data):
                continue  # a segment being created: no record yet
            try:
                records += [(location, payload) for payload in parse_log_segment(data, location)]
            except FormatError as error:
                raise ExchangeError("malformedData", str(error), location=location) from None
        return records

    def list_versions(self):
        """The logged versions, each once, in the order of the first record listing it."""
        if self.marker is None:
            self.open()
        listed, located = [], {}
        for location, payload in self.log_records():
            if self.format_version == 2:
                try:
                    digest, ids = decode_log_record(payload, f"batch log record in {location}")
                except FormatError as error:
                    raise ExchangeError("malformedData", str(error), location=location) from None
            else:
                try:
                    digest, ids = None, [payload.decode("utf-8")]
                except UnicodeDecodeError:
                    raise ExchangeError("malformedData", "a log record is not UTF-8, so not a version identifier",
                                        location=location) from None
            for version_id in ids:
                if version_id not in located:
                    located[version_id] = digest
                    listed.append(version_id)
        self.located, self.logged = located, listed
        return list(listed)

    def _batch(self, version_id, missing):
        if self.located is None:
            self.list_versions()
        if version_id not in self.located:
            raise ExchangeError(missing, "the log does not list it", version=version_id)
        digest = self.located[version_id]
        location = batch_path(digest)
        if digest not in self.batches:
            data = self.files.read(location)
            if data is None:
                raise ExchangeError(missing, "its batch file is absent", version=version_id, location=location)
            if sha256(data) != digest:
                raise ExchangeError("damagedFile", f"its content does not match the SHA-256 its log record names "
                                                   f"(SHA-256 {sha256(data).hex()})", version=version_id, location=location)
            try:
                entries = decode_batch_entries(data, location)
            except FormatError as error:
                raise ExchangeError("malformedData", str(error), location=location) from None
            self.batches[digest] = {v["identifier"]: (v, c) for v, c, _ in entries}
            self.entry_bytes.update({(digest, v["identifier"]): raw for v, _, raw in entries})
            self.batch_count += 1
        entry = self.batches[digest].get(version_id)
        if entry is None:
            raise ExchangeError("malformedData", f"the batch does not hold version {version_id!r}, which its log record lists",
                                location=location)
        return entry

    def _file(self, folder, version_id, missing, decode):
        if self.located is None:
            self.list_versions()
        if version_id not in self.located:
            raise ExchangeError(missing, "the log does not list it", version=version_id)
        location = version_file_path(folder, version_id)
        data = self.files.read(location)
        if data is None:
            raise ExchangeError(missing, "its file is absent", version=version_id, location=location)
        try:
            return decode(data, version_id, self.marker.get("checksums") is True, location)
        except FormatError as error:
            kind = "damagedFile" if error.error_class == "checksumMismatch" else "malformedData"
            raise ExchangeError(kind, str(error), version=version_id, location=location) from None

    def version(self, version_id):
        """The Version of a logged version."""
        if self.format_version == 2:
            return self._batch(version_id, "missingVersion")[0]
        return self._file("versions", version_id, "missingVersion", decode_version_file)

    def changes(self, version_id):
        """The changes of a logged version."""
        if self.format_version == 2:
            return self._batch(version_id, "missingValueChanges")[1]
        return self._file("changes", version_id, "missingValueChanges", decode_changes_file)

    def send_outcome(self, version, changes):
        """What sending ``version`` with ``changes`` finds (section 11, "Sending"): ``new``
        when the log does not list it, ``alreadyLogged`` when what is logged is what this
        sender would write (format 2: the entry, byte for byte; format 1: each file, or a
        file without a checksum equal to the new one without its checksum member), else
        ``conflictingVersion``, raised. A logged version's batch file that cannot be read
        raises what reading it raises; an absent format-1 file is no conflict (the sender
        writes it)."""
        version_id = version["identifier"]
        if self.located is None:
            self.list_versions()
        if version_id not in self.located:
            return "new"
        if self.format_version == 2:
            self._batch(version_id, "missingVersion")
            location = batch_path(self.located[version_id])
            if self.entry_bytes[(self.located[version_id], version_id)] != encode_entry(version, changes):
                raise ExchangeError("conflictingVersion", "logged with other content", version=version_id, location=location)
            return "alreadyLogged"
        for folder, sealed in (("changes", encode_changes_file(version_id, changes)), ("versions", encode_version_file(version))):
            location = version_file_path(folder, version_id)
            existing = self.files.read(location)
            if existing is not None and existing not in (sealed, b"{" + sealed[SEALED_HEADER:]):
                raise ExchangeError("conflictingVersion", "logged with other content", version=version_id, location=location)
        return "alreadyLogged"

    def snapshot(self):
        """(manifest, archive bytes) of ``snapshots/latest.json`` and its chunks, checked, or
        None when the directory holds no snapshot."""
        location = "snapshots/latest.json"
        data = self.files.read(location)
        if data is None:
            return None
        manifest = decode_manifest(data, location)
        chunks = [self.files.read(chunk_path(manifest["snapshotId"], i)) for i in range(manifest["chunkCount"])]
        return manifest, verify_chunks(manifest, chunks, f"snapshot {manifest['snapshotId']}")


def read_all(directory):
    """Reads a whole directory as a peer retrieving everything would: the marker, the log,
    then each logged version's record and its changes, then the snapshot. Returns
    {"versionIds", "versions": {id: (version, changes)}, "snapshot"}; raises the first
    ExchangeError met, with ``step`` (marker, list, version, changes, snapshot) and
    ``step_version`` set on it."""
    def step(name, version_id, call):
        try:
            return call()
        except ExchangeError as error:
            error.step, error.step_version = name, version_id
            raise

    step("marker", None, directory.open)
    ids = step("list", None, directory.list_versions)
    versions = {}
    for version_id in ids:
        version = step("version", version_id, lambda: directory.version(version_id))
        versions[version_id] = (version, step("changes", version_id, lambda: directory.changes(version_id)))
    return {"versionIds": ids, "versions": versions, "snapshot": step("snapshot", None, directory.snapshot)}


# MARK: a whole directory, checked (python3 -m llvs_port read-exchange)

def _ancestors(versions, version_id):
    seen, stack = set(), list(_predecessor_list(versions[version_id][0]))
    while stack:
        current = stack.pop()
        if current not in seen and current in versions:
            seen.add(current)
            stack += _predecessor_list(versions[current][0])
    return seen


def examine_directory(root, compare_store=None):
    """A report of an exchange directory read whole (``read_all``) and checked: each
    version's changes store data under its own identifier only, name each value once,
    preserve data of its ancestors, add up to its valueDataSize; its predecessors are
    logged; merges' identifiers derive from their content (section 9); the snapshot's
    archive holds latestVersionId and versionCount versions (file store archives). With
    ``compare_store``, every version and its changes must be the store's."""
    from .archive import decode_archive
    from .mapindex import leaf_order
    from .sync import changes_made, replay, version_json
    directory = ExchangeDirectory(root)
    report = {"directory": root, "format": None, "versions": 0, "batches": 0, "changes": 0, "merges": 0,
              "derivedMergeIds": 0, "changesInLeafOrder": 0, "snapshot": None, "problems": []}
    problems = report["problems"]
    try:
        found = read_all(directory)
    except ExchangeError as error:
        problems.append(f"{error.step}{' of ' + repr(error.step_version) if error.step_version is not None else ''}: {error}")
        return report
    versions = found["versions"]
    report.update(format=directory.format_version, identifier=directory.marker["identifier"], versions=len(versions),
                  batches=directory.batch_count, changes=sum(len(c) for _, c in versions.values()))
    for version_id, (version, changes) in versions.items():
        name = f"version {version_id!r}"
        for predecessor in _predecessor_list(version):
            if predecessor not in versions:
                problems.append(f"{name}: predecessor {predecessor!r} is not logged")
        named, stored = [], 0
        ancestors = None
        for change in changes:
            (case, payload), = change.items()
            value_id = payload["id"] if case in ("insert", "update") else payload["valueId"] if case == "preserve" else payload
            if value_id in named:
                problems.append(f"{name}: changes value {value_id!r} twice")
            named.append(value_id)
            if case in ("insert", "update"):
                stored += len(payload["data"])
                if payload.get("storedVersionId", version_id) != version_id:
                    problems.append(f"{name}: {case} of {value_id!r} stored by {payload['storedVersionId']!r}")
            elif case == "preserve":
                ancestors = _ancestors(versions, version_id) if ancestors is None else ancestors
                if payload["storedVersionId"] not in ancestors:
                    problems.append(f"{name}: preserves {value_id!r} of {payload['storedVersionId']!r}, not an ancestor")
        # SPEC.md does not fix the order of a version's changes; Swift writes them in map
        # leaf order (key hash, then identifier bytes): counted, not a problem.
        report["changesInLeafOrder"] += named == sorted(named, key=lambda i: leaf_order((i,)))
        if version.get("valueDataSize") is not None and version["valueDataSize"] != stored:
            problems.append(f"{name}: valueDataSize {version['valueDataSize']}, its changes store {stored} bytes")
    # Every file must be what SPEC's encoding of its content gives, byte for byte.
    files = directory.files
    if directory.format_version == 2:
        for digest, entries in directory.batches.items():
            if encode_batch(list(entries.values())) != files.read(batch_path(digest)):
                problems.append(f"{batch_path(digest)}: not the bytes section 11 encodes its entries as")
    else:
        for version_id, (version, changes) in versions.items():
            for path, encode in ((version_file_path("versions", version_id), lambda sealed: encode_version_file(version, sealed)),
                                 (version_file_path("changes", version_id), lambda sealed: encode_changes_file(version_id, changes, sealed))):
                data = files.read(path)
                if encode(data.startswith(SEALED_OPENING)) != data:
                    problems.append(f"{path}: not the canonical JSON of its content")
    report["filesReencoded"] = len(directory.batches) if directory.format_version == 2 else 2 * len(versions)
    if not problems:
        for version_id, (_, _, derived) in replay(versions).items():
            if derived is not None:
                report["merges"] += 1
                report["derivedMergeIds"] += derived == version_id
    if found["snapshot"] is not None:
        manifest, archive = found["snapshot"]
        report["snapshot"] = {k: manifest[k] for k in ("snapshotId", "format", "chunkCount", "totalSize", "versionCount")}
        if manifest["format"] == "llvs-file-store-archive-1":
            try:
                entries = decode_archive(archive)
                records = first_of_each(decode_record(r) for path, body in entries if path.endswith(".log")
                                        for r in parse_log_segment(body, path, complete=True))
            except FormatError as error:
                problems.append(f"snapshot {manifest['snapshotId']}: {error}")
            else:
                report["snapshot"]["archiveVersions"] = len(records)
                if len(records) != manifest["versionCount"]:
                    problems.append(f"snapshot {manifest['snapshotId']}: versionCount {manifest['versionCount']}, "
                                    f"the archive holds {len(records)}")
                if manifest["latestVersionId"] not in {r.identifier for r in records}:
                    problems.append(f"snapshot {manifest['snapshotId']}: the archive lacks {manifest['latestVersionId']!r}")
    if compare_store is not None:
        from .verify import examine
        store_report, store, records, maps = examine(compare_store)
        problems += [f"store: {p}" for p in store_report["problems"]]
        by_id = {r.identifier: r for r in records}
        for version_id, (version, changes) in versions.items():
            record = by_id.get(version_id)
            if record is None:
                problems.append(f"version {version_id!r} is not in the store")
                continue
            if dumps(version_json(record)) != dumps(version):
                problems.append(f"version {version_id!r}: the exchange's record differs from the store's")
            if version_id in maps and sorted(map(dumps, changes_made(store, maps, record))) != sorted(map(dumps, changes)):
                problems.append(f"version {version_id!r}: the exchange's changes differ from those the store's version made")
        report["compared"] = len(versions)
    return report
