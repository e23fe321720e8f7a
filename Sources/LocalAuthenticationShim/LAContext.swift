public import Foundation

// LocalAuthentication's names (no behaviour), so that TetherKeychain's code that hands an authentication context to
// the keychain compiles off Apple platforms. The keychain simulator decides what a context has authenticated.

/// A mechanism for evaluating authentication policies and access controls. Here it only carries its settings;
/// `KeychainSimulator` keeps track of which contexts the simulated user authenticated.
///
/// https://developer.apple.com/documentation/localauthentication/lacontext
open class LAContext: @unchecked Sendable {
    /// The localized explanation shown in the authentication dialog.
    ///
    /// https://developer.apple.com/documentation/localauthentication/lacontext/localizedreason
    open var localizedReason: String = ""

    /// How long after the user unlocked the device with Touch ID an authentication succeeds without a new prompt;
    /// `0` (the default) for never.
    ///
    /// https://developer.apple.com/documentation/localauthentication/lacontext/touchidauthenticationallowablereuseduration
    open var touchIDAuthenticationAllowableReuseDuration: TimeInterval = 0

    /// Whether authentication may not be interactive: then an item that needs the user fails with
    /// `errSecInteractionNotAllowed` instead of prompting.
    ///
    /// https://developer.apple.com/documentation/localauthentication/lacontext/interactionnotallowed
    open var interactionNotAllowed: Bool = false

    /// Creates a context that has not authenticated anyone yet.
    ///
    /// https://developer.apple.com/documentation/localauthentication/lacontext/init()
    public init() {}

    /// Invalidates the context: it can no longer be used to authenticate.
    ///
    /// https://developer.apple.com/documentation/localauthentication/lacontext/invalidate()
    open func invalidate() {}
}

/// The largest value ``LAContext/touchIDAuthenticationAllowableReuseDuration`` takes (5 minutes).
///
/// https://developer.apple.com/documentation/localauthentication/latouchidauthenticationmaximumallowablereuseduration
public let LATouchIDAuthenticationMaximumAllowableReuseDuration: TimeInterval = 300
