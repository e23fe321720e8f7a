import Foundation
import Logging
import Tether
import TetherCommandSupport
import TetherOAuth
import TetherPostgres

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Refreshes a connection in a short-lived `tether refresh-worker` process of its own session (`setsid`), which
/// shares the caller's refresh lease, sends the refresh request, stores the answer and exits — so that killing the
/// caller, even with `SIGKILL`, cannot lose a rotated refresh token. See docs/decisions.md §27.
///
/// The worker gets the connection's name and the vault folder as arguments, the lease as descriptor 3, the vault
/// key (when it came from `TETHER_VAULT_KEY`) on standard input, and an environment without `TETHER_*` variables;
/// it answers one line of JSON on standard output (``WorkerOutcome``). When no worker can be started, the session
/// refreshes in this process, as before.
///
/// On a PostgreSQL store the lease is a row, not a descriptor: the worker gets its holder's identifier as an argument
/// and the store's variables (URL, keys, tenant) as one line of JSON on standard input, and adopts the lease (renewing
/// it for as long as it runs, whether or not this process lives).
struct DetachedRefresher: DelegatedRefresher {
    let client: OAuthClient
    let home: URL
    let environment: [String: String]
    let verbose: Bool
    let logger: Logger
    /// The store the records are in: the worker opens the same one.
    var location: StoreLocation = .vault

    /// The `tether` executable to start, set by `tether`'s `main`; `nil` (in tests that link the command's code)
    /// keeps refreshes in-process.
    static let executable = LockedState<String?>(nil)

    func refresh(_ request: RefreshRequest) async throws -> TokenResponse {
        try await client.refresh(request)
    }

    func refreshAndStore(
        _ request: RefreshRequest,
        holding lease: any RefreshLease,
        answerMayDateFrom: Date?
    ) async throws -> Bool {
        guard let executable = Self.executable.withLock({ $0 }) else { return false }
        var arguments = [executable, "refresh-worker", "--home", home.path]
        if let answerMayDateFrom {
            arguments += ["--answer-may-date-from", String(answerMayDateFrom.timeIntervalSince1970)]
        }
        let descriptor: Int32?
        var input = Data()
        let key = environment["TETHER_VAULT_KEY"].flatMap { $0.isEmpty ? nil : $0 }
        if let inherited = (lease as? any InheritableRefreshLease)?.descriptorForChild() {
            descriptor = inherited
            if let key {
                arguments.append("--key-on-stdin")
                input = Data((key + "\n").utf8)
            }
        } else if case .postgres(let url) = location,
            let holder = ((lease as? SignalDeferringStore.Lease)?.base as? PostgresRefreshLease)?.holder
        {
            descriptor = nil
            arguments += ["--lease-holder", holder]
            var variables = environment.filter { Self.storeVariables.contains($0.key) }
            variables[StoreLocation.variable] = url
            guard let line = try? JSONEncoder().encode(variables) else { return false }
            input = line + Data("\n".utf8)
        } else {
            return false
        }
        if verbose { arguments.append("--verbose") }
        // The name last, after `--`: a name that starts with `-` is never read as an option.
        arguments += ["--", request.connectionID.rawValue]
        let worker: SpawnedWorker
        do {
            worker = try SpawnedWorker.start(
                arguments: arguments,
                environment: ChildEnvironment.stripped(environment),
                lease: descriptor,
                input: input,
                inheritStandardError: verbose
            )
        } catch {
            // The lease was marked as shared, which only changes how it is released; refresh here instead.
            logger.debug("Could not start the refresh worker; refreshing here", metadata: ["cli.error": "\(error)"])
            return false
        }
        logger.debug("Refreshing in a worker process", metadata: ["cli.worker": "\(worker.pid)"])
        let (output, status) = await worker.wait()
        guard let outcome = try? JSONDecoder().decode(WorkerOutcome.self, from: output) else {
            logger.debug("The refresh worker ended without an answer", metadata: ["cli.worker.status": "\(status)"])
            // A worker that died may have sent the refresh and been killed before storing its answer.
            throw RefreshError.transient(
                "The refresh worker ended without an answer (status \(status))",
                isOutcomeUnknown: true
            )
        }
        return try outcome.result()
    }
}

extension DetachedRefresher {
    /// What a worker on a PostgreSQL store needs to open it, given on its standard input: the child's environment
    /// has no `TETHER_*` variable.
    static let storeVariables: Set<String> = [
        "TETHER_VAULT_KEY", StoreLocation.variable, StoreLocation.tenantVariable,
        PostgresStore.Configuration.keyVariable, PostgresStore.Configuration.keyFileVariable,
        PostgresStore.Configuration.previousKeysVariable,
    ]
}

