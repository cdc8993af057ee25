-- Rematch offers (services/lobby/rematches.py): the first call of a rematch offers it to the
-- other people (their seats held for them), and the room starts once every seat is taken;
-- with `bots_for_declined`, a bot takes the seat of each who declines.
ALTER TABLE rooms ADD COLUMN IF NOT EXISTS start_when_full boolean NOT NULL DEFAULT false;
ALTER TABLE rooms ADD COLUMN IF NOT EXISTS bots_for_declined boolean NOT NULL DEFAULT false;
