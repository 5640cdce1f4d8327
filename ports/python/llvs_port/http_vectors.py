"""conformance/http/api.json: an ordered script of requests to the HTTP sync API (SPEC.md
section 15) and the answers SPEC.md requires, against one fresh, empty store (and a few
against other store names or without a token); and the runner that plays it against a
live server.

`python3 -m llvs_port http-vectors DIR` writes DIR/api.json; `python3 -m llvs_port
http-check STORE_BASE_URL` (`http://HOST:PORT/v1/stores`, token from $LLVS_TOKEN) plays
it against a fresh store of a random name, prints a line per case whose answer differs
and exits 1 when any does.

A case: `name`, `method`, `path` (under the store URL `/v1/stores/{store}`, or absolute
when it starts with `/`), `token` (`valid` unless `none` or `wrong`), a request body as
exact text (`body`; `canonical` is true when an encoder made it, canonical JSON of section
2, and false for text written by hand)
or bytes (`bodyHex`), and `expect`: `status`, and one of `body` (the exact text, canonical
JSON), `bodyOneOf`, `bodyHex` (exact bytes; "" for none) or `error` (the body is
`{"error":CODE,"message":TEXT}` in canonical JSON, any TEXT); optionally `anyOrder` (the
key of the body's array whose elements may come in any order), `headers` (each must be
present with exactly this value), `sameBodyAs` (an earlier case's answer must have the
same bytes), `minSeconds` (the answer comes no sooner) and `maxSeconds` (nor later: a
long poll that must answer at once is given a longer timeout).

Placeholders: `{store}` is the fresh store's name, exactly 32 characters of `a-z 0-9 -`
(so `{store}` plus 32 more characters is one too many); `{identity}` is the store's
identity, a UUID (8-4-4-4-12 hex digits) that the runner learns from the first answer
expected to hold it and substitutes from then on, in requests and answers, so a store
that changed its identity fails."""
import base64
import json
import os
import re
import secrets
import sys
import time
import urllib.error
import urllib.request

from .binary import sha256
from .canonical_json import dumps
from .core_types import decode_change, decode_version

IDENTITY = "{identity}"
FOREIGN = "00000000-0000-0000-0000-000000000000"
STORE_NAME_LENGTH = 32
EMPTY_LISTING = dumps({"cursor": "empty.0", "hasMore": False, "isCompleteListing": True, "versionIds": []})
UNAUTHORIZED = {"status": 401, "error": "unauthorized", "headers": {"WWW-Authenticate": 'Bearer realm="llvs"'}}
T0 = 785000000.125
LONG = "é" * 128            # 256 UTF-8 bytes in 128 characters
TOO_LONG = LONG + "x"       # 257 UTF-8 bytes in 129 characters (and 129 UTF-16 units)
LONG_VALUE = "\U0001F600" * 64  # 256 UTF-8 bytes in 64 characters


def cursor(sequence):
    return f"{IDENTITY}.{sequence}"


def version(identifier, timestamp, predecessors=(), size=None, metadata=None):
    v = {"identifier": identifier, "timestamp": timestamp}
    if predecessors:
        v["predecessors"] = dict(zip(("idOfFirst", "idOfSecond"), predecessors))
    if size is not None:
        v["valueDataSize"] = size
    if metadata:
        v["metadata"] = {k: base64.b64encode(d).decode("ascii") for k, d in metadata.items()}
    return v


def value(case, version_id, value_id, data):
    return {case: {"data": base64.b64encode(data).decode("ascii"), "id": value_id, "storedVersionId": version_id}}


class Canonical(str):
    """A request body made by the canonical encoder (the case says `"canonical": true`);
    other bodies are text written by hand, sent exactly as written."""


def encoded(obj):
    return Canonical(dumps(obj))


def push_body(entries):
    return encoded({"versions": [{"valueChanges": c, "version": v} for v, c in entries]})


def ids_body(ids):
    return encoded({"versionIds": list(ids)})


class Script:
    """The cases, and what the store holds after each (to compute the answers SPEC.md
    section 15 requires: sequence numbers in push order, listings, fetches)."""

    def __init__(self):
        self.cases = []
        self.ids = []
        self.records = {}
        self.changes = {}

    def case(self, name, method, path, expect, body=None, body_hex=None, token=None):
        case = {"name": name, "method": method, "path": path}
        if token:
            case["token"] = token
        if body is not None:
            case["body"] = str(body)
            case["canonical"] = isinstance(body, Canonical)
        if body_hex is not None:
            case["bodyHex"] = body_hex
        case["expect"] = expect
        self.cases.append(case)

    def ok(self, name, method, path, answer, **request):
        self.case(name, method, path, {"status": 200, "body": answer}, **request)

    def error(self, name, method, path, status, code, **request):
        self.case(name, method, path, {"status": status, "error": code}, **request)

    # The store as SPEC.md describes it.

    def cursor(self):
        return cursor(len(self.ids)) if self.ids else "empty.0"

    def push(self, name, entries, body=None):
        """A push the server must take: versions already stored with the same record are
        counted, the others numbered in push order."""
        if body is not None:  # the text sent must mean these versions
            sent = [(e["version"], e["valueChanges"]) for e in json.loads(body)["versions"]]
            assert [(dumps(decode_version(v)), dumps([decode_change(x) for x in c])) for v, c in sent] == \
                [(dumps(decode_version(v)), dumps([decode_change(x) for x in c])) for v, c in entries], name
        added, present = [], 0
        for v, c in entries:
            record, changes = dumps(decode_version(v)), dumps([decode_change(x) for x in c])
            if v["identifier"] in self.records:
                assert self.records[v["identifier"]] == record, name
                present += 1
            else:
                self.ids.append(v["identifier"])
                self.records[v["identifier"]], self.changes[v["identifier"]] = record, changes
                added.append(v["identifier"])
        answer = dumps({"added": added, "alreadyPresentCount": present, "cursor": self.cursor()})
        self.ok(name, "POST", "push", answer, body=body if body is not None else push_body(entries))

    def listing(self, name, query="", start=0, limit=10_000):
        shown = self.ids[start:start + limit]
        answer = dumps({"cursor": cursor(start + len(shown)), "hasMore": start + len(shown) < len(self.ids),
                        "isCompleteListing": start == 0, "versionIds": shown})
        self.ok(name, "GET", "versions" + query, answer)

    def fetch(self, name, ids, body=None):
        stored = [i for i in ids if i in self.records]
        answer = '{"versions":[' + ",".join(self.records[i] for i in stored) + "]}"
        self.case(name, "POST", "versions/fetch", {"status": 200, "body": answer, "anyOrder": "versions"},
                  body=body if body is not None else ids_body(ids))

    def fetch_changes(self, name, ids):
        stored = [i for i in ids if i in self.records]
        answer = '{"changes":[' + ",".join('{"valueChanges":' + self.changes[i] + ',"versionId":' + dumps(i) + "}"
                                           for i in stored) + "]}"
        self.case(name, "POST", "changes/fetch", {"status": 200, "body": answer, "anyOrder": "changes"}, body=ids_body(ids))

    def events(self, name, query, available, wait=None, within=None):
        expect = {"status": 200, "body": dumps({"cursor": self.cursor(), "newVersionsAvailable": available})}
        if wait:
            expect["minSeconds"] = wait
        if within:
            expect["maxSeconds"] = within
        self.case(name, "GET", "events" + query, expect)


