import LabelCommandLine
import LabelCore
import LabelLanguages

/// A configured network printer: `--printer NAME=socket://HOST[:PORT][,language=L]
/// [,model=M][,dpi=N][,width=MM][,length=MM]`, or in labeld.conf `printer = NAME
/// socket://HOST[:PORT] language=L model=M …`. Network printers come from configuration
/// only: labeld never prints to an address nobody configured.
public struct NetworkPrinterSpec: Sendable, Equatable {
  public var name: String
  public var host: String
  /// Raw printing port (AppSocket/JetDirect): 9100 unless the URI says.
  public var port: Int
  public var language: PrinterLanguage
  /// A `DriverTable` row's name; nil: the language's default model.
  public var model: String?
  public var dpi: Int?
  /// The loaded media, where configured (mm; length 0 is continuous).
  public var widthMM: Double?
  public var lengthMM: Double?
  /// Where its SNMP agent answers (Brother QL status): UDP 161 unless configured.
  public var snmpPort = 161
  public var community = "public"

  public init(name: String, host: String, port: Int = 9100, language: PrinterLanguage) {
    self.name = name
    self.host = host
    self.port = port
    self.language = language
  }

  /// `socket://HOST:PORT`.
  public var uri: String {
    "socket://\(host.contains(":") ? "[\(host)]" : host):\(port)"
  }

  /// Parses either form; the error names the part that is wrong.
  public static func parse(_ text: String) throws(SpecError) -> NetworkPrinterSpec {
    let trimmed = text.trimmingSpaces
    var name: String
    var rest: [String]
    if let space = trimmed.firstIndex(where: { $0 == " " || $0 == "\t" }),
      !trimmed[..<space].contains("=")
    {
      name = String(trimmed[..<space])
      rest = words(trimmed[space...])
    } else {
      guard let eq = trimmed.firstIndex(of: "=") else {
        throw SpecError("expected NAME=socket://HOST[:PORT],language=LANGUAGE, got \"\(text)\"")
      }
      name = String(trimmed[..<eq])
      rest = trimmed[trimmed.index(after: eq)...].split(separator: ",").map(String.init)
    }
    name = try KeyValueOption.printerName(name)
    guard !rest.isEmpty else { throw SpecError("\(name): no socket://HOST[:PORT] URI") }
    let (host, port) = try address(rest.removeFirst(), printer: name)
    var language: PrinterLanguage?
    var options: [KeyValueOption] = []
    for option in try KeyValueOption.list(rest, owner: name) {
      if option.key == "language" {
        guard let l = PrinterLanguage(rawValue: option.value) else {
          throw SpecError("\(name): language must be \(PrinterLanguage.spokenList)")
        }
        language = l
      } else {
        options.append(option)
      }
    }
    guard let language else {
      throw SpecError(
        "\(name): language= is required (\(PrinterLanguage.spokenList)): a network printer "
          + "does not say what it speaks")
    }
    var spec = NetworkPrinterSpec(name: name, host: host, port: port, language: language)
    for option in options {
      let value = option.value
      switch option.key {
      case "model":
        guard DriverTable.model(named: value, language: language) != nil else {
          throw SpecError(
            "\(name): no \(language.profile.displayName) model \"\(value)\" (labelctl devices "
              + "and docs/protocol.md's Printer models list them)")
        }
        spec.model = value
      case "dpi":
        let d = try option.integer(in: 100...1200)
        if let only = language.profile.onlyDPI, d != only {
          throw SpecError("\(name): \(language.rawValue) printers print at \(only) dpi")
        }
        spec.dpi = d
      // 3.5 mm: the narrowest tape (Brother TZe).
      case "width": spec.widthMM = try option.number(in: 3.5...300)
      case "length": spec.lengthMM = try option.number(in: 0...2000)
      case "snmp-port": spec.snmpPort = try option.integer(in: 1...65535)
      case "community":
        guard value.count <= 64, value.allSatisfy({ $0.isASCII && !$0.isWhitespace }) else {
          throw SpecError("\(name): community must be at most 64 printable characters")
        }
        spec.community = value
      default:
        throw option.unknown(known: [
          "language", "model", "dpi", "width", "length", "snmp-port", "community",
        ])
      }
    }
    if spec.lengthMM != nil && spec.widthMM == nil {
      throw SpecError("\(name): length= needs width=")
    }
    return spec
  }

  /// Space-separated words; a double-quoted part keeps its spaces (`model="Zebra ZD420"`).
  private static func words(_ text: Substring) -> [String] {
    var out: [String] = []
    var word = ""
    var quoted = false
    for c in text {
      if c == "\"" {
        quoted.toggle()
      } else if !quoted && (c == " " || c == "\t") {
        if !word.isEmpty { out.append(word) }
        word = ""
      } else {
        word.append(c)
      }
    }
    if !word.isEmpty { out.append(word) }
    return out
  }

  /// `socket://HOST[:PORT]` (IPv6 in brackets).
  private static func address(_ uri: String, printer: String) throws(SpecError) -> (String, Int) {
    guard uri.hasPrefix("socket://") else {
      throw SpecError(
        "\(printer): \"\(uri)\" is not a socket://HOST[:PORT] URI (raw 9100 printing; IPP "
          + "printers belong in CUPS, which labeld lists as cups:QUEUE)")
    }
    var rest = Substring(uri.dropFirst("socket://".count))
    if rest.hasSuffix("/") { rest = rest.dropLast() }
    var host: Substring
    var portText: Substring?
    if rest.hasPrefix("[") {
      guard let close = rest.firstIndex(of: "]") else {
        throw SpecError("\(printer): unclosed [ in \"\(uri)\"")
      }
      host = rest[rest.index(after: rest.startIndex)..<close]
      let after = rest[rest.index(after: close)...]
      if after.hasPrefix(":") {
        portText = after.dropFirst()
      } else if !after.isEmpty {
        throw SpecError("\(printer): \"\(uri)\" has text after the address")
      }
    } else if let colon = rest.lastIndex(of: ":") {
      host = rest[..<colon]
      portText = rest[rest.index(after: colon)...]
    } else {
      host = rest
    }
    guard !host.isEmpty, host.allSatisfy({ $0.isASCII && !$0.isWhitespace && $0 != "/" }) else {
      throw SpecError("\(printer): no host in \"\(uri)\"")
    }
    var port = 9100
    if let portText {
      guard let p = Int(portText), (1...65535).contains(p) else {
        throw SpecError("\(printer): port \"\(portText)\" must be 1...65535")
      }
      port = p
    }
    return (String(host), port)
  }
}
