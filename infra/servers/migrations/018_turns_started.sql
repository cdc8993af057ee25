-- When each running clock's turn began (seat -> time), beside its deadline: a deadline_soon is
-- not sent for a turn shorter than the lead (its your_turn carried the deadline), and that is
-- judged by the seat's own turn, not by the row's last write (`waiting_since`, which another
-- seat's move resets: a deadline that came within the lead just before it went untold).
-- Rows of before keep '{}' until their next append: the sweeps then go by `waiting_since`.
ALTER TABLE turns ADD COLUMN IF NOT EXISTS started jsonb NOT NULL DEFAULT '{}';
