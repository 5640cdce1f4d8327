"""SPEC.md section 17: models — the stored form (`$version`, members other versions of an
app wrote), recency, merging a value by its strategy (entries, list order, the matching,
the text merge), and merging two stored models.

JSON values are Python's: dicts, lists, strings, ints (exact), floats, booleans, and None,
which is *absent* (a missing key or `null`)."""
import json
import math
from dataclasses import dataclass

from .binary import utf8
from .canonical_json import dumps

INT64_MIN, INT64_MAX = -2 ** 63, 2 ** 63 - 1
MAXIMUM_MODEL_VERSION = 2 ** 53
ERROR_CODES = ("counterOutOfRange", "newerModelVersion", "invalidModelVersion", "notAnObject", "unknownStrategy",
               "invalidSchema")
SCHEMA_PREFIX = "$schema/"
SCHEMA_KINDS = ("integer", "real", "text", "boolean", "date", "json", "value", "reference")


class ModelError(ValueError):
    """A merge or save that fails; ``code`` is one of ``ERROR_CODES`` (the vectors name the
    first three)."""

    def __init__(self, code, message):
        super().__init__(f"{code}: {message}")
        assert code in ERROR_CODES, code
        self.code = code


# JSON values ------------------------------------------------------------------------------

def _read_integer(text):
    # `-0` is the double negative zero (it writes back as `-0`); other integers stay exact.
    return -0.0 if text == "-0" else int(text)


def _read_double(text):
    x = float(text)
    if not math.isfinite(x):
        raise ValueError(f"a number that is not finite: {text}")
    return x


def _refuse_constant(name):
    raise ValueError(f"not JSON: {name}")


def loads(text):
    """Any JSON document: integers exact, `-0` as -0.0, numbers that are not finite
    (`NaN`, `Infinity`, `1e999`) refused with ValueError."""
    return json.loads(text, parse_int=_read_integer, parse_float=_read_double, parse_constant=_refuse_constant)


def canonical(value):
    """Section 2's canonical JSON of a present value, as UTF-8 bytes."""
    return dumps(value).encode("utf-8", "surrogatepass")


def equivalent(x, y):
    """`x ≡ y`: both absent, or both present with the same canonical JSON."""
    if x is None or y is None:
        return x is None and y is None
    return canonical(x) == canonical(y)


def _is_number(x):
    return isinstance(x, (int, float)) and not isinstance(x, bool)


def _as_double(x):
    """An integer as the nearest double (beyond the doubles' range: an infinity)."""
    try:
        return float(x)
    except OverflowError:
        return math.copysign(math.inf, x)


# Strategies -------------------------------------------------------------------------------

SIMPLE = ("threeWay", "counter", "set", "text", "max", "min", "multiValue")
REMOVALS = ("updateWins", "removalWins")


@dataclass(frozen=True)
class Strategy:
    """A merge strategy: ``name`` is the JSON form's `strategy`; a list has ``id_key`` and
    ``element``, a dictionary ``element`` (its `value`), both ``removal``; a model
    ``properties`` {coding key: Strategy}; a custom strategy its function's ``custom`` name."""
    name: str
    id_key: str = None
    element: "Strategy" = None
    removal: str = "updateWins"
    properties: dict = None
    custom: str = None

    def strategy_for(self, key):
        """A model's strategy for a key: the listed one, or `threeWay`."""
        return self.properties.get(key, THREE_WAY)


THREE_WAY = Strategy("threeWay")


