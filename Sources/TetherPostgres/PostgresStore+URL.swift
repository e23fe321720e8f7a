import Foundation
public import PostgresNIO
import Tether

extension PostgresStore {
    /// A pool configuration from a `postgresql://user[:password]@host[:port]/database` URL, without TLS (for a
    /// server on loopback or a private network; pass a configuration with TLS to the client otherwise).
    /// - Throws: ``Tether/CredentialStoreError/invalidConfiguration`` when the URL is not of that form. The message
    ///   never contains the URL, which may hold a password.
    /// - Parameter url: The URL.
    /// - Returns: The configuration.
    public static func clientConfiguration(url: String) throws -> PostgresClient.Configuration {
        guard let components = URLComponents(string: url),
            components.scheme == "postgresql" || components.scheme == "postgres",
            let host = components.host, !host.isEmpty,
            let user = components.user, !user.isEmpty
        else {
            throw CredentialStoreError.invalidConfiguration.with(
                message: "A PostgreSQL URL has the form postgresql://user[:password]@host[:port]/database"
            )
        }
        let database = components.path.hasPrefix("/") ? String(components.path.dropFirst()) : components.path
        return PostgresClient.Configuration(
            host: host,
            port: components.port ?? 5432,
            username: user.removingPercentEncoding ?? user,
            password: components.password.map { $0.removingPercentEncoding ?? $0 },
            database: database.isEmpty ? nil : database,
            tls: .disable
        )
    }
}
