/// The layout of both executables' `--help` pages, man-page style, for an 80-column
/// terminal: usage lines, wrapped paragraphs, and two-column option rows.
public enum HelpText {
  public static let width = 80
  /// Where option descriptions start.
  public static let column = 26

  /// "Usage: ..." with one line per form, continuation lines aligned.
  public static func usage(_ forms: [String]) -> String {
    var lines: [String] = []
    for (i, form) in forms.enumerated() {
      lines.append((i == 0 ? "Usage: " : "       ") + form)
    }
    return lines.joined(separator: "\n")
  }

  /// "  -o, --output FILE" (short spellings first, as is usual).
  public static func label(_ option: OptionSpec) -> String {
    let names = option.names.sorted { $0.count < $1.count }.joined(separator: ", ")
    return "  " + names + (option.value.map { " " + $0 } ?? "")
  }

  /// One row per option.
  public static func options(_ specs: [OptionSpec]) -> String {
    specs.map { row(label($0), $0.help) }.joined()
  }

  /// A two-column row; a label too wide for the column puts the text on the next line.
  public static func row(_ label: String, _ text: String) -> String {
    let body = wrap(text, indent: column)
    if label.count + 2 <= column {
      let padding = String(repeating: " ", count: column - label.count)
      return label + padding + String(body.dropFirst(column)) + "\n"
    }
    return label + "\n" + body + "\n"
  }

  /// `text` wrapped at word boundaries to `width`, every line indented by `indent`.
  public static func wrap(_ text: String, indent: Int) -> String {
    let prefix = String(repeating: " ", count: indent)
    var lines: [String] = []
    var line = ""
    for word in text.split(separator: " ", omittingEmptySubsequences: true) {
      if !line.isEmpty && indent + line.count + 1 + word.count > width {
        lines.append(prefix + line)
        line = ""
      }
      line += (line.isEmpty ? "" : " ") + word
    }
    if !line.isEmpty || lines.isEmpty { lines.append(prefix + line) }
    return lines.joined(separator: "\n")
  }
}
