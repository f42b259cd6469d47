# Generated from openapi.yaml by clients/python/generate.py: do not edit.
# ruff: noqa

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import AnyUrl, AwareDatetime, BaseModel, ConfigDict, Field, RootModel


class AccountBalance(BaseModel):
    model_config = ConfigDict(
        extra='ignore',
    )
    account: Annotated[str, Field(examples=['wallet:pl_3f9a1c2b7d4e5f60'])]
    balance: Annotated[int, Field(examples=[100])]
    last_position: Annotated[
        int,
        Field(
            description="The position of the account's last posting at or before the point."
        ),
    ]


class AccuseAction(BaseModel):
    model_config = ConfigDict(
        extra='ignore',
    )
    seat: Annotated[int | None, Field(description='Your seat, if you name it.')] = None
    target: int
    type: Literal['accuse']


class AnnounceAction(BaseModel):
    model_config = ConfigDict(
        extra='ignore',
    )
    amount: int
    seat: Annotated[int | None, Field(description='Your seat, if you name it.')] = None
    type: Literal['announce']


class AttackAction(BaseModel):
    model_config = ConfigDict(
        extra='ignore',
    )
    card: Annotated[str, Field(examples=['7.3'])]
    seat: Annotated[int | None, Field(description='Your seat, if you name it.')] = None
    target: int
    type: Literal['attack']


class Attestation(BaseModel):
    model_config = ConfigDict(
        extra='ignore',
    )
    algorithm: Annotated[str, Field(examples=['Ed25519'])]
    key_id: Annotated[str, Field(description="The house key's id.")]
    signature: Annotated[
        str,
        Field(
            description="Base64 Ed25519 signature by the house key over the bundle's canonical JSON (sorted keys, no spaces, UTF-8) with this `signature` left out."
        ),
    ]


class Auditor(BaseModel):
    model_config = ConfigDict(
        extra='ignore',
    )
    created_at: AwareDatetime
    id: Annotated[str, Field(examples=['au_0c1d2e3f4a5b6c7d'])]
    name: Annotated[
        str | None,
        Field(description='Null for an auditor registered before names were kept.'),
    ]


class AuditorCreate(BaseModel):
    model_config = ConfigDict(
        extra='ignore',
    )
    name: Annotated[
        str,
        Field(
            description='At least one visible character; no control characters or line breaks.',
            examples=['External audit 2026'],
            max_length=100,
            min_length=1,
        ),
    ]


class AuditorCreated(BaseModel):
    model_config = ConfigDict(
        extra='ignore',
    )
    id: Annotated[str, Field(examples=['au_0c1d2e3f4a5b6c7d'])]
    name: str
    token: Annotated[str, Field(description='Shown only in this response.')]


class AuditorRegisteredData(BaseModel):
    """
    An auditor was given read access (his tokens' events follow in his stream).
    """

    model_config = ConfigDict(
        extra='ignore',
    )
    auditor_id: str
    name: Annotated[str, Field(max_length=100, min_length=1)]


class Balance(BaseModel):
    model_config = ConfigDict(
        extra='ignore',
    )
    account: Annotated[str, Field(examples=['wallet:pl_3f9a1c2b7d4e5f60'])]
    as_of_position: Annotated[
        int,
        Field(
            description='Position of the last posting applied to this account (0 when none).'
        ),
    ]
    balance: Annotated[int, Field(examples=[100])]
    player_id: Annotated[str, Field(examples=['pl_3f9a1c2b7d4e5f60'])]


class BalancesPage(BaseModel):
    model_config = ConfigDict(
        extra='ignore',
    )
    as_of: Annotated[
        dict[str, Any],
        Field(description='The point asked for: `{"position": n}` or `{"time": t}`.'),
    ]
    items: Annotated[
        list[AccountBalance],
        Field(
            description='Every account with a posting at or before the point, by name; over all pages they sum to zero (`house:issued` alone is negative).'
        ),
    ]
    next_cursor: Annotated[str | None, Field(...)]


class BetAction(BaseModel):
    model_config = ConfigDict(
        extra='ignore',
    )
    amount: int
    seat: Annotated[int | None, Field(description='Your seat, if you name it.')] = None
    type: Literal['bet']


class BetPlacedData(BaseModel):
    model_config = ConfigDict(
        extra='ignore',
    )
    amount: int
    index: int
    seat: int
    seed: Annotated[
        str | None,
        Field(
            description="Sette e mezzo: the player's own text for the shuffle, given with the bet; the deck is shuffled again with it once the bets are down (DeckShuffled)",
            max_length=200,
        ),
    ] = None
    timeout: Annotated[
        bool | None,
        Field(
            description='Placed by the betting timer: Casino pirate from rules version 3 bets `min_bet` for a player who let it run (version 2 did too, unmarked)'
        ),
    ] = None


class BuildAction(BaseModel):
    model_config = ConfigDict(
        extra='ignore',
    )
    card: str
    onto: list[str]
    seat: Annotated[int | None, Field(description='Your seat, if you name it.')] = None
    type: Literal['build']
    value: int


class BuildExtendedData(BaseModel):
    model_config = ConfigDict(
        extra='ignore',
    )
    build: str
    card: str
    seat: int
    timeout: bool
    value: int


class BuildMadeData(BaseModel):
    """
    `card` and the items `onto` became the build `build` of `value`.
    """

    model_config = ConfigDict(
        extra='ignore',
    )
    build: str
    card: str
    cards: list[str]
    onto: list[str]
    seat: int
    timeout: bool
    value: int


class BuildReservedData(BaseModel):
    model_config = ConfigDict(
        extra='ignore',
    )
    build: str
    card: str
    cards: list[str]
    onto: list[str]
    seat: int
    timeout: bool
    value: int


class BundleEvent(BaseModel):
    model_config = ConfigDict(
        extra='ignore',
    )
    canonical: Annotated[
        str | None,
        Field(
            description='The exact text the chain link hashed (UTF-8), or null when withheld from you (it holds something your seat may not see).'
        ),
    ]
    hash: Annotated[str, Field(description='The chain link, hex.')]
    position: int
    recorded_at: str
    shown: Annotated[
        dict[str, Any] | None, Field(description='A withheld event as you may see it.')
    ] = None
    stream_id: str
    type: str
    version: int


class CallAction(BaseModel):
    model_config = ConfigDict(
        extra='ignore',
    )
    seat: Annotated[int | None, Field(description='Your seat, if you name it.')] = None
    target: int
    type: Literal['call']


class CallDecidedData(BaseModel):
    """
    A called player's hand against the meneur's (totals in half-points; null: conceded unseen). A hand's replay writes each total as people read it beside it (`total_display`: "7½").
    """

    model_config = ConfigDict(
        extra='ignore',
    )
    conceded: bool
    index: int
    meneur_total: int
    meneur_total_display: str | None = None
    net: Annotated[
        int,
        Field(
            description="What the rules award the seat for this hand (its stake won or lost), before any shortfall: what was paid is in the hand's postings, and a payer's seat that could not cover it is a ShortfallRecorded event"
        ),
    ]
    outcome: Literal['lost', 'won']
    seat: int
    seven_half: bool
    stake: int
    timeout: bool
    total: Annotated[int | None, Field(...)]
    total_display: str | None = None


class CaptureAction(BaseModel):
    model_config = ConfigDict(
        extra='ignore',
    )
    card: str
    seat: Annotated[int | None, Field(description='Your seat, if you name it.')] = None
    take: Annotated[list[str], Field(description='Table item ids.')]
    type: Literal['capture']


class CardDealtData(BaseModel):
    """
    A card dealt to hand `index`: a face-down card is its holder's (and the auditors') alone.
    """

    model_config = ConfigDict(
        extra='ignore',
    )
    card: str | None = None
    face_up: bool
    index: int
    seat: int
    timeout: bool


class CardTrailedData(BaseModel):
    model_config = ConfigDict(
        extra='ignore',
    )
    card: str
    seat: int
    timeout: bool


class CardTurnedUpData(BaseModel):
    model_config = ConfigDict(
        extra='ignore',
    )
    card: str
    index: int
    seat: int
    timeout: bool


class CardsCapturedData(BaseModel):
    """
    `card` took the table's items `take` (`cards`: every card taken, the played one first).
    """

    model_config = ConfigDict(
        extra='ignore',
    )
    card: str
    cards: list[str]
    seat: int
    sweep: bool
    take: list[str]
    timeout: bool


class CardsDealtData(BaseModel):
    """
    A packet dealt face down: its receiver (and the auditors) read `cards`, the others `count`.
    """

    model_config = ConfigDict(
        extra='ignore',
    )
    cards: list[str] | None = None
    count: int | None = None
    seat: int


class CardsShownData(BaseModel):
    """
    A hand shown to everyone, with the values declared on its skeletons (card: half-points).
    """

    model_config = ConfigDict(
        extra='ignore',
    )
    cards: list[str]
    declared: dict[str, int]
    index: int
    reason: Literal['bust', 'called', 'seven_half', 'showdown']
    seat: int


class CasinoPirateTurn(BaseModel):
    model_config = ConfigDict(
        extra='ignore',
    )
    deadline: Annotated[
        AwareDatetime | None,
        Field(description='When the turn times out, once its deadline is set.'),
    ] = None
    role: Literal['player', 'banker']
    seat: int
    waiting_for: Literal['announce', 'bet', 'choose', 'play', 'bank', 'answer']


class CassinoCaptured(BaseModel):
    model_config = ConfigDict(
        extra='ignore',
    )
    cards: list[str]
    count: int
    seat: int
    sweeps: int


class CassinoCardDrawnData(BaseModel):
    """
    The stock's top card, the drawer's (and the auditors') alone.
    """

    model_config = ConfigDict(
        extra='ignore',
    )
    card: str | None = None
    seat: int


class CassinoHand(BaseModel):
    model_config = ConfigDict(
        extra='ignore',
    )
    cards: Annotated[
        list[str] | None, Field(description='Your own (auditors: all).')
    ] = None
    count: int
    seat: int


class CassinoItem(BaseModel):
    model_config = ConfigDict(
        extra='ignore',
    )
    cards: list[str]
    id: str
    kind: Literal['card', 'build']
    owner: Annotated[int | None, Field(description="A build's owner.")] = None
    reserved: bool | None = None
    value: Annotated[int | None, Field(description="A build's value.")] = None


class CassinoOptions(BaseModel):
    model_config = ConfigDict(
        extra='ignore',
    )
    stake: Annotated[int, Field(ge=0, le=1000000)] = 0
    turn_timeout_s: Annotated[int, Field(ge=5, le=3600)] = 60
    variant: Literal['classic', 'spades', 'draw'] = 'classic'


class CassinoPhase(BaseModel):
    model_config = ConfigDict(
        extra='ignore',
    )
    name: Literal['not_started', 'opening', 'playing', 'round_over']
    to_move: Annotated[int | None, Field(description='The seat to play (playing).')] = (
        None
    )
    winner: Annotated[
        int | None,
        Field(description='The side that won the game, if any (round_over).'),
    ] = None
    winning_seats: list[int] | None = None


class CassinoStock(BaseModel):
    model_config = ConfigDict(
        extra='ignore',
    )
    cards: Annotated[list[str] | None, Field(description='To auditors.')] = None
    count: int


class CassinoTurn(BaseModel):
    model_config = ConfigDict(
        extra='ignore',
    )
    deadline: Annotated[
        AwareDatetime | None,
        Field(description='When the turn times out, once its deadline is set.'),
    ] = None
    role: Literal['player']
    seat: int
    waiting_for: Literal['play']


class CassinoView(BaseModel):
    model_config = ConfigDict(
        extra='ignore',
    )
    captured: list[CassinoCaptured]
    commitment: str
    dealer: Annotated[int | None, Field(...)]
    game: Literal['cassino']
    hands: list[CassinoHand]
    last_capturer: Annotated[int | None, Field(...)]
    phase: CassinoPhase
    players: int
    pot: int
    round: int
    round_points: list[dict[str, int]]
    scores: list[int]
    stake: int
    stock: CassinoStock
    table: list[CassinoItem]
    target: int
    teams: Annotated[list[list[int]] | None, Field(...)]
    variant: Literal['classic', 'spades', 'draw']


class Cause(BaseModel):
    model_config = ConfigDict(
        extra='ignore',
    )
    actor: Annotated[str | None, Field(examples=['player:pl_0123456789abcdef'])] = None
    causation_id: str | None = None
    command: Annotated[
        dict[str, Any] | None,
        Field(
            description="The command decided: {name, seat, payload, now} for a player's or a timeout's, {name} alone for a worker's (`SettleHand`). The payload is left out for other seats and the operator when it names what its sender keeps secret (the card a Casino pirate player keeps hidden, an opening card of Pirate pairs).",
            examples=[{'name': 'Act', 'now': 1795446884.9, 'payload': {'type': 'hit'}, 'seat': 1}],
        ),
    ] = None
    correlation_id: str | None = None
    request_id: str | None = None


class ChainEvidence(BaseModel):
    model_config = ConfigDict(
        extra='ignore',
    )
    events: Annotated[int | None, Field(description='Events linked.')] = None
    head: Annotated[str | None, Field(description="The stream's head (hex).")] = None
    reason: Annotated[
        str | None, Field(description='Why it failed, and at which event.')
    ] = None
    recomputed: Annotated[
        str | None, Field(description='The hash recomputed (hex).')
    ] = None
    stored: Annotated[
        str | None, Field(description='The hash stored with the event (hex).')
    ] = None
    stream: str | None = None
    summary: str | None = None


class ChallengeAction(BaseModel):
    model_config = ConfigDict(
        extra='ignore',
    )
    seat: Annotated[int | None, Field(description='Your seat, if you name it.')] = None
    target: int
    type: Literal['challenge']


class Checkpoint(BaseModel):
    model_config = ConfigDict(
        extra='ignore',
    )
    events: Annotated[int, Field(description='Events covered.')]
    id: int
    position: Annotated[int, Field(description='Watermark: position.')]
    recorded_at: AwareDatetime
    root: Annotated[str, Field(description='Merkle root (hex) of the log.')]
    txid: Annotated[int, Field(description='Watermark: writing transaction.')]


class CheckpointList(BaseModel):
    model_config = ConfigDict(
        extra='ignore',
    )
    items: list[Checkpoint]


class ChooseAction(BaseModel):
    model_config = ConfigDict(
        extra='ignore',
    )
    card: Annotated[str, Field(examples=['7.3'])]
    seat: Annotated[int | None, Field(description='Your seat, if you name it.')] = None
    type: Literal['choose']


class CommitmentEvidence(BaseModel):
    model_config = ConfigDict(
        extra='ignore',
    )
    commitment: str | None = None
    reason: Annotated[
        str | None, Field(description='Why it failed, and at which event.')
    ] = None
    server_seed: str | None = None
    sha256_of_seed: str | None = None
    summary: str | None = None


class ConcedeAction(BaseModel):
    model_config = ConfigDict(
        extra='ignore',
    )
    seat: Annotated[int | None, Field(description='Your seat, if you name it.')] = None
    type: Literal['concede']


class Correction(BaseModel):
    model_config = ConfigDict(
        extra='ignore',
    )
    amount: Annotated[int, Field(examples=[10], ge=1, le=1000000000000000)]
    from_: Annotated[
        str,
        Field(
            alias='from',
            description='Who pays: a player of the hand (his wallet) or `house`.',
            examples=['house'],
            max_length=100,
            min_length=1,
        ),
    ]
    to: Annotated[
        str,
        Field(
            description='Who is paid: a player of the hand (his wallet) or `house`.',
            examples=['pl_0123456789abcdef'],
            max_length=100,
            min_length=1,
        ),
    ]


class CorrectionPosted(BaseModel):
    model_config = ConfigDict(
        extra='ignore',
    )
    amount: int
    from_: Annotated[str, Field(alias='from', examples=['house:issued'])]
    position: Annotated[
        int, Field(description="The posting's place in the log (GET /v1/feed).")
    ]
    reason: Annotated[str, Field(examples=['dispute_correction:dp_3f9a1c2b7d4e5f60'])]
    to: Annotated[str, Field(examples=['wallet:pl_0123456789abcdef'])]


class DeadlineSetData(BaseModel):
    """
    The turn in play and when it times out (seconds since the epoch).
    """

    model_config = ConfigDict(
        extra='ignore',
    )
    deadline: Annotated[
        float, Field(ge=-1.7976931348623157e+308, le=1.7976931348623157e+308)
    ]
    hand: str
    seat: int
    waiting_for: str


class DealerChosenData(BaseModel):
    model_config = ConfigDict(
        extra='ignore',
    )
    dealer: int
    how: Literal['drawn', 'passed_left']


class DealtEvidence(BaseModel):
    model_config = ConfigDict(
        extra='ignore',
    )
    cards_checked: int | None = None
    counted: Annotated[
        dict[str, int] | None,
        Field(
            description='Cards checked by where they were drawn from (deck, reshuffled, dealer_draw).'
        ),
    ] = None
    dealt: Annotated[
        Any | None, Field(description='The card or cards the event recorded.')
    ] = None
    expected: Annotated[
        Any | None, Field(description='The card or cards of the shuffle.')
    ] = None
    reason: Annotated[
        str | None, Field(description='Why it failed, and at which event.')
    ] = None
    summary: str | None = None


class DeckShuffledData(BaseModel):
    """
    Sette e mezzo, once the bets are down when a bet carried a seed: the deck shuffled again from the server seed and every player seed (the joins' in seat order, then the bets' in the order they were placed), the cards to come off it. Both are the auditors' alone, as HandStarted's are.
    """

    model_config = ConfigDict(
        extra='ignore',
    )
    deck: list[str] | None = None
    player_seeds: list[str] | None = None


class DeclareAction(BaseModel):
    model_config = ConfigDict(
        extra='ignore',
    )
    card: str
    seat: Annotated[int | None, Field(description='Your seat, if you name it.')] = None
    type: Literal['declare']
    value: int


class DiscardsReshuffledData(BaseModel):
    """
    The discards became pile number `reshuffle`, its order the auditors' alone.
    """

    model_config = ConfigDict(
        extra='ignore',
    )
    count: int
    pile: list[str] | None = None
    reshuffle: int


class DisputeEvidenceAttachedData(BaseModel):
    """
    A note of evidence attached to an open dispute, and who attached it.
    """

    model_config = ConfigDict(
        extra='ignore',
    )
    actor: str
    attached_by: Literal['auditor', 'operator', 'player']
    dispute_id: str
    hand_id: str
    note: Annotated[str, Field(max_length=2000, min_length=1)]


class DisputeOpen(BaseModel):
    model_config = ConfigDict(
        extra='ignore',
    )
    hand_id: Annotated[
        str, Field(examples=['hd_5d1f0a9b2c3e4f67'], max_length=100, min_length=1)
    ]
    reason: Annotated[
        str,
        Field(
            description='Why the hand is disputed (a player disputes only a hand he played).',
            max_length=2000,
            min_length=1,
        ),
    ]


class DisputeOpenedData(BaseModel):
    """
    A dispute on a hand: who opened it (a player of the hand, an auditor or the operator), why, and the hand's players, who may read it.
    """

    model_config = ConfigDict(
        extra='ignore',
    )
    actor: str
    dispute_id: str
    hand_id: str
    opened_by: Literal['auditor', 'operator', 'player']
    players: list[str]
    reason: Annotated[str, Field(max_length=2000, min_length=1)]
    table_id: str


class DisputePosting(BaseModel):
    model_config = ConfigDict(
        extra='ignore',
    )
    amount: int
    from_: Annotated[str, Field(alias='from', examples=['house:issued'])]
    reason: Annotated[str, Field(examples=['dispute_correction:dp_3f9a1c2b7d4e5f60'])]
    to: Annotated[str, Field(examples=['wallet:pl_0123456789abcdef'])]


class DisputeReadjudicatedData(BaseModel):
    """
    The hand replayed under `rules_version` (the hand's own is `hand_rules_version`): how many of its engine events and postings differ, the command the engine refused if one, and each posting that differs (money only: the events' differences, which may hold hidden cards, are worked out again when shown, for each reader).
    """

    model_config = ConfigDict(
        extra='ignore',
    )
    actor: str
    dispute_id: str
    events_differing: Annotated[int, Field(ge=0)]
    hand_id: str
    hand_rules_version: Annotated[int, Field(ge=1)]
    matches: bool
    postings: list[dict[str, Any]]
    postings_differing: Annotated[int, Field(ge=0)]
    refused: Annotated[str | None, Field(...)]
    rules_version: Annotated[int, Field(ge=1)]


class DisputeRejectedData(BaseModel):
    """
    The dispute closed with nothing paid, and why.
    """

    model_config = ConfigDict(
        extra='ignore',
    )
    actor: str
    dispute_id: str
    hand_id: str
    note: Annotated[str, Field(max_length=2000, min_length=1)]


class DisputeResolvedData(BaseModel):
    """
    The dispute closed with corrective postings: the TreasurePosted events that follow it in the dispute's stream, each one of `postings`, naming the dispute in its reason.
    """

    model_config = ConfigDict(
        extra='ignore',
    )
    actor: str
    dispute_id: str
    hand_id: str
    note: Annotated[str, Field(max_length=2000, min_length=1)]
    postings: list[dict[str, Any]]
    table_id: str


class DoubleEntryEvidence(BaseModel):
    model_config = ConfigDict(
        extra='ignore',
    )
    flows: dict[str, int] | None = None
    net: Annotated[
        int | None, Field(description="The sum of every account's flow: 0.")
    ] = None
    posting: Any | None = None
    postings: int | None = None
    reason: Annotated[
        str | None, Field(description='Why it failed, and at which event.')
    ] = None
    summary: str | None = None


class DrawAction(BaseModel):
    model_config = ConfigDict(
        extra='ignore',
    )
    seat: Annotated[int | None, Field(description='Your seat, if you name it.')] = None
    type: Literal['draw']


class Drift(BaseModel):
    model_config = ConfigDict(
        extra='ignore',
    )
    account: str
    from_log: Annotated[int, Field(description="Its postings' sum in the log.")]
    projected: Annotated[int, Field(description='Its balance as projected.')]


class EventRef(BaseModel):
    model_config = ConfigDict(
        extra='ignore',
    )
    stream: str
    version: int


class EvidenceAttach(BaseModel):
    model_config = ConfigDict(
        extra='ignore',
    )
    note: Annotated[
        str,
        Field(
            description="What is attached: a description, a reference, a transcript's excerpt.",
            max_length=2000,
            min_length=1,
        ),
    ]


class EvidenceShown(BaseModel):
    model_config = ConfigDict(
        extra='ignore',
    )
    attached_at: AwareDatetime
    attached_by: Literal['player', 'auditor', 'operator']
    note: str


class ExtendAction(BaseModel):
    model_config = ConfigDict(
        extra='ignore',
    )
    build: str
    card: str
    seat: Annotated[int | None, Field(description='Your seat, if you name it.')] = None
    type: Literal['extend']
    value: int


class FailedJob(BaseModel):
    model_config = ConfigDict(
        extra='ignore',
    )
    call: Annotated[str, Field(examples=['workers.jobs.check_ledger()'])]
    error: Annotated[str, Field(description='The last line of its error.')]
    id: str
    queue: Annotated[
        str,
        Field(
            description="The queue it failed on: the queue's own, or its webhooks' lane.",
            examples=['banco'],
        ),
    ]


class FeedEventAuditorRegistered(BaseModel):
    model_config = ConfigDict(
        extra='ignore',
    )
    data: AuditorRegisteredData
    hand: str | None = None
    position: Annotated[
        int,
        Field(
            description="The event's position in the log: pass it as `after` to go on from it."
        ),
    ]
    recorded_at: str
    stream: Annotated[str, Field(examples=['table-tb_3f9a1c2b7d4e5f60'])]
    type: Annotated[Literal['AuditorRegistered'], Field(examples=['AuditorRegistered'])]
    version: Annotated[int, Field(description='Its version in its stream.')]


class FeedEventDeadlineSet(BaseModel):
    model_config = ConfigDict(
        extra='ignore',
    )
    data: DeadlineSetData
    hand: str | None = None
    position: Annotated[
        int,
        Field(
            description="The event's position in the log: pass it as `after` to go on from it."
        ),
    ]
    recorded_at: str
    stream: Annotated[str, Field(examples=['table-tb_3f9a1c2b7d4e5f60'])]
    type: Annotated[Literal['DeadlineSet'], Field(examples=['DeadlineSet'])]
    version: Annotated[int, Field(description='Its version in its stream.')]


class FeedEventDisputeEvidenceAttached(BaseModel):
    model_config = ConfigDict(
        extra='ignore',
    )
    data: DisputeEvidenceAttachedData
    hand: str | None = None
    position: Annotated[
        int,
        Field(
            description="The event's position in the log: pass it as `after` to go on from it."
        ),
    ]
    recorded_at: str
    stream: Annotated[str, Field(examples=['table-tb_3f9a1c2b7d4e5f60'])]
    type: Annotated[
        Literal['DisputeEvidenceAttached'], Field(examples=['DisputeEvidenceAttached'])
    ]
    version: Annotated[int, Field(description='Its version in its stream.')]


class FeedEventDisputeOpened(BaseModel):
    model_config = ConfigDict(
        extra='ignore',
    )
    data: DisputeOpenedData
    hand: str | None = None
    position: Annotated[
        int,
        Field(
            description="The event's position in the log: pass it as `after` to go on from it."
        ),
    ]
    recorded_at: str
    stream: Annotated[str, Field(examples=['table-tb_3f9a1c2b7d4e5f60'])]
    type: Annotated[Literal['DisputeOpened'], Field(examples=['DisputeOpened'])]
    version: Annotated[int, Field(description='Its version in its stream.')]


class FeedEventDisputeReadjudicated(BaseModel):
    model_config = ConfigDict(
        extra='ignore',
    )
    data: DisputeReadjudicatedData
    hand: str | None = None
    position: Annotated[
        int,
        Field(
            description="The event's position in the log: pass it as `after` to go on from it."
        ),
    ]
    recorded_at: str
    stream: Annotated[str, Field(examples=['table-tb_3f9a1c2b7d4e5f60'])]
    type: Annotated[
        Literal['DisputeReadjudicated'], Field(examples=['DisputeReadjudicated'])
    ]
    version: Annotated[int, Field(description='Its version in its stream.')]


class FeedEventDisputeRejected(BaseModel):
    model_config = ConfigDict(
        extra='ignore',
    )
    data: DisputeRejectedData
    hand: str | None = None
    position: Annotated[
        int,
        Field(
            description="The event's position in the log: pass it as `after` to go on from it."
        ),
    ]
    recorded_at: str
    stream: Annotated[str, Field(examples=['table-tb_3f9a1c2b7d4e5f60'])]
    type: Annotated[Literal['DisputeRejected'], Field(examples=['DisputeRejected'])]
    version: Annotated[int, Field(description='Its version in its stream.')]


class FeedEventDisputeResolved(BaseModel):
    model_config = ConfigDict(
        extra='ignore',
    )
    data: DisputeResolvedData
    hand: str | None = None
    position: Annotated[
        int,
        Field(
            description="The event's position in the log: pass it as `after` to go on from it."
        ),
    ]
    recorded_at: str
    stream: Annotated[str, Field(examples=['table-tb_3f9a1c2b7d4e5f60'])]
    type: Annotated[Literal['DisputeResolved'], Field(examples=['DisputeResolved'])]
    version: Annotated[int, Field(description='Its version in its stream.')]


class FeedEventGameBetPlaced(BaseModel):
    model_config = ConfigDict(
        extra='ignore',
    )
    data: BetPlacedData
    hand: str | None = None
    position: Annotated[
        int,
        Field(
            description="The event's position in the log: pass it as `after` to go on from it."
        ),
    ]
    recorded_at: str
    stream: Annotated[str, Field(examples=['table-tb_3f9a1c2b7d4e5f60'])]
    type: Annotated[Literal['game.BetPlaced'], Field(examples=['game.BetPlaced'])]
    version: Annotated[int, Field(description='Its version in its stream.')]


class FeedEventGameBuildExtended(BaseModel):
    model_config = ConfigDict(
        extra='ignore',
    )
    data: BuildExtendedData
    hand: str | None = None
    position: Annotated[
        int,
        Field(
            description="The event's position in the log: pass it as `after` to go on from it."
        ),
    ]
    recorded_at: str
    stream: Annotated[str, Field(examples=['table-tb_3f9a1c2b7d4e5f60'])]
    type: Annotated[
        Literal['game.BuildExtended'], Field(examples=['game.BuildExtended'])
    ]
    version: Annotated[int, Field(description='Its version in its stream.')]


