"""``dractl lint``: rules over a workspace of loaded objects."""
