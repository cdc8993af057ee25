"""Notifications derived from the games stream and the clock projection (services/notifier)."""

from __future__ import annotations

import ipaddress
import json
from collections.abc import Iterable
from datetime import UTC, datetime, timedelta
from typing import Any

import msgspec
import pytest

from contracts.game import RatingChange
from contracts.notifications import GameResult, Notification
from contracts.streams import GameEvent, told_when_recorded
from infra.notify.derive import Clocks, GameFacts, deadlines_soon, notifications, title_of
from infra.notify.facts import changes_of, of_this_database, result_of
from infra.notify.ssrf import UnsafeURL, forbidden, vet_url
from services.notifier.worker import backoff

GAME = "00000000-0000-0000-0000-00000000000a"
NOW = datetime(2026, 1, 2, 3, 4, 5, tzinfo=UTC)
PLAYERS = {0: "ada", 1: "bob", 2: "cy"}  # seat 3 is a bot's from the start


def envelope(**kw: Any) -> GameEvent:
    fields: dict[str, Any] = dict(
        game_id=GAME,
        game="itty-bitty",
        room_id="r1",
        version=7,
        type="turn_started",
        to_act=[1],
        status="active",
        bots={"3": "greedy"},
        batch_end=True,
        global_position=70,
    )
    return GameEvent(**(fields | kw))


def facts(before: Iterable[int] | None = (), **kw: Any) -> GameFacts:
    """`before`: to_act after the previous command (None: this one set the game up)."""
    return GameFacts(
        players=kw.get("players", PLAYERS),
        deadlines=kw.get("deadlines", {}),
        before=before,
        outcome=kw.get("outcome"),
        recorded_at=kw.get("recorded_at", NOW),
        ratings=kw.get("ratings"),
        matched=kw.get("matched", False),
    )


def told(out: list[Notification]) -> list[tuple[str, int]]:
    return [(n.type, n.seat) for n in out]


def test_your_turn_for_the_seat_that_must_act_now() -> None:
    [n] = notifications(envelope(), facts(before=[0]))
    assert (n.type, n.seat, n.player_id, n.version) == ("your_turn", 1, "bob", 7)
    assert (n.game_id, n.game, n.title) == (GAME, "itty-bitty", title_of("itty-bitty"))
    assert n.title != "itty-bitty"  # the catalog's display name, not the key
    assert n.links.game == f"/v1/games/{GAME}"
    assert n.links.legal_actions == f"/v1/games/{GAME}/legal-actions"
    assert n.deadline is None


def test_your_turn_carries_the_seat_deadline_in_rfc3339_z() -> None:
    deadline = NOW + timedelta(hours=1)
    [n] = notifications(envelope(), facts(before=[0], deadlines={1: deadline, 0: NOW}))
    assert n.deadline == "2026-01-02T04:04:05Z"


def test_nothing_before_the_end_of_a_command() -> None:
    assert notifications(envelope(batch_end=False), facts(before=[0])) == []
    assert notifications(envelope(batch_end=False), facts(before=None)) == []


def test_a_seat_already_awaited_is_not_told_again() -> None:
    # simultaneous choices: seat 0 chose, seat 1 still must; a clock tick; its own second act
    assert notifications(envelope(to_act=[1]), facts(before=[0, 1])) == []
    assert notifications(envelope(to_act=[1]), facts(before=[1])) == []


def test_each_seat_that_newly_must_act_is_told() -> None:
    out = notifications(envelope(to_act=[0, 1, 2]), facts(before=[1]))
    assert told(out) == [("your_turn", 0), ("your_turn", 2)]


def test_bots_seats_are_never_told() -> None:
    # seat 3 a bot from the start (no player); seat 2 taken over by a bot since
    out = notifications(envelope(to_act=[2, 3], bots={"2": "greedy", "3": "greedy"}), facts())
    assert out == []


def test_the_set_up_tells_everyone_it_started_then_who_acts_first() -> None:
    out = notifications(envelope(version=3, to_act=[0]), facts(before=None))
    assert told(out) == [
        ("game_started", 0),
        ("game_started", 1),
        ("game_started", 2),
        ("your_turn", 0),
    ]
    assert {n.version for n in out} == {3}
    assert all(n.deadline is None for n in out if n.type == "game_started")


