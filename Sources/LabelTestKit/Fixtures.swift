import LabelCore
import LabelKit

package enum Fixtures {
  /// A 2 x 1 in shelf label.
  package static let shelfTemplate: JSONValue = [
    "name": "shelf",
    "media": ["widthMM": 50.8, "lengthMM": 25.4],
    "elements": [
      [
        "type": "text", "x": 2, "y": 2, "width": 46, "height": 6, "text": "${name}",
        "weight": "bold",
      ],
      [
        "type": "barcode", "x": 4, "y": 9, "height": 10, "symbology": "ean13", "data": "${barcode}",
      ],
      ["type": "box", "x": 0.5, "y": 0.5, "width": 49.8, "height": 24.4],
    ],
  ]

  /// Submits `doc` (sent as a native document, base64) to `printer`; the job accepted.
  package static func submit(
    _ c: BlockingConnection, _ printer: String, _ doc: String, copies: Int = 1
  )
    throws
    -> Job
  {
    try c.call(
      "jobs.submit",
      [
        "printer": .string(printer), "copies": .int(copies),
        "document": ["format": "native", "data": base64(doc)],
      ],
      as: JobResult.self
    ).job
  }
}
