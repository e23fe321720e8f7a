import Foundation

/// The Secret Service (GNOME Keyring, KWallet) as a ``KeyringBackend``, through ``LibSecret``.
///
/// Items are kept in the collection the `default` alias names (the login keyring), under one schema per kind of
/// item. A locked collection is ``CredentialStoreError/unavailable``; so is any failure of a service that is there.
/// A service that is not on the bus, or a bus without a default collection, is ``KeyringAvailability/absent(_:)``.
package struct SecretServiceKeyring: KeyringBackend {
    let library: LibSecret
    let schema: LibSecret.Schema

    /// The schema of the vault key item; its attributes are `application` (`tether`) and `vault` (the folder).
    package static let vaultKeySchema = LibSecret.Schema(
        name: "org.tether.VaultKey",
        attributes: ["application", "vault"]
    )

    package init(library: LibSecret, schema: LibSecret.Schema) {
        self.library = library
        self.schema = schema
    }

    /// The environment variable that turns the Secret Service off for Tether (`0`, `no`, `off` or `false`).
    private static let switchVariable = "TETHER_SECRET_SERVICE"

    /// The keyring for a process with `environment`, or why there is none to try.
    ///
    /// The Secret Service is tried only when the environment names a session bus (`DBUS_SESSION_BUS_ADDRESS`):
    /// without one, libsecret would try to start a bus of its own (`dbus-launch`). Tests that pass an environment
    /// without it never touch the user's keyring.
    package static func forEnvironment(
        _ environment: [String: String],
        schema: LibSecret.Schema,
        library: @autoclosure () -> LibSecret? = LibSecret.shared
    ) -> Result<SecretServiceKeyring, KeyringSkipped> {
        if let value = environment[switchVariable]?.lowercased(), ["0", "no", "off", "false"].contains(value) {
            return .failure(KeyringSkipped(reason: "the Secret Service is turned off with \(switchVariable)=\(value)"))
        }
        guard let bus = environment["DBUS_SESSION_BUS_ADDRESS"], !bus.isEmpty else {
            return .failure(KeyringSkipped(reason: "there is no D-Bus session (DBUS_SESSION_BUS_ADDRESS is not set)"))
        }
        guard let library = library() else {
            return .failure(KeyringSkipped(reason: "libsecret (\(LibSecret.libraryName)) is not installed"))
        }
        return .success(SecretServiceKeyring(library: library, schema: schema))
    }

    /// Why no keyring is tried.
    package struct KeyringSkipped: Error, Sendable {
        package let reason: String
    }

    package func availability() throws -> KeyringAvailability {
        let state: LibSecret.CollectionState
        do {
            state = try library.collectionState(alias: "default")
        } catch let failure as LibSecret.Failure where failure.meansAbsent {
            return .absent("no Secret Service answers on the D-Bus session (\(failure.message))")
        } catch {
            throw Self.unavailable(error)
        }
        switch state {
        case .missing:
            return .absent("the Secret Service has no default collection (no login keyring)")
        case .locked:
            throw CredentialStoreError.unavailable.with(
                message: "The Secret Service keyring is locked; unlock it (log in to the desktop session) and retry"
            )
        case .unlocked:
            return .available
        }
    }

    package func lookup(_ attributes: [String: String]) throws -> String? {
        do {
            return try library.lookup(schema, attributes)
        } catch {
            throw Self.unavailable(error)
        }
    }

    package func store(_ secret: String, label: String, attributes: [String: String]) throws {
        do {
            try library.store(schema, attributes, secret: secret, label: label, collection: "default")
        } catch {
            throw Self.unavailable(error)
        }
    }

    package func values(of name: String, matching attributes: [String: String]) throws -> [String] {
        do {
            return try library.search(schema, attributes, valuesOf: name)
        } catch {
            throw Self.unavailable(error)
        }
    }

    @discardableResult
    package func clear(_ attributes: [String: String]) throws -> Bool {
        do {
            return try library.clear(schema, attributes)
        } catch {
            throw Self.unavailable(error)
        }
    }

    /// A failure of a Secret Service that is there: retry later. GLib's messages name D-Bus objects, not secrets.
    static func unavailable(_ error: any Error) -> CredentialStoreError {
        guard let failure = error as? LibSecret.Failure else {
            return CredentialStoreError.unavailable.with(message: "The Secret Service failed", cause: error)
        }
        let locked = failure.meansLocked ? " (the keyring is locked; unlock it and retry)" : ""
        return CredentialStoreError.unavailable.with(
            message: "The Secret Service failed\(locked): \(failure.message) [\(failure.domain) \(failure.code)]"
        )
    }
}
