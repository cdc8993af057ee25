-- Table chat (services/game/chat.py): the messages live in the games' logs as `chat_said`
-- table events; here, what each player chose to read of them: the players they muted, and
-- whether they hide the spectators' channel.
CREATE TABLE IF NOT EXISTS chat_settings (
    player_id text PRIMARY KEY,
    muted text[] NOT NULL DEFAULT '{}',
    hide_spectators boolean NOT NULL DEFAULT false,
    updated_at timestamptz NOT NULL DEFAULT now()
);
