"""Game service: decides commands against event-sourced state; views, feeds, outbox relay."""
