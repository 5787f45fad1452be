"""The benchmark's baseline: a minimal Python `websockets` server doing the box's fan-out job.

It speaks just enough of the Tripto wire contract for tripto-bench to drive it like the box:
create/join/TV over REST, `/ws?token=`, WELCOME and a STATE_SNAPSHOT per recipient after every
accepted command, host commands broadcast as events stamped with `serverTimeMs`, and the brake
arbitrated first-wins. There is no storage, no scoring and no secrecy: it is the floor the box is
measured against, not a second implementation of the game.
"""

import asyncio
import json
import secrets
import sys
import time

from websockets.asyncio.server import broadcast, serve

LEVELS = [10, 8, 6, 4, 2]


def now_ms():
    return int(round(time.time() * 1000))


class Room:
    def __init__(self, session_id):
        self.session_id = session_id
        self.phase = "LOBBY"
        self.level = 0
        self.brake_owner = None
        self.locked = set()
        self.followup_open = False
        self.answers = {}
        self.version = 1
        self.players = []  # [{playerId, name, points}]
        self.sockets = {}  # socket -> (role, playerId)

    def message(self, kind, payload, stamp):
        return json.dumps(
            {"type": kind, "sessionId": self.session_id, "serverTimeMs": stamp, "payload": payload},
            separators=(",", ":"),
        )

    def snapshot(self, role, player_id):
        view = {
            "version": self.version,
            "phase": self.phase,
            "players": [dict(p, isConnected=True) for p in self.players],
            "clue": {"levelPoints": LEVELS[self.level], "levelIndex": self.level + 1, "totalLevels": 5}
            if self.phase in ("CLUE_LEVEL", "PAUSED_FOR_BRAKE")
            else None,
            "brake": {"brakeOwnerPlayerId": self.brake_owner} if self.brake_owner else None,
            "lockedAnswers": [{"playerId": p} for p in sorted(self.locked)],
            "scoreboard": self.players,
        }
        if role == "PLAYER":
            view["you"] = {"playerId": player_id, "hasLockedAnswer": player_id in self.locked}
        return view

    def clue(self):
        return ("CLUE_PRESENT", {"levelPoints": LEVELS[self.level], "levelIndex": self.level + 1, "totalLevels": 5})

    def next_level(self):
        self.brake_owner = None
        if self.level + 1 < len(LEVELS):
            self.level += 1
            self.phase = "CLUE_LEVEL"
            return [self.clue()]
        self.phase = "REVEAL_DESTINATION"
        return [("DESTINATION_REVEAL", {"destinationName": "Stockholm"}), ("DESTINATION_RESULTS", {"results": []})]

    def apply(self, kind, payload, role, player_id):
        """The events of an accepted command, or an error code."""
        if role == "HOST":
            if kind == "HOST_START_GAME" and self.phase == "LOBBY":
                self.phase, self.level, self.locked = "CLUE_LEVEL", 0, set()
                return [self.clue()]
            if kind in ("HOST_NEXT_CLUE", "HOST_NEXT") and self.phase in ("CLUE_LEVEL", "PAUSED_FOR_BRAKE"):
                return self.next_level()
            if kind == "HOST_NEXT":
                if self.phase == "REVEAL_DESTINATION":
                    self.phase, self.followup_open, self.answers = "FOLLOWUP_QUESTION", True, {}
                    return [("FOLLOWUP_PRESENT", {"index": 1, "total": 1, "questionText": "?"})]
                if self.phase == "FOLLOWUP_QUESTION" and self.followup_open:
                    self.followup_open = False
                    return [("FOLLOWUP_LOCKED", {"index": 1}), ("FOLLOWUP_RESULTS", {"index": 1, "results": []})]
                if self.phase == "FOLLOWUP_QUESTION":
                    self.phase = "SCOREBOARD"
                    return [("SCOREBOARD_UPDATE", {"standings": self.players})]
                if self.phase == "SCOREBOARD":
                    self.phase = "FINAL_RESULTS"
                    return [("FINAL_RESULTS_PRESENT", {"standingsFull": self.players})]
                if self.phase == "FINAL_RESULTS":
                    self.phase = "ROUND_END"
                    return []
            if kind == "HOST_RESTART" and self.phase in ("FINAL_RESULTS", "ROUND_END"):
                self.phase = "LOBBY"
                return []
            return "INVALID_PHASE"
        if kind == "BRAKE_PULL":
            return "BRAKE_REJECTED"  # decided in brake() below, before any state changes
        if kind == "BRAKE_ANSWER_SUBMIT" and self.phase == "PAUSED_FOR_BRAKE" and self.brake_owner == player_id:
            self.locked.add(player_id)
            locked = ("BRAKE_ANSWER_LOCKED", {"playerId": player_id, "lockedAtLevelPoints": LEVELS[self.level]})
            return [locked] + self.next_level()
        if kind == "FOLLOWUP_ANSWER_SUBMIT" and self.phase == "FOLLOWUP_QUESTION" and self.followup_open:
            self.answers[player_id] = payload.get("answerText")
            return []
        return "INVALID_PHASE"

    def brake(self, player_id, level_points):
        """First accepted pull wins; the rest are told why not. A pull naming another clue than the
        one showing (it came in after that clue had gone) is refused, as the box does."""
        if self.phase not in ("CLUE_LEVEL", "PAUSED_FOR_BRAKE"):
            return "not_allowed"
        if level_points is not None and level_points != LEVELS[self.level]:
            return "not_allowed"
        if self.phase == "PAUSED_FOR_BRAKE":
            return "already_paused"
        if player_id in self.locked:
            return "already_answered"
        self.phase, self.brake_owner = "PAUSED_FOR_BRAKE", player_id
        name = next((p["name"] for p in self.players if p["playerId"] == player_id), "")
        return [("BRAKE_ACCEPTED", {"brakeOwnerPlayerId": player_id, "playerName": name,
                                    "levelPoints": LEVELS[self.level], "lockedPlayersCount": len(self.locked)})]

    def fan_out(self, events, stamp):
        self.version += 1
        everyone = list(self.sockets)
        for kind, payload in events:
            broadcast(everyone, self.message(kind, payload, stamp))
        for socket, (role, player_id) in self.sockets.items():
            broadcast([socket], self.message("STATE_SNAPSHOT", self.snapshot(role, player_id), stamp))


