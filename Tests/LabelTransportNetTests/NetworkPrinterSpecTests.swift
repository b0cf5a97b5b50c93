import LabelCore
import Testing

@testable import LabelTransportNet

/// `--printer NAME=socket://HOST[:PORT],language=…` and labeld.conf's `printer = NAME URI
/// language=…`: both forms, their defaults, and a clear error for each wrong part.
@Suite struct NetworkPrinterSpecTests {
  @Test func bothForms_parseToTheSamePrinter() throws {
    let flag = try NetworkPrinterSpec.parse(
      "dock=socket://192.0.2.7,language=zpl,model=Zebra ZD420,width=101.6,length=152.4")
    let file = try NetworkPrinterSpec.parse(
      "dock socket://192.0.2.7:9100 language=zpl model=\"Zebra ZD420\" width=101.6 length=152.4")
    #expect(flag == file)
    #expect(flag.host == "192.0.2.7" && flag.port == 9100 && flag.language == .zpl)
    #expect(flag.model == "Zebra ZD420" && flag.widthMM == 101.6 && flag.lengthMM == 152.4)
    #expect(flag.uri == "socket://192.0.2.7:9100")
    let v6 = try NetworkPrinterSpec.parse("v6=socket://[fe80::1]:9101,language=tspl")
    #expect(v6.host == "fe80::1" && v6.port == 9101 && v6.uri == "socket://[fe80::1]:9101")
    let ql = try NetworkPrinterSpec.parse("ql=socket://ql.local,language=brother-ql,dpi=300")
    #expect(ql.host == "ql.local" && ql.dpi == 300)
  }

  @Test(arguments: [
    ("dock", "expected NAME=socket://"),
    ("dock=ipp://x,language=zpl", "is not a socket://HOST[:PORT] URI"),
    ("dock=socket://x", "language= is required"),
    ("dock=socket://x,language=pcl", "language must be"),
    ("dock=socket://x:99999,language=zpl", "port \"99999\" must be 1...65535"),
    ("dock=socket://,language=zpl", "no host"),
    ("do ck=socket://x,language=zpl", "is not a socket://"),
    ("dock=socket://x,language=zpl,model=ZD999", "no ZPL II model \"ZD999\""),
    ("dock=socket://x,language=brother-ql,dpi=203", "print at 300 dpi"),
    ("dock=socket://x,language=zpl,speed=3", "unknown option \"speed\""),
    ("dock=socket://x,language=zpl,length=50", "length= needs width="),
    ("d/k=socket://x,language=zpl", "must be letters"),
  ])
  func wrongParts_areNamed(text: String, message: String) {
    #expect(throws: SpecError.self, "\(text)") { try NetworkPrinterSpec.parse(text) }
    do {
      _ = try NetworkPrinterSpec.parse(text)
    } catch {
      #expect(error.description.contains(message), "\(text): \(error.description)")
    }
  }
}
