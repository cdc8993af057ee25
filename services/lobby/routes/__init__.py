"""The lobby's routes, one module per resource: `players.py` (registering, tokens),
`catalog.py` (the games, their content and schemas), `rooms.py` (rooms: open, list, join,
leave, bots, start, rematch); `common.py` what they share."""
