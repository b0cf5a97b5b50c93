import FoundationEssentials
import LabelCore

/// How a printer finishes a label.
public enum Finishing: String, Sendable, CaseIterable {
  case tear, cut, peel
}

/// How far a printer can confirm that a copy printed: what "printed" means for it.
public enum PrintConfirmation: String, Sendable, Equatable {
  /// The printer reports each page printed (Brother QL: status type "printing completed").
  case perPage
  /// The printer is asked for its status once the copy is sent, and a clean answer counts
  /// it (ZPL: `~HQES` with no error: the label is in a working printer that prints it).
  /// No answer, or an answer that is not a status, is a `communication` fault: the copy is
  /// not counted.
  case statusAfterSend
  /// The printer has no way to report anything: bytes it accepted count as printed. Only a
  /// row that says so gets this; no known model does today.
  case none
}

/// What a printer language and model can do.
public struct Capabilities: Sendable, Equatable {
  public var dpi: [Int]
  /// Printable media widths, in mm.
  public var widthMM: ClosedRange<Double>
  public var finishing: Set<Finishing>
  /// The darkness range on the language's own scale (ZPL `~SD` 0–30, TSPL `DENSITY`
  /// 0–15); nil where the language has no darkness setting.
  public var darkness: ClosedRange<Int>?
  /// What counts a copy as printed.
  public var confirmation: PrintConfirmation
}

/// A known printer model: a data row. Matching a device to a row is a score over the
/// USB ids and the IEEE-1284 id fields (`DriverTable.match`).
public struct ModelEntry: Sendable, Equatable {
  public var name: String
  /// The maker, where the row knows it for certain; nil takes the device's own
  /// manufacturer string (then the language's `make`).
  public var make: String?
  /// The name a person reads: "Brother QL-820NWB", "Zebra ZD420".
  public var displayName: String
  public var language: PrinterLanguage
  public var vendorID: UInt16
  /// Nil when no product id is known for certain; matching then relies on the device id.
  public var productID: UInt16?
  /// Lower-case prefixes of the 1284 MDL field that name this model.
  public var modelPrefixes: [String]
  public var capabilities: Capabilities
}

/// The driver tables and the match score.
public enum DriverTable {
  public static let brotherVendor: UInt16 = 0x04F9
  public static let zebraVendor: UInt16 = 0x0A5F

  /// Every known model: Brother QL rows come from the raster tables; Zebra desktop models
  /// are matched by their device id (their product ids vary by firmware and are not
  /// listed until verified on hardware).
  public static let models: [ModelEntry] =
    BrotherQLModel.all.map { m in
      ModelEntry(
        name: m.name, make: "Brother", displayName: "Brother \(m.name)", language: .brotherQL,
        vendorID: brotherVendor, productID: m.usbProductID,
        modelPrefixes: [m.name.lowercased()],
        capabilities: Capabilities(
          dpi: m.hasHighResolution ? [300, 600] : [300], widthMM: 12...(m.isWide ? 102 : 62),
          finishing: m.hasCutter ? [.cut, .tear] : [.tear], darkness: nil,
          confirmation: .perPage))
    } + zebraModels + tsplModels + epl2Models + dymoLWModels
    + dymoLW5Models + brotherPTModels + dymoLMModels

  /// Brother P-touch rows from the raster tables: tapes from 3.5 mm to the head's widest,
  /// an automatic cutter on every model (`tear` is no automatic cut), a half cutter
  /// (`peel`: crack and peel) where the model has one; each page reported printed.
  private static let brotherPTModels: [ModelEntry] = BrotherPTModel.all.map { m in
    ModelEntry(
      name: m.name, make: "Brother", displayName: "Brother \(m.name)", language: .brotherPT,
      vendorID: brotherVendor, productID: m.usbProductID,
      modelPrefixes: [m.name.lowercased()],
      capabilities: Capabilities(
        dpi: [m.head.dpi], widthMM: 3.5...m.head.widestTapeMM,
        finishing: m.hasHalfCutter ? [.cut, .tear, .peel] : [.cut, .tear], darkness: nil,
        confirmation: .perPage))
  }

