import CCUPS

/// Memory that libcups reads from or writes to through its I/O callbacks (`ippReadIO` and
/// `ippWriteIO`, `cupsRasterOpenIO`: both take the same callback type), so that no
/// message or raster page is read or written through a file or socket of libcups's own.
final class MemorySource {
  let bytes: ArraySlice<UInt8>
  var offset: Int
  init(_ bytes: ArraySlice<UInt8>) {
    self.bytes = bytes
    offset = bytes.startIndex
  }
}

/// Where libcups writes.
final class MemorySink {
  var bytes: [UInt8] = []
}

enum MemoryIO {
  /// Hands libcups the next bytes of the `MemorySource` in `context`, as many as it asks
  /// for and are left; 0 at the end.
  static let read: ipp_iocb_t = { context, buffer, wanted in
    guard let context, let buffer else { return -1 }
    let source = Unmanaged<MemorySource>.fromOpaque(context).takeUnretainedValue()
    let n = min(wanted, source.bytes.endIndex - source.offset)
    guard n > 0 else { return 0 }
    source.bytes[source.offset..<source.offset + n].withUnsafeBytes {
      if let base = $0.baseAddress {
        UnsafeMutableRawPointer(buffer).copyMemory(from: base, byteCount: n)
      }
    }
    source.offset += n
    return n
  }

  /// Appends what libcups writes to the `MemorySink` in `context`.
  static let write: ipp_iocb_t = { context, buffer, count in
    guard let context, let buffer else { return -1 }
    let sink = Unmanaged<MemorySink>.fromOpaque(context).takeUnretainedValue()
    sink.bytes.append(contentsOf: UnsafeBufferPointer(start: buffer, count: count))
    return count
  }
}
