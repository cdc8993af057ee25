-- Keeping games moving (DESIGN.md): who must act and by when, written in the same
-- statement as the events that changed it; the scheduler scans it, nothing keeps it only in
-- memory. One row per game, replaced at every append.
CREATE TABLE IF NOT EXISTS turns (
    game_id uuid PRIMARY KEY,
    room_id text,
    game text NOT NULL,
    version bigint NOT NULL,
    status text NOT NULL,
    to_act int[] NOT NULL DEFAULT '{}',
    bots jsonb NOT NULL DEFAULT '{}',       -- seats in to_act that a bot plays -> level
    deadlines jsonb NOT NULL DEFAULT '{}',  -- seat -> ISO deadline of each running clock
    overdue int[] NOT NULL DEFAULT '{}',    -- seats past it under policy wait: not fired again
    next_deadline timestamptz,              -- the earliest still to fire, for the scheduler
    waiting_since timestamptz NOT NULL DEFAULT now(),
    fire_after timestamptz,                 -- a scheduler sent the due timeouts: again after this
    bot_sends int NOT NULL DEFAULT 0,       -- times the sweep sent this version's bot turns again
    bot_resend_at timestamptz               -- when the sweep may send them again
);
CREATE INDEX IF NOT EXISTS turns_due ON turns (next_deadline) WHERE next_deadline IS NOT NULL;
CREATE INDEX IF NOT EXISTS turns_bots ON turns (waiting_since)
    WHERE bots <> '{}' AND status = 'active';
-- the scheduler's room repair joins on these
CREATE INDEX IF NOT EXISTS turns_room ON turns (room_id);
CREATE INDEX IF NOT EXISTS rooms_following ON rooms (id) WHERE status IN ('starting', 'playing');

-- The level of the bots that take over seats (timeouts, resignations).
ALTER TABLE games ADD COLUMN IF NOT EXISTS fill_level text NOT NULL DEFAULT 'greedy';

-- Games made before the clocks keep playing without one: their `turn_seconds` was never
-- enforced, and a clock started mid-game would have no turn start to count from.
UPDATE games SET timing = timing - 'turn_seconds' WHERE timing ? 'turn_seconds';

-- Games that exist already: their row from the last event's envelope (no deadlines yet).
INSERT INTO turns (game_id, room_id, game, version, status, to_act, bots)
SELECT g.id, g.room_id, g.game, e.version,
       coalesce(e.metadata ->> 'status', 'active'),
       ARRAY(SELECT x::int FROM jsonb_array_elements_text(e.metadata -> 'to_act') AS x),
       coalesce((SELECT jsonb_object_agg(b.key, b.value)
                 FROM jsonb_each(coalesce(e.metadata -> 'bots', '{}')) AS b
                 WHERE (e.metadata -> 'to_act') @> to_jsonb(b.key::int)), '{}')
FROM games g
JOIN LATERAL (SELECT version, metadata FROM events
              WHERE stream_id = 'game-' || g.id::text
              ORDER BY version DESC LIMIT 1) e ON true
ON CONFLICT (game_id) DO NOTHING;
