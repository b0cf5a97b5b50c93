import LabelCore

/// A printer's waiting jobs, first come first served.
package typealias JobLine = FIFOLine<Int>

extension FIFOLine where Element == Int {
  /// Takes `id` out of the line wherever it stands; false if it is not in it.
  package mutating func remove(_ id: Int) -> Bool {
    guard let index = waiting.firstIndex(of: id) else { return false }
    remove(at: index)
    return true
  }

  package func contains(_ id: Int) -> Bool { waiting.contains(id) }

  /// Puts `id` back before the first job with a greater id (a job returning to its turn).
  package mutating func insertInOrder(_ id: Int) {
    insert(id, at: waiting.firstIndex { $0 > id } ?? items.endIndex)
  }
}
