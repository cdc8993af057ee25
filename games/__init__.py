"""Pure rule engines, one package a game; games/registry.py lists the games served."""
