"""The session's actors: diagrams, walkthroughs, attention, xref, the persister and the session.

Each owns its state and talks only through messages (`nereid.actors.protocol`); the
generic machinery they run on (mailboxes, call/cast, supervision, bus, tracer) is
`nereid.runtime`.
"""
