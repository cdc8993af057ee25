-- Private tables and invitations (services/lobby/invitations.py): a room is public (listed)
-- or unlisted (joined with its invite code, which its members see); a host reserves seats
-- for named players, each reservation lasting until its person accepts (joins), declines,
-- or its time runs out.
ALTER TABLE rooms ADD COLUMN IF NOT EXISTS visibility text NOT NULL DEFAULT 'public';
ALTER TABLE rooms ADD COLUMN IF NOT EXISTS invite_code text;

CREATE TABLE IF NOT EXISTS room_invitations (
    room_id text NOT NULL REFERENCES rooms (id),
    seat int NOT NULL,
    player_id text NOT NULL REFERENCES players (id),
    invited_by text NOT NULL,
    status text NOT NULL DEFAULT 'pending',  -- pending, accepted, declined, withdrawn
    expires_at timestamptz NOT NULL,
    created_at timestamptz NOT NULL DEFAULT clock_timestamp(),
    PRIMARY KEY (room_id, player_id)
);
-- a player's pending invitations, newest first (GET /v1/me/invitations)
CREATE INDEX IF NOT EXISTS room_invitations_pending
    ON room_invitations (player_id, created_at DESC) WHERE status = 'pending';

-- the games being played now, newest first (GET /v1/games?status=active)
CREATE INDEX IF NOT EXISTS games_newest ON games (created_at DESC, id DESC);
