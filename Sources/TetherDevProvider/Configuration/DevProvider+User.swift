@available(macOS 14, iOS 17, tvOS 17, visionOS 1, *)
extension DevProvider {
    /// A user who can sign in on the provider's login page.
    public struct User: Sendable {
        /// The login name.
        public var username: String
        /// The password.
        public var password: String
        /// The stable subject identifier (`sub`).
        public var subject: String
        /// The email address (`email`; `email_verified` is `true`).
        public var email: String
        /// The display name (`name`).
        public var name: String

        /// Creates a user.
        public init(username: String, password: String, subject: String, email: String, name: String) {
            self.username = username
            self.password = password
            self.subject = subject
            self.email = email
            self.name = name
        }

        /// `ada` / `lovelace`, subject `ada-0001`, `ada@example.com`, "Ada Lovelace".
        public static let ada = User(
            username: "ada",
            password: "lovelace",
            subject: "ada-0001",
            email: "ada@example.com",
            name: "Ada Lovelace"
        )

        /// `grace` / `hopper`, subject `grace-0002`, `grace@example.com`, "Grace Hopper".
        public static let grace = User(
            username: "grace",
            password: "hopper",
            subject: "grace-0002",
            email: "grace@example.com",
            name: "Grace Hopper"
        )
    }
}
