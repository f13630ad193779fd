"""The session's actors: diagrams, walkthroughs, attention, xref, the persister and the session.

Each owns its state and talks only through messages (`nereid.actors.protocol`); the
generic machinery they run on (mailboxes, call/cast, typed handlers, supervision, bus,
tracer, timers) is `nereid.runtime`. `revisioned.RevisionedActor` is the one actor of a
document with a rev; `diagram` and `walkthrough` are it for their kind.
"""
