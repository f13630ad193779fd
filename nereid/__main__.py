"""Allow `python -m nereid`."""

from nereid.cli import main

raise SystemExit(main())
