#if canImport(Glibc)
  @preconcurrency import Glibc
#endif

/// A shared library labeld opens when it first needs it (libcups, the drawing stack), for
/// the rest of the process's life: a labeld that never prints through CUPS or draws a
/// label never maps them (docs/benchmarks.md, "Idle memory").
public enum SharedLibrary {
  /// Why a library could not be opened: dlerror's words, for every name tried.
  public struct LoadError: Error, Sendable, Equatable, CustomStringConvertible {
    public var message: String
    public var description: String { message }
  }

  /// Opens the first of `names` (sonames, as the dynamic linker finds them) that loads,
  /// with every symbol bound now (a missing one fails here, not mid-job). Each C module
  /// gets the handle through its bind function.
  public static func open(_ names: [String]) -> Result<UnsafeMutableRawPointer, LoadError> {
    var errors: [String] = []
    for name in names {
      if let handle = dlopen(name, RTLD_NOW | RTLD_LOCAL) { return .success(handle) }
      errors.append(dlerror().map { String(cString: $0) } ?? "\(name): cannot be opened")
    }
    return .failure(LoadError(message: errors.joined(separator: "; ")))
  }

  /// Whether the library `name` is mapped into this process (tests and benchmarks: the
  /// lazy loading holds).
  public static func isLoaded(_ name: String) -> Bool {
    guard let handle = dlopen(name, RTLD_NOW | RTLD_NOLOAD) else { return false }
    dlclose(handle)
    return true
  }
}
