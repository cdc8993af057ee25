"""End of game: the 1-coin penalty per uncompleted collector, ranking and the tie-break."""

from __future__ import annotations

from typing import Literal

from games.itty_bitty.model import GameEnded, State


def final_result(state: State, reason: Literal["eight_collectors", "stalemate"]) -> GameEnded:
    penalties = tuple(len(h.collectors) for h in state.hands)
    scores = tuple(h.coins - p for h, p in zip(state.hands, penalties, strict=True))
    in_hand = tuple(len(h.ittybits) for h in state.hands)
    # Highest coins wins; a tie goes to the most ittybits still in hand (rulebook). A tie on
    # both is shared (our ruling: the rulebook stops there).
    keys = [(scores[s], in_hand[s]) for s in range(state.seats)]
    ranks = tuple(1 + sum(1 for other in keys if other > key) for key in keys)
    winners = tuple(s for s in range(state.seats) if ranks[s] == 1)
    best = max(scores)
    tied_on_coins = [s for s in range(state.seats) if scores[s] == best]
    tie_break = None
    if len(tied_on_coins) > 1:
        tie_break = "shared" if len(winners) > 1 else "most_ittybits_in_hand"
    return GameEnded(
        penalties=penalties,
        scores=scores,
        ittybits_in_hand=in_hand,
        ranks=ranks,
        winners=winners,
        tie_break=tie_break,
        reason=reason,
    )
