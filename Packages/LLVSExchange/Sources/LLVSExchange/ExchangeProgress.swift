/// How far a retrieve or send has got: versions and bytes of value data done of the total.
public struct ExchangeProgress: Hashable, Sendable, CustomStringConvertible {
    /// Which way versions move.
    public enum Direction: String, Hashable, Sendable {
        /// From the other side into the store.
        case retrieve
        /// From the store to the other side.
        case send
    }

    /// Which way versions move.
    public var direction: Direction
    /// Versions transferred so far.
    public var completedVersionCount: Int
    /// Versions to transfer in all.
    public var totalVersionCount: Int
    /// Bytes of value data transferred so far.
    public var completedByteCount: Int64
    /// Bytes of value data to transfer in all.
    public var totalByteCount: Int64

    /// Creates a progress report.
    public init(direction: Direction, completedVersionCount: Int, totalVersionCount: Int,
                completedByteCount: Int64, totalByteCount: Int64) {
        self.direction = direction
        self.completedVersionCount = completedVersionCount
        self.totalVersionCount = totalVersionCount
        self.completedByteCount = completedByteCount
        self.totalByteCount = totalByteCount
    }

    /// The fraction done, by versions (1 when there is nothing to do).
    public var fractionCompleted: Double {
        totalVersionCount == 0 ? 1 : Double(completedVersionCount) / Double(totalVersionCount)
    }

    /// For example `send: 10/40 versions, 1000/4000 bytes`.
    public var description: String {
        "\(direction.rawValue): \(completedVersionCount)/\(totalVersionCount) versions, \(completedByteCount)/\(totalByteCount) bytes"
    }
}

/// Receives progress reports; called from the task running the exchange.
public typealias ExchangeProgressHandler = @Sendable (ExchangeProgress) -> Void
