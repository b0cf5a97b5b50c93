import FoundationEssentials
import LabelCommandLine
import LabelCore
import LabelInterfaces
import LabelLanguages
import LabelPOSIX
import Synchronization

/// A `--simulate` specification: `NAME=LANGUAGE[,dpi=N][,width=MM][,length=MM]
/// [,speed=LABELS_PER_MIN][,darkness=0-30 (TSPL: 0-15)][,finish=tear|cut|peel][,model=NAME]
/// [,media=ROLL][,accepting=yes|no][,keep=N]`. Brother QL printers are 300 dpi; `model` names
/// the Brother QL model whose raster they take (default QL-820NWB); `media` names a roll
/// (`62`, `29x90`, `62red`: the red/black DK-22251 a two-colour model prints red on).
public struct SimulatedPrinterSpec: Sendable, Equatable {
  public var name: String
  public var language: PrinterLanguage
  public var dpi: Int
  public var widthMM: Double
  public var lengthMM: Double
  /// Labels per minute; 0 prints instantly.
  public var speed: Double
  public var accepting: Bool
  /// Darkness sent with rendered labels, on the language's scale (ZPL `~SD` 0–30, TSPL
  /// `DENSITY` 0–15; nil: the printer's own setting).
  public var darkness: Int?
  /// How labels are finished (ZPL `^MM`); nil: the printer's own setting.
  public var finish: String?
  /// The Brother QL model simulated (its raster geometry); nil: QL-820NWB.
  public var model: String?
  /// The roll prints red as well as black (`media=62red`).
  public var redBlack = false
  /// Output files kept: those of the newest `keep` jobs (older ones are deleted as new
  /// ones are written), so a demo printer left running for months does not fill the disk.
  public var keep = 1000

  public init(
    name: String, language: PrinterLanguage, dpi: Int? = nil, widthMM: Double? = nil,
    lengthMM: Double? = nil, speed: Double = 0, accepting: Bool = true
  ) {
    self.name = name
    self.language = language
    self.dpi = dpi ?? language.profile.defaultDPI
    self.widthMM = widthMM ?? language.profile.defaultMedia.widthMM
    self.lengthMM = lengthMM ?? language.profile.defaultMedia.lengthMM
    self.speed = speed
    self.accepting = accepting
  }

