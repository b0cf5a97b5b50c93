import Dispatch
import Foundation
import LabelCore
import LabelKit
import LabelTestKit
import LabelWire
import Synchronization
import Testing

#if canImport(Glibc)
  @preconcurrency import Glibc
#endif

/// Many clients at once, and a client that never reads: outcomes, not timings.
@Suite struct LoadTests {
  @Test func fiveHundredConcurrentClients_areAllServed_andAllGetTheAlert() throws {
    try withDaemon { d in
      let clients = try (0..<500).map { _ in try d.client() }
      // Every connection holds a request in flight at the same time...
      for (i, c) in clients.enumerated() {
        try c.sendLine(
          Array(
            #"{"jsonrpc":"2.0","id":\#(i),"method":"subscribe","params":{"topics":["alerts"]}}"#
              .utf8))
      }
      // ...and each gets its own answer.
      for (i, c) in clients.enumerated() {
        let reply = try c.readMessage()
        #expect(reply["id"] == .int(i))
        #expect(reply["result"]?["seq"] == 0)
      }
      try d.client().call("printers.simulate", ["printer": "sim:zebra", "fault": "mediaEmpty"])
      for c in clients {
        let n = try c.nextNotification(timeout: 30)
        #expect(n.method == "alert")
        #expect(n.params["seq"] == 1)
      }
    }
  }

  @Test func clientsOnManyThreads_getConsistentAnswers() throws {
    try withDaemon { (d: DaemonProcess) throws -> Void in
      let failures = Mutex<[String]>([])
      let path = d.socketPath
      DispatchQueue.concurrentPerform(iterations: 8) { t in
        do {
          let c = try BlockingConnection(socketPath: path)
          for i in 0..<50 {
            let sku = "T\(t)-\(i)"
            let saved = try c.call(
              "products.save", ["product": ["sku": .string(sku), "name": "Thread item"]])
            let got = try c.call("products.get", ["sku": .string(sku)])
            if saved["product"] != got["product"] { failures.withLock { $0.append(sku) } }
          }
        } catch {
          failures.withLock { $0.append("\(error)") }
        }
      }
      #expect(failures.withLock { $0 } == [])
      let all = try d.client().call("products.list", [:], as: ProductsResult.self).products
      #expect(all.count == 400)
    }
  }

  /// A subscriber that never reads while thousands of alert events flow: the others get
  /// every event, it gets `overflow` with the last seq it was sent and is closed, and
  /// resuming with `since` gives exactly the rest.
  @Test func nonReadingSubscriber_overflows_othersGetEverything_resumeLosesNothing() throws {
    try withDaemon(["--simulate", "zebra=zpl", "--alert-retention", "100000"]) { d in
      let toggles = 4000
      let total = UInt64(toggles * 2)
      let sleeper = try d.client()
      try sleeper.call("subscribe", ["topics": ["alerts", "jobs", "printers"]])

      // Two live readers on their own threads.
      let readerSeqs = Mutex<[[UInt64]]>([[], []])
      let ready = DispatchSemaphore(value: 0)
      let finished = DispatchGroup()
      let path = d.socketPath
      for r in 0..<2 {
        finished.enter()
        Thread.detachNewThread {
          defer { finished.leave() }
          guard let c = try? BlockingConnection(socketPath: path) else { return }
          _ = try? c.call("subscribe", ["topics": ["alerts"]])
          ready.signal()
          while true {
            guard let n = try? c.nextNotification(timeout: 60), n.method == "alert",
              let seq = n.params["seq"]?.intValue
            else { return }
            readerSeqs.withLock { $0[r].append(UInt64(seq)) }
            if seq == total { return }
          }
        }
      }
      ready.wait()
      ready.wait()
      // The sleeper wakes when labeld has overflowed it (its log says so), whenever that
      // is: what it finds is a prefix of the stream, then overflow, then EOF. (Waking
      // only after the whole flood could be later than labeld's 10 s close grace.)
      let sleeperLines = Mutex<[[UInt8]]?>(nil)
      // Handed over to the thread: this one never touches it again.
      nonisolated(unsafe) let sleeping = sleeper
      finished.enter()
      Thread.detachNewThread {
        defer { finished.leave() }
        while !d.log.contains("overflowed") { usleep(20_000) }
        let lines = try? sleeping.readUntilClosed()
        sleeperLines.withLock { $0 = lines ?? [] }
      }

      // The flood: raise and clear a fault, pipelined in batches.
      try d.client().floodFaults(on: "sim:zebra", toggles: toggles)
      finished.wait()
      let seqs = readerSeqs.withLock { $0 }
      #expect(seqs[0] == Array(1...total))
      #expect(seqs[1] == Array(1...total))

      let lines = sleeperLines.withLock { $0 } ?? []
      let messages = try lines.map {
        try LabelJSON.decoder().decode(JSONValue.self, from: Data($0))
      }
      let last = try #require(messages.last)
      #expect(last["method"] == "overflow")
      let resumeFrom = UInt64(try #require(last["params"]?["seq"]?.intValue))
      let received = messages.filter { $0["method"] == "alert" }.compactMap {
        $0["params"]?["seq"]?.intValue
      }.map(UInt64.init)
      #expect(resumeFrom < total)
      #expect(received == Array(1...resumeFrom))

      // Resume: exactly the rest, no gap, no duplicate.
      let again = try d.client()
      let result = try again.call(
        "subscribe", ["since": .int(Int(resumeFrom))], as: SubscribeResult.self)
      #expect(result.gap == nil)
      #expect(result.seq == total)
      var rest: [UInt64] = []
      while rest.count < Int(total - resumeFrom) {
        let n = try again.waitFor("alert")
        rest.append(UInt64(n["seq"]!.intValue!))
      }
      #expect(rest == Array((resumeFrom + 1)...total))
    }
  }

  /// A replay that fills labeld's outgoing queue (the socket takes a couple of hundred
  /// lines at a time) pauses labeld's reading from that client; once the client has read it all, a
  /// request it sends next is read and answered. (Reading paused by a full queue was
  /// resumed only when a request was handled, so a client that had sent nothing more
  /// waited for ever: found by the fuzzer under load.)
  @Test func readingPausedByAFullQueue_resumesOnceTheClientHasReadIt() throws {
    try withDaemon { d in
      let producer = try d.client()
      try producer.call("subscribe")
      let events = producer.toggle("sim:zebra", "mediaEmpty", count: 1200).count
      #expect(events == 1200)
      let c = try d.client()
      try c.sendLine(
        Array(#"{"jsonrpc":"2.0","id":1,"method":"subscribe","params":{"since":0}}"#.utf8))
      // Not reading until labeld has written all its socket takes (the bytes waiting for
      // us stop growing): the rest of the replay waits in its queue, and it stops reading.
      var pending: Int32 = -1
      var steady = 0
      while steady < 20 {
        var now: Int32 = 0
        _ = ioctl(c.fileDescriptor, UInt(FIONREAD), &now)
        steady = now == pending && now > 0 ? steady + 1 : 0
        pending = now
        usleep(10_000)
      }
      // Everything up to the last replayed alert, then a request.
      var alerts = 0
      while alerts < events {
        let line: [UInt8]
        do { line = try c.readLine() } catch {
          Issue.record("the replay stopped after \(alerts) alerts: \(error)\n\(d.log.suffix(3000))")
          throw error
        }
        if String(decoding: line.prefix(60), as: UTF8.self).contains(#""method":"alert""#) {
          alerts += 1
        }
      }
      c.timeout = 20
      let answer = try c.call("hello")
      #expect(answer["protocol"] == 1)
    }
  }
}
