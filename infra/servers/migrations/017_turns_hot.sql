-- The `turns` row is replaced at every append (infra/eventstore/postgres.py). Its update can
-- be HOT (no new index entries, the old version pruned in place) only when no indexed
-- column changes and the page has room: `waiting_since`, set at every turn, left the
-- bot sweep's index for the game id (the sweep reads the few games waiting on a bot and
-- orders them itself), and each page keeps a third free for the next versions of its rows.
-- What still changes an indexed column: a clocked turn's `next_deadline` (turns_due), and a
-- bot's turn beginning or ending (`bots`, in turns_bots' predicate).
DROP INDEX IF EXISTS turns_bots;
CREATE INDEX IF NOT EXISTS turns_bots_waiting ON turns (game_id)
    WHERE bots <> '{}' AND status = 'active';
ALTER TABLE turns SET (fillfactor = 70);
