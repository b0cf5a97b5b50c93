import CCUPS
import LabelPOSIX

/// libcups, opened the first time labeld talks to a CUPS server: a labeld whose CUPS
/// source finds no server never maps it (nor the TLS and Kerberos libraries it brings).
enum CUPSLibrary {
  /// Debian's soname, then the development link.
  static let names = ["libcups.so.2", "libcups.so"]

  private static let opened: Result<Void, SharedLibrary.LoadError> = SharedLibrary.open(names)
    .map { ccups_bind($0) }

  /// Opens libcups if it is not open yet; a library that cannot be loaded is a CUPS server
  /// that cannot be reached, saying why.
  static func require() throws(CUPSError) {
    if case .failure(let error) = opened {
      throw CUPSError(
        status: .serviceUnavailable, message: "labeld cannot load libcups: \(error.message)")
    }
  }

  /// Opens libcups for IPP messages and raster streams (the IPP front), which need no
  /// server.
  static func requireForIPP() throws(IPPCodec.DecodeError) {
    if case .failure(let error) = opened {
      throw IPPCodec.DecodeError(message: "labeld cannot load libcups: \(error.message)")
    }
  }

  /// Whether libcups is open (without opening it).
  static var isOpen: Bool {
    if case .success = opened { return true }
    return false
  }
}
