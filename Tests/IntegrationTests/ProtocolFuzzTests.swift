import Foundation
import LabelCore
import LabelKit
import LabelTestKit
import Testing

/// The protocol fuzzer (ProtocolFuzzer) against a real labeld: a fixed seed and a few
/// thousand requests in `make test`; `make fuzz` runs it for longer with a random seed
/// (LABELD_FUZZ_SEED, LABELD_FUZZ_ITERATIONS) and prints the seed of a failure, which
/// replays it exactly.
@Suite struct ProtocolFuzzTests {
  static var seed: UInt64 {
    ProcessInfo.processInfo.environment["LABELD_FUZZ_SEED"].flatMap { UInt64($0) } ?? 20_261_201
  }
  static var iterations: Int {
    ProcessInfo.processInfo.environment["LABELD_FUZZ_ITERATIONS"].flatMap { Int($0) } ?? 3000
  }

  @Test func everyMethodHasValidRequestsToMutate() {
    let missing = Method.allCases.filter { ProtocolFuzzer.corpus[$0]?.isEmpty ?? true }
    #expect(missing.isEmpty, "add corpus entries for \(missing.map(\.rawValue))")
  }

  @Test func fuzzedRequests_neverCrashLabeld_andEveryAnswerIsWellFormedJSONRPC() throws {
    let seed = Self.seed
    let iterations = Self.iterations
    let report = { (text: String) in
      FileHandle.standardError.write(Data("fuzz (seed \(seed)): \(text)\n".utf8))
    }
    report("\(iterations) requests and \(ProtocolFuzzer.nastyLines.count) hand-picked lines")
    try withDaemon { d in
      var fuzzer = ProtocolFuzzer(seed: seed)
      var c = try d.client()
      try ProtocolFuzzer.prepare(c)
      func check(_ line: [UInt8], _ i: Int) throws {
        do {
          guard try fuzzer.exchange(c, line, iteration: i) else {
            let alive = d.process.isRunning
            throw ProtocolFuzzer.Failure(
              seed: seed, iteration: i, request: String(decoding: line.prefix(600), as: UTF8.self),
              problem: alive
                ? "labeld closed the connection for a line under the size limit"
                : "labeld died:\n\(d.log.suffix(3000))")
          }
        } catch let failure as ProtocolFuzzer.Failure {
          report("FAILED — replay with LABELD_FUZZ_SEED=\(seed)")
          Issue.record("\(failure)\n== labeld log (end)\n\(d.log.suffix(6000))")
          throw failure
        }
      }
      for (n, line) in ProtocolFuzzer.nastyLines.enumerated() {
        try check(Array(line.utf8), -1 - n)
      }
      // A line over the limit is the one thing that closes the connection; labeld goes on.
      try c.sendLine([UInt8](repeating: 0x20, count: 1_048_577))
      #expect(try c.readMessage()["error"]?["code"] == .int(-32600))
      #expect(throws: LabelError.self) { try c.readLine() }
      c = try d.client()
      for i in 0..<iterations {
        let (_, line) = fuzzer.nextLine()
        try check(line, i)
        if i % 1000 == 999 {
          report("\(i + 1) requests, \(fuzzer.answers) answers checked")
          #expect(d.process.isRunning)
        }
      }
      report(
        "done: \(fuzzer.answers) answers checked; by method \(fuzzer.sentByMethod.sorted { $0.key < $1.key })"
      )
      #expect(Set(fuzzer.sentByMethod.keys).count == Method.allCases.count || iterations < 500)
    }
  }
}