  private static func zebra(
    _ name: String, _ prefixes: [String], dpi: [Int], widthMM: Double, cutter: Bool
  )
    -> ModelEntry
  {
    ModelEntry(
      name: name, make: nil, displayName: name, language: .zpl, vendorID: zebraVendor,
      productID: nil,
      modelPrefixes: prefixes.map { $0.lowercased() },
      capabilities: Capabilities(
        dpi: dpi, widthMM: 10...widthMM,
        finishing: cutter ? [.tear, .cut, .peel] : [.tear, .peel],
        darkness: 0...30, confirmation: .statusAfterSend))
  }

  private static let zebraModels: [ModelEntry] = [
    zebra("Zebra GK420", ["GK420"], dpi: [203], widthMM: 104, cutter: true),
    zebra("Zebra GX420", ["GX420"], dpi: [203], widthMM: 104, cutter: true),
    zebra("Zebra GX430", ["GX430"], dpi: [300], widthMM: 104, cutter: true),
    zebra("Zebra ZD410", ["ZD410"], dpi: [203, 300], widthMM: 56, cutter: false),
    zebra("Zebra ZD420", ["ZD420"], dpi: [203, 300], widthMM: 104, cutter: true),
    zebra("Zebra ZD421", ["ZD421"], dpi: [203, 300], widthMM: 104, cutter: true),
    zebra("Zebra ZD620", ["ZD620"], dpi: [203, 300], widthMM: 104, cutter: true),
    zebra("Zebra ZT230", ["ZT230"], dpi: [203, 300], widthMM: 104, cutter: true),
    zebra("Zebra ZT410", ["ZT410"], dpi: [203, 300, 600], widthMM: 104, cutter: true),
  ]

  /// A printer that speaks ZPL but is not in the table (any make: many clones do).
  public static let genericZPL = zebra(
    "Generic ZPL printer", [], dpi: [203, 300, 600], widthMM: 104, cutter: true)

  /// TSPL desktop printers for 4 in labels, matched by USB vendor and product id (each pair
  /// seen in two or more independent sources: udev rules, drivers and reports of the
  /// devices; their device ids are unreliable, `CMD:` is TSPL, TSPL2, XPP,XL or empty).
  /// 203 dpi heads; widths are the heads' printable widths (TSC TX200, iDPRT SP410 and
  /// MUNBYN: 108 mm, Rollo X1038: 104 mm). `DENSITY` is 0–15 (TSPL/TSPL2 Programming
  /// Manual). Each answers `<ESC>!?` after a job as far as its firmware does.
  private static func tspl(
    _ name: String, make: String, vendor: UInt16, product: UInt16, prefixes: [String],
    widthMM: Double
  ) -> ModelEntry {
    ModelEntry(
      name: name, make: make, displayName: name, language: .tspl, vendorID: vendor,
      productID: product, modelPrefixes: prefixes.map { $0.lowercased() },
      capabilities: Capabilities(
        dpi: [203], widthMM: 10...widthMM, finishing: [.tear], darkness: 0...15,
        confirmation: .statusAfterSend))
  }

  public static let tscVendor: UInt16 = 0x1203

  private static let tsplModels: [ModelEntry] = [
    tspl(
      "TSC TX200", make: "TSC", vendor: tscVendor, product: 0x0230, prefixes: ["TX200"],
      widthMM: 108),
    tspl(
      "Rollo X1038", make: "Rollo", vendor: 0x09C5, product: 0x0588, prefixes: ["X1038"],
      widthMM: 104),
    tspl(
      "iDPRT SP410", make: "iDPRT", vendor: 0x20D1, product: 0x7008, prefixes: ["SP410"],
      widthMM: 108),
    tspl(
      "MUNBYN ITPP941", make: "MUNBYN", vendor: 0x09C6, product: 0x0426, prefixes: ["ITPP941"],
      widthMM: 108),
  ]

