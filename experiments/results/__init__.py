"""What a run leaves: ``store.ResultsStore`` (one row per episode key), ``provenance`` (which code, data and
config made a row), ``secrets`` (keys kept out of everything written), ``summary`` (results.json and its
table) and ``gaps`` (a plan's keys the store still lacks)."""
