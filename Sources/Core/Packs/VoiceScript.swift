/// What the box's voice says for each clip of a pack: the file name (without `.wav`) and the line.
/// The clip names are the ones `Game.packClip(for:)` maps wire clip ids to.
public enum VoiceScript {
    public struct Line: Sendable, Equatable {
        public var clip: String
        public var text: String

        public init(clip: String, text: String) {
            self.clip = clip
            self.text = text
        }
    }

    public static func lines(for pack: Pack) -> [Line] {
        var lines = [Line(clip: AudioClip.intro, text: introText(pack.language))]
        for destination in pack.destinations {
            for clue in destination.clues {
                lines.append(
                    Line(clip: "\(destination.id)-clue-\(clue.points)", text: clueText(clue, language: pack.language)))
            }
            lines.append(Line(clip: "\(destination.id)-reveal", text: destination.revealText))
            for (index, line) in (destination.banter ?? []).enumerated() {
                lines.append(Line(clip: "\(destination.id)-banter-\(index + 1)", text: line))
            }
            for (index, followup) in destination.followups.enumerated() {
                lines.append(
                    Line(
                        clip: "\(destination.id)-followup-\(index + 1)",
                        text: followupText(followup, language: pack.language)))
            }
        }
        return lines
    }

    /// Short enough to be heard whole in the contract's default intro of 3 s: the 10-point clue's
    /// line cuts off whatever is still being said (about 2.6 s in espeak-ng's voice, where the
    /// longer line this replaced took 4.1 s in English and 5.5 s in Swedish).
    public static func introText(_ language: Language) -> String {
        switch language {
        case .sv: "Tåget går! Vart ska vi?"
        case .en: "All aboard! Where are we heading?"
        }
    }

    static func clueText(_ clue: Clue, language: Language) -> String {
        switch language {
        case .sv: "På \(clue.points) poäng. \(clue.text)"
        case .en: "For \(clue.points) points. \(clue.text)"
        }
    }

    static func followupText(_ followup: Followup, language: Language) -> String {
        guard let options = followup.options, options.count >= 2 else { return followup.question }
        let or = language == .sv ? "eller" : "or"
        let list = options.dropLast().joined(separator: ", ") + " \(or) " + options[options.count - 1]
        return "\(followup.question) \(list)?"
    }
}