  /// A printer that speaks TSPL but is not in the table (`CMD:TSPL` or `TSPL2`): 203 or
  /// 300 dpi, up to 4.25 in across.
  public static let genericTSPL = ModelEntry(
    name: "Generic TSPL printer", make: nil, displayName: "Generic TSPL printer",
    language: .tspl, vendorID: 0, productID: nil, modelPrefixes: [],
    capabilities: Capabilities(
      dpi: [203, 300], widthMM: 10...108, finishing: [.tear, .cut, .peel], darkness: 0...15,
      confirmation: .statusAfterSend))

  /// Zebra's EPL2 desktop printers, matched by the model in their device id (their product
  /// ids are not listed until verified on hardware; the udev rules cover Zebra's vendor
  /// id). 203 dpi, 4.09 in heads, `D` 0–15 (EPL2 Programming Guide).
  private static let epl2Models: [ModelEntry] = [
    ("Zebra LP 2844", ["LP2844", "LP 2844"], false),
    ("Zebra TLP 2844", ["TLP2844", "TLP 2844"], true),
  ].map { name, prefixes, transfer in
    ModelEntry(
      name: name, make: "Zebra", displayName: name, language: .epl2, vendorID: zebraVendor,
      productID: nil, modelPrefixes: prefixes.map { $0.lowercased() },
      capabilities: Capabilities(
        dpi: [203], widthMM: 10...104, finishing: [.tear], darkness: 0...15,
        confirmation: .statusAfterSend))
  }

  /// A printer that speaks EPL2 but is not in the table (`CMD:EPL`, without ZPL).
  public static let genericEPL2 = ModelEntry(
    name: "Generic EPL2 printer", make: nil, displayName: "Generic EPL2 printer",
    language: .epl2, vendorID: 0, productID: nil, modelPrefixes: [],
    capabilities: Capabilities(
      dpi: [203, 300], widthMM: 10...104, finishing: [.tear, .cut], darkness: 0...15,
      confirmation: .statusAfterSend))

  public static let dymoVendor: UInt16 = 0x0922

  /// DYMO LabelWriters before the 550 (LW 450 Series Technical Reference): 300 dpi, a
  /// 672-dot head (1248 on the 4XL), labels up to 2.3125 in across (4.16 in on the 4XL),
  /// four densities (`ESC c`/`d`/`e`/`g`: 0–3 here). Product ids only where two sources
  /// agree (Linux's usb.ids and a LabelWriter driver's device table); the others, and
  /// every model, match by the model in their device id ("MDL:LabelWriter 450 Turbo"; the
  /// command set is empty on a real LW 450). Longer names come first, so that "LabelWriter
  /// 450 Turbo" is not taken for the 450.
  private static let dymoLWModels: [ModelEntry] = dymo(
    language: .dymoLW,
    [
      ("LabelWriter 450", UInt16?(0x0020), 58.7),
      ("LabelWriter 450 Turbo", nil, 58.7),
      ("LabelWriter 450 Twin Turbo", nil, 58.7),
      ("LabelWriter 450 Duo", nil, 58.7),
      ("LabelWriter 4XL", nil, 106),
      ("LabelWriter 400", 0x0019, 58.7),
      ("LabelWriter 400 Turbo", 0x001A, 58.7),
      ("LabelWriter 330", 0x0007, 58.7),
      ("LabelWriter 330 Turbo", nil, 58.7),
      ("LabelWriter 320", nil, 58.7),
      ("LabelWriter 315", nil, 58.7),
      ("LabelWriter 310", 0x0009, 58.7),
    ])