def strategy_from_json(obj):
    """A strategy from its JSON form (section 17, Schemas)."""
    if not isinstance(obj, dict):
        raise ModelError("unknownStrategy", f"not a strategy: {obj!r}")
    name = obj.get("strategy")
    if name in SIMPLE:
        return Strategy(name)
    removal = obj.get("removal", "updateWins")
    if name in ("list", "dictionary") and removal not in REMOVALS:
        raise ModelError("unknownStrategy", f"removal rule {removal!r}")
    if name == "list" and isinstance(obj.get("idKey"), str):
        element = strategy_from_json(obj.get("element", {"strategy": "threeWay"}))
        return Strategy("list", id_key=obj["idKey"], element=element, removal=removal)
    if name == "dictionary":
        value = strategy_from_json(obj.get("value", {"strategy": "threeWay"}))
        return Strategy("dictionary", element=value, removal=removal)
    if name == "model" and isinstance(obj.get("properties", {}), dict):
        return Strategy("model", properties={k: strategy_from_json(s) for k, s in obj.get("properties", {}).items()})
    if name == "custom" and isinstance(obj.get("name"), str):
        return Strategy("custom", custom=obj["name"])
    raise ModelError("unknownStrategy", f"not a strategy: {obj!r}")


def schema_strategy(schema):
    """A model type's merge schema ({"properties": {KEY: strategy}}) as a `model` strategy."""
    return strategy_from_json({"strategy": "model", "properties": (schema or {}).get("properties", {})})


def counts_equal_changes(strategy):
    """Step 1's exception: `counter`, or a list, dictionary or model with such a strategy
    inside."""
    if strategy.name == "counter":
        return True
    if strategy.name in ("list", "dictionary"):
        return counts_equal_changes(strategy.element)
    if strategy.name == "model":
        return any(counts_equal_changes(s) for s in strategy.properties.values())
    return False


def longer(base, newer, older):
    """The vectors' custom strategy `longer`: the string with more Unicode scalars, the
    newer on a tie; the newer when one is not a string."""
    if isinstance(newer, str) and isinstance(older, str) and len(older) > len(newer):
        return older
    return newer


CUSTOM = {"longer": longer}


# Recency ----------------------------------------------------------------------------------

@dataclass(frozen=True)
class Side:
    """One side of a merge: its value (None: absent) and its storing version's identifier
    and timestamp."""
    value: object
    version: str
    timestamp: float


def by_recency(first, second):
    """(newer, older): the later timestamp, then the greater identifier by UTF-8 bytes."""
    if (float(second.timestamp), utf8(second.version)) > (float(first.timestamp), utf8(first.version)):
        return second, first
    return first, second


# Merging a value --------------------------------------------------------------------------

def merge_sides(base, first, second, strategy, custom=CUSTOM):
    """`M(b, n, o, s)` with the newer and older of two Sides."""
    newer, older = by_recency(first, second)
    return merge_value(base, newer.value, older.value, strategy, custom)


def merge_value(b, n, o, s, custom=CUSTOM):
    """`M(b, n, o, s)`, steps 1–5 ("Merging a value"); None is absent."""
    if equivalent(n, o):
        if not (counts_equal_changes(s) and n is not None and not equivalent(n, b)):
            return n
    elif equivalent(o, b):
        return n
    elif equivalent(n, b):
        return o
    elif n is None or o is None:
        return o if n is None else n
    return _STRATEGIES[s.name](b, n, o, s, custom)


def _three_way(b, n, o, s, custom):
    return n


def _counter(b, n, o, s, custom):
    """`n + o − b` (b absent = 0): exact for integers within −2⁶³…2⁶³−1, else in doubles."""
    b = 0 if b is None else b
    if not all(_is_number(x) for x in (b, n, o)):
        return n
    if all(isinstance(x, int) for x in (b, n, o)):
        total = n + o - b
        if not INT64_MIN <= total <= INT64_MAX:
            raise ModelError("counterOutOfRange", f"{n} + {o} - {b} is outside 64 bits")
        return total
    if any(isinstance(x, int) and not INT64_MIN <= x <= INT64_MAX for x in (b, n, o)):
        raise ModelError("counterOutOfRange", "an integer operand beyond 64 bits")
    total = (float(n) + float(o)) - float(b)
    if not math.isfinite(total):
        raise ModelError("counterOutOfRange", f"({n} + {o}) - {b} is not finite")
    return total


def _by_canonical(array):
    """{canonical JSON: the first element with it}."""
    found = {}
    for element in array:
        found.setdefault(canonical(element), element)
    return found


