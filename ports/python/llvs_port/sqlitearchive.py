"""SPEC.md section 14, "Snapshot archive": an SQLite store's archive ("LLVSSQL1", u64
little-endian length n, n bytes of a database, SHA-256 of those bytes), read with every
check a restore into an empty store makes, and made from rows (any of the schemas v1, v2,
v3) for the conformance vectors."""
import os
import sqlite3
import struct
import tempfile

from .binary import FormatError, sha256
from .records import check_joining
from .sqlitestore import item_checksum

MAGIC = b"LLVSSQL1"
FORMAT = "llvs-sqlite-archive-1"
MIGRATIONS = ("v1", "v2", "v3")

# The schema after each migration (SPEC.md section 14; v1 and v2 as they were).
SCHEMAS = {
    "v1": """CREATE TABLE zone_item (zone INTEGER NOT NULL, version TEXT NOT NULL, key TEXT NOT NULL,
                                       data BLOB NOT NULL, PRIMARY KEY (zone, version, key)) WITHOUT ROWID;
             CREATE TABLE version_record (sequence INTEGER PRIMARY KEY AUTOINCREMENT, record BLOB NOT NULL);""",
    "v2": """CREATE TABLE zone_item (zone INTEGER NOT NULL, version BLOB NOT NULL, key BLOB NOT NULL, data BLOB NOT NULL,
                                       checksum BLOB NOT NULL, PRIMARY KEY (zone, version, key)) WITHOUT ROWID;
             CREATE TABLE version_record (sequence INTEGER PRIMARY KEY AUTOINCREMENT, record BLOB NOT NULL,
                                          checksum BLOB NOT NULL DEFAULT x'');""",
    "v3": """CREATE TABLE zone_item (sequence INTEGER PRIMARY KEY, zone INTEGER NOT NULL, version BLOB NOT NULL,
                                       key BLOB NOT NULL, data BLOB NOT NULL, checksum BLOB NOT NULL);
             CREATE UNIQUE INDEX zone_item_address ON zone_item (version, zone, key);
             CREATE TABLE version_record (sequence INTEGER PRIMARY KEY, record BLOB NOT NULL, checksum BLOB NOT NULL);""",
}


def encode_sqlite_archive(database):
    return MAGIC + struct.pack("<Q", len(database)) + database + sha256(database)


def make_database(schema, items, records, migrations=None, damage=None):
    """The bytes of a database of ``schema`` (v1, v2 or v3) made by VACUUM INTO, holding
    ``items`` [(zone, version, key, data)] and ``records`` [bytes] with their checksums
    (none in v1). ``migrations`` overrides the migrations listed; ``damage(connection)``
    may change rows after they are written."""
    with tempfile.TemporaryDirectory() as directory:
        source, copy = os.path.join(directory, "source.sqlite"), os.path.join(directory, "copy.sqlite")
        db = sqlite3.connect(source)
        db.execute("PRAGMA page_size = 512")  # the smallest: small vectors; readers accept any size
        db.execute("CREATE TABLE grdb_migrations (identifier TEXT NOT NULL PRIMARY KEY)")
        db.executescript(SCHEMAS[schema])
        listed = migrations if migrations is not None else MIGRATIONS[:MIGRATIONS.index(schema) + 1]
        db.executemany("INSERT INTO grdb_migrations VALUES (?)", [(m,) for m in listed])
        for zone, version, key, data in items:
            v, k = version.encode("utf-8"), key.encode("utf-8")
            if schema == "v1":
                db.execute("INSERT INTO zone_item VALUES (?, ?, ?, ?)", (zone, version, key, data))
            else:
                db.execute("INSERT INTO zone_item (zone, version, key, data, checksum) VALUES (?, ?, ?, ?, ?)",
                           (zone, v, k, data, item_checksum(zone, v, k, data)))
        for record in records:
            if schema == "v1":
                db.execute("INSERT INTO version_record (record) VALUES (?)", (record,))
            else:
                db.execute("INSERT INTO version_record (record, checksum) VALUES (?, ?)", (record, sha256(record)[:8]))
        if damage:
            damage(db)
        db.commit()
        db.execute("VACUUM INTO ?", (copy,))
        db.close()
        with open(copy, "rb") as file:
            return file.read()


def decode_sqlite_archive(data, what="SQLite snapshot archive"):
    """(records [bytes] in sequence order, items [(zone, version, key, data)]) of an archive;
    raises FormatError for anything a restore into an empty store refuses: the framing, the
    checksum, a database failing SQLite's integrity check or of a schema this reader does
    not know, a row failing its checksum (v2, v3), and version records that do not decode
    or cannot join (records.check_joining)."""
    if len(data) < 8 or data[:8] != MAGIC[:len(data[:8])]:
        raise FormatError(f"{what}: not an LLVS SQLite snapshot archive", "unknownFormat")
    if len(data) < 48:
        raise FormatError(f"{what}: {len(data)} bytes, shorter than the framing", "truncated")
    length = struct.unpack("<Q", data[8:16])[0]
    if length > len(data) - 48:
        raise FormatError(f"{what}: declares {length} database bytes, holds {len(data) - 48}", "truncated")
    if length < len(data) - 48:
        raise FormatError(f"{what}: {len(data) - 48 - length} bytes after the checksum", "trailingBytes")
    database = data[16:16 + length]
    if sha256(database) != data[16 + length:]:
        raise FormatError(f"{what}: the database bytes fail their SHA-256", "checksumMismatch")
    with tempfile.TemporaryDirectory() as directory:
        path = os.path.join(directory, "staged.sqlite")
        with open(path, "wb") as file:
            file.write(database)
        db = sqlite3.connect(path)
        try:
            return _read_staged(db, what)
        except sqlite3.DatabaseError as error:
            raise FormatError(f"{what}: the database cannot be read: {error}") from None
        finally:
            db.close()


def _read_staged(db, what):
    integrity = [row[0] for row in db.execute("PRAGMA integrity_check")]
    if integrity != ["ok"]:
        raise FormatError(f"{what}: SQLite integrity check: {'; '.join(integrity[:3])}")
    try:
        listed = [row[0] for row in db.execute("SELECT identifier FROM grdb_migrations ORDER BY identifier")]
    except sqlite3.OperationalError:
        listed = []
    if not listed or tuple(listed) != MIGRATIONS[:len(listed)]:
        raise FormatError(f"{what}: migrations {listed}: a schema this reader does not know", "unknownFormat")
    checked = len(listed) >= 2  # v1 rows carry no checksums; restoring migrates them and computes them
    items = []
    for zone, version, key, data, *checksum in db.execute(
            "SELECT zone, CAST(version AS BLOB), CAST(key AS BLOB), data" + (", checksum" if checked else "") + " FROM zone_item"):
        if checked and item_checksum(zone, version, key, data) != checksum[0]:
            raise FormatError(f"{what}: the item {key!r}@{version!r} (zone {zone}) fails its checksum", "checksumMismatch")
        try:
            items.append((zone, version.decode("utf-8"), key.decode("utf-8"), bytes(data)))
        except UnicodeDecodeError:
            raise FormatError(f"{what}: an item address that is not UTF-8", "invalidUTF8") from None
    records = []
    for sequence, record, *checksum in db.execute(
            "SELECT sequence, record" + (", checksum" if checked else "") + " FROM version_record ORDER BY sequence"):
        if checked and sha256(record)[:8] != checksum[0]:
            raise FormatError(f"{what}: version record {sequence} fails its checksum", "checksumMismatch")
        records.append(bytes(record))
    check_joining(records, what)
    return records, items
