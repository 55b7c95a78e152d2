"""``dractl server``: a Language Server over stdio.

It is a front end like the CLI: it reads the workspace with :mod:`dractl.load`, checks it with
:mod:`dractl.lint` and answers with what lint, the schemas, ``select`` and ``convert`` know. One
module per concern: ``settings`` (what the client configures), ``workspace`` (buffers and files,
one lint run per change), ``positions`` (where the cursor is in a document), ``diagnostics``,
``hover``, ``completion``, ``actions`` and ``server`` (the pygls wiring). Only ``server`` imports
pygls and lsprotocol at module level for the protocol; nothing here is imported by ``dractl lint``.
"""
