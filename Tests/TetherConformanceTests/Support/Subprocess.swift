import TetherTestSupport

/// A child process of the suite (the `tether` binary, a browser stand-in): the shared test-support one.
typealias Subprocess = ChildProcess
