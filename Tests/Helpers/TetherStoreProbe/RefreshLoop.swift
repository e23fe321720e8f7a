import Foundation
import Logging
import Tether
import TetherTesting

/// `refresh-loop <vault-dir> <issuer-state-file> <connection-id> <seconds> <token-lifetime-ms>`
///
/// Keeps asking a ``Session`` on a shared vault for a valid access token for `seconds`, refreshing through a
/// ``TestIssuer`` whose state lives in a file shared by every probe, so that a refresh token used twice — by any
/// process — is caught. Prints `ok <calls> <refresh-failures>` and exits 0 when the last token was issued by the
/// issuer; exits 1 otherwise. Never prints a token.
func refreshLoop(_ arguments: [String]) async -> Int32 {
    guard arguments.count == 5, let seconds = Double(arguments[3]), let lifetimeMillis = Int(arguments[4]) else {
        FileHandle.standardError.write(
            Data("usage: refresh-loop <vault-dir> <issuer-state-file> <id> <seconds> <lifetime-ms>\n".utf8)
        )
        return 64
    }
    let silent = Logger(label: "probe", factory: { _ in SwiftLogNoOpLogHandler() })
    do {
        let store = try VaultStore(directory: URL(fileURLWithPath: arguments[0]), logger: silent)
        let issuer = TestIssuer(
            lifetime: .milliseconds(lifetimeMillis),
            stateFile: URL(fileURLWithPath: arguments[1])
        )
        let session = Session(
            id: ConnectionID(arguments[2]),
            store: store,
            refresher: issuer,
            configuration: Session.Configuration(retry: Backoff(initialDelay: .milliseconds(20))),
            logger: silent
        )
        let deadline = ContinuousClock.now.advanced(by: .milliseconds(Int(seconds * 1000)))
        var calls = 0
        var failures = 0
        var last: AccessToken?
        while ContinuousClock.now < deadline {
            do {
                last = try await session.validAccessToken()
                calls += 1
            } catch {
                failures += 1
                FileHandle.standardError.write(Data("refresh-loop: \(error)\n".utf8))
                if let error = error as? SessionError, error.requiresReauthentication { break }
            }
            try await Task.sleep(for: .milliseconds(5))
        }
        // Issued, not unexpired: a 1 s token may expire between the last call and this check on a busy machine;
        // reuse detection and failed refreshes are what the issuer's counters check.
        guard let last, try issuer.issued(last) else {
            probeSay("failed \(calls) \(failures)")
            return 1
        }
        probeSay("ok \(calls) \(failures)")
        return 0
    } catch {
        FileHandle.standardError.write(Data("refresh-loop: \(error)\n".utf8))
        return 1
    }
}
