import LabelCore

/// A Zebra status reply that does not have the documented shape.
public struct ZebraStatusError: Error, Sendable, Equatable, CustomStringConvertible {
  public let message: String
  public init(_ message: String) { self.message = message }
  public var description: String { "Zebra status: \(message)" }
}

/// The reply to `~HS` (host status): three `STX … ETX CR LF` strings of comma-separated
/// fields (ZPL II Programming Guide, ~HS):
///
/// 1. `aaa,b,c,dddd,eee,f,g,h,iii,j,k,l`: communication settings, paper out, pause, label
///    length (dots), formats in the receive buffer, buffer full, diagnostic mode, partial
///    format, unused, corrupt RAM, under temperature, over temperature.
/// 2. `mmm,n,o,p,q,r,s,t,uuuuuuuu,v,www`: function settings, unused, head up, ribbon out,
///    thermal transfer, print mode, print width mode, label waiting, labels remaining,
///    format while printing, graphics stored.
/// 3. `xxxx,y`: password, static RAM installed.
///
/// Later firmware may append fields; only missing or non-numeric ones throw.
public struct ZebraHostStatus: Sendable, Equatable {
  public static let request = "~HS"

  /// The ~HS flags that can mean a fault.
  public struct Conditions: OptionSet, Sendable, Hashable {
    public let rawValue: UInt16
    public init(rawValue: UInt16) { self.rawValue = rawValue }

    public static let paperOut = Conditions(rawValue: 1 << 0)
    public static let paused = Conditions(rawValue: 1 << 1)
    public static let headUp = Conditions(rawValue: 1 << 2)
    public static let ribbonOut = Conditions(rawValue: 1 << 3)
    public static let corruptRAM = Conditions(rawValue: 1 << 4)
    public static let underTemperature = Conditions(rawValue: 1 << 5)
    public static let overTemperature = Conditions(rawValue: 1 << 6)
    /// Not a fault: the printer takes no more data until it prints some.
    public static let bufferFull = Conditions(rawValue: 1 << 7)

    /// Each condition and the fault it means: the one table for ~HS.
    public static let reasonTable: [(Conditions, Reason)] = [
      (.paperOut, .mediaEmpty),
      (.paused, .paused),
      // The print mechanism is open: the person fixing it closes it like a cover.
      (.headUp, .coverOpen),
      (.ribbonOut, .ribbonEmpty),
      // Settings memory lost: the printer needs service, no narrower reason.
      (.corruptRAM, .unknown),
      // Both are print-head temperatures out of range; the head stops printing.
      (.underTemperature, .headError),
      (.overTemperature, .headError),
    ]
  }

  public let conditions: Conditions
  /// Label length in dots.
  public let labelLength: Int
  public let formatsInBuffer: Int
  public let thermalTransfer: Bool
  public let labelsRemaining: Int
  /// The raw fields of the three strings.
  public let fields: [[String]]

  public init(_ text: String) throws(ZebraStatusError) { try self.init(Array(text.utf8)) }

  public init(_ reply: some Collection<UInt8>) throws(ZebraStatusError) {
    let strings = try framedStrings(Array(reply))
    guard strings.count == 3 else {
      throw ZebraStatusError("~HS reply has \(strings.count) STX…ETX strings; expected 3")
    }
    fields = strings.map {
      $0.split(separator: ",", omittingEmptySubsequences: false).map(String.init)
    }
    let minimum = [12, 11, 2]
    for (i, f) in fields.enumerated() where f.count < minimum[i] {
      throw ZebraStatusError("~HS string \(i + 1) has \(f.count) fields; expected \(minimum[i])")
    }
    let s1 = fields[0]
    let s2 = fields[1]
    var c = Conditions()
    if try flag(s1, 2) { c.insert(.paperOut) }
    if try flag(s1, 3) { c.insert(.paused) }
    if try flag(s1, 6) { c.insert(.bufferFull) }
    if try flag(s1, 10) { c.insert(.corruptRAM) }
    if try flag(s1, 11) { c.insert(.underTemperature) }
    if try flag(s1, 12) { c.insert(.overTemperature) }
    if try flag(s2, 3) { c.insert(.headUp) }
    if try flag(s2, 4) { c.insert(.ribbonOut) }
    conditions = c
    labelLength = try number(s1, 4)
    formatsInBuffer = try number(s1, 5)
    thermalTransfer = try flag(s2, 5)
    labelsRemaining = try number(s2, 9)
  }

