// The coordinator's API speaks in the types of the store (values, versions, branches,
// storage backends, merge arbiters) and of the exchanges (Exchange, SnapshotPolicy), so
// `import LLVSCoordinator` brings them along.

@_exported import LLVSExchange
@_exported import LLVSStore
