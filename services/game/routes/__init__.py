"""The game service's routes, one module per resource: `games.py` (a game: its view, legal
actions, moves, resign, claim; the move cycle's fast paths), `feeds.py` (its events),
`boards.py` (its board and map), `me.py` (the caller's games); `common.py` what they share.
The live streams are `services/game/sse.py`, the webhooks `services/game/webhooks.py`."""