class FeedEventGameBuildMade(BaseModel):
    model_config = ConfigDict(
        extra='ignore',
    )
    data: BuildMadeData
    hand: str | None = None
    position: Annotated[
        int,
        Field(
            description="The event's position in the log: pass it as `after` to go on from it."
        ),
    ]
    recorded_at: str
    stream: Annotated[str, Field(examples=['table-tb_3f9a1c2b7d4e5f60'])]
    type: Annotated[Literal['game.BuildMade'], Field(examples=['game.BuildMade'])]
    version: Annotated[int, Field(description='Its version in its stream.')]


class FeedEventGameBuildReserved(BaseModel):
    model_config = ConfigDict(
        extra='ignore',
    )
    data: BuildReservedData
    hand: str | None = None
    position: Annotated[
        int,
        Field(
            description="The event's position in the log: pass it as `after` to go on from it."
        ),
    ]
    recorded_at: str
    stream: Annotated[str, Field(examples=['table-tb_3f9a1c2b7d4e5f60'])]
    type: Annotated[
        Literal['game.BuildReserved'], Field(examples=['game.BuildReserved'])
    ]
    version: Annotated[int, Field(description='Its version in its stream.')]


class FeedEventGameCallDecided(BaseModel):
    model_config = ConfigDict(
        extra='ignore',
    )
    data: CallDecidedData
    hand: str | None = None
    position: Annotated[
        int,
        Field(
            description="The event's position in the log: pass it as `after` to go on from it."
        ),
    ]
    recorded_at: str
    stream: Annotated[str, Field(examples=['table-tb_3f9a1c2b7d4e5f60'])]
    type: Annotated[Literal['game.CallDecided'], Field(examples=['game.CallDecided'])]
    version: Annotated[int, Field(description='Its version in its stream.')]


class FeedEventGameCardDealt(BaseModel):
    model_config = ConfigDict(
        extra='ignore',
    )
    data: CardDealtData
    hand: str | None = None
    position: Annotated[
        int,
        Field(
            description="The event's position in the log: pass it as `after` to go on from it."
        ),
    ]
    recorded_at: str
    stream: Annotated[str, Field(examples=['table-tb_3f9a1c2b7d4e5f60'])]
    type: Annotated[Literal['game.CardDealt'], Field(examples=['game.CardDealt'])]
    version: Annotated[int, Field(description='Its version in its stream.')]


class FeedEventGameCardTrailed(BaseModel):
    model_config = ConfigDict(
        extra='ignore',
    )
    data: CardTrailedData
    hand: str | None = None
    position: Annotated[
        int,
        Field(
            description="The event's position in the log: pass it as `after` to go on from it."
        ),
    ]
    recorded_at: str
    stream: Annotated[str, Field(examples=['table-tb_3f9a1c2b7d4e5f60'])]
    type: Annotated[Literal['game.CardTrailed'], Field(examples=['game.CardTrailed'])]
    version: Annotated[int, Field(description='Its version in its stream.')]


class FeedEventGameCardTurnedUp(BaseModel):
    model_config = ConfigDict(
        extra='ignore',
    )
    data: CardTurnedUpData
    hand: str | None = None
    position: Annotated[
        int,
        Field(
            description="The event's position in the log: pass it as `after` to go on from it."
        ),
    ]
    recorded_at: str
    stream: Annotated[str, Field(examples=['table-tb_3f9a1c2b7d4e5f60'])]
    type: Annotated[Literal['game.CardTurnedUp'], Field(examples=['game.CardTurnedUp'])]
    version: Annotated[int, Field(description='Its version in its stream.')]


class FeedEventGameCardsCaptured(BaseModel):
    model_config = ConfigDict(
        extra='ignore',
    )
    data: CardsCapturedData
    hand: str | None = None
    position: Annotated[
        int,
        Field(
            description="The event's position in the log: pass it as `after` to go on from it."
        ),
    ]
    recorded_at: str
    stream: Annotated[str, Field(examples=['table-tb_3f9a1c2b7d4e5f60'])]
    type: Annotated[
        Literal['game.CardsCaptured'], Field(examples=['game.CardsCaptured'])
    ]
    version: Annotated[int, Field(description='Its version in its stream.')]


class FeedEventGameCardsDealt(BaseModel):
    model_config = ConfigDict(
        extra='ignore',
    )
    data: CardsDealtData
    hand: str | None = None
    position: Annotated[
        int,
        Field(
            description="The event's position in the log: pass it as `after` to go on from it."
        ),
    ]
    recorded_at: str
    stream: Annotated[str, Field(examples=['table-tb_3f9a1c2b7d4e5f60'])]
    type: Annotated[Literal['game.CardsDealt'], Field(examples=['game.CardsDealt'])]
    version: Annotated[int, Field(description='Its version in its stream.')]


class FeedEventGameCardsShown(BaseModel):
    model_config = ConfigDict(
        extra='ignore',
    )
    data: CardsShownData
    hand: str | None = None
    position: Annotated[
        int,
        Field(
            description="The event's position in the log: pass it as `after` to go on from it."
        ),
    ]
    recorded_at: str
    stream: Annotated[str, Field(examples=['table-tb_3f9a1c2b7d4e5f60'])]
    type: Annotated[Literal['game.CardsShown'], Field(examples=['game.CardsShown'])]
    version: Annotated[int, Field(description='Its version in its stream.')]


class FeedEventGameDealerChosen(BaseModel):
    model_config = ConfigDict(
        extra='ignore',
    )
    data: DealerChosenData
    hand: str | None = None
    position: Annotated[
        int,
        Field(
            description="The event's position in the log: pass it as `after` to go on from it."
        ),
    ]
    recorded_at: str
    stream: Annotated[str, Field(examples=['table-tb_3f9a1c2b7d4e5f60'])]
    type: Annotated[Literal['game.DealerChosen'], Field(examples=['game.DealerChosen'])]
    version: Annotated[int, Field(description='Its version in its stream.')]


class FeedEventGameDeckShuffled(BaseModel):
    model_config = ConfigDict(
        extra='ignore',
    )
    data: DeckShuffledData
    hand: str | None = None
    position: Annotated[
        int,
        Field(
            description="The event's position in the log: pass it as `after` to go on from it."
        ),
    ]
    recorded_at: str
    stream: Annotated[str, Field(examples=['table-tb_3f9a1c2b7d4e5f60'])]
    type: Annotated[Literal['game.DeckShuffled'], Field(examples=['game.DeckShuffled'])]
    version: Annotated[int, Field(description='Its version in its stream.')]


class FeedEventGameDiscardsReshuffled(BaseModel):
    model_config = ConfigDict(
        extra='ignore',
    )
    data: DiscardsReshuffledData
    hand: str | None = None
    position: Annotated[
        int,
        Field(
            description="The event's position in the log: pass it as `after` to go on from it."
        ),
    ]
    recorded_at: str
    stream: Annotated[str, Field(examples=['table-tb_3f9a1c2b7d4e5f60'])]
    type: Annotated[
        Literal['game.DiscardsReshuffled'], Field(examples=['game.DiscardsReshuffled'])
    ]
    version: Annotated[int, Field(description='Its version in its stream.')]


class Game(BaseModel):
    model_config = ConfigDict(
        extra='ignore',
    )
    max_players: Annotated[int, Field(examples=[12])]
    min_players: Annotated[int, Field(examples=[2])]
    name: Annotated[str, Field(examples=['sette-e-mezzo'])]
    options: Annotated[
        dict[str, Any],
        Field(description='The table options: each with its type, default and limits.'),
    ]
    rules_source: Annotated[
        str,
        Field(
            description="The path of the game's rules page (text/markdown, no token needed).",
            examples=['/v1/games/sette-e-mezzo/rules'],
        ),
    ]
    rules_version: Annotated[
        int,
        Field(
            description='The current rules version: new tables play it; a table keeps the version it was created with.',
            examples=[1],
        ),
    ]
    rules_versions: Annotated[
        list[int],
        Field(
            description='Every rules version still served (tables created under each play on and their hands are verified with it), oldest first.',
            examples=[[1]],
        ),
    ]
    title: Annotated[str, Field(examples=['Sette e mezzo'])]
    variant_options: Annotated[
        dict[str, dict[str, Any]],
        Field(
            description='The table options each variant stands for: a table created with the variant plays with them, and its options may repeat them.',
            examples=[{'banker:lot': {'banker': 'lot'}, 'banker:seat0': {'banker': 'seat0'}}],
        ),
    ]
    variants: Annotated[
        list[str],
        Field(
            description='Each is taken as `variant` when creating a table.',
            examples=[['banker:seat0', 'banker:lot']],
        ),
    ]


class GameWonData(BaseModel):
    model_config = ConfigDict(
        extra='ignore',
    )
    pot: int
    seat: int


class HandBeganData(BaseModel):
    model_config = ConfigDict(
        extra='ignore',
    )
    commitment: str
    hand_id: str
    number: int
    seats: list[dict[str, Any]]


class HandDispute(BaseModel):
    model_config = ConfigDict(
        extra='ignore',
    )
    closed_at: Annotated[AwareDatetime | None, Field(...)]
    corrections: list[CorrectionPosted]
    id: Annotated[str, Field(examples=['dp_3f9a1c2b7d4e5f60'])]
    opened_at: AwareDatetime
    status: Literal['open', 'resolved', 'rejected']


class HandPosting(BaseModel):
    model_config = ConfigDict(
        extra='ignore',
    )
    amount: int
    from_: Annotated[
        str,
        Field(
            alias='from', examples=['escrow:tb_5c1e0a9b3d2f4e61:hd_0a1b2c3d4e5f6071']
        ),
    ]
    reason: str
    to: str


class HandRef(BaseModel):
    model_config = ConfigDict(
        extra='ignore',
    )
    id: Annotated[str, Field(examples=['hd_0a1b2c3d4e5f6071'])]
    number: int
    status: Annotated[
        Literal['playing', 'settling', 'settled'], Field(examples=['playing'])
    ]


class HandResultData(BaseModel):
    """
    One hand's result (index -1: the banker's own, with `banker`); totals in half-points, null for a bank never turned up, and as people read them beside them in a hand's replay. A called hand's result is its `CallDecided`.
    """

    model_config = ConfigDict(
        extra='ignore',
    )
    banker: bool | None = None
    conceded: bool | None = None
    index: int
    meneur_total: int | None = None
    meneur_total_display: str | None = None
    net: Annotated[
        int | None,
        Field(
            description="What the rules award the seat for this hand (its stake won or lost), before any shortfall: what was paid is in the hand's postings, and a payer's seat that could not cover it is a ShortfallRecorded event"
        ),
    ] = None
    outcome: Literal['bust', 'lost', 'won'] | None = None
    seat: int
    seven_half: bool | None = None
    stake: int | None = None
    timeout: bool | None = None
    total: int | None = None
    total_display: str | None = None
    uncalled: bool | None = None


class HandSeat(BaseModel):
    model_config = ConfigDict(
        extra='ignore',
    )
    age: int | None = None
    name: Annotated[
        str | None,
        Field(
            description="The player's name; null once he is erased.", examples=['Ada']
        ),
    ]
    player_id: str
    seat: int
    seed: Annotated[
        str | None,
        Field(
            description="The player's own text mixed into the shuffle, if he gave one."
        ),
    ] = None


class HandSeatData(BaseModel):
    """
    A seat as the hand opened: its balance at the table and its player's age, if given.
    """

    model_config = ConfigDict(
        extra='ignore',
    )
    age: Annotated[int | None, Field(...)]
    balance: int
    seat: int


class HandSettledData(BaseModel):
    model_config = ConfigDict(
        extra='ignore',
    )
    hand_id: str
    postings: list[dict[str, Any]]


class HandSplitData(BaseModel):
    model_config = ConfigDict(
        extra='ignore',
    )
    amount: int
    card: str
    index: int
    new_index: int
    seat: int


class HandStartedData(BaseModel):
    """
    The hand opened: the seeds and the deck's order are the auditors' alone.
    """

    model_config = ConfigDict(
        extra='ignore',
    )
    banker: int
    commitment: str
    deck: list[str] | None = None
    game: str
    options: dict[str, Any]
    order: list[int]
    player_seeds: list[str] | None = None
    seats: list[HandSeatData]
    server_seed: str | None = None
    started_at: float
    table_started_at: float


class Health(BaseModel):
    model_config = ConfigDict(
        extra='ignore',
    )
    status: Annotated[str, Field(examples=['ok'])]


class HideAction(BaseModel):
    model_config = ConfigDict(
        extra='ignore',
    )
    card: str
    seat: Annotated[int | None, Field(description='Your seat, if you name it.')] = None
    type: Literal['hide']


class HistoryRow(BaseModel):
    model_config = ConfigDict(
        extra='ignore',
    )
    account: str
    amount: Annotated[int, Field(description='Signed: negative when paid out.')]
    balance_after: int
    counterparty: str
    hand: str | None = None
    position: int
    reason: str
    recorded_at: AwareDatetime
    table: str | None = None


class HitAction(BaseModel):
    model_config = ConfigDict(
        extra='ignore',
    )
    seat: Annotated[int | None, Field(description='Your seat, if you name it.')] = None
    type: Literal['hit']


class HouseKey(BaseModel):
    model_config = ConfigDict(
        extra='ignore',
    )
    algorithm: Annotated[str, Field(examples=['Ed25519'])]
    key_id: str
    public_key: Annotated[str, Field(description='Base64, 32 bytes.')]
    public_key_pem: str


class InclusionProof(BaseModel):
    model_config = ConfigDict(
        extra='ignore',
    )
    leaf_index: int
    path: Annotated[
        list[str], Field(description='RFC 9162 audit path, leaf to root, hex.')
    ]
    tree_size: int
    version: Annotated[
        int | None,
        Field(
            description="The version of the event proved: `last_event`'s is the last event the bundle gives whole (every event after it is withheld). Absent in banco-evidence/1 bundles, whose last event is the one proved."
        ),
    ] = None


class Join(BaseModel):
    model_config = ConfigDict(
        extra='ignore',
    )
    age: Annotated[int | None, Field(ge=0, le=150)] = None
    buy_in: Annotated[
        int | None,
        Field(
            description="Treasure moved from your wallet to the seat (Casino pirate: exactly the table's buy_in, the default; another amount is a 422 buy_in_fixed). Pirate pairs and Cassino: at least the table's stake, less is a 422 buy_in_too_low naming min_buy_in.",
            ge=1,
            le=1000000000,
        ),
    ] = None
    seed: Annotated[
        str | None,
        Field(
            description='Your own text mixed into every shuffle. It is shown to the table once a hand settles and kept in clear for its verification, even after an erasure: put nothing personal in it.',
            max_length=200,
        ),
    ] = None


class Key(BaseModel):
    model_config = ConfigDict(
        extra='ignore',
    )
    created_at: AwareDatetime
    expires_at: Annotated[AwareDatetime | None, Field(...)]
    id: Annotated[str, Field(examples=['ok_3f9a1c2b7d4e5f60'])]
    name: str
    revoked_at: Annotated[AwareDatetime | None, Field(...)]
    rotated_at: Annotated[
        AwareDatetime | None,
        Field(description='When its secret was last replaced (null: never).'),
    ]
    scopes: list[str]
    status: Literal['active', 'expired', 'revoked']


class KeyCreate(BaseModel):
    model_config = ConfigDict(
        extra='ignore',
    )
    expires_at: Annotated[
        AwareDatetime | None,
        Field(
            description='When the key stops working, with its offset (never when absent): in the future, at most ten years away.',
            examples=['2027-01-31T00:00:00Z'],
        ),
    ] = None
    name: Annotated[
        str,
        Field(
            description='Whose or what the key is for, as the list shows it. At least one visible character; no control characters or line breaks.',
            examples=['cashier desk 2'],
            max_length=100,
            min_length=1,
        ),
    ]
    scopes: Annotated[
        list[Literal['players:read', 'players:write', 'treasure:read', 'treasure:write', 'tables:read', 'tables:write', 'auditors:admin', 'audit:read', 'audit:write', 'disputes:read', 'disputes:write', 'webhooks:admin', 'metrics:read', 'jobs:read', 'jobs:admin', 'keys:admin']],
        Field(
            description='What the key may do: each operator route needs one scope (its operation says which, `x-banco-scope`); a key grants only scopes it holds.',
            examples=[['players:read', 'treasure:write']],
            max_length=16,
            min_length=1,
        ),
    ]


class KeyIssued(BaseModel):
    model_config = ConfigDict(
        extra='ignore',
    )
    key: Key
    secret: Annotated[
        str,
        Field(
            description='The key, to send as `Authorization: Bearer <secret>`: shown only in this answer (Banco keeps only its hash).',
            examples=['bok_Vb2mN0yJ5qD7wXcRzLk4sT1hA9eUfP3gI6oB8nM2vC0'],
        ),
    ]


class Left(BaseModel):
    model_config = ConfigDict(
        extra='ignore',
    )
    cash_out: int
    player_id: str


class LeftoversTakenData(BaseModel):
    model_config = ConfigDict(
        extra='ignore',
    )
    cards: list[str]
    seat: int


class Me(BaseModel):
    model_config = ConfigDict(
        extra='ignore',
    )
    id: Annotated[
        str,
        Field(
            description="The player's or auditor's id; for the operator, his key's id, or `operator` with the bootstrap key.",
            examples=['pl_3f9a1c2b7d4e5f60'],
        ),
    ]
    key_id: Annotated[
        str | None,
        Field(
            description='The id of the token or key sent (`tk_...`, `ok_...`, `bootstrap`): what log lines and events name it by. Never the secret.',
            examples=['tk_3f9a1c2b7d4e5f60'],
        ),
    ]
    name: Annotated[
        str | None,
        Field(
            description="The player's or auditor's name, or the operator key's; null for the bootstrap key (and for an auditor registered before names were kept).",
            examples=['Ada'],
        ),
    ]
    role: Annotated[
        Literal['operator', 'auditor', 'player'], Field(examples=['player'])
    ]
    scopes: Annotated[
        list[str],
        Field(
            description="What the operator's key may do (every scope for the bootstrap key); empty for players and auditors, whose role decides.",
            examples=[[]],
        ),
    ]


class NetDifference(BaseModel):
    model_config = ConfigDict(
        extra='ignore',
    )
    account: str
    difference: Annotated[
        int,
        Field(description='What the replay would have moved more (negative: less).'),
    ]
    recorded: Annotated[
        int,
        Field(description="What the account's differing postings moved as recorded."),
    ]
    replayed: int


class NoNegativeEvidence(BaseModel):
    model_config = ConfigDict(
        extra='ignore',
    )
    account: str | None = None
    accounts: list[str] | None = None
    balance: int | None = None
    reason: Annotated[
        str | None, Field(description='Why it failed, and at which event.')
    ] = None
    summary: str | None = None


class OpeningCardChosenData(BaseModel):
    model_config = ConfigDict(
        extra='ignore',
    )
    card: str | None = None
    seat: int
    timeout: bool | None = None


class OpeningSeatData(BaseModel):
    model_config = ConfigDict(
        extra='ignore',
    )
    age: Annotated[int | None, Field(...)]
    seat: int


class OperatorKeyChangedData(BaseModel):
    """
    A scoped API key's secret replaced (rotated) or the key revoked, and who did it.
    """

    model_config = ConfigDict(
        extra='ignore',
    )
    actor: str
    key_id: str


class OperatorKeyCreatedData(BaseModel):
    """
    The operator made a scoped API key: its id, name, scopes and expiry (ISO 8601, or none), and who made it; never the key nor its hash.
    """

    model_config = ConfigDict(
        extra='ignore',
    )
    actor: str
    expires_at: Annotated[str | None, Field(...)]
    key_id: str
    name: Annotated[str, Field(max_length=100, min_length=1)]
    scopes: list[str]


class OrderEvidence(BaseModel):
    model_config = ConfigDict(
        extra='ignore',
    )
    cards: int | None = None
    position: Annotated[
        int | None, Field(description='Where the orders first differ.')
    ] = None
    reason: Annotated[
        str | None, Field(description='Why it failed, and at which event.')
    ] = None
    recomputed: list[str] | None = None
    recorded: list[str] | None = None
    summary: str | None = None


class PirateOptions(BaseModel):
    model_config = ConfigDict(
        extra='ignore',
    )
    banker_stand_at: Annotated[int, Field(ge=1, le=7)] = 5
    banker_timeout_s: Annotated[int, Field(ge=1, le=86400)] = 60
    buy_in: Annotated[int, Field(ge=1, le=1000000000)] = 10
    duration_s: Annotated[int | None, Field(ge=1, le=2592000)] = None
    gems: Annotated[int, Field(ge=1, le=8)] = 4
    gold_coins: Annotated[int, Field(ge=0, le=16)] = 8
    max_bet: Annotated[int, Field(ge=1, le=1000000000)] = 2
    min_bet: Annotated[int, Field(ge=1, le=1000000000)] = 1
    pebbles: Annotated[int, Field(ge=0, le=16)] = 4
    skeletons: Annotated[int, Field(ge=0, le=8)] = 2
    turn_timeout_s: Annotated[int, Field(ge=1, le=86400)] = 30


class PiratePairsCardDrawnData(BaseModel):
    model_config = ConfigDict(
        extra='ignore',
    )
    card: str | None = None
    seat: int
    timeout: bool | None = None


class PiratePairsOptions(BaseModel):
    model_config = ConfigDict(
        extra='ignore',
    )
    stake: Annotated[int, Field(ge=0, le=1000000)] = 0
    turn_timeout_s: Annotated[int, Field(ge=1, le=86400)] = 60


class PiratePairsPhase(BaseModel):
    model_config = ConfigDict(
        extra='ignore',
    )
    deadline: Annotated[
        float | None, Field(description='When the turn times out (choosing, playing).')
    ] = None
    name: Literal['not_opened', 'choosing', 'playing', 'finished']
    turn: Annotated[int | None, Field(description='The seat to play (playing).')] = None
    winner: Annotated[
        int | None, Field(description='The last pirate in (finished).')
    ] = None


class PiratePairsPlayer(BaseModel):
    model_config = ConfigDict(
        extra='ignore',
    )
    age: Annotated[int | None, Field(...)]
    chosen: Annotated[
        str | None, Field(description='Your own opening choice, once made.')
    ] = None
    hand: Annotated[
        list[str] | None, Field(description='Your own hand (auditors: all).')
    ] = None
    hand_count: int
    has_chosen: Annotated[
        bool | None, Field(description='During the opening choice.')
    ] = None
    in_: Annotated[bool, Field(alias='in')]
    row: Annotated[list[str], Field(description='Face up.')]
    seat: int


class PiratePairsTurn(BaseModel):
    model_config = ConfigDict(
        extra='ignore',
    )
    deadline: Annotated[
        AwareDatetime | None,
        Field(description='When the turn times out, once its deadline is set.'),
    ] = None
    role: Literal['player']
    seat: int
    waiting_for: Literal['choose', 'play']


class PiratePairsTurnPassedData(BaseModel):
    model_config = ConfigDict(
        extra='ignore',
    )
    at: float
    seat: int


class PiratePairsView(BaseModel):
    model_config = ConfigDict(
        extra='ignore',
    )
    commitment: str
    discards: list[str]
    game: Literal['pirate-pairs']
    phase: PiratePairsPhase
    pile: Annotated[
        list[str] | None, Field(description="The pile's order, to auditors.")
    ] = None
    pile_count: int
    players: list[PiratePairsPlayer]
    pot: int
    reshuffles: int
    stake: int
    turn_timeout_s: int


class Player(BaseModel):
    model_config = ConfigDict(
        extra='ignore',
    )
    created_at: AwareDatetime
    erased: Annotated[
        bool,
        Field(
            description='His personal data was erased (`POST /v1/players/{id}/erasure`): his name can no longer be read, anywhere.',
            examples=[False],
        ),
    ]
    id: Annotated[str, Field(examples=['pl_3f9a1c2b7d4e5f60'])]
    name: Annotated[
        str | None,
        Field(description='Null once the player was erased.', examples=['Ada']),
    ]


class PlayerAccusedData(BaseModel):
    """
    The accused's hand and row, shown to the accuser alone (and the auditors).
    """

    model_config = ConfigDict(
        extra='ignore',
    )
    hand: list[str] | None = None
    paired: bool | None = None
    row: list[str] | None = None
    seat: int
    target: int
    timeout: bool | None = None


class PlayerAttackedData(BaseModel):
    model_config = ConfigDict(
        extra='ignore',
    )
    card: str
    seat: int
    target: int
    timeout: bool | None = None


class PlayerCalledData(BaseModel):
    model_config = ConfigDict(
        extra='ignore',
    )
    seat: int
    target: int
    timeout: bool


class PlayerChallengedData(BaseModel):
    model_config = ConfigDict(
        extra='ignore',
    )
    card: str
    paired: bool
    seat: int
    target: int


class PlayerCreate(BaseModel):
    model_config = ConfigDict(
        extra='ignore',
    )
    name: Annotated[
        str,
        Field(
            description='At least one visible character; no control characters or line breaks.',
            examples=['Ada'],
            max_length=100,
            min_length=1,
        ),
    ]


class PlayerCreated(BaseModel):
    model_config = ConfigDict(
        extra='ignore',
    )
    player: Player
    token: Annotated[
        str,
        Field(
            description="The player's bearer token. It is shown only in this response.",
            examples=['bnc_p3yHq...'],
        ),
    ]


class PlayerEliminatedData(BaseModel):
    model_config = ConfigDict(
        extra='ignore',
    )
    cards: list[str]
    reason: Literal['accused_rightly', 'accused_wrongly', 'paired_on_challenge']
    seat: int


class PlayerErasedData(BaseModel):
    """
    A player's key was destroyed: his sealed personal data can no longer be read. Holds none.
    """

    model_config = ConfigDict(
        extra='ignore',
    )
    actor: str
    player_id: str


class PlayerLeftData(BaseModel):
    model_config = ConfigDict(
        extra='ignore',
    )
    carried: bool = False
    cash_out: Annotated[int, Field(ge=0)]
    player_id: str
    seat: int


class PlayerRegisteredData(BaseModel):
    """
    A player joined Banco: his id (his name is the players' resource's).
    """

    model_config = ConfigDict(
        extra='ignore',
    )
    player_id: str


class PlayerSeatedData(BaseModel):
    model_config = ConfigDict(
        extra='ignore',
    )
    age: int | None = None
    buy_in: Annotated[int, Field(ge=0)]
    player_id: str
    seat: int
    seed: str | None = None


class PlayerSummary(BaseModel):
    model_config = ConfigDict(
        extra='ignore',
    )
    balance: Annotated[int, Field(description="The wallet's balance.", examples=[100])]
    created_at: AwareDatetime
    erased: Annotated[
        bool,
        Field(
            description='His personal data was erased (`POST /v1/players/{id}/erasure`): his name can no longer be read, anywhere.',
            examples=[False],
        ),
    ]
    id: Annotated[str, Field(examples=['pl_3f9a1c2b7d4e5f60'])]
    name: Annotated[
        str | None,
        Field(description='Null once the player was erased.', examples=['Ada']),
    ]


class PointsData(BaseModel):
    """
    A side's points for the round by category (`spade_bonus` at spades cassino), and their `total`.
    """

    model_config = ConfigDict(
        extra='ignore',
    )
    aces: int
    big_casino: int
    little_casino: int
    most_cards: int
    most_spades: int
    spade_bonus: int | None = None
    sweeps: int
    total: int


class Posting(BaseModel):
    model_config = ConfigDict(
        extra='ignore',
    )
    amount: int
    from_: Annotated[str, Field(alias='from', examples=['house:issued'])]
    position: int
    reason: str
    recorded_at: AwareDatetime
    to: Annotated[str, Field(examples=['wallet:pl_3f9a1c2b7d4e5f60'])]


class PostingDifference(BaseModel):
    model_config = ConfigDict(
        extra='ignore',
    )
    index: Annotated[
        int,
        Field(description="The posting's place among the hand's postings, in order."),
    ]
    recorded: DisputePosting | None
    replayed: DisputePosting | None


