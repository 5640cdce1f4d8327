"""SPEC.md section 4 (merge bases) and section 9 (forks, resolution with carried changes,
virtual ancestors, merge identity), enough to replay the merges of a history from the
decisions its arbiter took."""
from .binary import utf8
from .core_types import decode_change
from .merge_identity import identifier_from_maps


class Graph:
    """A history's versions and their predecessors."""

    def __init__(self):
        self.predecessors = {}
        self._ancestry = {}

    def add(self, version_id, predecessors):
        self.predecessors[version_id] = list(predecessors)

    def with_ancestors(self, version_id):
        """The version and every version reachable through its predecessors."""
        if version_id not in self._ancestry:
            found, stack = {version_id}, [version_id]
            while stack:
                for p in self.predecessors[stack.pop()]:
                    if p not in found:
                        found.add(p)
                        stack.append(p)
            self._ancestry[version_id] = frozenset(found)
        return self._ancestry[version_id]

    def merge_bases(self, first, second):
        """The common ancestors of two sets of versions (each counting as its own ancestor)
        that are not ancestors of another common ancestor, in identifier byte order."""
        a = set().union(*(self.with_ancestors(v) for v in first))
        b = set().union(*(self.with_ancestors(v) for v in second))
        common = a & b
        bases = [c for c in common if not any(c != d and c in self.with_ancestors(d) for d in common)]
        return sorted(bases, key=utf8)


def _fork(kind, branch=None):
    return {"kind": kind, "branch": branch} if branch else {"kind": kind}


def forks(ancestor, first, second):
    """{value id: fork} of section 9's table, for maps {value id: storing version}."""
    result = {}
    for value_id in set(ancestor) | set(first) | set(second):
        o, a, b = ancestor.get(value_id), first.get(value_id), second.get(value_id)
        if a != o and b == o:
            result[value_id] = _fork("inserted" if o is None else "removed" if a is None else "updated", "first")
        elif b != o and a == o:
            result[value_id] = _fork("inserted" if o is None else "removed" if b is None else "updated", "second")
        elif a != o and b != o:
            if a is None and b is None:
                result[value_id] = _fork("twiceRemoved")
            elif a == b:
                continue
            elif o is None:
                result[value_id] = _fork("twiceInserted")
            elif a is None or b is None:
                result[value_id] = _fork("removedAndUpdated", "first" if a is None else "second")
            else:
                result[value_id] = _fork("twiceUpdated")
    return result


CONFLICTING = {"twiceInserted", "twiceUpdated", "removedAndUpdated"}
NEW = "\0new"  # stands for "stored by the merge itself" until its identifier is known


def resolve(first, second, found_forks, resolution):
    """The merge's map: the first version's, with the arbiter's changes and, for every fork
    they do not mention, what the second branch did carried; new data by value id."""
    merged, data, decided = dict(first), {}, set()
    for change in resolution:
        (case, payload), = change.items()
        if case in ("insert", "update"):
            merged[payload["id"]] = NEW
            data[payload["id"]] = payload["data"]
            decided.add(payload["id"])
        elif case == "preserve":
            merged[payload["valueId"]] = payload["storedVersionId"]
            decided.add(payload["valueId"])
        else:
            merged.pop(payload, None)
            decided.add(payload)
    for value_id, fork in found_forks.items():
        if value_id in decided:
            continue
        if fork["kind"] in CONFLICTING:
            raise AssertionError(f"conflict on {value_id!r} left unresolved")
        if fork.get("branch") == "second":
            if fork["kind"] == "removed":
                merged.pop(value_id, None)
            else:
                merged[value_id] = second[value_id]
    return merged, data


def apply_changes(base, changes, version_id, data):
    """The map a version's changes (decoded, section 3) make of its first predecessor's
    map ``base``; the data it stores goes into ``data`` under (value id, version id)."""
    entries = dict(base)
    for change in changes:
        (case, payload), = change.items()
        if case in ("insert", "update"):
            entries[payload["id"]] = version_id
            data[(payload["id"], version_id)] = payload["data"]
        elif case == "preserve":
            entries[payload["valueId"]] = payload["storedVersionId"]
        else:
            entries.pop(payload, None)
    return entries


class MergeReplay:
    """Replays one `merge(first, second)` of a store: its bases, its virtual ancestor (made
    from the bases pairwise in identifier order, each step against the virtual ancestor of
    its own bases, each set of bases once), and each step's forks, from the arbiter calls
    the store recorded ({(first, second): [call]}, each call used once). ``maps`` holds the
    stored versions' maps; the virtual versions made are added to it."""

    def __init__(self, graph, maps, calls):
        self.graph, self.maps, self.made = graph, maps, {}
        self.calls = {}
        for call in calls:
            self.calls.setdefault((call["first"], call["second"]), []).append(call)

    def step(self, first, second, bases):
        """Checks the recorded call for merging first and second; returns the merged map
        and its new data."""
        pending = self.calls.get((first, second))
        if not pending:
            raise AssertionError(f"no arbiter call recorded for merging {first} and {second}")
        call = pending.pop(0)
        if call["mergeBaseIds"] != bases:
            raise AssertionError(f"bases of {first} and {second}: {call['mergeBaseIds']} recorded, {bases} computed")
        if call["commonAncestor"] != (bases[0] if len(bases) == 1 else None):
            raise AssertionError(f"common ancestor of {first} and {second}: {call['commonAncestor']} recorded")
        found = forks(self.ancestor(bases), self.maps[first], self.maps[second])
        if found != call["forks"]:
            raise AssertionError(f"forks of {first} and {second}: {call['forks']} recorded, {found} computed")
        return resolve(self.maps[first], self.maps[second], found, [decode_change(c) for c in call["resolution"]])

    def ancestor(self, bases):
        if not bases:
            return {}
        if len(bases) == 1:
            return self.maps[bases[0]]
        key = tuple(bases)
        if key not in self.made:
            accumulated, members = bases[0], [bases[0]]
            for following in bases[1:]:
                inner = self.graph.merge_bases(members, [following])
                merged, data = self.step(accumulated, following, inner)
                virtual = identifier_from_maps(NEW, [accumulated, following], self.maps[accumulated], self.maps[following],
                                               merged, data.__getitem__, {}, virtual=True)
                self.maps[virtual] = {v: (virtual if s == NEW else s) for v, s in merged.items()}
                accumulated = virtual
                members.append(following)
            self.made[key] = accumulated
        return self.maps[self.made[key]]

    def unused(self):
        return [call for pending in self.calls.values() for call in pending]