def parse(text):
    """JSON text parsed with integers kept as integers, and -0 kept negative (so that
    canonical text re-encodes to itself)."""
    return json.loads(text, parse_int=lambda digits: -0.0 if digits == "-0" else int(digits))


def manifest(snapshot_id, chunks, latest, **changes):
    whole = b"".join(chunks)
    m = {"snapshotId": snapshot_id, "format": "llvs-file-store-archive-1", "createdAt": 785000100.5,
         "latestVersionId": latest, "versionCount": 6, "chunkCount": len(chunks), "chunkSize": len(chunks[0]),
         "totalSize": len(whole), "chunkChecksums": [sha256(c).hex() for c in chunks], "sha256": sha256(whole).hex()}
    m.update(changes)
    return m


def cases():
    s = Script()
    token_first = "no token: 401 with WWW-Authenticate"

    # A fresh store, and who may open it.
    s.case("GET /health needs no token", "GET", "/health",
           {"status": 200, "bodyOneOf": [dumps({"status": "ok", "storage": k}) for k in ("postgres", "sqlite", "store")]},
           token="none")
    s.ok("a fresh store lists nothing, cursor empty.0", "GET", "versions", EMPTY_LISTING)
    s.events("a fresh store has no events", "?timeout=0", False)
    s.ok("a fresh store fetches no versions", "POST", "versions/fetch", '{"versions":[]}', body=ids_body(["V1"]))
    s.ok("a fresh store fetches no changes", "POST", "changes/fetch", '{"changes":[]}', body=ids_body(["V1"]))
    s.error("a fresh store has no snapshot", "GET", "snapshots/latest", 404, "noSnapshot")
    v1 = version("V1", T0, size=10)
    c1 = [value("insert", "V1", "a", b"hello"), value("insert", "V1", "b", b"world")]
    s.case(token_first, "GET", "versions", UNAUTHORIZED, token="none")
    same = dict(UNAUTHORIZED, sameBodyAs=token_first)
    s.case("a wrong token: the same 401", "GET", "versions", same, token="wrong")
    s.case("no token, a store nobody made: the same 401", "GET", "/v1/stores/{store}-nobody/versions", same, token="none")
    s.case("a wrong token is checked before the store name", "GET", "/v1/stores/.{store}/versions", same, token="wrong")
    s.case("a wrong token is checked before the cursor", "GET", "versions?after=garbage", same, token="wrong")
    s.case("a wrong token is checked before the limit", "GET", "versions?limit=-1", same, token="wrong")
    s.case("a wrong token is checked before the body", "POST", "push", same, body="not json", token="wrong")
    s.case("a push without a token", "POST", "push", same, body=push_body([(v1, c1)]), token="none")
    s.case("a chunk without a token", "PUT", "snapshots/snapA/chunks/0", same, body_hex="00ff", token="none")
    s.case("the snapshot of a fresh store without a token", "GET", "snapshots/latest", same, token="none")
    s.ok("pushes refused for their token stored nothing", "GET", "versions", EMPTY_LISTING)
    s.error("chunks refused for their token were not stored", "GET", "snapshots/snapA/chunks/0", 404, "noSnapshot")

    # Store names: 1-64 of A-Z a-z 0-9 . _ -, not starting with a dot.
    s.error("a store name starting with a dot", "GET", "/v1/stores/.{store}/versions", 400, "invalidStoreName")
    s.error("a store name of 65 characters", "GET", "/v1/stores/{store}-" + "x" * 32 + "/versions", 400, "invalidStoreName")
    s.ok("a store name of 64 characters", "GET", "/v1/stores/{store}-" + "x" * 31 + "/versions", EMPTY_LISTING)
    s.ok("a store name with dots, underscores and capitals", "GET", "/v1/stores/{store}.B_c/versions", EMPTY_LISTING)
    s.error("a store name with a space", "GET", "/v1/stores/a%20b/versions", 400, "invalidStoreName")
    s.error("a store name with a non-ASCII letter", "GET", "/v1/stores/caf%C3%A9/versions", 400, "invalidStoreName")
    s.error("a store name with a colon", "GET", "/v1/stores/a:b/versions", 400, "invalidStoreName")
    s.error("a store name with a plus", "GET", "/v1/stores/a+b/snapshots/latest", 400, "invalidStoreName")

    # Pushes: predecessors first, numbered in push order; stored ones counted.
    s.push("push an initial version", [(v1, c1)])
    s.push("push it again: already present", [(v1, c1)])
    s.listing("the listing holds it")
    v2 = version("V2", T0 + 1, ["V1"], size=5)
    c2 = [value("update", "V2", "a", b"HELLO")]
    v3 = version("V3", T0 + 2, ["V2"], size=0)
    c3 = [{"remove": "b"}]
    s.push("push two versions, the second on the first", [(v2, c2), (v3, c3)])
    v4 = version("V4", T0 + 3, ["V3"], size=4)
    c4 = [value("insert", "V4", "c", b"\x00\x01\xfe\xff")]
    s.push("push one already stored and one new", [(v3, c3), (v4, c4)])
    s.push("an identical record written otherwise is already present", [(v1, c1)], body=(
        '{ "versions" : [ { "version" : { "valueDataSize" : 10, "timestamp" : 7.85000000125E8, "identifier" : "\\u0056\\u0031" },\n'
        '  "valueChanges" : [ {"insert": {"storedVersionId": "V1", "id": "a", "data": "aGVsbG8="}},\n'
        '  {"insert": {"storedVersionId": "V1", "id": "b", "data": "d29ybGQ="}} ] } ] }\n'))
    v5 = version("V5", -0.5, ["V1"], size=3, metadata={"__llvs_branch": b'"draft"', "note": b"\x00\xff"})
    c5 = [value("insert", "V5", "d\U0001F600/", b"\x01\x02\x03")]
    s.push("a push in valid JSON that is not canonical, with an unknown key", [(v5, c5)], body=(
        '{"versions":[{"valueChanges":[{"insert":{"storedVersionId":"V5","id":"d\\ud83d\\ude00\\/","data":"AQID"}}],\r\n'
        '"version":{"predecessors":{"idOfFirst":"V1"},"timestamp":-5e-1,"valueDataSize":3,"identifier":"V5",'
        '"unknownKey":{"ignored":[1,2]},"metadata":{"note":"AP8=","__llvs_branch":"ImRyYWZ0Ig=="}}}]}'))
    s.fetch("its record comes back canonical, without the unknown key", ["V5"])
    s.fetch_changes("its changes come back canonical", ["V5"])
    v6 = version("V6", T0 + 10, ["V4", "V5"], size=2)
    c6 = [{"preserve": {"storedVersionId": "V5", "valueId": "d\U0001F600/"}}, value("update", "V6", "a", b"hi"),
          {"preserveRemoval": "b"}]
    s.push("push a merge", [(v6, c6)])
    s.push("an empty push", [])

    # Listings.
    s.listing("list everything")
    s.listing("a limit of 2", "?limit=2", 0, 2)
    s.listing("continue after 2", f"?after={cursor(2)}&limit=2", 2, 2)
    s.listing("continue after 4, exactly the rest", f"?after={cursor(4)}&limit=2", 4, 2)
    s.listing("after the last: nothing, not complete", f"?after={cursor(6)}", 6)
    s.listing("a cursor past the end: everything, complete", f"?after={cursor(999)}")
    s.listing("a cursor of another identity: everything, complete", f"?after={FOREIGN}.3")
    s.listing("the cursor of an empty store: everything, complete", "?after=empty.0")
    s.listing("a limit of 10000", "?limit=10000")
    s.listing("a limit of 1 after a cursor", f"?after={cursor(5)}&limit=1", 5, 1)
    for query in ("limit=10001", "limit=0", "limit=-1", "limit=abc", "limit=99999999999999999999", "limit=2.5"):
        s.error(f"a listing with {query}", "GET", "versions?" + query, 400, "malformedRequest")
    for bad in ("garbage", f"{IDENTITY}.abc", f"{IDENTITY}.-1", f"{IDENTITY}.99999999999999999999", f"{IDENTITY}."):
        s.error(f"a listing after the cursor {bad!r}", "GET", "versions?after=" + bad, 400, "malformedRequest")
    s.ok("a store nothing was pushed to, after a cursor of this one", "GET",
         f"/v1/stores/{{store}}-e/versions?after={cursor(3)}", EMPTY_LISTING)

    # Fetching: only stored versions, any order, at most 1,000 identifiers of 1-256 bytes.
    s.fetch("fetch stored and unknown versions", ["V3", "nothing", "V1"])
    s.fetch_changes("fetch changes of a stored and an unknown version", ["V2", "nothing"])
    s.fetch_changes("fetch the changes of a merge", ["V6", "V4"])
    s.fetch("fetch no versions", [])
    s.fetch("a fetch with an unknown key", ["V2"], body='{"versionIds":["V2"],"unknownKey":true}')
    thousand = ["V4"] + [f"missing-{i:04d}" for i in range(999)]
    s.fetch("fetch 1,000 identifiers", thousand)
    s.fetch_changes("fetch the changes of 1,000 identifiers", thousand)
    s.error("fetch 1,001 identifiers", "POST", "versions/fetch", 422, "limitExceeded", body=ids_body(thousand + ["one-more"]))
    s.error("fetch the changes of 1,001 identifiers", "POST", "changes/fetch", 422, "limitExceeded",
            body=ids_body(thousand + ["one-more"]))
    s.error("fetch an empty identifier", "POST", "versions/fetch", 422, "limitExceeded", body=ids_body(["V1", ""]))
    s.error("fetch the changes of an empty identifier", "POST", "changes/fetch", 422, "limitExceeded", body=ids_body([""]))
    s.error("fetch an identifier of 257 bytes (129 characters)", "POST", "versions/fetch", 422, "limitExceeded",
            body=ids_body([TOO_LONG]))
    s.error("fetch the changes of an identifier of 257 bytes", "POST", "changes/fetch", 422, "limitExceeded",
            body=ids_body([TOO_LONG]))
    for name, body in [("not JSON", "not json"), ("no body", ""), ("identifiers not in a list", '{"versionIds":"V1"}'),
                       ("an identifier that is a number", '{"versionIds":[1]}'), ("no versionIds", "{}"),
                       ("a list, not an object", '["V1"]'), ("text after the JSON", '{"versionIds":["V1"]} x'),
                       ("a lone surrogate escape", '{"versionIds":["V\\ud800"]}'),
                       ("a lone low surrogate escape", '{"versionIds":["\\udc00V"]}')]:
        s.error(f"fetch: {name}", "POST", "versions/fetch", 400, "malformedRequest", body=body)
    s.error("fetch changes: a lone surrogate escape", "POST", "changes/fetch", 400, "malformedRequest",
            body='{"versionIds":["\\ud83d"]}')
    s.error("fetch: bytes that are not UTF-8", "POST", "versions/fetch", 400, "malformedRequest",
            body_hex=b'{"versionIds":["V\xff1"]}'.hex())

    # Identifiers stored byte for byte: 256 bytes, NUL, composed and decomposed.
    long_version = version(LONG, T0 + 20, size=1)
    s.push("push a version identifier of 256 bytes with a value identifier of 256 bytes",
           [(long_version, [value("insert", LONG, LONG_VALUE, b"L")])])
    s.fetch("fetch the identifier of 256 bytes", [LONG])
    s.fetch_changes("fetch its changes", [LONG])
    nul, plain = version("a\x00b", T0 + 21, size=1), version("a", T0 + 22, size=1)
    s.push("push a and a NUL b, two versions", [(nul, [value("insert", "a\x00b", "k\x00", b"0")]),
                                              (plain, [value("insert", "a", "k", b"1")])])
    s.fetch("fetch a: not a NUL b", ["a"])
    s.fetch("fetch a NUL b: not a", ["a\x00b"])
    s.fetch("fetch a NUL (stored by neither)", ["a\x00"])
    s.fetch_changes("fetch the changes of a NUL b", ["a\x00b"])
    composed, decomposed = version("caf\u00e9", T0 + 23), version("cafe\u0301", T0 + 24, ["caf\u00e9"])
    s.push("push cafe with a composed and with a decomposed e acute, two versions",
           [(composed, [value("insert", "caf\u00e9", "k", b"c")]), (decomposed, [value("insert", "cafe\u0301", "k", b"d")])])
    s.fetch("fetch the composed one", ["caf\u00e9"])
    s.fetch_changes("fetch the changes of the decomposed one", ["cafe\u0301"])
    twins = version("twins", T0 + 25, ["V6"], size=2)
    s.push("one version changing two values whose names differ only in normalization or a NUL",
           [(twins, [value("insert", "twins", "\u00e9", b"1"), value("insert", "twins", "e\u0301", b"2"),
                     {"remove": "a"}, {"remove": "a\x00"}])])
    s.listing("the listing holds them byte for byte", f"?after={cursor(6)}", 6)

    # Numbers and escapes written otherwise come back in section 2's form.
    odd = "\"\\\b\f\n\r\t\x01\x1f\x7f/\u2028"
    numbers = [(version("N1", 2.0 ** 53), "9.007199254740992e15"), (version("N2", 2.0 ** 53 + 2), "9007199254740994"),
               (version("N3", 0.0001), "1E-4"), (version("N4", 9.999999999999999e-05), "0.00009999999999999999"),
               (version("N5", -0.0), "-0.0"), (version("N6", 1e16), "10000000000000000"),
               (version("N7", 1.25e-05, ["N6"], size=2 ** 53 + 1), "0.0000125")]
    texts = []
    for v, written in numbers:
        text = '{"identifier":"%s","timestamp":%s' % (v["identifier"], written)
        if "predecessors" in v:
            text += ',"predecessors":{"idOfFirst":"N6"},"valueDataSize":9007199254740993'
        texts.append('{"valueChanges":[],"version":' + text + "}}")
    s.push("timestamps at the edges of section 2's forms, and a size over 2^53", [(v, []) for v, _ in numbers],
           body='{"versions":[' + ",".join(texts) + "]}")
    s.fetch("their records in section 2's forms", [v["identifier"] for v, _ in numbers])
    controls = version("ctl\t\n\x00\x7f", T0 + 26, ["N7"], size=1)
    s.push("identifiers with characters JSON escapes, written with escapes canonical JSON does not use", [(controls, [
        value("insert", "ctl\t\n\x00\x7f", odd, b"\xff"), {"remove": "\x1f"}])], body=(
        '{"versions":[{"valueChanges":[{"insert":{"data":"/w==","id":"\\u0022\\u005c\\u0008\\u000c\\u000A\\u000D\\u0009'
        '\\u0001\\u001F\\u007f\\/\\u2028","storedVersionId":"ctl\\u0009\\u000a\\u0000\\u007F"}},{"remove":"\\u001f"}],'
        '"version":{"identifier":"ctl\\t\\n\\u0000\\u007f","predecessors":{"idOfFirst":"N7"},"timestamp":785000026.125e0,'
        '"valueDataSize":1}}]}'))
    s.fetch("its record with the escapes of section 2", ["ctl\t\n\x00\x7f"])
    s.fetch_changes("its changes with the escapes of section 2", ["ctl\t\n\x00\x7f"])

    # Pushes refused whole.
    v7 = version("V7", T0 + 30, ["twins"], size=1)
    c7 = [value("insert", "V7", "e", b"7")]
    refused = [
        ("a version identifier of 257 bytes", "limitExceeded", [(version(TOO_LONG, T0), [])]),
        ("an empty version identifier", "limitExceeded", [(version("", T0), [])]),
        ("an empty value identifier", "limitExceeded", [(version("V8", T0, ["V1"]), [value("insert", "V8", "", b"x")])]),
        ("a value identifier of 257 bytes", "limitExceeded",
         [(version("V8", T0, ["V1"]), [value("update", "V8", TOO_LONG, b"x")])]),
        ("a removed value identifier of 257 bytes", "limitExceeded", [(version("V8", T0, ["V1"]), [{"remove": TOO_LONG}])]),
        ("a preserve naming a storing version of 257 bytes", "limitExceeded",
         [(version("V8", T0, ["V1"]), [{"preserve": {"storedVersionId": TOO_LONG, "valueId": "a"}}])]),
        ("a preserve naming an empty storing version", "limitExceeded",
         [(version("V8", T0, ["V1"]), [{"preserve": {"storedVersionId": "", "valueId": "a"}}])]),
        ("a value inserted and updated by one version", "invalidContent",
         [(version("V8", T0, ["V1"]), [value("insert", "V8", "x", b"1"), value("update", "V8", "x", b"2")])]),
        ("a value updated and removed by one version", "invalidContent",
         [(version("V8", T0, ["V1"]), [value("update", "V8", "a", b"1"), {"remove": "a"}])]),
        ("a value preserved and its removal preserved by one merge", "invalidContent",
         [(version("V8", T0, ["V4", "V5"]), [{"preserve": {"storedVersionId": "V5", "valueId": "d\U0001F600/"}},
                                              {"preserveRemoval": "d\U0001F600/"}])]),
        ("a predecessor not stored", "unknownPredecessors", [(version("V8", T0, ["not-stored"]), [])]),
        ("a second predecessor not stored", "unknownPredecessors", [(version("V8", T0, ["V1", "not-stored"]), [])]),
        ("a predecessor that is a prefix of a stored one before its NUL", "unknownPredecessors",
         [(version("V8", T0, ["a\x00"]), [])]),
        ("a predecessor later in the push", "unknownPredecessors",
         [(version("V8", T0, ["V9"]), []), (version("V9", T0, ["V1"]), [])]),
        ("a conflicting record for a stored version (another timestamp)", "invalidContent", [(version("V1", T0 + 1, size=10), c1)]),
        ("a conflicting record for a stored version (metadata added)", "invalidContent",
         [(version("V1", T0, size=10, metadata={"k": b"v"}), c1)]),
        ("a conflicting record for a stored version (no valueDataSize)", "invalidContent", [(version("V1", T0), c1)]),
        ("a new version, then one whose predecessor is not stored", "unknownPredecessors",
         [(v7, c7), (version("V8", T0, ["not-stored"]), [])]),
        ("a new version, then a conflicting record", "invalidContent", [(v7, c7), (version("V2", T0, ["V1"], size=5), c2)]),
        ("a new version, then a value changed twice", "invalidContent",
         [(v7, c7), (version("V8", T0, ["V7"]), [{"remove": "e"}, {"remove": "e"}])]),
    ]
    for name, code, entries in refused:
        s.error(f"push {name}", "POST", "push", 422, code, body=push_body(entries))
    s.fetch("refused pushes stored nothing", ["V7", "V8", "V9"])
    s.listing("and listed nothing", f"?after={cursor(len(s.ids))}", len(s.ids))
    v = '"version":{"identifier":"V8","timestamp":1}'
    malformed = [
        ("not JSON", "not json"), ("no body", ""), ("no versions", "{}"), ("versions not a list", '{"versions":{}}'),
        ("a version with no timestamp", '{"versions":[{"valueChanges":[],"version":{"identifier":"V8"}}]}'),
        ("a timestamp that is a string", '{"versions":[{"valueChanges":[],"version":{"identifier":"V8","timestamp":"1"}}]}'),
        ("a negative valueDataSize",
         '{"versions":[{"valueChanges":[],"version":{"identifier":"V8","timestamp":1,"valueDataSize":-1}}]}'),
        ("the same predecessor twice", '{"versions":[{"valueChanges":[],"version":{"identifier":"V8",'
                                       '"predecessors":{"idOfFirst":"V1","idOfSecond":"V1"},"timestamp":1}}]}'),
        ("a version its own predecessor",
         '{"versions":[{"valueChanges":[],"version":{"identifier":"V8","predecessors":{"idOfFirst":"V8"},"timestamp":1}}]}'),
        ("no valueChanges", '{"versions":[{' + v + '}]}'),
        ("a change with two cases", '{"versions":[{"valueChanges":[{"remove":"a","preserveRemoval":"b"}],' + v + '}]}'),
        ("a change of an unknown case", '{"versions":[{"valueChanges":[{"rename":"a"}],' + v + '}]}'),
        ("data that is not base64", '{"versions":[{"valueChanges":[{"insert":{"data":"!!!","id":"x"}}],' + v + '}]}'),
        ("a version identifier with a lone surrogate escape", '{"versions":[{"valueChanges":[],'
                                                              '"version":{"identifier":"V\\ud800","timestamp":1}}]}'),
        ("a value identifier with a lone surrogate escape",
         '{"versions":[{"valueChanges":[{"remove":"\\udfff"}],' + v + '}]}'),
        ("a predecessor with a lone surrogate escape", '{"versions":[{"valueChanges":[],"version":{"identifier":"V8",'
                                                       '"predecessors":{"idOfFirst":"V1\\udbff"},"timestamp":1}}]}'),
        ("text after the JSON", '{"versions":[]}]'),
    ]
    for name, body in malformed:
        s.error(f"push: {name}", "POST", "push", 400, "malformedRequest", body=body)
    s.error("push: bytes that are not UTF-8", "POST", "push", 400, "malformedRequest",
            body_hex=('{"versions":[{"valueChanges":[],"version":{"identifier":"V\xc0\xaf","timestamp":1}}]}'
                      .encode("latin-1").hex()))
    s.fetch("malformed pushes stored nothing", ["V8"])
    s.push("the new version alone", [(v7, c7)])

    # Events: at once when the store is past the cursor, else after the timeout.
    last = cursor(len(s.ids))
    s.events("events after the latest cursor, timeout 0", f"?after={last}&timeout=0", False)
    s.events("events after the latest cursor, timeout 1: after a second", f"?after={last}&timeout=1", False, wait=1)
    s.events("events after an older cursor: at once", f"?after={cursor(len(s.ids) - 1)}&timeout=3", True, within=1.5)
    s.events("events without a cursor: at once", "?timeout=3", True, within=1.5)
    s.events("events after a cursor of another identity: at once", f"?after={FOREIGN}.{len(s.ids)}&timeout=3", True,
             within=1.5)
    s.events("events after the cursor of an empty store: at once", "?after=empty.0&timeout=3", True, within=1.5)
    s.events("events after a cursor past the end", f"?after={cursor(999)}&timeout=0", False)
    s.ok("events of an empty store after a cursor of another identity", "GET",
         f"/v1/stores/{{store}}-e/events?after={last}&timeout=0", dumps({"cursor": "empty.0", "newVersionsAvailable": False}))
    for query in ("timeout=61", "timeout=-1", "timeout=abc", "timeout=99999999999999999999"):
        s.error(f"events with {query}", "GET", f"events?after={last}&" + query, 400, "malformedRequest")
    s.error("events after a malformed cursor", "GET", "events?after=garbage&timeout=0", 400, "malformedRequest")

    # Snapshots.
    a_chunks = [bytes.fromhex("00ff807f"), bytes.fromhex("0a0d")]
    a = manifest("snapA", a_chunks, "V6")
    s.error("no snapshot yet", "GET", "snapshots/latest", 404, "noSnapshot")
    s.error("no chunk yet", "GET", "snapshots/snapA/chunks/0", 404, "noSnapshot")
    s.case("put chunk 0", "PUT", "snapshots/snapA/chunks/0", {"status": 204, "bodyHex": ""}, body_hex=a_chunks[0].hex())
    s.case("get chunk 0: its bytes", "GET", "snapshots/snapA/chunks/0", {"status": 200, "bodyHex": a_chunks[0].hex()})
    s.error("a manifest whose chunk 1 was not uploaded", "PUT", "snapshots/latest", 422, "invalidContent", body=encoded(a))
    s.case("put chunk 1", "PUT", "snapshots/snapA/chunks/1", {"status": 204, "bodyHex": ""}, body_hex=a_chunks[1].hex())
    wrong = [
        ("a manifest whose chunk checksum does not match", {"chunkChecksums": [sha256(b"other").hex(), a["chunkChecksums"][1]]}),
        ("a manifest whose whole-archive SHA-256 does not match", {"sha256": sha256(b"other").hex()}),
        ("a manifest whose sizes do not match the chunks", {"chunkSize": 3, "totalSize": 5}),
        ("a manifest one byte longer than its chunks", {"totalSize": 7}),
        ("a manifest with fewer checksums than chunks", {"chunkCount": 3}),
        ("a manifest of no chunks", {"chunkCount": 0, "chunkChecksums": [], "totalSize": 0}),
        ("a manifest naming one chunk of two", {"chunkCount": 1, "chunkChecksums": a["chunkChecksums"][:1], "totalSize": 4}),
        # Sizes whose products do not fit 64 bits (a server multiplying them unchecked traps).
        ("a manifest of chunks too large to add up", {"chunkCount": 3, "chunkChecksums": (a["chunkChecksums"] * 2)[:3], "chunkSize": 2**63 - 1,
                                                       "totalSize": 2**63 - 1}),
        ("a manifest whose sizes reach 2^63", {"chunkCount": 3, "chunkChecksums": (a["chunkChecksums"] * 2)[:3], "chunkSize": 2**62,
                                               "totalSize": 2**63 - 1}),
        ("a manifest of a negative total size", {"totalSize": -(2**63)}),
        ("a chunk checksum in upper-case hex", {"chunkChecksums": [a["chunkChecksums"][0].upper(), a["chunkChecksums"][1]]}),
    ]
    for name, changes in wrong:
        s.error(name, "PUT", "snapshots/latest", 422, "invalidContent", body=encoded(dict(a, **changes)))
    s.error("a manifest that is not JSON", "PUT", "snapshots/latest", 400, "malformedRequest", body="{")
    s.error("a manifest without sha256", "PUT", "snapshots/latest", 400, "malformedRequest",
            body=encoded({k: x for k, x in a.items() if k != "sha256"}))
    s.error("refused manifests published nothing", "GET", "snapshots/latest", 404, "noSnapshot")
    noncanonical = json.dumps(dict(reversed(list(a.items()))), indent=2, ensure_ascii=True).replace("snapA", "snap\\u0041")
    s.ok("publish the manifest (sent in JSON that is not canonical)", "PUT", "snapshots/latest", dumps(a), body=noncanonical)
    s.ok("the latest snapshot is it", "GET", "snapshots/latest", dumps(a))
    s.ok("publish it again", "PUT", "snapshots/latest", dumps(a), body=encoded(a))
    b = manifest("snapB", [b"B" * 3], "twins")
    s.case("put the chunk of a second snapshot", "PUT", "snapshots/snapB/chunks/0", {"status": 204, "bodyHex": ""},
           body_hex=(b"B" * 3).hex())
    s.ok("publish the second snapshot", "PUT", "snapshots/latest", dumps(b), body=encoded(b))
    s.ok("the latest snapshot is the second", "GET", "snapshots/latest", dumps(b))
    s.case("the previous snapshot's chunks are kept", "GET", "snapshots/snapA/chunks/1", {"status": 200, "bodyHex": "0a0d"})
    c = manifest("snap_C-3", [b"\x00" * 2, b"\x01"], "V7")
    for i, chunk in enumerate([b"\x00" * 2, b"\x01"]):
        s.case(f"put chunk {i} of a third snapshot", "PUT", f"snapshots/snap_C-3/chunks/{i}", {"status": 204, "bodyHex": ""},
               body_hex=chunk.hex())
    s.ok("publish the third snapshot", "PUT", "snapshots/latest", dumps(c), body=encoded(c))
    s.error("the first snapshot's chunks are removed", "GET", "snapshots/snapA/chunks/0", 404, "noSnapshot")
    s.case("the second snapshot's chunks are kept", "GET", "snapshots/snapB/chunks/0", {"status": 200, "bodyHex": "424242"})
    s.ok("the latest snapshot is the third", "GET", "snapshots/latest", dumps(c))
    s.error("a chunk the snapshot does not have", "GET", "snapshots/snap_C-3/chunks/2", 404, "noSnapshot")
    s.error("a snapshot id of 128 characters that names nothing", "GET", "snapshots/" + "S" * 128 + "/chunks/0", 404, "noSnapshot")
    s.error("a snapshot of an empty store", "GET", "/v1/stores/{store}-e/snapshots/latest", 404, "noSnapshot")
    for what, path in [("a snapshot id with a dot", "snapshots/snap.A/chunks/0"),
                       ("a snapshot id of 129 characters", "snapshots/" + "S" * 129 + "/chunks/0"),
                       ("a snapshot id with a percent-encoded space", "snapshots/snap%20A/chunks/0"),
                       ("a snapshot id with a non-ASCII letter", "snapshots/snap%C3%A9/chunks/0"),
                       ("a negative chunk index", "snapshots/snapA/chunks/-1"),
                       ("a chunk index that is not a number", "snapshots/snapA/chunks/one"),
                       ("a chunk index of 20 digits", "snapshots/snapA/chunks/99999999999999999999")]:
        s.error(f"get: {what}", "GET", path, 400, "malformedRequest")
        s.error(f"put: {what}", "PUT", path, 400, "malformedRequest", body_hex="00")

    s.error("a path the API does not have", "GET", "no-such-path", 404, "notFound")
    s.listing("at the end, the listing is what was pushed, in push order")
    return s.cases


