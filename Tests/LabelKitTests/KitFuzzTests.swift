import Foundation
import LabelCore
import LabelLoad
import Testing

@testable import LabelKit

/// What labeld sends is input too: the kit reads it without a trap and without unbounded
/// memory, whatever the bytes; and its stream algorithm keeps its promise (each event once,
/// in seq order) under any order of reconnects, replays, gaps and offers.
@Suite struct KitFuzzTests {
  static let seed: UInt64 =
    ProcessInfo.processInfo.environment["LABELD_FUZZ_SEED"].flatMap { UInt64($0) } ?? 20_261_202

  /// Lines the kit reads: answers, errors, alerts, overflows.
  static let samples: [String] = [
    #"{"id":1,"jsonrpc":"2.0","result":{"protocol":1,"server":"labeld","version":"0.1.0"}}"#,
    #"{"error":{"code":1004,"data":{"entity":"product","expectedVersion":2,"id":"saveError:product:A","key":"A","kind":"saveError","message":"m","reason":"conflict","seq":9,"state":"active","storedVersion":3,"time":"2026-12-02T10:00:00Z"},"message":"save failed"},"id":2,"jsonrpc":"2.0"}"#,
    #"{"jsonrpc":"2.0","method":"alert","params":{"id":"printerError:sim:a","job":3,"kind":"printerError","message":"a: cover open","printer":"sim:a","reason":"coverOpen","seq":41,"state":"active","time":"2026-12-02T10:00:00Z"}}"#,
    #"{"jsonrpc":"2.0","method":"overflow","params":{"seq":57}}"#,
    #"{"id":3,"jsonrpc":"2.0","result":{"gap":true,"seq":63}}"#,
    #"{"id":4,"jsonrpc":"2.0","result":{"job":{"copies":1,"createdAt":"2026-12-02T10:00:00Z","id":22,"owner":{"uid":1000},"printed":0,"printer":"sim:ql","state":"pending","updatedAt":"2026-12-02T10:00:00Z"}}}"#,
  ]

  /// Mutated and random lines through everything that reads a line: the framer, the JSON
  /// parser, the answer and error reader, the error table and the decoders.
  @Test func mutatedLines_neverTrap() throws {
    var rng = SplitMix64(seed: Self.seed)
    var checked = 0
    for round in 0..<20_000 {
      var bytes = Array(Self.samples[round % Self.samples.count].utf8)
      switch rng.next() % 4 {
      case 0:  // flip bytes
        for _ in 0...(rng.next() % 4) where !bytes.isEmpty {
          bytes[Int(rng.next() % UInt64(bytes.count))] = UInt8(truncatingIfNeeded: rng.next())
        }
      case 1:  // cut
        bytes = Array(bytes.prefix(Int(rng.next() % UInt64(bytes.count + 1))))
      case 2:  // insert
        let at = Int(rng.next() % UInt64(bytes.count + 1))
        bytes.insert(
          contentsOf: Array("[{\"seq\":-1e400,\"id\":null}]".utf8).shuffled(using: &rng), at: at)
      default:  // random
        bytes = (0..<Int(rng.next() % 200)).map { _ in UInt8(truncatingIfNeeded: rng.next()) }
      }
      var buffer = LineBuffer()
      buffer.append(bytes[...] + [0x0A])
      guard let line = try? buffer.nextLine(), let message = try? RequestLine.parse(line) else {
        continue
      }
      if let answer = try? RequestLine.answer(message), case .failure(let rpc) = answer {
        _ = LabelError(rpc).description
      }
      _ = ServerNotification(message)
      _ = try? RequestLine.decode(AlertEvent.self, from: message["params"] ?? .null)
      _ = try? RequestLine.decode(SubscribeResult.self, from: message["result"] ?? .null)
      _ = try? RequestLine.decode(JobResult.self, from: message["result"] ?? .null)
      checked += 1
    }
    #expect(checked > 200, "enough lines parsed to reach the decoders: \(checked)")
  }

  /// A line without an end is refused past the bound, not held for ever.
  @Test func aLineWithoutEnd_isRefusedPastTheBound() {
    var buffer = LineBuffer()
    let chunk = [UInt8](repeating: 0x41, count: 1 << 20)
    var refused = false
    for _ in 0..<(LineBuffer.longestLine >> 20) + 2 {
      buffer.append(chunk[...])
      do {
        _ = try buffer.nextLine()
      } catch {
        refused = true
        break
      }
    }
    #expect(refused)
  }