def test_the_end_tells_every_person_even_one_a_bot_replaced() -> None:
    out = notifications(
        envelope(status="finished", to_act=[], bots={"2": "greedy", "3": "greedy"}),
        facts(before=[2]),
    )
    assert told(out) == [("game_finished", 0), ("game_finished", 1), ("game_finished", 2)]


def test_the_end_carries_the_result_the_log_s_game_over_gives_and_only_the_end_does() -> None:
    # seat 1 resigned and its bot outscored seat 0: game_over ranks seat 0 first
    stored = b'{"scores":[19,28,3,0],"ranks":[1,3,2,4],"winners":[0],"tie_break":null,'
    stored += b'"detail":{"reason":"stalemate","forfeited":[1]}}'
    result = result_of(stored.decode())
    assert result == GameResult(
        winners=[0], ranks=[1, 3, 2, 4], scores=[19, 28, 3, 0], forfeited=[1]
    )
    out = notifications(envelope(status="finished", to_act=[]), facts([0], outcome=result))
    assert {n.type for n in out} == {"game_finished"} and all(n.outcome == result for n in out)
    assert all(n.outcome is None for n in notifications(envelope(), facts([0], outcome=result)))
    # a game whose log has no game_over (it ended before the event existed): no result
    assert result_of(None) is None
    old = notifications(envelope(status="finished", to_act=[]), facts([0]))
    assert old and all(n.outcome is None for n in old)


def test_the_end_of_a_rated_game_carries_every_seat_s_rating_change_and_only_the_end() -> None:
    stored = json.dumps(
        [
            {"seat": 0, "player_id": "ada", "name": "Ada", "bot": None, "rank": 1,
             "rating_before": 0.0, "rating_after": 1.5, "rating_change": 1.5},
            {"seat": 1, "player_id": "bot-1", "name": "Greedy", "bot": "greedy", "rank": 2,
             "rating_before": 0.0, "rating_after": -0.8, "rating_change": -0.8},
        ]
    )  # fmt: skip
    changes = changes_of(stored)
    assert changes == [
        RatingChange(seat=0, rating_before=0.0, rating_after=1.5, rating_change=1.5),
        RatingChange(seat=1, rating_before=0.0, rating_after=-0.8, rating_change=-0.8),
    ]
    out = notifications(
        envelope(status="finished", to_act=[]), facts([0], ratings=changes, players={0: "ada"})
    )
    assert [(n.type, n.ratings) for n in out] == [("game_finished", changes)]
    assert all(n.ratings is None for n in notifications(envelope(), facts([0], ratings=changes)))
    # not rated (an unrated room, not yet rated): no changes; a seat without one is left out
    assert changes_of(None) is None and changes_of("") is None
    unrated = json.dumps([{"seat": 0, "player_id": "ada", "name": "Ada", "bot": None, "rank": 1}])
    assert changes_of(unrated) is None


def test_the_end_of_a_room_s_game_is_told_from_the_finished_stream_only() -> None:
    """The lobby records (and rates) every room's game, then publishes its end again: its
    news comes from there, with the ratings; a game of no room is told at once."""
    end = envelope(status="finished", to_act=[])
    assert told_when_recorded(end)
    assert not told_when_recorded(envelope(status="finished", to_act=[], room_id=None))
    assert not told_when_recorded(envelope())  # a move of a room's game: from the games stream


def test_a_quick_match_s_game_tells_each_person_the_match_was_found_once_at_the_set_up() -> None:
    out = notifications(envelope(to_act=[0]), facts(before=None, matched=True))
    assert told(out) == [
        *[("game_started", s) for s in (0, 1, 2)],
        *[("match_found", s) for s in (0, 1, 2)],
        ("your_turn", 0),
    ]
    assert len({n.key() for n in out}) == len(out)
    later = notifications(envelope(to_act=[0]), facts(before=[1], matched=True))
    assert told(later) == [("your_turn", 0)]
    plain = notifications(envelope(to_act=[0]), facts(before=None))
    assert "match_found" not in {n.type for n in plain}


