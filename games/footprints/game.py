"""The game's entry in the registry (games/registry.py): its rules, its words, its bots."""

from games.footprints import text
from games.footprints.rules import Footprints
from games.registry import GameEntry

ENTRY = GameEntry(rules=Footprints(), text=text, bots="services.bots.policies.footprints")
