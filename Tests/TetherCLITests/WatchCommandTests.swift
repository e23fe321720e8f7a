import Foundation
import Testing
import TetherCommandSupport
import TetherDevProvider
import TetherTestSupport

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// `tether watch`: another process's refused refresh shows up as a line within a second, `--exec` gets the change
/// and no secret, and the watch ends on `SIGINT`.
@Suite(.timeLimit(.minutes(2)))
struct WatchCommandTests {
    /// `tether watch ARGUMENTS` with its standard output in `output` (read while it runs).
    static func startWatch(_ cli: CLI, _ arguments: [String], output: URL) throws -> ChildProcess {
        let tether = try CLI.executable().path
        return try ChildProcess(
            ["/bin/sh", "-c", #"exec "$0" watch "$@" > "$OUTPUT""#, tether] + arguments,
            environment: cli.environment.merging(["OUTPUT": output.path]) { _, new in new }
        )
    }

    /// The lines of `output` once one matches `predicate`, waiting at most `timeout`.
    static func waitForLine(
        in output: URL,
        timeout: Duration,
        where predicate: ([String: Any]) -> Bool
    ) async throws -> [String: Any]? {
        let deadline = ContinuousClock.now.advanced(by: timeout)
        repeat {
            let text = (try? String(contentsOf: output, encoding: .utf8)) ?? ""
            for line in text.split(separator: "\n") {
                if let object = try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any],
                    predicate(object)
                {
                    return object
                }
            }
            try await Task.sleep(for: .milliseconds(10))
        } while ContinuousClock.now < deadline
        return nil
    }

    static func waitForFile(_ url: URL, containing text: String, timeout: Duration) async throws -> String {
        let deadline = ContinuousClock.now.advanced(by: timeout)
        repeat {
            let content = (try? String(contentsOf: url, encoding: .utf8)) ?? ""
            if content.contains(text) { return content }
            try await Task.sleep(for: .milliseconds(20))
        } while ContinuousClock.now < deadline
        return (try? String(contentsOf: url, encoding: .utf8)) ?? ""
    }

