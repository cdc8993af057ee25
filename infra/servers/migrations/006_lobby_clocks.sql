-- Lobby: clocks replace the single turn limit, rooms remember their fill level and rematches.

-- A room's timing is decoded as contracts.lobby.Timing, which refuses unknown fields: every
-- turn_seconds (also the explicit nulls the old contract wrote) goes, and a set one becomes
-- per_move_s, raised to the new 5 s floor.
UPDATE rooms
SET timing = (timing - 'turn_seconds')
    || CASE
        WHEN jsonb_typeof(timing -> 'turn_seconds') = 'number' THEN jsonb_build_object(
            'per_move_s',
            LEAST(90 * 86400, GREATEST(5, ceil((timing ->> 'turn_seconds')::numeric)))::int
        )
        ELSE '{}'::jsonb
    END
WHERE timing ? 'turn_seconds';

-- The bot level that filled empty seats at start, and takes over a seat later (timeout,
-- resignation): null until the room starts.
ALTER TABLE rooms ADD COLUMN IF NOT EXISTS fill_level text;
-- Rooms started before this column existed were announced with RoomStarted's default.
UPDATE rooms SET fill_level = 'greedy'
WHERE fill_level IS NULL AND status IN ('starting', 'playing', 'finished');

-- At most one rematch per finished room: the constraint is what makes "rematch" idempotent.
ALTER TABLE rooms ADD COLUMN IF NOT EXISTS rematch_of text UNIQUE REFERENCES rooms (id);
