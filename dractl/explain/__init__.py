"""``dractl explain``: which devices the scheduler would pick on each node, and why not others."""
