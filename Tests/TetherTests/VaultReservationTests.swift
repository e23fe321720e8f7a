import Foundation
import Testing
import Tether
import TetherTestSupport
import TetherTesting

/// A rotated refresh token must have room to be stored before the refresh that rotates it is sent: the vault sets the
/// space aside under the lease (docs/decisions.md §36). These tests run out of space for real, on a small tmpfs.
@Suite(.enabled(if: TmpfsMount.isAvailable, "mounting a tmpfs needs root on Linux"))
struct VaultReservationTests {
    static let id: ConnectionID = "dev"

    /// A vault on a fresh 256 KiB tmpfs, a record in it, and the mount to fill.
    func makeVault() async throws -> (TmpfsMount, VaultStore, Connection) {
        let mount = try TmpfsMount(size: 256 * 1024)
        let vault = try VaultStore(
            directory: mount.directory.appendingPathComponent("vault"),
            key: .generate(),
            environment: [:]
        )
        let record = try await vault.write(Self.connection(refreshToken: "refresh-1"))
        return (mount, vault, record)
    }

    static func connection(refreshToken: String) -> Connection {
        Connection(
            id: id,
            account: Account(providerID: "dev", subject: "user-1"),
            tokens: TokenSet(
                accessToken: AccessToken("access-\(refreshToken)"),
                refreshToken: RefreshToken(refreshToken),
                receivedAt: Date(timeIntervalSince1970: 1_800_000_000),
                expiresAt: Date(timeIntervalSince1970: 1_800_003_600)
            )
        )
    }

    @Test func theReservedSpaceTakesTheNextWriteOnAFullDisk() async throws {
        let (mount, vault, record) = try await makeVault()
        defer { mount.unmount() }
        try await vault.reserveSpace(forNextWriteOf: Self.id)
        #expect(mount.fill() > 0)

        let written = try await vault.write(Self.connection(refreshToken: "refresh-2"), expecting: .version(1))
        #expect(written.version == record.version + 1)
        #expect(try await vault.read(Self.id)?.tokens.refreshToken == RefreshToken("refresh-2"))
    }

    @Test func withoutAReservationAFullDiskRefusesTheWrite() async throws {
        let (mount, vault, _) = try await makeVault()
        defer { mount.unmount() }
        mount.fill()

        await #expect(throws: CredentialStoreError.io) {
            try await vault.write(Self.connection(refreshToken: "refresh-2"), expecting: .version(1))
        }
        #expect(try await vault.read(Self.id)?.tokens.refreshToken == RefreshToken("refresh-1"))
    }

    @Test func reservingOnAFullDiskSaysSoAndLeavesTheRecord() async throws {
        let (mount, vault, _) = try await makeVault()
        defer { mount.unmount() }
        mount.fill()

        let error = try await #require(throws: CredentialStoreError.self) {
            try await vault.reserveSpace(forNextWriteOf: Self.id)
        }
        #expect(error == .io)
        #expect(error.isOutOfSpace)
        #expect(error.message.contains("no refresh was sent"), "\(error.message)")
        #expect(try await vault.read(Self.id)?.tokens.refreshToken == RefreshToken("refresh-1"))
        // Nothing is left behind: freeing space lets the next reservation and write through.
        mount.free()
        try await vault.reserveSpace(forNextWriteOf: Self.id)
        #expect(try await vault.write(Self.connection(refreshToken: "refresh-2")).version == 2)
    }

    /// The session asks for the space before it sends the refresh: on a full disk the provider never sees it, the
    /// stored grant stays, and the status is storage trouble, not signed out.
    @Test func aSessionOnAFullDiskSendsNoRefresh() async throws {
        let (mount, vault, _) = try await makeVault()
        defer { mount.unmount() }
        let harness = SessionHarness(store: vault)
        let signedIn = try await harness.signIn()
        harness.clock.advance(by: .seconds(3600))
        mount.fill()

        let error = try await #require(throws: SessionError.self) { try await harness.session.validAccessToken() }
        #expect(error == .storageUnavailable)
        #expect(try harness.issuer.counters().refreshes == 0)
        #expect(await harness.session.status.kind == .storageUnavailable)
        #expect(try await vault.read(Self.id)?.tokens.refreshToken == signedIn.tokens.refreshToken)

        // Space again: the same grant refreshes once, with no reuse.
        mount.free()
        let token = try await harness.session.validAccessToken()
        #expect(try harness.issuer.accepts(token))
        let counters = try harness.issuer.counters()
        #expect(counters.refreshes == 1)
        #expect(counters.reuseDetections == 0)
    }

    @Test func signingOutRemovesTheReservation() async throws {
        let (mount, vault, _) = try await makeVault()
        defer { mount.unmount() }
        try await vault.reserveSpace(forNextWriteOf: Self.id)
        let records = mount.directory.appendingPathComponent("vault/records").path
        #expect(try FileManager.default.contentsOfDirectory(atPath: records).contains { $0.hasSuffix(".slot") })

        try await vault.delete(Self.id)
        #expect(try FileManager.default.contentsOfDirectory(atPath: records).isEmpty)
    }
}
