import Foundation
import Tether
import TetherOAuth

/// The exit statuses of `tether`, as `tether --help` documents them.
package enum ExitStatus: Int32, Sendable, CaseIterable {
    case success = 0
    case failure = 1
    case usage = 2
    case needsSignIn = 3
    case unavailable = 4
    case configuration = 5

    package var meaning: String {
        switch self {
        case .success: "success"
        case .failure: "other failure: a damaged vault, a refused request, a denial"
        case .usage: "usage: an unknown option, a missing or extra argument"
        case .needsSignIn: "needs sign-in: not connected, signed out, grant revoked, sign-in timed out"
        case .unavailable: "network, provider or shared store unavailable; try again later"
        case .configuration: "configuration: a wrong client id, endpoint or preset"
        }
    }
}

/// A failure the CLI reports: one sentence on what happened, one on how to fix it, and an exit status. Messages
/// come from the library's errors, which never contain a secret.
package struct CLIFailure: Error, Sendable, CustomStringConvertible {
    package let status: ExitStatus
    package let message: String
    package let fix: String?

    package init(_ status: ExitStatus, _ message: String, fix: String? = nil) {
        self.status = status
        self.message = message
        self.fix = fix
    }

    package var description: String { fix.map { "\(message). \($0)" } ?? message }

    /// Classifies any error the library throws.
    /// - Parameters:
    ///   - error: The error.
    ///   - connection: The connection it concerns, for the fix.
    package static func from(_ error: any Error, connection: String? = nil) -> CLIFailure {
        if let failure = error as? CLIFailure { return failure }
        if let binding = error as? ProfileBindingError { return binding.failure }
        let name = connection ?? "NAME"
        let login = "Run `tether login \(name)`"
        switch error {
        case let error as SessionError:
            switch error {
            case .notConnected:
                return CLIFailure(.needsSignIn, "'\(name)' is not signed in", fix: login)
            case .needsSignIn:
                let reason = error.signInReason.map { ": \($0.message)" } ?? ""
                return CLIFailure(.needsSignIn, "'\(name)' needs sign-in again\(reason)", fix: login)
            case .offline:
                return CLIFailure(
                    .unavailable,
                    strip(error.message),
                    fix: "The tokens are kept; try again when the provider can be reached"
                )
            case .storageUnavailable:
                if let store = error.cause as? CredentialStoreError { return from(store, connection: connection) }
                return CLIFailure(.failure, strip(error.message), fix: "Check TETHER_HOME and its permissions")
            case .misconfigured:
                if let store = error.cause as? CredentialStoreError { return from(store, connection: connection) }
                return CLIFailure(
                    .configuration,
                    strip(error.message),
                    fix: "Check the connection with `tether status`"
                )
            default:
                return CLIFailure(.failure, strip(error.message))
            }
        case let error as CredentialStoreError:
            switch error {
            case .wrongKey:
                return CLIFailure(
                    .failure,
                    "The vault record of '\(name)' was sealed with another key; it was left untouched",
                    fix:
                        "Set TETHER_VAULT_KEY to the key it was written with, or run `tether logout \(name)` to remove it"
                )
            case .corrupted, .unsupportedFormat:
                return CLIFailure(
                    .failure,
                    "The vault record of '\(name)' is damaged (\(strip(error.message))); it was left untouched",
                    fix: "Restore it from a backup, or run `tether logout \(name)` to remove it and sign in again"
                )
            case .io where error.isOutOfSpace:
                return CLIFailure(
                    .unavailable,
                    "The credential store has no room: \(strip(error.message))",
                    fix: "Free some space where TETHER_HOME is; the tokens are kept, and the next run stores or "
                        + "refreshes them"
                )
            case .unavailable:
                // The store cannot be reached (a PostgreSQL store whose database is down): nothing was lost or
                // signed out.
                return CLIFailure(
                    .unavailable,
                    "The credential store cannot be reached: \(strip(error.message))",
                    fix: "The tokens are kept; try again once the store is back (see `tether status`)"
                )
            case .missingKey:
                // The message names the key file and the records folder, and says how to recover.
                return CLIFailure(.configuration, strip(error.message))
            case .invalidConfiguration:
                // A folder of the home that is not a folder, not the user's or writable by others: the key is not
                // the problem.
                let folder = error.message.hasPrefix("The private folder")
                return CLIFailure(
                    .configuration,
                    strip(error.message),
                    fix: folder
                        ? "Point TETHER_HOME to a folder of yours that nobody else can write, or to none yet"
                        : "Check TETHER_VAULT_KEY (the base64 encoding of 32 bytes) and TETHER_HOME"
                )
            default:
                return CLIFailure(.failure, strip(error.message), fix: "Check TETHER_HOME and its permissions")
            }
        case let error as ProviderConfigurationError where error == .missingClientSecret:
            return CLIFailure(
                .configuration,
                strip(error.message),
                fix: "Pass --client-secret-file to `tether login \(name)`, or set TETHER_CLIENT_SECRET"
            )
        case let error as ProviderConfigurationError:
            return CLIFailure(
                .configuration,
                strip(error.message),
                fix: "Check the options of `tether login` (see `tether login --help`)"
            )
        case let error as OAuthError where error == .deviceCodeExpired:
            return CLIFailure(
                .needsSignIn,
                strip(error.message),
                fix: "Sign in again with --device, and approve the new code before it expires"
            )
        case let error as OAuthError:
            switch error.classification {
            case .transient:
                return CLIFailure(.unavailable, strip(error.message), fix: "Try again when the provider can be reached")
            case .configuration:
                return CLIFailure(
                    .configuration,
                    strip(error.message),
                    fix: "Check the client id, secret and endpoints"
                )
            default:
                return CLIFailure(.failure, strip(error.message))
            }
        case let error as AuthorizationPresentationError where error == .browserCommandFailed:
            return CLIFailure(
                .failure,
                strip(error.message),
                fix: "Fix BROWSER, unset it to have the URL printed (BROWSER= tether login …), or sign in with --device"
            )
        case let error as AuthorizationPresentationError where error == .timedOut:
            // Nothing is wrong but the time: signing in again fixes it, as with every other 3.
            return CLIFailure(
                .needsSignIn,
                "\(strip(error.message)): no sign-in came back from the browser in time",
                fix: "Sign in again (a longer --timeout gives more time), or with --device"
            )
        case let error as AuthorizationPresentationError:
            return CLIFailure(.failure, strip(error.message))
        case let error as AuthorizedClientError:
            switch error {
            case .unauthorized where error.requiresSignIn:
                return CLIFailure(.needsSignIn, strip(error.message), fix: login)
            case AuthorizedClientError.transport:
                return CLIFailure(.unavailable, strip(error.message))
            case AuthorizedClientError.server where Self.isTransient(error):
                let server = error.serverMessage.map { " (\($0))" } ?? ""
                return CLIFailure(.unavailable, strip(error.message) + server, fix: "Try again later")
            default:
                let server = error.serverMessage.map { " (\($0))" } ?? ""
                return CLIFailure(.failure, strip(error.message) + server)
            }
        case let error as TransportError:
            return CLIFailure(.unavailable, strip(error.message))
        default:
            return CLIFailure(.failure, "\(error)")
        }
    }

    /// Whether a later attempt may succeed, as Tether decides it everywhere (`FailureClassifier`).
    private static func isTransient(_ error: AuthorizedClientError) -> Bool {
        FailureClassifier.classify(statusCode: error.httpStatus ?? 0, retryAfter: error.retryAfter).isTransient
    }

    /// A message without its trailing period, so that the fix can follow.
    private static func strip(_ message: String) -> String {
        message.hasSuffix(".") ? String(message.dropLast()) : message
    }
}