class Problem(BaseModel):
    model_config = ConfigDict(
        extra='ignore',
    )
    available: Annotated[
        list[str] | None, Field(description='406: what the endpoint answers in')
    ] = None
    balance: Annotated[
        int | None, Field(description='insufficient_treasure: what the account holds')
    ] = None
    checks: Annotated[
        dict[str, Any] | None,
        Field(description="503 from /readyz: each dependency's state"),
    ] = None
    code: Annotated[
        Literal['after_beyond_version', 'already_chosen', 'already_seated', 'as_of_not_reached', 'auditor_not_found', 'bad_action', 'bad_build', 'bad_capture', 'bad_card', 'bad_declaration', 'bad_extend', 'bad_options', 'bad_player_count', 'bad_players', 'bad_request', 'bad_reserve', 'bad_target', 'bet_out_of_range', 'body_too_large', 'build_reserved', 'buy_in_fixed', 'buy_in_required', 'buy_in_too_low', 'cannot_split', 'cannot_volunteer', 'card_not_in_hand', 'checkpoint_differs', 'checkpoint_pending', 'conflict', 'correction_overdraws', 'deck_too_small', 'dispute_closed', 'dispute_not_found', 'duplicate_seat', 'error', 'expectation_failed', 'expiry_passed', 'expiry_too_far', 'exports_busy', 'figure_cannot_build', 'forbidden', 'hand_in_play', 'hand_not_found', 'hand_not_settled', 'headers_too_large', 'house_key_missing', 'idempotency_key_reused', 'if_match_required', 'insufficient_balance', 'insufficient_treasure', 'internal_error', 'invalid_correction', 'invalid_cursor', 'invalid_event', 'invalid_idempotency_key', 'invalid_input', 'invalid_json', 'invalid_name', 'invalid_note', 'invalid_options', 'invalid_secret', 'invalid_ticket', 'invalid_url', 'job_not_failed', 'job_not_found', 'key_expired', 'key_not_found', 'key_revoked', 'locked', 'makes_pair', 'method_not_allowed', 'missing_scope', 'must_hold_value', 'must_take_matching', 'no_cards_to_draw', 'no_hand_in_play', 'no_seed', 'not_acceptable', 'not_enough_players', 'not_found', 'not_implemented', 'not_in_hand', 'not_of_the_hand', 'not_ready', 'not_seated', 'not_settled', 'not_your_dispute', 'not_your_hand', 'not_your_seat', 'not_your_turn', 'nothing_to_capture', 'own_build', 'owns_build', 'player_erased', 'player_not_found', 'precondition_failed', 'precondition_required', 'request_line_too_long', 'request_timeout', 'rules_version_not_served', 'rules_version_older', 'scope_not_held', 'stale_version', 'subscription_not_found', 'table_full', 'table_not_found', 'table_not_open', 'table_over', 'ticket_not_a_token', 'ticket_not_accepted', 'ticket_wrong_stream', 'token_revoked', 'too_early', 'too_many_requests', 'trail_not_allowed', 'turn_timed_out', 'unauthorized', 'unavailable', 'unknown_command', 'unknown_event_type', 'unknown_game', 'unknown_item', 'unknown_position', 'unknown_scope', 'unknown_seat', 'unknown_variant', 'unsupported_media_type', 'url_not_allowed', 'variant_conflict', 'version_conflict', 'volunteer_taken', 'waiters_busy', 'wrong_phase', 'wrong_value'] | None,
        Field(
            description='Why, for programs: one of these, the same from release to release.',
            examples=['insufficient_treasure'],
        ),
    ] = None
    detail: Annotated[
        str | None, Field(examples=['account wallet:pl_1 holds 5, cannot pay 10'])
    ] = None
    errors: Annotated[
        dict[str, Any] | None, Field(description='Field errors, by location and field')
    ] = None
    request_id: str | None = None
    scope: Annotated[
        str | None,
        Field(
            description='403 `missing_scope`: the scope the operator key lacks',
            examples=['treasure:write'],
        ),
    ] = None
    status: Annotated[int | None, Field(examples=[422])] = None
    title: Annotated[str | None, Field(examples=['Unprocessable Content'])] = None
    type: Annotated[
        str | None, Field(examples=['urn:banco:problem:insufficient_treasure'])
    ] = None
    version: Annotated[
        int | None, Field(description="412: the table's current version")
    ] = None


class Queue(BaseModel):
    model_config = ConfigDict(
        extra='ignore',
    )
    failed: int
    name: Annotated[str, Field(examples=['banco-webhooks'])]
    queued: int
    scheduled: int
    started: int
    workers: Annotated[
        int,
        Field(
            description='Workers alive on this queue (one working both is counted on each).'
        ),
    ]


class Range(BaseModel):
    model_config = ConfigDict(
        extra='ignore',
    )
    max: int
    min: int


class Readjudicate(BaseModel):
    model_config = ConfigDict(
        extra='ignore',
    )
    rules_version: Annotated[
        int | None,
        Field(
            description="The rules version to replay the hand under: the hand's own when absent, or a newer one the game serves (GET /v1/games/{game}).",
            examples=[2],
            ge=1,
            le=10000,
        ),
    ] = None


class ReadjudicationListed(BaseModel):
    model_config = ConfigDict(
        extra='ignore',
    )
    events_differing: int
    hand_rules_version: int
    matches: Annotated[
        bool, Field(description='Whether the replay gives exactly what was recorded.')
    ]
    postings: list[PostingDifference]
    postings_differing: int
    readjudicated_at: AwareDatetime
    refused: Annotated[
        str | None,
        Field(
            description='The code of the recorded command the version refuses, if one: the replay ends there.',
            examples=['bet_out_of_range'],
        ),
    ]
    rules_version: int


class Ready(BaseModel):
    model_config = ConfigDict(
        extra='ignore',
    )
    checks: dict[str, str]
    status: Annotated[str, Field(examples=['ready'])]


class RefusedCommand(BaseModel):
    model_config = ConfigDict(
        extra='ignore',
    )
    code: str
    detail: str
    index: Annotated[
        int,
        Field(description='How many engine events the replay gave before the refusal.'),
    ]


class Rejection(BaseModel):
    model_config = ConfigDict(
        extra='ignore',
    )
    note: Annotated[
        str, Field(description='Why nothing is paid.', max_length=2000, min_length=1)
    ]


class Requeued(BaseModel):
    model_config = ConfigDict(
        extra='ignore',
    )
    id: str
    status: Annotated[str, Field(examples=['queued'])]


class ReserveAction(BaseModel):
    model_config = ConfigDict(
        extra='ignore',
    )
    card: str
    onto: list[str]
    seat: Annotated[int | None, Field(description='Your seat, if you name it.')] = None
    type: Literal['reserve']
    value: int


class Resolution(BaseModel):
    model_config = ConfigDict(
        extra='ignore',
    )
    corrections: Annotated[
        list[Correction],
        Field(
            description='The corrective postings, made in order, all or none: one that would overdraw a wallet refuses the whole resolution (422 `correction_overdraws`).',
            max_length=50,
            min_length=1,
        ),
    ]
    note: Annotated[
        str,
        Field(
            description='The decision, as the dispute keeps it.',
            max_length=2000,
            min_length=1,
        ),
    ]


class ResolutionShown(BaseModel):
    model_config = ConfigDict(
        extra='ignore',
    )
    at: AwareDatetime
    note: str


class RevealAction(BaseModel):
    model_config = ConfigDict(
        extra='ignore',
    )
    declare: Annotated[
        dict[str, int] | None,
        Field(
            description='Casino pirate: a value for any of your undeclared skeletons, by card id.'
        ),
    ] = None
    seat: Annotated[int | None, Field(description='Your seat, if you name it.')] = None
    type: Literal['reveal']


class RevealOffer(BaseModel):
    model_config = ConfigDict(
        extra='ignore',
    )
    declare: Annotated[
        dict[str, Range] | None,
        Field(
            description='Casino pirate: a value for any of your undeclared skeletons, by card id.'
        ),
    ] = None
    type: Literal['reveal']


class RoundStartedData(BaseModel):
    """
    A round opened: the seeds and the deck's order are the auditors' alone.
    """

    model_config = ConfigDict(
        extra='ignore',
    )
    commitment: str
    deck: list[str] | None = None
    opened_at: float
    player_seeds: list[str] | None = None
    players: int
    pot: int
    round: int
    scores: list[int]
    server_seed: str | None = None
    stake: int
    turn_timeout_s: int
    variant: Literal['classic', 'draw', 'spades']


class RulesEvidence(BaseModel):
    model_config = ConfigDict(
        extra='ignore',
    )
    commands_decided_again: int | None = None
    decided: Any | None = None
    reason: Annotated[
        str | None, Field(description='Why it failed, and at which event.')
    ] = None
    recorded: Any | None = None
    rules_version: int | None = None
    summary: str | None = None


class SatOutData(BaseModel):
    model_config = ConfigDict(
        extra='ignore',
    )
    seat: int
    timeout: bool


class Scope(BaseModel):
    model_config = ConfigDict(
        extra='ignore',
    )
    description: str
    name: Annotated[str, Field(examples=['treasure:write'])]


class Seat(BaseModel):
    model_config = ConfigDict(
        extra='ignore',
    )
    balance: Annotated[int, Field(description='Treasure on the seat.')]
    chair: Annotated[
        int,
        Field(
            description='The chair the player sits in: kept while he is seated, whoever leaves.'
        ),
    ]
    name: Annotated[
        str | None,
        Field(
            description="The player's name; null once he is erased.", examples=['Ada']
        ),
    ]
    player_id: str
    seat: Annotated[
        int,
        Field(
            description="The seat's place in the hand's order (0 first): renumbered when a player leaves; `turn.seat`, `you` and the actions' targets name this."
        ),
    ]


class SeatCardData(BaseModel):
    """
    One seat's card.
    """

    model_config = ConfigDict(
        extra='ignore',
    )
    card: str
    seat: int


class SeedRevealedData(BaseModel):
    model_config = ConfigDict(
        extra='ignore',
    )
    auditors_only: bool
    hand_id: str
    player_seeds: list[str] | None = None
    server_seed: str | None = None


class SetteEMezzoBetAction(BaseModel):
    model_config = ConfigDict(
        extra='ignore',
    )
    amount: int
    seat: Annotated[int | None, Field(description='Your seat, if you name it.')] = None
    seed: Annotated[
        str | None,
        Field(
            description="Your own text for this hand's shuffle, as a join's seed: Sette e mezzo bets before the deal, so once the bets are down the deck is shuffled again from the server seed, the join seeds in seat order, then the bets' seeds in the order placed (docs/fair-decks.md). Shown to the table; put nothing personal in it. Siete y media and Casino pirate deal before the bets and refuse it (422 bad_action).",
            max_length=200,
        ),
    ] = None
    type: Literal['bet']


class SetteEMezzoTurn(BaseModel):
    model_config = ConfigDict(
        extra='ignore',
    )
    deadline: Annotated[
        AwareDatetime | None,
        Field(description='When the turn times out, once its deadline is set.'),
    ] = None
    role: Literal['player', 'banker']
    seat: int
    waiting_for: Literal['announce', 'bet', 'choose', 'play', 'bank', 'answer']


class SetteOptions(BaseModel):
    model_config = ConfigDict(
        extra='ignore',
    )
    banker: Literal['seat0', 'lot'] = 'seat0'
    banker_stand_at: Annotated[int, Field(ge=1, le=7)] = 5
    banker_timeout_s: Annotated[int, Field(ge=1, le=86400)] = 60
    max_bet: Annotated[int, Field(ge=1, le=1000000000)] = 100
    min_bet: Annotated[int, Field(ge=1, le=1000000000)] = 1
    turn_timeout_s: Annotated[int, Field(ge=1, le=86400)] = 30


class SettlementClaimedData(BaseModel):
    """
    The one settlement of a hand: its stream exists once, so a second settlement conflicts.
    """

    model_config = ConfigDict(
        extra='ignore',
    )
    hand_id: str
    table_id: str


class SettlementEvidence(BaseModel):
    model_config = ConfigDict(
        extra='ignore',
    )
    pending: str | None = None
    postings: list[dict[str, Any]] | None = None
    reason: Annotated[
        str | None, Field(description='Why it failed, and at which event.')
    ] = None
    recomputed: Any | None = None
    recorded: Any | None = None
    returned: Annotated[
        list[dict[str, Any]] | None,
        Field(
            description="When the table ended after the hand: what its end gave back from the game (a Cassino pot's stakes), equal to `refund` recomputed."
        ),
    ] = None
    summary: str | None = None


class SevenHalfHand(BaseModel):
    model_config = ConfigDict(
        extra='ignore',
    )
    cards: Annotated[
        list[str | None],
        Field(description='Card ids; null for a card face down that you may not see.'),
    ]
    declared: Annotated[
        dict[str, int] | None,
        Field(
            description="Skeletons' declared values; with `total`, only when you see every card."
        ),
    ] = None
    face_up: list[bool]
    index: Annotated[int, Field(description="-1: the banker's (meneur's).")]
    seat: int
    stake: int
    status: Literal['open', 'stood', 'bust', 'seven_half', 'out', 'won', 'lost', 'conceded']
    total: Annotated[int | None, Field(description='In half points: 15 is 7½.')] = None
    total_display: Annotated[str | None, Field(examples=['7½'])] = None


class SevenHalfPhase(BaseModel):
    model_config = ConfigDict(
        extra='ignore',
    )
    at: Annotated[
        float | None,
        Field(description='When the turn began (seconds since the epoch).'),
    ] = None
    index: Annotated[
        int | None, Field(description='The hand played (playing only).')
    ] = None
    name: Literal['opening', 'announcing', 'betting', 'playing', 'banking', 'answering', 'ended']
    seat: Annotated[
        int | None, Field(description='Who is to act (not while opening or ended).')
    ] = None


class SevenHalfResult(BaseModel):
    model_config = ConfigDict(
        extra='ignore',
    )
    banker: bool | None = None
    conceded: bool | None = None
    index: int
    meneur_total: int | None = None
    meneur_total_display: Annotated[str | None, Field(examples=['6½'])] = None
    net: Annotated[
        int | None,
        Field(
            description="What the rules award this bet: won (+) or lost (-), before any shortfall. A payer who cannot cover it pays what his seat holds (a `ShortfallRecorded` event); the view's `balance_changes` says what each seat gained or lost in fact."
        ),
    ] = None
    outcome: Literal['won', 'lost', 'bust'] | None = None
    seat: int
    seven_half: bool | None = None
    stake: int | None = None
    timeout: bool | None = None
    total: int | None = None
    total_display: Annotated[str | None, Field(examples=['7½'])] = None
    uncalled: bool | None = None


class SevenHalfTurn(BaseModel):
    model_config = ConfigDict(
        extra='ignore',
    )
    role: Literal['player', 'banker']
    seat: int
    waiting_for: Literal['announce', 'bet', 'choose', 'play', 'bank', 'answer']


class SevenHalfTurnPassedData(BaseModel):
    """
    `seat` is to act in `phase`, on its hand `index` where the phase is a hand's.
    """

    model_config = ConfigDict(
        extra='ignore',
    )
    at: float
    index: Annotated[int | None, Field(...)]
    phase: Literal['announce', 'answer', 'bank', 'bet', 'play']
    seat: int


class ShortfallRecordedData(BaseModel):
    model_config = ConfigDict(
        extra='ignore',
    )
    owed: int
    paid: int
    payee: int
    payer: int
    shortfall: int


class ShownEvent(BaseModel):
    model_config = ConfigDict(
        extra='ignore',
    )
    data: Annotated[
        dict[str, Any],
        Field(
            description="The engine's event as you may see it (a hidden card is left out)."
        ),
    ]
    type: Annotated[str, Field(examples=['CardDealt'])]


class SideScoreData(BaseModel):
    model_config = ConfigDict(
        extra='ignore',
    )
    cards: int
    points: PointsData
    seats: list[int]
    side: int
    spades: int


class SieteOptions(BaseModel):
    model_config = ConfigDict(
        extra='ignore',
    )
    banker: Literal['seat0', 'lot'] = 'seat0'
    banker_stand_at: Annotated[int, Field(ge=1, le=7)] = 5
    banker_timeout_s: Annotated[int, Field(ge=1, le=86400)] = 60
    both_seven_half_pays: Annotated[int, Field(ge=1, le=10)] = 4
    max_bet: Annotated[int, Field(ge=1, le=1000000000)] = 100
    min_bet: Annotated[int, Field(ge=1, le=1000000000)] = 1
    seven_half_takes_bank: bool = False
    turn_timeout_s: Annotated[int, Field(ge=1, le=86400)] = 30


class SieteYMediaTurn(BaseModel):
    model_config = ConfigDict(
        extra='ignore',
    )
    deadline: Annotated[
        AwareDatetime | None,
        Field(description='When the turn times out, once its deadline is set.'),
    ] = None
    role: Literal['player', 'banker']
    seat: int
    waiting_for: Literal['announce', 'bet', 'choose', 'play', 'bank', 'answer']


class SieteYMediaView(BaseModel):
    model_config = ConfigDict(
        extra='ignore',
    )
    balance_changes: Annotated[
        dict[str, int] | None,
        Field(
            description="Once the hand has ended: each seat's balance at the end less its balance at the deal, by seat, shortfalls included (what the hand's postings moved)."
        ),
    ] = None
    balances: dict[str, int]
    bank: SevenHalfHand
    banker: Annotated[int, Field(description="The banker's (meneur's) seat.")]
    called: list[int]
    cards_left: int
    commitment: str
    deck: Annotated[
        list[str] | None, Field(description='The cards left, to auditors.')
    ] = None
    game: Literal['siete-y-media']
    hands: list[SevenHalfHand]
    next_banker: Annotated[
        int | None,
        Field(
            description='The seat that banks the next hand, once the hand has ended: the banker again, or the player at 7½ who takes the bank as the game says (Sette e mezzo, Siete y media); in Casino pirate the first player to show 7½, else the volunteer who took the post, else null (the meneur stays unless someone volunteers). Null while the hand is in play.'
        ),
    ]
    options: SieteOptions
    order: list[int]
    phase: SevenHalfPhase
    results: Annotated[
        list[SevenHalfResult] | None, Field(description='Once the hand has ended.')
    ] = None
    stake: int
    turn: SevenHalfTurn | None
    volunteers: Annotated[
        list[int],
        Field(
            description='Casino pirate: the seat that volunteered to be the next meneur (one at most).'
        ),
    ]


class SignedCheckpoint(BaseModel):
    model_config = ConfigDict(
        extra='ignore',
    )
    algorithm: Annotated[str, Field(examples=['Ed25519'])]
    key_id: str
    public_key: Annotated[str, Field(description='Base64, 32 bytes.')]
    signature: Annotated[str, Field(description='Base64.')]
    statement: Annotated[
        str,
        Field(
            description='The signed text: JSON with format, id, txid, position, events, root, recorded_at.'
        ),
    ]
    timestamp: Annotated[
        dict[str, Any] | None,
        Field(
            description="The checkpoint's RFC 3161 time-stamp, when an authority is configured: tsa_url, and reply, the authority's TimeStampResp (DER, base64) over SHA-256 of the statement (`openssl ts -verify -data statement -in reply`)."
        ),
    ]


class SitOutAction(BaseModel):
    model_config = ConfigDict(
        extra='ignore',
    )
    seat: Annotated[int | None, Field(description='Your seat, if you name it.')] = None
    type: Literal['sit_out']


class SkeletonDeclaredData(BaseModel):
    model_config = ConfigDict(
        extra='ignore',
    )
    card: str
    index: int
    picked: Annotated[
        bool | None,
        Field(
            description="Casino pirate from rules version 3: the engine fixed the value, the one giving the meneur's best total, as he drew or called without declaring the skeleton he had turned up; absent when he declared it"
        ),
    ] = None
    seat: int
    value: int


class SplitAction(BaseModel):
    model_config = ConfigDict(
        extra='ignore',
    )
    seat: Annotated[int | None, Field(description='Your seat, if you name it.')] = None
    type: Literal['split']


class StakeAnnouncedData(BaseModel):
    model_config = ConfigDict(
        extra='ignore',
    )
    amount: int
    seat: int
    timeout: bool


class StakeLostData(BaseModel):
    model_config = ConfigDict(
        extra='ignore',
    )
    amount: int
    banker: int
    index: int
    seat: int


class StakesPaidData(BaseModel):
    model_config = ConfigDict(
        extra='ignore',
    )
    pot: int
    stake: int


class StandAction(BaseModel):
    model_config = ConfigDict(
        extra='ignore',
    )
    declare: Annotated[
        dict[str, int] | None,
        Field(
            description='Casino pirate: a value for any of your undeclared skeletons, by card id.'
        ),
    ] = None
    seat: Annotated[int | None, Field(description='Your seat, if you name it.')] = None
    type: Literal['stand']


class StandOffer(BaseModel):
    model_config = ConfigDict(
        extra='ignore',
    )
    declare: Annotated[
        dict[str, Range] | None,
        Field(
            description='Casino pirate: a value for any of your undeclared skeletons, by card id.'
        ),
    ] = None
    type: Literal['stand']


class StoodData(BaseModel):
    """
    A hand stands; the values declared on its skeletons are its holder's alone.
    """

    model_config = ConfigDict(
        extra='ignore',
    )
    declared: dict[str, int] | None = None
    index: int
    seat: int
    timeout: bool


class Stranded(BaseModel):
    model_config = ConfigDict(
        extra='ignore',
    )
    account: Annotated[str, Field(examples=['pot:tb_5d1f0c2a9e3b7a61:pot'])]
    balance: int


class StreamTicket(BaseModel):
    model_config = ConfigDict(
        extra='ignore',
    )
    expires_at: Annotated[
        AwareDatetime,
        Field(
            description='When it stops opening its stream (a stream it opened goes on).'
        ),
    ]
    expires_in: Annotated[
        int, Field(description='Seconds from now to `expires_at`.', examples=[60])
    ]
    path: Annotated[
        str,
        Field(
            description='The stream it opens.',
            examples=['/v1/tables/tb_3f9a1c2b7d4e5f60/stream'],
        ),
    ]
    ticket: Annotated[
        str,
        Field(
            description='Shown only in this response. Send it as `?ticket=` on the GET of `path`, and nowhere else.',
            examples=['bst_Jx0aN8…'],
        ),
    ]
    url: Annotated[
        str,
        Field(
            description="`path` with the ticket, relative to the API's base: what to give `new EventSource(...)`; add `after=` when resuming.",
            examples=['/v1/tables/tb_3f9a1c2b7d4e5f60/stream?ticket=bst_Jx0aN8…'],
        ),
    ]


class StreamTicketRequest(BaseModel):
    model_config = ConfigDict(
        extra='ignore',
    )
    stream: Annotated[
        Literal['table', 'feed'],
        Field(
            description="`table`: a table's stream (`GET /v1/tables/{table_id}/stream`, name the table in `table_id`); `feed`: the log's (`GET /v1/feed/stream`, operator and auditors).",
            examples=['table'],
        ),
    ]
    table_id: Annotated[
        str | None,
        Field(
            description='The table whose stream the ticket opens: with `stream: table` only.',
            examples=['tb_3f9a1c2b7d4e5f60'],
            max_length=100,
            min_length=1,
        ),
    ] = None


class EventType(RootModel[str]):
    root: Annotated[str, Field(max_length=50, min_length=1)]


class SubscriptionCreate(BaseModel):
    model_config = ConfigDict(
        extra='ignore',
    )
    event_types: Annotated[
        list[EventType],
        Field(
            description='Types of the log (`TreasurePosted`, `TableCreated`, `game.CardDealt`, ...); a trailing `*` matches a prefix (`game.*`), `*` alone every event.',
            examples=[['TreasurePosted']],
            max_length=20,
            min_length=1,
        ),
    ]
    secret: Annotated[
        str | None,
        Field(
            description="The signing secret, `whsec_` then 24 to 64 bytes in base64; one is made when absent. Never shown again after this request's answer.",
            max_length=100,
        ),
    ] = None
    url: Annotated[
        AnyUrl,
        Field(
            description='Where each event is POSTed: http:// or https://, to a host that resolves to public addresses only (or to ones in the ranges the operator allows), checked again at every connection.',
            examples=['https://example.com/banco-hooks'],
        ),
    ]


class TableCreate(BaseModel):
    model_config = ConfigDict(
        extra='ignore',
    )
    game: Annotated[str, Field(examples=['sette-e-mezzo'])]
    options: Annotated[
        dict[str, Any] | None, Field(examples=[{'max_bet': 20, 'min_bet': 1}])
    ] = None
    variant: Annotated[
        str | None,
        Field(
            description="One of the game's `variants` (GET /v1/games), standing for its `variant_options`.",
            examples=['banker:lot'],
        ),
    ] = None


class TableCreatedData(BaseModel):
    model_config = ConfigDict(
        extra='ignore',
    )
    created_by: str
    game: str
    options: dict[str, Any]
    rules_version: Annotated[int | None, Field(ge=1)] = None
    table_id: str


class TableDealtData(BaseModel):
    model_config = ConfigDict(
        extra='ignore',
    )
    cards: list[str]


class TableEndedData(BaseModel):
    model_config = ConfigDict(
        extra='ignore',
    )
    reason: str


class TableEventAuditorRegistered(BaseModel):
    model_config = ConfigDict(
        extra='ignore',
    )
    data: AuditorRegisteredData
    hand: str | None = None
    kind: Annotated[Literal['table'], Field(examples=['table'])]
    recorded_at: str
    type: Annotated[Literal['AuditorRegistered'], Field(examples=['AuditorRegistered'])]
    version: int


class TableEventDeadlineSet(BaseModel):
    model_config = ConfigDict(
        extra='ignore',
    )
    data: DeadlineSetData
    hand: str | None = None
    kind: Annotated[Literal['table'], Field(examples=['table'])]
    recorded_at: str
    type: Annotated[Literal['DeadlineSet'], Field(examples=['DeadlineSet'])]
    version: int


class TableEventDisputeEvidenceAttached(BaseModel):
    model_config = ConfigDict(
        extra='ignore',
    )
    data: DisputeEvidenceAttachedData
    hand: str | None = None
    kind: Annotated[Literal['table'], Field(examples=['table'])]
    recorded_at: str
    type: Annotated[
        Literal['DisputeEvidenceAttached'], Field(examples=['DisputeEvidenceAttached'])
    ]
    version: int


class TableEventDisputeOpened(BaseModel):
    model_config = ConfigDict(
        extra='ignore',
    )
    data: DisputeOpenedData
    hand: str | None = None
    kind: Annotated[Literal['table'], Field(examples=['table'])]
    recorded_at: str
    type: Annotated[Literal['DisputeOpened'], Field(examples=['DisputeOpened'])]
    version: int


class TableEventDisputeReadjudicated(BaseModel):
    model_config = ConfigDict(
        extra='ignore',
    )
    data: DisputeReadjudicatedData
    hand: str | None = None
    kind: Annotated[Literal['table'], Field(examples=['table'])]
    recorded_at: str
    type: Annotated[
        Literal['DisputeReadjudicated'], Field(examples=['DisputeReadjudicated'])
    ]
    version: int


class TableEventDisputeRejected(BaseModel):
    model_config = ConfigDict(
        extra='ignore',
    )
    data: DisputeRejectedData
    hand: str | None = None
    kind: Annotated[Literal['table'], Field(examples=['table'])]
    recorded_at: str
    type: Annotated[Literal['DisputeRejected'], Field(examples=['DisputeRejected'])]
    version: int


class TableEventDisputeResolved(BaseModel):
    model_config = ConfigDict(
        extra='ignore',
    )
    data: DisputeResolvedData
    hand: str | None = None
    kind: Annotated[Literal['table'], Field(examples=['table'])]
    recorded_at: str
    type: Annotated[Literal['DisputeResolved'], Field(examples=['DisputeResolved'])]
    version: int


class TableEventGameBetPlaced(BaseModel):
    model_config = ConfigDict(
        extra='ignore',
    )
    data: BetPlacedData
    hand: str | None = None
    kind: Annotated[Literal['game'], Field(examples=['game'])]
    recorded_at: str
    type: Annotated[Literal['BetPlaced'], Field(examples=['BetPlaced'])]
    version: int


