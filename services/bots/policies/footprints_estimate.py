"""The search's estimate of a Footprints game cut short: each seat's chance to win from the
final score a linear model projects for it, so that the `mcts` and `expert` levels' playouts
stop after `SEARCH_BUDGET.rollout` moves as the other two games' do (a playout to the end
is 100-200 moves, 50-90 ms).

The projection is the seat's points if the game ended now (games/footprints/turn.py's
`game_ended`: every category the rulebook scores) and what lies ahead of it: how far its
figure is from the nearer cairn, how many clan cards it has left (turns to come), whether it
is on the cairn track already, and how far the nearest other figure is (how soon the game
may end). The weights are least squares over greedy self-play at 2-4 seats, fitted by
`python -m tests.bench.footprints_estimate` (which prints them with how often the projection
names the winner). The chances are a logistic of each seat's projected lead over the best
other (`win_chances`), whose scale shrinks as the clan cards run out: about 12 points with
six cards or more left each, 4 points near the end (the scale that fitted best by moves
left, on held-out games).

It reads the state it is given, which in a search is a guess from the seat's information set
(services/bots/search.py): nothing hidden of the real game.
"""

from __future__ import annotations

from games.footprints.content import load
from games.footprints.scoring import SOLO_WIN
from games.footprints.state import State
from games.footprints.table import Table
from games.footprints.turn import game_ended
from services.bots.policies.footprints_seat import _map
from services.bots.search import outcome_rewards, win_chances

NOWHERE = 20  # the distance of a figure not on the map yet (about the map's length)
# final points ~ now, distance to the cairn, clan cards left, on the cairn track, the
# nearest other figure's distance, 1 (tests/bench/footprints_estimate.py, 180 games)
WEIGHTS = (0.633, -0.448, 3.637, -4.677, 0.489, 26.651)
SCALE_END = 3.0  # the logistic's scale with no clan card left...
SCALE_PER_CARD = 1.4  # ... growing with the seats' mean clan cards left...
SCALE_MOST = 12.0  # ... up to this


def features(state: State) -> list[list[float]]:
    """Each seat's (points now, distance to the cairn, clan cards left, on the track,
    nearest other figure's distance, 1)."""
    # the rulebook's points by category (in solo, before the solo table's 8 a card unused)
    now = [sum(part.values()) for part in game_ended(Table(load(), state, None)).parts]
    _, distance, _ = _map(state.tiles, state.turned, state.houses, state.options.snake)
    far = [
        0
        if p.cairn_points is not None
        else (distance.get(p.position, NOWHERE) if p.position is not None else NOWHERE)
        for p in state.players
    ]
    out = []
    for seat, p in enumerate(state.players):
        cards = len(p.panel) + len(p.deck_top) + len(p.deck_bottom)
        others = min((d for s, d in enumerate(far) if s != seat), default=NOWHERE)
        on_track = 1.0 if p.cairn_points is not None else 0.0
        out.append([float(now[seat]), float(far[seat]), float(cards), on_track, float(others), 1.0])
    return out


def projected(rows: list[list[float]], weights: tuple[float, ...] = WEIGHTS) -> list[float]:
    return [sum(w * x for w, x in zip(weights, row, strict=True)) for row in rows]


def scale(rows: list[list[float]]) -> float:
    cards = sum(row[2] for row in rows) / len(rows)
    return min(SCALE_MOST, SCALE_END + SCALE_PER_CARD * cards)


def estimate(state: State) -> list[float]:
    """Each seat's chance to win (0..1) of a game cut short; of an ended one, its share."""
    if state.result is not None:
        result = state.result
        return outcome_rewards(result, len(result.ranks))
    rows = features(state)
    points = projected(rows)
    if len(points) == 1:  # solo: against the solo win, without the 8 a clan card left unused
        # at the end (not projected); the weights were fitted on 2-4 seats (no bot plays solo)
        return win_chances([points[0] - SOLO_WIN], scale(rows))
    return win_chances(points, scale(rows))
