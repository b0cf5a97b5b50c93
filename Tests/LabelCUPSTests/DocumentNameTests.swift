import LabelCUPS
import Testing

/// The `document-name` labeld sends: never white space, which crashes cupsd
/// 2.4.2-3+deb12u10 (the end-to-end proof is `CUPSTests.labeldJobs_leaveTheSchedulerRunning`).
@Suite struct DocumentNameTests {
  @Test(arguments: [
    ("labeld 3f2a job 17 copy 1", "labeld_3f2a_job_17_copy_1"),
    (" ab ", "_ab_"),
    ("a\tb\nc\r", "a_b_c_"),
    ("a-b_c.d", "a-b_c.d"),
    ("Étiquette ✓", "_tiquette__"),
    ("", ""),
  ])
  func documentName_hasNoWhiteSpaceOrControlCharacters(title: String, expected: String) {
    let name = CUPSClient.documentName(title)
    #expect(name == expected)
    #expect(!name.unicodeScalars.contains { $0.properties.isWhitespace || $0.value < 0x20 })
  }
}
