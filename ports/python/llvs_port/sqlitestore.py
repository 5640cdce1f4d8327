"""SPEC.md section 14: SQLite storage — schema v3 (v1/v2 read too), row checksums."""
import sqlite3

from .binary import FormatError, sha256, varint
from .records import decode_record, first_of_each

VALUES, MAPS = 0, 1
DATABASE_NAME = "llvs-store.sqlite"


def item_checksum(zone, version, key, data):
    """First 8 bytes of SHA-256 over u8 zone, string version, string key, data."""
    return sha256(bytes([zone]) + varint(len(version)) + version + varint(len(key)) + key + data)[:8]


class SQLiteStore:
    """An SQLite store opened read-only."""

    def __init__(self, root):
        import os
        path = os.path.join(root, DATABASE_NAME)
        if not os.path.exists(path):
            raise FormatError(f"{path}: no SQLite store")
        self.connection = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
        self.path = path
        migrations = {row[0] for row in self.connection.execute("SELECT identifier FROM grdb_migrations")}
        if not migrations <= {"v1", "v2", "v3"}:
            raise FormatError(f"{path}: migrations {sorted(migrations)} include one this reader does not know")
        if "v2" not in migrations:
            raise FormatError(f"{path}: schema v1 (text identifiers); LLVS migrates it when it opens the store")
        self.damage = []

    def records(self):
        """Every version record in sequence order, the first of each identifier kept."""
        return first_of_each(self._checked_record(*row) for row in self.connection.execute(
            "SELECT sequence, record, checksum FROM version_record ORDER BY sequence"))

    def _checked_record(self, sequence, record, checksum):
        if sha256(record)[:8] != checksum:
            raise FormatError(f"{self.path}: version record {sequence} fails its checksum")
        return decode_record(record, f"version record {sequence}")

    def data(self, zone, version, key):
        v, k = version.encode("utf-8"), key.encode("utf-8")
        row = self.connection.execute(
            "SELECT data, checksum FROM zone_item WHERE version = ? AND zone = ? AND key = ?", (v, zone, k)).fetchone()
        if row is None:
            return None
        data, checksum = row
        if item_checksum(zone, v, k, data) != checksum:
            raise FormatError(f"{self.path}: item {key}@{version} (zone {zone}) fails its checksum")
        return bytes(data)
