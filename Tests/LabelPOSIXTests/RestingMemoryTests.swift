import Testing

@testable import LabelPOSIX

#if canImport(Glibc)
  @preconcurrency import Glibc
#endif

/// What `RestingMemory.release` unmaps and what it must never touch, on real mappings of
/// this test process (read back from /proc/self/smaps), and how it reads smaps.
@Suite(.serialized) struct RestingMemoryTests {
  static let page = Int(sysconf(Int32(_SC_PAGESIZE)))

  /// A file of `pages` pages, page `i` filled with byte `i + 1`; unlinked at once (the
  /// mapping keeps it).
  static func scratchFile(pages: Int) throws -> Int32 {
    var template = Array("/tmp/labeld-rest-test-XXXXXX".utf8CString)
    let fd = template.withUnsafeMutableBufferPointer { mkstemp($0.baseAddress!) }
    try #require(fd >= 0)
    template.withUnsafeBufferPointer { _ = unlink($0.baseAddress!) }
    for i in 0..<pages {
      let bytes = [UInt8](repeating: UInt8(i + 1), count: page)
      let n = bytes.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
      try #require(n == page)
    }
    return fd
  }

  /// Maps `pages` pages of `fd`; the caller unmaps them (`munmap`, in a `defer`).
  static func map(_ fd: Int32, pages: Int, _ protection: Int32, _ flags: Int32) throws
    -> UnsafeMutableRawPointer
  {
    let base = try #require(mmap(nil, pages * page, protection, flags, fd, 0))
    try #require(base != MAP_FAILED)
    return base
  }

  /// This process's mapping that starts at `address`, as smaps shows it now.
  static func mapping(at address: UnsafeMutableRawPointer) throws -> RestingMemory.Mapping {
    let all = RestingMemory.Mapping.parse(try PlainFile.read("/proc/self/smaps"))
    return try #require(all.first { $0.start == UInt(bitPattern: address) })
  }

  static func touch(_ base: UnsafeMutableRawPointer, pages: Int) -> Int {
    var sum = 0
    for i in 0..<pages { sum += Int(base.load(fromByteOffset: i * page, as: UInt8.self)) }
    return sum
  }

  @Test func aReadOnlyFileMapping_isUnmapped_andReadsTheSameAfterwards() throws {
    let pages = 64
    let fd = try Self.scratchFile(pages: pages)
    defer { close(fd) }
    let base = try Self.map(fd, pages: pages, PROT_READ, MAP_PRIVATE)
    defer { munmap(base, pages * Self.page) }
    let expected = (1...pages).reduce(0, +)
    #expect(Self.touch(base, pages: pages) == expected)
    let before = try Self.mapping(at: base)
    #expect(before.residentKB == pages * Self.page / 1024)
    #expect(before.anonymousKB == 0 && before.isReleasable)

    let released = RestingMemory.release()
    #expect(released.mappings >= 1 && released.residentKB >= before.residentKB)
    #expect(try Self.mapping(at: base).residentKB == 0)
    // Mapped again from the file on the next touch: the same bytes.
    #expect(Self.touch(base, pages: pages) == expected)
  }

  /// Relocated data is written and then made read-only (RELRO): it looks like any other
  /// read-only private file mapping but holds the process's own copy of its pages, which
  /// the file cannot give back. It must keep what was written.
  @Test func aMappingWithWrittenPages_isKept_evenWhenMadeReadOnly() throws {
    let pages = 8
    let fd = try Self.scratchFile(pages: pages)
    defer { close(fd) }
    let base = try Self.map(fd, pages: pages, PROT_READ | PROT_WRITE, MAP_PRIVATE)
    defer { munmap(base, pages * Self.page) }
    base.storeBytes(of: 0xEE, toByteOffset: 3 * Self.page, as: UInt8.self)
    #expect(Self.touch(base, pages: pages) > 0)
    try #require(mprotect(base, pages * Self.page, PROT_READ) == 0)
    let before = try Self.mapping(at: base)
    #expect(before.permissions == "r--p" && before.anonymousKB == Self.page / 1024)
    #expect(!before.isReleasable)

    RestingMemory.release()
    #expect(base.load(fromByteOffset: 3 * Self.page, as: UInt8.self) == 0xEE)
    #expect(try Self.mapping(at: base).residentKB == before.residentKB)
  }

  /// A shared mapping is the file itself; writable ones, the heap and stacks hold data.
  @Test func sharedAndWritableMappings_areNeverReleasable() throws {
    let pages = 4
    let fd = try Self.scratchFile(pages: pages)
    defer { close(fd) }
    let shared = try Self.map(fd, pages: pages, PROT_READ, MAP_SHARED)
    defer { munmap(shared, pages * Self.page) }
    let writable = try Self.map(fd, pages: pages, PROT_READ | PROT_WRITE, MAP_PRIVATE)
    defer { munmap(writable, pages * Self.page) }
    _ = Self.touch(shared, pages: pages)
    _ = Self.touch(writable, pages: pages)
    RestingMemory.release()
    #expect(try Self.mapping(at: shared).residentKB == pages * Self.page / 1024)
    #expect(try Self.mapping(at: writable).residentKB == pages * Self.page / 1024)
  }

  @Test func smapsIsReadField_byField() {
    let text = """
      55d0c0a00000-55d0c0b00000 r-xp 00001000 08:01 1234                       /usr/sbin/labeld
      Size:               1024 kB
      Rss:                 512 kB
      Anonymous:             0 kB
      VmFlags: rd ex mr mw me
      55d0c0b00000-55d0c0b10000 r--p 00100000 08:01 1234                       /usr/sbin/labeld
      Rss:                  64 kB
      Anonymous:            12 kB
      55d0c0b10000-55d0c0b20000 rw-p 00110000 08:01 1234                       /usr/sbin/labeld
      Rss:                  64 kB
      Anonymous:             0 kB
      7f0000000000-7f0000001000 r--s 00000000 08:01 99                         /var/lib/labeld/labeld.db-shm
      Rss:                   4 kB
      Anonymous:             0 kB
      7f0000002000-7f0000003000 r--p 00000000 08:01 77                         /opt/my dir/lib x.so
      Rss:                   4 kB
      Anonymous:             0 kB
      7f0000004000-7f0000005000 r--p 00000000 08:01 78                         /opt/no-anonymous-field.so
      Rss:                   4 kB
      7ffd00000000-7ffd00001000 r-xp 00000000 00:00 0                          [vdso]
      Rss:                   4 kB
      Anonymous:             0 kB
      garbage-line r-xp
      zz-yy r-xp 0 0 0 /x
      """
    let maps = RestingMemory.Mapping.parse(Array(text.utf8))
    #expect(
      maps.map(\.path) == [
        "/usr/sbin/labeld", "/usr/sbin/labeld", "/usr/sbin/labeld",
        "/var/lib/labeld/labeld.db-shm", "/opt/my dir/lib x.so", "/opt/no-anonymous-field.so",
        "[vdso]",
      ])
    #expect(
      maps.first
        == RestingMemory.Mapping(
          start: 0x55d0_c0a0_0000, end: 0x55d0_c0b0_0000, permissions: "r-xp",
          path: "/usr/sbin/labeld", residentKB: 512, anonymousKB: 0))
    #expect(maps.map(\.isReleasable) == [true, false, false, false, true, false, false])
  }

  @Test func cpuTime_counts() {
    let start = RestingMemory.processCPUTime()
    var x = 0
    for i in 0..<5_000_000 { x &+= i &* i }
    #expect(x != 1)
    #expect(RestingMemory.processCPUTime() > start)
  }
}
