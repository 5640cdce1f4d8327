"""SPEC.md section 6: the map index — placement, canonical shape, node encodings and
hashes."""
from .binary import FormatError, Reader, sha256, string, utf8, varint

LEAF_CAPACITY = 16
MAXIMUM_DEPTH = 64


def key_hash(value_id):
    """A value identifier's placement hash: SHA-256 of its UTF-8 bytes."""
    return sha256(utf8(value_id))


def nibble(digest, depth):
    """Nibble ``depth`` (0-63) of a digest, most significant first."""
    byte = digest[depth // 2]
    return byte >> 4 if depth % 2 == 0 else byte & 0x0F


def leaf_order(entry):
    """Leaf order of an entry (value id, storing version): key hash, then id bytes."""
    return (key_hash(entry[0]), utf8(entry[0]))


class Leaf:
    def __init__(self, entries):
        self.entries = entries  # [(valueId, storedVersionId)] in leaf order

    @property
    def count(self):
        return len(self.entries)


class Interior:
    def __init__(self, bitmap, children):
        self.bitmap = bitmap
        self.children = children  # [(hash, count, location)] in nibble order

    @property
    def count(self):
        return sum(count for _, count, _ in self.children)


def encode_leaf(entries):
    """(stored bytes, hash) of a leaf: all of it is hashed."""
    body = b"L" + varint(len(entries)) + b"".join(string(v) + string(s) for v, s in entries)
    return body, sha256(body)


def encode_interior(bitmap, children):
    """(stored bytes, hash) of an interior node: hashed up to the child locations."""
    hashed = b"I" + bytes([bitmap >> 8, bitmap & 0xFF])
    hashed += b"".join(h + varint(count) for h, count, _ in children)
    return hashed + b"".join(string(location) for _, _, location in children), sha256(hashed)


def decode_node(data, what="map node"):
    """(node, hash) of stored node bytes; raises FormatError when they are not a node."""
    reader = Reader(data, what)
    if reader.at_end:
        reader.fail("no node tag", "truncated")
    tag = reader.byte()
    if tag == ord("L"):
        count = reader.varint()
        if count > reader.remaining // 2:
            reader.fail(f"leaf of {count} entries in {reader.remaining} bytes", "truncated")
        entries = [(reader.string(), reader.string()) for _ in range(count)]
        if not reader.at_end:
            reader.fail("bytes after the leaf entries", "trailingBytes")
        keys = [leaf_order(e) for e in entries]
        if any(a >= b for a, b in zip(keys, keys[1:])):
            reader.fail("leaf entries not in placement-hash order", "outOfOrder")
        return Leaf(entries), sha256(bytes(data))
    if tag == ord("I"):
        bitmap = reader.u16be()
        present = bin(bitmap).count("1")
        if present == 0:
            reader.fail("interior node without children")
        hashes = [(reader.digest(), reader.varint()) for _ in range(present)]
        if sum(count for _, count in hashes) > 2**63 - 1:
            reader.fail("child counts adding up past 2^63 - 1")
        hashed_end = reader.offset
        children = [(h, count, reader.string()) for h, count in hashes]
        if not reader.at_end:
            reader.fail("bytes after the child locations", "trailingBytes")
        return Interior(bitmap, children), sha256(bytes(data[:hashed_end]))
    raise FormatError(f"{what}: unknown node tag {tag:#04x}", "unknownFormat")


def canonical_root(entries):
    """(root hash, node count) of the canonical map of ``entries`` [(valueId, storedBy)],
    or (None, 0) for an empty map."""
    ordered = sorted(((key_hash(v), utf8(v), v, s) for v, s in entries), key=lambda e: (e[0], e[1]))
    if not ordered:
        return None, 0
    digest, _, nodes = _build(ordered, 0)
    return digest, nodes


def _build(entries, depth):
    if len(entries) <= LEAF_CAPACITY or depth >= MAXIMUM_DEPTH:
        _, digest = encode_leaf([(v, s) for _, _, v, s in entries])
        return digest, len(entries), 1
    groups = {}
    for entry in entries:
        groups.setdefault(nibble(entry[0], depth), []).append(entry)
    bitmap, children, nodes = 0, [], 1
    for n in sorted(groups):
        child, count, child_nodes = _build(groups[n], depth + 1)
        bitmap |= 1 << n
        children.append((child, count, ""))
        nodes += child_nodes
    _, digest = encode_interior(bitmap, children)
    return digest, len(entries), nodes


def read_map(root, load):
    """Every entry of the map at ``root`` (hash, location, count), reading nodes with
    ``load(hash_hex, location)`` -> bytes or None. Checks each node's hash, counts, shape
    (a child under the nibble its bitmap names, at the depth it sits) and returns
    ({valueId: storedVersionId}, nodes read)."""
    entries, nodes = {}, 0
    if root is None:
        return entries, nodes
    stack = [(root, 0, [])]
    while stack:
        (digest, location, count), depth, path = stack.pop()
        data = load(digest.hex(), location)
        if data is None:
            raise FormatError(f"map node {digest.hex()} of version {location} is missing")
        node, actual = decode_node(data, f"map node {digest.hex()} of version {location}")
        if actual != digest:
            raise FormatError(f"map node {digest.hex()} of version {location} hashes to {actual.hex()}")
        nodes += 1
        if node.count != count:
            raise FormatError(f"map node {digest.hex()} holds {node.count} entries, its parent says {count}")
        if isinstance(node, Leaf):
            for value_id, stored in node.entries:
                h = key_hash(value_id)
                if [nibble(h, d) for d in range(depth)] != path:
                    raise FormatError(f"value {value_id!r} sits under the wrong path in node {digest.hex()}")
                if value_id in entries:
                    raise FormatError(f"value {value_id!r} appears twice in one map")
                entries[value_id] = stored
        else:
            bits = [n for n in range(16) if node.bitmap >> n & 1]
            for n, child in zip(bits, node.children):
                stack.append((child, depth + 1, path + [n]))
    return entries, nodes
