import Foundation
import Testing
import Tether

/// A token set whose refresh token a store keeps locked names it by fingerprint (docs/decisions.md §37).
struct LockedRefreshTokenTests {
    static let received = Date(timeIntervalSince1970: 1_767_225_600)

    static func makeTokens(refresh: String = "rt-CANARY-2222") -> TokenSet {
        TokenSet(
            accessToken: AccessToken("at-1"),
            refreshToken: RefreshToken(refresh),
            receivedAt: received,
            expiresAt: received.addingTimeInterval(3600)
        )
    }

    @Test func lockingKeepsEqualityAndTheRefreshTokenIdentity() {
        let tokens = Self.makeTokens()
        let locked = tokens.lockingRefreshToken()
        #expect(locked.refreshToken == nil)
        #expect(locked.lockedRefreshToken == RefreshTokenFingerprint(of: RefreshToken("rt-CANARY-2222")))
        #expect(locked.hasRefreshToken)
        #expect(locked == tokens)
        #expect(locked.hashValue == tokens.hashValue)
        #expect(locked != Self.makeTokens(refresh: "rt-other").lockingRefreshToken())
        #expect(locked != Self.makeTokens(refresh: "rt-other"))
        #expect(locked.unlocking(with: RefreshToken("rt-CANARY-2222")).refreshToken == RefreshToken("rt-CANARY-2222"))
    }

    @Test func aRotationIsToldFromALockedToken() {
        let locked = Self.makeTokens().lockingRefreshToken()
        let unlocked = locked.unlocking(with: RefreshToken("rt-CANARY-2222"))
        let rotated = unlocked.applying(
            TokenResponse(
                accessToken: AccessToken("at-2"),
                refreshToken: RefreshToken("rt-3"),
                expiresIn: .seconds(60)
            ),
            receivedAt: Self.received
        )
        #expect(rotated.rotatesRefreshToken(of: locked))
        let kept = unlocked.applying(
            TokenResponse(accessToken: AccessToken("at-2"), expiresIn: .seconds(60)),
            receivedAt: Self.received
        )
        #expect(!kept.rotatesRefreshToken(of: locked))
        #expect(kept.refreshTokenFingerprint == locked.lockedRefreshToken)
        let stillLocked = locked.applying(
            TokenResponse(accessToken: AccessToken("at-2"), expiresIn: .seconds(60)),
            receivedAt: Self.received
        )
        #expect(stillLocked.lockedRefreshToken == locked.lockedRefreshToken && stillLocked.refreshToken == nil)
    }

    @Test func aLockedRecordRoundTripsThroughTheStoreCodecWithoutTheToken() throws {
        let connection = Connection(
            id: "google",
            account: Account(providerID: "google", subject: "1"),
            tokens: Self.makeTokens().lockingRefreshToken()
        )
        let data = try ConnectionCodec.encode(connection)
        let text = String(decoding: data, as: UTF8.self)
        #expect(!text.contains("rt-CANARY"))
        #expect(text.contains(try #require(connection.tokens.lockedRefreshToken).hexadecimal))
        #expect(try ConnectionCodec.decode(data) == connection)
        #expect("\(connection.tokens.lockedRefreshToken!)".hasPrefix("RefreshTokenFingerprint("))
    }

    @Test func aFingerprintThatIsNotThirtyTwoBytesIsRejected() {
        for bad in [
            "\"abc\"", "\"\(String(repeating: "zz", count: 32))\"", "\"\(String(repeating: "ab", count: 31))\"",
        ] {
            #expect(throws: DecodingError.self) {
                try JSONDecoder().decode(RefreshTokenFingerprint.self, from: Data(bad.utf8))
            }
        }
    }

    @Test func anUnchangedRecordWithoutLockedTokenEncodesAsBefore() throws {
        let connection = Connection(
            id: "google",
            account: Account(providerID: "google", subject: "1"),
            tokens: Self.makeTokens()
        )
        let text = String(decoding: try ConnectionCodec.encode(connection), as: UTF8.self)
        #expect(!text.contains("lockedRefreshToken"))
    }
}