rooms = {}
tokens = {}  # token -> (room, role, playerId)


def seat(room, role, name=None):
    token = secrets.token_urlsafe(24)
    player_id = "p_" + secrets.token_urlsafe(9)
    tokens[token] = (room, role, player_id)
    if role == "PLAYER":
        room.players.append({"playerId": player_id, "name": name, "points": 0})
    return token, player_id


def rest(method, path, body):
    if method == "GET" and path == "/healthz":
        return 200, {"status": "ok", "sessions": len(rooms)}
    if method == "POST" and path == "/v1/sessions":
        room = Room(secrets.token_hex(8))
        rooms[room.session_id] = room
        token, _ = seat(room, "HOST")
        return 201, {"sessionId": room.session_id, "joinToken": room.session_id, "tvJoinToken": room.session_id,
                     "hostAuthToken": token, "role": "HOST"}
    parts = path.strip("/").split("/")
    if method == "POST" and len(parts) == 4 and parts[:2] == ["v1", "sessions"] and parts[2] in rooms:
        room = rooms[parts[2]]
        if parts[3] == "tv":
            token, _ = seat(room, "TV")
            return 201, {"sessionId": room.session_id, "tvAuthToken": token}
        if parts[3] == "join":
            token, player_id = seat(room, "PLAYER", body.get("name"))
            return 201, {"sessionId": room.session_id, "playerId": player_id, "playerAuthToken": token}
    return 404, {"error": "NOT_FOUND", "message": path}


async def http_client(reader, writer):
    """A keep-alive HTTP/1.1 loop for the few REST calls (websockets itself only serves GET upgrades)."""
    try:
        while True:
            head = await reader.readuntil(b"\r\n\r\n")
            lines = head.decode("latin-1").split("\r\n")
            method, target, _ = lines[0].split(" ", 2)
            length = 0
            for line in lines[1:]:
                if line.lower().startswith("content-length:"):
                    length = int(line.split(":", 1)[1])
            body = json.loads(await reader.readexactly(length) or b"{}") if length else {}
            status, answer = rest(method, target.split("?")[0], body)
            data = json.dumps(answer).encode()
            writer.write(b"HTTP/1.1 %d X\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n%s"
                         % (status, len(data), data))
            await writer.drain()
    except (asyncio.IncompleteReadError, ConnectionError, ValueError):
        pass
    finally:
        writer.close()


async def socket_client(socket):
    query = socket.request.path.partition("?")[2]
    token = dict(p.split("=", 1) for p in query.split("&") if "=" in p).get("token")
    if token not in tokens:
        await socket.close(4001, "UNAUTHORIZED")
        return
    room, role, player_id = tokens[token]
    room.sockets[socket] = (role, player_id)
    stamp = now_ms()
    await socket.send(room.message("WELCOME", {"role": role, "playerId": player_id}, stamp))
    await socket.send(room.message("STATE_SNAPSHOT", room.snapshot(role, player_id), stamp))
    try:
        async for text in socket:
            stamp = now_ms()
            try:
                message = json.loads(text)
                kind, payload = message["type"], message.get("payload") or {}
            except (ValueError, KeyError, TypeError):
                await socket.send(room.message("ERROR", {"code": "BAD_MESSAGE"}, stamp))
                continue
            if kind == "BRAKE_PULL" and role == "PLAYER":
                outcome = room.brake(player_id, payload.get("levelPoints"))
                if isinstance(outcome, str):
                    await socket.send(room.message("BRAKE_REJECTED", {"reason": outcome}, stamp))
                else:
                    room.fan_out(outcome, stamp)
                continue
            outcome = room.apply(kind, payload, role, player_id)
            if isinstance(outcome, str):
                await socket.send(room.message("ERROR", {"code": outcome}, stamp))
            else:
                room.fan_out(outcome, stamp)
    finally:
        room.sockets.pop(socket, None)


async def main():
    async with serve(socket_client, "127.0.0.1", 0, max_size=16 * 1024, ping_interval=None) as server:
        rest_server = await asyncio.start_server(http_client, "127.0.0.1", 0)
        socket_port = server.sockets[0].getsockname()[1]
        rest_port = rest_server.sockets[0].getsockname()[1]
        print(f"listening on port {socket_port} rest {rest_port}", flush=True)
        await asyncio.Future()


if __name__ == "__main__":
    try:
        asyncio.run(main())
    except KeyboardInterrupt:
        sys.exit(0)