def _set_merge(b, n, o):
    """The elements in both `n` and `o`, or in one and not in `b`; once each, in canonical
    byte order."""
    in_b, in_n, in_o = _by_canonical(b), _by_canonical(n), _by_canonical(o)
    kept = {key: value for key, value in list(in_o.items()) + list(in_n.items())
            if (key in in_n and key in in_o) or key not in in_b}
    return [kept[key] for key in sorted(kept)]


def _arrays(b, n, o):
    return isinstance(n, list) and isinstance(o, list) and (b is None or isinstance(b, list))


def _set(b, n, o, s, custom):
    if not _arrays(b, n, o):
        return n
    return _set_merge(b or [], n, o)


def _multi_value(b, n, o, s, custom):
    """As `set`; when that is empty, every element of both sides."""
    if not _arrays(b, n, o):
        return n
    return _set_merge(b or [], n, o) or _set_merge([], n, o)


def _text(b, n, o, s, custom):
    if not (isinstance(b, str) and isinstance(n, str) and isinstance(o, str)):
        return n
    return merge_text(b, n, o)


def _compare(x, y):
    """-1, 0 or 1: two integers exactly, a double and a number as doubles, two strings by
    UTF-8 bytes."""
    if isinstance(x, str):
        x, y = utf8(x), utf8(y)
    elif not (isinstance(x, int) and isinstance(y, int)):
        x, y = _as_double(x), _as_double(y)
    return (x > y) - (x < y)


def _extreme(b, n, o, s, custom):
    """`max`/`min` of two numbers or two strings; `n` when equal."""
    if not ((_is_number(n) and _is_number(o)) or (isinstance(n, str) and isinstance(o, str))):
        return n
    order = _compare(o, n)
    return o if (order > 0 if s.name == "max" else order < 0) else n


def _identifiers(array, id_key):
    """The identifier of each element (the canonical JSON text of its `id_key` member), or
    None when the array is not one of objects with unique, non-null identifiers."""
    if not isinstance(array, list):
        return None
    identifiers = []
    for element in array:
        if not isinstance(element, dict) or element.get(id_key) is None:
            return None
        identifiers.append(dumps(element[id_key]))
    return identifiers if len(set(identifiers)) == len(identifiers) else None


def _entries(b, n, o, s, custom):
    """Entries ({identifier or key: value}) merged one by one with `s.element`, under
    `s.removal`; absent results left out."""
    merged = {}
    for key in list(dict.fromkeys([*b, *n, *o])):
        B, N, O = b.get(key), n.get(key), o.get(key)
        if B is not None and (N is None) != (O is None):
            if equivalent(N if O is None else O, B) or s.removal == "removalWins":
                continue
        value = merge_value(B, N, O, s.element, custom)
        if value is not None:
            merged[key] = value
    return merged


def _list(b, n, o, s, custom):
    """Elements merged by identifier, in the list order."""
    n_ids, o_ids = _identifiers(n, s.id_key), _identifiers(o, s.id_key)
    b_ids = None if b is None else _identifiers(b, s.id_key)
    if n_ids is None or o_ids is None or (b is not None and b_ids is None):
        return n
    merged = _entries(dict(zip(b_ids or [], b or [])), dict(zip(n_ids, n)), dict(zip(o_ids, o)), s, custom)
    return [merged[i] for i in list_order(b_ids, n_ids, o_ids, merged)]


def _dictionary(b, n, o, s, custom):
    if not (isinstance(n, dict) and isinstance(o, dict) and (b is None or isinstance(b, dict))):
        return n
    return _entries(b or {}, n, o, s, custom)


def _model(b, n, o, s, custom):
    """Per key in any of the three: `M(b[k], n[k], o[k], S(k))`; absent results left out."""
    if not (isinstance(n, dict) and isinstance(o, dict) and (b is None or isinstance(b, dict))):
        return n
    b = b or {}
    merged = {}
    for key in dict.fromkeys([*b, *n, *o]):
        value = merge_value(b.get(key), n.get(key), o.get(key), s.strategy_for(key), custom)
        if value is not None:
            merged[key] = value
    return merged


