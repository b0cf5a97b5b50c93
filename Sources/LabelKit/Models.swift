// The protocol's model types (`Printer`, `Job`, `Product`, `Template`, `AlertEvent`,
// `Reason`, `JSONValue`…) come with `import LabelKit`: an app needs no second import.
//
// One name to know in SwiftUI code: LabelCore's `Alert` (the two-case payload of an
// `AlertEvent`) has the name of SwiftUI's; write `SwiftUI.Alert` for SwiftUI's, or show
// alerts through `AlertQueue` and `AppAlert`, which is what they are for.
@_exported import LabelCore
