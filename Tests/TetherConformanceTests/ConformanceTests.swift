import Testing

/// Tether against an authorization server nobody here wrote: django-oauth-toolkit 3.4.1 on 127.0.0.1, started by
/// `Conformance/start-server.sh` (`Scripts/conformance.sh` starts it and runs this suite). Every suite is nested
/// here and runs one test at a time: the server's switches (`/conformance/settings`) and its request log are
/// shared by every test, and each test puts back the switches it changed.
///
/// Skipped unless `TETHER_CONFORMANCE_STATE` names the server's state folder; `TETHER_REQUIRE_CONFORMANCE=1` (CI)
/// makes a missing server a failure instead.
@Suite(.serialized, .timeLimit(.minutes(3)), .enabled(if: ConformanceServer.isEnabled, ConformanceServer.skipMessage))
struct ConformanceTests {}

extension Trait where Self == ConditionTrait {
    /// Runs a suite only against a conformance server (see ``ConformanceTests``).
    static var conformanceServer: Self { .enabled(if: ConformanceServer.isEnabled, ConformanceServer.skipMessage) }
}
