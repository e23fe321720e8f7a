import Foundation
import Testing
import Tether
import TetherTestSupport

@testable import TetherOAuth

extension Presenting {
    /// Serialized: a script being written by one test while another forks leaks its write descriptor into the
    /// child until that child execs, and running the script then fails with ETXTBSY ("text file busy").
    @Suite(.serialized, .timeLimit(.minutes(3)))
    struct BrowserLauncherTests {
        private static let url = URL(string: "https://issuer.example/authorize?client_id=app&state=s1")!

        /// A temporary folder with scripts that record their arguments, one per line, into `<name>.args`.
        private struct Scripts {
            let directory: URL

            init() throws {
                directory = FileManager.default.temporaryDirectory.appendingPathComponent("tether-browser-\(UUID())")
                try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            }

            func recorder(_ name: String) throws -> String {
                let script = directory.appendingPathComponent(name)
                let output = directory.appendingPathComponent("\(name).args")
                // Runs without PATH: only shell builtins and absolute paths.
                let text = """
                    #!/bin/sh
                    for argument in "$@"; do printf '%s\\n' "$argument"; done > '\(output.path).tmp'
                    /bin/mv '\(output.path).tmp' '\(output.path)'

                    """
                try text.write(to: script, atomically: true, encoding: .utf8)
                try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: script.path)
                return script.path
            }

            /// A script that records its whole environment, one `NAME=value` per line, into `<name>.env`.
            func environmentRecorder(_ name: String) throws -> String {
                let script = directory.appendingPathComponent(name)
                let output = directory.appendingPathComponent("\(name).env")
                let text = """
                    #!/bin/sh
                    /usr/bin/env > '\(output.path).tmp'
                    /bin/mv '\(output.path).tmp' '\(output.path)'

                    """
                try text.write(to: script, atomically: true, encoding: .utf8)
                try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: script.path)
                return script.path
            }

            /// Waits (up to 10 s) for an environment recorder's variables.
            func environment(of name: String) async throws -> [String]? {
                let output = directory.appendingPathComponent("\(name).env")
                for _ in 0..<200 {
                    if let text = try? String(contentsOf: output, encoding: .utf8) {
                        return text.split(separator: "\n").map(String.init)
                    }
                    try await Task.sleep(for: .milliseconds(50))
                }
                return nil
            }

            /// Waits (up to 10 s) for a recorder's arguments.
            func arguments(of name: String) async throws -> [String]? {
                let output = directory.appendingPathComponent("\(name).args")
                for _ in 0..<200 {
                    if let text = try? String(contentsOf: output, encoding: .utf8) {
                        return text.split(separator: "\n", omittingEmptySubsequences: false).dropLast().map(String.init)
                    }
                    try await Task.sleep(for: .milliseconds(50))
                }
                return nil
            }

