"""News for players (your_turn, game_started, ...), derived once for every service that tells
them: the notifier (webhooks) and the game service (the player's live stream)."""
