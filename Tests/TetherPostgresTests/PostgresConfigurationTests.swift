import Foundation
import PostgresNIO
import Testing
import Tether
import TetherPostgres

/// Configuration from the environment and URLs; no server needed.
struct PostgresConfigurationTests {
    @Test func keysComeFromTheEnvironment() throws {
        let (current, old) = (VaultKey.generate(), VaultKey.generate())
        let configuration = try PostgresStore.Configuration(
            tenant: "t",
            environment: [
                "TETHER_POSTGRES_KEY": current.revealedBase64,
                "TETHER_POSTGRES_PREVIOUS_KEYS": old.revealedBase64,
            ]
        )
        #expect(configuration.key.identifier == current.identifier)
        #expect(configuration.previousKeys.map(\.identifier) == [old.identifier])
    }

    @Test func keyComesFromAKeyFile() throws {
        let key = VaultKey.generate()
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("tether-pg-\(UUID().uuidString).key")
        try Data((key.revealedBase64 + "\n").utf8).write(to: path)
        try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: path.path)
        defer { try? FileManager.default.removeItem(at: path) }
        let configuration = try PostgresStore.Configuration(environment: ["TETHER_POSTGRES_KEY_FILE": path.path])
        #expect(configuration.key.identifier == key.identifier)
    }

    @Test func badOrMissingKeyIsAConfigurationErrorThatDoesNotQuoteIt() throws {
        let secret = "not-a-key-but-secret"
        let error = #expect(throws: CredentialStoreError.invalidConfiguration) {
            try PostgresStore.Configuration(environment: ["TETHER_POSTGRES_KEY": secret])
        }
        #expect(error.map { !"\($0)".contains(secret) } == true)
        #expect(throws: CredentialStoreError.invalidConfiguration) {
            try PostgresStore.Configuration(environment: [:])
        }
    }

    @Test func urlBecomesAPoolConfigurationWithoutQuotingIt() throws {
        let configuration = try PostgresStore.clientConfiguration(
            url: "postgresql://app:s%40cret@db.internal:6543/creds"
        )
        #expect(configuration.host == "db.internal")
        #expect(configuration.port == 6543)
        #expect(configuration.username == "app")
        #expect(configuration.password == "s@cret")
        #expect(configuration.database == "creds")
        let error = #expect(throws: CredentialStoreError.invalidConfiguration) {
            try PostgresStore.clientConfiguration(url: "mysql://app:hunter2@db/creds")
        }
        #expect(error.map { !"\($0)".contains("hunter2") } == true)
    }
}
