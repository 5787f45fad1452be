/// A session's game settings with the contract's defaults and ranges.
public struct Settings: Codable, Sendable, Equatable {
    public var packId: String
    public var language: Language
    public var destinationsCount: Int = 3
    public var followupsPerDestination: Int = 2
    public var followupSeconds: Int = 20
    public var brakeAnswerSeconds: Int = 15
    public var introMs: Int = 3_000
    public var finaleMs: Int = 11_000
    public var autoAdvance: Bool = false

    public init(packId: String, language: Language) {
        self.packId = packId
        self.language = language
    }

    public static let destinationsRange = 1...10
    public static let followupsRange = 0...3
    public static let followupSecondsRange = 5...120
    public static let brakeAnswerSecondsRange = 5...60
    public static let introMsRange = 0...10_000
    public static let finaleMsRange = 0...20_000
}

/// The settings a client sends: every field optional, missing ones keep their current value.
public struct SettingsRequest: Codable, Sendable, Equatable {
    public var packId: String?
    public var language: Language?
    public var destinationsCount: Int?
    public var followupsPerDestination: Int?
    public var followupSeconds: Int?
    public var brakeAnswerSeconds: Int?
    public var introMs: Int?
    public var finaleMs: Int?
    public var autoAdvance: Bool?

    public init(
        packId: String? = nil, language: Language? = nil, destinationsCount: Int? = nil,
        followupsPerDestination: Int? = nil, followupSeconds: Int? = nil, brakeAnswerSeconds: Int? = nil,
        introMs: Int? = nil, finaleMs: Int? = nil, autoAdvance: Bool? = nil
    ) {
        self.packId = packId
        self.language = language
        self.destinationsCount = destinationsCount
        self.followupsPerDestination = followupsPerDestination
        self.followupSeconds = followupSeconds
        self.brakeAnswerSeconds = brakeAnswerSeconds
        self.introMs = introMs
        self.finaleMs = finaleMs
        self.autoAdvance = autoAdvance
    }

    /// `base` with this request's fields applied; an out-of-range value names the field.
    public func applied(to base: Settings) throws(SettingsError) -> Settings {
        var settings = base
        func take(
            _ value: Int?, _ range: ClosedRange<Int>, _ field: String, into target: inout Int
        ) throws(SettingsError) {
            guard let value else { return }
            guard range.contains(value) else {
                throw SettingsError(field: field, reason: "must be between \(range.lowerBound) and \(range.upperBound)")
            }
            target = value
        }
        if let packId { settings.packId = packId }
        if let language { settings.language = language }
        try take(destinationsCount, Settings.destinationsRange, "destinationsCount", into: &settings.destinationsCount)
        try take(
            followupsPerDestination, Settings.followupsRange, "followupsPerDestination",
            into: &settings.followupsPerDestination)
        try take(followupSeconds, Settings.followupSecondsRange, "followupSeconds", into: &settings.followupSeconds)
        try take(
            brakeAnswerSeconds, Settings.brakeAnswerSecondsRange, "brakeAnswerSeconds",
            into: &settings.brakeAnswerSeconds)
        try take(introMs, Settings.introMsRange, "introMs", into: &settings.introMs)
        try take(finaleMs, Settings.finaleMsRange, "finaleMs", into: &settings.finaleMs)
        if let autoAdvance { settings.autoAdvance = autoAdvance }
        return settings
    }
}

public struct SettingsError: Error, Sendable, Equatable, CustomStringConvertible {
    public let field: String
    public let reason: String
    public var description: String { "\(field) \(reason)" }
}
