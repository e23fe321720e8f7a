import Foundation
import Tether

/// The vault target's seeds: real records (mode 0, sealed with the fixed test key) and their plaintexts (mode 1),
/// made with the library's own encoder so they follow the record format exactly.
enum VaultSeeds {
    static func write(to directory: URL) throws {
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let received = Date(timeIntervalSince1970: 1_790_000_000)
        let secret = SecretCheck.marker
        let connections = [
            Connection(
                id: FuzzTarget.vaultID,
                account: Account(providerID: "google", subject: "108234567890123456789", displayIdentifier: "a@b.c"),
                tokens: TokenSet(
                    accessToken: AccessToken("ya29.a0-\(secret)"),
                    refreshToken: RefreshToken("1//0g-\(secret)"),
                    idToken: IDToken("eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiIxIn0.\(secret)"),
                    scopes: ["openid", "email", "https://www.googleapis.com/auth/calendar.readonly"],
                    receivedAt: received,
                    expiresAt: received.addingTimeInterval(3599)
                ),
                metadata: ["calendar.selected": "primary"]
            ),
            Connection(
                id: FuzzTarget.vaultID,
                account: Account(providerID: "microsoft", subject: "00000000-0000-0000-66f3-3332eca7ea81"),
                tokens: TokenSet(
                    accessToken: AccessToken("EwB4A8l6-\(secret)"),
                    refreshToken: RefreshToken("M.C5-\(secret)"),
                    receivedAt: received,
                    expiresAt: nil
                )
            ),
        ]
        for (index, connection) in connections.enumerated() {
            let plaintext = try ConnectionCodec.encode(connection)
            let file = try VaultRecordFormat.seal(plaintext: plaintext, id: connection.id, key: FuzzTarget.vaultKey)
            try (Data([0]) + file).write(to: directory.appendingPathComponent("record-\(index)"))
            try (Data([1]) + plaintext).write(to: directory.appendingPathComponent("plaintext-\(index)"))
        }
    }
}
