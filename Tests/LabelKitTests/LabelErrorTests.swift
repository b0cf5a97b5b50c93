import LabelCore
import LabelKit
import Testing

/// The kit's one table from protocol codes to `LabelError` cases: every code the protocol
/// has maps to its own case and back; 1008's data becomes the case's fields.
@Suite struct LabelErrorTests {
  @Test func everyProtocolCode_hasItsOwnCase() {
    // 1004 carries its saveError alert, without which it is kept whole (tested with a real
    // one in the integration tests).
    for code in RPCErrorCode.allCases where code != .saveFailed {
      let error = LabelError(RPCError(code, "m", data: ["bound": "total"]))
      if case .rpc = error {
        Issue.record("\(code) falls through to .rpc")
      }
      #expect(error.code == code.rawValue, "\(code)")
    }
  }

  @Test func tooManyJobs_carriesTheBound() {
    let error = LabelError(
      .tooManyJobs(printer: "sim:zebra", bound: .printer, limit: 2, waiting: 2))
    #expect(error == .tooManyJobs(printer: "sim:zebra", bound: .printer, limit: 2, waiting: 2))
    #expect(error.description.contains("too many jobs waiting: 2 for sim:zebra"))
    let bytes = LabelError(.tooManyJobs(printer: nil, bound: .bytes, limit: 100, waiting: 90))
    #expect(bytes == .tooManyJobs(printer: nil, bound: .bytes, limit: 100, waiting: 90))
    // A 1008 whose data names no bound this kit knows is kept whole, not guessed at.
    let odd = RPCError(code: 1008, message: "m", data: ["bound": "moon"])
    #expect(LabelError(odd) == .rpc(odd))
  }
}
