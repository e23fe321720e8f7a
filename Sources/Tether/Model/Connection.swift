public import Foundation

/// Everything Tether keeps about one connection, written as one unit.
///
/// Account, tokens and metadata live in a single record, so they can never disagree: there is no separate
/// "signed in" flag that could survive the tokens. The store assigns ``version`` on every write and uses it for
/// compare-and-swap (see ``CredentialStore/write(_:expecting:)``).
public struct Connection: Sendable, Hashable, Codable, Identifiable {
    /// The connection's name in its store.
    public let id: ConnectionID
    /// Who is signed in.
    public var account: Account
    /// The tokens.
    public var tokens: TokenSet
    /// Application data that belongs with the connection, such as a selected calendar or the last successful
    /// sync. Do not put secrets here: metadata is not redacted.
    public var metadata: [String: String]
    /// The record's version in its store: 0 before the first write, then increased by one on every write.
    public internal(set) var version: UInt64

    /// Creates a record that has not been stored yet (version 0).
    /// - Parameters:
    ///   - id: The connection's name.
    ///   - account: Who is signed in.
    ///   - tokens: The tokens.
    ///   - metadata: Application data kept with the connection.
    public init(id: ConnectionID, account: Account, tokens: TokenSet, metadata: [String: String] = [:]) {
        self.id = id
        self.account = account
        self.tokens = tokens
        self.metadata = metadata
        self.version = 0
    }

    /// The same record with the version a store assigned. For ``CredentialStore`` implementations.
    /// - Parameter version: The stored version.
    /// - Returns: A copy carrying `version`.
    public func withVersion(_ version: UInt64) -> Connection {
        var copy = self
        copy.version = version
        return copy
    }
}

extension Connection: CustomStringConvertible {
    /// A summary without secrets: `Connection(google, Account(google, j***@example.com), v3)`.
    public var description: String { "Connection(\(id), \(account), v\(version))" }
}

/// Encodes and decodes ``Connection`` records for storage, secrets in clear.
///
/// Stores use it so that every backend writes the same, versioned JSON. Anything else that encodes a record
/// (for a log line, say) gets redacted secrets.
public enum ConnectionCodec {
    /// Encodes a record with its secrets, for a secure store.
    /// - Parameter connection: The record.
    /// - Returns: JSON bytes.
    public static func encode(_ connection: Connection) throws -> Data {
        let encoder = JSONEncoder()
        encoder.userInfo[.tetherRevealsSecrets] = true
        encoder.dateEncodingStrategy = .deferredToDate
        encoder.outputFormatting = [.sortedKeys]
        return try encoder.encode(connection)
    }

    /// Decodes a record written by ``encode(_:)``.
    /// - Parameter data: JSON bytes.
    /// - Returns: The record.
    /// - Throws: `DecodingError` when the bytes are not a record.
    public static func decode(_ data: Data) throws -> Connection {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .deferredToDate
        return try decoder.decode(Connection.self, from: data)
    }

    /// ``decode(_:)`` for a store's read of the record `id`: bytes that are not a record, or the record of another
    /// connection, are ``CredentialStoreError/corrupted``, named by `place` (such as "The vault file of x"). The
    /// decoding error is dropped on purpose: its context may quote record content, and an error's description shows
    /// its cause.
    package static func decodeFromStore(_ data: Data, id: ConnectionID, place: String) throws -> Connection {
        let connection: Connection
        do {
            connection = try decode(data)
        } catch {
            throw CredentialStoreError.corrupted.with(
                message: "\(place) does not hold a valid record; it was left untouched"
            )
        }
        guard connection.id == id else {
            throw CredentialStoreError.corrupted.with(message: "\(place) holds the record of another connection")
        }
        return connection
    }

    /// ``encode(_:)`` for a store's write: a failure is ``CredentialStoreError/io``, naming the record.
    package static func encodeForStore(_ connection: Connection) throws -> Data {
        do {
            return try encode(connection)
        } catch {
            throw CredentialStoreError.io.with(
                message: "The record of \(connection.id) could not be encoded",
                cause: error
            )
        }
    }
}