  /// The LabelWriter 550 series: 300 dpi, a 672-dot head (1248 on the 5XL), DYMO's
  /// NFC-tagged rolls only. Product ids where two sources agree (the 550's and the 5XL's);
  /// every model also by "MDL:LabelWriter 550 …". Longer names first.
  private static let dymoLW5Models: [ModelEntry] = dymo(
    language: .dymoLW5,
    [
      ("LabelWriter 550", UInt16?(0x0028), 58.7),
      ("LabelWriter 550 Turbo", nil, 58.7),
      ("LabelWriter 5XL", 0x002A, 106),
    ])

  /// DYMO LabelManager tape printers (`DymoLMModel.all`, longer names first): 180 dpi, D1
  /// tape up to the widest the model takes, no darkness setting; a cut where the model has
  /// a cutter, else the person cuts (tear). Matched by the printer-mode product id where
  /// two sources agree, and by "MDL:DYMO LabelManager PnP" (the PPDs' device ids): a PnP,
  /// 280 or 420P still in its USB-disk mode has no printer interface until
  /// usb-modeswitch-data's udev rule switches it.
  private static let dymoLMModels: [ModelEntry] = DymoLMModel.all.map { m in
    ModelEntry(
      name: m.rowName, make: "DYMO", displayName: m.rowName, language: .dymoLM,
      vendorID: dymoVendor, productID: m.productID, modelPrefixes: [m.name.lowercased()],
      capabilities: Capabilities(
        dpi: [180], widthMM: 6...Double(m.widestTapeMM), finishing: m.autoCut ? [.cut] : [.tear],
        darkness: nil, confirmation: .statusAfterSend))
  }

  /// LabelWriter rows of `language` from (model, product id, widest label in mm): 300 dpi,
  /// tear-off, four densities, matched by `MDL:` with the longest names first.
  private static func dymo(
    language: PrinterLanguage, _ rows: [(String, UInt16?, Double)]
  ) -> [ModelEntry] {
    rows.sorted { $0.0.count > $1.0.count }.map { name, product, widest in
      ModelEntry(
        name: "DYMO \(name)", make: "DYMO", displayName: "DYMO \(name)", language: language,
        vendorID: dymoVendor, productID: product, modelPrefixes: [name.lowercased()],
        capabilities: Capabilities(
          dpi: [300], widthMM: 10...widest, finishing: [.tear], darkness: 0...3,
          confirmation: .statusAfterSend))
    }
  }

  /// The row named `name` for `language` (the generic rows included).
  public static func model(named name: String, language: PrinterLanguage) -> ModelEntry? {
    (models + [genericZPL, genericTSPL, genericEPL2]).first {
      $0.name == name && $0.language == language
    }
  }

  /// The best model for a device, with its score; nil when nothing fits. Points:
  /// vendor+product id 100, model name in MDL 50, vendor id 10, a known command set
  /// (ZPL; PT-CBP or a QL model for Brother raster) 20. A ZPL-speaking device with no
  /// better match is the generic ZPL driver.
  public static func match(vendorID: UInt16?, productID: UInt16?, deviceID: DeviceID?)
    -> (model: ModelEntry, score: Int)?
  {
    let mdl = deviceID?.model?.lowercased() ?? ""
    let commands = deviceID?.commandSets ?? []
    var best: (ModelEntry, Int)?
    for entry in models {
      var score = 0
      if let vendorID, vendorID == entry.vendorID {
        score += 10
        if let productID, productID == entry.productID { score += 100 }
      }
      if !mdl.isEmpty, entry.modelPrefixes.contains(where: { mdl.contains($0) }) { score += 50 }
      if entry.language.profile.speaks(commands, mdl) { score += 20 }
      // A bare vendor match is not a model match.
      guard score > 30 else { continue }
      if score > (best?.1 ?? 0) { best = (entry, score) }
    }
    if best == nil {
      for profile in LanguageProfile.all where profile.speaks(commands, mdl) {
        if let name = profile.fallbackModel,
          let row = model(named: name, language: profile.language)
        {
          return (row, 20)
        }
      }
    }
    return best.map { ($0.0, $0.1) }
  }
}
