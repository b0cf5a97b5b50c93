import Foundation
import LabelCore
import LabelTestKit
import Testing

/// labeld's printers against CUPS's own IPP test files (Debian's cups-ipp-utils 2.4.2),
/// run by its `ipptool`: ipp-1.1.test, ipp-2.0.test (which includes it),
/// get-printer-attributes.test and the required-attributes part of ipp-everywhere.test,
/// for a die-cut Zebra and a continuous Brother QL roll. Every test must pass: a failure
/// in an included file does not change ipptool's exit status, so the report is read.
@Suite(.serialized) struct IPPConformanceTests {
  static let printers = [
    "--simulate", "zebra=zpl,dpi=203,width=50.8,length=25.4", "--simulate", "ql=brother-ql",
    "--listen-ipp", "127.0.0.1:0", "--ipp-print", "anyone",
  ]

  /// No test failed, and the file ran to `last`, its last test.
  static func check(_ run: (report: String, errors: String), _ what: String, last: String) {
    #expect(!run.report.contains("[FAIL]"), "\(what):\n\(run.report)")
    #expect(run.report.contains(last), "\(what) did not run to its end:\n\(run.report)")
    #expect(
      !run.report.contains("failed") || run.report.contains(" 0 failed"), "\(what):\n\(run.report)")
    // ipptool silently stops reading a test file at a document it cannot read.
    #expect(!run.errors.contains("ipptool:"), "\(what): \(run.errors)")
  }

  @Test(arguments: ["sim:zebra", "sim:ql"])
  func cupsIPPToolFiles_pass(printer: String) throws {
    guard FileManager.default.fileExists(atPath: "/usr/share/cups/ipptool/ipp-1.1.test") else {
      Issue.record("cups-ipp-utils is not installed: make deps installs it")
      return
    }
    let dir = try IPPSamples.directory(copying: [
      "ipp-1.1.test", "ipp-2.0.test", "get-printer-attributes.test",
    ])
    defer { try? FileManager.default.removeItem(at: dir) }
    let required = try IPPSamples.everywhereRequired(into: dir)
    try withDaemon(Self.printers) { d in
      let uri = "ipp://127.0.0.1:\(try d.ippPort())/ipp/print/\(printer)"
      Self.check(
        try IPPSamples.ipptool(dir, "-t '\(uri)' get-printer-attributes.test"), "GPA",
        last: "get-printer-attributes   ")
      Self.check(
        try IPPSamples.ipptool(dir, "-t -I -T 60 -f color.jpg -d NOPRINT=1 '\(uri)' ipp-1.1.test"),
        "ipp-1.1", last: "Release-Job")
      Self.check(
        try IPPSamples.ipptool(
          dir, "-t -I -V 2.0 -T 60 -f color.jpg -d NOPRINT=1 '\(uri)' ipp-2.0.test"), "ipp-2.0",
        last: "PWG 5100.12 section 6.2 - Required Printer Description Attributes")
      Self.check(
        try IPPSamples.ipptool(dir, "-t -I -V 2.0 '\(uri)' \(required)"), "everywhere",
        last: "PWG 5100.14 section 5.1/5.2 - Required Operations and Attributes")
      // The jobs ipp-1.1 printed reached the printer: color.jpg, as labels.
      let jobs =
        try d.client().call("jobs.list", ["printer": .string(printer)])["jobs"]?.arrayValue ?? []
      let completed = jobs.filter { $0["state"] == "completed" }
      #expect(completed.count >= 3, "\(jobs)")
      #expect(completed.allSatisfy { $0["origin"]?["kind"] == "ipp" })
      let name = printer.dropFirst(4)
      let ext = printer == "sim:zebra" ? "zpl" : "ql"
      for job in completed {
        let id = try #require(job["id"]?.intValue)
        #expect(d.simOutput(String(name), job: id, ext: ext)?.isEmpty == false, "job \(id)")
      }
    }
  }
}
