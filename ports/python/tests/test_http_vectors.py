"""conformance/http/api.json: the committed file is the one this port makes, every case is
well formed (and its canonical bodies canonical), and the runner that plays it against a
server really compares: a stub server giving wrong answers is caught."""
import http.server
import io
import json
import pathlib
import re
import threading
import unittest

from llvs_port.canonical_json import dumps
from llvs_port.http_vectors import IDENTITY, Runner, parse, render

PATH = pathlib.Path(__file__).resolve().parents[3] / "conformance" / "http" / "api.json"
STATUS_OF = {"malformedRequest": 400, "invalidStoreName": 400, "unauthorized": 401, "noSnapshot": 404, "notFound": 404,
             "bodyTooLarge": 413, "limitExceeded": 422, "unknownPredecessors": 422, "invalidContent": 422,
             "unsupported": 501, "storageUnavailable": 503, "overloaded": 503}
REQUEST_KEYS = {"name", "method", "path", "token", "body", "canonical", "bodyHex", "expect"}
EXPECT_KEYS = {"status", "body", "bodyOneOf", "bodyHex", "error", "anyOrder", "headers", "sameBodyAs", "minSeconds", "maxSeconds"}


def route(case):
    """(method, path under the store URL) of a case, snapshot ids and chunk indexes as ID."""
    path = case["path"].split("?")[0]
    if path.startswith("/v1/stores/"):
        path = path.split("/", 4)[4]
    return case["method"], re.sub(r"^snapshots/[^/]+/chunks/[^/]+$", "snapshots/ID/chunks", path)


def canonical(text):
    try:
        return dumps(parse(text)) == text
    except ValueError:
        return False


