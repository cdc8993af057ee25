-- Quick match (services/lobby/matching.py): a table opened by POST /v1/match carries the key
-- of its settings (game, seats, options, timing, rated, fill level); the waiting tables of a
-- key are what a caller with the same settings is seated at.
ALTER TABLE rooms ADD COLUMN IF NOT EXISTS match_key text;

CREATE INDEX IF NOT EXISTS rooms_waiting_matches
    ON rooms (match_key, created_at) WHERE status = 'open' AND match_key IS NOT NULL;
