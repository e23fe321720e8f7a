import Tether

#if canImport(Security)
import Security
#else
import SecItemShim
#endif

extension KeychainStore {
    /// Keeps each connection's refresh token in an item of its own that only the user's presence unlocks: Face ID,
    /// Touch ID or the device passcode, as the ``Policy`` says.
    ///
    /// The record (account, access token, metadata) stays in the store's usual item, readable without the user, so
    /// restoring a session and handing out a fresh access token never prompt. Only a refresh reads the protected
    /// item, once, right before the refresh is sent. Within ``reuseDuration`` of an authentication the store reuses
    /// it, so refreshes close together prompt once.
    ///
    /// The protected item uses `kSecAttrAccessibleWhenPasscodeSetThisDeviceOnly` with an access control
    /// (`SecAccessControlCreateWithFlags`): it never syncs, it is readable only while the device is unlocked, and it
    /// cannot be created on a device without a passcode (writing then throws
    /// ``CredentialStoreError/invalidConfiguration``).
    public struct RefreshTokenProtection: Sendable, Hashable {
        /// Which authentication unlocks the refresh token.
        public var policy: Policy
        /// How long an authentication is reused by later refreshes before the user is asked again; 10 seconds by
        /// default. Measured on the store's clock.
        public var reuseDuration: Duration
        /// The reason shown in the authentication prompt (`LAContext.localizedReason`), such as "Stay signed in to
        /// your calendar". Face ID also needs `NSFaceIDUsageDescription` in the app's Info.plist.
        public var prompt: String

        /// Creates a protection.
        /// - Parameters:
        ///   - policy: Which authentication unlocks the refresh token.
        ///   - reuseDuration: How long one authentication serves later refreshes.
        ///   - prompt: The reason shown in the prompt.
        public init(policy: Policy, reuseDuration: Duration = .seconds(10), prompt: String) {
            self.policy = policy
            self.reuseDuration = reuseDuration
            self.prompt = prompt
        }
    }
}

extension KeychainStore.RefreshTokenProtection {
    /// Which authentication unlocks a protected refresh token: a `SecAccessControlCreateFlags` value.
    public struct Policy: Sendable, Hashable, CustomStringConvertible {
        private enum Kind: Hashable {
            case biometryCurrentSet
            case biometryAny
            case userPresence
        }

        private let kind: Kind

        private init(kind: Kind) { self.kind = kind }

        /// Face ID or Touch ID as enrolled when the token was stored. Enrolling another face or finger, or removing
        /// one, invalidates the token: the session then needs sign-in with ``SignInReason/biometryChanged``, so that
        /// a person enrolled later does not inherit the sign-in.
        public static let biometryCurrentSet = Self(kind: .biometryCurrentSet)
        /// Face ID or Touch ID, whoever is enrolled; the token survives enrolment changes.
        public static let biometryAny = Self(kind: .biometryAny)
        /// Biometry or the device passcode; works without enrolled biometry.
        public static let userPresence = Self(kind: .userPresence)

        /// The Security framework's flags.
        var flags: SecAccessControlCreateFlags {
            switch kind {
            case .biometryCurrentSet: .biometryCurrentSet
            case .biometryAny: .biometryAny
            case .userPresence: .userPresence
            }
        }

        /// Why a protected token that is gone can never be unlocked again, for the user.
        var reasonWhenLost: SignInReason {
            kind == .biometryCurrentSet ? .biometryChanged : .protectionLost
        }

        /// `biometryCurrentSet`, `biometryAny` or `userPresence`.
        public var description: String {
            switch kind {
            case .biometryCurrentSet: "biometryCurrentSet"
            case .biometryAny: "biometryAny"
            case .userPresence: "userPresence"
            }
        }
    }
}
