import Core

/// What every connection of a room is sent after a change: a STATE_SNAPSHOT, or a STATE_PATCH
/// from the state it was sent last, with as few encodings as there are roles.
///
/// Each round of everyone's state is a generation; the fan-out keeps the last one's projections
/// per role (the players' without `you`). A connection that takes patches and was sent the last
/// generation gets the next one as a patch from it (its patch base); any other gets a whole
/// snapshot. Host and TV each have one projection; players share theirs but for `you`
/// (`PlayerSnapshot`), and so their patches (`PatchText`).
struct SnapshotFanOut {
    private var generation = 0
    private var lastProjections: [Role: Projection] = [:]
    /// For connections that take patches: the generation each was last sent, and its `you` then.
    private var patchBases: [String: (generation: Int, you: Projection.You?)] = [:]

    /// The connection's base is no longer known: it went, or asked for a whole snapshot.
    mutating func forget(_ connectionId: String) { patchBases[connectionId] = nil }

    /// Nobody's base is known any more (messages already counted as sent were dropped).
    mutating func forgetAll() { patchBases.removeAll() }

    /// The next generation's text for each recipient, in their order. `projection` gives a role's
    /// projection (for players without `you`, with `participant` nil); `you` a player's own part.
    mutating func texts(
        for recipients: some Collection<some SnapshotRecipient>, sessionId: String, now: Int64,
        projection: (_ role: Role, _ participant: ParticipantID?) -> Projection,
        you: (ParticipantID) -> Projection.You?
    ) -> [WireText] {
        generation += 1
        var projections: [Role: Projection] = [:]
        var wholeTexts: [Role: WireText] = [:]
        var patchTexts: [Role: PatchText] = [:]
        var players: PlayerSnapshot?
        var texts: [WireText] = []
        texts.reserveCapacity(recipients.count)
        for recipient in recipients {
            let role = recipient.role
            let current: Projection
            if let made = projections[role] {
                current = made
            } else {
                current = projection(role, role == .player ? nil : recipient.participantId)
                projections[role] = current
            }
            let own = role == .player ? you(recipient.participantId) : nil
            let text: WireText
            if recipient.takesPatches, let base = patchBases[recipient.id], base.generation == generation - 1,
                let old = lastProjections[role]
            {
                let patch =
                    patchTexts[role]
                    ?? {
                        let made = WireEncoder.patch(
                            version: current.version, baseVersion: old.version,
                            operations: ProjectionPatch(from: old, to: current).operations, sessionId: sessionId,
                            now: now)
                        patchTexts[role] = made
                        return made
                    }()
                text = patch.text(adding: ProjectionPatch.you(from: base.you, to: own))
            } else if role == .player {
                let snapshot = players ?? WireEncoder.playerSnapshot(current, sessionId: sessionId, now: now)
                players = snapshot
                text = snapshot.text(for: own)
            } else {
                let made =
                    wholeTexts[role]
                    ?? .whole(
                        WireEncoder.text(
                            ServerMessage(sessionId: sessionId, serverTimeMs: now, event: .stateSnapshot(current))))
                wholeTexts[role] = made
                text = made
            }
            if recipient.takesPatches { patchBases[recipient.id] = (generation, own) }
            texts.append(text)
        }
        lastProjections = projections
        return texts
    }
}

/// A connection as the fan-out sees it.
protocol SnapshotRecipient {
    var id: String { get }
    var role: Role { get }
    var participantId: ParticipantID { get }
    /// It asked for STATE_PATCH instead of a STATE_SNAPSHOT after each change.
    var takesPatches: Bool { get }
}

extension Connection: SnapshotRecipient {}
