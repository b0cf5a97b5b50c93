import CLinux

#if canImport(Glibc)
  @preconcurrency import Glibc
#endif

/// What a daemon at rest can hand back to the machine without losing anything.
///
/// Code and read-only data are mapped from files. Each page a thread touches maps, by the
/// kernel's fault-around, up to 64 KB of its neighbours too, so a labeld that has started
/// and served a few requests keeps megabytes of code mapped of which it runs a few hundred
/// kilobytes while idle (callgrind counts them; docs/benchmarks.md, "Idle memory").
/// `release` unmaps those pages from this process (`MADV_DONTNEED`) where that cannot
/// change what the process sees: private mappings that are not writable and whose every
/// page is still the file's own (no copy-on-write copy: smaps's `Anonymous: 0 kB`). The
/// pages stay in the page cache, clean and no longer mapped, so the kernel can reclaim
/// them before anything that is in use; the next touch maps them back (a minor fault, or a
/// read of the file if they were reclaimed). Then glibc returns the heap's free pages
/// (`malloc_trim`).
///
/// Not touched: anything writable, shared, anonymous (heap, stacks), or with a page the
/// process has written (relocated data that was made read-only after relocation): those
/// cannot be read back from their file.
public enum RestingMemory {
  public struct Released: Sendable, Equatable {
    /// Mappings unmapped, and how much of them was resident.
    public var mappings = 0
    public var residentKB = 0
  }

  /// Unmaps clean read-only file pages and trims the heap; what it unmapped. A process
  /// whose smaps cannot be read (no /proc) releases nothing.
  @discardableResult
  public static func release() -> Released {
    var released = Released()
    guard let smaps = try? PlainFile.read("/proc/self/smaps") else { return released }
    for mapping in Mapping.parse(smaps) where mapping.isReleasable {
      guard let start = UnsafeMutableRawPointer(bitPattern: mapping.start),
        let length = Int(exactly: mapping.end - mapping.start)
      else { continue }
      if madvise(start, length, MADV_DONTNEED) == 0 {
        released.mappings += 1
        released.residentKB += mapping.residentKB
      }
    }
    _ = malloc_trim(0)
    return released
  }

  /// While labeld works, freed memory stays in its heap for the next request instead of
  /// going back to the kernel at once: glibc's defaults map every block over 128 KB (a
  /// label's pixels are a megabyte) afresh and trim the heap's top as soon as it is free,
  /// so each document paid for its pages twice, in faults and in zeroing (measured: a
  /// sixth of a PWG label's time). What is kept is handed back at rest (`release`).
  /// Blocks up to 8 MiB (a 4 x 6 in label at 300 dpi is 2 MB of grey) come from the heap;
  /// larger ones (a request's body) are still mapped and unmapped, so they do not stay.
  public static func keepWhileWorking() {
    _ = mallopt(M_MMAP_THRESHOLD, 8 << 20)
    _ = mallopt(M_TRIM_THRESHOLD, 64 << 20)
  }

  /// CPU time this process has used so far (every thread), for telling rest from work.
  public static func processCPUTime() -> Duration {
    var now = timespec()
    guard clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &now) == 0 else { return .zero }
    return .seconds(now.tv_sec) + .nanoseconds(now.tv_nsec)
  }

  /// One mapping of `/proc/self/smaps`: its header line and the fields `release` reads.
  struct Mapping: Equatable {
    var start: UInt
    var end: UInt
    /// `r-xp`, `rw-p`, `r--s`, …
    var permissions: String
    /// The file's path; empty or `[heap]`-like for what is not a file.
    var path: String
    var residentKB = 0
    var anonymousKB: Int?

    /// Private, not writable, from a file, resident, and with no page of its own.
    var isReleasable: Bool {
      let p = Array(permissions.utf8)
      return p.count == 4 && p[1] != UInt8(ascii: "w") && p[3] == UInt8(ascii: "p")
        && path.hasPrefix("/") && end > start && residentKB > 0 && anonymousKB == 0
    }

    /// Every mapping in `text`; a header or field that does not parse is skipped (a
    /// mapping whose `Anonymous` is unknown is never released).
    static func parse(_ text: [UInt8]) -> [Mapping] {
      var mappings: [Mapping] = []
      for line in text.split(separator: UInt8(ascii: "\n")) {
        let fields = line.split(separator: UInt8(ascii: " "), omittingEmptySubsequences: true)
        guard let first = fields.first else { continue }
        if let dash = first.firstIndex(of: UInt8(ascii: "-")), fields.count >= 5,
          let start = UInt(String(decoding: first[..<dash], as: UTF8.self), radix: 16),
          let end = UInt(String(decoding: first[(dash + 1)...], as: UTF8.self), radix: 16)
        {
          // The path is the rest of the line after the inode (it may contain spaces).
          let path = fields.count > 5 ? pathField(line, after: fields[4]) : ""
          mappings.append(
            Mapping(
              start: start, end: end, permissions: String(decoding: fields[1], as: UTF8.self),
              path: path))
        } else if fields.count >= 2, !mappings.isEmpty,
          let kb = Int(String(decoding: fields[1], as: UTF8.self))
        {
          switch String(decoding: first, as: UTF8.self) {
          case "Rss:": mappings[mappings.count - 1].residentKB = kb
          case "Anonymous:": mappings[mappings.count - 1].anonymousKB = kb
          default: break
          }
        }
      }
      return mappings
    }

    private static func pathField(_ line: ArraySlice<UInt8>, after inode: ArraySlice<UInt8>)
      -> String
    {
      let rest = line[inode.endIndex...].drop { $0 == UInt8(ascii: " ") }
      return String(decoding: rest, as: UTF8.self)
    }
  }
}
