import Testing

@testable import LabelScheduler

/// The printer queue's line of waiting jobs: first come first served, with jobs taken out
/// (cancelled) and put back in id order (a parked job's turn), across compactions.
@Suite struct JobLineTests {
  @Test func keepsOrder_acrossCompactions() {
    var line = JobLine()
    var expected: [Int] = []
    for id in 1...5000 {
      line.append(id)
      expected.append(id)
    }
    var taken: [Int] = []
    // Take most of them (compactions happen past 1,024 taken), append more meanwhile.
    for id in 5001...6000 {
      taken.append(line.removeFirst()!)
      taken.append(line.removeFirst()!)
      taken.append(line.removeFirst()!)
      line.append(id)
      expected.append(id)
    }
    while let id = line.removeFirst() { taken.append(id) }
    #expect(taken == expected)
    #expect(line.isEmpty && line.count == 0 && line.first == nil)
  }

  @Test func remove_andInsertInOrder_seeOnlyWaitingJobs() {
    var line = JobLine()
    for id in [3, 5, 7, 9] { line.append(id) }
    #expect(line.removeFirst() == 3)
    // 3 has been taken: it is no longer in the line.
    let removedTaken = line.remove(3)
    let removedWaiting = line.remove(7)
    #expect(!line.contains(3) && !removedTaken && removedWaiting)
    line.insertInOrder(6)
    line.insertInOrder(10)
    line.insertInOrder(1)
    #expect(line.count == 5 && line.first == 1)
    var rest: [Int] = []
    while let id = line.removeFirst() { rest.append(id) }
    #expect(rest == [1, 5, 6, 9, 10])
  }
}