/// The one line a refresh worker prints: whether it stored new tokens, or how its refresh failed. Never a secret:
/// messages come from the library's errors.
struct WorkerOutcome: Codable, Sendable {
    /// `stored`, `transient`, `permanent`, `configuration`, `storage` (the store failed before a refresh was sent,
    /// such as no room for its answer) or `unsaved` (the provider answered, the store refused the tokens, and the
    /// worker goes on holding them and the lease until it can store them).
    var outcome: String
    var message: String?
    var reason: String?
    var reasonMessage: String?
    var retryAfter: Double?
    /// Whether the provider may have processed the refresh although no usable answer came (a transient failure
    /// only); the waiting session then retries promptly and names a later `invalid_grant` precisely.
    var outcomeUnknown: Bool?

    static let stored = WorkerOutcome(outcome: "stored")

    /// The `reason` of a `storage` or `unsaved` outcome when the store had no room.
    static let noSpace = "no_space"

    /// Whether the worker goes on after this answer, keeping tokens it could not store yet.
    var keepsRunning: Bool { outcome == "unsaved" }

    /// What the worker's outcome means to the session that waits for it.
    func result() throws -> Bool {
        let message = message ?? "The refresh failed"
        switch outcome {
        case "stored":
            return true
        case "permanent":
            throw RefreshError.permanent(
                SignInReason(code: reason ?? "grant_revoked", message: reasonMessage ?? message),
                message
            )
        case "configuration":
            throw RefreshError.configuration(message)
        case "storage", "unsaved":
            // Never a transient failure: a retry would send a refresh token the provider may have spent already.
            if reason == Self.noSpace {
                throw CredentialStoreError.io.with(message: message, cause: POSIXError(.ENOSPC))
            }
            throw CredentialStoreError.unavailable.with(message: message)
        default:
            throw RefreshError.transient(
                message,
                retryAfter: retryAfter.map { .milliseconds(Int($0 * 1000)) },
                isOutcomeUnknown: outcomeUnknown ?? false
            )
        }
    }

    /// The outcome of a session's refresh that threw `error`.
    static func failure(_ error: any Error) -> WorkerOutcome {
        guard let error = error as? SessionError else {
            return WorkerOutcome(outcome: "transient", message: "The refresh failed: \(type(of: error))")
        }
        switch error {
        case .needsSignIn:
            let reason = error.signInReason ?? .grantRevoked
            return WorkerOutcome(
                outcome: "permanent",
                message: error.message,
                reason: reason.code,
                reasonMessage: reason.message
            )
        case .notConnected:
            // Signed out meanwhile: the waiting session reads the store and finds it so.
            return .stored
        case .misconfigured where !(error.cause is CredentialStoreError):
            return WorkerOutcome(outcome: "configuration", message: error.message)
        case .storageUnavailable:
            let noSpace = (error.cause as? CredentialStoreError)?.isOutOfSpace == true
            return WorkerOutcome(outcome: "storage", message: error.message, reason: noSpace ? Self.noSpace : nil)
        default:
            let cause = error.cause as? RefreshError
            return WorkerOutcome(
                outcome: "transient",
                message: error.message,
                retryAfter: cause?.retryAfter.map { $0.timeInterval },
                outcomeUnknown: cause?.isOutcomeUnknown
            )
        }
    }
}

/// A process started with `posix_spawn` in a session of its own.
struct SpawnedWorker: Sendable {
    let pid: pid_t
    let output: Int32

    struct SpawnFailure: Error, CustomStringConvertible {
        let description: String
    }