  /// Faults in the reply, in table order without repeats.
  public var reasons: [Reason] { zebraReasons(Conditions.reasonTable, conditions.contains) }
}

/// The reply to `~HQES` (extended status): `ERRORS:` and `WARNINGS:` lines, each a flag
/// (1 = present) then two groups of eight hex digits, group 2 (nibbles 16–9) then group 1
/// (nibbles 8–1). Parsed by whitespace-separated groups, never by column.
public struct ZebraExtendedStatus: Sendable, Equatable {
  public static let request = "~HQES"

  /// Error bits, group 2 in the high 32 bits and group 1 in the low.
  public struct Errors: OptionSet, Sendable, Hashable {
    public let rawValue: UInt64
    public init(rawValue: UInt64) { self.rawValue = rawValue }

    public static let mediaOut = Errors(rawValue: 0x1)
    public static let ribbonOut = Errors(rawValue: 0x2)
    public static let headOpen = Errors(rawValue: 0x4)
    public static let cutterFault = Errors(rawValue: 0x8)
    public static let headOverTemperature = Errors(rawValue: 0x10)
    public static let motorOverTemperature = Errors(rawValue: 0x20)
    public static let badHeadElement = Errors(rawValue: 0x40)
    public static let headDetection = Errors(rawValue: 0x80)
    public static let invalidFirmwareConfig = Errors(rawValue: 0x100)
    public static let headThermistorOpen = Errors(rawValue: 0x200)
    /// 0x1000–0x80000 are documented for the KR403 kiosk printer.
    public static let jamDuringRetract = Errors(rawValue: 0x1000)
    public static let presenterNotRunning = Errors(rawValue: 0x2000)
    public static let paperFeed = Errors(rawValue: 0x4000)
    public static let clearPaperPathFailed = Errors(rawValue: 0x8000)
    public static let paused = Errors(rawValue: 0x10000)
    public static let retractTimedOut = Errors(rawValue: 0x20000)
    public static let blackMarkCalibrate = Errors(rawValue: 0x40000)
    public static let blackMarkNotFound = Errors(rawValue: 0x80000)

    /// Each error bit and the fault it means: the one table for ~HQES.
    public static let reasonTable: [(Errors, Reason)] = [
      (.mediaOut, .mediaEmpty),
      (.ribbonOut, .ribbonEmpty),
      // Print head lifted: closed by the person like a cover (as ~HS "head up").
      (.headOpen, .coverOpen),
      (.cutterFault, .cutterError),
      (.headOverTemperature, .headError),
      // The feed motor, not the head: no narrower reason.
      (.motorOverTemperature, .unknown),
      (.badHeadElement, .headError),
      (.headDetection, .headError),
      (.invalidFirmwareConfig, .unknown),
      (.headThermistorOpen, .headError),
      (.jamDuringRetract, .mediaJam),
      (.presenterNotRunning, .unknown),
      // Media would not move: the printer's own word for a jam. One peer lists this bit
      // as 0x400; the ZPL guide's nibble table puts it at nibble 4, value 4 (0x4000).
      (.paperFeed, .mediaJam),
      (.clearPaperPathFailed, .mediaJam),
      (.paused, .paused),
      (.retractTimedOut, .unknown),
      // Marks the job expects are missing: the wrong media is loaded.
      (.blackMarkCalibrate, .mediaMismatch),
      (.blackMarkNotFound, .mediaMismatch),
    ]
  }

  /// Warning bits (calibrate media 0x1, clean head 0x2, replace head 0x4, paper near end
  /// 0x8…): kept, but no fault: printing goes on.
  public let warnings: UInt64
  public let errorFlag: Bool
  public let warningFlag: Bool
  public let errors: Errors

  public init(_ text: String) throws(ZebraStatusError) { try self.init(Array(text.utf8)) }

