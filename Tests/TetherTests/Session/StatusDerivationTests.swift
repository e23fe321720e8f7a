import Foundation
import Testing
import Tether

/// `Session.deriveStatus` on its own: every input a status depends on, without a session.
struct StatusDerivationTests {
    static let now = Date(timeIntervalSince1970: 1_800_000_000)
    static let account = Account(providerID: "dev", subject: "user-1")

    static func record(access: Bool = true, refresh: Bool = true, expiresIn: TimeInterval? = 3600) -> Connection {
        Connection(
            id: "dev",
            account: account,
            tokens: TokenSet(
                accessToken: access ? AccessToken("at") : nil,
                refreshToken: refresh ? RefreshToken("rt") : nil,
                receivedAt: now,
                expiresAt: expiresIn.map { now.addingTimeInterval($0) }
            )
        )
    }

    static func derive(
        _ record: Connection?,
        isLoaded: Bool = true,
        isRestoring: Bool = false,
        isRefreshing: Bool = false,
        lastFailure: Session.Failure? = nil
    ) -> ConnectionStatus {
        Session.deriveStatus(
            record: record,
            isLoaded: isLoaded,
            isRestoring: isRestoring,
            isRefreshing: isRefreshing,
            lastFailure: lastFailure,
            now: now
        )
    }

    @Test func noRecordIsNotConnectedOnceLoaded() {
        #expect(Self.derive(nil) == .notConnected)
        #expect(Self.derive(nil, isLoaded: false) == .restoring)
    }

    @Test func aLiveGrantIsConnectedUntilTheTokenExpires() {
        #expect(
            Self.derive(Self.record()) == .connected(account: Self.account, until: Self.now.addingTimeInterval(3600))
        )
    }

    @Test func anExpiredTokenWithARefreshTokenStaysConnected() {
        #expect(Self.derive(Self.record(expiresIn: -60)).kind == .connected)
    }

    @Test func anExpiredTokenWithoutARefreshTokenNeedsSignIn() {
        let status = Self.derive(Self.record(refresh: false, expiresIn: -60))
        #expect(status == .needsSignIn(reason: .sessionExpired, accountHint: Self.account))
    }

    @Test func aRecordWithoutTokensNeedsSignIn() {
        let status = Self.derive(Self.record(access: false, refresh: false))
        #expect(status == .needsSignIn(reason: .grantRevoked, accountHint: Self.account))
    }

    @Test func restoringAndRefreshingShowWhileNothingFailed() {
        #expect(Self.derive(Self.record(), isRestoring: true) == .restoring)
        #expect(Self.derive(Self.record(), isRefreshing: true) == .refreshing(account: Self.account))
    }

    @Test func aTransientFailureIsOfflineAndOutranksRefreshing() {
        let error = RefreshError.transient("HTTP 503")
        let next = Self.now.addingTimeInterval(30)
        let status = Self.derive(
            Self.record(),
            isRefreshing: true,
            lastFailure: .transient(error, nextAttempt: next)
        )
        #expect(status == .offline(account: Self.account, nextAttempt: next, lastError: error))
    }

    @Test func aPermanentFailureNeedsSignInWithItsReason() {
        let status = Self.derive(Self.record(), lastFailure: .permanent(.userDisabled))
        #expect(status == .needsSignIn(reason: .userDisabled, accountHint: Self.account))
        #expect(
            Self.derive(nil, lastFailure: .permanent(.userDisabled))
                == .needsSignIn(reason: .userDisabled, accountHint: nil)
        )
    }

    @Test func configurationAndStorageFailuresOutrankEverything() {
        #expect(
            Self.derive(Self.record(), isRestoring: true, lastFailure: .configuration("bad"))
                == .misconfigured(problem: "bad")
        )
        #expect(
            Self.derive(nil, isLoaded: false, lastFailure: .storage(.unavailable))
                == .storageUnavailable(.unavailable)
        )
    }
}