def make():
    return {"format": "llvs-conformance-http", "formatVersion": 1, "section": "15",
            "about": "An ordered script of requests to the HTTP sync API and the answers SPEC.md section 15 requires, "
                     "against one fresh, empty store (and a few against other store names or without a token). "
                     "path: under the store URL /v1/stores/{store}, or absolute when it starts with /. "
                     "token: the valid token unless 'none' (no Authorization header) or 'wrong' (another token). "
                     "body: the request body as exact text sent in UTF-8 (canonical: true when it is canonical JSON of "
                     "section 2, made by an encoder; false for text written by hand, hostile or not), or bodyHex: raw bytes. expect: status, and body (the exact answer), bodyOneOf, bodyHex "
                     "(exact bytes, '' for none) or error (the answer is {\"error\":CODE,\"message\":TEXT} in canonical "
                     "JSON, any TEXT); anyOrder: the key of the answer's array whose elements may come in any order; "
                     "headers: each present with this exact value; sameBodyAs: an earlier case whose answer has the "
                     "same bytes; minSeconds: the answer comes no sooner; maxSeconds: nor later (a long poll that must "
                     "answer at once has a longer timeout). {store}: the fresh store's name, exactly 32 "
                     "characters of a-z 0-9 -. {identity}: the store's identity, a UUID, learned from the first answer "
                     "expected to hold it and substituted from then on (in paths, bodies and answers).",
            "storeNameLength": STORE_NAME_LENGTH, "cases": cases()}


