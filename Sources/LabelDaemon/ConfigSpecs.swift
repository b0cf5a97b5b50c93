import LabelCore
import LabelHTTP
import LabelIPP
import LabelScheduler
import LabelTransportNet
import LabelTransportSim
import LabelWeb

/// The settings whose words name a transport's types, read here so that the daemon's
/// command line (the `labeld` executable) goes through the composition root and never
/// imports a transport or the scheduler.
extension DaemonConfig {
  /// `--simulate NAME=LANGUAGE[,…]`: a printer of the same name given before is replaced.
  public mutating func simulate(_ text: String) throws(SpecError) {
    let spec = try SimulatedPrinterSpec.parse(text)
    simulated.removeAll { $0.name == spec.name }
    simulated.append(spec)
  }

  /// `--printer NAME=…`: a printer of the same name given before is replaced.
  public mutating func addNetworkPrinter(_ text: String) throws(SpecError) {
    let spec = try NetworkPrinterSpec.parse(text)
    network.printers.removeAll { $0.name == spec.name }
    network.printers.append(spec)
  }

  /// `--interrupted-jobs resend|abort`.
  public mutating func setInterruptedJobs(_ text: String) throws(SpecError) {
    guard let policy = InterruptedJobPolicy(rawValue: text) else {
      throw SpecError("--interrupted-jobs must be resend or abort")
    }
    interruptedJobs = policy
  }
}

extension DaemonConfig {
  /// `--listen-http` (`http =`), `--tls-cert`, `--tls-key`, `--tls-self-signed`, `--web-origin`.
  public mutating func setWeb(_ flag: String, _ value: String) throws(SpecError) {
    switch flag {
    case "--listen-http", "--http":
      switch HTTPAddress.parse(value) {
      case .success(let address): web.listen.append(address)
      case .failure(let error): throw SpecError("--listen-http \(error.description)")
      }
    case "--tls-cert": web.certificatePath = value.isEmpty ? nil : value
    case "--tls-key": web.keyPath = value.isEmpty ? nil : value
    case "--tls-self-signed":
      guard let on = SpecError.yesNo(value) else {
        throw SpecError("tls-self-signed must be yes or no, got \"\(value)\"")
      }
      web.selfSigned = on
    case "--web-origin":
      guard value.hasPrefix("http://") || value.hasPrefix("https://"), !value.hasSuffix("/")
      else {
        throw SpecError(
          "--web-origin is a scheme and host (https://pos.example.com), got \"\(value)\"")
      }
      web.allowedOrigins.append(value)
    default: throw SpecError("\(flag) is not a web setting")
    }
  }

  /// The command line's listeners replace the file's.
  public mutating func clearWebListeners() { web.listen = [] }

  /// `--listen-ipp` (`listen-ipp =`, repeatable) and `--ipp-print operator|anyone`.
  public mutating func setIPP(_ flag: String, _ value: String) throws(SpecError) {
    switch flag {
    case "--listen-ipp":
      switch HTTPAddress.parse(value) {
      case .success(let address): ipp.listen.append(address)
      case .failure(let error): throw SpecError("--listen-ipp \(error.description)")
      }
    case "--ipp-print":
      guard let access = IPPSettings.PrintAccess(rawValue: value) else {
        throw SpecError("ipp-print must be operator or anyone, got \"\(value)\"")
      }
      ipp.printAccess = access
    default: throw SpecError("\(flag) is not an IPP setting")
    }
  }

  /// The command line's IPP listeners replace the file's.
  public mutating func clearIPPListeners() { ipp.listen = [] }

  /// The IPP front's settings as served: TLS as the web endpoint's (the same certificate).
  package var ippSettings: IPPSettings {
    var settings = ipp
    settings.tls.certificatePath = web.certificatePath
    settings.tls.keyPath = web.keyPath
    settings.tls.selfSigned = web.selfSigned
    settings.tls.stateDirectory = stateDirectory
    return settings
  }

  /// Why the web or IPP settings cannot be served (a plain address off this machine, half a
  /// key pair), or nil.
  public var webProblem: String? { WebEndpoint.validate(web) ?? ippSettings.problem }

  /// For `--check-config`: where IPP listens, and who may print.
  public var ippSummary: String {
    ipp.listen.isEmpty
      ? "- (off)"
      : ipp.listen.map(\.description).joined(separator: " ")
        + " (ipp-print = \(ipp.printAccess.rawValue))"
  }

  /// For `--check-config`.
  public var webSummary: (http: String, tls: String) {
    (
      web.listen.isEmpty ? "- (off)" : web.listen.map(\.description).joined(separator: " "),
      web.certificatePath.map { "\($0) \(web.keyPath ?? "")" }
        ?? (web.selfSigned ? "self-signed" : "-")
    )
  }
}