def _custom(b, n, o, s, custom):
    if s.custom not in custom:
        raise ModelError("unknownStrategy", f"no custom strategy named {s.custom!r}")
    return custom[s.custom](b, n, o)


_STRATEGIES = {"threeWay": _three_way, "counter": _counter, "set": _set, "multiValue": _multi_value,
               "text": _text, "max": _extreme, "min": _extreme, "list": _list,
               "dictionary": _dictionary, "model": _model, "custom": _custom}


# Matching, list order, text merge ---------------------------------------------------------

def matching(a, b):
    """Section 17, Matching: pairs (i, j) with a[i] == b[j], both increasing — the common
    prefix, the common suffix of what remains, then Myers' greedy algorithm on the rest
    (nothing of the rest when it needs more than min(1000, 10,000,000 // (n + m)) steps)."""
    n, m = len(a), len(b)
    prefix = 0
    while prefix < n and prefix < m and a[prefix] == b[prefix]:
        prefix += 1
    suffix = 0
    while suffix < n - prefix and suffix < m - prefix and a[n - 1 - suffix] == b[m - 1 - suffix]:
        suffix += 1
    middle = _myers(a[prefix:n - suffix], b[prefix:m - suffix])
    return ([(i, i) for i in range(prefix)]
            + [(prefix + i, prefix + j) for i, j in middle]
            + [(n - suffix + i, m - suffix + i) for i in range(suffix)])


