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

extension BlockingConnection {
  /// Raises and clears `printer`'s `mediaEmpty` `toggles` times, pipelined in batches of
  /// 100 (200 requests written at once, then their answers read): the flood of alert
  /// events the overflow tests need, at the socket's pace. `until`, asked after each
  /// batch, stops it early. Returns how many toggles were sent.
  @discardableResult
  package func floodFaults(
    on printer: String, toggles: Int, until done: () -> Bool = { false }
  ) throws -> Int {
    var id = 0
    var sent = 0
    while sent < toggles && !done() {
      var batch: [UInt8] = []
      for _ in 0..<100 {
        for fault in ["\"mediaEmpty\"", "null"] {
          id += 1
          batch +=
            Array(
              #"{"jsonrpc":"2.0","id":\#(id),"method":"printers.simulate","params":{"printer":"\#(printer)","fault":\#(fault)}}"#
                .utf8) + [0x0A]
        }
      }
      try sendRaw(batch)
      for _ in 0..<200 { _ = try readMessage() }
      sent += 100
    }
    return sent
  }
}
