"""The shared parameter checks, under the names the actors and tools use.

They are the query layer's (`nereid.query.params`): an id or ref given as text is refused
naming the parameter, `invalid <param>: <reason>` with data `{param: value}` (mcp-tools.md
§3.6). The pure layers raise `nereid.errors` types themselves; only the model's value
checks (`IdError`, `ObjectRefError`, which do not know which parameter held the value) are
turned into `InvalidParams` there.
"""

from __future__ import annotations

from nereid.query.params import check_param_id as check_id_param
from nereid.query.params import check_param_ref as parse_ref_param

__all__ = ["check_id_param", "parse_ref_param"]
