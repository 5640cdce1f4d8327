import Foundation
import LLVS
import LLVSSupport

/// A one-line progress bar on stderr, redrawn in place:
/// `pull    [##########··········]  50%  500/1000 versions  1.2 MB/2.4 MB`.
///
/// Drawn on stderr when it is a terminal and `--json` is off, and only once the work has
/// taken half a second (quick work draws nothing); `LLVS_PROGRESS=always` draws from the
/// start, `never` draws nothing. Work with nothing to do (a total of 0) is never drawn.
/// Safe to update from any thread; redraws at most ten times a second, plus the final state.
final class ProgressBar: Sendable {
    private struct State {
        var lastDraw: ContinuousClock.Instant?
        var drewSomething = false
        var finished = false
        var line = ""
    }

    private let label: String
    private let isEnabled: Bool
    /// When drawing may start.
    private let firstDraw: ContinuousClock.Instant
    private let state = Locked(State())

    /// How long work runs before its bar appears (unless `LLVS_PROGRESS=always`).
    static let delay: Duration = .milliseconds(500)

    /// A bar labelled `label`, drawn only when progress display is on (see the type's notes).
    init(_ label: String, json: Bool) {
        self.label = label
        let mode = ProcessInfo.processInfo.environment["LLVS_PROGRESS"]
        switch mode {
        case "always": isEnabled = true
        case "never": isEnabled = false
        default: isEnabled = !json && isatty(STDERR_FILENO) != 0
        }
        firstDraw = ContinuousClock.now + (mode == "always" ? .zero : Self.delay)
    }

    /// Shows `completed` of `total` units, with `detail` after the counts.
    func update(completed: Int, total: Int, unit: String, detail: String? = nil) {
        guard isEnabled, total > 0 else { return }
        let line = Self.render(label: label, completed: completed, total: total, unit: unit, detail: detail)
        let now = ContinuousClock.now
        let shouldDraw = state.withLock { state -> Bool in
            state.line = line
            let due = state.lastDraw.map { now - $0 >= .milliseconds(100) } ?? true
            guard !state.finished, now >= firstDraw, due || completed >= total else { return false }
            state.lastDraw = now
            state.drewSomething = true
            return true
        }
        if shouldDraw { FileHandle.standardError.write(Data(("\r\u{1B}[K" + line).utf8)) }
    }

    /// Shows an exchange's progress: versions, and bytes when known.
    func update(_ progress: ExchangeProgress) {
        let bytes = progress.totalByteCount > 0
            ? "\(Output.bytes(progress.completedByteCount))/\(Output.bytes(progress.totalByteCount))" : nil
        update(completed: progress.completedVersionCount, total: progress.totalVersionCount, unit: "versions", detail: bytes)
    }

    /// Draws the last state and ends the line; later calls do nothing.
    func finish() {
        guard isEnabled else { return }
        let (shouldEnd, line) = state.withLock { state -> (Bool, String) in
            defer { state.finished = true }
            return (!state.finished && state.drewSomething, state.line)
        }
        guard shouldEnd else { return }
        FileHandle.standardError.write(Data(("\r\u{1B}[K" + line + "\n").utf8))
    }

    /// The text of the bar.
    static func render(label: String, completed: Int, total: Int, unit: String, detail: String?, width: Int = 24) -> String {
        let fraction = total > 0 ? min(1, max(0, Double(completed) / Double(total))) : 1
        let filled = Int((fraction * Double(width)).rounded(.down))
        let bar = String(repeating: "#", count: filled) + String(repeating: "·", count: width - filled)
        let percent = String(Int((fraction * 100).rounded(.down))).leftPadded(to: 3)
        let counts = "\(completed)/\(total) \(total == 1 && unit.hasSuffix("s") ? String(unit.dropLast()) : unit)"
        return "\(label.padding(toLength: 8, withPad: " ", startingAt: 0)) [\(bar)] \(percent)%  \(counts)" + (detail.map { "  \($0)" } ?? "")
    }
}

extension String {
    /// The string with spaces in front up to `width` characters.
    func leftPadded(to width: Int) -> String {
        count >= width ? self : String(repeating: " ", count: width - count) + self
    }
}
