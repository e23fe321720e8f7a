/// Groups the presenter tests, so that `swift test --filter Presenting` selects exactly them.
enum Presenting {}