  public init(_ reply: some Collection<UInt8>) throws(ZebraStatusError) {
    let text = String(decoding: reply.filter { $0 != 0x02 && $0 != 0x03 }, as: UTF8.self)
    var found: [String: (Bool, UInt64)] = [:]
    for line in text.split(whereSeparator: \.isNewline) {
      let words = line.split(whereSeparator: \.isWhitespace)
      guard let label = words.first, label == "ERRORS:" || label == "WARNINGS:" else { continue }
      let key = String(label)
      guard found[key] == nil else { throw ZebraStatusError("~HQES reply repeats \(key)") }
      guard words.count == 4 else {
        throw ZebraStatusError("~HQES \(key) has \(words.count - 1) groups; expected 3")
      }
      guard words[1] == "0" || words[1] == "1" else {
        throw ZebraStatusError("~HQES \(key) flag is \(words[1]); expected 0 or 1")
      }
      guard let high = hexGroup(words[2]), let low = hexGroup(words[3]) else {
        throw ZebraStatusError("~HQES \(key) groups are not 1–8 hex digits")
      }
      found[key] = (words[1] == "1", high << 32 | low)
    }
    guard let e = found["ERRORS:"] else { throw ZebraStatusError("~HQES reply has no ERRORS:") }
    errorFlag = e.0
    errors = Errors(rawValue: e.1)
    warningFlag = found["WARNINGS:"]?.0 ?? false
    warnings = found["WARNINGS:"]?.1 ?? 0
  }

  /// Faults in the reply, in table order without repeats; bits outside the table, or the
  /// error flag with no bit, add `unknown`.
  public var reasons: [Reason] {
    var out = zebraReasons(Errors.reasonTable, errors.contains)
    let known = Errors.reasonTable.reduce(Errors()) { $0.union($1.0) }
    let unnamed = !errors.subtracting(known).isEmpty || (errorFlag && errors.isEmpty)
    if unnamed, !out.contains(.unknown) { out.append(.unknown) }
    return out
  }
}

/// The text inside each STX (0x02) … ETX (0x03) pair; bytes outside them may only be
/// CR, LF or spaces.
private func framedStrings(_ bytes: [UInt8]) throws(ZebraStatusError) -> [String] {
  var out: [String] = []
  var current: [UInt8]?
  for b in bytes {
    switch (b, current) {
    case (0x02, nil): current = []
    case (0x02, _): throw ZebraStatusError("STX inside a status string")
    case (0x03, let open?):
      out.append(String(decoding: open, as: UTF8.self))
      current = nil
    case (0x03, nil): throw ZebraStatusError("ETX without STX")
    case (_, nil):
      guard b == 0x0D || b == 0x0A || b == 0x20 else {
        throw ZebraStatusError("byte 0x\(hexByte(b)) outside STX…ETX")
      }
    case (_, var open?):
      open.append(b)
      current = open
    }
  }
  guard current == nil else { throw ZebraStatusError("status string without ETX") }
  return out
}

/// Field `n` (1-based) as a 0/1 flag.
private func flag(_ fields: [String], _ n: Int) throws(ZebraStatusError) -> Bool {
  switch fields[n - 1] {
  case "0": return false
  case "1": return true
  case let f: throw ZebraStatusError("~HS field \(n) is \"\(f)\"; expected 0 or 1")
  }
}

/// Field `n` (1-based) as a decimal number.
private func number(_ fields: [String], _ n: Int) throws(ZebraStatusError) -> Int {
  let f = fields[n - 1]
  guard !f.isEmpty, f.count <= 9, f.utf8.allSatisfy({ (0x30...0x39).contains($0) }), let v = Int(f)
  else { throw ZebraStatusError("~HS field \(n) is \"\(f)\"; expected a number") }
  return v
}

private func hexGroup(_ s: Substring) -> UInt64? {
  guard (1...8).contains(s.count), s.allSatisfy(\.isHexDigit) else { return nil }
  return UInt64(s, radix: 16)
}

private func zebraReasons<Flag>(_ table: [(Flag, Reason)], _ has: (Flag) -> Bool) -> [Reason] {
  var out: [Reason] = []
  for (flag, reason) in table where has(flag) && !out.contains(reason) { out.append(reason) }
  return out
}
