/// What went wrong encoding a P-touch job, decoding one, or reading a status reply.
public typealias BrotherPTError = BrotherRasterError<PTFamily>
