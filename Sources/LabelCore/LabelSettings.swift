/// Per-printer settings that rendered labels carry: what a driver is built with.
public struct LabelSettings: Sendable, Equatable {
  public var darkness: Int?
  /// "tear", "cut" or "peel".
  public var finish: String?
  /// The driver model (a `DriverTable` row's name) labels are encoded for: "QL-820NWB",
  /// "Zebra ZD420". Nil: the language's default model.
  public var model: String?

  public init(darkness: Int? = nil, finish: String? = nil, model: String? = nil) {
    self.darkness = darkness
    self.finish = finish
    self.model = model
  }
}
