@testable import LLVSModelMacros
