"""Allow `python -m nereid`.

Guarded: worker processes (`trio-parallel`, spawned) re-import the main module under
another name, and must not start a second Nereid.
"""

from nereid.cli import main

if __name__ == "__main__":
    raise SystemExit(main())
