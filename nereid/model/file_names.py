"""File names inside a session folder (session-folder.md §1-2), and the path-safety rules.

Every id that becomes a file name goes through `encode_stem`: the result is a single path
component that can never be `.`/`..`, hold a separator, a control character or a name some
file system reserves, so no id can reach outside the folder. Relative paths read from files
(`mmd_path`) go through `check_relative_path`. Pure: nothing here touches the disk, so it
lives with the model: the store names its files with it, and the actors use the same rule to
refuse unstorable ids when they enter (spec decision 9) and to name a diagram's file in a
problem, without knowing the folder.
"""

from __future__ import annotations

from typing import Final

__all__ = [
    "DIAGRAMS_DIR",
    "LEGACY_META_FILE",
    "MAX_NAME_BYTES",
    "META_FILE",
    "TEMP_PREFIX",
    "WALKTHROUGHS_DIR",
    "WALKTHROUGH_SUFFIX",
    "StorePathError",
    "check_relative_path",
    "check_storable_id",
    "decode_stem",
    "diagram_files_of",
    "diagram_paths",
    "encode_stem",
    "needs_encoding",
    "render_path",
    "sidecar_path",
    "walkthrough_path",
    "walkthrough_render_path",
]

META_FILE: Final = "nereid-session.meta.json"
LEGACY_META_FILE: Final = "session.meta.json"
DIAGRAMS_DIR: Final = "diagrams"
WALKTHROUGHS_DIR: Final = "walkthroughs"
WALKTHROUGH_SUFFIX: Final = ".wt.json"
TEMP_PREFIX: Final = ".nereid.tmp."

#: The usual file-name limit (ext4, APFS, NTFS count 255 bytes or UTF-16 units).
MAX_NAME_BYTES: Final = 255
#: The longest suffix a stem gets (`.meta.json`, `.ascii.txt`), so every file of an id fits.
_LONGEST_SUFFIX: Final = len(".meta.json")

_RESERVED: Final = frozenset(
    ["CON", "PRN", "AUX", "NUL"]
    + [f"COM{i}" for i in range(1, 10)]
    + [f"LPT{i}" for i in range(1, 10)]
)
_FORBIDDEN: Final = frozenset('<>:"/\\|?*')


class StorePathError(ValueError):
    """An id or relative path that cannot safely name a file in the session folder."""


def needs_encoding(identifier: str) -> bool:
    """Whether `identifier` must be hex-encoded to be a safe (also on Windows) file stem."""
    if identifier.startswith("~") or identifier in (".", ".."):
        return True
    if identifier.endswith((" ", ".")):
        return True
    base = identifier.rstrip(" .").split(".", 1)[0]
    if base.upper() in _RESERVED:
        return True
    return any(ch in _FORBIDDEN or ord(ch) <= 0x1F or ord(ch) == 0x7F for ch in identifier)


def encode_stem(identifier: str) -> str:
    """The file stem for an id: the id itself, or `~` + lowercase hex of its UTF-8 bytes.

    Raises StorePathError for the empty id, ids that are not valid Unicode (lone
    surrogates) and ids whose file names would exceed the file-name length limit.
    """
    if identifier == "":
        raise StorePathError("an empty id cannot name a file")
    try:
        raw = identifier.encode("utf-8")
    except UnicodeEncodeError as err:
        raise StorePathError(
            f"id {identifier!r} is not valid Unicode (position {err.start}) and cannot name a file"
        ) from None
    stem = "~" + raw.hex() if needs_encoding(identifier) else identifier
    size = len(stem.encode("utf-8"))
    if size + _LONGEST_SUFFIX > MAX_NAME_BYTES:
        raise StorePathError(
            f"id {identifier[:40]!r}... is too long to name a file: its file stem takes "
            f"{size} bytes, at most {MAX_NAME_BYTES - _LONGEST_SUFFIX} fit"
        )
    return stem


def check_storable_id(identifier: str) -> str:
    """Return `identifier` if it can name session files, else raise StorePathError.

    For callers that refuse unstorable ids when they enter (spec decision 9), not at save.
    """
    encode_stem(identifier)
    return identifier


