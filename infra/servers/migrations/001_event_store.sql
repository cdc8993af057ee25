-- Event store (DESIGN.md): the events table is also the outbox.
CREATE TABLE IF NOT EXISTS events (
    global_position bigint GENERATED ALWAYS AS IDENTITY,
    tx_id xid8 NOT NULL DEFAULT pg_current_xact_id(),
    stream_id text NOT NULL,
    version bigint NOT NULL CHECK (version > 0),
    event_id uuid NOT NULL,
    type text NOT NULL,
    data jsonb NOT NULL,
    metadata jsonb NOT NULL DEFAULT '{}',
    recorded_at timestamptz NOT NULL DEFAULT now(),
    CONSTRAINT events_pkey PRIMARY KEY (stream_id, version),
    CONSTRAINT events_event_id_key UNIQUE (event_id)
);
CREATE INDEX IF NOT EXISTS events_relay_order ON events (tx_id, global_position);

CREATE TABLE IF NOT EXISTS snapshots (
    stream_id text PRIMARY KEY,
    version bigint NOT NULL,
    schema_ver int NOT NULL,
    state bytea NOT NULL,
    taken_at timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE IF NOT EXISTS checkpoints (
    consumer text PRIMARY KEY,
    tx_id xid8 NOT NULL,
    global_position bigint NOT NULL,
    updated_at timestamptz NOT NULL DEFAULT now()
);
