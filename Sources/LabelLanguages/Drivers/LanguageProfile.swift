import LabelCore

/// What a printer language implies where nothing else says (no model row matched, no
/// media reported): one data row per language, so that nothing outside the driver layer
/// switches on the language for a default. A new language is a new row.
public struct LanguageProfile: Sendable, Equatable {
  public var language: PrinterLanguage
  /// The language as people name it: "ZPL II", "Brother QL".
  public var displayName: String
  /// The extension of a file holding a job's bytes (the simulator's output files).
  public var fileExtension: String
  /// The maker a printer of this language is taken to be when its device does not say.
  public var make: String
  /// The `DriverTable` model a printer of this language is taken to be when nothing says
  /// which.
  public var defaultModel: String
  /// The models a simulated printer may be given (`model=`), where the language's models
  /// encode differently; empty where they do not.
  public var simulatedModels: [String]
  /// The model a device that speaks the language but matches no row is driven as (any
  /// ZPL printer is the generic ZPL row); nil: such a device is not driven.
  public var fallbackModel: String?
  /// The resolution a printer of this language is taken to have.
  public var defaultDPI: Int
  /// The only resolution the language's printers have, where there is one (Brother QL:
  /// 300 dpi), else nil.
  public var onlyDPI: Int?
  /// The media a simulated printer of this language has unless told otherwise.
  public var defaultMedia: Media
  /// The media type of a native document (`labels.render` format `native`).
  public var mediaType: String
  /// What a simulated printer of this language calls itself; `model` is the driver model
  /// it takes the raster of, where the language has models that differ (Brother QL).
  public var simulatedName: @Sendable (_ model: String?) -> String
  /// Whether an IEEE-1284 device id says the device speaks this language: its command
  /// sets (`CMD:`) and its lower-case model (`MDL:`).
  public var speaks: @Sendable (_ commandSets: [String], _ model: String) -> Bool
  /// The IEEE-1284 command set (`CMD:`) its printers report.
  public var commandSet: String
  /// Whether a make-and-model or description text (upper-cased) names the language or one
  /// of its printers (CUPS queues say "Zebra ZPL Label Printer", "Brother QL-820NWB").
  public var namedIn: @Sendable (_ upperCasedText: String) -> Bool
  /// The media a roll name stands for (`--simulate …,media=62red`); nil where the
  /// language names no rolls.
  public var namedMedia: @Sendable (_ name: String) -> Media? = { _ in nil }
  /// The driver for one of this language's models.
  public var makeDriver:
    @Sendable (ModelEntry, LabelSettings) throws(DriverError) -> any LanguageDriver

  public static func == (a: LanguageProfile, b: LanguageProfile) -> Bool {
    a.language == b.language && a.displayName == b.displayName
      && a.fileExtension == b.fileExtension && a.make == b.make
      && a.defaultModel == b.defaultModel && a.simulatedModels == b.simulatedModels
      && a.fallbackModel == b.fallbackModel && a.commandSet == b.commandSet
      && a.defaultDPI == b.defaultDPI && a.onlyDPI == b.onlyDPI
      && a.defaultMedia == b.defaultMedia && a.mediaType == b.mediaType
  }

  /// The Brother QL model a printer is taken to be when nothing says otherwise.
  public static let defaultBrotherQLModel = "QL-820NWB"

  /// The languages that have `simulatedModels`, for messages.
  public static var withSimulatedModels: [PrinterLanguage] {
    all.filter { !$0.simulatedModels.isEmpty }.map(\.language)
  }

  /// ZPL II: 203 dpi desktop printers, a 2 x 1 in label (Zebra Programming Guide: the
  /// GK/GX/ZD desktop family's standard head).
  public static let zpl = LanguageProfile(
    language: .zpl, displayName: "ZPL II", fileExtension: "zpl", make: "Zebra",
    defaultModel: DriverTable.genericZPL.name, simulatedModels: [],
    fallbackModel: DriverTable.genericZPL.name,
    defaultDPI: 203, onlyDPI: nil,
    defaultMedia: Media(widthMM: 50.8, lengthMM: 25.4, kind: "labels"),
    mediaType: "application/vnd.zebra-zpl", simulatedName: { _ in "Simulated ZPL printer" },
    // CMD:ZPL (or ZPL2) in the device id.
    speaks: { commands, _ in commands.contains(where: { $0.hasPrefix("ZPL") }) },
    commandSet: "ZPL", namedIn: { $0.contains("ZPL") },
    makeDriver: { model, settings in ZPLDriver(model: model, settings: settings) })

