// The umbrella module: one `import LLVS` gives the whole public API. Each re-exported
// module is also a product of its own, for users who want only part of LLVS.

@_exported import LLVSCore
@_exported import LLVSHistory
