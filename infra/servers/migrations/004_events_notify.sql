-- Wake the relay on commit without a round trip per append: one notification per
-- inserting statement (Postgres folds identical notifications of one transaction).
CREATE OR REPLACE FUNCTION events_notify() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    PERFORM pg_notify('turnpost_events', '');
    RETURN NULL;
END
$$;
DROP TRIGGER IF EXISTS events_notify ON events;
CREATE TRIGGER events_notify AFTER INSERT ON events
    FOR EACH STATEMENT EXECUTE FUNCTION events_notify();
