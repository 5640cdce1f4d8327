"""An independent implementation of LLVS's formats and semantics, written from SPEC.md
alone (Python standard library only; no code shared with the Swift packages).

Modules, by SPEC.md section:

- ``binary``: 5, binary encoding primitives (varints, strings, digests)
- ``mapindex``: 6, the map index (placement, canonical shape, node encodings and hashes)
- ``records``: 8, version records
- ``filestore``: 7, file storage (marker, pack segments, packs, version log)
- ``sqlitestore``: 14, SQLite storage (schema, row checksums)
- ``merge_identity``: 9, merge identity
- ``verify``: opens a store of either backend and checks every version against the above
"""
