"""Notifier: tells players about their games (webhooks), from the games stream and the clocks."""
