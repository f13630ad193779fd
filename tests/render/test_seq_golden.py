"""Golden renders of hand-picked sequence diagrams (tests/render/golden/seq-*.txt).

Regenerate after a deliberate change with `NEREID_UPDATE_GOLDEN=1 uv run pytest
tests/render/test_seq_golden.py`, then read the diffs: they must still look right to a person.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from nereid.mermaid import parse_sequence
from nereid.render import RenderOptions, render_sequence

GOLDEN = Path(__file__).parent / "golden"
UPDATE = os.environ.get("NEREID_UPDATE_GOLDEN") == "1"

CASES: dict[str, tuple[str, RenderOptions]] = {
    "boxes": (
        """
        sequenceDiagram
            title Boxes
            participant X
            box Aqua A long box label
            participant A
            end
            box B
            actor Bo
            participant C
            end
            X->>A: hello there
            A->>Bo: hi
            Bo->>Bo: self
            loop every
            C-->>X: back
            end
            Note over A,C: a note
        """,
        RenderOptions(),
    ),
    "boxes-ascii": (
        """
        sequenceDiagram
            box Purple Alice & John
            participant A
            participant J
            end
            box Another Group
            participant B
            end
            A->>J: Hello John
            J->>B: Hello Bob, how are you today?
        """,
        RenderOptions(ascii=True),
    ),
    "basic": (
        """
        sequenceDiagram
            Alice->>Bob: Hello
        """,
        RenderOptions(),
    ),
    "arrows": (
        """
        sequenceDiagram
            participant A as Client
            participant B as Server
            A->B: solid, no head
            A-->B: dashed, no head
            A->>B: solid arrow
            B-->>A: dashed arrow
            A-xB: solid cross
            B--xA: dashed cross
            A-)B: async
            B--)A: dashed async
            A<<->>B: both ways
            B<<-->>A: both ways, dashed
        """,
        RenderOptions(),
    ),
    "declared-order": (
        """
        sequenceDiagram
            participant Zed
            participant Bob
            participant Alice
            Alice->>Zed: skips Bob
            Zed-->>Alice: answer over Bob
            Bob->>Bob: talks to himself
        """,
        RenderOptions(),
    ),
    "self": (
        """
        sequenceDiagram
            Alice->>Alice: Think
            Alice->>Bob: Hello
            Bob->>Bob: a rather long self message that has to wrap onto more lines
            Bob-->>Alice: Done
        """,
        RenderOptions(),
    ),
    "notes": (
        """
        sequenceDiagram
            participant Alice
            participant Bob
            participant Carol
            Note left of Alice: left of the first
            Alice->>Bob: Hi
            Note right of Bob: right of Bob
            Note over Carol: over one
            Note over Alice,Carol: a note over three lifelines
            Bob->>Carol: Go
        """,
        RenderOptions(),
    ),
    "activations": (
        """
        sequenceDiagram
            Alice->>+John: Hello John, how are you?
            Alice->>+John: John, can you hear me?
            John-->>-Alice: Hi Alice, I can hear you!
            John-->>-Alice: I feel great!
            activate Alice
            Alice->>John: explicit activation
            deactivate Alice
        """,
        RenderOptions(),
    ),
    "autonumber": (
        """
        sequenceDiagram
            autonumber 10 10
            Alice->>John: Hello John, how are you?
            loop HealthCheck
                John->>John: Fight against hypochondria
            end
            Note right of John: Rational thoughts!
            John-->>Alice: Great!
            John->>Bob: How about you?
            Bob-->>John: Jolly good!
        """,
        RenderOptions(),
    ),
    "alt": (
        """
        sequenceDiagram
            participant A
            participant B
            A->>B: Pre
            alt X
                B->>A: In1
            else Y
                B->>A: In2
            end
            A->>B: Post
        """,
        RenderOptions(),
    ),
    "opt-loop": (
        """
        sequenceDiagram
            Alice->>Bob: Hello Bob, how are you?
            opt Extra response
                Bob->>Alice: Thanks for asking
            end
            loop Every minute
                John-->>Alice: Great!
            end
        """,
        RenderOptions(),
    ),
    "par": (
        """
        sequenceDiagram
            par Alice to Bob
                Alice->>Bob: Hello guys!
            and Alice to John
                Alice->>John: Hello guys!
            end
            Bob-->>Alice: Hi Alice!
            John-->>Alice: Hi Alice!
        """,
        RenderOptions(),
    ),
    "critical": (
        """
        sequenceDiagram
            critical Establish a connection to the DB
                Service-->DB: connect
            option Network timeout
                Service-->Service: Log error
            option Credentials rejected
                Service-->Service: Log different error
            end
        """,
        RenderOptions(),
    ),
    "break-rect": (
        """
        sequenceDiagram
            Consumer-->API: Book something
            API-->BookingService: Start booking process
            break when the booking process fails
                API-->Consumer: show failure
            end
            rect rgb(191, 223, 255)
                API-->BillingService: Start billing process
            end
        """,
        RenderOptions(),
    ),
    "nested": (
        """
        sequenceDiagram
            A->>B: Pre
            alt Outer
                B->>A: In0
                opt Inner
                    B->>A: In1
                    loop deeper
                        A->>A: self
                    end
                end
                B->>A: In2
            else Other
                B->>A: In3
            end
            A->>B: Post
        """,
        RenderOptions(),
    ),
    "roles": (
        """
        sequenceDiagram
            actor U as User
            participant W as Web app
            participant Q@{ "type": "queue" } as Jobs
            participant D@{ "type": "database" } as Orders
            participant C@{ "type": "collections" } as Files
            participant B@{ "type": "boundary" } as Edge
            participant K@{ "type": "control" } as Ctl
            participant E@{ "type": "entity" } as Order
            U->>W: order
            W-)Q: enqueue
            Q->>D: insert
            D->>C: attach
            C->>B: publish
            B->>K: check
            K->>E: update
        """,
        RenderOptions(),
    ),
    "wrap": (
        """
        sequenceDiagram
            participant C as A client with a name far longer than the wrap width
            C->>S: This message text is long enough that it has to wrap onto several lines
            S-->>C: short
        """,
        RenderOptions(max_label_width=20),
    ),
    "title-wide-chars": (
        """
        sequenceDiagram
            title 注文の流れ (order flow)
            participant 客 as お客様
            客->>店: 注文します
            店-->>客: ありがとうございます
        """,
        RenderOptions(),
    ),
    "ascii": (
        """
        sequenceDiagram
            actor U as User
            participant S@{ "type": "database" } as Store
            U->>+S: read
            alt found
                S-->>U: row
            else missing
                S--xU: error
                Note over U,S: retry later
            end
            U-)S: async note
            S->>-S: cleanup
        """,
        RenderOptions(ascii=True),
    ),
}


def _render(name: str) -> str:
    source, options = CASES[name]
    text = "\n".join(line.strip() for line in source.strip().splitlines())
    return render_sequence(parse_sequence(text), f"seq-{name}", options).text + "\n"


@pytest.mark.parametrize("name", sorted(CASES))
def test_golden(name: str) -> None:
    path = GOLDEN / f"seq-{name}.txt"
    actual = _render(name)
    if UPDATE:
        GOLDEN.mkdir(exist_ok=True)
        path.write_text(actual, encoding="utf-8")
    assert path.exists(), f"missing golden {path}; run with NEREID_UPDATE_GOLDEN=1"
    assert actual == path.read_text(encoding="utf-8")
