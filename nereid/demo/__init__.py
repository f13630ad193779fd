"""The built-in demo session (package data): the `session/` folder is a normal session folder.

An e-commerce shop ("Nereid Shop") seen through four flowcharts, three sequence diagrams, an
index diagram whose nodes link (nav xrefs) to the others, and a guided walkthrough. The files
are hand-written: `.mmd` with comments and directions, partial side-cars. It is read with
the normal loader (`nereid.store.demo`) and never written to.
"""
