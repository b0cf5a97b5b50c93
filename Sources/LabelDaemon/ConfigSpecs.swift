import LabelCore
import LabelScheduler
import LabelTransportNet
import LabelTransportSim

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
