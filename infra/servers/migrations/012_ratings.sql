-- Players' records (services/lobby/ratings.py): rooms rated or not, each finished game once
-- with its result and every seat's rating change, ratings per game (a person's, or a bot
-- level's as `bot:<level>`), and each person's finished games newest first.
ALTER TABLE rooms ADD COLUMN IF NOT EXISTS rated boolean NOT NULL DEFAULT true;

-- One row a finished game, written in the transaction that rates it: its primary key is what
-- makes a rating happen once however often the game's news arrives.
CREATE TABLE IF NOT EXISTS finished_games (
    game_id text PRIMARY KEY,
    room_id text,
    game text NOT NULL,
    rated boolean NOT NULL,
    started_at timestamptz,
    finished_at timestamptz NOT NULL DEFAULT clock_timestamp(),
    options jsonb NOT NULL DEFAULT '{}',
    outcome jsonb NOT NULL,
    seats jsonb NOT NULL
);

CREATE TABLE IF NOT EXISTS ratings (
    game text NOT NULL,
    subject text NOT NULL,
    mu double precision NOT NULL,
    sigma double precision NOT NULL,
    ordinal double precision GENERATED ALWAYS AS (mu - 3 * sigma) STORED,
    games int NOT NULL DEFAULT 0,
    wins int NOT NULL DEFAULT 0,
    updated_at timestamptz NOT NULL DEFAULT clock_timestamp(),
    PRIMARY KEY (game, subject)
);
-- a leaderboard page by the conservative rating, keyset (ordinal, subject): settled ratings
-- (10 games or more: services/lobby/ratings.py:SETTLED_AFTER) apart from provisional ones
CREATE INDEX IF NOT EXISTS ratings_settled ON ratings (game, ordinal DESC, subject DESC)
    WHERE games >= 10;
CREATE INDEX IF NOT EXISTS ratings_provisional ON ratings (game, ordinal DESC, subject DESC)
    WHERE games < 10;

-- a person's history page, newest first, keyset (finished_at, game_id); and per game what
-- a profile counts (played, won)
CREATE TABLE IF NOT EXISTS player_games (
    player_id text NOT NULL,
    finished_at timestamptz NOT NULL,
    game_id text NOT NULL,
    game text NOT NULL,
    won boolean NOT NULL,
    PRIMARY KEY (player_id, finished_at, game_id)
);
