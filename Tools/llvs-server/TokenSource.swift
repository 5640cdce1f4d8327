import Foundation
import Logging
import LLVSSyncServer

/// Where `llvs-server` finds its access tokens.
enum TokenSource {
    /// The tokens of `--tokens FILE`, else of `LLVS_SERVER_TOKENS`, else of DATA/tokens.json,
    /// which is created (readable by its owner only) with one random token for every store.
    ///
    /// - Throws: ``AccessTokensError`` for an unreadable or invalid source.
    static func load(file: String?, dataURL: URL, logger: Logger) throws -> AccessTokens {
        if let file {
            return try AccessTokens.load(fileURL: URL(fileURLWithPath: file))
        }
        if let text = ProcessInfo.processInfo.environment["LLVS_SERVER_TOKENS"], !text.isEmpty {
            return try AccessTokens.parse(text)
        }
        let generated = dataURL.appendingPathComponent("tokens.json")
        if !FileManager.default.fileExists(atPath: generated.path) {
            let token = AccessTokens.generateToken()
            let body = "{\"stores\": {\"*\": [\"\(token)\"]}}\n"
            do {
                try FileManager.default.createDirectory(at: dataURL, withIntermediateDirectories: true)
                guard FileManager.default.createFile(atPath: generated.path, contents: Data(body.utf8), attributes: [.posixPermissions: 0o600]) else {
                    throw CocoaError(.fileWriteUnknown)
                }
            } catch {
                throw AccessTokensError.unreadable(path: generated.path, reason: "cannot create it: \(error)")
            }
            logger.notice("generated an access token for every store", metadata: ["file": "\(generated.path)"])
            print("Access token for every store: \(token) (kept in \(generated.path))")
        }
        return try AccessTokens.load(fileURL: generated)
    }
}
