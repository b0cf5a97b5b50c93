import Foundation
import LabelCore
import LabelKit
import LabelTestKit
import LabelWire
import Testing

@testable import LabelLoad

#if canImport(Glibc)
  @preconcurrency import Glibc
#endif

/// The loop of `make soak` for a minute, in `make test`: the same generator and mix (16
/// clients, submits, saves, renders, lists, short subscribe-with-replay connections, a fault
/// toggling every 0.5 s) against the debug labeld. Outcomes only: no call fails, labeld
/// holds no more descriptors idle afterwards than idle before, and it is alive.
@Suite struct SoakTests {
  @Test func aMinuteOfMixedLoad_failsNoCall_andLeavesNoDescriptorBehind() throws {
    try withDaemon { d in
      let pid = d.process.processIdentifier
      try LoadGenerator.prepare(socketPath: d.socketPath)
      var mix = LoadMix()
      // Paced rather than flat out: the outcomes do not need a saturated machine, and the
      // other tests of `make test` run beside this one on the same cores.
      mix.rate = 200

      // Warm-up: everything the load opens once and keeps (database, journal, the
      // simulated printers' directories, fonts) is open before the first count.
      let warmup = LoadGenerator(socketPath: d.socketPath, mix: mix)
      warmup.start()
      sleep(10)
      #expect(warmup.stop(), "a warm-up client did not end")
      let warm = warmup.takeInterval()
      #expect(warm.failures.isEmpty, "warm-up failures: \(warm.failureSamples)")
      // Idle: every load connection closed (labeld closes its side a moment later).
      let before = try #require(ProcessMetrics.steadyDescriptors(pid, steadyPolls: 40))
      let targetsBefore = ProcessMetrics.descriptorTargets(pid)

      let load = LoadGenerator(socketPath: d.socketPath, mix: mix)
      load.start()
      var total = LoadInterval()
      for _ in 0..<6 {
        sleep(10)
        total.merge(load.takeInterval())
        #expect(d.process.isRunning, "labeld died under the load:\n\(d.log.suffix(4000))")
        if !d.process.isRunning { break }
      }
      #expect(load.stop(), "a load client did not end")
      total.merge(load.takeInterval())

      #expect(
        total.failures.isEmpty, "failed calls: \(total.failureSummary)\n\(total.failureSamples)")
      for op in LoadOperation.allCases {
        #expect((total.calls[op] ?? 0) > 0, "no \(op.rawValue) call was made")
      }
      #expect(total.highestJobID > 0)

      // Idle again. Counted idle to idle, so no allowance is needed for clients: what a
      // closed connection held is given back once labeld has seen it close (waited for,
      // up to 30 s).
      var after = ProcessMetrics.read(pid)?.descriptors ?? .max
      let deadline = Date().addingTimeInterval(30)
      while after > before && Date() < deadline {
        usleep(50_000)
        after = ProcessMetrics.read(pid)?.descriptors ?? .max
      }
      let targetsAfter = ProcessMetrics.descriptorTargets(pid)
      #expect(
        after <= before,
        """
        labeld holds \(after) descriptors idle after the load, \(before) before
        before: \(targetsBefore)
        after: \(targetsAfter)
        """)
    }
  }

  /// The generator reads a replay's seqs without decoding each alert (`ReplayLine`): on
  /// labeld's own lines (a journal filled by `fillJournal`) it reads the seq JSON gives,
  /// and nothing from the response line.
  @Test func replayLines_giveTheSeqJSONGives() throws {
    try withDaemon { d in
      try LoadGenerator.fillJournal(socketPath: d.socketPath, printer: "sim:zebra", events: 6) {
        _ in
      }
      let c = try d.client()
      c.timeout = 10
      try c.sendLine(
        Array(#"{"jsonrpc":"2.0","id":1,"method":"subscribe","params":{"since":0}}"#.utf8))
      let response = try c.readLine()
      #expect(ReplayLine.alertSeq(response) == nil)
      let last = try #require(JSONValue.parse(response)["result"]?["seq"]?.intValue)
      #expect(last >= 6)
      var seqs: [Int] = []
      while seqs.last ?? 0 < last {
        let line = try c.readLine()
        let parsed = try JSONValue.parse(line)
        #expect(parsed["method"] == "alert")
        #expect(ReplayLine.alertSeq(line) == parsed["params"]?["seq"]?.intValue)
        seqs.append(ReplayLine.alertSeq(line) ?? -1)
      }
      #expect(seqs == Array(1...last))
    }
  }
}
