import LabelCommandLine
import LabelCore
import Testing

/// The one reader of `key=value` options: printer specs and labeld's flags word a wrong
/// value the same way.
@Suite struct KeyValueOptionTests {
  @Test func splitsAtTheFirstEquals_andRefusesAMissingValue() throws {
    let option = try KeyValueOption("model=PT=P700", owner: "pt")
    #expect(option == KeyValueOption(key: "model", value: "PT=P700", owner: "pt"))
    for part in ["speed", "speed=", "=3"] {
      #expect(throws: SpecError("pt: option \"\(part)\" needs a value")) {
        try KeyValueOption(part, owner: "pt")
      }
    }
    #expect(try KeyValueOption.list(["a=1", "b=2"], owner: nil).map(\.key) == ["a", "b"])
  }

  @Test func numbersAndIntegers_inTheirRanges() throws {
    let width = KeyValueOption(key: "width", value: "3.5", owner: "pt")
    #expect(try width.number(in: 3...300) == 3.5)
    #expect(throws: SpecError("pt: width=3.5 must be a number in 5.0...300.0")) {
      try width.number(in: 5...300)
    }
    #expect(throws: SpecError("pt: width=3.5 must be an integer in 1...10")) {
      try width.integer(in: 1...10)
    }
    #expect(try KeyValueOption(key: "keep", value: "10").integer(in: 1...10) == 10)
    for text in ["nan", "inf", "1e999", "", " 1", "0x10"] {
      #expect(throws: SpecError.self) {
        try KeyValueOption(key: "w", value: text, owner: "p").number(in: 0...10)
      }
    }
    // One of labeld's own flags: the flag names itself and the value is quoted.
    #expect(throws: SpecError("--max-jobs must be an integer in 1...5, got \"9\"")) {
      try KeyValueOption(key: "--max-jobs", value: "9").integer(in: 1...5)
    }
  }

  @Test func yesNo_choices_unknownKeys_andNames() throws {
    #expect(try KeyValueOption(key: "accepting", value: "no", owner: "z").yesNo() == false)
    #expect(throws: SpecError("z: accepting=maybe must be yes or no")) {
      try KeyValueOption(key: "accepting", value: "maybe", owner: "z").yesNo()
    }
    #expect(throws: SpecError("z: finish=fold must be tear, cut or peel")) {
      try KeyValueOption(key: "finish", value: "fold", owner: "z").choice(["tear", "cut", "peel"])
    }
    #expect(
      KeyValueOption(key: "colour", value: "red", owner: "z").unknown(known: ["dpi", "width"])
        == SpecError("z: unknown option \"colour\" (dpi, width)"))
    #expect(try KeyValueOption.printerName("pt-p700_2.a") == "pt-p700_2.a")
    for bad in ["", "a b", "é", "a/b"] {
      #expect(throws: SpecError.self) { try KeyValueOption.printerName(bad) }
    }
  }
}