def _myers(a, b):
    """Myers' greedy algorithm with section 17's choice of step, traced back to the
    diagonal steps."""
    n, m = len(a), len(b)
    if n == 0 or m == 0:
        return []
    limit = min(1000, 10_000_000 // (n + m))
    v = {1: 0}
    before = []  # before[d]: V as step d found it
    for d in range(limit + 1):
        before.append(dict(v))
        for k in range(-d, d + 1, 2):
            x = v[k + 1] if k == -d or (k != d and v[k - 1] < v[k + 1]) else v[k - 1] + 1
            y = x - k
            while x < n and y < m and a[x] == b[y]:
                x, y = x + 1, y + 1
            v[k] = x
            if x >= n and y >= m:
                return _trace_back(before, d, x, y)
    return []


def _trace_back(before, d, x, y):
    pairs = []
    while d > 0:
        v, k = before[d], x - y
        down = k == -d or (k != d and v[k - 1] < v[k + 1])
        previous = k + 1 if down else k - 1
        px = v[previous]
        py = px - previous
        start_x = px if down else px + 1  # where the step ends and the diagonal begins
        while x > start_x:
            x, y = x - 1, y - 1
            pairs.append((x, y))
        x, y, d = px, py, d - 1
    while x > 0:
        x, y = x - 1, y - 1
        pairs.append((x, y))
    pairs.reverse()
    return pairs


NEWER, OLDER = 0, 1


def _moved(base_ids, side_ids, in_base):
    """The base's identifiers a side holds that are outside the matching of them in base
    order with them in the side's order."""
    held = set(side_ids)
    in_base_order = [i for i in base_ids if i in held]
    in_side_order = [i for i in side_ids if i in in_base]
    return set(in_base_order) - {in_base_order[i] for i, _ in matching(in_base_order, in_side_order)}


def list_order(base_ids, newer_ids, older_ids, surviving):
    """Section 17, List order: the surviving identifiers — the skeleton, each followed by
    the elements placed after it (the older side's first, then the newer's, depth first)."""
    sides = (newer_ids, older_ids)
    held = (set(newer_ids), set(older_ids))
    if base_ids is None:
        skeleton = [i for i in newer_ids if i in held[OLDER] and i in surviving]
        moved = (set(), set())
    else:
        in_base = set(base_ids)
        moved = (_moved(base_ids, newer_ids, in_base), _moved(base_ids, older_ids, in_base))
        skeleton = [i for i in base_ids if i in surviving and i not in moved[NEWER] and i not in moved[OLDER]]
    in_skeleton = set(skeleton)
    placer = {}
    for i in surviving:
        if i in in_skeleton:
            continue
        if base_ids is not None and i in in_base:
            side = NEWER if i in moved[NEWER] else OLDER
        else:
            side = NEWER if i in held[NEWER] else OLDER
        placer[i] = side if i in held[side] else 1 - side
    placed_after = {}  # anchor (None: the start) -> its placed elements
    for side in (OLDER, NEWER):
        anchor = None
        for i in sides[side]:
            if placer.get(i) == side:
                placed_after.setdefault(anchor, []).append(i)
            if i in in_skeleton or placer.get(i) == side:
                anchor = i
    order = []
    for root in [None] + skeleton:
        if root is not None:
            order.append(root)
        stack = list(reversed(placed_after.get(root, [])))
        while stack:
            i = stack.pop()
            order.append(i)
            stack.extend(reversed(placed_after.get(i, [])))
    return order


def _settle(base, newer, older):
    """An unstable part: the older piece when the newer did not change the base's, else the
    newer piece when the older did not or both agree; a conflict keeps older + newer when
    both inserted at one place, else the newer."""
    if newer == base:
        return older
    if older == base or newer == older:
        return newer
    return older + newer if not base else newer


def merge_text(base, newer, older):
    """Section 17, Text merge: diff3 on Unicode scalars (Python's str is a sequence of them)."""
    to_newer, to_older = dict(matching(base, newer)), dict(matching(base, older))
    out = []
    b = n = o = 0
    while True:
        start = b
        while b < len(base) and to_newer.get(b) == n and to_older.get(b) == o:
            b, n, o = b + 1, n + 1, o + 1
        if b > start:
            out.append(base[start:b])
            continue
        j = b
        while j < len(base) and not (j in to_newer and j in to_older):
            j += 1
        jn, jo = (to_newer[j], to_older[j]) if j < len(base) else (len(newer), len(older))
        if j == b and jn == n and jo == o:
            break  # all three at their ends
        out.append(_settle(base[b:j], newer[n:jn], older[o:jo]))
        b, n, o = j, jn, jo
    return "".join(out)


# Model merges and the stored form ---------------------------------------------------------

VERSION_KEY = "$version"


def model_version(obj):
    """A stored object's `$version`: absent means 1; otherwise an integer from 1 to 2⁵³
    (`invalidModelVersion`)."""
    if not isinstance(obj, dict):
        raise ModelError("notAnObject", "a stored model is not a JSON object")
    version = obj.get(VERSION_KEY)
    if version is None:
        return 1
    if not _is_number(version) or (isinstance(version, float) and not version.is_integer()) \
            or not 1 <= version <= MAXIMUM_MODEL_VERSION:
        raise ModelError("invalidModelVersion", f"$version {version!r} is not an integer from 1 to 2^53")
    return int(version)


def _readable(obj, reader_version):
    """The object's `$version`, refused (`newerModelVersion`) when above the reader's."""
    version = model_version(obj)
    if version > reader_version:
        raise ModelError("newerModelVersion", f"$version {version} is above the reader's {reader_version}")
    return version


def _without_version(obj):
    return {k: v for k, v in obj.items() if k != VERSION_KEY}


def merge_models(base, first, second, schema, reader_version, custom=CUSTOM):
    """Section 17, Model merges: two stored models (Sides) against the base (None: none).
    Returns the merged object and the Side whose stored object it equals (the newer checked
    first), or None when it is new data."""
    newer, older = by_recency(first, second)
    if base is not None:
        _readable(base, reader_version)
    version = max(_readable(newer.value, reader_version), _readable(older.value, reader_version))
    merged = _model(None if base is None else _without_version(base), _without_version(newer.value),
                    _without_version(older.value), schema_strategy(schema), custom)
    if version > 1:
        merged[VERSION_KEY] = version
    for side in (newer, older):
        if canonical(merged) == canonical(side.value):
            return merged, side
    return merged, None


def _keep_members(existing, encoded, strategy, known_keys=None):
    """The encoding with the members of the stored value it does not encode: keys not in
    ``known_keys`` (None: keys the encoding lacks), within nested models (whose own schema's
    keys are their known keys), list elements (by identifier, those the encoding holds) and
    dictionary entries (by key) their strategy reaches."""
    if strategy.name == "model" and isinstance(existing, dict) and isinstance(encoded, dict):
        kept = {}
        for key, value in encoded.items():
            inner = strategy.strategy_for(key)
            inner_known = set(inner.properties) if inner.name == "model" else None
            kept[key] = _keep_members(existing[key], value, inner, inner_known) if key in existing else value
        for key, value in existing.items():
            if key not in encoded and (known_keys is None or key not in known_keys):
                kept[key] = value
        return kept
    if strategy.name in ("list", "dictionary") and strategy.element.name == "model":
        element_known = set(strategy.element.properties)
    else:
        element_known = None
    if strategy.name == "list" and isinstance(existing, list) and isinstance(encoded, list):
        stored = {}
        for element in existing:
            if isinstance(element, dict) and element.get(strategy.id_key) is not None:
                stored.setdefault(dumps(element[strategy.id_key]), element)
        kept = []
        for element in encoded:
            identified = isinstance(element, dict) and element.get(strategy.id_key) is not None
            key = dumps(element[strategy.id_key]) if identified else None
            kept.append(_keep_members(stored[key], element, strategy.element, element_known) if key in stored else element)
        return kept
    if strategy.name == "dictionary" and isinstance(existing, dict) and isinstance(encoded, dict):
        return {key: _keep_members(existing[key], value, strategy.element, element_known) if key in existing else value
                for key, value in encoded.items()}
    return encoded


def stored_form(encoded, reader_version, known_keys=None, schema=None, existing=None):
    """Section 17, Stored form, of a save: the type's encoding with `$version` (left out
    when 1), and, replacing ``existing`` (None: nothing stored), the stored members it does
    not encode.
    A stored `$version` above the reader's fails (`newerModelVersion`), one that is not an
    integer from 1 to 2⁵³ too (`invalidModelVersion`)."""
    form = _without_version(encoded)
    if existing is not None:
        _readable(existing, reader_version)
        form = _keep_members(_without_version(existing), form, schema_strategy(schema),
                             None if known_keys is None else set(known_keys))
    if reader_version > 1:
        form[VERSION_KEY] = reader_version
    return form


# Recorded schemas -------------------------------------------------------------------------

def read_schema(text):
    """Section 17, Recorded schemas: the schema recorded as ``text`` (the value
    `$schema/TYPE`), as ``{"type", "modelVersion", "properties": [{"name", "kind"[, "target"]}]}``;
    a kind this reader does not know reads as `value`. Raises ModelError `invalidSchema` for a
    value that is no schema."""
    def invalid(reason):
        return ModelError("invalidSchema", reason)
    try:
        obj = loads(text)
    except ValueError:
        raise invalid("not JSON") from None
    if not isinstance(obj, dict):
        raise invalid("not a JSON object")
    kind_of_type = obj.get("type")
    if not isinstance(kind_of_type, str) or kind_of_type == "":
        raise invalid("no type")
    version = obj.get("modelVersion")
    if isinstance(version, bool) or not isinstance(version, int) or not 1 <= version <= MAXIMUM_MODEL_VERSION:
        raise invalid("no model version from 1 to 2^53")
    entries = obj.get("properties")
    if not isinstance(entries, list):
        raise invalid("no properties")
    properties = []
    for entry in entries:
        if not isinstance(entry, dict) or not isinstance(entry.get("name"), str) or not isinstance(entry.get("kind"), str):
            raise invalid("a property without a name and a kind")
        kind = entry["kind"] if entry["kind"] in SCHEMA_KINDS else "value"
        prop = {"name": entry["name"], "kind": kind}
        if kind == "reference":
            if not isinstance(entry.get("target"), str):
                raise invalid(f"reference {entry['name']!r} names no target")
            prop["target"] = entry["target"]
        properties.append(prop)
    return {"type": kind_of_type, "modelVersion": version, "properties": properties}