    /// Starts `arguments[0]` with `arguments`, `environment`, `lease` (if any) as descriptor 3, `input` on standard
    /// input and a pipe on standard output; standard error goes to this process's, or to `/dev/null`.
    static func start(
        arguments: [String],
        environment: [String: String],
        lease: Int32?,
        input: Data,
        inheritStandardError: Bool
    ) throws -> SpawnedWorker {
        var inputPipe: [Int32] = [-1, -1]
        var outputPipe: [Int32] = [-1, -1]
        guard pipe(&inputPipe) == 0 else { throw SpawnFailure(description: "pipe failed: errno \(errno)") }
        guard pipe(&outputPipe) == 0 else {
            close(inputPipe[0])
            close(inputPipe[1])
            throw SpawnFailure(description: "pipe failed: errno \(errno)")
        }
        // The parent's ends must not leak into other children.
        for fd in [inputPipe[1], outputPipe[0]] { _ = fcntl(fd, F_SETFD, FD_CLOEXEC) }
        defer {
            close(inputPipe[0])
            close(outputPipe[1])
        }

        #if canImport(Glibc)
        var actions = posix_spawn_file_actions_t()
        var attributes = posix_spawnattr_t()
        // glibc's POSIX_SPAWN_SETSID (spawn.h, glibc 2.26), not exported to Swift.
        let setsid: Int32 = 0x80
        #else
        var actions: posix_spawn_file_actions_t?
        var attributes: posix_spawnattr_t?
        let setsid = Int32(POSIX_SPAWN_SETSID)
        #endif
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        posix_spawn_file_actions_adddup2(&actions, inputPipe[0], 0)
        posix_spawn_file_actions_adddup2(&actions, outputPipe[1], 1)
        if !inheritStandardError {
            posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0)
        }
        // dup2 clears close-on-exec on the copy: the worker holds the lease's open file description.
        if let lease { posix_spawn_file_actions_adddup2(&actions, lease, 3) }
        // Nothing else: a descriptor this process inherited without close-on-exec (the write end of a caller's
        // `$(tether token)` pipe, a socket) would otherwise stay open as long as the worker runs.
        for fd in openDescriptors() where fd > (lease == nil ? 2 : 3) {
            posix_spawn_file_actions_addclose(&actions, fd)
        }
        // Its own session: not in the terminal's process group, so Ctrl-C and a kill of the group miss it. Default
        // signal actions and an empty mask, whatever this process changed.
        var defaults = sigset_t()
        sigemptyset(&defaults)
        for signo in [SIGINT, SIGTERM, SIGHUP, SIGPIPE, SIGALRM] { sigaddset(&defaults, signo) }
        posix_spawnattr_setsigdefault(&attributes, &defaults)
        var empty = sigset_t()
        sigemptyset(&empty)
        posix_spawnattr_setsigmask(&attributes, &empty)
        posix_spawnattr_setflags(&attributes, Int16(setsid | Int32(POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK)))

        let argv = arguments.map { strdup($0) } + [nil]
        let envp = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer {
            for pointer in argv { free(pointer) }
            for pointer in envp { free(pointer) }
        }
        var pid: pid_t = 0
        let result = posix_spawn(&pid, arguments[0], &actions, &attributes, argv, envp)
        guard result == 0 else {
            close(inputPipe[1])
            close(outputPipe[0])
            throw SpawnFailure(description: "posix_spawn failed: errno \(result)")
        }
        // A few bytes at most, far below the pipe's buffer: this write does not block.
        input.withUnsafeBytes { buffer in
            if let base = buffer.baseAddress, buffer.count > 0 { _ = write(inputPipe[1], base, buffer.count) }
        }
        close(inputPipe[1])
        return SpawnedWorker(pid: pid, output: outputPipe[0])
    }

    /// The descriptors open in this process (Linux: `/proc/self/fd`; elsewhere the first 256).
    static func openDescriptors() -> [Int32] {
        if let names = try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd") {
            return names.compactMap { Int32($0) }.sorted()
        }
        return Array(0..<256)
    }

    /// Reads the worker's output to the end and waits for its exit, off the cooperative thread pool.
    /// - Returns: The output and the raw wait status.
    func wait() async -> (Data, Int32) {
        await withCheckedContinuation { continuation in
            Thread.detachNewThread {
                var data = Data()
                var buffer = [UInt8](repeating: 0, count: 4096)
                while true {
                    let count = buffer.withUnsafeMutableBytes { read(output, $0.baseAddress, $0.count) }
                    if count > 0 {
                        data.append(contentsOf: buffer[0..<count])
                    } else if count < 0, errno == EINTR {
                        continue
                    } else {
                        break
                    }
                }
                close(output)
                var status: Int32 = 0
                if let outcome = try? JSONDecoder().decode(WorkerOutcome.self, from: data), outcome.keepsRunning {
                    // It answered and goes on storing the tokens it holds: the caller does not wait for it, this
                    // thread still reaps it.
                    continuation.resume(returning: (data, -1))
                    while waitpid(pid, &status, 0) < 0, errno == EINTR {}
                    return
                }
                while waitpid(pid, &status, 0) < 0, errno == EINTR {}
                continuation.resume(returning: (data, status))
            }
        }
    }
}
