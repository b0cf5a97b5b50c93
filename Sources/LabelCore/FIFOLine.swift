/// Items first in, first out: taking the first is O(1) however long the line (an array's
/// `removeFirst` moves everything behind it: a backlog of 50,000 jobs cost 400 kB of
/// copying per label printed). The space of taken items is given back once it is half
/// the storage. A printer's waiting jobs (`JobLine`) and the store's lanes use it.
/// Inlinable: the modules that use it specialise it for their element (unspecialised, its
/// generic calls were a twentieth of a small store read's CPU).
public struct FIFOLine<Element> {
  @usableFromInline var storage: [Element] = []
  @usableFromInline var start = 0

  public var items: [Element] { storage }
  public var head: Int { start }

  @inlinable public init() {}

  @inlinable public var first: Element? { start < storage.count ? storage[start] : nil }
  @inlinable public var isEmpty: Bool { start >= storage.count }
  @inlinable public var count: Int { storage.count - start }
  /// The items waiting, first first.
  @inlinable public var waiting: ArraySlice<Element> { storage[start...] }

  @inlinable public mutating func append(_ item: Element) { storage.append(item) }

  /// Takes the first item out of the line.
  @inlinable public mutating func removeFirst() -> Element? {
    guard start < storage.count else { return nil }
    let item = storage[start]
    start += 1
    compact()
    return item
  }

  /// Inserts `item` before the waiting one at `index` (an index of `items`).
  @inlinable public mutating func insert(_ item: Element, at index: Int) {
    storage.insert(item, at: index)
  }

  /// Removes the waiting item at `index` (an index of `items`).
  @inlinable public mutating func remove(at index: Int) {
    storage.remove(at: index)
    compact()
  }

  @inlinable mutating func compact() {
    if start == storage.count {
      storage.removeAll(keepingCapacity: storage.capacity <= 1024)
      start = 0
    } else if start >= 1024 && start * 2 >= storage.count {
      storage.removeFirst(start)
      start = 0
    }
  }
}

extension FIFOLine: Sendable where Element: Sendable {}
