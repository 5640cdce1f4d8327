"""python3 -m llvs_port verify STORE_DIR [--all-merges-derived]

Prints the report as JSON and exits 0 when the store is intact (and, with
--all-merges-derived, every merge's identifier is the one section 9 derives)."""
import json
import sys

from .verify import verify


def main(argv):
    if len(argv) < 2 or argv[0] != "verify":
        print(__doc__, file=sys.stderr)
        return 64
    report = verify(argv[1])
    print(json.dumps(report, indent=2, sort_keys=True))
    if report["problems"]:
        return 1
    if "--all-merges-derived" in argv and report["derivedMergeIds"] != report["merges"]:
        print(f"{report['merges'] - report['derivedMergeIds']} merges have identifiers section 9 does not derive",
              file=sys.stderr)
        return 1
    return 0


sys.exit(main(sys.argv[1:]))