  /// A random journal, read by a stream that reconnects, resumes, races its snapshot,
  /// loses events to retention and hears offers at random moments, against a model of
  /// labeld: no event is handed out twice, those not offered come in increasing seq order,
  /// and, when no gap was said, every event after the stream's start comes.
  @Test func theStreamAlgorithm_keepsItsPromise_underRandomSchedules() {
    var rng = SplitMix64(seed: Self.seed)
    var withGaps = 0
    for _ in 0..<500 {
      let journal = (1...UInt64(20 + rng.next() % 100)).map { seq in
        AlertSyncTests.event(seq, "sim:\(rng.next() % 4)", rng.next() % 3 == 0 ? .cleared : .active)
      }
      func seq(_ count: Int) -> UInt64 { count == 0 ? 0 : journal[count - 1].seq }
      func activeSet(_ count: Int) -> [AlertEvent] {
        var active: [String: AlertEvent] = [:]
        for e in journal[..<count] { active[e.id] = e.state == .active ? e : nil }
        return active.values.sorted { $0.seq < $1.seq }
      }
      var sync = AlertSync(position: nil)
      var handed: [UInt64] = []
      var offered: Set<UInt64> = []
      var gaps = 0
      var start: UInt64?
      var published = Int(rng.next() % 10)  // events labeld has raised so far
      var retained = 0  // events before this index are no longer kept
      func take(_ updates: [AlertUpdate]) {
        for update in updates {
          if case .event(let e) = update { handed.append(e.seq) } else { gaps += 1 }
        }
      }
      func publish(_ n: Int) { published = min(journal.count, published + n) }
      var connections = 0
      while connections < 60 && (sync.position ?? 0) < journal.last!.seq {
        connections += 1
        if rng.next() % 3 == 0 { retained = min(published, retained + Int(rng.next() % 40)) }
        let params = sync.connected()
        let since = params["since"]?.intValue.map { UInt64($0) }
        let latest = seq(published)
        let gap = since.map { $0 < seq(retained) || $0 > latest } ?? false
        let (snapshot, early) = sync.subscribed(SubscribeResult(seq: latest, gap: gap ? true : nil))
        take(early)
        // What this connection sends next: a replay from `since` (of what is retained), or
        // for a fresh start, live events after the subscribe.
        var next =
          since.map { s in journal.firstIndex { $0.seq > s } ?? journal.count } ?? published
        next = max(next, retained)
        if snapshot {
          next = published
          publish(Int(rng.next() % 3))
          for e in journal[next..<published] { take(sync.received(e)) }
          next = published
          // The snapshot may already hold events not yet sent on this connection.
          let asOf = min(journal.count, published + Int(rng.next() % 2))
          take(sync.snapshot(activeSet(asOf)))
          publish(asOf - published)
        }
        if start == nil { start = sync.position }
        // Live (and replayed) events until the connection drops; an offer now and then.
        publish(Int(rng.next() % 25))
        let end = min(published, next + Int(rng.next() % 40))
        for e in journal[min(next, end)..<end] {
          if rng.next() % 8 == 0,
            let o = journal[..<published].last(where: { $0.state == .active && $0.seq > e.seq })
          {
            if let u = sync.offer(o) {
              take([u])
              offered.insert(o.seq)
            }
          }
          take(sync.received(e))
        }
      }
      #expect(Set(handed).count == handed.count, "none twice: \(handed)")
      let ordered = handed.filter { !offered.contains($0) }
      #expect(zip(ordered, ordered.dropFirst()).allSatisfy { $0 < $1 }, "in order: \(handed)")
      if gaps == 0, let start, let end = sync.position {
        let expected = journal.map(\.seq).filter { $0 > start && $0 <= end }
        #expect(
          Set(expected).isSubset(of: Set(handed)),
          "missing: \(Set(expected).subtracting(handed).sorted())")
      } else {
        withGaps += 1
      }
    }
    #expect(withGaps > 20 && withGaps < 480, "schedules both with and without gaps: \(withGaps)")
  }
}
