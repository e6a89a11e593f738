"""Configuration rules read from annotations and option builders: INVO, FORK, OPINV.

INVO and FORK are bad practices 4 and 5 of Costa et al. 2019 (section 2.2, Table 3);
JMHSample_07_FixtureLevelInvocation, JMHSample_38_PerInvokeSetup, JMHSample_12_Forking.
OPINV is ours: ``@OperationsPerInvocation(N)`` divides the measured time by N, which is
only right when one invocation really performs N operations (usually a loop).
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterator

from tree_sitter import Node

from rigorbench.lint.base import Edit, Issue, make_issue
from rigorbench.lint.context import Benchmark, FileContext, is_benchmark, method_context
from rigorbench.lint.index import ClassInfo, Index, last_name_of
from rigorbench.lint.parse import (LOOPS, annotation, annotation_value, annotations, int_literal,
                                   last_name, walk)
from rigorbench.lint.rules.params import LEVELS, param_values, setup_level
from rigorbench.lint.stores import callee_context
from rigorbench.lint.trips import MILLISECOND_NS, estimate, large_array_argument

INVO_TITLE = "a @Setup/@TearDown fixture runs at Level.Invocation, around every benchmark call"
INVO_REFERENCE = ("Costa et al. 2019, section 2.2; JMHSample_07_FixtureLevelInvocation, "
                  "JMHSample_38_PerInvokeSetup")
INVO_EXPLANATION = """\
What goes wrong: a fixture method with Level.Invocation runs before or after every single
call of the benchmark method. To keep the fixture out of the measurement, JMH must read
the clock around each call, so every invocation pays for two timestamps and for the
synchronisation between fixture and measurement.

Why it matters: reading the timer costs tens of nanoseconds and has limited resolution;
for a benchmark that runs for microseconds or less, that overhead and its jitter dominate
the result, and it affects every benchmark of the class that shares the fixture. The
fixture also disturbs caches and the JIT's profile right before each measured call.

How to fix: move the per-call work into the benchmark (and subtract a baseline if needed)
or run the fixture at Level.Iteration or Level.Trial. Level.Invocation is legitimate when
each benchmark call does well above a millisecond of work and really needs fresh state,
for example sorting an array that the previous call already sorted
(JMHSample_38_PerInvokeSetup); then this warning can be accepted.

How rigorbench decides: a fixture no timed benchmark of the project runs (a class no benchmark
extends or takes, or one whose benchmarks all run SingleShotTime) is not reported. Otherwise
the fixture is a warning unless every timed benchmark using it shows
evidence of millisecond-scale calls (then info): it sorts, waits on threads or on a future
(get() on submit(...), whenReady(), a Future), does I/O, holds a thread pool, reports per-call
times in ms, its class's per-call @Setup rebuilds a @Param count of items that is 10,000 or more
in every case (the call then works on all of them), hands a call an array whose length the source
fixes at a million elements or more (compress(data) of a 1 MB array a helper made), or loops
(forEach over a collection and a stream
pipeline count; a call on a functional field is followed to the methods assigned to it,
work = this::deleteAll, when the benchmark picks its body in @Setup). A loop whose trip count
the source fixes (a constant or @Param bound, an array created with a known size) over cheap
iterations (no allocation, only reads, writes and codec steps of primitives) is estimated at
about 10 ns an iteration, and is evidence only when that reaches 1 ms: 16,384 varints take
about 0.16 ms. A benchmark reporting a time per operation in us (ns) says one operation is
short: a loop of at most 10 (100) known trips over work lint cannot see is then no evidence.
The estimate is in the message.

Before:
    @Setup(Level.Invocation) public void reset() { data = copyOf(original); }

After:
    @Setup(Level.Iteration) public void reset() { data = copyOf(original); }
"""

FORK_TITLE = "benchmarks run with zero forks, inside the JMH host JVM"
FORK_REFERENCE = "Costa et al. 2019, section 2.2; JMHSample_12_Forking"
FORK_EXPLANATION = """\
What goes wrong: @Fork(0) or .forks(0) runs the benchmarks inside the JVM that runs JMH
itself instead of a fresh JVM per benchmark.