class TableEventGameBuildExtended(BaseModel):
    model_config = ConfigDict(
        extra='ignore',
    )
    data: BuildExtendedData
    hand: str | None = None
    kind: Annotated[Literal['game'], Field(examples=['game'])]
    recorded_at: str
    type: Annotated[Literal['BuildExtended'], Field(examples=['BuildExtended'])]
    version: int


class TableEventGameBuildMade(BaseModel):
    model_config = ConfigDict(
        extra='ignore',
    )
    data: BuildMadeData
    hand: str | None = None
    kind: Annotated[Literal['game'], Field(examples=['game'])]
    recorded_at: str
    type: Annotated[Literal['BuildMade'], Field(examples=['BuildMade'])]
    version: int


class TableEventGameBuildReserved(BaseModel):
    model_config = ConfigDict(
        extra='ignore',
    )
    data: BuildReservedData
    hand: str | None = None
    kind: Annotated[Literal['game'], Field(examples=['game'])]
    recorded_at: str
    type: Annotated[Literal['BuildReserved'], Field(examples=['BuildReserved'])]
    version: int


class TableEventGameCallDecided(BaseModel):
    model_config = ConfigDict(
        extra='ignore',
    )
    data: CallDecidedData
    hand: str | None = None
    kind: Annotated[Literal['game'], Field(examples=['game'])]
    recorded_at: str
    type: Annotated[Literal['CallDecided'], Field(examples=['CallDecided'])]
    version: int


class TableEventGameCardDealt(BaseModel):
    model_config = ConfigDict(
        extra='ignore',
    )
    data: CardDealtData
    hand: str | None = None
    kind: Annotated[Literal['game'], Field(examples=['game'])]
    recorded_at: str
    type: Annotated[Literal['CardDealt'], Field(examples=['CardDealt'])]
    version: int


class TableEventGameCardDrawn(BaseModel):
    model_config = ConfigDict(
        extra='ignore',
    )
    data: PiratePairsCardDrawnData | CassinoCardDrawnData
    hand: str | None = None
    kind: Annotated[Literal['game'], Field(examples=['game'])]
    recorded_at: str
    type: Annotated[Literal['CardDrawn'], Field(examples=['CardDrawn'])]
    version: int


class TableEventGameCardTrailed(BaseModel):
    model_config = ConfigDict(
        extra='ignore',
    )
    data: CardTrailedData
    hand: str | None = None
    kind: Annotated[Literal['game'], Field(examples=['game'])]
    recorded_at: str
    type: Annotated[Literal['CardTrailed'], Field(examples=['CardTrailed'])]
    version: int


class TableEventGameCardTurnedUp(BaseModel):
    model_config = ConfigDict(
        extra='ignore',
    )
    data: CardTurnedUpData
    hand: str | None = None
    kind: Annotated[Literal['game'], Field(examples=['game'])]
    recorded_at: str
    type: Annotated[Literal['CardTurnedUp'], Field(examples=['CardTurnedUp'])]
    version: int


class TableEventGameCardsCaptured(BaseModel):
    model_config = ConfigDict(
        extra='ignore',
    )
    data: CardsCapturedData
    hand: str | None = None
    kind: Annotated[Literal['game'], Field(examples=['game'])]
    recorded_at: str
    type: Annotated[Literal['CardsCaptured'], Field(examples=['CardsCaptured'])]
    version: int


class TableEventGameCardsDealt(BaseModel):
    model_config = ConfigDict(
        extra='ignore',
    )
    data: CardsDealtData
    hand: str | None = None
    kind: Annotated[Literal['game'], Field(examples=['game'])]
    recorded_at: str
    type: Annotated[Literal['CardsDealt'], Field(examples=['CardsDealt'])]
    version: int


class TableEventGameCardsShown(BaseModel):
    model_config = ConfigDict(
        extra='ignore',
    )
    data: CardsShownData
    hand: str | None = None
    kind: Annotated[Literal['game'], Field(examples=['game'])]
    recorded_at: str
    type: Annotated[Literal['CardsShown'], Field(examples=['CardsShown'])]
    version: int


class TableEventGameDealerChosen(BaseModel):
    model_config = ConfigDict(
        extra='ignore',
    )
    data: DealerChosenData
    hand: str | None = None
    kind: Annotated[Literal['game'], Field(examples=['game'])]
    recorded_at: str
    type: Annotated[Literal['DealerChosen'], Field(examples=['DealerChosen'])]
    version: int


class TableEventGameDeckShuffled(BaseModel):
    model_config = ConfigDict(
        extra='ignore',
    )
    data: DeckShuffledData
    hand: str | None = None
    kind: Annotated[Literal['game'], Field(examples=['game'])]
    recorded_at: str
    type: Annotated[Literal['DeckShuffled'], Field(examples=['DeckShuffled'])]
    version: int


class TableEventGameDiscardsReshuffled(BaseModel):
    model_config = ConfigDict(
        extra='ignore',
    )
    data: DiscardsReshuffledData
    hand: str | None = None
    kind: Annotated[Literal['game'], Field(examples=['game'])]
    recorded_at: str
    type: Annotated[
        Literal['DiscardsReshuffled'], Field(examples=['DiscardsReshuffled'])
    ]
    version: int


class TableEventGameGameWon(BaseModel):
    model_config = ConfigDict(
        extra='ignore',
    )
    data: GameWonData
    hand: str | None = None
    kind: Annotated[Literal['game'], Field(examples=['game'])]
    recorded_at: str
    type: Annotated[Literal['GameWon'], Field(examples=['GameWon'])]
    version: int


class TableEventGameHandSplit(BaseModel):
    model_config = ConfigDict(
        extra='ignore',
    )
    data: HandSplitData
    hand: str | None = None
    kind: Annotated[Literal['game'], Field(examples=['game'])]
    recorded_at: str
    type: Annotated[Literal['HandSplit'], Field(examples=['HandSplit'])]
    version: int


class TableEventGameHandStarted(BaseModel):
    model_config = ConfigDict(
        extra='ignore',
    )
    data: HandStartedData
    hand: str | None = None
    kind: Annotated[Literal['game'], Field(examples=['game'])]
    recorded_at: str
    type: Annotated[Literal['HandStarted'], Field(examples=['HandStarted'])]
    version: int


class TableEventGameLeftoversTaken(BaseModel):
    model_config = ConfigDict(
        extra='ignore',
    )
    data: LeftoversTakenData
    hand: str | None = None
    kind: Annotated[Literal['game'], Field(examples=['game'])]
    recorded_at: str
    type: Annotated[Literal['LeftoversTaken'], Field(examples=['LeftoversTaken'])]
    version: int


class TableEventGameOpeningCardChosen(BaseModel):
    model_config = ConfigDict(
        extra='ignore',
    )
    data: OpeningCardChosenData
    hand: str | None = None
    kind: Annotated[Literal['game'], Field(examples=['game'])]
    recorded_at: str
    type: Annotated[Literal['OpeningCardChosen'], Field(examples=['OpeningCardChosen'])]
    version: int


class TableEventGamePlayerAccused(BaseModel):
    model_config = ConfigDict(
        extra='ignore',
    )
    data: PlayerAccusedData
    hand: str | None = None
    kind: Annotated[Literal['game'], Field(examples=['game'])]
    recorded_at: str
    type: Annotated[Literal['PlayerAccused'], Field(examples=['PlayerAccused'])]
    version: int


class TableEventGamePlayerAttacked(BaseModel):
    model_config = ConfigDict(
        extra='ignore',
    )
    data: PlayerAttackedData
    hand: str | None = None
    kind: Annotated[Literal['game'], Field(examples=['game'])]
    recorded_at: str
    type: Annotated[Literal['PlayerAttacked'], Field(examples=['PlayerAttacked'])]
    version: int


class TableEventGamePlayerCalled(BaseModel):
    model_config = ConfigDict(
        extra='ignore',
    )
    data: PlayerCalledData
    hand: str | None = None
    kind: Annotated[Literal['game'], Field(examples=['game'])]
    recorded_at: str
    type: Annotated[Literal['PlayerCalled'], Field(examples=['PlayerCalled'])]
    version: int


class TableEventGamePlayerChallenged(BaseModel):
    model_config = ConfigDict(
        extra='ignore',
    )
    data: PlayerChallengedData
    hand: str | None = None
    kind: Annotated[Literal['game'], Field(examples=['game'])]
    recorded_at: str
    type: Annotated[Literal['PlayerChallenged'], Field(examples=['PlayerChallenged'])]
    version: int


class TableEventGamePlayerEliminated(BaseModel):
    model_config = ConfigDict(
        extra='ignore',
    )
    data: PlayerEliminatedData
    hand: str | None = None
    kind: Annotated[Literal['game'], Field(examples=['game'])]
    recorded_at: str
    type: Annotated[Literal['PlayerEliminated'], Field(examples=['PlayerEliminated'])]
    version: int


class TableEventGameRoundStarted(BaseModel):
    model_config = ConfigDict(
        extra='ignore',
    )
    data: RoundStartedData
    hand: str | None = None
    kind: Annotated[Literal['game'], Field(examples=['game'])]
    recorded_at: str
    type: Annotated[Literal['RoundStarted'], Field(examples=['RoundStarted'])]
    version: int


class TableEventGameSatOut(BaseModel):
    model_config = ConfigDict(
        extra='ignore',
    )
    data: SatOutData
    hand: str | None = None
    kind: Annotated[Literal['game'], Field(examples=['game'])]
    recorded_at: str
    type: Annotated[Literal['SatOut'], Field(examples=['SatOut'])]
    version: int


class TableEventGameShortfallRecorded(BaseModel):
    model_config = ConfigDict(
        extra='ignore',
    )
    data: ShortfallRecordedData
    hand: str | None = None
    kind: Annotated[Literal['game'], Field(examples=['game'])]
    recorded_at: str
    type: Annotated[Literal['ShortfallRecorded'], Field(examples=['ShortfallRecorded'])]
    version: int


class TableEventGameSkeletonDeclared(BaseModel):
    model_config = ConfigDict(
        extra='ignore',
    )
    data: SkeletonDeclaredData
    hand: str | None = None
    kind: Annotated[Literal['game'], Field(examples=['game'])]
    recorded_at: str
    type: Annotated[Literal['SkeletonDeclared'], Field(examples=['SkeletonDeclared'])]
    version: int


class TableEventGameStakeAnnounced(BaseModel):
    model_config = ConfigDict(
        extra='ignore',
    )
    data: StakeAnnouncedData
    hand: str | None = None
    kind: Annotated[Literal['game'], Field(examples=['game'])]
    recorded_at: str
    type: Annotated[Literal['StakeAnnounced'], Field(examples=['StakeAnnounced'])]
    version: int


class TableEventGameStakeLost(BaseModel):
    model_config = ConfigDict(
        extra='ignore',
    )
    data: StakeLostData
    hand: str | None = None
    kind: Annotated[Literal['game'], Field(examples=['game'])]
    recorded_at: str
    type: Annotated[Literal['StakeLost'], Field(examples=['StakeLost'])]
    version: int


class TableEventGameStakesPaid(BaseModel):
    model_config = ConfigDict(
        extra='ignore',
    )
    data: StakesPaidData
    hand: str | None = None
    kind: Annotated[Literal['game'], Field(examples=['game'])]
    recorded_at: str
    type: Annotated[Literal['StakesPaid'], Field(examples=['StakesPaid'])]
    version: int


class TableEventGameStood(BaseModel):
    model_config = ConfigDict(
        extra='ignore',
    )
    data: StoodData
    hand: str | None = None
    kind: Annotated[Literal['game'], Field(examples=['game'])]
    recorded_at: str
    type: Annotated[Literal['Stood'], Field(examples=['Stood'])]
    version: int


class TableEventGameTableDealt(BaseModel):
    model_config = ConfigDict(
        extra='ignore',
    )
    data: TableDealtData
    hand: str | None = None
    kind: Annotated[Literal['game'], Field(examples=['game'])]
    recorded_at: str
    type: Annotated[Literal['TableDealt'], Field(examples=['TableDealt'])]
    version: int


class TableEventGameTurnPassed(BaseModel):
    model_config = ConfigDict(
        extra='ignore',
    )
    data: SevenHalfTurnPassedData | PiratePairsTurnPassedData
    hand: str | None = None
    kind: Annotated[Literal['game'], Field(examples=['game'])]
    recorded_at: str
    type: Annotated[Literal['TurnPassed'], Field(examples=['TurnPassed'])]
    version: int


class TableEventHandBegan(BaseModel):
    model_config = ConfigDict(
        extra='ignore',
    )
    data: HandBeganData
    hand: str | None = None
    kind: Annotated[Literal['table'], Field(examples=['table'])]
    recorded_at: str
    type: Annotated[Literal['HandBegan'], Field(examples=['HandBegan'])]
    version: int


class TableEventHandSettled(BaseModel):
    model_config = ConfigDict(
        extra='ignore',
    )
    data: HandSettledData
    hand: str | None = None
    kind: Annotated[Literal['table'], Field(examples=['table'])]
    recorded_at: str
    type: Annotated[Literal['HandSettled'], Field(examples=['HandSettled'])]
    version: int


class TableEventOperatorKeyChanged(BaseModel):
    model_config = ConfigDict(
        extra='ignore',
    )
    data: OperatorKeyChangedData
    hand: str | None = None
    kind: Annotated[Literal['table'], Field(examples=['table'])]
    recorded_at: str
    type: Annotated[
        Literal['OperatorKeyRevoked', 'OperatorKeyRotated'],
        Field(examples=['OperatorKeyRotated']),
    ]
    version: int


class TableEventOperatorKeyCreated(BaseModel):
    model_config = ConfigDict(
        extra='ignore',
    )
    data: OperatorKeyCreatedData
    hand: str | None = None
    kind: Annotated[Literal['table'], Field(examples=['table'])]
    recorded_at: str
    type: Annotated[
        Literal['OperatorKeyCreated'], Field(examples=['OperatorKeyCreated'])
    ]
    version: int


class TableEventPlayerErased(BaseModel):
    model_config = ConfigDict(
        extra='ignore',
    )
    data: PlayerErasedData
    hand: str | None = None
    kind: Annotated[Literal['table'], Field(examples=['table'])]
    recorded_at: str
    type: Annotated[Literal['PlayerErased'], Field(examples=['PlayerErased'])]
    version: int


class TableEventPlayerLeft(BaseModel):
    model_config = ConfigDict(
        extra='ignore',
    )
    data: PlayerLeftData
    hand: str | None = None
    kind: Annotated[Literal['table'], Field(examples=['table'])]
    recorded_at: str
    type: Annotated[Literal['PlayerLeft'], Field(examples=['PlayerLeft'])]
    version: int


class TableEventPlayerRegistered(BaseModel):
    model_config = ConfigDict(
        extra='ignore',
    )
    data: PlayerRegisteredData
    hand: str | None = None
    kind: Annotated[Literal['table'], Field(examples=['table'])]
    recorded_at: str
    type: Annotated[Literal['PlayerRegistered'], Field(examples=['PlayerRegistered'])]
    version: int


class TableEventPlayerSeated(BaseModel):
    model_config = ConfigDict(
        extra='ignore',
    )
    data: PlayerSeatedData
    hand: str | None = None
    kind: Annotated[Literal['table'], Field(examples=['table'])]
    recorded_at: str
    type: Annotated[Literal['PlayerSeated'], Field(examples=['PlayerSeated'])]
    version: int


class TableEventSeedRevealed(BaseModel):
    model_config = ConfigDict(
        extra='ignore',
    )
    data: SeedRevealedData
    hand: str | None = None
    kind: Annotated[Literal['table'], Field(examples=['table'])]
    recorded_at: str
    type: Annotated[Literal['SeedRevealed'], Field(examples=['SeedRevealed'])]
    version: int


class TableEventSettlementClaimed(BaseModel):
    model_config = ConfigDict(
        extra='ignore',
    )
    data: SettlementClaimedData
    hand: str | None = None
    kind: Annotated[Literal['table'], Field(examples=['table'])]
    recorded_at: str
    type: Annotated[Literal['SettlementClaimed'], Field(examples=['SettlementClaimed'])]
    version: int


class TableEventTableCreated(BaseModel):
    model_config = ConfigDict(
        extra='ignore',
    )
    data: TableCreatedData
    hand: str | None = None
    kind: Annotated[Literal['table'], Field(examples=['table'])]
    recorded_at: str
    type: Annotated[Literal['TableCreated'], Field(examples=['TableCreated'])]
    version: int


class TableEventTableEnded(BaseModel):
    model_config = ConfigDict(
        extra='ignore',
    )
    data: TableEndedData
    hand: str | None = None
    kind: Annotated[Literal['table'], Field(examples=['table'])]
    recorded_at: str
    type: Annotated[Literal['TableEnded'], Field(examples=['TableEnded'])]
    version: int


class TableSummary(BaseModel):
    model_config = ConfigDict(
        extra='ignore',
    )
    game: Literal['sette-e-mezzo', 'siete-y-media', 'casino-pirate', 'pirate-pairs', 'cassino']
    hands: int
    id: Annotated[str, Field(examples=['tb_5c1e0a9b3d2f4e61'])]
    players: int
    status: Annotated[
        Literal['open', 'playing', 'settling', 'over'],
        Field(
            description='open (between hands), playing, settling (a finished hand is being paid) or over'
        ),
    ]


class Token(BaseModel):
    model_config = ConfigDict(
        extra='ignore',
    )
    role: Annotated[str, Field(examples=['player'])]
    subject: Annotated[
        str,
        Field(
            description="The player's or the auditor's id.",
            examples=['pl_3f9a1c2b7d4e5f60'],
        ),
    ]
    token: Annotated[
        str,
        Field(
            description='The new bearer token. It is shown only in this response.',
            examples=['bnc_p3yHq...'],
        ),
    ]
    token_id: Annotated[
        str,
        Field(
            description="The token's id, which events name; never the token.",
            examples=['tk_5e6f7a8b9c0d1e2f'],
        ),
    ]


class TokenChangedData(BaseModel):
    """
    A bearer token issued or revoked: whose, its id and who did it; never the token nor its hash.
    """

    model_config = ConfigDict(
        extra='ignore',
    )
    actor: str
    role: Literal['auditor', 'player']
    subject: str
    token_id: str


class TrailAction(BaseModel):
    model_config = ConfigDict(
        extra='ignore',
    )
    card: str
    seat: Annotated[int | None, Field(description='Your seat, if you name it.')] = None
    type: Literal['trail']


class Transfer(BaseModel):
    model_config = ConfigDict(
        extra='ignore',
    )
    amount: Annotated[int, Field(examples=[100], ge=1, le=1000000000000)]
    reason: Annotated[
        str,
        Field(
            description="The operator's note on the movement, kept in the ledger for good, in clear (an erasure leaves it): write no personal data (a name) in it.",
            examples=['cash deposit at the desk'],
            max_length=200,
            min_length=1,
        ),
    ]


class TransferResult(BaseModel):
    model_config = ConfigDict(
        extra='ignore',
    )
    balance: Balance
    posting: Posting


class TreasurePostedData(BaseModel):
    """
    One double-entry posting: `amount` moves from `from` to `to`.
    """

    model_config = ConfigDict(
        extra='ignore',
    )
    amount: Annotated[int, Field(ge=1)]
    from_: Annotated[
        str,
        Field(
            alias='from',
            pattern='^(house:issued|wallet:[\\w-]+|(seat|escrow|pot):[\\w-]+:[\\w-]+)$',
        ),
    ]
    hand: str | None = None
    reason: Annotated[str, Field(max_length=200, min_length=1)]
    table: str | None = None
    to: Annotated[
        str,
        Field(
            pattern='^(house:issued|wallet:[\\w-]+|(seat|escrow|pot):[\\w-]+:[\\w-]+)$'
        ),
    ]


class Viewer(BaseModel):
    model_config = ConfigDict(
        extra='ignore',
    )
    kind: Literal['seat', 'spectator', 'auditor']
    seat: Annotated[int | None, Field(description='Its seat.')]


class VolunteerAction(BaseModel):
    model_config = ConfigDict(
        extra='ignore',
    )
    seat: Annotated[int | None, Field(description='Your seat, if you name it.')] = None
    type: Literal['volunteer']


class VolunteeredData(BaseModel):
    model_config = ConfigDict(
        extra='ignore',
    )
    seat: int


class WebhookAttempt(BaseModel):
    model_config = ConfigDict(
        extra='ignore',
    )
    attempt: int
    attempted_at: AwareDatetime
    duration_ms: int
    error: Annotated[str | None, Field(...)]
    status_code: Annotated[
        int | None,
        Field(
            description="The receiver's status; null when none came (refused, timed out)."
        ),
    ]


class WebhookCursor(BaseModel):
    model_config = ConfigDict(
        extra='ignore',
    )
    position: Annotated[int, Field(description='Its position (0: none).')]
    txid: Annotated[
        int, Field(description='Writing transaction of the last event sent or skipped.')
    ]


class WebhookDelivery(BaseModel):
    model_config = ConfigDict(
        extra='ignore',
    )
    attempt_count: int
    attempts: list[WebhookAttempt]
    created_at: AwareDatetime
    delivered_at: Annotated[AwareDatetime | None, Field(...)]
    event_type: str
    position: int
    status: Literal['pending', 'delivered']
    webhook_id: Annotated[
        str, Field(description='Its `webhook-id`, the same on every attempt.')
    ]


class WebhookReplay(BaseModel):
    model_config = ConfigDict(
        extra='ignore',
    )
    position: Annotated[
        int,
        Field(
            description="The event to send again from (0: the log's beginning); the events after it follow in the log's order.",
            ge=0,
        ),
    ]


class Worker(BaseModel):
    model_config = ConfigDict(
        extra='ignore',
    )
    name: str
    queues: Annotated[
        list[str],
        Field(
            description="The queues it takes jobs from: the queue's own, and its webhooks' lane (`<queue>-webhooks`), which each worker works in a thread of its own and `banco worker --webhooks` alone.",
            examples=[['banco-webhooks']],
        ),
    ]
    state: Annotated[str, Field(examples=['idle'])]


class AnnounceOffer(BaseModel):
    model_config = ConfigDict(
        extra='ignore',
    )
    amount: Range
    type: Literal['announce']


class BetOffer(BaseModel):
    model_config = ConfigDict(
        extra='ignore',
    )
    amount: Range
    type: Literal['bet']


class CasinoPirateView(BaseModel):
    model_config = ConfigDict(
        extra='ignore',
    )
    balance_changes: Annotated[
        dict[str, int] | None,
        Field(
            description="Once the hand has ended: each seat's balance at the end less its balance at the deal, by seat, shortfalls included (what the hand's postings moved)."
        ),
    ] = None
    balances: dict[str, int]
    bank: SevenHalfHand
    banker: Annotated[int, Field(description="The banker's (meneur's) seat.")]
    called: list[int]
    cards_left: int
    commitment: str
    deck: Annotated[
        list[str] | None, Field(description='The cards left, to auditors.')
    ] = None
    game: Literal['casino-pirate']
    hands: list[SevenHalfHand]
    next_banker: Annotated[
        int | None,
        Field(
            description='The seat that banks the next hand, once the hand has ended: the banker again, or the player at 7½ who takes the bank as the game says (Sette e mezzo, Siete y media); in Casino pirate the first player to show 7½, else the volunteer who took the post, else null (the meneur stays unless someone volunteers). Null while the hand is in play.'
        ),
    ]
    options: PirateOptions
    order: list[int]
    phase: SevenHalfPhase
    results: Annotated[
        list[SevenHalfResult] | None, Field(description='Once the hand has ended.')
    ] = None
    stake: int
    turn: SevenHalfTurn | None
    volunteers: Annotated[
        list[int],
        Field(
            description='Casino pirate: the seat that volunteered to be the next meneur (one at most).'
        ),
    ]


class CassinoTable(BaseModel):
    model_config = ConfigDict(
        extra='ignore',
    )
    game: Literal['cassino']
    hand: HandRef | None
    id: Annotated[str, Field(examples=['tb_5c1e0a9b3d2f4e61'])]
    legal_actions: Annotated[
        list[Annotated[CaptureAction | BuildAction | ReserveAction | ExtendAction | TrailAction, Field(discriminator='type')]],
        Field(
            description='The actions open to you now: send one back (its ranges chosen).'
        ),
    ]
    options: CassinoOptions
    rules_version: Annotated[
        int,
        Field(
            description="The game's rules version the table plays: the one current when it was created, for its whole life (GET /v1/games lists each game's current version).",
            examples=[1],
        ),
    ]
    seats: list[Seat]
    status: Annotated[
        Literal['open', 'playing', 'settling', 'over'],
        Field(
            description='open (between hands), playing, settling (a finished hand is being paid) or over'
        ),
    ]
    turn: Annotated[
        CassinoTurn | None,
        Field(description='Whose move it is while a hand is in play; else null.'),
    ]
    variant: Annotated[
        str | None,
        Field(
            description="The listed variant (GET /v1/games) the table's options make it, or null when they make none (the game has no variants, or a Siete y media table without the 7½-takes-the-bank rule).",
            examples=['banker:lot'],
        ),
    ]
    version: Annotated[int, Field(description='Also the ETag; send it as If-Match.')]
    view: Annotated[
        CassinoView | None,
        Field(description='The hand in play (or the last one) as you may see it.'),
    ]
    you: Annotated[int | None, Field(description='Your seat, if any.')]


class DealerCardsDrawnData(BaseModel):
    """
    One draw for the deal: each contender's card (lowest deals; a tie draws again).
    """

    model_config = ConfigDict(
        extra='ignore',
    )
    attempt: int
    cards: list[SeatCardData]


class DeckCommitmentCheck(BaseModel):
    model_config = ConfigDict(
        extra='ignore',
    )
    event: Annotated[
        EventRef | None,
        Field(
            description='The event a failed check points at: its stream and version.',
            examples=[{'stream': 'table-tb_0123456789abcdef', 'version': 12}],
        ),
    ]
    evidence: CommitmentEvidence
    name: Literal['deck.commitment']
    passed: bool


class DeckDealtCheck(BaseModel):
    model_config = ConfigDict(
        extra='ignore',
    )
    event: Annotated[
        EventRef | None,
        Field(
            description='The event a failed check points at: its stream and version.',
            examples=[{'stream': 'table-tb_0123456789abcdef', 'version': 12}],
        ),
    ]
    evidence: DealtEvidence
    name: Literal['deck.dealt']
    passed: bool


class DeckOrderCheck(BaseModel):
    model_config = ConfigDict(
        extra='ignore',
    )
    event: Annotated[
        EventRef | None,
        Field(
            description='The event a failed check points at: its stream and version.',
            examples=[{'stream': 'table-tb_0123456789abcdef', 'version': 12}],
        ),
    ]
    evidence: OrderEvidence
    name: Literal['deck.order']
    passed: bool


class DeclareOffer(BaseModel):
    model_config = ConfigDict(
        extra='ignore',
    )
    card: str
    type: Literal['declare']
    value: Range


class DeliveryPage(BaseModel):
    model_config = ConfigDict(
        extra='ignore',
    )
    items: list[WebhookDelivery]
    next_before: Annotated[int | None, Field(...)]


class Dispute(BaseModel):
    model_config = ConfigDict(
        extra='ignore',
    )
    closed_at: Annotated[AwareDatetime | None, Field(...)]
    corrections: Annotated[
        list[CorrectionPosted],
        Field(
            description='The corrective postings its resolution made, each in the log.'
        ),
    ]
    evidence: list[EvidenceShown]
    hand_id: str
    id: Annotated[str, Field(examples=['dp_3f9a1c2b7d4e5f60'])]
    opened_at: AwareDatetime
    opened_by: Literal['player', 'auditor', 'operator']
    players: Annotated[
        list[str],
        Field(
            description="The hand's players: those of them who may read the dispute."
        ),
    ]
    readjudications: list[ReadjudicationListed]
    reason: str
    resolution: Annotated[
        ResolutionShown | None,
        Field(
            description='The decision that closed it (resolved or rejected), null while open.'
        ),
    ]
    status: Literal['open', 'resolved', 'rejected']
    table_id: str


class DisputePage(BaseModel):
    model_config = ConfigDict(
        extra='ignore',
    )
    items: list[Dispute]
    next_cursor: Annotated[int | None, Field(...)]


class EventDifference(BaseModel):
    model_config = ConfigDict(
        extra='ignore',
    )
    index: Annotated[
        int,
        Field(
            description="The event's place among the hand's engine events, in order."
        ),
    ]
    recorded: ShownEvent | None
    replayed: ShownEvent | None


