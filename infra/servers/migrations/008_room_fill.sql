-- Rooms filled with bots on a timer (services/lobby/rooms.py, Lobby.fill_due): after
-- fill_with_bots_after_s without a join, the empty seats get bots of fill_level, and with
-- auto_start the room starts. fill_due_at is when that falls due: set at creation, moved by
-- every join, null once filled, started or closed (and for rooms without the option).
ALTER TABLE rooms ADD COLUMN IF NOT EXISTS fill_with_bots_after_s int
    CHECK (fill_with_bots_after_s BETWEEN 5 AND 30 * 86400);
ALTER TABLE rooms ADD COLUMN IF NOT EXISTS fill_due_at timestamptz;
ALTER TABLE rooms ADD COLUMN IF NOT EXISTS auto_start boolean NOT NULL DEFAULT false;
-- What the lobby's sweep scans each second: only rooms waiting to be filled.
CREATE INDEX IF NOT EXISTS rooms_fill_due ON rooms (fill_due_at) WHERE fill_due_at IS NOT NULL;
