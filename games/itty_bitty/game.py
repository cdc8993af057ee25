"""The game's entry in the registry (games/registry.py): its rules, its words, its bots."""

from games.itty_bitty import text
from games.itty_bitty.rules import IttyBitty
from games.registry import GameEntry

ENTRY = GameEntry(rules=IttyBitty(), text=text, bots="services.bots.policies.itty_bitty")
