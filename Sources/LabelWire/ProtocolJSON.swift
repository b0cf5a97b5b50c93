import LabelCore

// The protocol's objects that answers and notifications carry by the hundred, written
// straight into the output with their keys in sorted order. Each writes exactly what its
// `Encodable` conformance encodes (JSONWriterTests compare the two for random values);
// a field added to one of these types is added here too, or the golden test fails.

extension JSONValue: JSONWritable {
  public func write(to out: inout JSONOutput) {
    switch self {
    case .null: out.null()
    case .bool(let b): out.bool(b)
    case .int(let i): out.int(i)
    // As `encode(to:)`: a number no double holds is null.
    case .double(let d): d.isFinite ? out.double(d) : out.null()
    case .string(let s): out.string(s)
    case .array(let items): items.write(to: &out)
    case .object(let members): members.write(to: &out)
    }
  }
}

extension JobOwner: JSONWritable {
  public func write(to out: inout JSONOutput) {
    out.raw(#"{"uid":"#)
    out.int(uid)
    out.byte(0x7D)
  }
}

extension JobError: JSONWritable {
  public func write(to out: inout JSONOutput) {
    out.byte(0x7B)
    if let document {
      out.raw(#""document":"#)
      out.string(document.rawValue)
      out.byte(0x2C)
    }
    out.raw(#""message":"#)
    out.string(message)
    out.raw(#","reason":"#)
    out.string(reason.rawValue)
    out.byte(0x7D)
  }
}

extension JobOrigin: JSONWritable {
  public func write(to out: inout JSONOutput) {
    out.raw(#"{"kind":"#)
    out.string(kind.rawValue)
    if let name {
      out.raw(#","name":"#)
      out.string(name)
    }
    if let user {
      out.raw(#","user":"#)
      out.string(user)
    }
    out.byte(0x7D)
  }
}

extension Job: JSONWritable {
  public func write(to out: inout JSONOutput) {
    out.raw(#"{"copies":"#)
    out.int(copies)
    out.raw(#","createdAt":"#)
    out.date(createdAt)
    if let error {
      out.raw(#","error":"#)
      error.write(to: &out)
    }
    out.raw(#","id":"#)
    out.int(id)
    if let origin {
      out.raw(#","origin":"#)
      origin.write(to: &out)
    }
    out.raw(#","owner":"#)
    owner.write(to: &out)
    out.raw(#","printed":"#)
    out.int(printed)
    out.raw(#","printer":"#)
    out.string(printer)
    out.raw(#","state":"#)
    out.string(state.rawValue)
    out.raw(#","updatedAt":"#)
    out.date(updatedAt)
    out.byte(0x7D)
  }
}

extension Product: JSONWritable {
  public func write(to out: inout JSONOutput) {
    out.byte(0x7B)
    if let barcode {
      out.raw(#""barcode":"#)
      out.string(barcode)
      out.byte(0x2C)
    }
    if let currency {
      out.raw(#""currency":"#)
      out.string(currency)
      out.byte(0x2C)
    }
    if let fields {
      out.raw(#""fields":"#)
      fields.write(to: &out)
      out.byte(0x2C)
    }
    out.raw(#""name":"#)
    out.string(name)
    if let price {
      out.raw(#","price":"#)
      out.decimal(price)
    }
    out.raw(#","sku":"#)
    out.string(sku)
    out.raw(#","updatedAt":"#)
    out.date(updatedAt)
    out.raw(#","version":"#)
    out.int(version)
    out.byte(0x7D)
  }
}

extension Media: JSONWritable {
  public func write(to out: inout JSONOutput) {
    out.byte(0x7B)
    if let kind {
      out.raw(#""kind":"#)
      out.string(kind)
      out.byte(0x2C)
    }
    out.raw(#""lengthMM":"#)
    out.double(lengthMM)
    if let redBlack {
      out.raw(#","redBlack":"#)
      out.bool(redBlack)
    }
    out.raw(#","widthMM":"#)
    out.double(widthMM)
    out.byte(0x7D)
  }
}

extension Printer: JSONWritable {
  public func write(to out: inout JSONOutput) {
    out.raw(#"{"accepting":"#)
    out.bool(accepting)
    out.raw(#","dpi":"#)
    out.int(dpi)
    out.raw(#","id":"#)
    out.string(id)
    if let labelsRemaining {
      out.raw(#","labelsRemaining":"#)
      out.int(labelsRemaining)
    }
    out.raw(#","language":"#)
    out.string(languageName)
    if let media {
      out.raw(#","media":"#)
      media.write(to: &out)
    }
    out.raw(#","model":"#)
    out.string(model)
    out.raw(#","name":"#)
    out.string(name)
    out.raw(#","reasons":["#)
    for (i, reason) in reasons.enumerated() {
      if i > 0 { out.byte(0x2C) }
      out.string(reason.rawValue)
    }
    out.raw(#"],"state":"#)
    out.string(state.rawValue)
    out.raw(#","transport":"#)
    out.string(transport.rawValue)
    if let uri {
      out.raw(#","uri":"#)
      out.string(uri)
    }
    out.byte(0x7D)
  }
}

extension AlertEvent: JSONWritable {
  public func write(to out: inout JSONOutput) {
    out.byte(0x7B)
    switch alert {
    case .printerError(let d):
      out.raw(#""id":"#)
      out.string(alert.id)
      if let job = d.job {
        out.raw(#","job":"#)
        out.int(job)
      }
      out.raw(#","kind":"printerError","message":"#)
      out.string(d.message)
      out.raw(#","printer":"#)
      out.string(d.printer)
      out.raw(#","reason":"#)
      out.string(d.reason.rawValue)
      writeTail(to: &out, storedVersion: nil)
    case .saveError(let d):
      out.raw(#""entity":"#)
      out.string(d.entity.rawValue)
      if let expected = d.expectedVersion {
        out.raw(#","expectedVersion":"#)
        out.int(expected)
      }
      out.raw(#","id":"#)
      out.string(alert.id)
      out.raw(#","key":"#)
      out.string(d.key)
      out.raw(#","kind":"saveError","message":"#)
      out.string(d.message)
      out.raw(#","reason":"#)
      out.string(d.reason.rawValue)
      writeTail(to: &out, storedVersion: d.storedVersion)
    }
  }

  /// `seq`, `state`, `storedVersion`, `time` and the closing brace: what sorts after
  /// `reason` for both kinds.
  private func writeTail(to out: inout JSONOutput, storedVersion: Int?) {
    out.raw(#","seq":"#)
    out.int(seq)
    out.raw(#","state":"#)
    out.string(state.rawValue)
    if let storedVersion {
      out.raw(#","storedVersion":"#)
      out.int(storedVersion)
    }
    out.raw(#","time":"#)
    out.date(time)
    out.byte(0x7D)
  }
}

extension RPCError: JSONWritable {
  public func write(to out: inout JSONOutput) {
    out.raw(#"{"code":"#)
    out.int(code)
    if let data {
      out.raw(#","data":"#)
      data.write(to: &out)
    }
    out.raw(#","message":"#)
    out.string(message)
    out.byte(0x7D)
  }
}

// The results of the methods that list or carry those objects.

extension PrintersResult: JSONWritable {
  public func write(to out: inout JSONOutput) {
    out.raw(#"{"printers":"#)
    printers.write(to: &out)
    out.byte(0x7D)
  }
}

extension PrinterResult: JSONWritable {
  public func write(to out: inout JSONOutput) {
    out.raw(#"{"printer":"#)
    printer.write(to: &out)
    out.byte(0x7D)
  }
}

extension JobResult: JSONWritable {
  public func write(to out: inout JSONOutput) {
    out.raw(#"{"job":"#)
    job.write(to: &out)
    out.byte(0x7D)
  }
}

extension JobsResult: JSONWritable {
  public func write(to out: inout JSONOutput) {
    out.raw(#"{"jobs":"#)
    jobs.write(to: &out)
    if let next {
      out.raw(#","next":"#)
      out.int(next)
    }
    out.byte(0x7D)
  }
}

extension ProductResult: JSONWritable {
  public func write(to out: inout JSONOutput) {
    out.raw(#"{"product":"#)
    product.write(to: &out)
    out.byte(0x7D)
  }
}

extension ProductsResult: JSONWritable {
  public func write(to out: inout JSONOutput) {
    out.byte(0x7B)
    if let next {
      out.raw(#""next":"#)
      out.string(next)
      out.byte(0x2C)
    }
    out.raw(#""products":"#)
    products.write(to: &out)
    out.byte(0x7D)
  }
}

extension ProductSaveResult: JSONWritable {
  public func write(to out: inout JSONOutput) {
    out.byte(0x7B)
    if let job {
      out.raw(#""job":"#)
      job.write(to: &out)
      out.byte(0x2C)
    }
    out.raw(#""product":"#)
    product.write(to: &out)
    out.byte(0x7D)
  }
}

extension AlertsResult: JSONWritable {
  public func write(to out: inout JSONOutput) {
    out.raw(#"{"alerts":"#)
    alerts.write(to: &out)
    out.byte(0x7D)
  }
}

extension SubscribeResult: JSONWritable {
  public func write(to out: inout JSONOutput) {
    out.byte(0x7B)
    if let gap {
      out.raw(#""gap":"#)
      out.bool(gap)
      out.byte(0x2C)
    }
    out.raw(#""seq":"#)
    out.int(seq)
    out.byte(0x7D)
  }
}

extension HelloResult: JSONWritable {
  public func write(to out: inout JSONOutput) {
    out.raw(#"{"protocol":"#)
    out.int(self.protocol)
    out.raw(#","server":"#)
    out.string(server)
    out.raw(#","version":"#)
    out.string(version)
    out.byte(0x7D)
  }
}

extension OverflowParams: JSONWritable {
  public func write(to out: inout JSONOutput) {
    out.raw(#"{"seq":"#)
    out.int(seq)
    out.byte(0x7D)
  }
}
