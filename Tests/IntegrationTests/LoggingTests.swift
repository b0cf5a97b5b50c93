import Foundation
import LabelCore
import LabelKit
import LabelTestKit
import Testing

/// labeld's log: one line per event, each with a journald priority prefix, naming printer
/// and job; product data and documents stay out of it.
@Suite struct LoggingTests {
  @Test func linesCarryPriorities_printerAndJob_andNoProductData() throws {
    try withDaemon { d in
      let c = try d.client()
      let w = try d.client()
      try w.call("subscribe", ["topics": ["jobs"]])
      try c.call("templates.save", ["template": Fixtures.shelfTemplate])
      try c.call(
        "products.save",
        [
          "product": [
            "sku": "SECRET-SKU-1", "name": "Confidential Prototype", "barcode": "4006381333931",
          ]
        ])
      let job = try c.call(
        "jobs.submit", ["printer": "sim:zebra", "template": "shelf", "sku": "SECRET-SKU-1"],
        as: JobResult.self
      ).job
      try w.waitForJob(job.id)
      try c.call("printers.simulate", ["printer": "sim:ql", "fault": "coverOpen"])
      for _ in 0..<2000 where !d.log.contains("printer sim:ql faults: coverOpen") { usleep(5_000) }
      let lines = d.log.split(separator: "\n")
      #expect(!lines.isEmpty)
      for line in lines {
        #expect(line.range(of: #"^<[3-7]>"#, options: .regularExpression) != nil, "\(line)")
      }
      #expect(lines.contains { $0.hasPrefix("<6>printer sim:zebra job \(job.id) completed") })
      #expect(lines.contains { $0.hasPrefix("<6>printer sim:ql faults: coverOpen") })
      #expect(!d.log.contains("Confidential Prototype"))
      #expect(!d.log.contains("^XA"))
    }
  }

  /// A printer's fault toggled fifty times is a hundred alert events: each logged at info
  /// (the alert channel tells the clients), none as a warning or an error.
  @Test func faultToggling_logsEachAlertAtInfo_andNoWarning() throws {
    try withDaemon { d in
      let c = try d.client()
      for _ in 0..<50 {
        try c.call("printers.simulate", ["printer": "sim:zebra", "fault": "mediaEmpty"])
        try c.call("printers.simulate", ["printer": "sim:zebra", "fault": nil])
      }
      for _ in 0..<2000 where !d.log.contains("alert 100 cleared") { usleep(5_000) }
      let lines = d.log.split(separator: "\n")
      let alerts = lines.filter { $0.contains("printer=sim:zebra reason=mediaEmpty") }
      #expect(alerts.count == 100)
      #expect(alerts.allSatisfy { $0.hasPrefix("<6>alert ") })
      #expect(!lines.contains { $0.hasPrefix("<4>") || $0.hasPrefix("<3>") }, "\(d.log)")
    }
  }
}
