import Logging
import PostgresNIO
import Tether

extension PostgresStore {
    /// Runs one database operation within ``Configuration/operationTimeout``, retrying a serialization failure
    /// or a deadlock, and turns database errors into ``Tether/CredentialStoreError``s.
    func perform<T: Sendable>(
        _ operation: String,
        _ body: @escaping @Sendable () async throws -> T
    ) async throws -> T {
        var attempt = 0
        while true {
            attempt += 1
            do {
                return try await withTimeout(configuration.operationTimeout, operation: operation, body)
            } catch {
                let failure = Self.classify(error)
                if failure.isRetryable, attempt < Self.maximumAttempts {
                    logger.debug(
                        "Retrying after a serialization failure",
                        metadata: ["operation": "\(operation)", "attempt": "\(attempt)"]
                    )
                    try await clock.sleep(for: .milliseconds(10 * attempt))
                    continue
                }
                throw failure.error(operation: operation)
            }
        }
    }

    static let maximumAttempts = 4

    /// Runs `body`, giving up after `timeout`: then `body` is cancelled and left to finish on its own, so that a
    /// connection attempt that does not notice cancellation cannot hold the caller.
    private func withTimeout<T: Sendable>(
        _ timeout: Duration,
        operation: String,
        _ body: @escaping @Sendable () async throws -> T
    ) async throws -> T {
        let clock = self.clock
        let outcome = LockedState<CheckedContinuation<T, any Error>?>(nil)
        let tasks = LockedState<[Task<Void, Never>]>([])
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                outcome.withLock { $0 = continuation }
                let finish: @Sendable (Result<T, any Error>) -> Void = { result in
                    guard
                        let continuation = outcome.withLock({ state in
                            defer { state = nil }
                            return state
                        })
                    else {
                        return
                    }
                    for task in tasks.withLock({ $0 }) { task.cancel() }
                    continuation.resume(with: result)
                }
                let work = Task {
                    do { finish(.success(try await body())) } catch { finish(.failure(error)) }
                }
                let timer = Task {
                    guard (try? await clock.sleep(for: timeout)) != nil else { return }
                    finish(
                        .failure(
                            CredentialStoreError.unavailable.with(
                                message: "The database did not answer within \(timeout) (\(operation))"
                            )
                        )
                    )
                }
                tasks.withLock { $0 = [work, timer] }
            }
        } onCancel: {
            for task in tasks.withLock({ $0 }) { task.cancel() }
        }
    }

    /// What a database error means for the store.
    struct Failure {
        enum Kind {
            case unavailable
            case retryable
            case other
            case passThrough
        }

        let kind: Kind
        let cause: any Error

        var isRetryable: Bool { kind == .retryable }

        func error(operation: String) -> any Error {
            switch kind {
            case .passThrough:
                return cause
            case .unavailable:
                return CredentialStoreError.unavailable.with(
                    message: "The database cannot be reached (\(operation))",
                    cause: cause
                )
            case .retryable:
                return CredentialStoreError.io.with(
                    message: "The database kept refusing to serialize the operation (\(operation))",
                    cause: cause
                )
            case .other:
                return CredentialStoreError.io.with(
                    message: "The database refused the operation (\(operation))",
                    cause: cause
                )
            }
        }
    }

    /// Sorts an error. SQLSTATE codes from https://www.postgresql.org/docs/current/errcodes-appendix.html.
    static func classify(_ error: any Error) -> Failure {
        if error is CancellationError || error is CredentialStoreError {
            return Failure(kind: .passThrough, cause: error)
        }
        if let transaction = error as? PostgresTransactionError {
            if let cause = transaction.closureError ?? transaction.beginError ?? transaction.commitError {
                return classify(cause)
            }
            return Failure(kind: .other, cause: error)
        }
        guard let psql = error as? PSQLError else {
            // Connection set-up failures (refused, reset, timed out) come from NIO as its own errors.
            return Failure(kind: .unavailable, cause: error)
        }
        switch psql.code {
        case .server:
            let state = psql.serverInfo?[.sqlState] ?? ""
            // 40001 serialization_failure, 40P01 deadlock_detected.
            if state == "40001" || state == "40P01" { return Failure(kind: .retryable, cause: error) }
            // Class 08: connection exception; 57P01-57P03: admin shutdown, crash shutdown, cannot connect now;
            // 53300: too many connections.
            if state.hasPrefix("08") || ["57P01", "57P02", "57P03", "53300"].contains(state) {
                return Failure(kind: .unavailable, cause: error)
            }
            return Failure(kind: .other, cause: error)
        case .queryCancelled:
            return Failure(kind: .passThrough, cause: CancellationError())
        case .connectionError, .serverClosedConnection, .clientClosedConnection, .uncleanShutdown, .poolClosed:
            return Failure(kind: .unavailable, cause: error)
        default:
            return Failure(kind: .other, cause: error)
        }
    }
}
