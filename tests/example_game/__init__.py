"""Nim, the example game: what adding a game takes (docs/adding-a-game.md). It lives in the
test tree and is served only where `TURNPOST_GAMES=tests.example_game` says so."""