  /// Brother QL: 300 dpi heads only (Brother's QL raster command reference), a 62 mm
  /// continuous roll (DK-22205), the most common.
  public static let brotherQL = LanguageProfile(
    language: .brotherQL, displayName: "Brother QL", fileExtension: "ql", make: "Brother",
    defaultModel: defaultBrotherQLModel, simulatedModels: BrotherQLModel.all.map(\.name),
    fallbackModel: nil,
    defaultDPI: 300, onlyDPI: 300,
    defaultMedia: Media(widthMM: 62, lengthMM: 0, kind: "continuous"),
    mediaType: "application/vnd.brother-ql-raster",
    simulatedName: { model in "Simulated Brother \(model ?? defaultBrotherQLModel)" },
    // Brother's raster command set is "PT-CBP"; some firmwares only name the model. A
    // P-touch says PT-CBP too: its model ("PT-P700") keeps it out.
    speaks: { commands, model in
      model.hasPrefix("ql-") || (commands.contains("PT-CBP") && !model.hasPrefix("pt-"))
    },
    commandSet: "PT-CBP", namedIn: { $0.contains("QL-") },
    makeDriver: { model, _ throws(DriverError) in try BrotherQLDriver(model: model) }
  ).with(namedMedia: { name in
    BrotherQLMedia.named(name).map { roll in
      Media(
        widthMM: Double(roll.widthMM), lengthMM: Double(roll.lengthMM),
        kind: roll.kind == .continuous ? "continuous" : "labels",
        redBlack: roll.redBlack ? true : nil)
    }
  })

  /// TSPL (TSC TSPL/TSPL2): 203 dpi desktop printers, the 4 x 6 in shipping label they
  /// are mostly bought for. There is no registered media type for TSPL; labeld names it
  /// in the vendor tree as it does Brother's raster.
  public static let tspl = LanguageProfile(
    language: .tspl, displayName: "TSPL", fileExtension: "tspl", make: "TSC",
    defaultModel: DriverTable.genericTSPL.name, simulatedModels: [],
    fallbackModel: DriverTable.genericTSPL.name,
    defaultDPI: 203, onlyDPI: nil,
    defaultMedia: Media(widthMM: 101.6, lengthMM: 152.4, kind: "labels"),
    mediaType: "application/vnd.tsc-tspl", simulatedName: { _ in "Simulated TSPL printer" },
    // CMD:TSPL or TSPL2; clones that say XPP,XL (or nothing) are matched by their USB ids.
    speaks: { commands, _ in commands.contains(where: { $0.hasPrefix("TSPL") }) },
    commandSet: "TSPL", namedIn: { $0.contains("TSPL") },
    makeDriver: { model, settings throws(DriverError) in
      try TSPLDriver(model: model, settings: settings)
    })

  /// EPL2 (Zebra's page-mode EPL): 203 dpi 4 in desktop printers (LP/TLP 2844), 4 x 6 in
  /// labels. A device that says both EPL and ZPL is taken as ZPL (the ZPL row comes first).
  public static let epl2 = LanguageProfile(
    language: .epl2, displayName: "EPL2", fileExtension: "epl", make: "Zebra",
    defaultModel: DriverTable.genericEPL2.name, simulatedModels: [],
    fallbackModel: DriverTable.genericEPL2.name,
    defaultDPI: 203, onlyDPI: nil,
    defaultMedia: Media(widthMM: 101.6, lengthMM: 152.4, kind: "labels"),
    mediaType: "application/vnd.zebra-epl2", simulatedName: { _ in "Simulated EPL2 printer" },
    // CMD:EPL or EPL2 (LPrint matches "COMMAND SET:EPL;").
    speaks: { commands, _ in commands.contains(where: { $0.hasPrefix("EPL") }) },
    commandSet: "EPL", namedIn: { $0.contains("EPL") },
    makeDriver: { model, settings throws(DriverError) in
      try EPL2Driver(model: model, settings: settings)
    })

  /// DYMO LabelWriter 300/400/450/4XL: 300 dpi only (LW 450 Series Technical Reference),
  /// the 1.125 x 3.5 in address label (DYMO 30252), the most common roll. No media type is
  /// registered; labeld names it in the vendor tree as LPrint does.
  public static let dymoLW = LanguageProfile(
    language: .dymoLW, displayName: "DYMO LabelWriter", fileExtension: "lw", make: "DYMO",
    defaultModel: "DYMO LabelWriter 450", simulatedModels: [],
    fallbackModel: "DYMO LabelWriter 450",
    defaultDPI: 300, onlyDPI: 300,
    defaultMedia: Media(widthMM: 28.6, lengthMM: 88.9, kind: "labels"),
    mediaType: "application/vnd.dymo-lw",
    simulatedName: { _ in "Simulated DYMO LabelWriter 450" },
    // A LabelWriter 450 reports an empty command set: its model names it ("LabelWriter
    // 450"); the 550 series speaks another language.
    speaks: { _, model in
      model.contains("labelwriter") && !model.contains("labelwriter 5")
    },
    commandSet: "", namedIn: { $0.contains("LABELWRITER") && !$0.contains("LABELWRITER 5") },
    makeDriver: { model, settings throws(DriverError) in
      try DymoLWDriver(model: model, settings: settings)
    })

