import ArgumentParser
import TetherCommandSupport

/// The value of an option that takes a time span: `90s`, `5m`, `2h`, `1d` or `1w`, as `--margin` and
/// `--grant-lifetime` take them; a bare number is seconds, as these options always read it.
struct DurationArgument: ExpressibleByArgument, Sendable, Equatable {
    /// The span in seconds.
    let seconds: Int64

    init(seconds: Int64) {
        self.seconds = seconds
    }

    init?(argument: String) {
        guard let seconds = try? GrantLifetimeSetting.seconds(argument, option: "") else { return nil }
        self.seconds = seconds
    }

    /// The span.
    var duration: Duration { .seconds(seconds) }

    /// The default as `--help` shows it: `5m`, not `300`.
    var defaultValueDescription: String {
        for (unit, size) in [("d", Int64(86_400)), ("h", 3_600), ("m", 60)] where seconds > 0 && seconds % size == 0 {
            return "\(seconds / size)\(unit)"
        }
        return "\(seconds)s"
    }
}
