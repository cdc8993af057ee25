"""The game's entry in the registry (games/registry.py): its rules, its words, its bots."""

from games.itchy_feet import text
from games.itchy_feet.rules import ItchyFeet
from games.registry import GameEntry

ENTRY = GameEntry(rules=ItchyFeet(), text=text, bots="services.bots.policies.itchy_feet")
