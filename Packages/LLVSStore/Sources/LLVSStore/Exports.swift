// The store's API speaks in the types of these packages (values and versions, the history,
// storage backends, merges and arbiters), so `import LLVSStore` brings them along.

@_exported import LLVSCore
@_exported import LLVSHistory
@_exported import LLVSMerge
@_exported import LLVSZones
