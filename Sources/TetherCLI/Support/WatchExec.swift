import Foundation
import Tether
import TetherCommandSupport

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Runs `tether watch --exec CMD` for each change: `/bin/sh -c CMD`, the change in its environment, one at a time.
///
/// - A change that arrives while the command runs waits; several waiting changes of one connection become one
///   (the newest state, the oldest `previous`), so a burst of changes costs one run per connection, and a slow
///   command never holds the watch itself, which goes on printing.
/// - A run that takes longer than the timeout gets `SIGTERM`, and `SIGKILL` two seconds later.
/// - The command's standard output goes to standard error, so that `--json` stays one object per line.
/// - The environment is this process's without any `TETHER_*` variable (no vault key, no client secret, no store
///   URL), plus the change's variables; the provider's text in them is made safe (no control characters, at most
///   200 characters). No token is ever in it, nor on the command line.
actor WatchExec {
    let command: String
    let timeout: Duration
    let environment: [String: String]
    private var waiting: [WatchChange] = []
    private var isRunning = false
    private var currentPID: pid_t?

    init(command: String, timeout: Duration, environment: [String: String]) {
        self.command = command
        self.timeout = timeout
        self.environment = ChildEnvironment.stripped(environment)
    }

    /// Queues a run for `change`; returns at once.
    func submit(_ change: WatchChange) {
        if let index = waiting.firstIndex(where: { $0.row.name == change.row.name }) {
            var merged = change
            merged.previous = waiting[index].previous
            waiting[index] = merged
        } else {
            waiting.append(change)
        }
        guard !isRunning else { return }
        isRunning = true
        Task { await drain() }
    }

    private func drain() async {
        while !waiting.isEmpty {
            let next = waiting.removeFirst()
            await run(next)
        }
        isRunning = false
    }

    /// Sends `SIGTERM` to the command running now, if any.
    func terminateRunning() {
        if let currentPID { kill(currentPID, SIGTERM) }
    }

    /// The variables a run gets for `change`.
    static func variables(for change: WatchChange) -> [String: String] {
        let row = change.row
        var variables = [
            "TETHER_CONNECTION": UntrustedText.sanitized(row.name),
            "TETHER_STATUS": row.state,
            "TETHER_PREVIOUS_STATUS": change.previous ?? "",
            "TETHER_PROVIDER": UntrustedText.sanitized(row.provider ?? ""),
            "TETHER_ACCOUNT": UntrustedText.sanitized(row.account ?? ""),
            "TETHER_MESSAGE": UntrustedText.sanitized(row.lastError ?? row.detail ?? ""),
            "TETHER_AT": Format.iso8601(change.at) ?? "",
        ]
        variables["TETHER_EXPIRES_AT"] = Format.iso8601(row.expiresAt) ?? ""
        variables["TETHER_GRANT_ENDS_AT"] = Format.iso8601(row.grantEnd?.date) ?? ""
        variables["TETHER_GRANT_ENDS_SOON"] = row.grantEnd?.isSoon == true ? "1" : ""
        return variables
    }

    private func run(_ change: WatchChange) async {
        let environment = self.environment.merging(Self.variables(for: change)) { _, new in new }
        let pid: pid_t
        do {
            pid = try Self.spawn(command: command, environment: environment)
        } catch {
            Terminal().err("tether: --exec could not start: \(error)")
            return
        }
        currentPID = pid
        defer { currentPID = nil }
        let finished = LockedState(false)
        let timeout = self.timeout
        let watchdog = Task.detached {
            try await Task.sleep(for: timeout)
            guard !finished.withLock({ $0 }) else { return }
            kill(pid, SIGTERM)
            try await Task.sleep(for: .seconds(2))
            if !finished.withLock({ $0 }) { kill(pid, SIGKILL) }
        }
        let status = await Self.wait(pid)
        finished.withLock { $0 = true }
        watchdog.cancel()
        if status != 0 {
            Terminal().err(
                "tether: --exec for \(UntrustedText.forTerminal(change.row.name)) ended with status \(status)"
            )
        }
    }

    struct SpawnFailure: Error, CustomStringConvertible {
        let description: String
    }

    /// Starts `/bin/sh -c command` with `environment`, no standard input, and standard output on standard error.
    static func spawn(command: String, environment: [String: String]) throws -> pid_t {
        #if canImport(Glibc)
        var actions = posix_spawn_file_actions_t()
        #else
        var actions: posix_spawn_file_actions_t?
        #endif
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_adddup2(&actions, 2, 1)
        for fd in SpawnedWorker.openDescriptors() where fd > 2 {
            posix_spawn_file_actions_addclose(&actions, fd)
        }
        let arguments = ["/bin/sh", "-c", command]
        let argv = arguments.map { strdup($0) } + [nil]
        let envp = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer {
            for pointer in argv { free(pointer) }
            for pointer in envp { free(pointer) }
        }
        var pid: pid_t = 0
        let result = posix_spawn(&pid, "/bin/sh", &actions, nil, argv, envp)
        guard result == 0 else { throw SpawnFailure(description: "posix_spawn failed: errno \(result)") }
        return pid
    }

    /// Waits for `pid` off the cooperative thread pool; returns its exit status (128 + signal when killed).
    static func wait(_ pid: pid_t) async -> Int32 {
        await withCheckedContinuation { continuation in
            Thread.detachNewThread {
                var status: Int32 = 0
                while waitpid(pid, &status, 0) < 0, errno == EINTR {}
                let signal = status & 0x7F
                continuation.resume(returning: signal == 0 ? (status >> 8) & 0xFF : 128 + signal)
            }
        }
    }
}