def render():
    return json.dumps(make(), ensure_ascii=False, indent=1) + "\n"


# The runner.

UUID = "[0-9A-Fa-f]{8}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{12}"


class Answer:
    """A server's answer: status, headers, body bytes, and the seconds it took."""

    def __init__(self, status, headers, body, seconds):
        self.status, self.headers, self.body, self.seconds = status, headers, body, seconds


def send(url, method, body, headers, timeout=30):
    """One request, without retries: the status, headers and body bytes."""
    request = urllib.request.Request(url, data=body, method=method, headers=headers)
    started = time.monotonic()
    try:
        with urllib.request.urlopen(request, timeout=timeout) as answer:
            return Answer(answer.status, answer.headers, answer.read(), time.monotonic() - started)
    except urllib.error.HTTPError as error:
        return Answer(error.code, error.headers, error.read(), time.monotonic() - started)


class Runner:
    """Plays cases in order against `BASE/v1/stores`, in a store of its own (a fresh name
    unless `store` is given), one request each, and reports what differs."""

    def __init__(self, base_url, token, store=None):
        base_url = base_url.rstrip("/")
        if not base_url.endswith("/v1/stores"):
            raise ValueError(f"{base_url}: not a URL ending in /v1/stores")
        self.origin = base_url[:-len("/v1/stores")]
        self.token = token
        self.store = store or ("http-check-" + secrets.token_hex(16))[:STORE_NAME_LENGTH]
        assert len(self.store) == STORE_NAME_LENGTH
        self.identity = None
        self.bodies = {}

    def substitute(self, text):
        text = text.replace("{store}", self.store)
        return text.replace(IDENTITY, self.identity) if self.identity else text

    def request(self, case):
        path = self.substitute(case["path"])
        url = self.origin + path if path.startswith("/") else f"{self.origin}/v1/stores/{self.store}/{path}"
        headers = {}
        token = case.get("token", "valid")
        if token != "none":
            headers["Authorization"] = "Bearer " + (self.token if token == "valid" else "wrong-" + self.token)
        body = None
        if "body" in case:
            body = self.substitute(case["body"]).encode("utf-8")
            headers["Content-Type"] = "application/json"
        elif "bodyHex" in case:
            body = bytes.fromhex(case["bodyHex"])
            headers["Content-Type"] = "application/octet-stream"
        return send(url, case["method"], body, headers)

    def check(self, case):
        """What differs between the answer and the case's expectation ([] for nothing)."""
        try:
            answer = self.request(case)
        except OSError as error:
            return [f"no answer: {error}"]
        expect, problems = case["expect"], []
        self.bodies[case["name"]] = answer.body
        if answer.status != expect["status"]:
            problems.append(f"status {answer.status}, expected {expect['status']}")
        for name, text in expect.get("headers", {}).items():
            if answer.headers.get(name) != text:
                problems.append(f"header {name}: {answer.headers.get(name)!r}, expected {text!r}")
        if "sameBodyAs" in expect and answer.body != self.bodies.get(expect["sameBodyAs"]):
            problems.append(f"body {_show(answer.body)} differs from the answer to {expect['sameBodyAs']!r}: "
                            f"{_show(self.bodies.get(expect['sameBodyAs'], b''))}")
        if "minSeconds" in expect and answer.seconds < expect["minSeconds"] - 0.05:
            problems.append(f"answered after {answer.seconds:.2f} s, expected no sooner than {expect['minSeconds']} s")
        if "maxSeconds" in expect and answer.seconds > expect["maxSeconds"]:
            problems.append(f"answered after {answer.seconds:.2f} s, expected within {expect['maxSeconds']} s")
        if "bodyHex" in expect and answer.body != bytes.fromhex(expect["bodyHex"]):
            problems.append(f"body {answer.body.hex() or '(none)'}, expected {expect['bodyHex'] or '(none)'}")
        if "error" in expect:
            problems += _error_problems(answer.body, expect["error"])
        if "bodyOneOf" in expect and answer.body.decode("utf-8", "replace") not in expect["bodyOneOf"]:
            problems.append(f"body {_show(answer.body)}, expected one of {expect['bodyOneOf']}")
        if "body" in expect:
            problems += self.body_problems(answer.body, expect["body"], expect.get("anyOrder"))
        return problems

    def body_problems(self, actual, expected, any_order):
        try:
            text = actual.decode("utf-8")
        except UnicodeDecodeError:
            return [f"body is not UTF-8: {_show(actual)}"]
        if self.identity is None and IDENTITY in expected:
            self.learn_identity(text, expected)
        expected = self.substitute(expected)
        if any_order is None:
            return [] if text == expected else [f"body {_show(actual)}, expected {_show(expected)}"]
        try:
            parsed = parse(text)
        except ValueError:
            return [f"body is not JSON: {_show(actual)}"]
        problems = [] if dumps(parsed) == text else [f"body is not canonical JSON: {_show(actual)}"]
        if not isinstance(parsed, dict) or not isinstance(parsed.get(any_order), list):
            return problems + [f"body {_show(actual)}, expected {_show(expected)}"]
        want = parse(expected)
        ordered = lambda obj: dict(obj, **{any_order: sorted(obj[any_order], key=dumps)})  # noqa: E731
        if dumps(ordered(parsed)) != dumps(ordered(want)):
            problems.append(f"body {_show(actual)}, expected (in any order of {any_order}) {_show(expected)}")
        return problems

    def learn_identity(self, text, expected):
        parts = [re.escape(p) for p in expected.split(IDENTITY)]
        match = re.fullmatch(parts[0] + f"({UUID})" + "".join(r"\1" + p for p in parts[1:]), text)
        if match:
            self.identity = match.group(1)
            return
        try:  # the answer differs; learn the identity from its cursor to check the cases after it
            found = re.fullmatch(f"({UUID})\\.[0-9]+", json.loads(text).get("cursor", ""))
            self.identity = found.group(1) if found else None
        except (ValueError, AttributeError):
            pass

    def run(self, vectors, out=sys.stdout):
        failures = 0
        for case in vectors["cases"]:
            problems = self.check(case)
            if problems:
                failures += 1
                print(f"FAIL {case['method']} {_show(case['path'], 80)} ({case['name']}): " + "; ".join(problems), file=out)
        total = len(vectors["cases"])
        if failures:
            print(f"http vectors: {total} cases, {failures} not as expected (store {self.store})", file=out)
        else:
            print(f"http vectors: {total} cases, all as expected", file=out)
        return failures


