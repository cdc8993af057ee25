"""The itty bitty card game (AaAa Studios)."""
