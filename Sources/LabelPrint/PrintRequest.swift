import LabelCore
import LabelInterfaces

/// A label to print, as any front asks for it: the socket's `jobs.submit` and
/// `products.save` (and the same over a WebSocket), and IPP's Print-Job.
package struct PrintRequest: Sendable {
  package var printer: String
  package var copies: Int
  package var content: LabelContent
  package var owner: JobOwner
  package var origin: JobOrigin

  package init(
    printer: String, copies: Int, content: LabelContent, owner: JobOwner,
    origin: JobOrigin = .socket
  ) {
    self.printer = printer
    self.copies = copies
    self.content = content
    self.owner = owner
    self.origin = origin
  }
}

/// What a label is made from.
package enum LabelContent: Sendable {
  /// The printer's own language, sent as it is.
  case native([UInt8])
  /// A PNG, one pixel per dot (see `LabelRenderer.convertPNG`).
  case png([UInt8])
  /// A stored template, filled with a stored product's fields or with given ones.
  case template(name: String, data: TemplateData)
  /// A document an IPP client sent (PDF, PNG, JPEG, PWG or Apple raster), each page one
  /// label.
  case document(DocumentInput)
}

/// Where a template's `${field}`s come from.
package enum TemplateData: Sendable {
  case product(sku: String)
  case fields([String: String])
}

/// A job checked and rendered, not stored yet: what `PrintService.submit` stores. Made
/// before anything else a request does is kept (`products.save` with `print`), so a
/// request that cannot print changes nothing.
package struct PreparedJob: Sendable {
  package var job: NewJob
}
