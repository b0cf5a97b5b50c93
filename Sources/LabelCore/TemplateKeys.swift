/// The members a template and each element kind may have. JSON decoding ignores members it
/// does not know, so a misspelt `"humanReadible"` would silently fall back to the default;
/// this check names it instead.
public enum TemplateKeys {
  static let template: Set<String> = ["name", "media", "elements"]
  static let media: Set<String> = ["widthMM", "lengthMM", "grow", "minWidthMM", "marginMM"]
  static let elements: [String: Set<String>] = [
    "text": [
      "type", "x", "y", "width", "height", "text", "size", "weight", "align", "overflow",
      "rotation", "font", "color",
    ],
    "barcode": [
      "type", "x", "y", "symbology", "data", "height", "moduleWidth", "humanReadable", "rotation",
      "color",
    ],
    "box": ["type", "x", "y", "width", "height", "thickness", "fill", "color"],
    "line": ["type", "x1", "y1", "x2", "y2", "thickness", "color"],
    "image": ["type", "x", "y", "width", "height", "png", "rotation", "color"],
  ]

  /// The first member of `template` (a JSON object) that no template has, as a field error
  /// naming it (`elements[2].humanReadible`); nil when there is none.
  public static func unknownMember(in template: JSONValue) -> FieldError? {
    guard let top = template.objectValue else { return nil }
    if let extra = top.keys.sorted().first(where: { !Self.template.contains($0) }) {
      return FieldError(field: extra, reason: "is not a template member (\(list(Self.template)))")
    }
    if let media = top["media"]?.objectValue,
      let extra = media.keys.sorted().first(where: { !Self.media.contains($0) })
    {
      return FieldError(
        field: "media.\(extra)", reason: "is not a media member (\(list(Self.media)))")
    }
    for (i, element) in (top["elements"]?.arrayValue ?? []).enumerated() {
      guard let members = element.objectValue, let type = members["type"]?.stringValue,
        let known = elements[type]
      else { continue }  // decoding names a missing or unknown type
      if let extra = members.keys.sorted().first(where: { !known.contains($0) }) {
        return FieldError(
          field: "elements[\(i)].\(extra)",
          reason: "is not a \(type) element member (\(list(known)))")
      }
    }
    return nil
  }

  private static func list(_ keys: Set<String>) -> String {
    keys.sorted().joined(separator: ", ")
  }
}
