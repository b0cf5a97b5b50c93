import Foundation
import LabelCore
import LabelKit
import LabelLanguages
import LabelRender

/// A template printed on a simulated printer, as the printing tests of each language check
/// it: the job, the bytes the printer received, and the preview labeld gives of the same
/// label for that printer.
package struct TemplatePrint {
  package let job: Job
  package let output: [UInt8]
  package let preview: Bitmap
  /// The connection that printed it, for the test's further calls.
  package let client: BlockingConnection
}

extension DaemonProcess {
  /// Saves `template`, prints it with `data` on the simulated printer `printer` (its name
  /// after `sim:`) and waits until the job has completed; `ext` is the extension of the
  /// printer's output file.
  package func printTemplate(
    _ template: JSONValue, data: JSONValue, on printer: String, ext: String
  ) throws -> TemplatePrint {
    guard let name = template["name"]?.stringValue else {
      throw HarnessError.failed("the template has no name")
    }
    let c = try client()
    let w = try client()
    try w.call("subscribe", ["topics": ["jobs"]])
    try c.call("templates.save", ["template": template])
    let job = try c.call(
      "jobs.submit",
      ["printer": .string("sim:\(printer)"), "template": .string(name), "data": data],
      as: JobResult.self
    ).job
    try w.waitForJob(job.id)
    guard let output = simOutput(printer, job: job.id, ext: ext) else {
      throw HarnessError.failed("sim:\(printer) has no output for job \(job.id)")
    }
    return TemplatePrint(
      job: job, output: output,
      preview: try preview(name, data: data, on: printer), client: c)
  }

  /// The PNG preview `labels.render` gives of template `name` with `data` for the simulated
  /// printer `printer`, decoded.
  package func preview(_ name: String, data: JSONValue, on printer: String) throws -> Bitmap {
    let render = try client().call(
      "labels.render",
      [
        "template": .string(name), "data": data, "printer": .string("sim:\(printer)"),
        "format": "png",
      ],
      as: RenderResult.self)
    guard let png = Data(base64Encoded: render.data) else {
      throw HarnessError.failed("labels.render answered data that is not base64")
    }
    return try PNGCodec.decodeBitmap([UInt8](png))
  }
}

extension Fixtures {
  /// Submits a PNG document (its bytes) to `printer`; the job accepted.
  package static func submitPNG(
    _ c: BlockingConnection, printer: String, png: [UInt8], copies: Int = 1
  ) throws -> Job {
    try c.call(
      "jobs.submit",
      [
        "printer": .string(printer), "copies": .int(copies),
        "document": ["format": "png", "data": .string(Data(png).base64EncodedString())],
      ],
      as: JobResult.self
    ).job
  }

  /// Submits `bitmap` as a PNG document to `printer`; the job accepted.
  package static func submitPNG(
    _ c: BlockingConnection, printer: String, _ bitmap: Bitmap, copies: Int = 1
  ) throws -> Job {
    try submitPNG(c, printer: printer, png: try PNGCodec.encode(bitmap), copies: copies)
  }

  /// A 4 x 6 in shipping label: the name in bold, the SKU as Code 128 and a URL as a QR
  /// code, then `more` elements.
  package static func fourBySix(_ name: String, more: [JSONValue] = []) -> JSONValue {
    let elements: [JSONValue] = [
      [
        "type": "text", "x": 6, "y": 6, "width": 90, "height": 12, "text": "${name}",
        "weight": "bold",
      ],
      [
        "type": "barcode", "x": 10, "y": 30, "height": 25, "symbology": "code128",
        "data": "${sku}",
      ],
      ["type": "barcode", "x": 10, "y": 70, "height": 40, "symbology": "qr", "data": "${url}"],
    ]
    return [
      "name": .string(name), "media": ["widthMM": 101.6, "lengthMM": 152.4],
      "elements": .array(elements + more),
    ]
  }
}
