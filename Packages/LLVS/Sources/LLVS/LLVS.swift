// The umbrella module: one `import LLVS` gives the whole public API. Each re-exported
// module is also a product of its own, for users who want only part of LLVS. (Test support,
// LLVSTesting, is a separate product and is not re-exported.)

@_exported import LLVSCoordinator
@_exported import LLVSCore
@_exported import LLVSExchange
@_exported import LLVSHistory
@_exported import LLVSHTTPExchange
@_exported import LLVSKeyValue
@_exported import LLVSMap
@_exported import LLVSMerge
@_exported import LLVSModel
@_exported import LLVSProjection
@_exported import LLVSSQLite
@_exported import LLVSStore
@_exported import LLVSZones