  /// Parses the command-line form; the error says which part is wrong.
  public static func parse(_ text: String) throws(SpecError) -> SimulatedPrinterSpec {
    guard let eq = text.firstIndex(of: "=") else {
      throw SpecError("expected NAME=LANGUAGE[,option=value...], got \"\(text)\"")
    }
    let name = try KeyValueOption.printerName(text[..<eq])
    var parts = text[text.index(after: eq)...].split(separator: ",").map(String.init)
    guard !parts.isEmpty, let language = PrinterLanguage(rawValue: parts.removeFirst()) else {
      let known = PrinterLanguage.allCases.map(\.rawValue).joined(separator: ", ")
      throw SpecError("\(name): language must be one of \(known)")
    }
    var spec = SimulatedPrinterSpec(name: name, language: language)
    var dpiGiven = false
    for option in try KeyValueOption.list(parts, owner: name) {
      let (key, value) = (option.key, option.value)
      switch key {
      case "dpi":
        let d = try option.integer(in: 100...1200)
        let heads = [152, 180, 200, 203, 300, 360, 600]
        guard heads.contains(d) else {
          throw option.wrong(KeyValueOption.either(heads.map(String.init)))
        }
        if let only = language.profile.onlyDPI, d != only {
          throw SpecError("\(name): \(language.rawValue) printers print at \(only) dpi")
        }
        spec.dpi = d
        dpiGiven = true
      case "model":
        let profile = language.profile
        guard let model = profile.simulatedModels.first(where: { $0 == value.uppercased() }) else {
          let known = profile.simulatedModels.joined(separator: ", ")
          let applies = LanguageProfile.withSimulatedModels.map(\.rawValue)
          throw SpecError(
            profile.simulatedModels.isEmpty
              ? "\(name): model= applies to \(applies.joined(separator: " and ")) printers"
              : "\(name): unknown \(profile.displayName) model \"\(value)\" (one of \(known))")
        }
        spec.model = model
      case "media":
        guard let media = language.profile.namedMedia(value) else {
          throw SpecError(
            "\(name): media=\(value) is not a \(language.profile.displayName) roll "
              + "(Brother QL rolls: 62, 29x90, 62red, …; other languages take width= and length=)")
        }
        spec.widthMM = media.widthMM
        spec.lengthMM = media.lengthMM
        spec.redBlack = media.printsRed
      // 3.5 mm: the narrowest tape (Brother TZe).
      case "width": spec.widthMM = try option.number(in: 3.5...300)
      case "length": spec.lengthMM = try option.number(in: 0...2000)
      case "speed": spec.speed = try option.number(in: 0...10_000)
      case "darkness":
        // The language's own scale: ZPL ~SD 0–30, TSPL DENSITY 0–15.
        let model = DriverTable.model(named: language.profile.defaultModel, language: language)
        let range = model?.capabilities.darkness ?? 0...30
        spec.darkness = try option.integer(in: range)
      case "finish": spec.finish = try option.choice(["tear", "cut", "peel"])
      case "keep": spec.keep = try option.integer(in: 1...1_000_000)
      case "accepting": spec.accepting = try option.yesNo()
      default:
        throw option.unknown(known: [
          "dpi", "width", "length", "media", "speed", "darkness", "finish", "model", "accepting",
          "keep",
        ])
      }
    }
    // A model with one head prints at its resolution unless told otherwise (a PT-P900W's
    // 360 dpi against the family's 180).
    if !dpiGiven, let model = spec.model,
      let row = DriverTable.model(named: model, language: language),
      row.capabilities.dpi.count == 1, let only = row.capabilities.dpi.first
    {
      spec.dpi = only
    }
    if language.profile.printsOnTape {
      guard spec.lengthMM == 0 else {
        throw SpecError(
          "\(name): a label on tape is as long as its content; give the tape's width= only")
      }
      // A tape the model's head takes (a PnP takes no 24 mm tape, a PT-P700 no 36 mm).
      let tape = Media(widthMM: spec.widthMM, lengthMM: 0, kind: "tape")
      do throws(DriverError) {
        let driver = try DriverTable.driver(
          for: language, settings: LabelSettings(model: spec.model))
        _ = try driver.pageArea(media: tape, dpi: spec.dpi)
      } catch {
        throw SpecError("\(name): \(error.message)")
      }
    }
    if spec.redBlack {
      // Only a two-colour model prints on a red/black roll.
      let settings = LabelSettings(model: spec.model)
      let driver = try? DriverTable.driver(for: language, settings: settings)
      let media = Media(widthMM: spec.widthMM, lengthMM: spec.lengthMM, redBlack: true)
      guard let driver, driver.printsRed(on: media) else {
        throw SpecError(
          "\(name): \(spec.model ?? language.profile.defaultModel) cannot print red/black rolls "
            + "(the QL-800, QL-810W and QL-820NWB can)")
      }
    }
    return spec
  }
}

