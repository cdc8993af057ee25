"""Lobby service: players and tokens, the catalog, rooms, seats and bot seats."""
