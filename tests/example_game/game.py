"""Nim's entry in the registry (games/registry.py)."""

from games.registry import GameEntry
from tests.example_game import text
from tests.example_game.rules import Nim

ENTRY = GameEntry(rules=Nim(), text=text, bots="tests.example_game.bots")
