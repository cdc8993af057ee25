"""Footprints: six clans race across a hex map of four terrains to the cairns."""
