-- No notification per append (tests/bench/notify.py): a NOTIFY is queued at commit under a
-- cluster-wide lock held through the commit's WAL flush, so every appending transaction
-- waited for the one before it (at 64 clients, 2.3 times fewer appends). The relay polls
-- the outbox instead (RELAY_POLL_S), which also catches events a notification could not
-- announce: those held back below the xmin horizon by an earlier transaction still open.
DROP TRIGGER IF EXISTS events_notify ON events;
DROP FUNCTION IF EXISTS events_notify();
