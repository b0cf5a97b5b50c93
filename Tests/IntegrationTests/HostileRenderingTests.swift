import Foundation
import LabelCore
import LabelKit
import LabelSQLite
import LabelTestKit
import LabelWire
import Testing

#if canImport(Glibc)
  @preconcurrency import Glibc
#endif

/// Templates and data built to crash or exhaust labeld's rendering: refused with a typed
/// error naming the field, before anything large is allocated, and labeld keeps serving.
@Suite struct HostileRenderingTests {
  static func template(
    _ name: String, width: Double = 50, length: Double = 30, _ elements: [JSONValue]
  )
    -> JSONValue
  {
    [
      "name": .string(name), "media": ["widthMM": .double(width), "lengthMM": .double(length)],
      "elements": .array(elements),
    ]
  }

  /// labeld's peak resident set (VmHWM) in MiB.
  static func peakMiB(_ d: DaemonProcess) -> Int {
    let status =
      (try? String(contentsOfFile: "/proc/\(d.process.processIdentifier)/status", encoding: .utf8))
      ?? ""
    let line = status.split(separator: "\n").first { $0.hasPrefix("VmHWM:") } ?? ""
    return (Int(line.split(separator: " ").dropFirst().first ?? "") ?? 0) / 1024
  }

  @Test func hugeSizes_areRefusedWhenTheTemplateIsSaved_namingTheField() throws {
    try withDaemon { d in
      let c = try d.client()
      let cases: [(JSONValue, String)] = [
        (
          ["type": "text", "x": 0, "y": 0, "width": 10, "height": 10, "text": "x", "size": 3e6],
          "template.elements[0].size"
        ),
        (
          [
            "type": "barcode", "x": 0, "y": 0, "height": 10, "symbology": "qr", "data": "x",
            "moduleWidth": 1e300,
          ], "template.elements[0].moduleWidth"
        ),
        (
          ["type": "box", "x": 0, "y": 0, "width": 10, "height": 10, "thickness": 1e300],
          "template.elements[0].thickness"
        ),
      ]
      for (element, field) in cases {
        let e = c.error("templates.save", ["template": Self.template("t", [element])])
        #expect(e?.code == -32602)
        #expect(e?.data?["field"] == .string(field))
      }
    }
  }

  /// A template stored before the bounds existed (or edited on disk) renders without
  /// trapping: conversions clamp instead of overflowing.
  @Test func storedTemplateWithHugeSizes_rendersOrIsRefused_neverCrashes() throws {
    let home = DaemonProcess.makeTempDirectory()
    defer { try? FileManager.default.removeItem(at: home) }
    var d = try DaemonProcess(directory: home)
    d.stop()
    let db = try Database(path: d.stateDirectory.appendingPathComponent("labeld.db").path)
    let stored = Self.template(
      "old",
      [
        ["type": "text", "x": 0, "y": 0, "width": 10, "height": 10, "text": "x", "size": 1e300],
        [
          "type": "barcode", "x": 0, "y": 12, "height": 10, "symbology": "qr", "data": "x",
          "moduleWidth": 1e16,
        ],
        ["type": "box", "x": 20, "y": 0, "width": 10, "height": 10, "thickness": 1e300],
        ["type": "line", "x1": 0, "y1": 25, "x2": 50, "y2": 25, "thickness": 1e300],
      ])
    try db.statement("INSERT INTO templates (name, json) VALUES ('old', ?)")
      .bind(stored.serialized()).run()
    try db.close()
    d = try DaemonProcess(directory: home)
    let c = try d.client()
    for (language, format, dpi) in [
      ("zpl", "native", 203), ("zpl", "png", 203), ("brother-ql", "png", 300),
      ("zpl", "png", 1200),
    ] {
      if case .failure(let e) = try c.request(
        "labels.render",
        [
          "template": "old", "data": [:], "language": .string(language),
          "format": .string(format), "dpi": .int(dpi),
        ])
      {
        #expect(e.code == -32602 || e.code == 1007, "\(e)")
      }
      #expect(d.process.isRunning, "labeld died rendering \(language) \(format)")
    }
    #expect(try c.call("hello")["protocol"] == 1)
  }

  @Test func labelBeyondThePixelBudget_isRefusedBeforeAllocating() throws {
    try withDaemon { d in
      let c = try d.client()
      // 300 x 600 mm: each side under cairo's limit at 1200 dpi (14173 x 28346 dots), but
      // 400 million dots in all: 400 MB of canvas before the budget.
      try c.call(
        "templates.save",
        [
          "template": Self.template(
            "poster", width: 300, length: 600,
            [["type": "box", "x": 0, "y": 0, "width": 300, "height": 600]])
        ])
      let before = Self.peakMiB(d)
      let e = c.error(
        "labels.render",
        ["template": "poster", "data": [:], "language": "zpl", "format": "png", "dpi": 1200])
      #expect(e?.code == -32602)
      #expect(e?.message.contains("\(1 << 25)") == true, "\(String(describing: e))")
      #expect(Self.peakMiB(d) - before < 100, "the canvas was not allocated")
      // Within the budget it renders.
      let fine = try c.call(
        "labels.render",
        ["template": "poster", "data": [:], "language": "zpl", "format": "png", "dpi": 100])
      #expect(fine["width"] == 1181)
    }
  }

  @Test func zplImagesTogether_stayWithinThePixelBudget() throws {
    try withDaemon { d in
      let c = try d.client()
      let png =
        "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAAAAAA6fptVAAAACklEQVR4nGNgAAAAAgABSK+kcQAAAABJRU5ErkJggg=="
      // Seven 100 x 100 mm images at 600 dpi: 5.6 million dots each, 39 million in all.
      let images: [JSONValue] = (0..<7).map { _ in
        ["type": "image", "x": 0, "y": 0, "width": 100, "height": 100, "png": .string(png)]
      }
      try c.call(
        "templates.save", ["template": Self.template("logos", width: 100, length: 100, images)])
      let e = c.error(
        "labels.render",
        ["template": "logos", "data": [:], "language": "zpl", "format": "native", "dpi": 600])
      #expect(e?.code == -32602)
      #expect(e?.data?["field"] == "elements[6]")
    }
  }

  @Test func placeholderExpansion_isBounded_namingTheField() throws {
    try withDaemon { d in
      let c = try d.client()
      let text = String(repeating: "${a}", count: 1000)
      try c.call(
        "templates.save",
        [
          "template": Self.template(
            "echo",
            [["type": "text", "x": 0, "y": 0, "width": 50, "height": 30, "text": .string(text)]])
        ])
      for (language, format) in [("zpl", "native"), ("zpl", "png")] {
        let e = c.error(
          "labels.render",
          [
            "template": "echo", "data": ["a": .string(String(repeating: "x", count: 1000))],
            "language": .string(language), "format": .string(format),
          ])
        #expect(e?.code == -32602)
        #expect(e?.data?["field"] == "data.a")
      }
    }
  }
}
