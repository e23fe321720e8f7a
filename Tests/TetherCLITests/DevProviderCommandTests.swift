import Testing
import TetherCommandSupport
import TetherDevProvider

@testable import TetherCLI

/// `tether dev-provider --fault` specifications.
struct DevProviderCommandTests {
    @Test func droppedAnswersAndRandomFaultsParse() throws {
        let faults = try DevProviderCommand.faults(["drop-answer:token=2", "random:token=30"], seed: 5)
        #expect(faults.droppedAnswers[.token] == 2)
        let random = try #require(faults.random)
        #expect(random.rate == 0.3)
        #expect(random.endpoints == [.token])
        #expect(random.seed == 5)
        #expect(random.kinds == DevProvider.RandomFaults.Kind.all)
    }

    @Test func randomFaultsAboveAHundredPercentAreRefused() {
        #expect(throws: (any Error).self) { try DevProviderCommand.faults(["random:token=101"]) }
        #expect(throws: (any Error).self) { try DevProviderCommand.faults(["random=30"]) }
    }
}
