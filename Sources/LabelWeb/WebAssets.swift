/// The status page's files, embedded at build time (Package.swift: `.embedInCode`) from
/// Sources/LabelWeb/Assets: plain HTML, CSS and JavaScript modules, nothing fetched from
/// anywhere else.
enum WebAssets {
  struct Asset {
    var type: String
    var bytes: [UInt8]
  }

  static func named(_ path: String) -> Asset? {
    switch path {
    case "/", "/index.html":
      Asset(type: "text/html; charset=utf-8", bytes: PackageResources.index_html)
    case "/style.css": Asset(type: "text/css; charset=utf-8", bytes: PackageResources.style_css)
    case "/v1/client.js":
      Asset(type: "text/javascript; charset=utf-8", bytes: PackageResources.client_js)
    case "/page.js":
      Asset(type: "text/javascript; charset=utf-8", bytes: PackageResources.page_js)
    case "/reasons.js":
      Asset(type: "text/javascript; charset=utf-8", bytes: PackageResources.reasons_js)
    default: nil
    }
  }
}
