/// What went wrong encoding a Brother QL job, decoding one, or reading a status reply.
public typealias BrotherQLError = BrotherRasterError<QLFamily>
