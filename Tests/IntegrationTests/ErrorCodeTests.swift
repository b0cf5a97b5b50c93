import Foundation
import LabelCore
import LabelKit
import LabelLanguages
import LabelRender
import LabelTestKit
import LabelWire
import Testing

/// Every daemon error code, through the real socket, with its `data` shape.
@Suite struct ErrorCodeTests {
  @Test func printerNotFound_1001() throws {
    try withDaemon { d in
      let c = try d.client()
      for (method, params) in [
        ("printers.get", ["printer": "sim:nope"] as JSONValue),
        ("printers.simulate", ["printer": "usb:0000:0000:X", "fault": nil]),
        (
          "jobs.submit",
          ["printer": "cups:missing", "document": ["format": "native", "data": base64("x")]]
        ),
        ("jobs.list", ["printer": "sim:nope"]),
      ] {
        let e = try #require(c.error(method, params))
        #expect(e.code == 1001, "\(method)")
        #expect(e.data?["printer"] == params["printer"], "\(method)")
      }
    }
  }

  @Test func printerNotAccepting_1002() throws {
    try withDaemon(["--simulate", "off=zpl,accepting=no"]) { d in
      let c = try d.client()
      let e = try #require(
        c.error(
          "jobs.submit",
          ["printer": "sim:off", "document": ["format": "native", "data": base64("^XA^XZ")]]))
      #expect(e.code == 1002)
      #expect(e.data?["printer"] == "sim:off")
      #expect(e.data?["reason"]?.stringValue?.isEmpty == false)
      #expect(try c.call("jobs.list")["jobs"] == [])
    }
  }

  @Test func jobNotFound_1003() throws {
    try withDaemon { d in
      let c = try d.client()
      for method in ["jobs.get", "jobs.cancel"] {
        let e = try #require(c.error(method, ["job": 4242]))
        #expect(e.code == 1003)
        #expect(e.data == ["job": 4242])
      }
    }
  }

  @Test func saveFailed_1004_carriesTheSaveErrorAlert() throws {
    try withDaemon { d in
      let c = try d.client()
      try c.call("products.save", ["product": ["sku": "P1", "name": "One"]])
      let e = try #require(
        c.error("products.save", ["product": ["sku": "P1", "name": "Two"], "expectedVersion": 7]))
      #expect(e.code == 1004)
      let alert = try LabelJSON.decode(AlertEvent.self, from: try #require(e.data))
      #expect(alert.state == .active)
      #expect(alert.id == "saveError:product:P1")
      guard case .saveError(let details) = alert.alert else {
        Issue.record("expected a saveError")
        return
      }
      #expect(details.reason == .conflict)
      #expect(details.entity == .product)
      // Nothing was half-written: the stored product is unchanged.
      let stored = try c.call("products.get", ["sku": "P1"])["product"]
      #expect(stored?["name"] == "One")
      #expect(stored?["version"] == 1)
      // The same alert is on the channel.
      let active = try c.call("alerts.active", [:], as: AlertsResult.self).alerts
      #expect(active == [alert])
    }
  }

  @Test func notFound_1006_forProductsAndTemplates() throws {
    try withDaemon { d in
      let c = try d.client()
      let cases: [(String, JSONValue, String, String)] = [
        ("products.get", ["sku": "ghost"], "product", "ghost"),
        ("products.delete", ["sku": "ghost"], "product", "ghost"),
        ("templates.get", ["name": "nope"], "template", "nope"),
        (
          "labels.render",
          ["template": "nope", "data": [:], "language": "zpl", "format": "native"], "template",
          "nope"
        ),
        (
          "jobs.submit", ["printer": "sim:zebra", "template": "nope", "data": [:]], "template",
          "nope"
        ),
      ]
      for (method, params, entity, key) in cases {
        let e = try #require(c.error(method, params))
        #expect(e.code == 1006, "\(method)")
        #expect(e.data == ["entity": .string(entity), "key": .string(key)], "\(method)")
      }
    }
  }

  @Test func unsupported_1007_whenTheLabelDoesNotFitThePrinter() throws {
    try withDaemon { d in
      let c = try d.client()
      // A 4-inch label on the 62 mm Brother QL and the 2-inch Zebra.
      try c.call(
        "templates.save",
        [
          "template": [
            "name": "wide", "media": ["widthMM": 101.6, "lengthMM": 50], "elements": [],
          ]
        ])
      try c.call(
        "products.save", ["product": ["sku": "S1", "name": "Soap", "barcode": "4006381333931"]])
      // 800 pixels: wider than the QL's 696 printable dots and the Zebra's 406.
      let png = try PNGCodec.encode(Bitmap(width: 800, height: 40))
      let pngDocument: JSONValue = [
        "format": "png", "data": .string(Data(png).base64EncodedString()),
      ]
      let cases: [(String, JSONValue)] = [
        ("jobs.submit", ["printer": "sim:ql", "template": "wide", "sku": "S1"]),
        ("jobs.submit", ["printer": "sim:zebra", "template": "wide", "sku": "S1"]),
        ("jobs.submit", ["printer": "sim:ql", "document": pngDocument]),
        ("jobs.submit", ["printer": "sim:zebra", "document": pngDocument]),
        (
          "labels.render",
          [
            "template": "wide", "sku": "S1", "language": "brother-ql", "dpi": 203,
            "format": "native",
          ]
        ),
        (
          "products.save",
          [
            "product": ["sku": "S2", "name": "Brush", "barcode": "4006381333931"],
            "print": ["printer": "sim:ql", "template": "wide"],
          ]
        ),
      ]
      for (method, params) in cases {
        let e = try #require(c.error(method, params))
        #expect(e.code == 1007, "\(method)")
        #expect(e.data?["reason"]?.stringValue?.isEmpty == false)
      }
      // Nothing was submitted, and the save-and-print that could not print saved nothing.
      #expect(try c.call("jobs.list")["jobs"] == [])
      #expect(c.error("products.get", ["sku": "S2"])?.code == 1006)
    }
  }

  /// The waiting queue's bounds: a printer's own, all printers', and the documents'
  /// bytes, each refused at once with 1008 and its data; nothing of the job is stored (a
  /// save-and-print past a bound saves nothing either), and labelctl says why.
  @Test func tooManyJobs_1008_atEachBound() throws {
    let bounds = ["--max-jobs", "3", "--max-jobs-per-printer", "2", "--max-queued-bytes", "1M"]
    try withDaemon(DaemonProcess.defaultArguments + bounds) { d in
      let c = try d.client()
      for printer in ["sim:zebra", "sim:ql"] {
        try c.call("printers.simulate", ["printer": .string(printer), "fault": "coverOpen"])
      }
      func submit(_ printer: String, bytes: Int = 6) -> JSONValue {
        [
          "printer": .string(printer),
          "document": [
            "format": "native",
            "data": .string(Data(repeating: 0x41, count: bytes).base64EncodedString()),
          ],
        ]
      }
      // 600 KB waits on sim:zebra; 500 KB more would pass the 1 MiB of documents.
      try c.call("jobs.submit", submit("sim:zebra", bytes: 600_000))
      let bytes = try #require(c.error("jobs.submit", submit("sim:ql", bytes: 500_000)))
      #expect(bytes.code == 1008)
      #expect(
        bytes.data == ["bound": "bytes", "limit": .int(1 << 20), "waiting": 600_000])
      try c.call("jobs.submit", submit("sim:zebra"))
      let mine = try #require(c.error("jobs.submit", submit("sim:zebra")))
      #expect(mine.code == 1008)
      #expect(mine.data == ["bound": "printer", "printer": "sim:zebra", "limit": 2, "waiting": 2])
      try c.call("jobs.submit", submit("sim:ql"))
      let all = try #require(c.error("jobs.submit", submit("sim:ql")))
      #expect(all.data == ["bound": "total", "limit": 3, "waiting": 3])
      // A template job and a save-and-print are refused before anything is rendered or saved.
      try c.call("templates.save", ["template": Fixtures.shelfTemplate])
      let saveAndPrint = try #require(
        c.error(
          "products.save",
          [
            "product": ["sku": "NEW-1", "name": "New"],
            "print": ["printer": "sim:ql", "template": "shelf"],
          ]))
      #expect(saveAndPrint.code == 1008)
      #expect(c.error("products.get", ["sku": "NEW-1"])?.code == 1006)
      #expect(try c.call("jobs.list")["jobs"]?.arrayValue?.count == 3)
      // labelctl: exit 1, the reason in words.
      let file = try d.file("one.zpl", "^XA^XZ")
      let run = try d.ctl("print", "sim:ql", "--file", file)
      #expect(run.status == 1)
      #expect(run.stderr.contains("too many jobs waiting"), "\(run.stderr)")
    }
  }

  @Test func invalidParams_minus32602_namesTheField() throws {
    try withDaemon { d in
      let c = try d.client()
      let doc: JSONValue = ["format": "native", "data": base64("^XA^XZ")]
      let notPNG: JSONValue = ["format": "png", "data": base64("\u{89}PNG but not really")]
      let cases: [(String, JSONValue, String)] = [
        ("printers.get", [:], "printer"),
        ("printers.get", ["printer": 5], "printer"),
        ("printers.simulate", ["printer": "sim:zebra"], "fault"),
        ("printers.simulate", ["printer": "sim:zebra", "fault": "onFire"], "fault"),
        ("jobs.submit", ["printer": "sim:zebra", "copies": 0, "document": doc], "copies"),
        ("jobs.submit", ["printer": "sim:zebra", "copies": 1000, "document": doc], "copies"),
        ("jobs.submit", ["printer": "sim:zebra", "copies": 1.5, "document": doc], "copies"),
        ("jobs.submit", ["printer": "sim:zebra"], "document"),
        (
          "jobs.submit", ["printer": "sim:zebra", "document": ["format": "gif", "data": "eA=="]],
          "document.format"
        ),
        (
          "jobs.submit",
          ["printer": "sim:zebra", "document": ["format": "native", "data": "!!!"]], "document.data"
        ),
        (
          "jobs.submit", ["printer": "sim:zebra", "document": ["format": "native", "data": ""]],
          "document.data"
        ),
        (
          "jobs.submit", ["printer": "sim:zebra", "document": ["format": "native"]], "document.data"
        ),
        ("jobs.submit", ["printer": "sim:ql", "document": notPNG], "document.data"),
        ("jobs.submit", ["printer": "sim:zebra", "document": notPNG], "document.data"),
        (
          "jobs.submit", ["printer": "sim:zebra", "document": ["format": "pdf", "data": "eA=="]],
          "document.data"
        ),
        (
          "templates.save",
          [
            "template": [
              "name": "t", "media": ["widthMM": 50, "lengthMM": 25],
              "elements": [
                [
                  "type": "text", "x": 1, "y": 1, "width": 5, "height": 5, "text": "hi",
                  "colour": "red",
                ]
              ],
            ]
          ], "template.elements[0].colour"
        ),
        (
          "templates.save",
          [
            "template": [
              "name": "t", "media": ["widthMM": 50, "lengthMM": 25],
              "elements": [
                // Turned a quarter, the 30 mm wide box runs 30 mm down a 25 mm label.
                [
                  "type": "text", "x": 1, "y": 1, "width": 30, "height": 5, "text": "hi",
                  "rotation": 90,
                ]
              ],
            ]
          ], "template.elements[0].width"
        ),
        (
          "templates.save",
          [
            "template": [
              "name": "t", "media": ["widthMM": 50, "lengthMM": 25],
              "elements": [
                ["type": "image", "x": 1, "y": 1, "width": 5, "height": 5, "png": "eA=="]
              ],
            ]
          ], "template.elements[0].png"
        ),
        ("jobs.get", ["job": "seven"], "job"),
        ("jobs.list", ["states": ["printing"]], "states[0]"),
        ("products.save", [:], "product"),
        ("products.save", ["product": ["sku": "X"]], "product.name"),
        ("products.save", ["product": ["sku": "", "name": "Y"]], "product.sku"),
        (
          "products.save", ["product": ["sku": "X", "name": "Y", "barcode": "4006381333932"]],
          "product.barcode"
        ),
        (
          "products.save", ["product": ["sku": "X", "name": "Y", "barcode": "12345"]],
          "product.barcode"
        ),
        (
          "products.save", ["product": ["sku": "X", "name": "Y", "price": "cheap"]], "product.price"
        ),
        (
          "products.save", ["product": ["sku": "X", "name": "Y"], "expectedVersion": -1],
          "expectedVersion"
        ),
        (
          "templates.save",
          [
            "template": [
              "name": "t", "media": ["widthMM": 50, "lengthMM": 25],
              "elements": [
                ["type": "text", "x": 60, "y": 1, "width": 5, "height": 5, "text": "hi"]
              ],
            ]
          ], "template.elements[0].x"
        ),
        (
          "templates.save",
          [
            "template": [
              "name": "t", "media": ["widthMM": 50, "lengthMM": 25],
              "elements": [
                [
                  "type": "barcode", "x": 1, "y": 1, "height": 10, "symbology": "ean13",
                  "data": "123",
                ]
              ],
            ]
          ], "template.elements[0].data"
        ),
        (
          "templates.save",
          [
            "template": [
              "name": "t", "media": ["widthMM": 50, "lengthMM": 25],
              "elements": [["type": "circle"]],
            ]
          ], "template.elements[0].type"
        ),
        (
          "templates.save", ["template": ["name": "t", "media": ["widthMM": 50], "elements": []]],
          "template.media.lengthMM"
        ),
        (
          "labels.render", ["template": "t", "data": [:], "format": "pdf", "language": "zpl"],
          "format"
        ),
        (
          "labels.render", ["template": "t", "data": [:], "format": "png", "language": "escpos"],
          "language"
        ),
        ("subscribe", ["topics": ["weather"]], "topics[0]"),
        ("subscribe", ["since": -3], "since"),
        ("alerts.dismiss", [:], "id"),
      ]
      for (method, params, field) in cases {
        let e = try #require(c.error(method, params), "\(method) \(params)")
        #expect(e.code == -32602, "\(method) \(params): \(e.message)")
        #expect(e.data?["field"] == .string(field), "\(method) \(params): \(e.message)")
        #expect(e.data?["reason"]?.stringValue?.isEmpty == false)
      }
      // Validation failures raise no alert.
      #expect(try c.call("alerts.active")["alerts"] == [])
    }
  }
}
