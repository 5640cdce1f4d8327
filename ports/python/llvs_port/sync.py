"""SPEC.md section 15 (the HTTP sync API) as a client, with sections 3 and 9 (a version's
JSON and the changes it made) to push a store's versions and to replay pulled ones."""
import random
import time
import urllib.error
import urllib.request

from .binary import utf8
from .canonical_json import dumps, loads
from .core_types import decode_change, decode_version
from .mapindex import canonical_root
from .history import apply_changes
from .merge_identity import identifier_from_maps

VALUES = 0
RETRIED = {408, 429, 500, 502, 503, 504}


class SyncError(RuntimeError):
    """An error answer (status, code, message) or a failed connection, after retries."""


class Client:
    """A store URL (`http://HOST:PORT/v1/stores/NAME`) and its bearer token."""

    def __init__(self, store_url, token, attempts=6):
        self.store_url = store_url.rstrip("/")
        self.token = token
        self.attempts = attempts

    def request(self, method, path, body=None):
        data = None if body is None else dumps(body).encode("utf-8")
        for attempt in range(self.attempts):
            request = urllib.request.Request(f"{self.store_url}/{path}", data=data, method=method)
            request.add_header("Authorization", f"Bearer {self.token}")
            if data is not None:
                request.add_header("Content-Type", "application/json")
            try:
                with urllib.request.urlopen(request, timeout=60) as answer:
                    return loads(answer.read().decode("utf-8"))
            except urllib.error.HTTPError as error:
                text = error.read().decode("utf-8", "replace")
                if error.code not in RETRIED or attempt == self.attempts - 1:
                    raise SyncError(f"{method} {path}: {error.code} {text}") from None
                wait = float(error.headers.get("Retry-After") or 0)
            except OSError as error:
                if attempt == self.attempts - 1:
                    raise SyncError(f"{method} {path}: {error}") from None
                wait = 0
            time.sleep(max(wait, min(30, 0.2 * 2 ** attempt) * random.uniform(0.5, 1.5)))

    def version_ids(self):
        """Every version identifier the store lists, in sequence order."""
        ids, cursor = [], None
        while True:
            answer = self.request("GET", "versions" + (f"?after={cursor}" if cursor else ""))
            ids += answer["versionIds"]
            cursor = answer["cursor"]
            if not answer["hasMore"]:
                return ids

    def fetch(self, ids):
        """{id: (version, changes)} of the identifiers, fetched in batches of 1,000."""
        result = {}
        for start in range(0, len(ids), 1000):
            batch = ids[start:start + 1000]
            versions = self.request("POST", "versions/fetch", {"versionIds": batch})["versions"]
            changes = self.request("POST", "changes/fetch", {"versionIds": batch})["changes"]
            by_id = {entry["versionId"]: [decode_change(c) for c in entry["valueChanges"]] for entry in changes}
            for version in versions:
                decoded = decode_version(version)
                result[decoded["identifier"]] = (decoded, by_id.get(decoded["identifier"], []))
        return result

    def push(self, entries):
        """Pushes [(version, changes)], predecessors first; returns the answer."""
        return self.request("POST", "push", {"versions": [{"valueChanges": c, "version": v} for v, c in entries]})


def version_json(record):
    """A version record (section 8) as the Version of section 3."""
    version = {"identifier": record.identifier, "timestamp": record.timestamp}
    if record.predecessors:
        names = ("idOfFirst", "idOfSecond")
        version["predecessors"] = {names[i]: p for i, p in enumerate(record.predecessors)}
    if record.value_data_size is not None:
        version["valueDataSize"] = record.value_data_size
    if record.metadata:
        version["metadata"] = dict(record.metadata)
    return version


def changes_made(store, maps, record):
    """The changes a version made (section 9, "Changes made in a version"), relative to
    its first predecessor, in identifier byte order."""
    own = maps[record.identifier]
    first = maps[record.predecessors[0]] if record.predecessors else {}
    second = maps[record.predecessors[1]] if len(record.predecessors) == 2 else None
    changes = []
    for value_id in sorted(set(own) | set(first), key=utf8):
        if value_id in own:
            storing = own[value_id]
            if storing == record.identifier:
                value = {"data": store.data(VALUES, storing, value_id), "id": value_id, "storedVersionId": storing}
                changes.append({"insert" if value_id not in first else "update": value})
            elif first.get(value_id) != storing:
                changes.append({"preserve": {"storedVersionId": storing, "valueId": value_id}})
        else:
            removal = "preserveRemoval" if second is not None and value_id not in second else "remove"
            changes.append({removal: value_id})
    return changes


def predecessors_first(versions):
    """Identifiers of {id: version} ordered so that each comes after its predecessors."""
    order, placed = [], set()
    pending = sorted(versions, key=utf8)
    while pending:
        ready = [i for i in pending if all(p in placed or p not in versions for p in _predecessors(versions[i]))]
        if not ready:
            raise SyncError("the versions' predecessors form a cycle")
        order += ready
        placed.update(ready)
        pending = [i for i in pending if i not in placed]
    return order


def _predecessors(version):
    p = version.get("predecessors") or {}
    return [p[k] for k in ("idOfFirst", "idOfSecond") if k in p]


def replay(pulled):
    """Applies pulled versions' changes to their first predecessors' maps: {id: (map root
    hash or None, entries {valueId: storing}, derived merge id or None)}."""
    maps, data, result = {}, {}, {}
    for version_id in predecessors_first({i: v for i, (v, _) in pulled.items()}):
        version, changes = pulled[version_id]
        predecessors = _predecessors(version)
        entries = apply_changes(maps[predecessors[0]] if predecessors else {}, changes, version_id, data)
        maps[version_id] = entries
        derived = None
        if len(predecessors) == 2:
            derived = identifier_from_maps(version_id, predecessors, maps[predecessors[0]], maps[predecessors[1]], entries,
                                           lambda value_id: data[(value_id, version_id)], version.get("metadata", {}))
        result[version_id] = (canonical_root(entries.items())[0], entries, derived)
    return result