    @Test func aRefusalInAnotherProcessIsALineAtOnceAndExecGetsNoSecret() async throws {
        let cli = try await CLI.start()
        defer { Task { await cli.stop() } }
        #expect(try await cli.loginWithDeviceCode().status == 0)
        let token = try await cli.run(["token", "dev"])
        #expect(token.status == 0, "\(token.stderr)")
        let accessToken = token.trimmedOutput
        #expect(!accessToken.isEmpty)

        let scratch = cli.home.deletingLastPathComponent().appendingPathComponent("watch-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: scratch) }
        let output = scratch.appendingPathComponent("out.jsonl")
        let dump = scratch.appendingPathComponent("env.txt")
        // A secret in the watch's own environment must not reach the command.
        let watcher = cli.with(["TETHER_CLIENT_SECRET": "canary-client-secret-\(UUID().uuidString)"])
        let watch = try Self.startWatch(
            watcher,
            ["--json", "--exec", "{ env; echo --- ; } >> '\(dump.path)'; echo exec-ran-here"],
            output: output
        )
        defer { watch.kill() }
        _ = try await watch.waitForErrorLine(timeout: .seconds(20)) { $0.contains("Watching 1 connection") }

        await cli.provider.admin.revokeGrants(ofUser: "ada")
        let refused = try await cli.run(["token", "dev", "--force-refresh"])
        #expect(refused.status == 3, "\(refused.stderr)")
        let refusedAt = ContinuousClock.now
        // inotify wakes the watch at once (on a quiet machine within milliseconds); without it the next look would
        // be an hour away. Ten seconds tells the two apart with room for a machine loaded by the other suites.
        let line = try await Self.waitForLine(in: output, timeout: .seconds(10)) {
            $0["state"] as? String == "needs-sign-in"
        }
        let elapsed = ContinuousClock.now - refusedAt
        let change = try #require(line, "no needs-sign-in line within 10 s of the refusal")
        #expect(elapsed < .seconds(10), "\(elapsed)")
        #expect(change["name"] as? String == "dev")
        #expect(change["previous"] as? String == "connected")
        #expect(change["provider"] as? String == "dev")
        #expect(change["at"] is String)
        // Every key of a `tether status --json` row, and the two of a change.
        let row = try #require(try await cli.status().first)
        #expect(Set(change.keys) == Set(row.keys).union(["previous", "at"]))
        #expect(change["state"] as? String == row["state"] as? String)

        // Each run appends its environment; the first is the change from connected (a second, for the last error
        // that status.json then got, may follow).
        let environment = try await Self.waitForFile(
            dump,
            containing: "TETHER_PREVIOUS_STATUS=connected\n",
            timeout: .seconds(5)
        )
        #expect(environment.contains("TETHER_CONNECTION=dev\n"), "\(environment)")
        #expect(environment.contains("TETHER_STATUS=needs-sign-in\n"))
        #expect(environment.contains("TETHER_PREVIOUS_STATUS=connected\n"))
        #expect(environment.contains("TETHER_PROVIDER=dev\n"))
        #expect(environment.contains("TETHER_MESSAGE="))
        #expect(!environment.contains("TETHER_HOME="))
        #expect(!environment.contains("canary-client-secret"))
        #expect(!environment.contains(accessToken))
        let printed = (try? String(contentsOf: output, encoding: .utf8)) ?? ""
        #expect(!printed.contains(accessToken))
        #expect(!printed.contains("exec-ran-here"), "the command's output went to standard output")
        #expect(!watch.standardError.contains(accessToken))

        // Ctrl-C ends it, by the signal.
        kill(watch.process.processIdentifier, SIGINT)
        let result = try await watch.finish(timeout: .seconds(5))
        #expect(watch.process.terminationReason == .uncaughtSignal)
        #expect(result.status == SIGINT)
        #expect(result.stderr.contains("exec-ran-here"))
    }

    @Test func aNameWithNoConnectionIsSaidAtTheStart() async throws {
        let cli = try await CLI.start()
        defer { Task { await cli.stop() } }
        #expect(try await cli.loginWithDeviceCode().status == 0)
        let output = cli.home.deletingLastPathComponent().appendingPathComponent("watch-\(UUID().uuidString).jsonl")
        defer { try? FileManager.default.removeItem(at: output) }

        let watch = try Self.startWatch(cli, ["dve"], output: output)
        defer { watch.kill() }
        let line = try await watch.waitForErrorLine(timeout: .seconds(20)) { $0.contains("No connection is named") }
        #expect(line.contains("'dve'") && line.contains("the connections are dev"), "\(line)")
        _ = try await watch.waitForErrorLine(timeout: .seconds(20)) { $0.contains("Watching 0 connection") }
    }

    @Test func signingInAndOutAreChangesToo() async throws {
        let cli = try await CLI.start()
        defer { Task { await cli.stop() } }
        let output = cli.home.deletingLastPathComponent().appendingPathComponent("watch-\(UUID().uuidString).jsonl")
        defer { try? FileManager.default.removeItem(at: output) }
        // An empty TETHER_HOME: the folders do not exist yet and are watched once they do.
        let watch = try Self.startWatch(cli, ["--json"], output: output)
        defer { watch.kill() }
        _ = try await watch.waitForErrorLine(timeout: .seconds(20)) { $0.contains("Watching 0 connection") }

        #expect(try await cli.loginWithDeviceCode().status == 0)
        let appeared = try await Self.waitForLine(in: output, timeout: .seconds(10)) {
            $0["name"] as? String == "dev" && $0["state"] as? String == "connected"
        }
        // The record and the settings are two files: on a loaded machine the watch may see the record before its
        // settings (misconfigured: "no settings") and report the connection's arrival in two steps.
        let previous = appeared?["previous"]
        #expect(
            previous is NSNull || (previous as? String) == "misconfigured",
            "\(String(describing: appeared))"
        )

        #expect(try await cli.run(["logout", "dev", "--forget"]).status == 0)
        let removed = try await Self.waitForLine(in: output, timeout: .seconds(10)) {
            $0["state"] as? String == "removed"
        }
        // The record goes first, then the settings: the watch may see the record gone (not-connected) in between.
        #expect(
            ["connected", "not-connected"].contains(removed?["previous"] as? String ?? ""),
            "\(String(describing: removed))"
        )
        kill(watch.process.processIdentifier, SIGTERM)
        let result = try await watch.finish(timeout: .seconds(5))
        #expect(result.status == SIGTERM)
    }
}