class Evidence(BaseModel):
    model_config = ConfigDict(
        extra='ignore',
    )
    attestation: Annotated[
        Attestation,
        Field(
            description="The house's signature over the whole bundle: the viewer, what withheld events show, the summary fields, every event's time and place."
        ),
    ]
    chain: Annotated[
        dict[str, Any],
        Field(
            description='stream_id, first_version and previous_hash: the link before the hand.'
        ),
    ]
    checkpoint: SignedCheckpoint
    events: list[BundleEvent]
    format: Annotated[str, Field(examples=['banco-evidence/2'])]
    game: str
    hand_id: Annotated[str, Field(examples=['hd_0a1b2c3d4e5f6071'])]
    inclusion: dict[str, InclusionProof]
    options: dict[str, Any]
    postings: list[dict[str, Any]]
    redacted: bool
    rules_version: int
    seeds: dict[str, Any]
    table_created: BundleEvent
    table_id: Annotated[str, Field(examples=['tb_5c1e0a9b3d2f4e61'])]
    viewer: Annotated[dict[str, Any], Field(examples=[{'kind': 'seat', 'seat': 1}])]


class FeedEventGameCardDrawn(BaseModel):
    model_config = ConfigDict(
        extra='ignore',
    )
    data: PiratePairsCardDrawnData | CassinoCardDrawnData
    hand: str | None = None
    position: Annotated[
        int,
        Field(
            description="The event's position in the log: pass it as `after` to go on from it."
        ),
    ]
    recorded_at: str
    stream: Annotated[str, Field(examples=['table-tb_3f9a1c2b7d4e5f60'])]
    type: Annotated[Literal['game.CardDrawn'], Field(examples=['game.CardDrawn'])]
    version: Annotated[int, Field(description='Its version in its stream.')]


class FeedEventGameDealerCardsDrawn(BaseModel):
    model_config = ConfigDict(
        extra='ignore',
    )
    data: DealerCardsDrawnData
    hand: str | None = None
    position: Annotated[
        int,
        Field(
            description="The event's position in the log: pass it as `after` to go on from it."
        ),
    ]
    recorded_at: str
    stream: Annotated[str, Field(examples=['table-tb_3f9a1c2b7d4e5f60'])]
    type: Annotated[
        Literal['game.DealerCardsDrawn'], Field(examples=['game.DealerCardsDrawn'])
    ]
    version: Annotated[int, Field(description='Its version in its stream.')]


class FeedEventGameGameWon(BaseModel):
    model_config = ConfigDict(
        extra='ignore',
    )
    data: GameWonData
    hand: str | None = None
    position: Annotated[
        int,
        Field(
            description="The event's position in the log: pass it as `after` to go on from it."
        ),
    ]
    recorded_at: str
    stream: Annotated[str, Field(examples=['table-tb_3f9a1c2b7d4e5f60'])]
    type: Annotated[Literal['game.GameWon'], Field(examples=['game.GameWon'])]
    version: Annotated[int, Field(description='Its version in its stream.')]


class FeedEventGameHandSplit(BaseModel):
    model_config = ConfigDict(
        extra='ignore',
    )
    data: HandSplitData
    hand: str | None = None
    position: Annotated[
        int,
        Field(
            description="The event's position in the log: pass it as `after` to go on from it."
        ),
    ]
    recorded_at: str
    stream: Annotated[str, Field(examples=['table-tb_3f9a1c2b7d4e5f60'])]
    type: Annotated[Literal['game.HandSplit'], Field(examples=['game.HandSplit'])]
    version: Annotated[int, Field(description='Its version in its stream.')]


class FeedEventGameHandStarted(BaseModel):
    model_config = ConfigDict(
        extra='ignore',
    )
    data: HandStartedData
    hand: str | None = None
    position: Annotated[
        int,
        Field(
            description="The event's position in the log: pass it as `after` to go on from it."
        ),
    ]
    recorded_at: str
    stream: Annotated[str, Field(examples=['table-tb_3f9a1c2b7d4e5f60'])]
    type: Annotated[Literal['game.HandStarted'], Field(examples=['game.HandStarted'])]
    version: Annotated[int, Field(description='Its version in its stream.')]


class FeedEventGameLeftoversTaken(BaseModel):
    model_config = ConfigDict(
        extra='ignore',
    )
    data: LeftoversTakenData
    hand: str | None = None
    position: Annotated[
        int,
        Field(
            description="The event's position in the log: pass it as `after` to go on from it."
        ),
    ]
    recorded_at: str
    stream: Annotated[str, Field(examples=['table-tb_3f9a1c2b7d4e5f60'])]
    type: Annotated[
        Literal['game.LeftoversTaken'], Field(examples=['game.LeftoversTaken'])
    ]
    version: Annotated[int, Field(description='Its version in its stream.')]


class FeedEventGameOpeningCardChosen(BaseModel):
    model_config = ConfigDict(
        extra='ignore',
    )
    data: OpeningCardChosenData
    hand: str | None = None
    position: Annotated[
        int,
        Field(
            description="The event's position in the log: pass it as `after` to go on from it."
        ),
    ]
    recorded_at: str
    stream: Annotated[str, Field(examples=['table-tb_3f9a1c2b7d4e5f60'])]
    type: Annotated[
        Literal['game.OpeningCardChosen'], Field(examples=['game.OpeningCardChosen'])
    ]
    version: Annotated[int, Field(description='Its version in its stream.')]


class FeedEventGamePlayerAccused(BaseModel):
    model_config = ConfigDict(
        extra='ignore',
    )
    data: PlayerAccusedData
    hand: str | None = None
    position: Annotated[
        int,
        Field(
            description="The event's position in the log: pass it as `after` to go on from it."
        ),
    ]
    recorded_at: str
    stream: Annotated[str, Field(examples=['table-tb_3f9a1c2b7d4e5f60'])]
    type: Annotated[
        Literal['game.PlayerAccused'], Field(examples=['game.PlayerAccused'])
    ]
    version: Annotated[int, Field(description='Its version in its stream.')]


class FeedEventGamePlayerAttacked(BaseModel):
    model_config = ConfigDict(
        extra='ignore',
    )
    data: PlayerAttackedData
    hand: str | None = None
    position: Annotated[
        int,
        Field(
            description="The event's position in the log: pass it as `after` to go on from it."
        ),
    ]
    recorded_at: str
    stream: Annotated[str, Field(examples=['table-tb_3f9a1c2b7d4e5f60'])]
    type: Annotated[
        Literal['game.PlayerAttacked'], Field(examples=['game.PlayerAttacked'])
    ]
    version: Annotated[int, Field(description='Its version in its stream.')]


class FeedEventGamePlayerCalled(BaseModel):
    model_config = ConfigDict(
        extra='ignore',
    )
    data: PlayerCalledData
    hand: str | None = None
    position: Annotated[
        int,
        Field(
            description="The event's position in the log: pass it as `after` to go on from it."
        ),
    ]
    recorded_at: str
    stream: Annotated[str, Field(examples=['table-tb_3f9a1c2b7d4e5f60'])]
    type: Annotated[Literal['game.PlayerCalled'], Field(examples=['game.PlayerCalled'])]
    version: Annotated[int, Field(description='Its version in its stream.')]


class FeedEventGamePlayerChallenged(BaseModel):
    model_config = ConfigDict(
        extra='ignore',
    )
    data: PlayerChallengedData
    hand: str | None = None
    position: Annotated[
        int,
        Field(
            description="The event's position in the log: pass it as `after` to go on from it."
        ),
    ]
    recorded_at: str
    stream: Annotated[str, Field(examples=['table-tb_3f9a1c2b7d4e5f60'])]
    type: Annotated[
        Literal['game.PlayerChallenged'], Field(examples=['game.PlayerChallenged'])
    ]
    version: Annotated[int, Field(description='Its version in its stream.')]


class FeedEventGamePlayerEliminated(BaseModel):
    model_config = ConfigDict(
        extra='ignore',
    )
    data: PlayerEliminatedData
    hand: str | None = None
    position: Annotated[
        int,
        Field(
            description="The event's position in the log: pass it as `after` to go on from it."
        ),
    ]
    recorded_at: str
    stream: Annotated[str, Field(examples=['table-tb_3f9a1c2b7d4e5f60'])]
    type: Annotated[
        Literal['game.PlayerEliminated'], Field(examples=['game.PlayerEliminated'])
    ]
    version: Annotated[int, Field(description='Its version in its stream.')]


class FeedEventGameRoundStarted(BaseModel):
    model_config = ConfigDict(
        extra='ignore',
    )
    data: RoundStartedData
    hand: str | None = None
    position: Annotated[
        int,
        Field(
            description="The event's position in the log: pass it as `after` to go on from it."
        ),
    ]
    recorded_at: str
    stream: Annotated[str, Field(examples=['table-tb_3f9a1c2b7d4e5f60'])]
    type: Annotated[Literal['game.RoundStarted'], Field(examples=['game.RoundStarted'])]
    version: Annotated[int, Field(description='Its version in its stream.')]


class FeedEventGameSatOut(BaseModel):
    model_config = ConfigDict(
        extra='ignore',
    )
    data: SatOutData
    hand: str | None = None
    position: Annotated[
        int,
        Field(
            description="The event's position in the log: pass it as `after` to go on from it."
        ),
    ]
    recorded_at: str
    stream: Annotated[str, Field(examples=['table-tb_3f9a1c2b7d4e5f60'])]
    type: Annotated[Literal['game.SatOut'], Field(examples=['game.SatOut'])]
    version: Annotated[int, Field(description='Its version in its stream.')]


class FeedEventGameShortfallRecorded(BaseModel):
    model_config = ConfigDict(
        extra='ignore',
    )
    data: ShortfallRecordedData
    hand: str | None = None
    position: Annotated[
        int,
        Field(
            description="The event's position in the log: pass it as `after` to go on from it."
        ),
    ]
    recorded_at: str
    stream: Annotated[str, Field(examples=['table-tb_3f9a1c2b7d4e5f60'])]
    type: Annotated[
        Literal['game.ShortfallRecorded'], Field(examples=['game.ShortfallRecorded'])
    ]
    version: Annotated[int, Field(description='Its version in its stream.')]


class FeedEventGameSkeletonDeclared(BaseModel):
    model_config = ConfigDict(
        extra='ignore',
    )
    data: SkeletonDeclaredData
    hand: str | None = None
    position: Annotated[
        int,
        Field(
            description="The event's position in the log: pass it as `after` to go on from it."
        ),
    ]
    recorded_at: str
    stream: Annotated[str, Field(examples=['table-tb_3f9a1c2b7d4e5f60'])]
    type: Annotated[
        Literal['game.SkeletonDeclared'], Field(examples=['game.SkeletonDeclared'])
    ]
    version: Annotated[int, Field(description='Its version in its stream.')]


class FeedEventGameStakeAnnounced(BaseModel):
    model_config = ConfigDict(
        extra='ignore',
    )
    data: StakeAnnouncedData
    hand: str | None = None
    position: Annotated[
        int,
        Field(
            description="The event's position in the log: pass it as `after` to go on from it."
        ),
    ]
    recorded_at: str
    stream: Annotated[str, Field(examples=['table-tb_3f9a1c2b7d4e5f60'])]
    type: Annotated[
        Literal['game.StakeAnnounced'], Field(examples=['game.StakeAnnounced'])
    ]
    version: Annotated[int, Field(description='Its version in its stream.')]


class FeedEventGameStakeLost(BaseModel):
    model_config = ConfigDict(
        extra='ignore',
    )
    data: StakeLostData
    hand: str | None = None
    position: Annotated[
        int,
        Field(
            description="The event's position in the log: pass it as `after` to go on from it."
        ),
    ]
    recorded_at: str
    stream: Annotated[str, Field(examples=['table-tb_3f9a1c2b7d4e5f60'])]
    type: Annotated[Literal['game.StakeLost'], Field(examples=['game.StakeLost'])]
    version: Annotated[int, Field(description='Its version in its stream.')]


class FeedEventGameStakesPaid(BaseModel):
    model_config = ConfigDict(
        extra='ignore',
    )
    data: StakesPaidData
    hand: str | None = None
    position: Annotated[
        int,
        Field(
            description="The event's position in the log: pass it as `after` to go on from it."
        ),
    ]
    recorded_at: str
    stream: Annotated[str, Field(examples=['table-tb_3f9a1c2b7d4e5f60'])]
    type: Annotated[Literal['game.StakesPaid'], Field(examples=['game.StakesPaid'])]
    version: Annotated[int, Field(description='Its version in its stream.')]


class FeedEventGameStood(BaseModel):
    model_config = ConfigDict(
        extra='ignore',
    )
    data: StoodData
    hand: str | None = None
    position: Annotated[
        int,
        Field(
            description="The event's position in the log: pass it as `after` to go on from it."
        ),
    ]
    recorded_at: str
    stream: Annotated[str, Field(examples=['table-tb_3f9a1c2b7d4e5f60'])]
    type: Annotated[Literal['game.Stood'], Field(examples=['game.Stood'])]
    version: Annotated[int, Field(description='Its version in its stream.')]


class FeedEventGameTableDealt(BaseModel):
    model_config = ConfigDict(
        extra='ignore',
    )
    data: TableDealtData
    hand: str | None = None
    position: Annotated[
        int,
        Field(
            description="The event's position in the log: pass it as `after` to go on from it."
        ),
    ]
    recorded_at: str
    stream: Annotated[str, Field(examples=['table-tb_3f9a1c2b7d4e5f60'])]
    type: Annotated[Literal['game.TableDealt'], Field(examples=['game.TableDealt'])]
    version: Annotated[int, Field(description='Its version in its stream.')]


class FeedEventGameTurnPassed(BaseModel):
    model_config = ConfigDict(
        extra='ignore',
    )
    data: SevenHalfTurnPassedData | PiratePairsTurnPassedData
    hand: str | None = None
    position: Annotated[
        int,
        Field(
            description="The event's position in the log: pass it as `after` to go on from it."
        ),
    ]
    recorded_at: str
    stream: Annotated[str, Field(examples=['table-tb_3f9a1c2b7d4e5f60'])]
    type: Annotated[Literal['game.TurnPassed'], Field(examples=['game.TurnPassed'])]
    version: Annotated[int, Field(description='Its version in its stream.')]


class FeedEventGameVolunteered(BaseModel):
    model_config = ConfigDict(
        extra='ignore',
    )
    data: VolunteeredData
    hand: str | None = None
    position: Annotated[
        int,
        Field(
            description="The event's position in the log: pass it as `after` to go on from it."
        ),
    ]
    recorded_at: str
    stream: Annotated[str, Field(examples=['table-tb_3f9a1c2b7d4e5f60'])]
    type: Annotated[Literal['game.Volunteered'], Field(examples=['game.Volunteered'])]
    version: Annotated[int, Field(description='Its version in its stream.')]


class FeedEventHandBegan(BaseModel):
    model_config = ConfigDict(
        extra='ignore',
    )
    data: HandBeganData
    hand: str | None = None
    position: Annotated[
        int,
        Field(
            description="The event's position in the log: pass it as `after` to go on from it."
        ),
    ]
    recorded_at: str
    stream: Annotated[str, Field(examples=['table-tb_3f9a1c2b7d4e5f60'])]
    type: Annotated[Literal['HandBegan'], Field(examples=['HandBegan'])]
    version: Annotated[int, Field(description='Its version in its stream.')]


class FeedEventHandSettled(BaseModel):
    model_config = ConfigDict(
        extra='ignore',
    )
    data: HandSettledData
    hand: str | None = None
    position: Annotated[
        int,
        Field(
            description="The event's position in the log: pass it as `after` to go on from it."
        ),
    ]
    recorded_at: str
    stream: Annotated[str, Field(examples=['table-tb_3f9a1c2b7d4e5f60'])]
    type: Annotated[Literal['HandSettled'], Field(examples=['HandSettled'])]
    version: Annotated[int, Field(description='Its version in its stream.')]


class FeedEventOperatorKeyChanged(BaseModel):
    model_config = ConfigDict(
        extra='ignore',
    )
    data: OperatorKeyChangedData
    hand: str | None = None
    position: Annotated[
        int,
        Field(
            description="The event's position in the log: pass it as `after` to go on from it."
        ),
    ]
    recorded_at: str
    stream: Annotated[str, Field(examples=['table-tb_3f9a1c2b7d4e5f60'])]
    type: Annotated[
        Literal['OperatorKeyRevoked', 'OperatorKeyRotated'],
        Field(examples=['OperatorKeyRotated']),
    ]
    version: Annotated[int, Field(description='Its version in its stream.')]


class FeedEventOperatorKeyCreated(BaseModel):
    model_config = ConfigDict(
        extra='ignore',
    )
    data: OperatorKeyCreatedData
    hand: str | None = None
    position: Annotated[
        int,
        Field(
            description="The event's position in the log: pass it as `after` to go on from it."
        ),
    ]
    recorded_at: str
    stream: Annotated[str, Field(examples=['table-tb_3f9a1c2b7d4e5f60'])]
    type: Annotated[
        Literal['OperatorKeyCreated'], Field(examples=['OperatorKeyCreated'])
    ]
    version: Annotated[int, Field(description='Its version in its stream.')]


class FeedEventPlayerErased(BaseModel):
    model_config = ConfigDict(
        extra='ignore',
    )
    data: PlayerErasedData
    hand: str | None = None
    position: Annotated[
        int,
        Field(
            description="The event's position in the log: pass it as `after` to go on from it."
        ),
    ]
    recorded_at: str
    stream: Annotated[str, Field(examples=['table-tb_3f9a1c2b7d4e5f60'])]
    type: Annotated[Literal['PlayerErased'], Field(examples=['PlayerErased'])]
    version: Annotated[int, Field(description='Its version in its stream.')]


class FeedEventPlayerLeft(BaseModel):
    model_config = ConfigDict(
        extra='ignore',
    )
    data: PlayerLeftData
    hand: str | None = None
    position: Annotated[
        int,
        Field(
            description="The event's position in the log: pass it as `after` to go on from it."
        ),
    ]
    recorded_at: str
    stream: Annotated[str, Field(examples=['table-tb_3f9a1c2b7d4e5f60'])]
    type: Annotated[Literal['PlayerLeft'], Field(examples=['PlayerLeft'])]
    version: Annotated[int, Field(description='Its version in its stream.')]


class FeedEventPlayerRegistered(BaseModel):
    model_config = ConfigDict(
        extra='ignore',
    )
    data: PlayerRegisteredData
    hand: str | None = None
    position: Annotated[
        int,
        Field(
            description="The event's position in the log: pass it as `after` to go on from it."
        ),
    ]
    recorded_at: str
    stream: Annotated[str, Field(examples=['table-tb_3f9a1c2b7d4e5f60'])]
    type: Annotated[Literal['PlayerRegistered'], Field(examples=['PlayerRegistered'])]
    version: Annotated[int, Field(description='Its version in its stream.')]


class FeedEventPlayerSeated(BaseModel):
    model_config = ConfigDict(
        extra='ignore',
    )
    data: PlayerSeatedData
    hand: str | None = None
    position: Annotated[
        int,
        Field(
            description="The event's position in the log: pass it as `after` to go on from it."
        ),
    ]
    recorded_at: str
    stream: Annotated[str, Field(examples=['table-tb_3f9a1c2b7d4e5f60'])]
    type: Annotated[Literal['PlayerSeated'], Field(examples=['PlayerSeated'])]
    version: Annotated[int, Field(description='Its version in its stream.')]


class FeedEventSeedRevealed(BaseModel):
    model_config = ConfigDict(
        extra='ignore',
    )
    data: SeedRevealedData
    hand: str | None = None
    position: Annotated[
        int,
        Field(
            description="The event's position in the log: pass it as `after` to go on from it."
        ),
    ]
    recorded_at: str
    stream: Annotated[str, Field(examples=['table-tb_3f9a1c2b7d4e5f60'])]
    type: Annotated[Literal['SeedRevealed'], Field(examples=['SeedRevealed'])]
    version: Annotated[int, Field(description='Its version in its stream.')]


class FeedEventSettlementClaimed(BaseModel):
    model_config = ConfigDict(
        extra='ignore',
    )
    data: SettlementClaimedData
    hand: str | None = None
    position: Annotated[
        int,
        Field(
            description="The event's position in the log: pass it as `after` to go on from it."
        ),
    ]
    recorded_at: str
    stream: Annotated[str, Field(examples=['table-tb_3f9a1c2b7d4e5f60'])]
    type: Annotated[Literal['SettlementClaimed'], Field(examples=['SettlementClaimed'])]
    version: Annotated[int, Field(description='Its version in its stream.')]


class FeedEventTableCreated(BaseModel):
    model_config = ConfigDict(
        extra='ignore',
    )
    data: TableCreatedData
    hand: str | None = None
    position: Annotated[
        int,
        Field(
            description="The event's position in the log: pass it as `after` to go on from it."
        ),
    ]
    recorded_at: str
    stream: Annotated[str, Field(examples=['table-tb_3f9a1c2b7d4e5f60'])]
    type: Annotated[Literal['TableCreated'], Field(examples=['TableCreated'])]
    version: Annotated[int, Field(description='Its version in its stream.')]


class FeedEventTableEnded(BaseModel):
    model_config = ConfigDict(
        extra='ignore',
    )
    data: TableEndedData
    hand: str | None = None
    position: Annotated[
        int,
        Field(
            description="The event's position in the log: pass it as `after` to go on from it."
        ),
    ]
    recorded_at: str
    stream: Annotated[str, Field(examples=['table-tb_3f9a1c2b7d4e5f60'])]
    type: Annotated[Literal['TableEnded'], Field(examples=['TableEnded'])]
    version: Annotated[int, Field(description='Its version in its stream.')]


class FeedEventTokenChanged(BaseModel):
    model_config = ConfigDict(
        extra='ignore',
    )
    data: TokenChangedData
    hand: str | None = None
    position: Annotated[
        int,
        Field(
            description="The event's position in the log: pass it as `after` to go on from it."
        ),
    ]
    recorded_at: str
    stream: Annotated[str, Field(examples=['table-tb_3f9a1c2b7d4e5f60'])]
    type: Annotated[
        Literal['TokenIssued', 'TokenRevoked'], Field(examples=['TokenIssued'])
    ]
    version: Annotated[int, Field(description='Its version in its stream.')]


class FeedEventTreasurePosted(BaseModel):
    model_config = ConfigDict(
        extra='ignore',
    )
    data: TreasurePostedData
    hand: str | None = None
    position: Annotated[
        int,
        Field(
            description="The event's position in the log: pass it as `after` to go on from it."
        ),
    ]
    recorded_at: str
    stream: Annotated[str, Field(examples=['table-tb_3f9a1c2b7d4e5f60'])]
    type: Annotated[Literal['TreasurePosted'], Field(examples=['TreasurePosted'])]
    version: Annotated[int, Field(description='Its version in its stream.')]


class HandEndedData(BaseModel):
    """
    The hand is over: each hand's result, and the postings closing it, each `[from, to, amount, reason]` between the engine's accounts.
    """

    model_config = ConfigDict(
        extra='ignore',
    )
    next_banker: Annotated[int | None, Field(...)]
    postings: list[list[str | int]]
    results: list[HandResultData]


class HandOpenedData(BaseModel):
    """
    The hand opened: the seeds and the pile's order are the auditors' alone.
    """

    model_config = ConfigDict(
        extra='ignore',
    )
    at: float
    commitment: str
    pile: list[str] | None = None
    player_seeds: list[str] | None = None
    seats: list[OpeningSeatData]
    server_seed: str | None = None
    stake: int


class HistoryPage(BaseModel):
    model_config = ConfigDict(
        extra='ignore',
    )
    items: list[HistoryRow]
    next_cursor: Annotated[
        int | None,
        Field(description='Pass as `cursor` for the next page; null on the last page.'),
    ]


class IntegrityChainCheck(BaseModel):
    model_config = ConfigDict(
        extra='ignore',
    )
    event: Annotated[
        EventRef | None,
        Field(
            description='The event a failed check points at: its stream and version.',
            examples=[{'stream': 'table-tb_0123456789abcdef', 'version': 12}],
        ),
    ]
    evidence: ChainEvidence
    name: Literal['integrity.chain']
    passed: bool


class Jobs(BaseModel):
    model_config = ConfigDict(
        extra='ignore',
    )
    failed: int
    failed_jobs: Annotated[
        list[FailedJob],
        Field(
            description="The failed jobs of every queue, the queue's own first, at most `limit`."
        ),
    ]
    queue: Annotated[str, Field(examples=['banco'])]
    queued: Annotated[
        int,
        Field(
            description="The queue's own (as `scheduled`, `started` and `failed`); every queue's are in `queues`."
        ),
    ]
    queues: Annotated[
        list[Queue],
        Field(
            description="Every queue the service runs, the queue's own first, then its webhooks' lane (`<queue>-webhooks`): the queues `GET /metrics` reports."
        ),
    ]
    scheduled: int
    started: int
    workers: Annotated[
        list[Worker],
        Field(
            description="Every worker alive on the queue or its webhooks' lane, the queue's first: a `banco worker` process runs one on each."
        ),
    ]


class KeyList(BaseModel):
    model_config = ConfigDict(
        extra='ignore',
    )
    items: Annotated[
        list[Key],
        Field(
            description='Every key, live or not, oldest first (the bootstrap key is not listed).'
        ),
    ]
    scopes: Annotated[
        list[Scope], Field(description='Every scope a key may hold, and what it opens.')
    ]


class LedgerCheckResult(BaseModel):
    model_config = ConfigDict(
        extra='ignore',
    )
    accounts: int
    as_of_position: int
    drifting_accounts: list[Drift]
    negative_accounts: Annotated[
        int, Field(description='Accounts below 0 other than house:issued.')
    ]
    ok: bool
    stranded_accounts: Annotated[
        list[Stranded],
        Field(
            description='Accounts of tables that are over (a seat, a pot, an escrow) that still hold treasure: an ended table pays everything out.'
        ),
    ]
    total: Annotated[int, Field(description='The sum of every balance: 0.')]


class MoneyDoubleEntryCheck(BaseModel):
    model_config = ConfigDict(
        extra='ignore',
    )
    event: Annotated[
        EventRef | None,
        Field(
            description='The event a failed check points at: its stream and version.',
            examples=[{'stream': 'table-tb_0123456789abcdef', 'version': 12}],
        ),
    ]
    evidence: DoubleEntryEvidence
    name: Literal['money.double_entry']
    passed: bool


class MoneyNoNegativeCheck(BaseModel):
    model_config = ConfigDict(
        extra='ignore',
    )
    event: Annotated[
        EventRef | None,
        Field(
            description='The event a failed check points at: its stream and version.',
            examples=[{'stream': 'table-tb_0123456789abcdef', 'version': 12}],
        ),
    ]
    evidence: NoNegativeEvidence
    name: Literal['money.no_negative']
    passed: bool


class MoneySettlementCheck(BaseModel):
    model_config = ConfigDict(
        extra='ignore',
    )
    event: Annotated[
        EventRef | None,
        Field(
            description='The event a failed check points at: its stream and version.',
            examples=[{'stream': 'table-tb_0123456789abcdef', 'version': 12}],
        ),
    ]
    evidence: SettlementEvidence
    name: Literal['money.settlement']
    passed: bool


class OpeningCardsRevealedData(BaseModel):
    model_config = ConfigDict(
        extra='ignore',
    )
    at: float
    choices: list[SeatCardData]
    first: int


class PiratePairsTable(BaseModel):
    model_config = ConfigDict(
        extra='ignore',
    )
    game: Literal['pirate-pairs']
    hand: HandRef | None
    id: Annotated[str, Field(examples=['tb_5c1e0a9b3d2f4e61'])]
    legal_actions: Annotated[
        list[Annotated[ChooseAction | AttackAction | ChallengeAction | AccuseAction | DrawAction, Field(discriminator='type')]],
        Field(
            description='The actions open to you now: send one back (its ranges chosen).'
        ),
    ]
    options: PiratePairsOptions
    rules_version: Annotated[
        int,
        Field(
            description="The game's rules version the table plays: the one current when it was created, for its whole life (GET /v1/games lists each game's current version).",
            examples=[1],
        ),
    ]
    seats: list[Seat]
    status: Annotated[
        Literal['open', 'playing', 'settling', 'over'],
        Field(
            description='open (between hands), playing, settling (a finished hand is being paid) or over'
        ),
    ]
    turn: Annotated[
        PiratePairsTurn | None,
        Field(description='Whose move it is while a hand is in play; else null.'),
    ]
    variant: Annotated[
        str | None,
        Field(
            description="The listed variant (GET /v1/games) the table's options make it, or null when they make none (the game has no variants, or a Siete y media table without the 7½-takes-the-bank rule).",
            examples=['banker:lot'],
        ),
    ]
    version: Annotated[int, Field(description='Also the ETag; send it as If-Match.')]
    view: Annotated[
        PiratePairsView | None,
        Field(description='The hand in play (or the last one) as you may see it.'),
    ]
    you: Annotated[int | None, Field(description='Your seat, if any.')]


