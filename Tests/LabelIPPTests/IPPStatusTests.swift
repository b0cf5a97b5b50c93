import LabelCUPS
import LabelCore
import Testing

@testable import LabelIPP

/// The status codes labeld answers are the numbers libcups (and RFC 8011 §5.4.20, PWG
/// 5100.x) give their names: a review found three that were off by one or more
/// (request-entity-too-large sent as 0x0409, request-value-too-long).
@Suite struct IPPStatusTests {
  static let names: [LabelIPP.IPPStatus: String] = [
    .ok: "successful-ok",
    .okIgnoredOrSubstituted: "successful-ok-ignored-or-substituted-attributes",
    .badRequest: "client-error-bad-request",
    .forbidden: "client-error-forbidden",
    .notAuthenticated: "client-error-not-authenticated",
    .notAuthorized: "client-error-not-authorized",
    .notPossible: "client-error-not-possible",
    .notFound: "client-error-not-found",
    .requestEntityTooLarge: "client-error-request-entity-too-large",
    .documentFormatNotSupported: "client-error-document-format-not-supported",
    .attributesOrValuesNotSupported: "client-error-attributes-or-values-not-supported",
    .charsetNotSupported: "client-error-charset-not-supported",
    .compressionNotSupported: "client-error-compression-not-supported",
    .documentFormatError: "client-error-document-format-error",
    .internalError: "server-error-internal-error",
    .operationNotSupported: "server-error-operation-not-supported",
    .versionNotSupported: "server-error-version-not-supported",
    .temporaryError: "server-error-temporary-error",
    .notAcceptingJobs: "server-error-not-accepting-jobs",
    .busy: "server-error-busy",
    .jobCanceled: "server-error-job-canceled",
    .multipleDocumentJobsNotSupported: "server-error-multiple-document-jobs-not-supported",
    .tooManyJobs: "server-error-too-many-jobs",
  ]

  @Test func everyStatus_isTheNumberLibcupsNames() throws {
    // Opens libcups (its names are read from it).
    _ = try IPPCodec.encode(IPPMessage(major: 2, minor: 0, code: 0, requestID: 1, groups: []))
    for status in LabelIPP.IPPStatus.allCases {
      let name = try #require(Self.names[status], "\(status) has a name in the table")
      #expect(
        LabelCUPS.IPPStatus(rawValue: Int32(status.rawValue)).description == name,
        "\(status) is 0x\(String(status.rawValue, radix: 16))")
    }
  }
}
