-- Webhooks (issue 11): a player's endpoints, each delivery made to them and each attempt of
-- it. The notifier writes a delivery before it enqueues its task (services/notifier), so the
-- row is the truth and the task only its messenger: a task lost is sent again from the row.
CREATE TABLE IF NOT EXISTS webhooks (
    id uuid PRIMARY KEY,
    player_id text NOT NULL,
    url text NOT NULL,
    events text[] NOT NULL,
    game_id uuid,                      -- null: every game of the player
    secret text NOT NULL,              -- whsec_…: the delivery worker signs with it
    created_at timestamptz NOT NULL DEFAULT now(),
    failing_since timestamptz,         -- the first failed attempt since the last success
    disabled_at timestamptz,           -- failing for webhook_disable_after_s: no more deliveries
    disabled_reason text
);
CREATE INDEX IF NOT EXISTS webhooks_player ON webhooks (player_id);

-- One notification to one endpoint. `id` is its webhook-id, the same for every attempt, and
-- derives from (notification, endpoint): the same news derived twice is one delivery.
CREATE TABLE IF NOT EXISTS webhook_deliveries (
    id text PRIMARY KEY,
    webhook_id uuid NOT NULL REFERENCES webhooks (id) ON DELETE CASCADE,
    type text NOT NULL,
    game_id uuid,
    body text NOT NULL,                -- exactly the bytes signed and sent
    created_at timestamptz NOT NULL DEFAULT now(),
    status text NOT NULL DEFAULT 'pending'
        CHECK (status IN ('pending', 'delivered', 'failed')),
    attempts int NOT NULL DEFAULT 0,
    next_attempt_at timestamptz NOT NULL DEFAULT now(),  -- the sweep re-enqueues overdue ones
    finished_at timestamptz
);
CREATE INDEX IF NOT EXISTS webhook_deliveries_listing ON webhook_deliveries (webhook_id, created_at DESC);
CREATE INDEX IF NOT EXISTS webhook_deliveries_pending ON webhook_deliveries (next_attempt_at)
    WHERE status = 'pending';

CREATE TABLE IF NOT EXISTS webhook_attempts (
    delivery_id text NOT NULL REFERENCES webhook_deliveries (id) ON DELETE CASCADE,
    attempt int NOT NULL,
    at timestamptz NOT NULL,
    status_code int,                   -- null: no answer (refused, timed out, blocked)
    latency_ms double precision NOT NULL,
    error text,                        -- null: delivered
    PRIMARY KEY (delivery_id, attempt)
);

-- deadline_soon once per deadline (the notifier's sweep over `turns`): a deadline is set once
-- per turn start, so (game, seat, deadline) names it.
CREATE TABLE IF NOT EXISTS deadline_notices (
    game_id uuid NOT NULL,
    seat int NOT NULL,
    deadline timestamptz NOT NULL,
    told_at timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (game_id, seat, deadline)
);
