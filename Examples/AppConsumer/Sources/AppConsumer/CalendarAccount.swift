import Foundation
import Tether
import TetherCalendar
import TetherOAuth
import TetherURLSession

#if canImport(Security)
import TetherKeychain
#endif

/// What an app builds with Tether: a Google connection kept in the platform's store, and its calendar as a source.
public struct CalendarAccount: Sendable {
    /// The connection's session.
    public let session: Session
    /// Its Google calendar.
    public let calendar: any CalendarSource

    /// Wires a Google connection.
    /// - Parameters:
    ///   - clientID: The app's OAuth client ID.
    ///   - store: Where the connection is kept; on Apple platforms the keychain by default.
    /// - Throws: A configuration or store error.
    public init(clientID: String, store: (any CredentialStore)? = nil) throws {
        let transport = URLSessionTransport()
        let client = try OAuthClient(
            configuration: .google(clientID: clientID, redirectURI: URL(string: "com.example.app:/oauth")),
            transport: transport
        )
        let chosenStore = try store ?? Self.platformStore()
        session = Session(id: "google", store: chosenStore, refresher: client, revoker: client)
        calendar = GoogleCalendarClient(session: session, transport: transport)
    }

    private static func platformStore() throws -> any CredentialStore {
        #if canImport(Security)
        return try KeychainStore()
        #else
        return try VaultStore()
        #endif
    }
}
