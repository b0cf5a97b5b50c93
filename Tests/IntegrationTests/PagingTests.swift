import Foundation
import LabelCore
import LabelKit
import LabelTestKit
import Testing

/// Lists that page (`limit`, `after`, `next`): pages add up to the whole list, `next` is
/// absent on the last page, and a cursor stays right while others insert meanwhile.
@Suite struct PagingTests {
  /// Every page of `method` with `limit`, following `next`; calls `between` after each page.
  static func pages(
    _ c: BlockingConnection, _ method: String, _ key: String, limit: Int, params: JSONValue = [:],
    between: (Int) throws -> Void = { _ in }
  ) throws -> [[JSONValue]] {
    var out: [[JSONValue]] = []
    var after: JSONValue?
    while true {
      guard case .object(var p) = params else { return out }
      p["limit"] = .int(limit)
      if let after { p["after"] = after }
      let result = try c.call(method, .object(p))
      out.append(result[key]?.arrayValue ?? [])
      try between(out.count)
      guard let next = result["next"] else { return out }
      after = next
      if out.count > 1000 { return out }
    }
  }

  @Test func products_pageInSKUOrder_andACursorHoldsUnderInserts() throws {
    try withDaemon { d in
      let c = try d.client()
      let skus = (0..<25).map { String(format: "M-%03d", $0) }
      for sku in skus.shuffled() {
        try c.call("products.save", ["product": ["sku": .string(sku), "name": "n"]])
      }
      let whole = try c.call("products.list")["products"]?.arrayValue?.compactMap {
        $0["sku"]?.stringValue
      }
      #expect(whole == skus)
      // Meanwhile, one product sorts before the cursor and one after it.
      let pages = try Self.pages(c, "products.list", "products", limit: 10) { n in
        if n == 1 {
          try c.call("products.save", ["product": ["sku": "A-000", "name": "early"]])
          try c.call("products.save", ["product": ["sku": "Z-999", "name": "late"]])
        }
      }
      #expect(pages.map(\.count) == [10, 10, 6])
      let seen = pages.flatMap { $0 }.compactMap { $0["sku"]?.stringValue }
      #expect(seen == skus + ["Z-999"], "no repeats, no skips; what sorts before the cursor is not")
      // The last page has no `next`; an exact fit too.
      let exact = try c.call("products.list", ["limit": 27])
      #expect(exact["products"]?.arrayValue?.count == 27)
      #expect(exact["next"] == nil)
    }
  }

  @Test func templates_pageInNameOrder() throws {
    try withDaemon { d in
      let c = try d.client()
      let names = (0..<7).map { "tpl-\($0)" }
      for name in names {
        guard case .object(var t) = Fixtures.shelfTemplate else { return }
        t["name"] = .string(name)
        try c.call("templates.save", ["template": .object(t)])
      }
      let pages = try Self.pages(c, "templates.list", "templates", limit: 3)
      #expect(pages.map(\.count) == [3, 3, 1])
      #expect(pages.flatMap { $0 }.compactMap { $0["name"]?.stringValue } == names)
    }
  }

  @Test func jobs_pageInIdOrder_byPrinterStateOwnerAndSince() throws {
    try withDaemon { d in
      let c = try d.client()
      let doc: JSONValue = ["format": "native", "data": base64("^XA^XZ")]
      // Held jobs on the QL (its cover is open), finished ones on the Zebra.
      try c.call("printers.simulate", ["printer": "sim:ql", "fault": "coverOpen"])
      var ids: [Int] = []
      for i in 0..<20 {
        let printer = i % 4 == 0 ? "sim:ql" : "sim:zebra"
        ids.append(
          try c.call(
            "jobs.submit", ["printer": .string(printer), "document": doc], as: JobResult.self
          ).job.id)
      }
      let w = Events(try d.client())
      try w.client.call("subscribe", ["topics": ["jobs"]])
      for id in ids.enumerated().filter({ $0.offset % 4 != 0 }).map(\.element)
      where try c.call("jobs.get", ["job": .int(id)], as: JobResult.self).job.state != .completed {
        try w.waitForJob(id)
      }
      let all = try c.call("jobs.list", [:], as: JobsResult.self).jobs
      #expect(all.map(\.id) == ids)

      // New jobs while paging appear after the cursor, never twice.
      var late: [Int] = []
      let pages = try Self.pages(c, "jobs.list", "jobs", limit: 6) { n in
        if n == 1 {
          late.append(
            try c.call("jobs.submit", ["printer": "sim:ql", "document": doc], as: JobResult.self)
              .job.id)
        }
      }
      #expect(pages.flatMap { $0 }.compactMap { $0["id"]?.intValue } == ids + late)
      #expect(pages.last?.count ?? 0 <= 6)

      func listed(_ params: JSONValue, limit: Int = 4) throws -> [Int] {
        try Self.pages(c, "jobs.list", "jobs", limit: limit, params: params).flatMap { $0 }
          .compactMap { $0["id"]?.intValue }
      }
      let everything = ids + late
      let ql = all.filter { $0.printer == "sim:ql" }.map(\.id) + late
      #expect(try listed(["printer": "sim:ql"]) == ql)
      // Only jobs not ended (answered from memory) and only ended ones (the state index).
      #expect(try listed(["states": ["pending", "held"]]) == ql)
      #expect(try listed(["states": ["completed"]]) == everything.filter { !ql.contains($0) })
      #expect(try listed(["printer": "sim:zebra", "states": ["pending"]]) == [])
      #expect(try listed(["owner": .int(Int(getuid()))]) == everything)
      #expect(try listed(["owner": 4_000_000]) == [])
      // Since: jobs created at or after a time (the protocol's times are whole seconds).
      let middle = all[10].createdAt
      let since = ISO8601DateFormatter().string(from: middle)
      let expected =
        (all + (try late.map { try c.call("jobs.get", ["job": .int($0)], as: JobResult.self).job }))
        .filter { $0.createdAt >= middle }.map(\.id)
      #expect(try listed(["since": .string(since)]) == expected)
      #expect(try listed(["since": "2999-01-01T00:00:00Z"]) == [])
      #expect(try listed(["since": "1970-01-01T00:00:00Z"]) == everything)
    }
  }

  @Test(
    arguments: [
      ("jobs.list", ["limit": 0] as JSONValue, "limit"),
      ("jobs.list", ["limit": 10_001], "limit"),
      ("jobs.list", ["after": -1], "after"),
      ("jobs.list", ["since": "yesterday"], "since"),
      ("jobs.list", ["owner": -5], "owner"),
      ("products.list", ["limit": 0], "limit"),
      ("products.list", ["after": 3], "after"),
      ("templates.list", ["limit": "ten"], "limit"),
    ] as [(String, JSONValue, String)])
  func badPagingParams_areInvalidParams_namingTheField(
    method: String, params: JSONValue, field: String
  ) throws {
    try withDaemon { d in
      let e = try d.client().error(method, params)
      #expect(e?.code == -32602)
      #expect(e?.data?["field"] == .string(field))
    }
  }
}
