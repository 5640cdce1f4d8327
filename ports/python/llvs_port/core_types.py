"""SPEC.md section 3: the JSON forms of values, references, changes, forks and versions.
Each type decodes from parsed JSON with every check section 3 lists (unknown extra keys
ignored, except in a change) into plain Python data, and encodes back to canonical JSON."""
import math

from .binary import FormatError
from .canonical_json import base64_bytes, dumps, loads

CHANGE_CASES = ("insert", "update", "remove", "preserve", "preserveRemoval")
FORK_BRANCH = {"inserted": True, "updated": True, "removed": True, "twiceRemoved": False,
               "twiceInserted": False, "twiceUpdated": False, "removedAndUpdated": True}


def _object(value, what):
    if not isinstance(value, dict):
        raise FormatError(f"{what}: not an object")
    return value


def _string(obj, key, what, optional=False):
    if key not in obj:
        if optional:
            return None
        raise FormatError(f"{what}: no {key!r}")
    if not isinstance(obj[key], str):
        raise FormatError(f"{what}: {key!r} is not a string")
    return obj[key]


def decode_value(obj):
    obj = _object(obj, "Value")
    value = {"id": _string(obj, "id", "Value"), "data": base64_bytes(obj.get("data"), "Value data")}
    stored = _string(obj, "storedVersionId", "Value", optional=True)
    if stored is not None:
        value["storedVersionId"] = stored
    return value


def decode_reference(obj):
    obj = _object(obj, "Value.Reference")
    return {"storedVersionId": _string(obj, "storedVersionId", "Value.Reference"),
            "valueId": _string(obj, "valueId", "Value.Reference")}


def decode_change(obj):
    obj = _object(obj, "Value.Change")
    if len(obj) != 1 or next(iter(obj)) not in CHANGE_CASES:
        raise FormatError(f"Value.Change: needs exactly one of {', '.join(CHANGE_CASES)}; has {sorted(obj)}")
    case, payload = next(iter(obj.items()))
    if case in ("insert", "update"):
        return {case: decode_value(payload)}
    if case == "preserve":
        return {case: decode_reference(payload)}
    if not isinstance(payload, str):
        raise FormatError(f"Value.Change: {case} takes a value identifier string")
    return {case: payload}


def decode_fork(obj):
    obj = _object(obj, "Value.Fork")
    kind = _string(obj, "kind", "Value.Fork")
    if kind not in FORK_BRANCH:
        raise FormatError(f"Value.Fork: unknown kind {kind!r}")
    branch = _string(obj, "branch", "Value.Fork", optional=True)
    if FORK_BRANCH[kind] and branch not in ("first", "second"):
        raise FormatError(f"Value.Fork: {kind} needs a branch, first or second")
    if not FORK_BRANCH[kind] and branch is not None:
        raise FormatError(f"Value.Fork: {kind} takes no branch")
    return {"kind": kind, "branch": branch} if branch else {"kind": kind}


def decode_version(obj):
    obj = _object(obj, "Version")
    identifier = _string(obj, "identifier", "Version")
    timestamp = obj.get("timestamp")
    if isinstance(timestamp, bool) or not isinstance(timestamp, (int, float)) or not math.isfinite(timestamp):
        raise FormatError("Version: no finite timestamp")
    version = {"identifier": identifier, "timestamp": float(timestamp)}
    if "predecessors" in obj and obj["predecessors"] is not None:
        predecessors = _object(obj["predecessors"], "Version predecessors")
        first = _string(predecessors, "idOfFirst", "Version predecessors")
        second = _string(predecessors, "idOfSecond", "Version predecessors", optional=True)
        if second is not None and second == first:
            raise FormatError("Version: the same predecessor twice")
        if identifier in (first, second):
            raise FormatError("Version: its own predecessor")
        version["predecessors"] = {"idOfFirst": first} if second is None else {"idOfFirst": first, "idOfSecond": second}
    if obj.get("valueDataSize") is not None:
        size = obj["valueDataSize"]
        if isinstance(size, bool) or not isinstance(size, int) or size < 0:
            raise FormatError("Version: valueDataSize is not an integer of at least 0")
        version["valueDataSize"] = size
    metadata = _object(obj.get("metadata", {}), "Version metadata")
    if metadata:
        version["metadata"] = {key: base64_bytes(data, f"Version metadata {key!r}") for key, data in metadata.items()}
    return version


DECODERS = {"Value": decode_value, "Value.Reference": decode_reference, "Value.Change": decode_change,
            "Value.Fork": decode_fork, "Version": decode_version}


def decode(type_name, text):
    """The named type decoded from JSON text; raises FormatError when it is not one."""
    return DECODERS[type_name](loads(text))


def encode(value):
    """Canonical JSON of a decoded value of any of the types (bytes become base64)."""
    return dumps(value)
