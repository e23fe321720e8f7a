/// Runs the schema migration once per store, letting a failed attempt be tried again by the next operation.
actor SchemaGate {
    private var isReady = false

    func ensure(_ migrate: () async throws -> Void) async throws {
        guard !isReady else { return }
        try await migrate()
        isReady = true
    }
}
