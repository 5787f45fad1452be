"""The pages' JSON Patch (`applyPatch` in js/box.js), run in Chromium on cases the box's own
patches never reach: it must leave the projection it was given as it was, and refuse any path
that is not there, so that a patch that does not fit makes the page ask for the whole state."""

CASES = """
async () => {
  const { applyPatch } = await import("/static/js/box.js");
  const base = { version: 1, phase: "LOBBY", brake: null, players: [{ id: "a", points: 0 }, { id: "b", points: 2 }] };
  const frozen = JSON.stringify(base);
  const results = {};
  const after = applyPatch(base, [
    { op: "replace", path: "/version", value: 2 },
    { op: "replace", path: "/players/1/points", value: 4 },
    { op: "add", path: "/players/-", value: { id: "c", points: 0 } },
    { op: "replace", path: "/brake", value: { owner: "a" } },
    { op: "add", path: "/endedReason", value: "host_ended" },
  ]);
  results.applied = after;
  results.untouched = JSON.stringify(base) === frozen;
  results.shared = after.players[0] === base.players[0];
  results.removed = applyPatch(after, [
    { op: "remove", path: "/players/2" },
    { op: "remove", path: "/endedReason" },
  ]);
  const refused = (ops) => {
    try {
      applyPatch(base, ops);
      return false;
    } catch {
      return true;
    }
  };
  results.refused = [
    refused([{ op: "replace", path: "/players/2", value: {} }]),
    refused([{ op: "remove", path: "/players/2" }]),
    refused([{ op: "replace", path: "/players/-", value: {} }]),
    refused([{ op: "replace", path: "/nothing", value: 1 }]),
    refused([{ op: "remove", path: "/nothing" }]),
    refused([{ op: "replace", path: "/phase/x", value: 1 }]),
    refused([{ op: "move", path: "/phase", value: 1 }]),
  ];
  return results;
}
"""


def test_apply_patch(devices, box):
    page = devices.open()
    page.goto(box.url + "/")
    results = page.evaluate(CASES)
    assert results["applied"] == {
        "version": 2,
        "phase": "LOBBY",
        "brake": {"owner": "a"},
        "players": [{"id": "a", "points": 0}, {"id": "b", "points": 4}, {"id": "c", "points": 0}],
        "endedReason": "host_ended",
    }
    assert results["untouched"], "the projection given was changed"
    assert results["shared"], "an unchanged player was copied"
    assert results["removed"]["players"] == [{"id": "a", "points": 0}, {"id": "b", "points": 4}]
    assert "endedReason" not in results["removed"]
    assert all(results["refused"]), results["refused"]
    assert not devices.problems, devices.problems