            func remove() { try? FileManager.default.removeItem(at: directory) }
        }

        @Test func browserCommandsAreTriedInOrderAndPercentSIsReplaced() async throws {
            let scripts = try Scripts()
            defer { scripts.remove() }
            let recorder = try scripts.recorder("first")
            let environment = [
                "BROWSER": "\(scripts.directory.path)/missing-browser:\(recorder) --new-window=%s --flag",
                "PATH": scripts.directory.path,
            ]

            try await BrowserLauncher.system(environment: environment).open(Self.url)

            #expect(try await scripts.arguments(of: "first") == ["--new-window=\(Self.url.absoluteString)", "--flag"])
        }

        @Test func theBrowserGetsNoTetherVariable() async throws {
            let scripts = try Scripts()
            defer { scripts.remove() }
            let recorder = try scripts.environmentRecorder("browser")
            let environment = [
                "BROWSER": recorder, "PATH": scripts.directory.path, "LANG": "C.UTF-8",
                "TETHER_VAULT_KEY": "vault-key-canary", "TETHER_CLIENT_SECRET": "client-secret-canary",
                "TETHER_HOME": "/tmp/tether-home-canary", "TETHER_CONNECTION": "work",
            ]

            try await BrowserLauncher.system(environment: environment).open(Self.url)

            let received = try #require(await scripts.environment(of: "browser"))
            // The recorder saw the environment it was given, so an absent variable was really withheld.
            #expect(received.contains("LANG=C.UTF-8"))
            #expect(!received.contains { $0.hasPrefix("TETHER_") })
            #expect(!received.contains { $0.contains("canary") })
        }

        @Test func urlIsTheLastArgumentWithoutPercentS() async throws {
            let scripts = try Scripts()
            defer { scripts.remove() }
            _ = try scripts.recorder("viewer")
            // Found through PATH, with a quoted argument.
            let environment = ["BROWSER": "viewer 'two words' plain", "PATH": "/nonexistent:\(scripts.directory.path)"]

            try await BrowserLauncher.system(environment: environment).open(Self.url)

            #expect(try await scripts.arguments(of: "viewer") == ["two words", "plain", Self.url.absoluteString])
        }

        @Test func fallbackIsCalledWhenNothingStarts() async throws {
            let received = LockedURLs()
            let environment = ["PATH": "/nonexistent"]

            try await BrowserLauncher.system(environment: environment, fallback: { received.append($0) }).open(Self.url)

            #expect(received.urls == [Self.url])
        }

        @Test func aBrowserCommandThatCannotStartFailsAtOnce() async throws {
            let received = LockedURLs()
            let environment = ["BROWSER": "/nonexistent/browser:also-missing", "PATH": "/nonexistent"]

            await #expect(throws: AuthorizationPresentationError.browserCommandFailed) {
                try await BrowserLauncher.system(environment: environment, fallback: { received.append($0) })
                    .open(Self.url)
            }
            #expect(received.urls.isEmpty)
        }

        @Test func aBrowserCommandThatExitsWithAFailureFailsAtOnce() async throws {
            let scripts = try Scripts()
            defer { scripts.remove() }
            let script = scripts.directory.appendingPathComponent("failing")
            try "#!/bin/sh\nexit 3\n".write(to: script, atomically: true, encoding: .utf8)
            try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: script.path)

            let error = await #expect(throws: AuthorizationPresentationError.browserCommandFailed) {
                try await BrowserLauncher.system(environment: ["BROWSER": script.path], fallback: { _ in })
                    .open(Self.url)
            }
            #expect(error?.message.contains("'failing' exited with status 3") == true)
        }

        @Test func withoutFallbackNothingStartingThrowsCannotOpenBrowser() async throws {
            let environment = ["PATH": "/nonexistent"]

            await #expect(throws: AuthorizationPresentationError.cannotOpenBrowser) {
                try await BrowserLauncher.system(environment: environment).open(Self.url)
            }
        }

        @Test func xdgOpenIsSkippedWithoutADisplay() {
            #if os(Linux)
            #expect(BrowserCommand.candidates(environment: [:]).isEmpty)
            #expect(BrowserCommand.candidates(environment: ["DISPLAY": ":0"]) == [["xdg-open"]])
            #expect(
                BrowserCommand.candidates(environment: ["WAYLAND_DISPLAY": "wayland-0", "BROWSER": "a:b c"]) == [
                    ["a"], ["b", "c"], ["xdg-open"],
                ]
            )
            #endif
        }

        @Test(arguments: [
            ("firefox", ["firefox"]),
            ("  firefox   --new-tab  ", ["firefox", "--new-tab"]),
            ("'/opt/my browser/run' %s", ["/opt/my browser/run", "%s"]),
            (#""say \"hi\"" a\ b"#, [#"say "hi""#, "a b"]),
            ("''", [""]),
        ])
        func commandsAreSplitLikeAShell(line: String, words: [String]) {
            #expect(BrowserCommand.words(line) == words)
        }

        @Test func percentSIsReplacedInEveryArgument() {
            let arguments = BrowserCommand.arguments(["open", "--url=%s", "%s"], url: Self.url)
            #expect(arguments == ["--url=\(Self.url.absoluteString)", Self.url.absoluteString])
        }
    }
}
