import Foundation
import Testing
import Tether
import TetherCommandSupport
import TetherDevProvider
import TetherTestSupport

/// `tether token` with `TETHER_HOME` on a full disk, against a provider that rotates refresh tokens with reuse
/// detection and no grace period: a refresh whose answer could not be stored would be followed by one with the spent
/// refresh token, and the grant would end. The vault sets the answer's space aside before the refresh is sent
/// (docs/decisions.md §36).
@Suite(.timeLimit(.minutes(2)), .enabled(if: TmpfsMount.isAvailable, "mounting a tmpfs needs root on Linux"))
struct FullDiskCommandTests {
    /// A CLI whose home is on a fresh 512 KiB tmpfs, signed in.
    func start() async throws -> (CLI, TmpfsMount) {
        let mount = try TmpfsMount(size: 512 * 1024)
        let cli = try await CLI.start(DevProvider.Configuration(reuseDetection: true, reuseGracePeriod: .zero))
            .with(["TETHER_HOME": mount.directory.appendingPathComponent("home").path])
        let login = try await cli.loginWithDeviceCode()
        #expect(login.status == 0, "\(login.stderr)")
        return (cli, mount)
    }

    /// Starts `tether token --force-refresh` against a token endpoint that takes 1.5 s to answer, and returns once its
    /// refresh worker has reserved the space for the answer (right before it sends the refresh), with the reserved
    /// file.
    static func startSlowRefresh(_ cli: CLI, _ mount: TmpfsMount) async throws -> (CLI.Running, String) {
        await cli.provider.admin.setLatency(.milliseconds(1500), for: .token)
        let running = try cli.launch(["token", "--force-refresh"])
        return (running, try await waitForSlot(in: mount))
    }

    /// Waits until the refresh worker has reserved the space for its answer; returns the reserved file.
    static func waitForSlot(in mount: TmpfsMount) async throws -> String {
        let slot = mount.directory.appendingPathComponent("home/records/.\(VaultStore.fileStem(for: "dev")).slot").path
        let deadline = ContinuousClock.now + .seconds(20)
        while !FileManager.default.fileExists(atPath: slot) {
            guard ContinuousClock.now < deadline else {
                throw ChildProcess.Failure(description: "the refresh reserved no space in 20 s")
            }
            try await Task.sleep(for: .milliseconds(10))
        }
        return slot
    }

    @Test func aFullDiskStopsTheRefreshBeforeItIsSentAndKeepsTheGrant() async throws {
        let (cli, mount) = try await start()
        defer {
            mount.unmount()
            Task { await cli.stop() }
        }
        let before = await cli.provider.admin.counters()
        mount.fill()

        let token = try await cli.run(["token", "--force-refresh"])
        #expect(token.status == 4, "\(token.stderr)")
        #expect(token.stdout.isEmpty)
        #expect(token.stderr.contains("no room"), "\(token.stderr)")
        var counters = await cli.provider.admin.counters()
        #expect(counters[.refreshes] == before[.refreshes], "a refresh was sent without room for its answer")
        #expect(counters[.reuseDetections] == 0)

        // Space again: the next run refreshes with the same, unspent refresh token.
        mount.free()
        let again = try await cli.run(["token", "--force-refresh"])
        #expect(again.status == 0, "\(again.stderr)")
        #expect(try await cli.verdict(on: again.trimmedOutput) == .accepted)
        counters = await cli.provider.admin.counters()
        #expect(counters[.reuseDetections] == 0)
        #expect(counters[.grantsRevoked] == 0)
        #expect(try await cli.status().first?["state"] as? String == "connected")
    }

    /// The disk fills while the provider takes its time to answer: the answer goes into the space set aside before
    /// the refresh was sent.
    @Test func aDiskThatFillsDuringTheRefreshStillStoresItsAnswer() async throws {
        let (cli, mount) = try await start()
        defer {
            mount.unmount()
            Task { await cli.stop() }
        }
        // Once the worker has set the space aside (and sent the refresh), fill the disk.
        let (running, _) = try await Self.startSlowRefresh(cli, mount)
        mount.fill()
        let token = try await running.finish(timeout: .seconds(30))
        #expect(token.status == 0, "\(token.stderr)")
        await cli.provider.admin.setLatency(.zero, for: .token)

        // The new tokens are stored: a second refresh, once there is room again, uses the rotated refresh token.
        mount.free()
        let again = try await cli.run(["token", "--force-refresh"])
        #expect(again.status == 0, "\(again.stderr)")
        #expect(again.trimmedOutput != token.trimmedOutput)
        let counters = await cli.provider.admin.counters()
        #expect(counters[.reuseDetections] == 0)
        #expect(try await cli.verdict(on: again.trimmedOutput) == .accepted)
    }

    /// The second line: an answer that arrives when its write fails all the same (here the space set aside was taken
    /// away during the refresh) stays with the refresh worker, which holds the lease and stores it once it can.
    /// `tether token` says so (exit 4, no token); nobody refreshes with the spent refresh token meanwhile.
    @Test func anAnswerThatCannotBeStoredStaysWithTheWorkerUntilItIs() async throws {
        let (cli, mount) = try await start()
        defer {
            mount.unmount()
            Task { await cli.stop() }
        }
        // Once the worker has set the space aside and sent the refresh, take the space away.
        let (running, slot) = try await Self.startSlowRefresh(cli, mount)
        try FileManager.default.removeItem(atPath: slot)
        mount.fill()
        let token = try await running.finish(timeout: .seconds(30))
        #expect(token.status == 4, "\(token.stderr)")
        #expect(token.stdout.isEmpty)
        #expect(token.stderr.contains("a refresh worker keeps them"), "\(token.stderr)")
        await cli.provider.admin.setLatency(.zero, for: .token)

        // Room again: the worker stores the tokens; the next run waits for its lease and prints the stored token.
        mount.free()
        let next = try await cli.run(["token"])
        #expect(next.status == 0, "\(next.stderr)")
        #expect(try await cli.verdict(on: next.trimmedOutput) == .accepted)
        let again = try await cli.run(["token", "--force-refresh"])
        #expect(again.status == 0, "\(again.stderr)")
        let counters = await cli.provider.admin.counters()
        #expect(counters[.reuseDetections] == 0)
        #expect(counters[.grantsRevoked] == 0)
    }
}
