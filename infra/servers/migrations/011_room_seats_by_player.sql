-- A player's seats (the lobby's cap on open rooms per player counts them at each create and
-- join): by player, not a scan of every seat ever taken.
CREATE INDEX IF NOT EXISTS room_seats_player ON room_seats (player_id);