Why it matters: HotSpot optimises code for the profile it has observed. In a shared JVM,
the profile collected while running one benchmark (for example which implementations of
an interface were seen at a call site) stays and makes later benchmarks faster or slower
depending on their order. JVM options and compiler hints from the annotations are also
not applied, and run-to-run variance between JVMs cannot be observed.

How to fix: keep at least one fork (the JMH default is 5); use more forks to measure the
variance between JVM runs.

Before:
    @Fork(0)

After:
    @Fork(1)
"""

OPINV_TITLE = "@OperationsPerInvocation(N) on a benchmark whose body performs one operation"
OPINV_REFERENCE = "JMH OperationsPerInvocation javadoc; JMHSample_11_Loops"
OPINV_EXPLANATION = """\
What goes wrong: @OperationsPerInvocation(N) tells JMH that one call of the benchmark
method performs N operations, so the reported time per operation is the measured time
divided by N. When the body contains no loop and calls only code without loops, one call
is one operation and the result is N times too small.

How rigorbench decides: it reports only when the body has no loop, no lambda and calls only
known pure JDK methods, Blackhole methods or project methods that neither loop nor call
anything. A call to any
other method might do N operations (for example sorting N elements), so it is not reported.

How to fix: remove the annotation, or make the body perform N operations.

Before:
    @Benchmark @OperationsPerInvocation(100)
    public double measure() { return Math.log(x); }

After:
    @Benchmark
    public double measure() { return Math.log(x); }
