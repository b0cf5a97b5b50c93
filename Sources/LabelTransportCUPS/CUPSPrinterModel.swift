import FoundationEssentials
import LabelCUPS
import LabelCore
import LabelLanguages

/// How a CUPS queue looks as a protocol `Printer`: its language (a pin, else inferred from
/// make and model, description or IEEE-1284 id through `DriverTable`), resolution and media.
package enum CUPSPrinterModel {
  /// The id of a CUPS queue as a printer is this and the queue's name.
  package static let idPrefix = "cups:"

  /// The model a queue's attributes name, if any. Raw queues say "Local Raw Printer" as
  /// their make and model, so the description (`lpadmin -D`) is read too.
  package static func infer(_ q: CUPSQueue) -> ModelEntry? {
    if !q.deviceID.isEmpty,
      let m = DriverTable.match(vendorID: nil, productID: nil, deviceID: DeviceID(q.deviceID))
    {
      return m.model
    }
    for text in [q.makeAndModel, q.info] where !text.isEmpty && text != "Local Raw Printer" {
      let upper = text.uppercased()
      let make = text.split(separator: " ").first.map(String.init) ?? ""
      // The command sets of the languages the text names, as a device id would list them.
      let commands = LanguageProfile.all.filter { $0.namedIn(upper) }.map(\.commandSet)
        .joined(separator: ",")
      let id = DeviceID("MFG:\(make);MDL:\(text);CMD:\(commands);")
      if let m = DriverTable.match(vendorID: nil, productID: nil, deviceID: id) { return m.model }
    }
    return nil
  }

  /// The protocol view of `q`; `pin` overrides the inferred language.
  package static func printer(_ q: CUPSQueue, pin: PrinterLanguage?) -> Printer {
    let model = infer(q)
    let language = pin ?? model?.language
    let dpi: Int =
      if let model, model.language == language {
        model.capabilities.dpi.first ?? language?.profile.defaultDPI ?? 0
      } else {
        language?.profile.defaultDPI ?? 0
      }
    let described = [q.makeAndModel, q.info].filter { !$0.isEmpty }.joined(separator: " — ")
    return Printer(
      id: idPrefix + q.name, name: q.name, transport: .cups,
      model: described.isEmpty ? "CUPS queue \(q.name)" : described, language: language,
      dpi: dpi, state: .idle, reasons: [], media: q.media.lazy.compactMap(media).first,
      uri: q.deviceURI.isEmpty ? nil : q.deviceURI, accepting: q.accepting)
  }

  /// The size in a PWG self-describing media name (`oe_2x1-label_2x1in`,
  /// `custom_62x100mm_62x100mm`).
  package static func media(_ name: String) -> Media? {
    guard let last = name.split(separator: "_").last else { return nil }
    let mm: Double
    var size = Substring(last)
    if size.hasSuffix("mm") {
      mm = 1
    } else if size.hasSuffix("in") {
      mm = 25.4
    } else {
      return nil
    }
    size = size.dropLast(2)
    let parts = size.split(separator: "x")
    // A name is only a size when both numbers are plain and plausible for a label: a
    // server's "nanxinfmm" or "1e300x25mm" must not become the printer's media.
    guard parts.count == 2, let w = Double(parts[0]), let h = Double(parts[1]),
      w.isFinite, h.isFinite, w > 0, h >= 0, w * mm <= 2_000, h * mm <= 100_000
    else {
      return nil
    }
    let round = { (v: Double) in (v * mm * 10).rounded() / 10 }
    return Media(widthMM: round(w), lengthMM: round(h), kind: h > 0 ? "labels" : "continuous")
  }
}
