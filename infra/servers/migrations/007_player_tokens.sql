-- Players can end their tokens (infra/auth/tokens.py). A token carries a serial: registration
-- issues 0 (tokens from before this migration carry none and count as 0), and each further
-- token the next one. A token holds while its serial is at least tokens_valid_from, or is
-- token_kept: the one with which the player ended the others.
ALTER TABLE players ADD COLUMN IF NOT EXISTS token_serial bigint NOT NULL DEFAULT 0;
ALTER TABLE players ADD COLUMN IF NOT EXISTS tokens_valid_from bigint NOT NULL DEFAULT 0;
ALTER TABLE players ADD COLUMN IF NOT EXISTS token_kept bigint;
