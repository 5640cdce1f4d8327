import AsyncHTTPClient
import Foundation
import Logging
import LLVSExchange
import LLVSHTTPExchange
import LLVSStore

/// An exchange through a folder on a WebDAV server (Nextcloud, ownCloud, Apache httpd with
/// mod_dav, nginx, rclone, a NAS): the directory exchange's formats
/// (`FolderExchange`) over a ``WebDAVFolder``. Stores syncing through one folder need
/// only an account there; wrap it in `EncryptedExchange` and the server holds ciphertext.
///
/// ```swift
/// let exchange = try WebDAVExchange(
///     url: URL(string: "https://cloud.example.com/remote.php/dav/files/ada/Notes")!,
///     store: store, authorization: .basic(user: "ada", password: appPassword))
/// try await exchange.send()
/// try await exchange.retrieve()
/// ```
///
/// A send of 1,000 versions is one batch file (two requests: `PUT`, `MOVE`), a log file
/// (two more), the log's change token (one `PUT`), and one listing of the log. Watching
/// for new versions (``newVersionsAvailable``, which `StoreCoordinator` uses) polls every
/// 5 seconds after a change, backing off to once a minute while the folder is idle, and an
/// idle poll is one conditional `GET` answered `304` with no body. See ``WebDAVFolder``
/// for the requests, retries and errors.
public final class WebDAVExchange: FolderBackedExchange {
    /// The layouts of an exchange folder.
    public typealias DirectoryFormat = FolderExchange.DirectoryFormat

    /// The folder on the server.
    public let folder: WebDAVFolder
    /// The exchange over the folder, which does the work.
    public let folderExchange: FolderExchange

    /// An exchange between `store` and the WebDAV folder at `url` (created on first use;
    /// its parent must exist).
    ///
    /// - Parameters:
    ///   - url: The shared folder, `http` or `https`.
    ///   - store: The store whose versions are sent and retrieved.
    ///   - authorization: Basic credentials (over `https`) or a bearer token.
    ///   - httpClient: The client (`HTTPExchange.defaultHTTPClient`, or one trusting a
    ///     private CA: `HTTPExchange.makeHTTPClient(trustingCertificatesIn:)`).
    ///   - retryPolicy: How transient failures (`423`, `503` with `Retry-After`, a lost
    ///     connection) are retried.
    ///   - pollingInterval: How soon ``newVersionsAvailable`` polls again after the log
    ///     changed (an idle poll is one small conditional `GET`).
    ///   - maximumPollingInterval: The longest wait between polls of an idle folder: the wait
    ///     doubles from `pollingInterval` up to it (`PollingBackoff`).
    ///   - maximumBatchByteCount: The most bytes of value data per batch file (5 MB by
    ///     default); lower it below a server's upload limit.
    ///   - newDirectoryFormat: The layout of the folder if this exchange creates it.
    ///   - logger: Where retries and polls are logged (at debug level).
    /// - Throws: ``WebDAVError/invalidURL(_:)``.
    public init(url: URL, store: Store, authorization: WebDAVAuthorization? = nil, httpClient: HTTPClient = HTTPExchange.defaultHTTPClient,
                retryPolicy: HTTPRetryPolicy = HTTPRetryPolicy(), pollingInterval: Duration = .seconds(5),
                maximumPollingInterval: Duration = .seconds(60), maximumBatchByteCount: Int = 5_000_000, newDirectoryFormat: DirectoryFormat = .batches,
                logger: Logger = Logger(label: "llvs.webdav")) throws {
        folder = try WebDAVFolder(url: url, authorization: authorization, httpClient: httpClient, retryPolicy: retryPolicy, logger: logger)
        folderExchange = FolderExchange(folder: folder, store: store, pollingInterval: pollingInterval,
                                        maximumPollingInterval: maximumPollingInterval,
                                        maximumBatchByteCount: maximumBatchByteCount, newDirectoryFormat: newDirectoryFormat)
    }
}
