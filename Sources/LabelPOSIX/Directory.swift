#if canImport(Glibc)
  @preconcurrency import Glibc
#endif

/// Directories and paths with plain system calls. labeld's start-up uses these rather than
/// Foundation's `FileManager` and `URL`, whose code (URL parsing, percent-encoding tables)
/// would otherwise stay mapped in an idle daemon for three calls made once.
public enum Directory {
  /// Creates `path` and any missing parents (`mkdir -p`), each with `mode` (less the
  /// umask). An existing directory is fine; an existing file in the way is ENOTDIR.
  public static func create(_ path: String, mode: mode_t = 0o755) throws(SystemError) {
    guard !path.isEmpty else { throw SystemError("mkdir \"\"", errno: ENOENT) }
    var prefix = path.hasPrefix("/") ? "/" : ""
    for part in path.split(separator: "/", omittingEmptySubsequences: true) {
      prefix += prefix.isEmpty || prefix.hasSuffix("/") ? String(part) : "/" + part
      let (r, e) = retryingEINTR { mkdir(prefix, mode) }
      guard r < 0 else { continue }
      guard e == EEXIST else { throw SystemError("mkdir \(prefix)", errno: e) }
      guard isDirectory(prefix) else { throw SystemError("mkdir \(prefix)", errno: ENOTDIR) }
    }
  }

  /// The names in directory `path` (without `.` and `..`), in no particular order.
  public static func names(_ path: String) throws(SystemError) -> [String] {
    guard let dir = opendir(path) else { throw SystemError("opendir \(path)", errno: errno) }
    defer { closedir(dir) }
    var names: [String] = []
    while let entry = readdir(dir) {
      let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
        String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
      }
      if name != "." && name != ".." { names.append(name) }
    }
    return names
  }

  public static func isDirectory(_ path: String) -> Bool {
    var info = stat()
    return stat(path, &info) == 0 && (info.st_mode & S_IFMT) == S_IFDIR
  }

  /// The directory holding `path`, as an absolute path when `path` is a bare name (the
  /// working directory), or nil when that cannot be told.
  public static func parent(of path: String) -> String? {
    guard let slash = path.lastIndex(of: "/") else { return current() }
    let dir = String(path[..<slash])
    return dir.isEmpty ? "/" : dir
  }

  /// The working directory.
  public static func current() -> String? {
    var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
    guard getcwd(&buffer, buffer.count) != nil else { return nil }
    return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
  }
}

extension PlainFile {
  /// Whether anything (file, directory, socket) is at `path`.
  public static func exists(_ path: String) -> Bool {
    var info = stat()
    return stat(path, &info) == 0
  }

  /// Removes the file at `path`; one already gone is not an error.
  public static func remove(_ path: String) throws(SystemError) {
    let (r, e) = retryingEINTR { unlink(path) }
    if r < 0 && e != ENOENT { throw SystemError("unlink \(path)", errno: e) }
  }

  /// Replaces the file at `path` with `bytes` (mode 0644) in one step: written to a
  /// temporary file beside it, flushed, then renamed over it, so a reader (or a crash)
  /// sees the old contents or the new, never a part.
  public static func replace(_ path: String, with bytes: [UInt8]) throws(SystemError) {
    let temporary = path + ".new"
    _ = unlink(temporary)
    do {
      try append(bytes, to: temporary)
      let fd = try SystemError.check("open \(temporary)") { open(temporary, O_RDONLY | O_CLOEXEC) }
      defer { close(fd) }
      try SystemError.check("fsync \(temporary)") { fsync(fd) }
      try SystemError.check("rename \(temporary)") { rename(temporary, path) }
    } catch {
      _ = unlink(temporary)
      throw error
    }
  }
}
