#if canImport(Glibc)
  @preconcurrency import Glibc
#endif

/// The process's environment variables.
public enum ProcessEnvironment {
  /// The process environment as a dictionary.
  public static var variables: [String: String] {
    var out: [String: String] = [:]
    var p = environ
    while let entry = p.pointee {
      let s = String(cString: entry)
      if let eq = s.firstIndex(of: "=") {
        out[String(s[..<eq])] = String(s[s.index(after: eq)...])
      }
      p += 1
    }
    return out
  }
}
