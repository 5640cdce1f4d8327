import LLVSModel
