"""The port's commands:

  python3 -m llvs_port verify STORE_DIR [--all-merges-derived]
      checks every version of a file or SQLite store; prints a JSON report; exit 1 on a
      problem (or, with --all-merges-derived, a merge whose identifier section 9 does
      not derive)
  python3 -m llvs_port push STORE_DIR STORE_URL
      pushes every version of the store to a sync server's store (SPEC.md section 15),
      predecessors first; the token is $LLVS_TOKEN
  python3 -m llvs_port vectors DIR
      writes the format vectors (conformance/formats) this port makes
  python3 -m llvs_port read-exchange DIR [--compare STORE_DIR] [--all-merges-derived]
      reads a file-system exchange directory whole (SPEC.md sections 11 and 13: marker, log,
      every version and its changes, the snapshot) and checks it; prints a JSON summary;
      exit 1 on a problem (with --compare, a version or changes that are not the store's)
  python3 -m llvs_port http-vectors DIR
      writes the HTTP API vectors (conformance/http/api.json) this port makes
  python3 -m llvs_port http-check STORE_BASE_URL [VECTORS]
      plays conformance/http/api.json (or VECTORS) against a sync server
      (http://HOST:PORT/v1/stores) in a fresh store of a random name, token $LLVS_TOKEN;
      prints each case whose answer differs from SPEC.md section 15's; exit 1 on any
  python3 -m llvs_port pull STORE_URL --compare STORE_DIR
      pulls every version from the server, replays their changes, and checks that they
      are the store's versions: the same records, map roots and derived merge identifiers
"""
import json
import os
import sys

from .canonical_json import dumps
from .format_vectors import FILES, render
from . import http_vectors
from .sync import Client, changes_made, predecessors_first, replay, version_json
from .verify import examine, verify


def main(argv):
    if len(argv) >= 2 and argv[0] == "verify":
        report = verify(argv[1])
        print(json.dumps(report, indent=2, sort_keys=True))
        if report["problems"]:
            return 1
        if "--all-merges-derived" in argv and report["derivedMergeIds"] != report["merges"]:
            print(f"{report['merges'] - report['derivedMergeIds']} merges have identifiers section 9 does not derive",
                  file=sys.stderr)
            return 1
        return 0
    if len(argv) == 3 and argv[0] == "push":
        report, store, records, maps = examine(argv[1])
        if report["problems"]:
            print(json.dumps(report["problems"], indent=2), file=sys.stderr)
            return 1
        by_id = {r.identifier: r for r in records}
        order = predecessors_first({i: version_json(r) for i, r in by_id.items()})
        entries = [(version_json(by_id[i]), changes_made(store, maps, by_id[i])) for i in order]
        answer = Client(argv[2], os.environ.get("LLVS_TOKEN", "")).push(entries)
        print(json.dumps({"pushed": len(entries), "added": len(answer["added"]),
                          "alreadyPresent": answer["alreadyPresentCount"]}, sort_keys=True))
        return 0
    if len(argv) == 4 and argv[0] == "pull" and argv[2] == "--compare":
        client = Client(argv[1], os.environ.get("LLVS_TOKEN", ""))
        pulled = client.fetch(client.version_ids())
        replayed = replay(pulled)
        report, _, records, _ = examine(argv[3])
        problems = list(report["problems"])
        by_id = {r.identifier: r for r in records}
        if set(pulled) != set(by_id):
            problems.append(f"pulled {len(pulled)} versions, the store holds {len(by_id)}; "
                            f"{len(set(pulled) ^ set(by_id))} differ")
        derived = 0
        for version_id in set(pulled) & set(by_id):
            record = by_id[version_id]
            if dumps(pulled[version_id][0]) != dumps(version_json(record)):
                problems.append(f"version {version_id}: the server's record differs from the store's")
            root, _, merge_id = replayed[version_id]
            if root != (record.root[0] if record.root else None):
                problems.append(f"version {version_id}: replaying its changes gives another map root")
            derived += merge_id == version_id
        print(json.dumps({"pulled": len(pulled), "derivedMergeIds": derived, "problems": problems}, indent=2, sort_keys=True))
        return 1 if problems else 0
    if len(argv) == 2 and argv[0] == "vectors":
        for name, make in FILES.items():
            with open(os.path.join(argv[1], name), "w", encoding="utf-8") as file:
                file.write(render(make))
        return 0
    if len(argv) == 2 and argv[0] == "http-vectors":
        text = http_vectors.render()
        with open(os.path.join(argv[1], "api.json"), "w", encoding="utf-8") as file:
            file.write(text)
        return 0
    if len(argv) in (2, 3) and argv[0] == "http-check":
        return http_vectors.check_command(*argv[1:])
    if len(argv) >= 2 and argv[0] == "read-exchange":
        from .exchange import examine_directory
        compare = argv[argv.index("--compare") + 1] if "--compare" in argv[2:-1] else None
        report = examine_directory(argv[1], compare)
        if "--all-merges-derived" in argv and report["derivedMergeIds"] != report["merges"]:
            report["problems"].append(f"{report['merges'] - report['derivedMergeIds']} merges have identifiers section 9 "
                                      "does not derive")
        print(json.dumps(report, indent=2, sort_keys=True, ensure_ascii=False))
        return 1 if report["problems"] else 0
    print(__doc__, file=sys.stderr)
    return 64


sys.exit(main(sys.argv[1:]))
