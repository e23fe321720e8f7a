import Foundation
import Testing
import Tether

struct TokenSetTests {
    static let received = Date(timeIntervalSince1970: 1_767_225_600)

    @Test func expiryIsAnchoredAtTheMomentOfReceipt() {
        let tokens = TokenSet(
            TokenResponse(accessToken: AccessToken("a"), expiresIn: .seconds(3600)),
            receivedAt: Self.received
        )
        #expect(tokens.expiresAt == Self.received.addingTimeInterval(3600))
        #expect(tokens.lifetime == .seconds(3600))
    }

    @Test func missingExpiresInMeansUnknownExpiry() {
        let tokens = TokenSet(TokenResponse(accessToken: AccessToken("a"), expiresIn: nil), receivedAt: Self.received)
        #expect(tokens.expiresAt == nil)
        #expect(tokens.lifetime == nil)
    }

    @Test func negativeExpiresInIsAlreadyExpired() {
        let tokens = TokenSet(
            TokenResponse(accessToken: AccessToken("a"), expiresIn: .seconds(-5)),
            receivedAt: Self.received
        )
        #expect(tokens.expiresAt == Self.received)
    }

    @Test func refreshWithoutRefreshTokenKeepsTheOldOneAndTheIDToken() {
        let old = TokenSet(
            accessToken: AccessToken("a1"),
            refreshToken: RefreshToken("r1"),
            idToken: IDToken("i1"),
            scopes: ["s"],
            receivedAt: Self.received,
            expiresAt: Self.received.addingTimeInterval(60)
        )
        let later = Self.received.addingTimeInterval(100)
        let merged = old.applying(
            TokenResponse(accessToken: AccessToken("a2"), expiresIn: .seconds(60)),
            receivedAt: later
        )
        #expect(merged.accessToken == AccessToken("a2"))
        #expect(merged.refreshToken == RefreshToken("r1"))
        #expect(merged.idToken == IDToken("i1"))
        #expect(merged.scopes == ["s"])
        #expect(merged.expiresAt == later.addingTimeInterval(60))
        #expect(!merged.rotatesRefreshToken(of: old))
        let rotated = old.applying(
            TokenResponse(accessToken: AccessToken("a3"), refreshToken: RefreshToken("r2"), expiresIn: .seconds(60)),
            receivedAt: later
        )
        #expect(rotated.rotatesRefreshToken(of: old))
    }

    @Test func writePreconditionsCompareVersions() {
        #expect(WritePrecondition.any.isSatisfied(byStoredVersion: nil))
        #expect(WritePrecondition.any.isSatisfied(byStoredVersion: 3))
        #expect(WritePrecondition.absent.isSatisfied(byStoredVersion: nil))
        #expect(!WritePrecondition.absent.isSatisfied(byStoredVersion: 1))
        #expect(WritePrecondition.version(2).isSatisfied(byStoredVersion: 2))
        #expect(!WritePrecondition.version(2).isSatisfied(byStoredVersion: 3))
        #expect(!WritePrecondition.version(2).isSatisfied(byStoredVersion: nil))
    }
}