class PlayerPage(BaseModel):
    model_config = ConfigDict(
        extra='ignore',
    )
    items: list[PlayerSummary]
    next_cursor: Annotated[str | None, Field(...)]


class Readjudication(BaseModel):
    model_config = ConfigDict(
        extra='ignore',
    )
    events: list[EventDifference]
    events_compared: int
    events_differing: int
    hand_id: str
    hand_rules_version: int
    matches: Annotated[
        bool, Field(description='Whether the replay gives exactly what was recorded.')
    ]
    net: Annotated[
        list[NetDifference],
        Field(
            description='Per account, what the differing postings move, recorded and replayed.'
        ),
    ]
    postings: list[PostingDifference]
    postings_differing: int
    refused: Annotated[
        str | None,
        Field(
            description='The code of the recorded command the version refuses, if one: the replay ends there.',
            examples=['bet_out_of_range'],
        ),
    ]
    refused_command: RefusedCommand | None
    rules_version: int


class RoundScoredData(BaseModel):
    """
    Each side's round, the sides' totals and the winning side (null: the game goes on).
    """

    model_config = ConfigDict(
        extra='ignore',
    )
    round: int
    sides: list[SideScoreData]
    totals: list[int]
    winner: Annotated[int | None, Field(...)]
    winning_seats: list[int]


class RulesCheck(BaseModel):
    model_config = ConfigDict(
        extra='ignore',
    )
    event: Annotated[
        EventRef | None,
        Field(
            description='The event a failed check points at: its stream and version.',
            examples=[{'stream': 'table-tb_0123456789abcdef', 'version': 12}],
        ),
    ]
    evidence: RulesEvidence
    name: Literal['rules']
    passed: bool


class SetteEMezzoView(BaseModel):
    model_config = ConfigDict(
        extra='ignore',
    )
    balance_changes: Annotated[
        dict[str, int] | None,
        Field(
            description="Once the hand has ended: each seat's balance at the end less its balance at the deal, by seat, shortfalls included (what the hand's postings moved)."
        ),
    ] = None
    balances: dict[str, int]
    bank: SevenHalfHand
    banker: Annotated[int, Field(description="The banker's (meneur's) seat.")]
    called: list[int]
    cards_left: int
    commitment: str
    deck: Annotated[
        list[str] | None, Field(description='The cards left, to auditors.')
    ] = None
    game: Literal['sette-e-mezzo']
    hands: list[SevenHalfHand]
    next_banker: Annotated[
        int | None,
        Field(
            description='The seat that banks the next hand, once the hand has ended: the banker again, or the player at 7½ who takes the bank as the game says (Sette e mezzo, Siete y media); in Casino pirate the first player to show 7½, else the volunteer who took the post, else null (the meneur stays unless someone volunteers). Null while the hand is in play.'
        ),
    ]
    options: SetteOptions
    order: list[int]
    phase: SevenHalfPhase
    results: Annotated[
        list[SevenHalfResult] | None, Field(description='Once the hand has ended.')
    ] = None
    stake: int
    turn: SevenHalfTurn | None
    volunteers: Annotated[
        list[int],
        Field(
            description='Casino pirate: the seat that volunteered to be the next meneur (one at most).'
        ),
    ]


class SieteYMediaTable(BaseModel):
    model_config = ConfigDict(
        extra='ignore',
    )
    game: Literal['siete-y-media']
    hand: HandRef | None
    id: Annotated[str, Field(examples=['tb_5c1e0a9b3d2f4e61'])]
    legal_actions: Annotated[
        list[Annotated[BetOffer | HitAction | StandOffer | AnnounceOffer | SitOutAction | SplitAction, Field(discriminator='type')]],
        Field(
            description='The actions open to you now: send one back (its ranges chosen).'
        ),
    ]
    options: SieteOptions
    rules_version: Annotated[
        int,
        Field(
            description="The game's rules version the table plays: the one current when it was created, for its whole life (GET /v1/games lists each game's current version).",
            examples=[1],
        ),
    ]
    seats: list[Seat]
    status: Annotated[
        Literal['open', 'playing', 'settling', 'over'],
        Field(
            description='open (between hands), playing, settling (a finished hand is being paid) or over'
        ),
    ]
    turn: Annotated[
        SieteYMediaTurn | None,
        Field(description='Whose move it is while a hand is in play; else null.'),
    ]
    variant: Annotated[
        str | None,
        Field(
            description="The listed variant (GET /v1/games) the table's options make it, or null when they make none (the game has no variants, or a Siete y media table without the 7½-takes-the-bank rule).",
            examples=['banker:lot'],
        ),
    ]
    version: Annotated[int, Field(description='Also the ETag; send it as If-Match.')]
    view: Annotated[
        SieteYMediaView | None,
        Field(description='The hand in play (or the last one) as you may see it.'),
    ]
    you: Annotated[int | None, Field(description='Your seat, if any.')]


class Subscription(BaseModel):
    model_config = ConfigDict(
        extra='ignore',
    )
    created_at: AwareDatetime
    cursor: WebhookCursor
    event_types: list[str]
    failures: Annotated[
        int,
        Field(description='Failed attempts in a row at the event after the cursor.'),
    ]
    id: Annotated[str, Field(examples=['wh_3f9a1c2b7d4e5f60'])]
    next_attempt_at: Annotated[
        AwareDatetime | None,
        Field(description='When the next try is due (null while paused).'),
    ]
    paused_reason: Annotated[
        str | None,
        Field(
            description='Why it paused: the operator, or the failed attempts and the last error.'
        ),
    ]
    status: Literal['active', 'paused']
    updated_at: AwareDatetime
    url: str


class SubscriptionCreated(BaseModel):
    model_config = ConfigDict(
        extra='ignore',
    )
    secret: Annotated[
        str,
        Field(
            description='The signing secret: shown only in this answer.',
            examples=['whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw'],
        ),
    ]
    subscription: Subscription


class SubscriptionList(BaseModel):
    model_config = ConfigDict(
        extra='ignore',
    )
    items: list[Subscription]


class TableEventGameDealerCardsDrawn(BaseModel):
    model_config = ConfigDict(
        extra='ignore',
    )
    data: DealerCardsDrawnData
    hand: str | None = None
    kind: Annotated[Literal['game'], Field(examples=['game'])]
    recorded_at: str
    type: Annotated[Literal['DealerCardsDrawn'], Field(examples=['DealerCardsDrawn'])]
    version: int


class TableEventGameHandEnded(BaseModel):
    model_config = ConfigDict(
        extra='ignore',
    )
    data: HandEndedData
    hand: str | None = None
    kind: Annotated[Literal['game'], Field(examples=['game'])]
    recorded_at: str
    type: Annotated[Literal['HandEnded'], Field(examples=['HandEnded'])]
    version: int


class TableEventGameHandOpened(BaseModel):
    model_config = ConfigDict(
        extra='ignore',
    )
    data: HandOpenedData
    hand: str | None = None
    kind: Annotated[Literal['game'], Field(examples=['game'])]
    recorded_at: str
    type: Annotated[Literal['HandOpened'], Field(examples=['HandOpened'])]
    version: int


class TableEventGameOpeningCardsRevealed(BaseModel):
    model_config = ConfigDict(
        extra='ignore',
    )
    data: OpeningCardsRevealedData
    hand: str | None = None
    kind: Annotated[Literal['game'], Field(examples=['game'])]
    recorded_at: str
    type: Annotated[
        Literal['OpeningCardsRevealed'], Field(examples=['OpeningCardsRevealed'])
    ]
    version: int


class TableEventGameRoundScored(BaseModel):
    model_config = ConfigDict(
        extra='ignore',
    )
    data: RoundScoredData
    hand: str | None = None
    kind: Annotated[Literal['game'], Field(examples=['game'])]
    recorded_at: str
    type: Annotated[Literal['RoundScored'], Field(examples=['RoundScored'])]
    version: int


class TableEventGameVolunteered(BaseModel):
    model_config = ConfigDict(
        extra='ignore',
    )
    data: VolunteeredData
    hand: str | None = None
    kind: Annotated[Literal['game'], Field(examples=['game'])]
    recorded_at: str
    type: Annotated[Literal['Volunteered'], Field(examples=['Volunteered'])]
    version: int


class TableEventTokenChanged(BaseModel):
    model_config = ConfigDict(
        extra='ignore',
    )
    data: TokenChangedData
    hand: str | None = None
    kind: Annotated[Literal['table'], Field(examples=['table'])]
    recorded_at: str
    type: Annotated[
        Literal['TokenIssued', 'TokenRevoked'], Field(examples=['TokenIssued'])
    ]
    version: int


class TableEventTreasurePosted(BaseModel):
    model_config = ConfigDict(
        extra='ignore',
    )
    data: TreasurePostedData
    hand: str | None = None
    kind: Annotated[Literal['ledger'], Field(examples=['ledger'])]
    recorded_at: str
    type: Annotated[Literal['TreasurePosted'], Field(examples=['TreasurePosted'])]
    version: int


class TablePage(BaseModel):
    model_config = ConfigDict(
        extra='ignore',
    )
    items: list[TableSummary]
    next_cursor: Annotated[
        str | None,
        Field(
            description="Send as `cursor`, with the same filters, for the next page; null on the last page. Opaque: it names the page's last table and the filters it was listed under."
        ),
    ]


class Action(
    RootModel[
        SetteEMezzoBetAction
        | HitAction
        | StandAction
        | BetAction
        | AnnounceAction
        | SitOutAction
        | SplitAction
        | HideAction
        | DeclareAction
        | CallAction
        | RevealAction
        | ConcedeAction
        | VolunteerAction
        | ChooseAction
        | AttackAction
        | ChallengeAction
        | AccuseAction
        | DrawAction
        | CaptureAction
        | BuildAction
        | ReserveAction
        | ExtendAction
        | TrailAction
    ]
):
    root: Annotated[
        SetteEMezzoBetAction | HitAction | StandAction | BetAction | AnnounceAction | SitOutAction | SplitAction | HideAction | DeclareAction | CallAction | RevealAction | ConcedeAction | VolunteerAction | ChooseAction | AttackAction | ChallengeAction | AccuseAction | DrawAction | CaptureAction | BuildAction | ReserveAction | ExtendAction | TrailAction,
        Field(
            description='`{"type": ..., ...parameters}`, one of your `legal_actions` with its ranges chosen: an action of the table\'s game (an action several games share is each game\'s).'
        ),
    ]


class CasinoPirateTable(BaseModel):
    model_config = ConfigDict(
        extra='ignore',
    )
    game: Literal['casino-pirate']
    hand: HandRef | None
    id: Annotated[str, Field(examples=['tb_5c1e0a9b3d2f4e61'])]
    legal_actions: Annotated[
        list[Annotated[BetOffer | HitAction | StandOffer | HideAction | DeclareOffer | CallAction | RevealOffer | ConcedeAction | VolunteerAction, Field(discriminator='type')]],
        Field(
            description='The actions open to you now: send one back (its ranges chosen).'
        ),
    ]
    options: PirateOptions
    rules_version: Annotated[
        int,
        Field(
            description="The game's rules version the table plays: the one current when it was created, for its whole life (GET /v1/games lists each game's current version).",
            examples=[1],
        ),
    ]
    seats: list[Seat]
    status: Annotated[
        Literal['open', 'playing', 'settling', 'over'],
        Field(
            description='open (between hands), playing, settling (a finished hand is being paid) or over'
        ),
    ]
    turn: Annotated[
        CasinoPirateTurn | None,
        Field(description='Whose move it is while a hand is in play; else null.'),
    ]
    variant: Annotated[
        str | None,
        Field(
            description="The listed variant (GET /v1/games) the table's options make it, or null when they make none (the game has no variants, or a Siete y media table without the 7½-takes-the-bank rule).",
            examples=['banker:lot'],
        ),
    ]
    version: Annotated[int, Field(description='Also the ETag; send it as If-Match.')]
    view: Annotated[
        CasinoPirateView | None,
        Field(description='The hand in play (or the last one) as you may see it.'),
    ]
    you: Annotated[int | None, Field(description='Your seat, if any.')]


class FeedEventGameHandEnded(BaseModel):
    model_config = ConfigDict(
        extra='ignore',
    )
    data: HandEndedData
    hand: str | None = None
    position: Annotated[
        int,
        Field(
            description="The event's position in the log: pass it as `after` to go on from it."
        ),
    ]
    recorded_at: str
    stream: Annotated[str, Field(examples=['table-tb_3f9a1c2b7d4e5f60'])]
    type: Annotated[Literal['game.HandEnded'], Field(examples=['game.HandEnded'])]
    version: Annotated[int, Field(description='Its version in its stream.')]


class FeedEventGameHandOpened(BaseModel):
    model_config = ConfigDict(
        extra='ignore',
    )
    data: HandOpenedData
    hand: str | None = None
    position: Annotated[
        int,
        Field(
            description="The event's position in the log: pass it as `after` to go on from it."
        ),
    ]
    recorded_at: str
    stream: Annotated[str, Field(examples=['table-tb_3f9a1c2b7d4e5f60'])]
    type: Annotated[Literal['game.HandOpened'], Field(examples=['game.HandOpened'])]
    version: Annotated[int, Field(description='Its version in its stream.')]


class FeedEventGameOpeningCardsRevealed(BaseModel):
    model_config = ConfigDict(
        extra='ignore',
    )
    data: OpeningCardsRevealedData
    hand: str | None = None
    position: Annotated[
        int,
        Field(
            description="The event's position in the log: pass it as `after` to go on from it."
        ),
    ]
    recorded_at: str
    stream: Annotated[str, Field(examples=['table-tb_3f9a1c2b7d4e5f60'])]
    type: Annotated[
        Literal['game.OpeningCardsRevealed'],
        Field(examples=['game.OpeningCardsRevealed']),
    ]
    version: Annotated[int, Field(description='Its version in its stream.')]


class FeedEventGameRoundScored(BaseModel):
    model_config = ConfigDict(
        extra='ignore',
    )
    data: RoundScoredData
    hand: str | None = None
    position: Annotated[
        int,
        Field(
            description="The event's position in the log: pass it as `after` to go on from it."
        ),
    ]
    recorded_at: str
    stream: Annotated[str, Field(examples=['table-tb_3f9a1c2b7d4e5f60'])]
    type: Annotated[Literal['game.RoundScored'], Field(examples=['game.RoundScored'])]
    version: Annotated[int, Field(description='Its version in its stream.')]


class Hand(BaseModel):
    model_config = ConfigDict(
        extra='ignore',
    )
    commitment: str
    disputes: Annotated[
        list[HandDispute] | None,
        Field(
            description='The disputes about the hand that you may read (as GET /v1/disputes lists them: a player those of his hands, a key only with `disputes:read`), oldest first, with the corrective postings their resolutions made (GET /v1/hands/{hand_id} only).'
        ),
    ] = None
    id: Annotated[str, Field(examples=['hd_0a1b2c3d4e5f6071'])]
    number: int
    opened_at: AwareDatetime
    outcome: Annotated[
        SetteEMezzoView | SieteYMediaView | CasinoPirateView | PiratePairsView | CassinoView | None,
        Field(
            description='The final state of the hand as you may see it, once settled.'
        ),
    ]
    postings: Annotated[
        list[HandPosting] | None,
        Field(description='The treasure the settlement moved, once settled.'),
    ]
    rules_version: Annotated[
        int,
        Field(
            description="The game's rules version the hand was played (and is verified) with: its table's.",
            examples=[1],
        ),
    ]
    seats: Annotated[
        list[HandSeat], Field(description='The seats as the hand was dealt.')
    ]
    server_seed: Annotated[
        str | None,
        Field(
            description='Revealed once the hand is settled (Casino pirate: to auditors only).'
        ),
    ]
    settled_at: Annotated[AwareDatetime | None, Field(...)]
    status: Annotated[
        Literal['playing', 'settling', 'settled'], Field(examples=['settled'])
    ]
    table_id: Annotated[str, Field(examples=['tb_5c1e0a9b3d2f4e61'])]


class HandPage(BaseModel):
    model_config = ConfigDict(
        extra='ignore',
    )
    items: list[Hand]
    next_cursor: Annotated[
        int | None,
        Field(
            description="The number of the page's last hand, to send as `cursor` for the next page; null on the last page."
        ),
    ]


class LedgerCheck(BaseModel):
    model_config = ConfigDict(
        extra='ignore',
    )
    id: Annotated[str, Field(examples=['b7f1c0de-0000-4000-8000-000000000000'])]
    result: Annotated[
        LedgerCheckResult | None,
        Field(description='Null until the check has finished.'),
    ] = None
    status: Annotated[str, Field(examples=['finished'])]


class ReplayStepAuditorRegistered(BaseModel):
    model_config = ConfigDict(
        extra='ignore',
    )
    cause: Cause
    data: AuditorRegisteredData
    hand: str | None = None
    kind: Annotated[Literal['table'], Field(examples=['table'])]
    recorded_at: str
    state: Annotated[
        SetteEMezzoView | SieteYMediaView | CasinoPirateView | PiratePairsView | CassinoView | None,
        Field(description='The hand after this event, as you may see it.'),
    ]
    step: int
    timeout: Annotated[bool, Field(description='Caused by a timeout.')]
    type: Annotated[Literal['AuditorRegistered'], Field(examples=['AuditorRegistered'])]
    version: Annotated[int, Field(description="The table stream's version.")]


class ReplayStepDeadlineSet(BaseModel):
    model_config = ConfigDict(
        extra='ignore',
    )
    cause: Cause
    data: DeadlineSetData
    hand: str | None = None
    kind: Annotated[Literal['table'], Field(examples=['table'])]
    recorded_at: str
    state: Annotated[
        SetteEMezzoView | SieteYMediaView | CasinoPirateView | PiratePairsView | CassinoView | None,
        Field(description='The hand after this event, as you may see it.'),
    ]
    step: int
    timeout: Annotated[bool, Field(description='Caused by a timeout.')]
    type: Annotated[Literal['DeadlineSet'], Field(examples=['DeadlineSet'])]
    version: Annotated[int, Field(description="The table stream's version.")]


class ReplayStepDisputeEvidenceAttached(BaseModel):
    model_config = ConfigDict(
        extra='ignore',
    )
    cause: Cause
    data: DisputeEvidenceAttachedData
    hand: str | None = None
    kind: Annotated[Literal['table'], Field(examples=['table'])]
    recorded_at: str
    state: Annotated[
        SetteEMezzoView | SieteYMediaView | CasinoPirateView | PiratePairsView | CassinoView | None,
        Field(description='The hand after this event, as you may see it.'),
    ]
    step: int
    timeout: Annotated[bool, Field(description='Caused by a timeout.')]
    type: Annotated[
        Literal['DisputeEvidenceAttached'], Field(examples=['DisputeEvidenceAttached'])
    ]
    version: Annotated[int, Field(description="The table stream's version.")]


class ReplayStepDisputeOpened(BaseModel):
    model_config = ConfigDict(
        extra='ignore',
    )
    cause: Cause
    data: DisputeOpenedData
    hand: str | None = None
    kind: Annotated[Literal['table'], Field(examples=['table'])]
    recorded_at: str
    state: Annotated[
        SetteEMezzoView | SieteYMediaView | CasinoPirateView | PiratePairsView | CassinoView | None,
        Field(description='The hand after this event, as you may see it.'),
    ]
    step: int
    timeout: Annotated[bool, Field(description='Caused by a timeout.')]
    type: Annotated[Literal['DisputeOpened'], Field(examples=['DisputeOpened'])]
    version: Annotated[int, Field(description="The table stream's version.")]


class ReplayStepDisputeReadjudicated(BaseModel):
    model_config = ConfigDict(
        extra='ignore',
    )
    cause: Cause
    data: DisputeReadjudicatedData
    hand: str | None = None
    kind: Annotated[Literal['table'], Field(examples=['table'])]
    recorded_at: str
    state: Annotated[
        SetteEMezzoView | SieteYMediaView | CasinoPirateView | PiratePairsView | CassinoView | None,
        Field(description='The hand after this event, as you may see it.'),
    ]
    step: int
    timeout: Annotated[bool, Field(description='Caused by a timeout.')]
    type: Annotated[
        Literal['DisputeReadjudicated'], Field(examples=['DisputeReadjudicated'])
    ]
    version: Annotated[int, Field(description="The table stream's version.")]


class ReplayStepDisputeRejected(BaseModel):
    model_config = ConfigDict(
        extra='ignore',
    )
    cause: Cause
    data: DisputeRejectedData
    hand: str | None = None
    kind: Annotated[Literal['table'], Field(examples=['table'])]
    recorded_at: str
    state: Annotated[
        SetteEMezzoView | SieteYMediaView | CasinoPirateView | PiratePairsView | CassinoView | None,
        Field(description='The hand after this event, as you may see it.'),
    ]
    step: int
    timeout: Annotated[bool, Field(description='Caused by a timeout.')]
    type: Annotated[Literal['DisputeRejected'], Field(examples=['DisputeRejected'])]
    version: Annotated[int, Field(description="The table stream's version.")]


class ReplayStepDisputeResolved(BaseModel):
    model_config = ConfigDict(
        extra='ignore',
    )
    cause: Cause
    data: DisputeResolvedData
    hand: str | None = None
    kind: Annotated[Literal['table'], Field(examples=['table'])]
    recorded_at: str
    state: Annotated[
        SetteEMezzoView | SieteYMediaView | CasinoPirateView | PiratePairsView | CassinoView | None,
        Field(description='The hand after this event, as you may see it.'),
    ]
    step: int
    timeout: Annotated[bool, Field(description='Caused by a timeout.')]
    type: Annotated[Literal['DisputeResolved'], Field(examples=['DisputeResolved'])]
    version: Annotated[int, Field(description="The table stream's version.")]


class ReplayStepGameBetPlaced(BaseModel):
    model_config = ConfigDict(
        extra='ignore',
    )
    cause: Cause
    data: BetPlacedData
    hand: str | None = None
    kind: Annotated[Literal['game'], Field(examples=['game'])]
    recorded_at: str
    state: Annotated[
        SetteEMezzoView | SieteYMediaView | CasinoPirateView | PiratePairsView | CassinoView | None,
        Field(description='The hand after this event, as you may see it.'),
    ]
    step: int
    timeout: Annotated[bool, Field(description='Caused by a timeout.')]
    type: Annotated[Literal['BetPlaced'], Field(examples=['BetPlaced'])]
    version: Annotated[int, Field(description="The table stream's version.")]


class ReplayStepGameBuildExtended(BaseModel):
    model_config = ConfigDict(
        extra='ignore',
    )
    cause: Cause
    data: BuildExtendedData
    hand: str | None = None
    kind: Annotated[Literal['game'], Field(examples=['game'])]
    recorded_at: str
    state: Annotated[
        SetteEMezzoView | SieteYMediaView | CasinoPirateView | PiratePairsView | CassinoView | None,
        Field(description='The hand after this event, as you may see it.'),
    ]
    step: int
    timeout: Annotated[bool, Field(description='Caused by a timeout.')]
    type: Annotated[Literal['BuildExtended'], Field(examples=['BuildExtended'])]
    version: Annotated[int, Field(description="The table stream's version.")]


class ReplayStepGameBuildMade(BaseModel):
    model_config = ConfigDict(
        extra='ignore',
    )
    cause: Cause
    data: BuildMadeData
    hand: str | None = None
    kind: Annotated[Literal['game'], Field(examples=['game'])]
    recorded_at: str
    state: Annotated[
        SetteEMezzoView | SieteYMediaView | CasinoPirateView | PiratePairsView | CassinoView | None,
        Field(description='The hand after this event, as you may see it.'),
    ]
    step: int
    timeout: Annotated[bool, Field(description='Caused by a timeout.')]
    type: Annotated[Literal['BuildMade'], Field(examples=['BuildMade'])]
    version: Annotated[int, Field(description="The table stream's version.")]


class ReplayStepGameBuildReserved(BaseModel):
    model_config = ConfigDict(
        extra='ignore',
    )
    cause: Cause
    data: BuildReservedData
    hand: str | None = None
    kind: Annotated[Literal['game'], Field(examples=['game'])]
    recorded_at: str
    state: Annotated[
        SetteEMezzoView | SieteYMediaView | CasinoPirateView | PiratePairsView | CassinoView | None,
        Field(description='The hand after this event, as you may see it.'),
    ]
    step: int
    timeout: Annotated[bool, Field(description='Caused by a timeout.')]
    type: Annotated[Literal['BuildReserved'], Field(examples=['BuildReserved'])]
    version: Annotated[int, Field(description="The table stream's version.")]


class ReplayStepGameCallDecided(BaseModel):
    model_config = ConfigDict(
        extra='ignore',
    )
    cause: Cause
    data: CallDecidedData
    hand: str | None = None
    kind: Annotated[Literal['game'], Field(examples=['game'])]
    recorded_at: str
    state: Annotated[
        SetteEMezzoView | SieteYMediaView | CasinoPirateView | PiratePairsView | CassinoView | None,
        Field(description='The hand after this event, as you may see it.'),
    ]
    step: int
    timeout: Annotated[bool, Field(description='Caused by a timeout.')]
    type: Annotated[Literal['CallDecided'], Field(examples=['CallDecided'])]
    version: Annotated[int, Field(description="The table stream's version.")]


class ReplayStepGameCardDealt(BaseModel):
    model_config = ConfigDict(
        extra='ignore',
    )
    cause: Cause
    data: CardDealtData
    hand: str | None = None
    kind: Annotated[Literal['game'], Field(examples=['game'])]
    recorded_at: str
    state: Annotated[
        SetteEMezzoView | SieteYMediaView | CasinoPirateView | PiratePairsView | CassinoView | None,
        Field(description='The hand after this event, as you may see it.'),
    ]
    step: int
    timeout: Annotated[bool, Field(description='Caused by a timeout.')]
    type: Annotated[Literal['CardDealt'], Field(examples=['CardDealt'])]
    version: Annotated[int, Field(description="The table stream's version.")]


class ReplayStepGameCardDrawn(BaseModel):
    model_config = ConfigDict(
        extra='ignore',
    )
    cause: Cause
    data: PiratePairsCardDrawnData | CassinoCardDrawnData
    hand: str | None = None
    kind: Annotated[Literal['game'], Field(examples=['game'])]
    recorded_at: str
    state: Annotated[
        SetteEMezzoView | SieteYMediaView | CasinoPirateView | PiratePairsView | CassinoView | None,
        Field(description='The hand after this event, as you may see it.'),
    ]
    step: int
    timeout: Annotated[bool, Field(description='Caused by a timeout.')]
    type: Annotated[Literal['CardDrawn'], Field(examples=['CardDrawn'])]
    version: Annotated[int, Field(description="The table stream's version.")]


class ReplayStepGameCardTrailed(BaseModel):
    model_config = ConfigDict(
        extra='ignore',
    )
    cause: Cause
    data: CardTrailedData
    hand: str | None = None
    kind: Annotated[Literal['game'], Field(examples=['game'])]
    recorded_at: str
    state: Annotated[
        SetteEMezzoView | SieteYMediaView | CasinoPirateView | PiratePairsView | CassinoView | None,
        Field(description='The hand after this event, as you may see it.'),
    ]
    step: int
    timeout: Annotated[bool, Field(description='Caused by a timeout.')]
    type: Annotated[Literal['CardTrailed'], Field(examples=['CardTrailed'])]
    version: Annotated[int, Field(description="The table stream's version.")]