def _error_problems(body, code):
    try:
        text = body.decode("utf-8")
        parsed = parse(text)
    except ValueError:
        return [f"body {_show(body)} is not JSON, expected an error {code!r}"]
    problems = []
    if not (isinstance(parsed, dict) and set(parsed) == {"error", "message"} and isinstance(parsed["message"], str)):
        return [f"body {_show(body)} is not {{\"error\":CODE,\"message\":TEXT}}, expected error {code!r}"]
    if parsed["error"] != code:
        problems.append(f"error {parsed['error']!r}, expected {code!r}")
    if dumps(parsed) != text:
        problems.append(f"error body is not canonical JSON: {_show(body)}")
    return problems


def _show(data, limit=300):
    """Text for one line of the report: control characters and line separators escaped."""
    text = data.decode("utf-8", "backslashreplace") if isinstance(data, bytes) else str(data)
    text = re.sub(r"[\x00-\x1f\x7f-\x9f\u2028\u2029]", lambda m: f"\\u{ord(m.group()):04x}", text)
    text = text if text else "(none)"
    return text if len(text) <= limit else text[:limit] + f"… ({len(text)} characters)"


def load(path):
    with open(path, encoding="utf-8") as file:
        return json.load(file)


COMMITTED = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..", "conformance", "http", "api.json")


def check_command(base_url, vectors_path=None):
    """Plays the vectors (the committed file unless another is named) against the server."""
    token = os.environ.get("LLVS_TOKEN", "")
    if not token:
        print("http-check: set LLVS_TOKEN to a token that opens every store", file=sys.stderr)
        return 64
    return 1 if Runner(base_url, token).run(load(vectors_path or COMMITTED)) else 0
