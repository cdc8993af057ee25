"""Generic checks every engine passes (DESIGN.md): run them over many seeded random games.

`playouts.py`: Playouts: seeded random games played to their end, recorded move by move, with their
`checks.py`: The checks of one game's rules over a playout: replay, listing, conservation, secrecy,
`guesses.py`: A seat's guess (`sample`) is a state it cannot tell from the real one, made from nothing
`words.py`: Words (games/text.py): every type has a text, and a text says no more than its copy.
`interference.py`: Non-interference: what a seat cannot see changes nothing it is shown.
"""

from games.testing.checks import (
    check_conservation,
    check_listing,
    check_playout,
    check_questions,
    check_secrecy,
    check_shapes,
)
from games.testing.guesses import check_sample
from games.testing.interference import Diverged, Seen, check_non_interference
from games.testing.playouts import (
    Chooser,
    Playout,
    Recorded,
    Step,
    card_ids_in,
    playouts,
    random_options,
    random_playout,
    recorded_game,
    tag,
)
from games.testing.words import check_every_type_has_words, check_words, example_of, union_members

__all__ = [
    "Chooser",
    "Diverged",
    "Playout",
    "Recorded",
    "Seen",
    "Step",
    "card_ids_in",
    "check_conservation",
    "check_every_type_has_words",
    "check_listing",
    "check_non_interference",
    "check_playout",
    "check_questions",
    "check_sample",
    "check_secrecy",
    "check_shapes",
    "check_words",
    "example_of",
    "playouts",
    "random_options",
    "random_playout",
    "recorded_game",
    "tag",
    "union_members",
]