def test_a_game_of_bots_alone_tells_nobody() -> None:
    out = notifications(envelope(to_act=[0]), facts(before=None, players={}))
    assert out == []


def test_the_same_news_has_the_same_key_whatever_derives_it() -> None:
    a = notifications(envelope(), facts(before=[0]))
    b = notifications(envelope(), facts(before=[0]))
    assert [n.key() for n in a] == [n.key() for n in b]
    later = notifications(envelope(version=9), facts(before=[0]))
    assert a[0].key() != later[0].key()


def test_news_of_another_event_at_the_same_version_is_other_news() -> None:
    """A database restored to an earlier moment reaches a version again with other moves:
    what follows them is told anew (another key, another webhook-id), while the news of the
    event the restored database kept, derived again, is the same news."""
    lost = notifications(envelope(), facts(before=[0], recorded_at=NOW))
    again = notifications(envelope(), facts(before=[0], recorded_at=NOW))
    after = notifications(envelope(), facts(before=[0], recorded_at=NOW + timedelta(minutes=5)))
    assert [n.key() for n in lost] == [n.key() for n in again]
    assert [n.key() for n in lost] != [n.key() for n in after]
    assert (lost[0].type, lost[0].version) == (after[0].type, after[0].version)
    assert lost[0].recorded_at == "2026-01-02T03:04:05Z"
    assert after[0].recorded_at == "2026-01-02T03:09:05Z"
    # news derived before recorded_at was known keeps the key it had
    [old] = notifications(envelope(), facts(before=[0], recorded_at=None))
    assert old.key() == f"your_turn:{GAME}:1:7" and old.recorded_at is None


def test_an_envelope_is_of_this_database_only_when_it_names_the_stored_event() -> None:
    at = envelope(recorded_at=NOW)
    assert of_this_database(at, NOW, 70)
    assert not of_this_database(at, NOW + timedelta(microseconds=1), 70)  # another event
    assert not of_this_database(at, None, None)  # none at that version (yet)
    # a relay of before recorded_at: the position alone
    assert of_this_database(envelope(), NOW, 70)
    assert not of_this_database(envelope(), NOW, 71)
    # the relay's envelope carries it, to the microsecond, through the stream
    decoded = msgspec.json.decode(msgspec.json.encode(at), type=GameEvent)
    assert decoded.recorded_at == NOW


def test_a_notification_names_nothing_private() -> None:
    out = notifications(envelope(to_act=[0, 1]), facts(before=None))
    for n in out:
        body = msgspec.json.decode(msgspec.json.encode(n))
        assert set(body) == {
            "type", "game_id", "game", "title", "version", "seat", "player_id", "deadline", "links",
            "outcome",  # game_finished's result (public: the same for every seat), else null
            "ratings",  # game_finished's rating changes (public, as leaderboards), else null
            "recorded_at",  # when its event was recorded
        }  # fmt: skip
        assert "ittybit-" not in msgspec.json.encode(n).decode()


def clocks(**kw: Any) -> Clocks:
    fields: dict[str, Any] = dict(
        game_id=GAME,
        game="footprints",
        version=12,
        deadlines={0: NOW + timedelta(seconds=30), 1: NOW + timedelta(minutes=10)},
    )
    return Clocks(**(fields | kw))


def test_deadline_soon_within_the_lead_only() -> None:
    [n] = deadlines_soon(clocks(), PLAYERS, NOW, timedelta(minutes=1))
    assert (n.type, n.seat, n.player_id, n.version) == ("deadline_soon", 0, "ada", 12)
    assert n.deadline == "2026-01-02T03:04:35Z"
    assert n.title == title_of("footprints")
    both = deadlines_soon(clocks(), PLAYERS, NOW, timedelta(minutes=10))
    assert told(both) == [("deadline_soon", 0), ("deadline_soon", 1)]


def test_deadline_soon_not_for_a_passed_or_overdue_deadline_nor_a_bot() -> None:
    passed = clocks(deadlines={0: NOW - timedelta(seconds=1), 3: NOW + timedelta(seconds=5)})
    assert deadlines_soon(passed, PLAYERS, NOW, timedelta(minutes=1)) == []
    overdue = clocks(overdue=[0])
    assert deadlines_soon(overdue, PLAYERS, NOW, timedelta(minutes=1)) == []


