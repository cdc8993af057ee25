-- Lobby: plain tables, not event-sourced.
CREATE TABLE IF NOT EXISTS players (
    id text PRIMARY KEY,
    name text NOT NULL,
    bot text,
    created_at timestamptz NOT NULL DEFAULT now()
);
CREATE TABLE IF NOT EXISTS rooms (
    id text PRIMARY KEY,
    game text NOT NULL,
    status text NOT NULL CHECK (status IN ('open', 'starting', 'playing', 'finished', 'cancelled')),
    host text NOT NULL REFERENCES players (id),
    seat_count int NOT NULL,
    options jsonb NOT NULL DEFAULT '{}',
    timing jsonb NOT NULL DEFAULT '{}',
    game_id text,
    created_at timestamptz NOT NULL DEFAULT clock_timestamp(),
    updated_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX IF NOT EXISTS rooms_listing ON rooms (created_at DESC, id DESC);
CREATE TABLE IF NOT EXISTS room_seats (
    room_id text NOT NULL REFERENCES rooms (id),
    seat int NOT NULL,
    player_id text NOT NULL REFERENCES players (id),
    PRIMARY KEY (room_id, seat),
    UNIQUE (room_id, player_id)
);
