-- Game service: one row per game; its state lives in the events.
CREATE TABLE IF NOT EXISTS games (
    id uuid PRIMARY KEY,
    room_id text UNIQUE,
    game text NOT NULL,
    seats jsonb NOT NULL,
    options jsonb NOT NULL DEFAULT '{}',
    timing jsonb NOT NULL DEFAULT '{}',
    seed bigint NOT NULL,
    created_at timestamptz NOT NULL DEFAULT now()
);
-- who sits where, for GET /v1/me/games
CREATE TABLE IF NOT EXISTS game_seats (
    game_id uuid NOT NULL REFERENCES games (id),
    seat int NOT NULL,
    player_id text NOT NULL,
    PRIMARY KEY (game_id, seat)
);
CREATE INDEX IF NOT EXISTS game_seats_player ON game_seats (player_id);