def test_deadline_soon_once_per_deadline_whatever_the_version() -> None:
    a = deadlines_soon(clocks(version=12), PLAYERS, NOW, timedelta(minutes=1))
    b = deadlines_soon(
        clocks(version=13), PLAYERS, NOW + timedelta(seconds=5), timedelta(minutes=1)
    )
    assert [n.key() for n in a] == [n.key() for n in b]
    moved = clocks(deadlines={0: NOW + timedelta(seconds=40)})
    c = deadlines_soon(moved, PLAYERS, NOW, timedelta(minutes=1))
    assert c[0].key() != a[0].key()


def test_no_deadline_soon_for_a_turn_shorter_than_the_lead() -> None:
    short = clocks(since=NOW - timedelta(seconds=10))  # seat 0: 40 s from its start
    assert deadlines_soon(short, PLAYERS, NOW, timedelta(minutes=1)) == []
    long = clocks(since=NOW - timedelta(minutes=5))
    assert told(deadlines_soon(long, PLAYERS, NOW, timedelta(minutes=1))) == [("deadline_soon", 0)]


def test_a_seat_s_own_turn_says_whether_it_is_shorter_than_the_lead_not_the_row_s_last_write() -> (
    None
):
    """Another seat's move rewrites the row (`since`) just after seat 0's deadline came within
    the lead: seat 0's turn began long before, so it is told all the same; a turn of its own
    that began within the lead is not, whatever the row's last write."""
    lead = timedelta(minutes=1)
    written = NOW - timedelta(seconds=1)
    long = clocks(since=written, started={0: NOW - timedelta(minutes=5)})
    assert told(deadlines_soon(long, PLAYERS, NOW, lead)) == [("deadline_soon", 0)]
    short = clocks(since=NOW - timedelta(hours=1), started={0: NOW - timedelta(seconds=10)})
    assert deadlines_soon(short, PLAYERS, NOW, lead) == []
    # seat 1 (10 minutes away) within a wider lead: its own start, else the row's
    wide = timedelta(minutes=20)
    mixed = clocks(since=written, started={0: NOW - timedelta(hours=1)})
    assert told(deadlines_soon(mixed, PLAYERS, NOW, wide)) == [("deadline_soon", 0)]


# -- the webhooks' address guard and backoff (services/notifier) ---------------------------


def test_forbidden_addresses_are_every_one_not_globally_routable() -> None:
    for a in ["127.0.0.1", "10.0.0.1", "172.16.5.4", "192.168.1.1", "169.254.169.254",
              "100.64.0.1", "0.0.0.0", "224.0.0.1", "::1", "fe80::1", "fd00:ec2::254",
              "::ffff:10.0.0.1", "2002:7f00:1::1"]:  # fmt: skip
        assert forbidden(ipaddress.ip_address(a)), a
    for a in ["8.8.8.8", "1.1.1.1", "2606:4700:4700::1111", "::ffff:8.8.8.8"]:
        assert not forbidden(ipaddress.ip_address(a)), a


def test_a_webhook_url_is_https_with_a_host_and_no_credentials() -> None:
    assert vet_url("https://example.com/hook", allow_http=False) == ("example.com", 443)
    assert vet_url("http://example.com:8080/x", allow_http=True) == ("example.com", 8080)
    for url in ["http://example.com/x", "ftp://example.com", "https://", "https://u:p@example.com",
                "https://example.com:99999/", "https://example.com/a b", "https://example.com/#f"]:  # fmt: skip
        with pytest.raises(UnsafeURL):
            vet_url(url, allow_http=False)


def test_backoff_doubles_to_its_cap_less_up_to_half() -> None:
    for attempt, full in [(1, 5.0), (2, 10.0), (3, 20.0), (10, 300.0), (60, 300.0)]:
        waits = [backoff(attempt, 5.0, 300.0) for _ in range(200)]
        assert all(full / 2 <= w <= full for w in waits), (attempt, min(waits), max(waits))
        assert max(waits) - min(waits) > full / 10  # jitter: not all at once