  /// DYMO LabelWriter 550 series: 300 dpi, the address label; its own vendor media type.
  public static let dymoLW5 = LanguageProfile(
    language: .dymoLW5, displayName: "DYMO LabelWriter 550", fileExtension: "lw5",
    make: "DYMO", defaultModel: "DYMO LabelWriter 550", simulatedModels: [],
    fallbackModel: "DYMO LabelWriter 550",
    defaultDPI: 300, onlyDPI: 300,
    defaultMedia: Media(widthMM: 28.6, lengthMM: 88.9, kind: "labels"),
    mediaType: "application/vnd.dymo-lw5",
    simulatedName: { _ in "Simulated DYMO LabelWriter 550" },
    speaks: { _, model in model.contains("labelwriter 5") },
    commandSet: "", namedIn: { $0.contains("LABELWRITER 5") },
    makeDriver: { model, settings throws(DriverError) in
      try DymoLW5Driver(model: model, settings: settings)
    })

  /// Brother P-touch: 180 dpi (the PT-P700/P750W/E550W/P710BT head; the PT-P900W and
  /// PT-P950NW print at 360), 24 mm laminated tape (TZe-251), the widest most of them take.
  /// No media type is registered; labeld names it in the vendor tree beside the QL's.
  public static let brotherPT = LanguageProfile(
    language: .brotherPT, displayName: "Brother P-touch", fileExtension: "pt", make: "Brother",
    defaultModel: "PT-P700", simulatedModels: BrotherPTModel.all.map(\.name),
    fallbackModel: nil,
    defaultDPI: 180, onlyDPI: nil,
    defaultMedia: Media(widthMM: 24, lengthMM: 0, kind: "tape"),
    mediaType: "application/vnd.brother-pt-raster",
    simulatedName: { model in "Simulated Brother \(model ?? "PT-P700")" },
    // Brother's raster command set, with a P-touch model ("MDL:PT-P700;CMD:PT-CBP").
    speaks: { commands, model in commands.contains("PT-CBP") && model.hasPrefix("pt-") },
    commandSet: "PT-CBP", namedIn: { $0.contains("PT-") || $0.contains("P-TOUCH") },
    makeDriver: { model, settings throws(DriverError) in
      try BrotherPTDriver(model: model, settings: settings)
    })

  /// DYMO LabelManager: 180 dpi only (DYMO's PPDs), 12 mm D1 tape (the tape every model
  /// takes), the PnP (the most sold). A device that says "LabelManager" speaks it; no
  /// fallback model, as the heads differ (64 to 128 dots). The vendor media type as for
  /// the LabelWriters.
  public static let dymoLM = LanguageProfile(
    language: .dymoLM, displayName: "DYMO LabelManager", fileExtension: "lm", make: "DYMO",
    defaultModel: "DYMO LabelManager PnP", simulatedModels: [], fallbackModel: nil,
    defaultDPI: 180, onlyDPI: 180,
    defaultMedia: Media(widthMM: 12, lengthMM: 0, kind: "tape"),
    mediaType: "application/vnd.dymo-lm",
    simulatedName: { _ in "Simulated DYMO LabelManager PnP" },
    speaks: { _, model in model.contains("labelmanager") },
    commandSet: "", namedIn: { $0.contains("LABELMANAGER") },
    makeDriver: { model, _ throws(DriverError) in try DymoLMDriver(model: model) })

  /// Whether the language's printers print on tape (`Media.kind` "tape"): a label reads
  /// along it, as long as its content (Brother P-touch, DYMO LabelManager).
  public var printsOnTape: Bool { defaultMedia.kind == "tape" }

  func with(namedMedia: @escaping @Sendable (String) -> Media?) -> LanguageProfile {
    var copy = self
    copy.namedMedia = namedMedia
    return copy
  }

  public static let all: [LanguageProfile] = [
    zpl, brotherQL, tspl, epl2, dymoLW, dymoLW5, brotherPT, dymoLM,
  ]
}

extension PrinterLanguage {
  /// This language's row of `LanguageProfile`.
  public var profile: LanguageProfile {
    switch self {
    case .zpl: .zpl
    case .brotherQL: .brotherQL
    case .tspl: .tspl
    case .epl2: .epl2
    case .dymoLW: .dymoLW
    case .dymoLW5: .dymoLW5
    case .brotherPT: .brotherPT
    case .dymoLM: .dymoLM
    }
  }
}
