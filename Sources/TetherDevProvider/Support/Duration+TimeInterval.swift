import Foundation

extension Duration {
    /// The duration in seconds as a `TimeInterval`.
    var timeInterval: TimeInterval {
        let (seconds, attoseconds) = self.components
        return TimeInterval(seconds) + TimeInterval(attoseconds) / 1e18
    }

    /// The duration rounded down to whole seconds.
    var wholeSeconds: Int {
        Int(self.components.seconds)
    }
}
