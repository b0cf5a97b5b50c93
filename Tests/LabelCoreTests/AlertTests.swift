import Foundation
import LabelCore
import LabelWire
import Testing

struct AlertTests {
  static let printer = AlertEvent(
    seq: 41, state: .active, time: Date(timeIntervalSince1970: 1_800_000_000),
    alert: .printerError(
      PrinterErrorDetails(
        printer: "usb:04f9:209d:A1B2", reason: .coverOpen, job: 17, message: "QL-820NWB: cover open"
      )))
  static let save = AlertEvent(
    seq: 42, state: .cleared, time: Date(timeIntervalSince1970: 1_800_000_001),
    alert: .saveError(
      SaveErrorDetails(
        entity: .product, key: "4006381333931", reason: .storageFull, message: "disk full")))

  @Test func ids_nameTheSubject() {
    #expect(Self.printer.id == "printerError:usb:04f9:209d:A1B2")
    #expect(Self.save.id == "saveError:product:4006381333931")
  }

  @Test func wireShape_isFlatWithKindSpecificFields() throws {
    let p = try LabelJSON.value(Self.printer)
    #expect(
      p == [
        "seq": 41, "id": "printerError:usb:04f9:209d:A1B2", "kind": "printerError",
        "state": "active",
        "time": "2027-01-15T08:00:00Z", "message": "QL-820NWB: cover open",
        "printer": "usb:04f9:209d:A1B2",
        "reason": "coverOpen", "job": 17,
      ])
    let s = try LabelJSON.value(Self.save)
    #expect(s["entity"] == "product")
    #expect(s["key"] == "4006381333931")
    #expect(s["reason"] == "storageFull")
    #expect(s["printer"] == nil)
  }

  @Test func bothKinds_roundTrip() throws {
    for event in [Self.printer, Self.save] {
      let again = try LabelJSON.decoder().decode(
        AlertEvent.self, from: LabelJSON.encoder().encode(event))
      #expect(again == event)
    }
  }

  @Test func unknownReason_decodesAsUnknown() throws {
    let r = try LabelJSON.decoder().decode(
      [Reason].self, from: Data(#"["coverOpen","laserOverheat"]"#.utf8))
    #expect(r == [.coverOpen, .unknown])
  }

  @Test func onlyJobRejectedAndJobAborted_abortJobs() {
    #expect(Reason.allCases.filter(\.abortsJob) == [.jobRejected, .jobAborted])
  }
}

struct JSONValueTests {
  @Test func roundTrip_keepsIntegersAndDoublesApart() throws {
    let v: JSONValue = ["a": 1, "b": 1.5, "c": [true, nil, "s"], "d": [:]]
    let again = try LabelJSON.decoder().decode(JSONValue.self, from: LabelJSON.encoder().encode(v))
    #expect(again == v)
    #expect(JSONValue.double(3).intValue == 3)
    #expect(JSONValue.double(3.5).intValue == nil)
  }

  @Test func rpcErrors_carryTheirDataShapes() {
    #expect(RPCError.printerNotFound("sim:x").data == ["printer": "sim:x"])
    #expect(RPCError.jobNotFound(3).data == ["job": 3])
    #expect(RPCError.notPermitted(uid: 1000, "no").data == ["uid": 1000])
    #expect(
      RPCError.notFound(entity: "product", key: "k").data == ["entity": "product", "key": "k"])
    #expect(
      RPCError.invalidParams(field: "copies", reason: "r").data == [
        "field": "copies", "reason": "r",
      ])
    #expect(RPCError.methodNotFound("m").data == ["method": "m"])
    #expect(RPCErrorCode.allCases.count == 13)
  }
}