/// The built-in simulated printer: writes each job's exact output bytes to
/// `<state-dir>/sim/<NAME>/<job>.<ext>` (one copy appended per printed label), taking
/// `60 / speed` seconds per label, and keeps the files of its newest `keep` jobs.
/// Faults are injected (`printers.simulate`) and reach the printer's queue the way any
/// transport's status does: through `monitor`'s sink.
package final class SimulatedPrinter: PrinterTransport, FaultInjecting {
  package let spec: SimulatedPrinterSpec
  package let directory: String
  private let kept: OutputFiles
  private let faults = InjectedFaults()

  package init(spec: SimulatedPrinterSpec, stateDirectory: String) throws {
    self.spec = spec
    self.directory = "\(stateDirectory)/sim/\(spec.name)"
    try Directory.create(directory)
    kept = OutputFiles(
      directory: directory, fileExtension: spec.language.profile.fileExtension, keep: spec.keep)
  }

  package var descriptor: Printer {
    let model = spec.language.profile.simulatedName(spec.model)
    return Printer(
      id: "sim:\(spec.name)", name: spec.name, transport: .sim, model: model,
      language: spec.language, dpi: spec.dpi,
      media: Media(
        widthMM: spec.widthMM, lengthMM: spec.lengthMM,
        kind: spec.lengthMM != 0
          ? "labels" : spec.language.profile.printsOnTape ? "tape" : "continuous",
        redBlack: spec.redBlack ? true : nil),
      uri: "sim:\(spec.name)", accepting: spec.accepting)
  }

  package func monitor(_ sink: any PrinterStatusSink) async { await faults.attach(sink) }

  package func inject(_ faults: [Reason]) async { await self.faults.set(faults) }

  package var labelSettings: LabelSettings {
    LabelSettings(darkness: spec.darkness, finish: spec.finish, model: spec.model)
  }

  /// Where a job's output goes.
  package func outputPath(job: Int) -> String {
    "\(directory)/\(job).\(spec.language.profile.fileExtension)"
  }

  package func print(
    _ bytes: [UInt8], job: Int, copy: Int, cancel _: CancelRequest, status _: any PrinterStatusSink
  ) async throws(CancellationError) -> PrintOutcome {
    try await PrintOutcome.of { try await write(bytes, job: job, copy: copy) }
  }

  /// Writes one copy to the job's output file (at the configured speed).
  private func write(_ bytes: [UInt8], job: Int, copy: Int) async throws {
    if spec.speed > 0 {
      try await Task.sleep(for: .seconds(60.0 / spec.speed))
    }
    try Task.checkCancellation()
    let path = outputPath(job: job)
    do {
      if copy == 1 {
        try? PlainFile.remove(path)
        kept.written(job: job)
      }
      try PlainFile.append(bytes, to: path)
    } catch {
      throw TransportError(
        reason: .communication, message: "\(spec.name): cannot write \(path): \(error)")
    }
  }
}

/// The output files a simulated printer keeps: those of the `keep` newest jobs (highest
/// ids). Files left by an earlier run count too (read once at start-up); beyond `keep`,
/// the oldest job's file is deleted as a new one is written. (Without it a soak filled one
/// directory with hundreds of thousands of files, and creating files there slowed as it
/// grew.)
package final class OutputFiles: Sendable {
  private struct Kept {
    /// Job ids with a file, ascending from `head`.
    var ids: [Int] = []
    var head = 0
    var members: Set<Int> = []
  }
  private let directory: String
  private let fileExtension: String
  private let keep: Int
  private let kept: Mutex<Kept>

  package init(directory: String, fileExtension: String, keep: Int) {
    self.directory = directory
    self.fileExtension = fileExtension
    self.keep = max(1, keep)
    let suffix = "." + fileExtension
    let names = (try? Directory.names(directory)) ?? []
    let ids = names.compactMap { name in
      name.hasSuffix(suffix) ? Int(name.dropLast(suffix.count)) : nil
    }.sorted()
    kept = Mutex(Kept(ids: ids, members: Set(ids)))
    trim()
  }

  /// A job's file was (re)started.
  package func written(job: Int) {
    kept.withLock { k in
      guard k.members.insert(job).inserted else { return }
      if let last = k.ids.last, job < last {
        // An older job printing again (resumed after a restart): in id order.
        k.ids.insert(job, at: k.ids[k.head...].firstIndex { $0 > job } ?? k.ids.endIndex)
      } else {
        k.ids.append(job)
      }
    }
    trim()
  }

  private func trim() {
    let gone: [Int] = kept.withLock { k in
      let excess = k.ids.count - k.head - keep
      guard excess > 0 else { return [] }
      let gone = Array(k.ids[k.head..<(k.head + excess)])
      k.head += excess
      k.members.subtract(gone)
      if k.head >= 1024 && k.head * 2 >= k.ids.count {
        k.ids.removeFirst(k.head)
        k.head = 0
      }
      return gone
    }
    for job in gone {
      try? PlainFile.remove("\(directory)/\(job).\(fileExtension)")
    }
  }
}