def decode_stem(stem: str) -> str | None:
    """The id an encoded stem stands for (`~` + hex), or None if `stem` is not encoded."""
    if not stem.startswith("~") or len(stem) % 2 == 0:
        return None
    try:
        return bytes.fromhex(stem[1:]).decode("utf-8")
    except ValueError:
        return None


def diagram_paths(diagram_id: str) -> tuple[str, str, str]:
    """`(mmd, sidecar, rendering)` paths of a diagram, relative to the session folder."""
    mmd = f"{DIAGRAMS_DIR}/{encode_stem(diagram_id)}.mmd"
    return mmd, sidecar_path(mmd), render_path(mmd)


def diagram_files_of(mmd_path: str) -> tuple[str, str, str]:
    """`(mmd, sidecar, rendering)` a meta entry with this `mmd_path` owns (normalised)."""
    mmd = check_relative_path(mmd_path)
    return mmd, sidecar_path(mmd), render_path(mmd)


def _replace_extension(path: str, suffix: str) -> str:
    """Replace the final extension of the last component (§2's rule), or append `suffix`."""
    head, slash, name = path.rpartition("/")
    dot = name.rfind(".")
    stem = name[:dot] if dot > 0 else name
    return f"{head}{slash}{stem}{suffix}"


def sidecar_path(mmd_path: str) -> str:
    """The side-car next to a `.mmd` path (its final extension replaced by `.meta.json`)."""
    return _replace_extension(mmd_path, ".meta.json")


def render_path(mmd_path: str) -> str:
    """The derived rendering next to a `.mmd` path (`.ascii.txt`)."""
    return _replace_extension(mmd_path, ".ascii.txt")


def walkthrough_path(walkthrough_id: str, *, legacy: bool = False) -> str:
    """`walkthroughs/<enc(id)>.wt.json`; with `legacy`, the raw-id name older folders used.

    The legacy name is only ever read, and only when the raw id is itself a safe stem.
    """
    if legacy:
        if walkthrough_id in ("", ".", "..") or any(ch in walkthrough_id for ch in "/\\\x00"):
            raise StorePathError(f"walkthrough id {walkthrough_id!r} is not a file name")
        return check_relative_path(f"{WALKTHROUGHS_DIR}/{walkthrough_id}{WALKTHROUGH_SUFFIX}")
    return f"{WALKTHROUGHS_DIR}/{encode_stem(walkthrough_id)}{WALKTHROUGH_SUFFIX}"


def walkthrough_render_path(walkthrough_id: str) -> str:
    """`walkthroughs/<enc(id)>.ascii.txt`."""
    return f"{WALKTHROUGHS_DIR}/{encode_stem(walkthrough_id)}.ascii.txt"


def check_relative_path(text: str) -> str:
    """Validate a relative path read from a file (`mmd_path`); return it with `/` separators.

    Refused: empty, absolute (`/x`, `\\x`), a drive prefix (`C:`), a `..` component, a NUL,
    or a component longer than the file-name limit. `.` components are allowed and dropped.
    Both `/` and `\\` count as separators, so a path means the same on every system.
    """
    if text == "":
        raise StorePathError("path is empty")
    if "\x00" in text:
        raise StorePathError(f"path {text!r} contains a NUL character")
    if text.startswith(("/", "\\")):
        raise StorePathError(f"path {text!r} is absolute")
    if len(text) >= 2 and text[1] == ":" and text[0].isascii() and text[0].isalpha():
        raise StorePathError(f"path {text!r} has a drive prefix")
    parts = [part for part in text.replace("\\", "/").split("/") if part not in ("", ".")]
    if not parts:
        raise StorePathError(f"path {text!r} names the session folder itself")
    for part in parts:
        if part == "..":
            raise StorePathError(f"path {text!r} has a '..' component")
        if len(part.encode("utf-8", "surrogatepass")) > MAX_NAME_BYTES:
            raise StorePathError(f"path {text!r} has a component longer than the name limit")
    return "/".join(parts)