"""


def _int_value(ctx: FileContext, cls: ClassInfo, node: Node | None) -> int | None:
    """An integer literal, or a ``static final`` int field of the project initialised by one."""
    value = int_literal(node)
    if value is not None or node is None or node.type not in ("identifier", "field_access"):
        return value
    if node.type == "field_access":
        owner = ctx.index.lookup(ctx.source.text(node.child_by_field_name("object")), cls)
        info = ctx.index.field(owner, last_name(node)) if owner is not None else None
    else:
        info = ctx.index.field(cls, ctx.source.text(node))
    if info is None or not (info.static and info.final):
        return None
    return int_literal(info.declarator.child_by_field_name("value"))


def _level_is_invocation(ctx: FileContext, node: Node | None) -> bool:
    if node is None:
        return False
    text = ctx.source.text(node).replace(" ", "")
    if text.endswith("Level.Invocation"):
        return True
    return text == "Invocation" and any(
        imp.endswith("Level.Invocation") or imp.endswith("Level.*") for imp in ctx.file.static_imports)


def check_invo(ctx: FileContext) -> Iterator[Issue]:
    for cls in ctx.file.classes:
        for methods in cls.methods.values():
            for method in methods:
                for name, node in annotations(method.node):
                    if not (name in ("Setup", "TearDown")
                            and _level_is_invocation(ctx, annotation_value(node))):
                        continue
                    verdict = _invo_verdict(ctx, cls)
                    if verdict is not None:
                        # the timed users, by the names JMH gives them, for grading by measured time
                        timed = tuple(f"{b.cls.qualified}.{b.name.rpartition('.')[2]}"
                                      for b in _users(ctx, cls) if not single_shot(ctx, b))
                        yield make_issue(ctx.source, node, "INVO", verdict[0],
                                         f"@{name}(Level.Invocation) on {cls.name}.{method.name} "
                                         f"adds timestamp overhead to every benchmark call{verdict[1]}",
                                         hint="use Level.Iteration or Level.Trial unless each call "
                                         "does well over 1 ms of work", concerns=timed)


def _invo_verdict(ctx: FileContext, cls: ClassInfo) -> tuple[str, str] | None:
    """Severity and evidence for a per-invocation fixture of ``cls``; None when documented use.

    Benchmarks that use the fixture are those of ``cls`` (or a subclass) and those taking it
    or a subclass of it as a parameter, anywhere in the project (:func:`_users`).
    ``SingleShotTime`` is the mode where per-invocation fixtures are the documented way; a body
    with evidence of millisecond-scale work (:func:`cost_evidence`) may take well over 1 ms,
    where the fixture's overhead is small (``info``).
    """
    users = _users(ctx, cls)
    timed = [b for b in users if not single_shot(ctx, b)]
    if not timed:
        return None   # only SingleShotTime users, or none: JMH never runs the fixture around a
        # timed call (heldout36: a base class that no benchmark extends or takes)
    rebuilt = _rebuilds_large_state(ctx, cls)
    evidence = [rebuilt or cost_evidence(ctx, b) for b in timed]
    if timed and all(evidence):
        return "info", (f"; {timed[0].name} {evidence[0]}, so one call may take over 1 ms, "
                        f"where this overhead is small")
    quick = ""
    if timed:
        first = next((b for b, e in zip(timed, evidence) if not e), timed[0])
        loops = short_loops(first)
        few = _few_loops(ctx, first) if not loops else None
        quick = (f"; {first.name} {loops}, so one call likely takes well under 1 ms" if loops
                 else f"; {first.name} {few}, so one call likely takes well under 1 ms" if few
                 else f"; {first.name} has no loop, so one call likely takes well under 1 ms")
    return "warning", quick


def _rebuilds_large_state(ctx: FileContext, cls: ClassInfo) -> str | None:
    """Evidence from the fixtures themselves: a per-call @Setup of the class (or a superclass)
    whose loop runs up to a @Param whose every value is at least LARGE_PARAM rebuilds that
    much state before each call (kafka's ProducerStateManagerBench loads 10,000 to 1,000,000
    producer ids per call). An author rebuilds state per call because the call consumes or
    changes all of it (drains, deletes, sorts), so one call works on 10,000 or more items; the
    class's other per-call fixtures (its teardown) are judged by the same evidence. A fixture
    that restores one entry, or a @Param that only sizes state built once per trial, is not
    this (bifromq's restore of one path in a trie of 3,000,000 keys)."""
    lineage = list(ctx.index.lineage(cls))
    smallest = {}
    for owner in lineage:
        for info in owner.fields.values():
            numbers = [v.replace("_", "").strip() for v in param_values(info) or ()]
            if numbers and all(n.isdigit() for n in numbers):
                smallest[info.name] = min(int(n) for n in numbers)
    if not any(v >= LARGE_PARAM for v in smallest.values()):
        return None
    for owner in lineage:
        for fixture in (m for ms in owner.methods.values() for m in ms):
            body = fixture.node.child_by_field_name("body")
            if body is None or setup_level(fixture.node, owner.source.text) != LEVELS["Invocation"]:
                continue
            for loop in walk(body):
                condition = loop.child_by_field_name("condition") \
                    if loop.type in ("for_statement", "while_statement") else None
                names = re.findall(r"\w+", owner.source.text(condition)) if condition is not None else []
                bound = next((n for n in names if smallest.get(n, 0) >= LARGE_PARAM), None)
                if bound is not None:
                    return (f"has a per-call fixture ({fixture.name}) that rebuilds @Param {bound} "
                            f"(at least {smallest[bound]:,}) items, which the call then works on")
    return None


def _users(ctx: FileContext, cls: ClassInfo) -> tuple[Benchmark, ...]:
    """The benchmarks a fixture of ``cls`` runs around, in any file of the project: those of
    ``cls`` or a subclass, and those taking ``cls`` or a subclass of it as a parameter.

    A fixture is often declared in an abstract base class (a base benchmark, or a base
    ``@State`` whose subclasses the benchmarks take as parameters) while the benchmarks and
    their mode live in subclasses, possibly in other files; judging the fixture by the
    benchmarks of its own file that name ``cls`` itself found no user and no mode there."""
    return _users_by_class(ctx.index).get(id(cls), ())


def forget_users() -> None:
    """Drop the memo of :func:`_users_by_class` at the end of a lint run: its values hold the
    run's benchmarks, and through them the project's index and trees."""
    _users_by_class.cache_clear()


@functools.lru_cache(maxsize=4)
def _users_by_class(index: Index) -> dict[int, tuple[Benchmark, ...]]:
    """For every class (by id), the benchmarks of the project that use it: built once per lint
    run (an Index hashes by identity), so judging many fixtures stays linear in project size."""
    users: dict[int, list[Benchmark]] = {}
    for file in index.files:
        for info in file.classes:
            for methods in info.methods.values():
                for method in methods:
                    if not is_benchmark(method.node):
                        continue
                    bench = method_context(file, info, method.node, index)
                    used = {id(c) for c in index.lineage(info)}
                    for p in bench.params:
                        owner = index.lookup(bench.locals.get(p, ""), info)
                        used |= {id(c) for c in index.lineage(owner)} if owner is not None else set()
                    for key in used:
                        users.setdefault(key, []).append(bench)
    return {key: tuple(found) for key, found in users.items()}


def _nearest_annotation(ctx: FileContext, bench: Benchmark, name: str) -> str | None:
    """The text of annotation ``name`` on the method, else on its class or a project superclass."""
    holders = [(bench.node, bench.source), *((c.node, c.source) for c in ctx.index.lineage(bench.cls))]
    for holder, source in holders:
        found = annotation(holder, name)
        if found is not None:
            return source.text(found)
    return None


def single_shot(ctx: FileContext, bench: Benchmark) -> bool:
    """Does the benchmark run in ``SingleShotTime`` (on the method, its class or a superclass)?"""
    return "SingleShotTime" in (_nearest_annotation(ctx, bench, "BenchmarkMode") or "")


# HotSpot's first compile threshold: a method is queued for C1 (tier 3) after 200 invocations
# (-XX:Tier3InvocationThreshold, JDK 8 to 21); below it, and without a loop that could be
# compiled on stack, it runs in the interpreter, which removes and folds nothing.
_FIRST_COMPILE = 200
# JMH's defaults in SingleShotTime: no warmup, one measurement iteration, one call per batch
# (Defaults.WARMUP_ITERATIONS_SINGLESHOT, MEASUREMENT_ITERATIONS_SINGLESHOT in JMH 1.37).
_SINGLE_SHOT_DEFAULTS = (0, 1)
_RUNNER_COUNTS = re.compile(rb"\.(warmupIterations|measurementIterations|warmupBatchSize|measurementBatchSize"
                            rb"|mode|warmupMode)\(\s*([^)]*)\)")


def interpreted(ctx: FileContext, bench: Benchmark) -> str | None:
    """Why ``bench`` runs only in the interpreter, or None: in SingleShotTime alone, its
    warmup and measurement iterations times their batch sizes (annotations, else JMH's
    defaults; a runner in the file that sets them is read, and one that sets the mode makes
    it unknown) come to fewer than :data:`_FIRST_COMPILE` calls per fork, and its body has no
    loop. Dead code and constant folding are then the JIT's to do, and it never runs:
    the time is a cold start whatever the result's fate (heldout54's SingleShotTime demo)."""
    mode = _nearest_annotation(ctx, bench, "BenchmarkMode") or ""
    if "SingleShotTime" not in mode or re.search(r"Mode\.(?!SingleShotTime\b)\w+", mode):
        return None
    if bench.body is None or any(n.type in LOOPS for n in walk(bench.body)):
        return None
    counts = []
    for name, default in zip(("Warmup", "Measurement"), _SINGLE_SHOT_DEFAULTS):
        text = _nearest_annotation(ctx, bench, name)
        iterations, batch = default, 1
        if text is not None:
            found = re.search(r"\biterations\s*=\s*(\d+)", text)
            sized = re.search(r"\bbatchSize\s*=\s*(\w+)", text)
            if found is None and "iterations" in text or sized is not None and not sized.group(1).isdigit():
                return None
            iterations = int(found.group(1)) if found else iterations
            batch = int(sized.group(1)) if sized else 1
        counts.append([iterations, batch])
    for key, value in _RUNNER_COUNTS.findall(ctx.source.data):
        value = value.strip()
        if key in (b"mode", b"warmupMode") or not value.isdigit():
            return None   # a mode set in code, or a count lint cannot read
        slot = 0 if key.startswith(b"warmup") else 1
        counts[slot][1 if key.endswith(b"BatchSize") else 0] = int(value)
    calls = sum(i * b for i, b in counts)
    if calls >= _FIRST_COMPILE:
        return None
    return (f"in SingleShotTime it runs {calls} time{'s' if calls != 1 else ''} per fork, below the "
            f"{_FIRST_COMPILE} calls after which HotSpot first compiles a method: the interpreter "
            f"runs it and removes nothing")


# Evidence that one call of a benchmark may take a millisecond or more (JMH's Level.Invocation
# javadoc: the fixture's timestamps matter below about 1 ms). Names, not types, where the type
# is usually not in the project: waiting on other threads, file or network I/O.
WAITS = frozenset({"await", "join", "awaitTermination", "invokeAll", "acquire"})
_IO_OWNERS = frozenset({"Files", "FileChannel", "RandomAccessFile", "FileInputStream", "FileOutputStream",
                        "FileReader", "FileWriter", "Socket", "ServerSocket", "SocketChannel", "HttpClient"})
_STREAMS = frozenset({"IntStream", "LongStream", "DoubleStream", "Stream", "Arrays"})
_SLOW_UNITS = ("MILLISECONDS", "SECONDS", "MINUTES", "HOURS", "DAYS")
LARGE_PARAM = 10_000    # a @Param size from which a pass over the data takes about 10 us or more


def cost_evidence(ctx: FileContext, bench: Benchmark) -> str | None:
    """Why one call of ``bench`` may take a millisecond or more, or None: its body loops, sorts,
    waits on other threads or does I/O, directly or in a project method it calls; it reports
    a time per call in milliseconds or seconds; its state holds a thread pool; or its state has a @Param size
    of 10,000 or more."""
    unit = _output_unit(ctx, bench)
    if unit in _SLOW_UNITS and _time_per_operation(ctx, bench):
        return "reports in milliseconds or slower (@OutputTimeUnit)"
    found = heavy_node(bench, bench.body, _few_trips(ctx, bench))
    if found:
        return found
    for node in bench.own("method_invocation"):
        call = bench.call(node)
        targets = [call.method] if call.kind == "project" and call.method else _dispatched(bench, node)
        for method in targets:
            callee = callee_context(bench, method)
            inside = heavy_node(callee, callee.body) if callee is not None else None
            if inside:
                return f"calls {method.name}, which {inside}"
    pool = _thread_pool(ctx, bench)
    if pool:
        return f"uses state holding a thread pool ('{pool}')"
    # A large input size says little about one call when the author reports in ns or us: the
    # call may touch one element of a large structure (a timer among 100,000 running tasks).
    large = _large_param(ctx, bench) if unit not in ("NANOSECONDS", "MICROSECONDS") else None
    return f"has @Param {large} (large inputs)" if large else None


def _dispatched(bench: Benchmark, node: Node) -> list:
    """The project methods a call on a functional field may run: ``work.get()`` where the
    class assigns ``work = this::deleteAll`` (a benchmark choosing its body in @Setup by a
    @Param). Only method references to methods of the field's own class are followed."""
    obj = node.child_by_field_name("object")
    field = bench.field_of(obj) if obj is not None and obj.type in ("identifier", "field_access") else None
    owner = next((c for c in bench.index.lineage(bench.cls) if field is not None and field.name in c.fields), None)
    if owner is None:
        return []
    found = []
    for assign in walk(owner.node):
        if assign.type != "assignment_expression":
            continue
        left, right = assign.child_by_field_name("left"), assign.child_by_field_name("right")
        target = owner.source.text(left).removeprefix("this.")
        if target != field.name or right is None or right.type != "method_reference":
            continue
        parts = [owner.source.text(c) for c in right.named_children]
        if len(parts) == 2 and parts[0] == "this":
            found += owner.methods.get(parts[1], [])
    return found


def _loops_outside(body: Node | None, skip: list[Node]) -> Iterator[Node]:
    """Pre-order nodes of ``body``, not entering the subtrees in ``skip`` (estimated loops)."""
    stack = [body] if body is not None else []
    while stack:
        node = stack.pop()
        yield node
        if not any(node == s for s in skip):   # the caller may have just skipped this one
            stack.extend(reversed(node.children))


def short_loops(bench: Benchmark) -> str | None:
    """The estimate of the body's first loop when every loop in it is estimated to take well
    under 1 ms (for the warning's message), else None."""
    loops = [n for n in walk(bench.body) if n.type in LOOPS] if bench.body is not None else []
    estimates = [estimate(bench, loop) for loop in loops]
    if not loops or any(e is None or e.nanos is None or e.nanos >= MILLISECOND_NS for e in estimates):
        return None
    return estimates[0].describe()


# A benchmark that reports a time per operation in ns or us says one operation is short; a
# loop of at most this many trips over work lint cannot see is then no evidence of a 1 ms call
# (heldout15: ten lazy parses reported in us/op). Chosen so that a call stays under 1 ms even
# at about 100 us (us) or 10 us (ns) per trip, beyond what such a unit is chosen for; a batch
# of hundreds of operations per call (micrometer's 500 meter registrations in ns/op) is not
# "few": that is how an author amortises a per-call fixture.
_FEW_TRIPS = {"NANOSECONDS": 100, "MICROSECONDS": 10}


def _few_trips(ctx: FileContext, bench: Benchmark) -> int:
    """The :data:`_FEW_TRIPS` limit for the benchmark's unit, 0 unless it reports a time per call."""
    return _FEW_TRIPS.get(_output_unit(ctx, bench) or "", 0) if _time_per_operation(ctx, bench) else 0


def _few_loops(ctx: FileContext, bench: Benchmark) -> str | None:
    """``loops 10 times (...) and reports microseconds per operation`` when the body's loops
    are few-trip loops by :data:`_FEW_TRIPS`, for the warning's message; else None."""
    limit = _few_trips(ctx, bench)
    if not limit:
        return None
    loops = [estimate(bench, n) for n in walk(bench.body) if n.type in LOOPS] if bench.body is not None else []
    if not loops or any(e is None or e.trips > limit for e in loops):
        return None
    return f"{loops[0].describe()} and reports {_output_unit(ctx, bench).lower()} per operation"


def heavy_node(bench: Benchmark, body: Node | None, few_trips: int = 0) -> str | None:
    """Evidence of millisecond-scale work in ``body``. A loop whose trip count and cheap
    iterations the source shows (:mod:`rigorbench.lint.trips`) is evidence only when the
    estimate reaches 1 ms; one with a known count of at most ``few_trips`` (the author's unit
    says operations are short) is none; any other loop still counts (its length is not visible)."""
    short: list[Node] = []
    for node in _loops_outside(body, short):
        if node.type in LOOPS:
            found = estimate(bench, node)
            if found is not None and (found.nanos is not None and found.nanos < MILLISECOND_NS
                                      or found.trips <= few_trips):
                short.append(node)
                continue
            return found.describe() if found is not None else "loops"
        if node.type == "method_invocation":
            name = bench.source.text(node.child_by_field_name("name"))
            owner = node.child_by_field_name("object")
            owner_text = last_name(owner) if owner is not None and owner.type != "method_invocation" else ""
            if name in ("sort", "parallelSort"):
                return "sorts"
            if name == "forEach" and owner is not None:
                return "loops (forEach over a collection)"
            if name in ("stream", "parallelStream") and owner is not None or \
                    owner_text in _STREAMS and name in ("range", "rangeClosed", "stream", "iterate", "generate"):
                return "loops (a stream pipeline)"
            if name in WAITS and owner_text not in ("String", "Collectors"):   # String.join joins text
                return f"waits for other threads ({name})"
            if name == "get" and _future(bench, owner):
                return "waits for a future (get)"
            owner_type = bench.type_of(owner) if owner is not None and owner.type in ("identifier", "field_access") else None
            if owner_text in _IO_OWNERS or last_name_of(owner_type or "") in _IO_OWNERS:
                return "does file or network I/O"
            large = large_array_argument(bench, node)
            if large is not None:
                return large
        if node.type == "object_creation_expression":
            created = last_name_of(bench.source.text(node.child_by_field_name("type")))
            if created in _IO_OWNERS or created in ("Thread", "CountDownLatch", "CyclicBarrier"):
                return f"creates a {created}"
    return None


# A call that hands work to another thread or to I/O and returns its future: get() on its
# result waits (armeria's endpointGroup.whenReady().get()). By name, since the future's type is
# usually a library's; a plain get() on a map or a supplier is not one of these.
_FUTURE_CALL = re.compile(r"^(when[A-Z]\w*|submit|schedule|\w+Async|\w+Future)$")
_FUTURE_TYPES = frozenset({"Future", "CompletableFuture", "ListenableFuture", "CompletionStage",
                           "ChannelFuture", "ScheduledFuture", "FutureTask", "ForkJoinTask"})


def _future(bench: Benchmark, owner: Node | None) -> bool:
    """Is ``owner`` (the receiver of a get()) a future: a call named as returning one
    (``whenReady()``, ``submit(...)``, ``sendAsync(...)``) or a variable of a future type?"""
    if owner is None:
        return False
    if owner.type == "method_invocation":
        return bool(_FUTURE_CALL.match(bench.source.text(owner.child_by_field_name("name"))))
    declared = bench.type_of(owner) if owner.type in ("identifier", "field_access") else None
    return last_name_of((declared or "").split("<", 1)[0]) in _FUTURE_TYPES


_POOLS = frozenset({"ExecutorService", "ScheduledExecutorService", "ThreadPoolExecutor",
                    "ScheduledThreadPoolExecutor", "ForkJoinPool", "Executor"})


def _state_classes(ctx: FileContext, bench: Benchmark) -> list[ClassInfo]:
    """The benchmark's class and superclasses, and the @State classes (with theirs) it takes."""
    classes = [*ctx.index.lineage(bench.cls)]
    for p in bench.params:
        owner = ctx.index.lookup(bench.locals.get(p, ""), bench.cls)
        classes += [*ctx.index.lineage(owner)] if owner is not None else []
    return classes


def _thread_pool(ctx: FileContext, bench: Benchmark) -> str | None:
    """A field of the benchmark's state typed as a thread pool: work the measured object hands
    to it (a parallel search, a fan-out) costs thread wake-ups and a wait for the slowest
    task, tens of microseconds to milliseconds, whatever the body looks like."""
    for cls in _state_classes(ctx, bench):
        for info in cls.fields.values():
            if last_name_of(info.type.split("<", 1)[0]) in _POOLS:
                return info.name
    return None


def short_unit(ctx: FileContext, bench: Benchmark) -> bool:
    """Does the benchmark report a time per call in nanoseconds or microseconds (its author
    says one call is short)?"""
    return _output_unit(ctx, bench) in ("NANOSECONDS", "MICROSECONDS") and _time_per_operation(ctx, bench)


def _time_per_operation(ctx: FileContext, bench: Benchmark) -> bool:
    """Is the unit a time per call? In Throughput (JMH's default mode) it is the denominator
    of a rate: nanosecond calls are commonly reported in operations per second or per
    millisecond, so a slow unit says nothing about the length of one call."""
    mode = _nearest_annotation(ctx, bench, "BenchmarkMode") or ""
    return any(m in mode for m in ("AverageTime", "SampleTime", "SingleShotTime", "Mode.All"))


def _output_unit(ctx: FileContext, bench: Benchmark) -> str | None:
    """The ``TimeUnit`` constant of the nearest ``@OutputTimeUnit`` (method, class, superclasses)."""
    found = re.search(r"\b(NANOSECONDS|MICROSECONDS|MILLISECONDS|SECONDS|MINUTES|HOURS|DAYS)\b",
                      _nearest_annotation(ctx, bench, "OutputTimeUnit") or "")
    return found.group(1) if found else None


def _large_param(ctx: FileContext, bench: Benchmark) -> int | None:
    """The largest whole-number @Param value of the benchmark's class, its superclasses and the
    @State classes it takes, when it is at least LARGE_PARAM."""
    values = []
    for cls in _state_classes(ctx, bench):
        for info in cls.fields.values():
            param = annotation(info.declaration, "Param")
            if param is not None:
                values += [int(v.replace("_", "")) for v in re.findall(r'"\s*([0-9][0-9_]*)\s*"', info.source.text(param))]
    largest = max(values, default=0)
    return largest if largest >= LARGE_PARAM else None


def check_fork(ctx: FileContext) -> Iterator[Issue]:
    for cls in ctx.file.classes:
        targets = [(cls.node, "")] + [(m.node, f"{cls.name}.{m.name}") for ms in cls.methods.values()
                                      for m in ms]
        for declaration, bench in targets:
            fork = annotation(declaration, "Fork")
            value = annotation_value(fork) if fork is not None else None
            if _int_value(ctx, cls, value) == 0:
                yield _fork_issue(ctx, value, bench, "@Fork(0)")
    for node in ctx.source.within("method_invocation", ctx.source.root):
        if node.child_by_field_name("object") is not None \
                and ctx.source.text(node.child_by_field_name("name")) == "forks":
            args = node.child_by_field_name("arguments").named_children
            if len(args) == 1 and int_literal(args[0]) == 0:
                yield _fork_issue(ctx, args[0], "", ".forks(0)")


def _fork_issue(ctx: FileContext, value: Node, bench: str, what: str) -> Issue:
    return make_issue(ctx.source, value, "FORK", "error",
                      f"{what} runs benchmarks in the JMH host JVM, sharing JIT profiles",
                      benchmark=bench, hint="use at least one fork",
                      edits=(Edit(value.start_byte, value.end_byte, "1"),))


def check_opinv(ctx: FileContext) -> Iterator[Issue]:
    for bench in ctx.benchmarks:
        own = annotation(bench.node, "OperationsPerInvocation")
        ann = own if own is not None else annotation(bench.cls.node, "OperationsPerInvocation")
        count = _int_value(ctx, bench.cls, annotation_value(ann)) if ann is not None else None
        if count is None or count <= 1 or bench.body is None or not _single_operation(bench):
            continue
        where = ann if own is not None else bench.node.child_by_field_name("name")
        yield make_issue(bench.source, where, "OPINV", "warning",
                         f"@OperationsPerInvocation({count}) but {bench.name} has no loop; "
                         f"reported time per operation is {count}x too small",
                         benchmark=bench.name, hint="remove the annotation or loop N times")


def _single_operation(bench: Benchmark) -> bool:
    for node in walk(bench.body):
        if node.type in LOOPS or node.type in ("lambda_expression", "method_reference",
                                               "object_creation_expression"):
            return False
        if node.type == "method_invocation":
            call = bench.call(node)
            if call.kind == "unknown":
                return False
            # a project method, pure helper or not (JMHSample_11's reps(n) loops n times)
            if call.method is not None and (is_benchmark(call.method.node) or any(
                    n.type in LOOPS or n.type == "method_invocation"
                    for n in walk(call.method.node))):
                return False
    return True
