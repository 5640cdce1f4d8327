import Foundation
import LLVSStore

/// An exchange through a shared directory: push and pull between stores that can all reach
/// one directory (a network share, a synced folder, an app-group container, a USB stick).
///
/// The directory holds a ``FolderExchange``'s layout (SPEC.md, "File-system exchange"):
/// format 2 (one binary batch file per send, a log of batch records) for directories
/// created from now on, format 1 (two checksummed JSON files per version) for directories
/// whose marker says so (made before batches, or with `DirectoryFormat.versionFiles` for
/// peers running an older LLVS). Files appear by `rename` of a fully written temporary file
/// and are made durable with one `fsync` of each file and one of its folder (never a
/// machine-wide `sync`); the log is appended in place, each exchange object to a segment
/// of its own. Several stores and processes may use the directory at once.
public final class FileSystemExchange: FolderBackedExchange {
    /// The layouts of an exchange directory.
    public typealias DirectoryFormat = FolderExchange.DirectoryFormat

    /// The shared directory.
    public let rootDirectoryURL: URL
    /// The exchange over the directory, which does the work.
    public let folderExchange: FolderExchange
    /// How often ``newVersionsAvailable`` looks at the directory.
    public var pollingInterval: Duration { folderExchange.pollingInterval }
    /// The longest wait between looks at an idle directory.
    public var maximumPollingInterval: Duration { folderExchange.maximumPollingInterval }
    /// The format the directory gets if this exchange creates it (an existing directory
    /// keeps its own).
    public var newDirectoryFormat: DirectoryFormat { folderExchange.newDirectoryFormat }

    /// The format new directories get (`DirectoryFormat.batches`).
    public static let formatVersion = FolderExchange.formatVersion
    /// How old a temporary file must be before a sender removes it.
    public static let staleTemporaryFileAge = FolderExchange.staleTemporaryFileAge

    /// Creates an exchange between `store` and the directory at `rootDirectoryURL` (created
    /// on first use).
    ///
    /// - Parameters:
    ///   - rootDirectoryURL: The shared directory.
    ///   - store: The store whose versions are sent and retrieved.
    ///   - pollingInterval: How often ``newVersionsAvailable`` checks the directory.
    ///   - maximumPollingInterval: With it, the wait between checks of an idle directory
    ///     doubles from `pollingInterval` up to it (``PollingBackoff``); nil, the default:
    ///     every check `pollingInterval` apart (a local check is cheap).
    ///   - maximumBatchByteCount: The most bytes of value data per batch (5 MB by default).
    ///   - newDirectoryFormat: The layout of the directory if this exchange creates it:
    ///     `DirectoryFormat.batches` (the default), or `DirectoryFormat.versionFiles`
    ///     when peers running an LLVS from before format 2 must read it too.
    public init(rootDirectoryURL: URL, store: Store, pollingInterval: Duration = .seconds(1), maximumPollingInterval: Duration? = nil,
                maximumBatchByteCount: Int = 5_000_000, newDirectoryFormat: DirectoryFormat = .batches) {
        let folder = LocalExchangeFolder(rootDirectoryURL: rootDirectoryURL)
        self.rootDirectoryURL = folder.rootDirectoryURL
        self.folderExchange = FolderExchange(folder: folder, store: store, pollingInterval: pollingInterval,
                                             maximumPollingInterval: maximumPollingInterval,
                                             maximumBatchByteCount: maximumBatchByteCount, newDirectoryFormat: newDirectoryFormat)
    }
}
