import Foundation
import Testing
import Tether

@testable import TetherCalendar

struct StatusDerivationTests {
    static let account = Account(providerID: "google", subject: "1", displayIdentifier: "ada@example.com")
    static let since = Date(timeIntervalSince1970: 1_767_225_600)

    static func error(_ base: CalendarError, status: Int? = nil) -> CalendarError {
        base.with(message: "failed", httpStatus: status)
    }

    /// sign-in or permission, last fetch error → status kind.
    static let table: [(CalendarSourceStatus, CalendarError?, CalendarSourceStatus.Kind)] = [
        (.connected(account: account), nil, .connected),
        (.connected(account: account), error(.needsSignIn), .needsSignIn),
        (.connected(account: account), error(.accessDenied, status: 403), .accessDenied),
        (.connected(account: account), error(.offline), .offline),
        (.connected(account: account), error(.rateLimited, status: 429), .offline),
        (.connected(account: account), error(.storageUnavailable), .storageUnavailable),
        (.connected(account: account), error(.misconfigured), .misconfigured),
        (.connected(account: account), error(.api, status: 500), .apiError),
        (.connected(account: account), error(.decoding), .apiError),
        (.refreshing(account: account), nil, .refreshing),
        (.refreshing(account: nil), error(.offline), .offline),
        (.offline(since: nil, reason: "down"), nil, .offline),
        (.offline(since: nil, reason: "down"), error(.needsSignIn), .needsSignIn),
        (.needsSignIn(accountHint: account, reason: "revoked"), nil, .needsSignIn),
        (.needsSignIn(accountHint: account, reason: "revoked"), error(.offline), .needsSignIn),
        (.notConnected, error(.needsSignIn), .notConnected),
        (.storageUnavailable(reason: "locked"), error(.offline), .storageUnavailable),
        (.accessDenied(reason: "denied"), nil, .accessDenied),
        (.misconfigured(problem: "x"), error(.api), .misconfigured),
    ]

    @Test(arguments: table)
    func derivedFromTheSignInAndTheLastFetch(
        access: CalendarSourceStatus,
        lastError: CalendarError?,
        expected: CalendarSourceStatus.Kind
    ) {
        let status = CalendarSourceStatus.derive(access: access, lastError: lastError, failingSince: Self.since)
        #expect(status.kind == expected)
    }

    @Test func aRefusedTokenKeepsTheAccountHintAndOfflineSaysSinceWhen() {
        let status = CalendarSourceStatus.derive(
            access: .connected(account: Self.account),
            lastError: Self.error(.needsSignIn),
            failingSince: Self.since
        )
        #expect(status == .needsSignIn(accountHint: Self.account, reason: "failed"))
        let offline = CalendarSourceStatus.derive(
            access: .connected(account: Self.account),
            lastError: Self.error(.offline),
            failingSince: Self.since
        )
        #expect(offline == .offline(since: Self.since, reason: "failed"))
    }

    static let sessionTable: [(ConnectionStatus, CalendarSourceStatus.Kind)] = [
        (.notConnected, .notConnected),
        (.restoring, .refreshing),
        (.connected(account: account, until: nil), .connected),
        (.refreshing(account: account), .refreshing),
        (.offline(account: account, nextAttempt: nil, lastError: .transient("down")), .offline),
        (.storageUnavailable(.unavailable), .storageUnavailable),
        (.needsSignIn(reason: .grantRevoked, accountHint: account), .needsSignIn),
        (.misconfigured(problem: "no client id"), .misconfigured),
    ]

    @Test(arguments: sessionTable)
    func fromASessionStatus(connection: ConnectionStatus, expected: CalendarSourceStatus.Kind) {
        #expect(CalendarSourceStatus(connection).kind == expected)
    }

    @Test func theNeedsSignInStatusNamesTheAccountToPreselect() {
        let status = CalendarSourceStatus(.needsSignIn(reason: .grantRevoked, accountHint: Self.account))
        #expect(status.account == Self.account)
        #expect(status.requiresUserAction)
        #expect(!status.description.contains("ada@example.com"))
    }

    static let authorizationTable: [(Int, EventKitAuthorization, CalendarSourceStatus.Kind)] = [
        (0, .notDetermined, .notConnected),
        (1, .restricted, .accessDenied),
        (2, .denied, .accessDenied),
        (3, .fullAccess, .connected),
        (4, .writeOnly, .accessDenied),
        (99, .denied, .accessDenied),
    ]

    @Test(arguments: authorizationTable)
    func fromTheDeviceCalendarAuthorization(
        raw: Int,
        authorization: EventKitAuthorization,
        expected: CalendarSourceStatus.Kind
    ) {
        #expect(EventKitAuthorization(eventKitRawValue: raw) == authorization)
        #expect(authorization.sourceStatus.kind == expected)
    }
}