class HTTPVectorTests(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.vectors = json.loads(PATH.read_text(encoding="utf-8"))

    def test_committed_file_is_current(self):
        self.assertEqual(PATH.read_text(encoding="utf-8"), render(),
                         f"regenerate with: python3 -m llvs_port http-vectors {PATH.parent}")

    def test_header(self):
        v = self.vectors
        self.assertEqual((v["format"], v["formatVersion"], v["section"]), ("llvs-conformance-http", 1, "15"))
        self.assertIsInstance(v["about"], str)
        self.assertEqual(v["storeNameLength"], 32)

    def test_cases_are_well_formed(self):
        names, identity_known = set(), False
        for case in self.vectors["cases"]:
            with self.subTest(case["name"]):
                self.assertNotIn(case["name"], names, "names are unique (sameBodyAs refers to them)")
                names.add(case["name"])
                self.assertLessEqual(set(case), REQUEST_KEYS)
                self.assertIn(case["method"], ("GET", "POST", "PUT"))
                path = case["path"]
                self.assertFalse(re.search(r"[\s\"<>\\^`{|}]", path.replace("{store}", "").replace(IDENTITY, "")),
                                 "a path holds only URL characters besides the placeholders")
                if path.startswith("/"):
                    self.assertTrue(path == "/health" or path.startswith("/v1/stores/"), path)
                self.assertIn(case.get("token", "valid"), ("valid", "none", "wrong"))
                self.assertFalse("body" in case and "bodyHex" in case)
                self.assertEqual("canonical" in case, "body" in case)
                if "bodyHex" in case:
                    bytes.fromhex(case["bodyHex"])
                request_text = path + case.get("body", "")
                if IDENTITY in request_text:
                    self.assertTrue(identity_known, "a request uses {identity} before an answer taught it")
                expect = case["expect"]
                self.assertLessEqual(set(expect), EXPECT_KEYS)
                self.assertIsInstance(expect["status"], int)
                self.assertEqual(sum(k in expect for k in ("body", "bodyOneOf", "bodyHex", "error")), 1,
                                 "one expectation of the answer's body")
                if "error" in expect:
                    self.assertEqual(STATUS_OF[expect["error"]], expect["status"])
                else:
                    self.assertIn(expect["status"], (200, 204))
                if expect["status"] == 401:
                    self.assertEqual(expect["headers"], {"WWW-Authenticate": 'Bearer realm="llvs"'})
                    self.assertIn(case.get("token"), ("none", "wrong"))
                if "sameBodyAs" in expect:
                    self.assertIn(expect["sameBodyAs"], names - {case["name"]})
                if "anyOrder" in expect:
                    self.assertIsInstance(parse(expect["body"])[expect["anyOrder"]], list)
                if "bodyHex" in expect:
                    bytes.fromhex(expect["bodyHex"])
                if IDENTITY in expect.get("body", ""):
                    identity_known = True

    def test_canonical_bodies_are_canonical(self):
        for case in self.vectors["cases"]:
            with self.subTest(case["name"]):
                if case.get("canonical"):
                    self.assertTrue(canonical(case["body"]), case["body"][:200])
                if re.search("not canonical|written otherwise|canonical JSON does not use", case["name"]):
                    self.assertFalse(case["canonical"] or canonical(case["body"]),
                                     "a body sent to show that any valid JSON is read must not be canonical")
                    parse(case["body"])
                expect = case["expect"]
                for text in [expect["body"]] if "body" in expect else expect.get("bodyOneOf", []):
                    self.assertTrue(canonical(text), text[:200])

    def test_every_error_of_section_15_that_is_deterministic(self):
        codes = {c["expect"].get("error") for c in self.vectors["cases"]}
        self.assertLessEqual({"malformedRequest", "invalidStoreName", "unauthorized", "noSnapshot", "notFound",
                              "limitExceeded", "unknownPredecessors", "invalidContent"}, codes)
        paths = {route(c) for c in self.vectors["cases"] if c["expect"]["status"] in (200, 204)}
        for method_path in [("GET", "versions"), ("POST", "versions/fetch"), ("POST", "changes/fetch"), ("POST", "push"),
                      ("GET", "events"), ("GET", "snapshots/latest"), ("PUT", "snapshots/ID/chunks"),
                      ("GET", "snapshots/ID/chunks"), ("PUT", "snapshots/latest"), ("GET", "/health")]:
            self.assertIn(method_path, paths)


class StubServer:
    """Answers each request with the next of `answers` (status, headers, body bytes) and
    records what it was sent."""

    def __init__(self, answers):
        self.answers, self.requests = list(answers), []
        stub = self

        class Handler(http.server.BaseHTTPRequestHandler):
            def answer(self):
                length = int(self.headers.get("Content-Length") or 0)
                stub.requests.append((self.command, self.path, dict(self.headers), self.rfile.read(length)))
                status, headers, body = stub.answers.pop(0)
                self.send_response(status)
                for name, value in headers.items():
                    self.send_header(name, value)
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            do_GET = do_POST = do_PUT = answer

            def log_message(self, *args):
                pass

        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.thread = threading.Thread(target=self.server.serve_forever, args=(0.02,), daemon=True)

    def __enter__(self):
        self.thread.start()
        return f"http://127.0.0.1:{self.server.server_address[1]}/v1/stores"

    def __exit__(self, *exc):
        self.server.shutdown()
        self.server.server_close()


UUID_A = "0F6C1A2B-3C4D-4E5F-8A9B-0C1D2E3F4A5B"
UUID_B = "11111111-2222-4333-8444-555555555555"


def error(code, message="m"):
    return dumps({"error": code, "message": message}).encode()


class RunnerTests(unittest.TestCase):
    def play(self, cases, answers):
        """The problems the runner reports for each case against a stub giving `answers`,
        and what the stub was sent."""
        with StubServer(answers) as url:
            runner = Runner(url, "the-token", store="s" * 32)
            out = io.StringIO()
            failures = runner.run({"cases": cases}, out)
        lines = out.getvalue().split("\n")[:-1]
        self.assertEqual(len(lines) - 1, failures)
        return failures, lines

    def test_exact_bodies_statuses_and_identity(self):
        cases = [{"name": "push", "method": "POST", "path": "push", "body": "{\"a\":1}", "canonical": True,
                  "expect": {"status": 200, "body": '{"cursor":"{identity}.1"}'}},
                 {"name": "list", "method": "GET", "path": "versions?after={identity}.1",
                  "expect": {"status": 200, "body": '{"cursor":"{identity}.1"}'}}]
        good = (200, {}, f'{{"cursor":"{UUID_A}.1"}}'.encode())
        self.assertEqual(self.play(cases, [good, good])[0], 0)
        self.assertEqual(self.play(cases, [good, (200, {}, f'{{"cursor":"{UUID_B}.1"}}'.encode())])[0], 1,
                         "another identity later is caught")
        self.assertEqual(self.play(cases, [good, (200, {}, f'{{"cursor": "{UUID_A}.1"}}'.encode())])[0], 1,
                         "one byte more is caught")
        self.assertEqual(self.play(cases, [good, (201, {}, good[2])])[0], 1, "another status is caught")
        self.assertEqual(self.play(cases, [(200, {}, b'{"cursor":"empty.1"}'), good])[0], 1, "an identity that is no UUID")
        with StubServer([good, good]) as url:
            stub_runner = Runner(url, "the-token", store="s" * 32)
            stub_runner.run({"cases": cases}, io.StringIO())
        self.assertEqual(stub_runner.identity, UUID_A)

    def test_requests_are_sent_exactly(self):
        body = '{"versionIds":["\\ud800", "é"]}'
        cases = [{"name": "a", "method": "POST", "path": "versions/fetch", "body": body, "canonical": False,
                  "expect": {"status": 200, "bodyHex": ""}},
                 {"name": "b", "method": "PUT", "path": "snapshots/x/chunks/0", "bodyHex": "00ff", "token": "none",
                  "expect": {"status": 204, "bodyHex": ""}},
                 {"name": "c", "method": "GET", "path": "/v1/stores/{store}-e/versions", "token": "wrong",
                  "expect": {"status": 204, "bodyHex": ""}}]
        stub = StubServer([(200, {}, b""), (204, {}, b""), (204, {}, b"")])
        with stub as url:
            Runner(url, "the-token", store="s" * 32).run({"cases": cases}, io.StringIO())
        (m1, p1, h1, b1), (m2, p2, h2, b2), (m3, p3, h3, b3) = stub.requests
        self.assertEqual((m1, p1, b1, h1["Authorization"]), ("POST", "/v1/stores/" + "s" * 32 + "/versions/fetch",
                                                            body.encode(), "Bearer the-token"))
        self.assertEqual((m2, b2, "Authorization" in h2), ("PUT", b"\x00\xff", False))
        self.assertEqual(p3, "/v1/stores/" + "s" * 32 + "-e/versions")
        self.assertNotEqual(h3["Authorization"], "Bearer the-token")

    def test_errors_headers_and_same_bodies(self):
        cases = [{"name": "one", "method": "GET", "path": "versions", "token": "none",
                  "expect": {"status": 401, "error": "unauthorized", "headers": {"WWW-Authenticate": 'Bearer realm="llvs"'}}},
                 {"name": "two", "method": "GET", "path": "versions", "token": "wrong",
                  "expect": {"status": 401, "error": "unauthorized", "headers": {"WWW-Authenticate": 'Bearer realm="llvs"'},
                             "sameBodyAs": "one"}}]
        header = {"WWW-Authenticate": 'Bearer realm="llvs"'}
        ok = (401, header, error("unauthorized"))
        self.assertEqual(self.play(cases, [ok, ok])[0], 0)
        self.assertEqual(self.play(cases, [ok, (401, {}, ok[2])])[0], 1, "a missing header is caught")
        self.assertEqual(self.play(cases, [ok, (401, header, error("unauthorized", "n"))])[0], 1, "another body is caught")
        self.assertEqual(self.play(cases, [ok, (401, header, error("notFound"))])[0], 1, "another code is caught")
        failures, lines = self.play(cases, [ok, (401, header, b'{"message":"m","error":"unauthorized"}')])
        self.assertEqual(failures, 1)
        self.assertIn("not canonical", lines[0], "a body that is not canonical is caught")
        failures, lines = self.play(cases, [ok, (401, header, b'{"error":"unauthorized","message":"m","x":1}')])
        self.assertIn('is not {"error":CODE,"message":TEXT}', lines[0], "an extra key is caught")
        failures, lines = self.play(cases, [ok, (401, header, b"")])
        self.assertEqual(failures, 1, "no body is caught")

    def test_any_order(self):
        cases = [{"name": "fetch", "method": "POST", "path": "versions/fetch", "body": "{}", "canonical": True,
                  "expect": {"status": 200, "body": '{"versions":[{"identifier":"A","timestamp":1},{"identifier":"B","timestamp":-0}]}',
                             "anyOrder": "versions"}}]
        self.assertEqual(self.play(cases, [(200, {}, b'{"versions":[{"identifier":"B","timestamp":-0},'
                                                     b'{"identifier":"A","timestamp":1}]}')])[0], 0)
        self.assertEqual(self.play(cases, [(200, {}, b'{"versions":[{"identifier":"B","timestamp":0},'
                                                     b'{"identifier":"A","timestamp":1}]}')])[0], 1, "0 is not -0")
        self.assertEqual(self.play(cases, [(200, {}, b'{"versions":[{"identifier":"A","timestamp":1}]}')])[0], 1)
        self.assertEqual(self.play(cases, [(200, {}, b'{"versions":[{"identifier":"A","timestamp":1.0},'
                                                     b'{"identifier":"B","timestamp":-0}]}')])[0], 1, "not canonical")

    def test_the_script_against_a_server_that_answers_nothing_right(self):
        cases = self.vectors_cases()
        failures, lines = self.play(cases, [(200, {}, b"{}")] * len(cases))
        self.assertEqual(failures, len(cases))
        self.assertTrue(lines[-1].startswith(f"http vectors: {len(cases)} cases, {len(cases)} not as expected"))

    def vectors_cases(self):
        return [c for c in json.loads(PATH.read_text(encoding="utf-8"))["cases"] if "minSeconds" not in c["expect"]
                and "maxSeconds" not in c["expect"]]


if __name__ == "__main__":
    unittest.main()
