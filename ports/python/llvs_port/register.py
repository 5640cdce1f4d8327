"""SPEC.md section 16: multi-value registers — their canonical JSON, the checks a reader
makes, writes, the join, and reading."""
import math
import re

from .binary import FormatError, utf8
from .canonical_json import base64_bytes, dumps, loads

# Counters are integers 0 to 2^53, the range every JSON reader holds exactly (sections 2, 16).
MAXIMUM_COUNTER = 2 ** 53
KINDS = {"text": "text", "json": "text", "blob": "blob", "tombstone": None}
UUID_TEXT = re.compile(r"[0-9A-Fa-f]{8}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{12}")


def _entry(obj):
    if not isinstance(obj, dict):
        raise FormatError("register entry: not an object")
    actor, counter = obj.get("actor"), obj.get("counter")
    if not isinstance(actor, str) or isinstance(counter, bool) or not isinstance(counter, int) or not 0 <= counter <= MAXIMUM_COUNTER:
        raise FormatError("register entry: needs an actor string and a counter")
    author = obj.get("author")
    if not isinstance(author, str) or not UUID_TEXT.fullmatch(author):
        raise FormatError("register entry: the author is not a UUID (8-4-4-4-12 hexadecimal digits)")
    author = author.upper()
    timestamp = obj.get("timestamp")
    if isinstance(timestamp, bool) or not isinstance(timestamp, (int, float)) or not math.isfinite(timestamp):
        raise FormatError("register entry: no finite timestamp")
    kind = obj.get("kind")
    if kind not in KINDS:
        raise FormatError(f"register entry: unknown kind {kind!r}")
    entry = {"actor": actor, "author": author, "counter": counter, "kind": kind, "timestamp": float(timestamp)}
    field = KINDS[kind]
    if field == "text":
        if not isinstance(obj.get("text"), str):
            raise FormatError(f"register entry: a {kind} entry without its text")
        entry["text"] = obj["text"]
    elif field == "blob":
        entry["blob"] = base64_bytes(obj.get("blob"), "register entry blob")
    return entry


def _order(entries):
    """Entries by dot (actor bytes, counter), then by canonical JSON."""
    return sorted(entries, key=lambda e: (utf8(e["actor"]), e["counter"], utf8(dumps(e))))


def decode(text):
    """A register from JSON; raises FormatError when it is not one or is corrupt (an
    entry whose dot its context has not seen)."""
    obj = loads(text)
    if not isinstance(obj, dict) or not isinstance(obj.get("context"), dict) or not isinstance(obj.get("entries"), list):
        raise FormatError("register: needs a context object and an entries list")
    context = {}
    for actor, counter in obj["context"].items():
        if isinstance(counter, bool) or not isinstance(counter, int) or not 0 <= counter <= MAXIMUM_COUNTER:
            raise FormatError(f"register: context counter of {actor!r} is not an integer 0 to 2^53")
        context[actor] = counter
    entries = _order(_entry(e) for e in obj["entries"])
    for entry in entries:
        if context.get(entry["actor"], 0) < entry["counter"]:
            raise FormatError(f"register: entry {entry['actor']}#{entry['counter']} is missing from its context")
    return {"context": context, "entries": entries}


def encode(register):
    return dumps({"context": register["context"], "entries": _order(register["entries"])})


def seen(register, entry):
    return register["context"].get(entry["actor"], 0) >= entry["counter"]


def join(x, y):
    """Each side's entries whose dot the other holds or has not seen; contexts by maximum."""
    x_dots = {(e["actor"], e["counter"]) for e in x["entries"]}
    y_dots = {(e["actor"], e["counter"]) for e in y["entries"]}
    kept = {dumps(e): e for e in x["entries"] if (e["actor"], e["counter"]) in y_dots or not seen(y, e)}
    kept.update({dumps(e): e for e in y["entries"] if (e["actor"], e["counter"]) in x_dots or not seen(x, e)})
    context = dict(x["context"])
    for actor, counter in y["context"].items():
        context[actor] = max(context.get(actor, 0), counter)
    return {"context": context, "entries": _order(kept.values())}


def write(register, actor, author, timestamp, payload):
    """The register after `actor` writes `payload` ({"kind": …, "text"/"blob": …})."""
    counter = register["context"].get(actor, 0) + 1
    entry = dict(payload, actor=actor, author=author, counter=counter, timestamp=float(timestamp))
    return {"context": dict(register["context"], **{actor: counter}), "entries": [entry]}


def read(register):
    """The live entries, by timestamp, then author."""
    return sorted((e for e in register["entries"] if e["kind"] != "tombstone"), key=lambda e: (e["timestamp"], e["author"]))