class ReplayStepGameCardTurnedUp(BaseModel):
    model_config = ConfigDict(
        extra='ignore',
    )
    cause: Cause
    data: CardTurnedUpData
    hand: str | None = None
    kind: Annotated[Literal['game'], Field(examples=['game'])]
    recorded_at: str
    state: Annotated[
        SetteEMezzoView | SieteYMediaView | CasinoPirateView | PiratePairsView | CassinoView | None,
        Field(description='The hand after this event, as you may see it.'),
    ]
    step: int
    timeout: Annotated[bool, Field(description='Caused by a timeout.')]
    type: Annotated[Literal['CardTurnedUp'], Field(examples=['CardTurnedUp'])]
    version: Annotated[int, Field(description="The table stream's version.")]


class ReplayStepGameCardsCaptured(BaseModel):
    model_config = ConfigDict(
        extra='ignore',
    )
    cause: Cause
    data: CardsCapturedData
    hand: str | None = None
    kind: Annotated[Literal['game'], Field(examples=['game'])]
    recorded_at: str
    state: Annotated[
        SetteEMezzoView | SieteYMediaView | CasinoPirateView | PiratePairsView | CassinoView | None,
        Field(description='The hand after this event, as you may see it.'),
    ]
    step: int
    timeout: Annotated[bool, Field(description='Caused by a timeout.')]
    type: Annotated[Literal['CardsCaptured'], Field(examples=['CardsCaptured'])]
    version: Annotated[int, Field(description="The table stream's version.")]


class ReplayStepGameCardsDealt(BaseModel):
    model_config = ConfigDict(
        extra='ignore',
    )
    cause: Cause
    data: CardsDealtData
    hand: str | None = None
    kind: Annotated[Literal['game'], Field(examples=['game'])]
    recorded_at: str
    state: Annotated[
        SetteEMezzoView | SieteYMediaView | CasinoPirateView | PiratePairsView | CassinoView | None,
        Field(description='The hand after this event, as you may see it.'),
    ]
    step: int
    timeout: Annotated[bool, Field(description='Caused by a timeout.')]
    type: Annotated[Literal['CardsDealt'], Field(examples=['CardsDealt'])]
    version: Annotated[int, Field(description="The table stream's version.")]


class ReplayStepGameCardsShown(BaseModel):
    model_config = ConfigDict(
        extra='ignore',
    )
    cause: Cause
    data: CardsShownData
    hand: str | None = None
    kind: Annotated[Literal['game'], Field(examples=['game'])]
    recorded_at: str
    state: Annotated[
        SetteEMezzoView | SieteYMediaView | CasinoPirateView | PiratePairsView | CassinoView | None,
        Field(description='The hand after this event, as you may see it.'),
    ]
    step: int
    timeout: Annotated[bool, Field(description='Caused by a timeout.')]
    type: Annotated[Literal['CardsShown'], Field(examples=['CardsShown'])]
    version: Annotated[int, Field(description="The table stream's version.")]


class ReplayStepGameDealerCardsDrawn(BaseModel):
    model_config = ConfigDict(
        extra='ignore',
    )
    cause: Cause
    data: DealerCardsDrawnData
    hand: str | None = None
    kind: Annotated[Literal['game'], Field(examples=['game'])]
    recorded_at: str
    state: Annotated[
        SetteEMezzoView | SieteYMediaView | CasinoPirateView | PiratePairsView | CassinoView | None,
        Field(description='The hand after this event, as you may see it.'),
    ]
    step: int
    timeout: Annotated[bool, Field(description='Caused by a timeout.')]
    type: Annotated[Literal['DealerCardsDrawn'], Field(examples=['DealerCardsDrawn'])]
    version: Annotated[int, Field(description="The table stream's version.")]


class ReplayStepGameDealerChosen(BaseModel):
    model_config = ConfigDict(
        extra='ignore',
    )
    cause: Cause
    data: DealerChosenData
    hand: str | None = None
    kind: Annotated[Literal['game'], Field(examples=['game'])]
    recorded_at: str
    state: Annotated[
        SetteEMezzoView | SieteYMediaView | CasinoPirateView | PiratePairsView | CassinoView | None,
        Field(description='The hand after this event, as you may see it.'),
    ]
    step: int
    timeout: Annotated[bool, Field(description='Caused by a timeout.')]
    type: Annotated[Literal['DealerChosen'], Field(examples=['DealerChosen'])]
    version: Annotated[int, Field(description="The table stream's version.")]


class ReplayStepGameDeckShuffled(BaseModel):
    model_config = ConfigDict(
        extra='ignore',
    )
    cause: Cause
    data: DeckShuffledData
    hand: str | None = None
    kind: Annotated[Literal['game'], Field(examples=['game'])]
    recorded_at: str
    state: Annotated[
        SetteEMezzoView | SieteYMediaView | CasinoPirateView | PiratePairsView | CassinoView | None,
        Field(description='The hand after this event, as you may see it.'),
    ]
    step: int
    timeout: Annotated[bool, Field(description='Caused by a timeout.')]
    type: Annotated[Literal['DeckShuffled'], Field(examples=['DeckShuffled'])]
    version: Annotated[int, Field(description="The table stream's version.")]


class ReplayStepGameDiscardsReshuffled(BaseModel):
    model_config = ConfigDict(
        extra='ignore',
    )
    cause: Cause
    data: DiscardsReshuffledData
    hand: str | None = None
    kind: Annotated[Literal['game'], Field(examples=['game'])]
    recorded_at: str
    state: Annotated[
        SetteEMezzoView | SieteYMediaView | CasinoPirateView | PiratePairsView | CassinoView | None,
        Field(description='The hand after this event, as you may see it.'),
    ]
    step: int
    timeout: Annotated[bool, Field(description='Caused by a timeout.')]
    type: Annotated[
        Literal['DiscardsReshuffled'], Field(examples=['DiscardsReshuffled'])
    ]
    version: Annotated[int, Field(description="The table stream's version.")]


class ReplayStepGameGameWon(BaseModel):
    model_config = ConfigDict(
        extra='ignore',
    )
    cause: Cause
    data: GameWonData
    hand: str | None = None
    kind: Annotated[Literal['game'], Field(examples=['game'])]
    recorded_at: str
    state: Annotated[
        SetteEMezzoView | SieteYMediaView | CasinoPirateView | PiratePairsView | CassinoView | None,
        Field(description='The hand after this event, as you may see it.'),
    ]
    step: int
    timeout: Annotated[bool, Field(description='Caused by a timeout.')]
    type: Annotated[Literal['GameWon'], Field(examples=['GameWon'])]
    version: Annotated[int, Field(description="The table stream's version.")]


class ReplayStepGameHandEnded(BaseModel):
    model_config = ConfigDict(
        extra='ignore',
    )
    cause: Cause
    data: HandEndedData
    hand: str | None = None
    kind: Annotated[Literal['game'], Field(examples=['game'])]
    recorded_at: str
    state: Annotated[
        SetteEMezzoView | SieteYMediaView | CasinoPirateView | PiratePairsView | CassinoView | None,
        Field(description='The hand after this event, as you may see it.'),
    ]
    step: int
    timeout: Annotated[bool, Field(description='Caused by a timeout.')]
    type: Annotated[Literal['HandEnded'], Field(examples=['HandEnded'])]
    version: Annotated[int, Field(description="The table stream's version.")]


class ReplayStepGameHandOpened(BaseModel):
    model_config = ConfigDict(
        extra='ignore',
    )
    cause: Cause
    data: HandOpenedData
    hand: str | None = None
    kind: Annotated[Literal['game'], Field(examples=['game'])]
    recorded_at: str
    state: Annotated[
        SetteEMezzoView | SieteYMediaView | CasinoPirateView | PiratePairsView | CassinoView | None,
        Field(description='The hand after this event, as you may see it.'),
    ]
    step: int
    timeout: Annotated[bool, Field(description='Caused by a timeout.')]
    type: Annotated[Literal['HandOpened'], Field(examples=['HandOpened'])]
    version: Annotated[int, Field(description="The table stream's version.")]


class ReplayStepGameHandSplit(BaseModel):
    model_config = ConfigDict(
        extra='ignore',
    )
    cause: Cause
    data: HandSplitData
    hand: str | None = None
    kind: Annotated[Literal['game'], Field(examples=['game'])]
    recorded_at: str
    state: Annotated[
        SetteEMezzoView | SieteYMediaView | CasinoPirateView | PiratePairsView | CassinoView | None,
        Field(description='The hand after this event, as you may see it.'),
    ]
    step: int
    timeout: Annotated[bool, Field(description='Caused by a timeout.')]
    type: Annotated[Literal['HandSplit'], Field(examples=['HandSplit'])]
    version: Annotated[int, Field(description="The table stream's version.")]


class ReplayStepGameHandStarted(BaseModel):
    model_config = ConfigDict(
        extra='ignore',
    )
    cause: Cause
    data: HandStartedData
    hand: str | None = None
    kind: Annotated[Literal['game'], Field(examples=['game'])]
    recorded_at: str
    state: Annotated[
        SetteEMezzoView | SieteYMediaView | CasinoPirateView | PiratePairsView | CassinoView | None,
        Field(description='The hand after this event, as you may see it.'),
    ]
    step: int
    timeout: Annotated[bool, Field(description='Caused by a timeout.')]
    type: Annotated[Literal['HandStarted'], Field(examples=['HandStarted'])]
    version: Annotated[int, Field(description="The table stream's version.")]


class ReplayStepGameLeftoversTaken(BaseModel):
    model_config = ConfigDict(
        extra='ignore',
    )
    cause: Cause
    data: LeftoversTakenData
    hand: str | None = None
    kind: Annotated[Literal['game'], Field(examples=['game'])]
    recorded_at: str
    state: Annotated[
        SetteEMezzoView | SieteYMediaView | CasinoPirateView | PiratePairsView | CassinoView | None,
        Field(description='The hand after this event, as you may see it.'),
    ]
    step: int
    timeout: Annotated[bool, Field(description='Caused by a timeout.')]
    type: Annotated[Literal['LeftoversTaken'], Field(examples=['LeftoversTaken'])]
    version: Annotated[int, Field(description="The table stream's version.")]


class ReplayStepGameOpeningCardChosen(BaseModel):
    model_config = ConfigDict(
        extra='ignore',
    )
    cause: Cause
    data: OpeningCardChosenData
    hand: str | None = None
    kind: Annotated[Literal['game'], Field(examples=['game'])]
    recorded_at: str
    state: Annotated[
        SetteEMezzoView | SieteYMediaView | CasinoPirateView | PiratePairsView | CassinoView | None,
        Field(description='The hand after this event, as you may see it.'),
    ]
    step: int
    timeout: Annotated[bool, Field(description='Caused by a timeout.')]
    type: Annotated[Literal['OpeningCardChosen'], Field(examples=['OpeningCardChosen'])]
    version: Annotated[int, Field(description="The table stream's version.")]


class ReplayStepGameOpeningCardsRevealed(BaseModel):
    model_config = ConfigDict(
        extra='ignore',
    )
    cause: Cause
    data: OpeningCardsRevealedData
    hand: str | None = None
    kind: Annotated[Literal['game'], Field(examples=['game'])]
    recorded_at: str
    state: Annotated[
        SetteEMezzoView | SieteYMediaView | CasinoPirateView | PiratePairsView | CassinoView | None,
        Field(description='The hand after this event, as you may see it.'),
    ]
    step: int
    timeout: Annotated[bool, Field(description='Caused by a timeout.')]
    type: Annotated[
        Literal['OpeningCardsRevealed'], Field(examples=['OpeningCardsRevealed'])
    ]
    version: Annotated[int, Field(description="The table stream's version.")]


class ReplayStepGamePlayerAccused(BaseModel):
    model_config = ConfigDict(
        extra='ignore',
    )
    cause: Cause
    data: PlayerAccusedData
    hand: str | None = None
    kind: Annotated[Literal['game'], Field(examples=['game'])]
    recorded_at: str
    state: Annotated[
        SetteEMezzoView | SieteYMediaView | CasinoPirateView | PiratePairsView | CassinoView | None,
        Field(description='The hand after this event, as you may see it.'),
    ]
    step: int
    timeout: Annotated[bool, Field(description='Caused by a timeout.')]
    type: Annotated[Literal['PlayerAccused'], Field(examples=['PlayerAccused'])]
    version: Annotated[int, Field(description="The table stream's version.")]


class ReplayStepGamePlayerAttacked(BaseModel):
    model_config = ConfigDict(
        extra='ignore',
    )
    cause: Cause
    data: PlayerAttackedData
    hand: str | None = None
    kind: Annotated[Literal['game'], Field(examples=['game'])]
    recorded_at: str
    state: Annotated[
        SetteEMezzoView | SieteYMediaView | CasinoPirateView | PiratePairsView | CassinoView | None,
        Field(description='The hand after this event, as you may see it.'),
    ]
    step: int
    timeout: Annotated[bool, Field(description='Caused by a timeout.')]
    type: Annotated[Literal['PlayerAttacked'], Field(examples=['PlayerAttacked'])]
    version: Annotated[int, Field(description="The table stream's version.")]


class ReplayStepGamePlayerCalled(BaseModel):
    model_config = ConfigDict(
        extra='ignore',
    )
    cause: Cause
    data: PlayerCalledData
    hand: str | None = None
    kind: Annotated[Literal['game'], Field(examples=['game'])]
    recorded_at: str
    state: Annotated[
        SetteEMezzoView | SieteYMediaView | CasinoPirateView | PiratePairsView | CassinoView | None,
        Field(description='The hand after this event, as you may see it.'),
    ]
    step: int
    timeout: Annotated[bool, Field(description='Caused by a timeout.')]
    type: Annotated[Literal['PlayerCalled'], Field(examples=['PlayerCalled'])]
    version: Annotated[int, Field(description="The table stream's version.")]


class ReplayStepGamePlayerChallenged(BaseModel):
    model_config = ConfigDict(
        extra='ignore',
    )
    cause: Cause
    data: PlayerChallengedData
    hand: str | None = None
    kind: Annotated[Literal['game'], Field(examples=['game'])]
    recorded_at: str
    state: Annotated[
        SetteEMezzoView | SieteYMediaView | CasinoPirateView | PiratePairsView | CassinoView | None,
        Field(description='The hand after this event, as you may see it.'),
    ]
    step: int
    timeout: Annotated[bool, Field(description='Caused by a timeout.')]
    type: Annotated[Literal['PlayerChallenged'], Field(examples=['PlayerChallenged'])]
    version: Annotated[int, Field(description="The table stream's version.")]


class ReplayStepGamePlayerEliminated(BaseModel):
    model_config = ConfigDict(
        extra='ignore',
    )
    cause: Cause
    data: PlayerEliminatedData
    hand: str | None = None
    kind: Annotated[Literal['game'], Field(examples=['game'])]
    recorded_at: str
    state: Annotated[
        SetteEMezzoView | SieteYMediaView | CasinoPirateView | PiratePairsView | CassinoView | None,
        Field(description='The hand after this event, as you may see it.'),
    ]
    step: int
    timeout: Annotated[bool, Field(description='Caused by a timeout.')]
    type: Annotated[Literal['PlayerEliminated'], Field(examples=['PlayerEliminated'])]
    version: Annotated[int, Field(description="The table stream's version.")]


class ReplayStepGameRoundScored(BaseModel):
    model_config = ConfigDict(
        extra='ignore',
    )
    cause: Cause
    data: RoundScoredData
    hand: str | None = None
    kind: Annotated[Literal['game'], Field(examples=['game'])]
    recorded_at: str
    state: Annotated[
        SetteEMezzoView | SieteYMediaView | CasinoPirateView | PiratePairsView | CassinoView | None,
        Field(description='The hand after this event, as you may see it.'),
    ]
    step: int
    timeout: Annotated[bool, Field(description='Caused by a timeout.')]
    type: Annotated[Literal['RoundScored'], Field(examples=['RoundScored'])]
    version: Annotated[int, Field(description="The table stream's version.")]


class ReplayStepGameRoundStarted(BaseModel):
    model_config = ConfigDict(
        extra='ignore',
    )
    cause: Cause
    data: RoundStartedData
    hand: str | None = None
    kind: Annotated[Literal['game'], Field(examples=['game'])]
    recorded_at: str
    state: Annotated[
        SetteEMezzoView | SieteYMediaView | CasinoPirateView | PiratePairsView | CassinoView | None,
        Field(description='The hand after this event, as you may see it.'),
    ]
    step: int
    timeout: Annotated[bool, Field(description='Caused by a timeout.')]
    type: Annotated[Literal['RoundStarted'], Field(examples=['RoundStarted'])]
    version: Annotated[int, Field(description="The table stream's version.")]


class ReplayStepGameSatOut(BaseModel):
    model_config = ConfigDict(
        extra='ignore',
    )
    cause: Cause
    data: SatOutData
    hand: str | None = None
    kind: Annotated[Literal['game'], Field(examples=['game'])]
    recorded_at: str
    state: Annotated[
        SetteEMezzoView | SieteYMediaView | CasinoPirateView | PiratePairsView | CassinoView | None,
        Field(description='The hand after this event, as you may see it.'),
    ]
    step: int
    timeout: Annotated[bool, Field(description='Caused by a timeout.')]
    type: Annotated[Literal['SatOut'], Field(examples=['SatOut'])]
    version: Annotated[int, Field(description="The table stream's version.")]


class ReplayStepGameShortfallRecorded(BaseModel):
    model_config = ConfigDict(
        extra='ignore',
    )
    cause: Cause
    data: ShortfallRecordedData
    hand: str | None = None
    kind: Annotated[Literal['game'], Field(examples=['game'])]
    recorded_at: str
    state: Annotated[
        SetteEMezzoView | SieteYMediaView | CasinoPirateView | PiratePairsView | CassinoView | None,
        Field(description='The hand after this event, as you may see it.'),
    ]
    step: int
    timeout: Annotated[bool, Field(description='Caused by a timeout.')]
    type: Annotated[Literal['ShortfallRecorded'], Field(examples=['ShortfallRecorded'])]
    version: Annotated[int, Field(description="The table stream's version.")]


class ReplayStepGameSkeletonDeclared(BaseModel):
    model_config = ConfigDict(
        extra='ignore',
    )
    cause: Cause
    data: SkeletonDeclaredData
    hand: str | None = None
    kind: Annotated[Literal['game'], Field(examples=['game'])]
    recorded_at: str
    state: Annotated[
        SetteEMezzoView | SieteYMediaView | CasinoPirateView | PiratePairsView | CassinoView | None,
        Field(description='The hand after this event, as you may see it.'),
    ]
    step: int
    timeout: Annotated[bool, Field(description='Caused by a timeout.')]
    type: Annotated[Literal['SkeletonDeclared'], Field(examples=['SkeletonDeclared'])]
    version: Annotated[int, Field(description="The table stream's version.")]


class ReplayStepGameStakeAnnounced(BaseModel):
    model_config = ConfigDict(
        extra='ignore',
    )
    cause: Cause
    data: StakeAnnouncedData
    hand: str | None = None
    kind: Annotated[Literal['game'], Field(examples=['game'])]
    recorded_at: str
    state: Annotated[
        SetteEMezzoView | SieteYMediaView | CasinoPirateView | PiratePairsView | CassinoView | None,
        Field(description='The hand after this event, as you may see it.'),
    ]
    step: int
    timeout: Annotated[bool, Field(description='Caused by a timeout.')]
    type: Annotated[Literal['StakeAnnounced'], Field(examples=['StakeAnnounced'])]
    version: Annotated[int, Field(description="The table stream's version.")]


class ReplayStepGameStakeLost(BaseModel):
    model_config = ConfigDict(
        extra='ignore',
    )
    cause: Cause
    data: StakeLostData
    hand: str | None = None
    kind: Annotated[Literal['game'], Field(examples=['game'])]
    recorded_at: str
    state: Annotated[
        SetteEMezzoView | SieteYMediaView | CasinoPirateView | PiratePairsView | CassinoView | None,
        Field(description='The hand after this event, as you may see it.'),
    ]
    step: int
    timeout: Annotated[bool, Field(description='Caused by a timeout.')]
    type: Annotated[Literal['StakeLost'], Field(examples=['StakeLost'])]
    version: Annotated[int, Field(description="The table stream's version.")]


class ReplayStepGameStakesPaid(BaseModel):
    model_config = ConfigDict(
        extra='ignore',
    )
    cause: Cause
    data: StakesPaidData
    hand: str | None = None
    kind: Annotated[Literal['game'], Field(examples=['game'])]
    recorded_at: str
    state: Annotated[
        SetteEMezzoView | SieteYMediaView | CasinoPirateView | PiratePairsView | CassinoView | None,
        Field(description='The hand after this event, as you may see it.'),
    ]
    step: int
    timeout: Annotated[bool, Field(description='Caused by a timeout.')]
    type: Annotated[Literal['StakesPaid'], Field(examples=['StakesPaid'])]
    version: Annotated[int, Field(description="The table stream's version.")]


class ReplayStepGameStood(BaseModel):
    model_config = ConfigDict(
        extra='ignore',
    )
    cause: Cause
    data: StoodData
    hand: str | None = None
    kind: Annotated[Literal['game'], Field(examples=['game'])]
    recorded_at: str
    state: Annotated[
        SetteEMezzoView | SieteYMediaView | CasinoPirateView | PiratePairsView | CassinoView | None,
        Field(description='The hand after this event, as you may see it.'),
    ]
    step: int
    timeout: Annotated[bool, Field(description='Caused by a timeout.')]
    type: Annotated[Literal['Stood'], Field(examples=['Stood'])]
    version: Annotated[int, Field(description="The table stream's version.")]


class ReplayStepGameTableDealt(BaseModel):
    model_config = ConfigDict(
        extra='ignore',
    )
    cause: Cause
    data: TableDealtData
    hand: str | None = None
    kind: Annotated[Literal['game'], Field(examples=['game'])]
    recorded_at: str
    state: Annotated[
        SetteEMezzoView | SieteYMediaView | CasinoPirateView | PiratePairsView | CassinoView | None,
        Field(description='The hand after this event, as you may see it.'),
    ]
    step: int
    timeout: Annotated[bool, Field(description='Caused by a timeout.')]
    type: Annotated[Literal['TableDealt'], Field(examples=['TableDealt'])]
    version: Annotated[int, Field(description="The table stream's version.")]


class ReplayStepGameTurnPassed(BaseModel):
    model_config = ConfigDict(
        extra='ignore',
    )
    cause: Cause
    data: SevenHalfTurnPassedData | PiratePairsTurnPassedData
    hand: str | None = None
    kind: Annotated[Literal['game'], Field(examples=['game'])]
    recorded_at: str
    state: Annotated[
        SetteEMezzoView | SieteYMediaView | CasinoPirateView | PiratePairsView | CassinoView | None,
        Field(description='The hand after this event, as you may see it.'),
    ]
    step: int
    timeout: Annotated[bool, Field(description='Caused by a timeout.')]
    type: Annotated[Literal['TurnPassed'], Field(examples=['TurnPassed'])]
    version: Annotated[int, Field(description="The table stream's version.")]


class ReplayStepGameVolunteered(BaseModel):
    model_config = ConfigDict(
        extra='ignore',
    )
    cause: Cause
    data: VolunteeredData
    hand: str | None = None
    kind: Annotated[Literal['game'], Field(examples=['game'])]
    recorded_at: str
    state: Annotated[
        SetteEMezzoView | SieteYMediaView | CasinoPirateView | PiratePairsView | CassinoView | None,
        Field(description='The hand after this event, as you may see it.'),
    ]
    step: int
    timeout: Annotated[bool, Field(description='Caused by a timeout.')]
    type: Annotated[Literal['Volunteered'], Field(examples=['Volunteered'])]
    version: Annotated[int, Field(description="The table stream's version.")]


class ReplayStepHandBegan(BaseModel):
    model_config = ConfigDict(
        extra='ignore',
    )
    cause: Cause
    data: HandBeganData
    hand: str | None = None
    kind: Annotated[Literal['table'], Field(examples=['table'])]
    recorded_at: str
    state: Annotated[
        SetteEMezzoView | SieteYMediaView | CasinoPirateView | PiratePairsView | CassinoView | None,
        Field(description='The hand after this event, as you may see it.'),
    ]
    step: int
    timeout: Annotated[bool, Field(description='Caused by a timeout.')]
    type: Annotated[Literal['HandBegan'], Field(examples=['HandBegan'])]
    version: Annotated[int, Field(description="The table stream's version.")]


class ReplayStepHandSettled(BaseModel):
    model_config = ConfigDict(
        extra='ignore',
    )
    cause: Cause
    data: HandSettledData
    hand: str | None = None
    kind: Annotated[Literal['table'], Field(examples=['table'])]
    recorded_at: str
    state: Annotated[
        SetteEMezzoView | SieteYMediaView | CasinoPirateView | PiratePairsView | CassinoView | None,
        Field(description='The hand after this event, as you may see it.'),
    ]
    step: int
    timeout: Annotated[bool, Field(description='Caused by a timeout.')]
    type: Annotated[Literal['HandSettled'], Field(examples=['HandSettled'])]
    version: Annotated[int, Field(description="The table stream's version.")]


class ReplayStepOperatorKeyChanged(BaseModel):
    model_config = ConfigDict(
        extra='ignore',
    )
    cause: Cause
    data: OperatorKeyChangedData
    hand: str | None = None
    kind: Annotated[Literal['table'], Field(examples=['table'])]
    recorded_at: str
    state: Annotated[
        SetteEMezzoView | SieteYMediaView | CasinoPirateView | PiratePairsView | CassinoView | None,
        Field(description='The hand after this event, as you may see it.'),
    ]
    step: int
    timeout: Annotated[bool, Field(description='Caused by a timeout.')]
    type: Annotated[
        Literal['OperatorKeyRevoked', 'OperatorKeyRotated'],
        Field(examples=['OperatorKeyRotated']),
    ]
    version: Annotated[int, Field(description="The table stream's version.")]


class ReplayStepOperatorKeyCreated(BaseModel):
    model_config = ConfigDict(
        extra='ignore',
    )
    cause: Cause
    data: OperatorKeyCreatedData
    hand: str | None = None
    kind: Annotated[Literal['table'], Field(examples=['table'])]
    recorded_at: str
    state: Annotated[
        SetteEMezzoView | SieteYMediaView | CasinoPirateView | PiratePairsView | CassinoView | None,
        Field(description='The hand after this event, as you may see it.'),
    ]
    step: int
    timeout: Annotated[bool, Field(description='Caused by a timeout.')]
    type: Annotated[
        Literal['OperatorKeyCreated'], Field(examples=['OperatorKeyCreated'])
    ]
    version: Annotated[int, Field(description="The table stream's version.")]


class ReplayStepPlayerErased(BaseModel):
    model_config = ConfigDict(
        extra='ignore',
    )
    cause: Cause
    data: PlayerErasedData
    hand: str | None = None
    kind: Annotated[Literal['table'], Field(examples=['table'])]
    recorded_at: str
    state: Annotated[
        SetteEMezzoView | SieteYMediaView | CasinoPirateView | PiratePairsView | CassinoView | None,
        Field(description='The hand after this event, as you may see it.'),
    ]
    step: int
    timeout: Annotated[bool, Field(description='Caused by a timeout.')]
    type: Annotated[Literal['PlayerErased'], Field(examples=['PlayerErased'])]
    version: Annotated[int, Field(description="The table stream's version.")]


class ReplayStepPlayerLeft(BaseModel):
    model_config = ConfigDict(
        extra='ignore',
    )
    cause: Cause
    data: PlayerLeftData
    hand: str | None = None
    kind: Annotated[Literal['table'], Field(examples=['table'])]
    recorded_at: str
    state: Annotated[
        SetteEMezzoView | SieteYMediaView | CasinoPirateView | PiratePairsView | CassinoView | None,
        Field(description='The hand after this event, as you may see it.'),
    ]
    step: int
    timeout: Annotated[bool, Field(description='Caused by a timeout.')]
    type: Annotated[Literal['PlayerLeft'], Field(examples=['PlayerLeft'])]
    version: Annotated[int, Field(description="The table stream's version.")]


class ReplayStepPlayerRegistered(BaseModel):
    model_config = ConfigDict(
        extra='ignore',
    )
    cause: Cause
    data: PlayerRegisteredData
    hand: str | None = None
    kind: Annotated[Literal['table'], Field(examples=['table'])]
    recorded_at: str
    state: Annotated[
        SetteEMezzoView | SieteYMediaView | CasinoPirateView | PiratePairsView | CassinoView | None,
        Field(description='The hand after this event, as you may see it.'),
    ]
    step: int
    timeout: Annotated[bool, Field(description='Caused by a timeout.')]
    type: Annotated[Literal['PlayerRegistered'], Field(examples=['PlayerRegistered'])]
    version: Annotated[int, Field(description="The table stream's version.")]


