/// A development provider that refuses to start. It never contains a secret.
///
/// Match it on its code: `catch let error as DevProviderError where error == .nonLoopbackHost`.
public struct DevProviderError: Error, Sendable, Equatable, CustomStringConvertible {
    enum Code: Sendable {
        case nonLoopbackHost
    }

    let code: Code
    /// What went wrong, in one sentence.
    public let message: String

    init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    /// ``DevProvider/Configuration/host`` is not a loopback address and
    /// ``DevProvider/Configuration/allowNonLoopbackHost`` is off: anyone on the network could mint tokens.
    public static let nonLoopbackHost = DevProviderError(
        .nonLoopbackHost,
        "The development provider binds only loopback addresses unless allowNonLoopbackHost is set"
    )

    /// The type and the message.
    public var description: String { "DevProviderError: \(message)" }

    /// Errors are equal when their codes are, whatever their messages.
    public static func == (lhs: DevProviderError, rhs: DevProviderError) -> Bool { lhs.code == rhs.code }

    /// Lets `switch` and `catch` match any error on the code.
    public static func ~= (lhs: DevProviderError, rhs: any Error) -> Bool {
        (rhs as? DevProviderError)?.code == lhs.code
    }

    func with(message: String) -> DevProviderError { DevProviderError(code, message) }
}
