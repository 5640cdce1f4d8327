// The umbrella module: one `import LLVS` gives the API an app uses. Each re-exported
// module is also a product of its own, for users who want only part of LLVS. Not
// re-exported: test support (LLVSTesting), the map index (LLVSMap: `Map`, `Digest`, node
// references) and the shared helpers (LLVSSupport: `Locked`, `Hex`, the binary coders),
// whose names would clash with other libraries' (swift-crypto's `Digest`); import them by
// name to use them.

@_exported import LLVSCoordinator
@_exported import LLVSCore
@_exported import LLVSEncryption
@_exported import LLVSExchange
@_exported import LLVSHistory
#if HTTPClient
@_exported import LLVSHTTPExchange
@_exported import LLVSWebDAV
#endif
@_exported import LLVSKeyValue
@_exported import LLVSMerge
@_exported import LLVSModel
@_exported import LLVSProjection
@_exported import LLVSSQLite
@_exported import LLVSStore
@_exported import LLVSZones
