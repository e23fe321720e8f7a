import Tether

/// The name a person probably meant when the one they typed is unknown: `tether token wrok` asks "did you mean
/// 'work'?".
package enum NameSuggestion {
    /// The known name closest to `name`, when exactly one is close: at most one edit away for names of up to four
    /// characters, two for longer ones (an edit inserts, deletes or replaces a character, or swaps two neighbours),
    /// case ignored. `nil` when none is that close, or several are equally close.
    /// - Parameters:
    ///   - name: The name given.
    ///   - known: The names that exist.
    package static func closest(to name: String, among known: [String]) -> String? {
        let typed = Array(name.lowercased())
        let limit = typed.count <= 4 ? 1 : 2
        var best: (name: String, distance: Int)?
        var tied = false
        for candidate in Set(known) where candidate != name {
            let distance = editDistance(typed, Array(candidate.lowercased()), limit: limit)
            guard distance <= limit else { continue }
            if let current = best, current.distance <= distance {
                if current.distance == distance { tied = true }
                continue
            }
            best = (candidate, distance)
            tied = false
        }
        return tied ? nil : best?.name
    }

    /// "Did you mean 'work'? " with the closest name, or "" when none is close; made safe for a terminal.
    package static func didYouMean(_ name: String, among known: [String]) -> String {
        closest(to: name, among: known).map { "Did you mean '\(UntrustedText.forTerminal($0))'? " } ?? ""
    }

    /// The optimal-string-alignment distance of `a` and `b`, or `limit + 1` once it is sure to exceed `limit`.
    package static func editDistance(_ a: [Character], _ b: [Character], limit: Int) -> Int {
        if abs(a.count - b.count) > limit { return limit + 1 }
        if a.isEmpty || b.isEmpty { return max(a.count, b.count) }
        var beforePrevious = [Int](repeating: 0, count: b.count + 1)
        var previous = Array(0...b.count)
        var current = [Int](repeating: 0, count: b.count + 1)
        for i in 1...a.count {
            current[0] = i
            var rowMinimum = i
            for j in 1...b.count {
                let cost = a[i - 1] == b[j - 1] ? 0 : 1
                var value = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + cost)
                if i > 1, j > 1, a[i - 1] == b[j - 2], a[i - 2] == b[j - 1] {
                    value = min(value, beforePrevious[j - 2] + 1)
                }
                current[j] = value
                rowMinimum = min(rowMinimum, value)
            }
            if rowMinimum > limit { return limit + 1 }
            (beforePrevious, previous, current) = (previous, current, beforePrevious)
        }
        return previous[b.count]
    }
}
