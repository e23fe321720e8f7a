import Foundation

/// A device authorization (RFC 8628) and its polling state.
struct DeviceAuthorizationRecord: Sendable {
    enum Status: Sendable {
        case pending
        case approved(username: String, authTime: Date)
        case denied
        case consumed
    }

    let userCode: String
    let clientID: String
    let scopes: [String]
    let expiresAt: Date
    var interval: TimeInterval
    var lastPoll: Date?
    var status: Status = .pending
}