class ReplayStepPlayerSeated(BaseModel):
    model_config = ConfigDict(
        extra='ignore',
    )
    cause: Cause
    data: PlayerSeatedData
    hand: str | None = None
    kind: Annotated[Literal['table'], Field(examples=['table'])]
    recorded_at: str
    state: Annotated[
        SetteEMezzoView | SieteYMediaView | CasinoPirateView | PiratePairsView | CassinoView | None,
        Field(description='The hand after this event, as you may see it.'),
    ]
    step: int
    timeout: Annotated[bool, Field(description='Caused by a timeout.')]
    type: Annotated[Literal['PlayerSeated'], Field(examples=['PlayerSeated'])]
    version: Annotated[int, Field(description="The table stream's version.")]


class ReplayStepSeedRevealed(BaseModel):
    model_config = ConfigDict(
        extra='ignore',
    )
    cause: Cause
    data: SeedRevealedData
    hand: str | None = None
    kind: Annotated[Literal['table'], Field(examples=['table'])]
    recorded_at: str
    state: Annotated[
        SetteEMezzoView | SieteYMediaView | CasinoPirateView | PiratePairsView | CassinoView | None,
        Field(description='The hand after this event, as you may see it.'),
    ]
    step: int
    timeout: Annotated[bool, Field(description='Caused by a timeout.')]
    type: Annotated[Literal['SeedRevealed'], Field(examples=['SeedRevealed'])]
    version: Annotated[int, Field(description="The table stream's version.")]


class ReplayStepSettlementClaimed(BaseModel):
    model_config = ConfigDict(
        extra='ignore',
    )
    cause: Cause
    data: SettlementClaimedData
    hand: str | None = None
    kind: Annotated[Literal['table'], Field(examples=['table'])]
    recorded_at: str
    state: Annotated[
        SetteEMezzoView | SieteYMediaView | CasinoPirateView | PiratePairsView | CassinoView | None,
        Field(description='The hand after this event, as you may see it.'),
    ]
    step: int
    timeout: Annotated[bool, Field(description='Caused by a timeout.')]
    type: Annotated[Literal['SettlementClaimed'], Field(examples=['SettlementClaimed'])]
    version: Annotated[int, Field(description="The table stream's version.")]


class ReplayStepTableCreated(BaseModel):
    model_config = ConfigDict(
        extra='ignore',
    )
    cause: Cause
    data: TableCreatedData
    hand: str | None = None
    kind: Annotated[Literal['table'], Field(examples=['table'])]
    recorded_at: str
    state: Annotated[
        SetteEMezzoView | SieteYMediaView | CasinoPirateView | PiratePairsView | CassinoView | None,
        Field(description='The hand after this event, as you may see it.'),
    ]
    step: int
    timeout: Annotated[bool, Field(description='Caused by a timeout.')]
    type: Annotated[Literal['TableCreated'], Field(examples=['TableCreated'])]
    version: Annotated[int, Field(description="The table stream's version.")]


class ReplayStepTableEnded(BaseModel):
    model_config = ConfigDict(
        extra='ignore',
    )
    cause: Cause
    data: TableEndedData
    hand: str | None = None
    kind: Annotated[Literal['table'], Field(examples=['table'])]
    recorded_at: str
    state: Annotated[
        SetteEMezzoView | SieteYMediaView | CasinoPirateView | PiratePairsView | CassinoView | None,
        Field(description='The hand after this event, as you may see it.'),
    ]
    step: int
    timeout: Annotated[bool, Field(description='Caused by a timeout.')]
    type: Annotated[Literal['TableEnded'], Field(examples=['TableEnded'])]
    version: Annotated[int, Field(description="The table stream's version.")]


class ReplayStepTokenChanged(BaseModel):
    model_config = ConfigDict(
        extra='ignore',
    )
    cause: Cause
    data: TokenChangedData
    hand: str | None = None
    kind: Annotated[Literal['table'], Field(examples=['table'])]
    recorded_at: str
    state: Annotated[
        SetteEMezzoView | SieteYMediaView | CasinoPirateView | PiratePairsView | CassinoView | None,
        Field(description='The hand after this event, as you may see it.'),
    ]
    step: int
    timeout: Annotated[bool, Field(description='Caused by a timeout.')]
    type: Annotated[
        Literal['TokenIssued', 'TokenRevoked'], Field(examples=['TokenIssued'])
    ]
    version: Annotated[int, Field(description="The table stream's version.")]


class ReplayStepTreasurePosted(BaseModel):
    model_config = ConfigDict(
        extra='ignore',
    )
    cause: Cause
    data: TreasurePostedData
    hand: str | None = None
    kind: Annotated[Literal['ledger'], Field(examples=['ledger'])]
    recorded_at: str
    state: Annotated[
        SetteEMezzoView | SieteYMediaView | CasinoPirateView | PiratePairsView | CassinoView | None,
        Field(description='The hand after this event, as you may see it.'),
    ]
    step: int
    timeout: Annotated[bool, Field(description='Caused by a timeout.')]
    type: Annotated[Literal['TreasurePosted'], Field(examples=['TreasurePosted'])]
    version: Annotated[int, Field(description="The table stream's version.")]


class SetteEMezzoTable(BaseModel):
    model_config = ConfigDict(
        extra='ignore',
    )
    game: Literal['sette-e-mezzo']
    hand: HandRef | None
    id: Annotated[str, Field(examples=['tb_5c1e0a9b3d2f4e61'])]
    legal_actions: Annotated[
        list[Annotated[BetOffer | HitAction | StandOffer, Field(discriminator='type')]],
        Field(
            description='The actions open to you now: send one back (its ranges chosen).'
        ),
    ]
    options: SetteOptions
    rules_version: Annotated[
        int,
        Field(
            description="The game's rules version the table plays: the one current when it was created, for its whole life (GET /v1/games lists each game's current version).",
            examples=[1],
        ),
    ]
    seats: list[Seat]
    status: Annotated[
        Literal['open', 'playing', 'settling', 'over'],
        Field(
            description='open (between hands), playing, settling (a finished hand is being paid) or over'
        ),
    ]
    turn: Annotated[
        SetteEMezzoTurn | None,
        Field(description='Whose move it is while a hand is in play; else null.'),
    ]
    variant: Annotated[
        str | None,
        Field(
            description="The listed variant (GET /v1/games) the table's options make it, or null when they make none (the game has no variants, or a Siete y media table without the 7½-takes-the-bank rule).",
            examples=['banker:lot'],
        ),
    ]
    version: Annotated[int, Field(description='Also the ETag; send it as If-Match.')]
    view: Annotated[
        SetteEMezzoView | None,
        Field(description='The hand in play (or the last one) as you may see it.'),
    ]
    you: Annotated[int | None, Field(description='Your seat, if any.')]


class TableStreamMessage(
    RootModel[
        SetteEMezzoTable
        | SieteYMediaTable
        | CasinoPirateTable
        | PiratePairsTable
        | CassinoTable
        | TableEventTreasurePosted
        | TableEventPlayerRegistered
        | TableEventPlayerErased
        | TableEventAuditorRegistered
        | TableEventTokenChanged
        | TableEventOperatorKeyCreated
        | TableEventOperatorKeyChanged
        | TableEventDisputeOpened
        | TableEventDisputeEvidenceAttached
        | TableEventDisputeReadjudicated
        | TableEventDisputeResolved
        | TableEventDisputeRejected
        | TableEventTableCreated
        | TableEventPlayerSeated
        | TableEventPlayerLeft
        | TableEventHandBegan
        | TableEventHandSettled
        | TableEventSeedRevealed
        | TableEventTableEnded
        | TableEventDeadlineSet
        | TableEventSettlementClaimed
        | TableEventGameHandStarted
        | TableEventGameTurnPassed
        | TableEventGameStakeAnnounced
        | TableEventGameBetPlaced
        | TableEventGameSatOut
        | TableEventGameDeckShuffled
        | TableEventGameCardDealt
        | TableEventGameCardTurnedUp
        | TableEventGameCardsShown
        | TableEventGameStakeLost
        | TableEventGameStood
        | TableEventGameHandSplit
        | TableEventGamePlayerCalled
        | TableEventGameCallDecided
        | TableEventGameSkeletonDeclared
        | TableEventGameVolunteered
        | TableEventGameShortfallRecorded
        | TableEventGameHandEnded
        | TableEventGameHandOpened
        | TableEventGameCardsDealt
        | TableEventGameOpeningCardChosen
        | TableEventGameOpeningCardsRevealed
        | TableEventGamePlayerAttacked
        | TableEventGamePlayerChallenged
        | TableEventGamePlayerAccused
        | TableEventGameCardDrawn
        | TableEventGameDiscardsReshuffled
        | TableEventGamePlayerEliminated
        | TableEventGameGameWon
        | TableEventGameRoundStarted
        | TableEventGameStakesPaid
        | TableEventGameDealerCardsDrawn
        | TableEventGameDealerChosen
        | TableEventGameTableDealt
        | TableEventGameCardsCaptured
        | TableEventGameBuildMade
        | TableEventGameBuildReserved
        | TableEventGameBuildExtended
        | TableEventGameCardTrailed
        | TableEventGameLeftoversTaken
        | TableEventGameRoundScored
    ]
):
    root: Annotated[
        SetteEMezzoTable | SieteYMediaTable | CasinoPirateTable | PiratePairsTable | CassinoTable | TableEventTreasurePosted | TableEventPlayerRegistered | TableEventPlayerErased | TableEventAuditorRegistered | TableEventTokenChanged | TableEventOperatorKeyCreated | TableEventOperatorKeyChanged | TableEventDisputeOpened | TableEventDisputeEvidenceAttached | TableEventDisputeReadjudicated | TableEventDisputeResolved | TableEventDisputeRejected | TableEventTableCreated | TableEventPlayerSeated | TableEventPlayerLeft | TableEventHandBegan | TableEventHandSettled | TableEventSeedRevealed | TableEventTableEnded | TableEventDeadlineSet | TableEventSettlementClaimed | TableEventGameHandStarted | TableEventGameTurnPassed | TableEventGameStakeAnnounced | TableEventGameBetPlaced | TableEventGameSatOut | TableEventGameDeckShuffled | TableEventGameCardDealt | TableEventGameCardTurnedUp | TableEventGameCardsShown | TableEventGameStakeLost | TableEventGameStood | TableEventGameHandSplit | TableEventGamePlayerCalled | TableEventGameCallDecided | TableEventGameSkeletonDeclared | TableEventGameVolunteered | TableEventGameShortfallRecorded | TableEventGameHandEnded | TableEventGameHandOpened | TableEventGameCardsDealt | TableEventGameOpeningCardChosen | TableEventGameOpeningCardsRevealed | TableEventGamePlayerAttacked | TableEventGamePlayerChallenged | TableEventGamePlayerAccused | TableEventGameCardDrawn | TableEventGameDiscardsReshuffled | TableEventGamePlayerEliminated | TableEventGameGameWon | TableEventGameRoundStarted | TableEventGameStakesPaid | TableEventGameDealerCardsDrawn | TableEventGameDealerChosen | TableEventGameTableDealt | TableEventGameCardsCaptured | TableEventGameBuildMade | TableEventGameBuildReserved | TableEventGameBuildExtended | TableEventGameCardTrailed | TableEventGameLeftoversTaken | TableEventGameRoundScored,
        Field(
            description="The `data:` of a message of a table's stream: with `event: table`, the table as GET /v1/tables/{table_id} shows it to you (a `Table`); with `event: <type>`, the table's event of that type, as GET /v1/tables/{table_id}/events shows it (a `TableEvent`)."
        ),
    ]


class Verification(BaseModel):
    model_config = ConfigDict(
        extra='ignore',
    )
    checks: list[
        Annotated[
            IntegrityChainCheck | DeckCommitmentCheck | DeckOrderCheck | DeckDealtCheck | MoneySettlementCheck | MoneyDoubleEntryCheck | MoneyNoNegativeCheck | RulesCheck,
            Field(discriminator='name'),
        ]
    ]
    game: str
    hand_id: Annotated[str, Field(examples=['hd_0a1b2c3d4e5f6071'])]
    passed: bool
    rules_version: Annotated[
        int,
        Field(
            description="The rules version the hand was decided again with: the one its table's TableCreated event recorded (1 when it recorded none).",
            examples=[1],
        ),
    ]
    settled: bool
    table_id: Annotated[str, Field(examples=['tb_5c1e0a9b3d2f4e61'])]


class EventPage(BaseModel):
    model_config = ConfigDict(
        extra='ignore',
    )
    items: list[
        Annotated[
            TableEventTreasurePosted | TableEventPlayerRegistered | TableEventPlayerErased | TableEventAuditorRegistered | TableEventTokenChanged | TableEventOperatorKeyCreated | TableEventOperatorKeyChanged | TableEventDisputeOpened | TableEventDisputeEvidenceAttached | TableEventDisputeReadjudicated | TableEventDisputeResolved | TableEventDisputeRejected | TableEventTableCreated | TableEventPlayerSeated | TableEventPlayerLeft | TableEventHandBegan | TableEventHandSettled | TableEventSeedRevealed | TableEventTableEnded | TableEventDeadlineSet | TableEventSettlementClaimed | TableEventGameHandStarted | TableEventGameTurnPassed | TableEventGameStakeAnnounced | TableEventGameBetPlaced | TableEventGameSatOut | TableEventGameDeckShuffled | TableEventGameCardDealt | TableEventGameCardTurnedUp | TableEventGameCardsShown | TableEventGameStakeLost | TableEventGameStood | TableEventGameHandSplit | TableEventGamePlayerCalled | TableEventGameCallDecided | TableEventGameSkeletonDeclared | TableEventGameVolunteered | TableEventGameShortfallRecorded | TableEventGameHandEnded | TableEventGameHandOpened | TableEventGameCardsDealt | TableEventGameOpeningCardChosen | TableEventGameOpeningCardsRevealed | TableEventGamePlayerAttacked | TableEventGamePlayerChallenged | TableEventGamePlayerAccused | TableEventGameCardDrawn | TableEventGameDiscardsReshuffled | TableEventGamePlayerEliminated | TableEventGameGameWon | TableEventGameRoundStarted | TableEventGameStakesPaid | TableEventGameDealerCardsDrawn | TableEventGameDealerChosen | TableEventGameTableDealt | TableEventGameCardsCaptured | TableEventGameBuildMade | TableEventGameBuildReserved | TableEventGameBuildExtended | TableEventGameCardTrailed | TableEventGameLeftoversTaken | TableEventGameRoundScored,
            Field(discriminator='type'),
        ]
    ]
    more: Annotated[
        bool,
        Field(
            description='Whether the table has events after `next_after` (`next_after` < `version`): ask again with `after=next_after` until it is false.'
        ),
    ]
    next_after: Annotated[
        int,
        Field(
            description="The `after` to ask for the next page: the last item's version, or this request's `after` when the page is empty."
        ),
    ]
    version: Annotated[
        int,
        Field(
            description="The table's version now, whether or not `limit` cut the page short of it."
        ),
    ]


class FeedPage(BaseModel):
    model_config = ConfigDict(
        extra='ignore',
    )
    items: list[
        Annotated[
            FeedEventTreasurePosted | FeedEventPlayerRegistered | FeedEventPlayerErased | FeedEventAuditorRegistered | FeedEventTokenChanged | FeedEventOperatorKeyCreated | FeedEventOperatorKeyChanged | FeedEventDisputeOpened | FeedEventDisputeEvidenceAttached | FeedEventDisputeReadjudicated | FeedEventDisputeResolved | FeedEventDisputeRejected | FeedEventTableCreated | FeedEventPlayerSeated | FeedEventPlayerLeft | FeedEventHandBegan | FeedEventHandSettled | FeedEventSeedRevealed | FeedEventTableEnded | FeedEventDeadlineSet | FeedEventSettlementClaimed | FeedEventGameHandStarted | FeedEventGameTurnPassed | FeedEventGameStakeAnnounced | FeedEventGameBetPlaced | FeedEventGameSatOut | FeedEventGameDeckShuffled | FeedEventGameCardDealt | FeedEventGameCardTurnedUp | FeedEventGameCardsShown | FeedEventGameStakeLost | FeedEventGameStood | FeedEventGameHandSplit | FeedEventGamePlayerCalled | FeedEventGameCallDecided | FeedEventGameSkeletonDeclared | FeedEventGameVolunteered | FeedEventGameShortfallRecorded | FeedEventGameHandEnded | FeedEventGameHandOpened | FeedEventGameCardsDealt | FeedEventGameOpeningCardChosen | FeedEventGameOpeningCardsRevealed | FeedEventGamePlayerAttacked | FeedEventGamePlayerChallenged | FeedEventGamePlayerAccused | FeedEventGameCardDrawn | FeedEventGameDiscardsReshuffled | FeedEventGamePlayerEliminated | FeedEventGameGameWon | FeedEventGameRoundStarted | FeedEventGameStakesPaid | FeedEventGameDealerCardsDrawn | FeedEventGameDealerChosen | FeedEventGameTableDealt | FeedEventGameCardsCaptured | FeedEventGameBuildMade | FeedEventGameBuildReserved | FeedEventGameBuildExtended | FeedEventGameCardTrailed | FeedEventGameLeftoversTaken | FeedEventGameRoundScored,
            Field(discriminator='type'),
        ]
    ]
    next_after: Annotated[
        int,
        Field(
            description="The `after` to ask next: the last item's position, or this request's `after` when the page is empty (nothing more has committed yet)."
        ),
    ]


class FeedStreamMessage(
    RootModel[
        FeedEventTreasurePosted
        | FeedEventPlayerRegistered
        | FeedEventPlayerErased
        | FeedEventAuditorRegistered
        | FeedEventTokenChanged
        | FeedEventOperatorKeyCreated
        | FeedEventOperatorKeyChanged
        | FeedEventDisputeOpened
        | FeedEventDisputeEvidenceAttached
        | FeedEventDisputeReadjudicated
        | FeedEventDisputeResolved
        | FeedEventDisputeRejected
        | FeedEventTableCreated
        | FeedEventPlayerSeated
        | FeedEventPlayerLeft
        | FeedEventHandBegan
        | FeedEventHandSettled
        | FeedEventSeedRevealed
        | FeedEventTableEnded
        | FeedEventDeadlineSet
        | FeedEventSettlementClaimed
        | FeedEventGameHandStarted
        | FeedEventGameTurnPassed
        | FeedEventGameStakeAnnounced
        | FeedEventGameBetPlaced
        | FeedEventGameSatOut
        | FeedEventGameDeckShuffled
        | FeedEventGameCardDealt
        | FeedEventGameCardTurnedUp
        | FeedEventGameCardsShown
        | FeedEventGameStakeLost
        | FeedEventGameStood
        | FeedEventGameHandSplit
        | FeedEventGamePlayerCalled
        | FeedEventGameCallDecided
        | FeedEventGameSkeletonDeclared
        | FeedEventGameVolunteered
        | FeedEventGameShortfallRecorded
        | FeedEventGameHandEnded
        | FeedEventGameHandOpened
        | FeedEventGameCardsDealt
        | FeedEventGameOpeningCardChosen
        | FeedEventGameOpeningCardsRevealed
        | FeedEventGamePlayerAttacked
        | FeedEventGamePlayerChallenged
        | FeedEventGamePlayerAccused
        | FeedEventGameCardDrawn
        | FeedEventGameDiscardsReshuffled
        | FeedEventGamePlayerEliminated
        | FeedEventGameGameWon
        | FeedEventGameRoundStarted
        | FeedEventGameStakesPaid
        | FeedEventGameDealerCardsDrawn
        | FeedEventGameDealerChosen
        | FeedEventGameTableDealt
        | FeedEventGameCardsCaptured
        | FeedEventGameBuildMade
        | FeedEventGameBuildReserved
        | FeedEventGameBuildExtended
        | FeedEventGameCardTrailed
        | FeedEventGameLeftoversTaken
        | FeedEventGameRoundScored
    ]
):
    root: Annotated[
        FeedEventTreasurePosted | FeedEventPlayerRegistered | FeedEventPlayerErased | FeedEventAuditorRegistered | FeedEventTokenChanged | FeedEventOperatorKeyCreated | FeedEventOperatorKeyChanged | FeedEventDisputeOpened | FeedEventDisputeEvidenceAttached | FeedEventDisputeReadjudicated | FeedEventDisputeResolved | FeedEventDisputeRejected | FeedEventTableCreated | FeedEventPlayerSeated | FeedEventPlayerLeft | FeedEventHandBegan | FeedEventHandSettled | FeedEventSeedRevealed | FeedEventTableEnded | FeedEventDeadlineSet | FeedEventSettlementClaimed | FeedEventGameHandStarted | FeedEventGameTurnPassed | FeedEventGameStakeAnnounced | FeedEventGameBetPlaced | FeedEventGameSatOut | FeedEventGameDeckShuffled | FeedEventGameCardDealt | FeedEventGameCardTurnedUp | FeedEventGameCardsShown | FeedEventGameStakeLost | FeedEventGameStood | FeedEventGameHandSplit | FeedEventGamePlayerCalled | FeedEventGameCallDecided | FeedEventGameSkeletonDeclared | FeedEventGameVolunteered | FeedEventGameShortfallRecorded | FeedEventGameHandEnded | FeedEventGameHandOpened | FeedEventGameCardsDealt | FeedEventGameOpeningCardChosen | FeedEventGameOpeningCardsRevealed | FeedEventGamePlayerAttacked | FeedEventGamePlayerChallenged | FeedEventGamePlayerAccused | FeedEventGameCardDrawn | FeedEventGameDiscardsReshuffled | FeedEventGamePlayerEliminated | FeedEventGameGameWon | FeedEventGameRoundStarted | FeedEventGameStakesPaid | FeedEventGameDealerCardsDrawn | FeedEventGameDealerChosen | FeedEventGameTableDealt | FeedEventGameCardsCaptured | FeedEventGameBuildMade | FeedEventGameBuildReserved | FeedEventGameBuildExtended | FeedEventGameCardTrailed | FeedEventGameLeftoversTaken | FeedEventGameRoundScored,
        Field(
            description='One alternative per event type, told apart by `type`.',
            discriminator='type',
        ),
    ]


class Joined(BaseModel):
    model_config = ConfigDict(
        extra='ignore',
    )
    player_id: str
    seat: int
    table: Annotated[
        SetteEMezzoTable | SieteYMediaTable | CasinoPirateTable | PiratePairsTable | CassinoTable,
        Field(
            description="A table as you may see it, its game's: `game` tells which, and with it the type of its `options`, `turn`, `view` and `legal_actions`.",
            discriminator='game',
        ),
    ]


class WebhookEvent(BaseModel):
    """
    The body of a webhook: one event of the log, as a spectator may see it (no hidden card, no seed a hand has not revealed to all), as `data`, as GET /v1/feed shows it.
    """

    model_config = ConfigDict(
        extra='ignore',
    )
    data: Annotated[
        FeedEventTreasurePosted | FeedEventPlayerRegistered | FeedEventPlayerErased | FeedEventAuditorRegistered | FeedEventTokenChanged | FeedEventOperatorKeyCreated | FeedEventOperatorKeyChanged | FeedEventDisputeOpened | FeedEventDisputeEvidenceAttached | FeedEventDisputeReadjudicated | FeedEventDisputeResolved | FeedEventDisputeRejected | FeedEventTableCreated | FeedEventPlayerSeated | FeedEventPlayerLeft | FeedEventHandBegan | FeedEventHandSettled | FeedEventSeedRevealed | FeedEventTableEnded | FeedEventDeadlineSet | FeedEventSettlementClaimed | FeedEventGameHandStarted | FeedEventGameTurnPassed | FeedEventGameStakeAnnounced | FeedEventGameBetPlaced | FeedEventGameSatOut | FeedEventGameDeckShuffled | FeedEventGameCardDealt | FeedEventGameCardTurnedUp | FeedEventGameCardsShown | FeedEventGameStakeLost | FeedEventGameStood | FeedEventGameHandSplit | FeedEventGamePlayerCalled | FeedEventGameCallDecided | FeedEventGameSkeletonDeclared | FeedEventGameVolunteered | FeedEventGameShortfallRecorded | FeedEventGameHandEnded | FeedEventGameHandOpened | FeedEventGameCardsDealt | FeedEventGameOpeningCardChosen | FeedEventGameOpeningCardsRevealed | FeedEventGamePlayerAttacked | FeedEventGamePlayerChallenged | FeedEventGamePlayerAccused | FeedEventGameCardDrawn | FeedEventGameDiscardsReshuffled | FeedEventGamePlayerEliminated | FeedEventGameGameWon | FeedEventGameRoundStarted | FeedEventGameStakesPaid | FeedEventGameDealerCardsDrawn | FeedEventGameDealerChosen | FeedEventGameTableDealt | FeedEventGameCardsCaptured | FeedEventGameBuildMade | FeedEventGameBuildReserved | FeedEventGameBuildExtended | FeedEventGameCardTrailed | FeedEventGameLeftoversTaken | FeedEventGameRoundScored,
        Field(
            description='One alternative per event type, told apart by `type`.',
            discriminator='type',
        ),
    ]
    timestamp: Annotated[
        AwareDatetime, Field(description='When it was recorded, as `data.recorded_at`.')
    ]
    type: Annotated[
        str,
        Field(
            description="The event's type, as `data.type`.", examples=['TreasurePosted']
        ),
    ]


class Replay(BaseModel):
    model_config = ConfigDict(
        extra='ignore',
    )
    game: str
    hand_id: Annotated[str, Field(examples=['hd_0a1b2c3d4e5f6071'])]
    steps: list[
        Annotated[
            ReplayStepTreasurePosted | ReplayStepPlayerRegistered | ReplayStepPlayerErased | ReplayStepAuditorRegistered | ReplayStepTokenChanged | ReplayStepOperatorKeyCreated | ReplayStepOperatorKeyChanged | ReplayStepDisputeOpened | ReplayStepDisputeEvidenceAttached | ReplayStepDisputeReadjudicated | ReplayStepDisputeResolved | ReplayStepDisputeRejected | ReplayStepTableCreated | ReplayStepPlayerSeated | ReplayStepPlayerLeft | ReplayStepHandBegan | ReplayStepHandSettled | ReplayStepSeedRevealed | ReplayStepTableEnded | ReplayStepDeadlineSet | ReplayStepSettlementClaimed | ReplayStepGameHandStarted | ReplayStepGameTurnPassed | ReplayStepGameStakeAnnounced | ReplayStepGameBetPlaced | ReplayStepGameSatOut | ReplayStepGameDeckShuffled | ReplayStepGameCardDealt | ReplayStepGameCardTurnedUp | ReplayStepGameCardsShown | ReplayStepGameStakeLost | ReplayStepGameStood | ReplayStepGameHandSplit | ReplayStepGamePlayerCalled | ReplayStepGameCallDecided | ReplayStepGameSkeletonDeclared | ReplayStepGameVolunteered | ReplayStepGameShortfallRecorded | ReplayStepGameHandEnded | ReplayStepGameHandOpened | ReplayStepGameCardsDealt | ReplayStepGameOpeningCardChosen | ReplayStepGameOpeningCardsRevealed | ReplayStepGamePlayerAttacked | ReplayStepGamePlayerChallenged | ReplayStepGamePlayerAccused | ReplayStepGameCardDrawn | ReplayStepGameDiscardsReshuffled | ReplayStepGamePlayerEliminated | ReplayStepGameGameWon | ReplayStepGameRoundStarted | ReplayStepGameStakesPaid | ReplayStepGameDealerCardsDrawn | ReplayStepGameDealerChosen | ReplayStepGameTableDealt | ReplayStepGameCardsCaptured | ReplayStepGameBuildMade | ReplayStepGameBuildReserved | ReplayStepGameBuildExtended | ReplayStepGameCardTrailed | ReplayStepGameLeftoversTaken | ReplayStepGameRoundScored,
            Field(discriminator='type'),
        ]
    ]
    table_id: Annotated[str, Field(examples=['tb_5c1e0a9b3d2f4e61'])]
    viewer: Viewer
