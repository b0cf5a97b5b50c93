import LabelPOSIX
import Testing

#if canImport(Glibc)
  @preconcurrency import Glibc
#endif

/// The plain-system-call directories and files labeld's start-up uses instead of
/// Foundation's: what they create, list and replace on a real file system, and the typed
/// error when something is in the way.
@Suite struct DirectoryTests {
  /// A fresh directory under /tmp, removed by the caller's `defer`.
  static func scratch() throws -> String {
    var template = Array("/tmp/labeld-dir-test-XXXXXX".utf8CString)
    let made = template.withUnsafeMutableBufferPointer { buffer in
      buffer.baseAddress.flatMap { mkdtemp($0) } != nil
    }
    try #require(made)
    return String(
      decoding: template.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
  }

  static func removeTree(_ path: String) {
    for name in (try? Directory.names(path)) ?? [] {
      let child = "\(path)/\(name)"
      if Directory.isDirectory(child) { removeTree(child) } else { unlink(child) }
    }
    rmdir(path)
  }

  @Test func create_makesEveryMissingParent_andAcceptsAnExistingDirectory() throws {
    let root = try Self.scratch()
    defer { Self.removeTree(root) }
    let deep = "\(root)/state/sim/zebra"
    try Directory.create(deep)
    #expect(Directory.isDirectory("\(root)/state"))
    #expect(Directory.isDirectory(deep))
    try Directory.create(deep)  // again: nothing to do, no error
    try Directory.create(deep + "/")  // a trailing slash is the same directory
    #expect(try Directory.names("\(root)/state/sim") == ["zebra"])
  }

  @Test func create_throughAFile_isENOTDIR_namingThePath() throws {
    let root = try Self.scratch()
    defer { Self.removeTree(root) }
    try PlainFile.append(Array("x".utf8), to: "\(root)/file")
    #expect(throws: SystemError("mkdir \(root)/file", errno: ENOTDIR)) {
      try Directory.create("\(root)/file/below")
    }
    #expect(throws: SystemError.self) { try Directory.create("") }
  }

  @Test func names_listsEntries_withoutDots_andAMissingDirectoryIsAnError() throws {
    let root = try Self.scratch()
    defer { Self.removeTree(root) }
    for name in ["3.zpl", "10.zpl", "notes.txt"] {
      try PlainFile.append([], to: "\(root)/\(name)")
    }
    try Directory.create("\(root)/sub")
    #expect(try Directory.names(root).sorted() == ["10.zpl", "3.zpl", "notes.txt", "sub"])
    #expect(throws: SystemError("opendir \(root)/missing", errno: ENOENT)) {
      try Directory.names("\(root)/missing")
    }
  }

  @Test func parent_ofAbsoluteRelativeAndBareNames() {
    #expect(Directory.parent(of: "/run/labeld/labeld.sock") == "/run/labeld")
    #expect(Directory.parent(of: "/labeld.sock") == "/")
    #expect(Directory.parent(of: "tmp/labeld.sock") == "tmp")
    // A bare name lives in the working directory, told as an absolute path.
    let cwd = Directory.current()
    #expect(cwd?.hasPrefix("/") == true)
    #expect(Directory.parent(of: "labeld.sock") == cwd)
  }

  @Test func replace_swapsTheWholeFile_andRemoveToleratesAMissingOne() throws {
    let root = try Self.scratch()
    defer { Self.removeTree(root) }
    let path = "\(root)/cups-instance"
    #expect(!PlainFile.exists(path))
    try PlainFile.replace(path, with: Array("first, longer contents".utf8))
    try PlainFile.replace(path, with: Array("1a2b".utf8))
    #expect(try PlainFile.read(path) == Array("1a2b".utf8))
    #expect(try Directory.names(root) == ["cups-instance"])  // no temporary left behind
    try PlainFile.remove(path)
    #expect(!PlainFile.exists(path))
    try PlainFile.remove(path)  // already gone: fine
    // Replacing inside a missing directory fails with the path, and leaves nothing.
    #expect(throws: SystemError.self) {
      try PlainFile.replace("\(root)/missing/x", with: [1])
    }
    #expect(try Directory.names(root).isEmpty)
  }
}
