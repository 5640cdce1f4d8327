import LLVSCore
import LLVSSupport

/// Runs asynchronous jobs one at a time, in the order their tickets were taken: a caller
/// takes a ticket synchronously (so jobs queued from one thread keep their order), waits for
/// its turn, and ends its turn when done. Every ticket taken must end its turn exactly once.
final class SerialTurns: Sendable {
    private struct State: Sendable {
        var nextTicket: UInt64 = 0
        var serving: UInt64 = 0
        var waiting: [UInt64: CheckedContinuation<Void, Never>] = [:]
    }

    private let state = Locked(State())

    /// Takes the next ticket.
    func takeTicket() -> UInt64 {
        state.withLock { state in
            defer { state.nextTicket += 1 }
            return state.nextTicket
        }
    }

    /// Returns once every earlier ticket has ended its turn.
    func waitForTurn(_ ticket: UInt64) async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let ready = state.withLock { state -> Bool in
                if state.serving == ticket { return true }
                state.waiting[ticket] = continuation
                return false
            }
            if ready { continuation.resume() }
        }
    }

    /// Ends the current turn and starts the next ticket's, if it is waiting.
    func endTurn() {
        let next = state.withLock { state -> CheckedContinuation<Void, Never>? in
            state.serving += 1
            return state.waiting.removeValue(forKey: state.serving)
        }
        next?.resume()
    }
}
