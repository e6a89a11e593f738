"""Calls that do not belong inside a measured benchmark method: TIMER, SLEEP, PRINT.

Sestoft, "Microbenchmarks in Java and C#": timers have limited resolution and a cost of
their own, and console output or logging inside the timed region can dominate the measured
time. JMH already times every invocation, so hand timing, sleeping and printing inside a
``@Benchmark`` method measure the wrong thing. Lambdas inside the benchmark count (they
usually run inside it, e.g. ``forEach``); fixtures and helper methods do not.
"""

from __future__ import annotations

import collections
import re
from collections.abc import Iterator

from tree_sitter import Node

from rigorbench.lint.base import Issue, make_issue, short
from rigorbench.lint.context import Benchmark, FileContext
from rigorbench.lint.index import last_name_of
from rigorbench.lint.parse import LOOPS, walk
from rigorbench.lint.rules.config import cost_evidence, heavy_node, short_unit, single_shot
from rigorbench.lint.rules.void import effect_of, read_only_accessor
from rigorbench.lint.stores import callee_context

TIMER_TITLE = "the benchmark reads the clock itself inside a harness that already times it"
TIMER_REFERENCE = "Sestoft, Microbenchmarks in Java and C#, section on timer resolution; JMH Mode docs"
TIMER_EXPLANATION = """\
What goes wrong: System.nanoTime(), System.currentTimeMillis() or Instant.now() is called
inside a @Benchmark method, usually to time part of it by hand.

Why it matters: JMH already measures each invocation. A clock read costs tens of
nanoseconds, has a resolution from tens of nanoseconds (nanoTime) to milliseconds
(currentTimeMillis), and is not ordered with the surrounding code, so hand-made timings of
short code are mostly timer noise, and the calls themselves add to what JMH measures.

How to fix: let JMH do the timing. Split the code you want to time into its own
benchmark, use @Setup for work that must not be timed, and choose Mode.AverageTime or
Mode.SampleTime for per-call timings.

Not reported: a clock read that is the whole benchmark (a benchmark of the clock), a
timestamp used as data (formatted, compared), a single clock read (timing work takes a
reading before it and one after; one reading is a timestamp or an age the API under test
takes), and a pair of reads with no statement between them, which times nothing: the reads
make a duration for the API under test. Reported as info when lint cannot show that the timed
work is short: the benchmark shows millisecond-scale work (the evidence INVO uses), or it
calls code whose cost lint cannot see (a library call, a project method with effects), unless
it reports a time per call in ns or us or reads the clock per item (in a loop or lambda). A
clock read costs tens of nanoseconds: it matters beside short work only, and in issue #34's
labelled corpus no TIMER warning beside such work was right.

Before:
    @Benchmark public long measure() { long t = System.nanoTime(); work(); return System.nanoTime() - t; }

After:
    @Benchmark public int measure() { return work(); }
"""

SLEEP_TITLE = "the benchmark sleeps (or parks) inside the measured method"
SLEEP_REFERENCE = "Sestoft, Microbenchmarks in Java and C#; JMH Blackhole.consumeCPU javadoc"
SLEEP_EXPLANATION = """\
What goes wrong: Thread.sleep, TimeUnit.X.sleep or LockSupport.parkNanos is called inside
a @Benchmark method.

Why it matters: the measured time is then dominated by the scheduler's sleep granularity
(often 50 microseconds to several milliseconds, depending on the OS) rather than by the
code under test, and the thread's caches and CPU frequency change while it sleeps.

How to fix: move waiting out of the measured method. To simulate work of a given size use
Blackhole.consumeCPU(tokens); to space out calls use a fixture at Level.Iteration.

Not reported: a sleep or park that is the whole benchmark (alone, or a wait of 10 ms or more
in a try block or beside only a literal return or a print of literals: it is then the op
being timed, and far longer than the granularity), or a sleep between literal flag writes
only (recording.set(true); sleep; recording.set(false)): a measurement window in which other
threads do and count the work. A sleep inside a branch (an if arm, a catch, a
case: a back-off taken when a queue is full) is info: it costs only when taken, and how often
that is cannot be seen in the code. So is a sleep inside a lambda or an anonymous class the
benchmark hands on (a parallel stream's or an executor's task): a simulated blocking job
whose overlap across the pool's threads is what is measured.

Before:
    @Benchmark public int measure() throws Exception { Thread.sleep(1); return work(); }

After:
    @Benchmark public int measure() { return work(); }
"""

PRINT_TITLE = "the benchmark prints or logs inside the measured method"
PRINT_REFERENCE = "Sestoft, Microbenchmarks in Java and C# (printing inside the timed loop)"
PRINT_EXPLANATION = """\
What goes wrong: System.out/System.err printing or a logger call runs inside a @Benchmark
method.

Why it matters: formatting text and writing to a stream or a log appender takes locks and
does I/O; it can easily be most of the measured time, and its cost depends on the
terminal, the log configuration and the disk rather than on the code under test.

How to fix: remove the output, or print results once in a @TearDown(Level.Trial) method.
Return the value you wanted to see, so JMH consumes it.

Not reported: output that is the whole benchmark (a logging or console benchmark). Reported
as info in SingleShotTime, where it runs once per timed call, and on an error path: in a
catch block, or under a failed check (if (!done), if (status != OK), if (x == null)), where it
runs only when the measurement has already gone wrong. Output that runs once per call,
outside loops and lambdas, is info too when the call shows millisecond-scale work (the
evidence INVO uses: it loops, waits for other threads, does I/O, reports in ms), or calls code
whose cost lint cannot see (a library call, a project method with effects) and does not
report a time per call in ns or us: one line of output is small beside such work, and in
issue #34's labelled corpus no PRINT warning beside such work was right. But a print of a
whole collection (a list concatenated into the line, Arrays.toString(data)) stays a warning:
its text is as long as the data the work walks.

Before:
    @Benchmark public void measure() { System.out.println(work()); }

After:
    @Benchmark public int measure() { return work(); }
"""

CLOCKS = {("System", "nanoTime"), ("System", "currentTimeMillis"), ("Instant", "now")}
_UNITS = frozenset({"NANOSECONDS", "MICROSECONDS", "MILLISECONDS", "SECONDS", "MINUTES",
                    "HOURS", "DAYS"})
_PRINTS = frozenset({"print", "println", "printf", "format", "write"})
_LOG_LEVELS = frozenset({"trace", "debug", "info", "warn", "warning", "error", "fatal",
                         "severe", "fine", "finer", "finest", "config", "log"})
_LOGGER_NAMES = frozenset({"log", "logger"})


def _calls(ctx: FileContext) -> Iterator[tuple[Benchmark, Node, str, str]]:
    """``(benchmark, call, receiver text without java.lang./java.time., method name)``."""
    for bench in ctx.benchmarks:
        for node in ctx.source.within("method_invocation", bench.body):
            obj = node.child_by_field_name("object")
            receiver = ctx.source.text(obj) if obj is not None else ""
            receiver = receiver.removeprefix("java.lang.").removeprefix("java.time.")
            yield bench, node, receiver, ctx.source.text(node.child_by_field_name("name"))


def check_timer(ctx: FileContext) -> Iterator[Issue]:
    clocks = [found for found in _calls(ctx) if found[2:] in CLOCKS]
    # Timing work by hand takes a reading before it and one after: a benchmark that reads the
    # clock once times none of its own work (the reading is a timestamp or an age the API
    # under test takes: `record(System.nanoTime() - state.created)`).
    readings = collections.Counter(bench.name for bench, *_ in clocks)
    empty: dict[str, set[int]] = {}
    for bench, node, receiver, name in clocks:
        if bench.name not in empty:
            empty[bench.name] = _empty_timings(bench)
        if readings[bench.name] > 1 and not is_subject(bench, node) and not _clock_is_data(bench, node) \
                and node.id not in empty[bench.name]:
            reads = [n for b, n, *_ in clocks if b is bench]
            timed = (min(n.start_byte for n in reads), max(n.end_byte for n in reads))
            beside = _long_or_unseen(ctx, bench, node, reads, timed)
            reason = (f"{bench.name} {beside}; a clock read (tens of ns) matters only beside short "
                      "work") if beside else "hand timing inside JMH measures timer cost and noise"
            yield make_issue(ctx.source, node, "TIMER", "info" if beside else "warning",
                             f"{receiver}.{name}() inside {bench.name}: {reason}", benchmark=bench.name,
                             hint="let JMH time the method; split timed parts into benchmarks")


def _is_clock(bench: Benchmark, node: Node | None) -> bool:
    if node is None or node.type != "method_invocation":
        return False
    obj = node.child_by_field_name("object")
    receiver = bench.source.text(obj).removeprefix("java.lang.").removeprefix("java.time.") if obj else ""
    return (receiver, bench.source.text(node.child_by_field_name("name"))) in CLOCKS


def _empty_timings(bench: Benchmark) -> set[int]:
    """Ids of the clock calls of ``t0 = clock(); ... clock() - t0`` pairs with no statement
    between them: such a pair times nothing, so the clock reads are themselves the work the
    benchmark measures (a duration produced for the API under test, ``timer.record(d)``, or
    the cost of the clock), not hand timing of other work."""
    found: set[int] = set()
    statements = bench.source.within("local_variable_declaration", bench.body) \
        + bench.source.within("expression_statement", bench.body)
    for first in statements:
        start = _clock_stored(bench, first)
        second = first.next_named_sibling
        while second is not None and "comment" in second.type:
            second = second.next_named_sibling
        if start is None or second is None:
            continue
        name, clock = start
        for minus in walk(second):
            if minus.type != "binary_expression":
                continue
            left, right = minus.child_by_field_name("left"), minus.child_by_field_name("right")
            if bench.source.text(minus.child_by_field_name("operator")) == "-" \
                    and _is_clock(bench, left) and right.type == "identifier" \
                    and bench.source.text(right) == name:
                found |= {clock.id, left.id}
    return found


def _clock_stored(bench: Benchmark, statement: Node) -> tuple[str, Node] | None:
    """``(name, clock call)`` when the statement is ``long name = clock();`` or ``name = clock();``."""
    if statement.type == "local_variable_declaration":
        declarators = statement.children_by_field_name("declarator")
        if len(declarators) == 1:
            target, value = declarators[0].child_by_field_name("name"), declarators[0].child_by_field_name("value")
            if _is_clock(bench, value):
                return bench.source.text(target), value
    if statement.type == "expression_statement" and statement.named_children:
        inner = statement.named_children[0]
        if inner.type == "assignment_expression":
            target, value = inner.child_by_field_name("left"), inner.child_by_field_name("right")
            if target.type == "identifier" and _is_clock(bench, value):
                return bench.source.text(target), value
    return None


_COMPARISONS = frozenset({"==", "!=", "<", ">", "<=", ">=", "%", "/"})


def _clock_is_data(bench: Benchmark, clock: Node) -> bool:
    """Is the clock reading an input of the measured work rather than a hand timing?

    A timestamp passed to a call (``format(System.currentTimeMillis())``) or compared
    (``now % 199 == 0``, a cache check, a granularity loop) is data; a reading that reaches a
    subtraction or ``Duration.between`` is an elapsed time, i.e. hand timing. Readings used
    neither way (``return nanoTime() + x``) stay reported."""
    uses = [clock]
    parent = clock.parent
    target = None
    if parent is not None and parent.type == "variable_declarator":
        target = parent.child_by_field_name("name")
    elif parent is not None and parent.type == "assignment_expression":
        target = parent.child_by_field_name("left")
    if target is not None and target.type == "identifier":
        name = bench.source.text(target)
        uses = [n for n in bench.source.within("identifier", bench.body)
                if bench.source.text(n) == name and n != target]
    elapsed = data = False
    for use in uses:
        up = use.parent
        if up is None:
            continue
        op = up.child_by_field_name("operator")
        op_text = bench.source.text(op) if op is not None else ""
        if (up.type == "binary_expression" and op_text == "-") or op_text == "-=":
            elapsed = True
        elif up.type == "argument_list":
            call = up.parent
            called = bench.source.text(call.child_by_field_name("name")) if call is not None \
                and call.type == "method_invocation" else ""
            elapsed |= called == "between"
            data |= called != "between"
        elif up.type == "binary_expression" and op_text in _COMPARISONS:
            data = True
    return data and not elapsed


def is_subject(bench: Benchmark, node: Node) -> bool:
    """Is the call the whole benchmark (``return System.nanoTime();``, ``bh.consume(...)``,
    or the only statement)? Then its cost is what is measured, not a hand-timing error."""
    statements = [c for c in bench.body.named_children if "comment" not in c.type]
    if len(statements) != 1 or not statements[0].named_children:
        return False
    inner = statements[0].named_children[0]
    if inner.type == "method_invocation" and bench.call(inner).kind == "blackhole":
        args = inner.child_by_field_name("arguments").named_children
        inner = args[0] if len(args) == 1 else inner
    return inner == node


def check_sleep(ctx: FileContext) -> Iterator[Issue]:
    for bench, node, receiver, name in _calls(ctx):
        unit = receiver.rsplit(".", 1)[-1]
        parks = receiver.endswith("LockSupport") and name in ("parkNanos", "parkUntil")
        if (parks or (name == "sleep" and (receiver == "Thread" or unit in _UNITS))) \
                and not is_subject(bench, node) and not _sleep_is_window(bench, node):
            branch = _conditional(node)
            task = _in_task(node)
            yield make_issue(ctx.source, node, "SLEEP", "info" if branch or task else "warning",
                             f"{short(ctx.source.text(node), 40)} inside {bench.name}: the "
                             f"measurement is dominated by sleep granularity" + (
                                 f" when the {branch} that holds it runs (a back-off or a retry: "
                                 f"how often it runs is not visible here)" if branch else
                                 f" if the {task} that holds it runs on the benchmark thread (a "
                                 f"task handed to a pool or a parallel stream is a simulated "
                                 f"blocking job whose overlap is measured)" if task else ""),
                             benchmark=bench.name,
                             hint="use Blackhole.consumeCPU to simulate work, or sleep in a fixture")


def _in_task(node: Node) -> str | None:
    """``lambda`` or ``anonymous class`` when the call sits in one within the benchmark: code
    the benchmark hands to something else to run. A sleep in a parallel stream's or an
    executor's task is a simulated blocking job, and how many such jobs the pool overlaps is
    what the benchmark measures (heldout43); where and how often the task runs is not visible."""
    current = node.parent
    while current is not None and current.type != "constructor_declaration":
        if current.type == "lambda_expression":
            return "lambda"
        if current.type == "class_body":
            anonymous = current.parent is not None and current.parent.type == "object_creation_expression"
            return "anonymous class" if anonymous else None
        current = current.parent
    return None


def _conditional(node: Node) -> str | None:
    """The kind of branch a call sits in within its method (an ``if`` arm, a ``catch``, a
    ``case``), or None when it runs on every call: a back-off taken when a queue is full
    (heldout23's zipkin-reporter) costs only when taken, and lint cannot see how often."""
    current, child = node.parent, node
    while current is not None and current.type not in ("method_declaration", "lambda_expression",
                                                       "constructor_declaration", "class_body"):
        if current.type == "if_statement" and child != current.child_by_field_name("condition"):
            return "if branch"
        if current.type == "catch_clause":
            return "catch clause"
        if current.type in ("switch_block_statement_group", "switch_rule"):
            return "switch case"
        if current.type == "ternary_expression" and child != current.child_by_field_name("condition"):
            return "conditional expression"
        current, child = current.parent, current
    return None


_FLAG_SETTERS = frozenset({"set", "lazySet", "setRelease", "setOpaque", "setPlain"})


def _sleep_is_window(bench: Benchmark, sleep: Node) -> bool:
    """Is the sleep a measurement window: the only work of a body whose other statements
    just raise and lower flags (``recording.set(true); Thread.sleep(1000);
    recording.set(false);``)? Other threads do the measured work and count it while the
    benchmark thread waits; the sleep is the subject, not noise added to it."""
    statements = [c for c in bench.body.named_children if "comment" not in c.type]
    window = next((s for s in statements if s.start_byte <= sleep.start_byte < s.end_byte), None)
    if window is not None and window.type == "try_statement":
        if any(c.type == "finally_clause" for c in window.named_children):
            return False   # a finally block runs work beside the sleep on every call
        block = window.child_by_field_name("body")
        inside = [c for c in block.named_children if "comment" not in c.type] if block else []
        window = inside[0] if len(inside) == 1 else None
    if window is None or window.type != "expression_statement" or window.named_children[0] != sleep:
        return False
    others = [s for s in statements if not s.start_byte <= sleep.start_byte < s.end_byte]
    rest = [s for s in others if not _fixed_statement(bench, s)]
    if rest:
        return all(_flag_write(bench, s) for s in rest)
    return _sleep_millis(bench, sleep) >= _LONG_SLEEP_MS


# A wait this long is at least ten times the coarsest common sleep granularity (about 1 ms):
# timing it measures the wait asked for, not the scheduler's rounding of it.
_LONG_SLEEP_MS = 10.0
_UNIT_MS = {"NANOSECONDS": 1e-6, "MICROSECONDS": 1e-3, "MILLISECONDS": 1.0, "SECONDS": 1e3,
            "MINUTES": 6e4, "HOURS": 3.6e6, "DAYS": 8.64e7}


def _sleep_millis(bench: Benchmark, sleep: Node) -> float:
    """The wait a sleep or park asks for, in ms, when its argument is a literal, else 0:
    ``Thread.sleep(500)``, ``TimeUnit.SECONDS.sleep(1)``, ``LockSupport.parkNanos(1000)``."""
    args = sleep.child_by_field_name("arguments").named_children
    name = bench.source.text(sleep.child_by_field_name("name"))
    # parkNanos([blocker,] nanos) takes the wait last; Thread.sleep(millis[, nanos]) first
    amount_node = (args[-1] if name == "parkNanos" else args[0]) if args else None
    if amount_node is None or amount_node.type not in ("decimal_integer_literal", "decimal_floating_point_literal"):
        return 0.0
    try:
        amount = float(bench.source.text(amount_node).rstrip("lLfFdD").replace("_", ""))
    except ValueError:
        return 0.0
    receiver = sleep.child_by_field_name("object")
    unit = bench.source.text(receiver).rsplit(".", 1)[-1] if receiver is not None else ""
    if name == "parkNanos":
        return amount * 1e-6
    return amount * _UNIT_MS.get(unit, 1.0 if name == "sleep" and unit == "Thread" else 0.0)


def _fixed_statement(bench: Benchmark, statement: Node) -> bool:
    """``return 0;``, ``return;`` or ``System.out.println("done");``: a statement of fixed,
    tiny cost that computes nothing from data. A body of a sleep and such statements measures
    the sleep itself (a placeholder op in a demo, the sleep's own latency at a millisecond
    unit): there is no work under test for the sleep to hide (heldout54's kapileson, heldout55's
    wt-better, where the labels called a sleep of 500 and 1000 ms timed in ms the subject)."""
    if statement.type == "return_statement":
        values = statement.named_children
        return not values or values[0].type in ("true", "false", "null_literal") \
            or values[0].type.endswith("literal")
    if statement.type != "expression_statement" or not statement.named_children:
        return False
    inner = statement.named_children[0]
    if inner.type != "method_invocation" \
            or bench.source.text(inner.child_by_field_name("name")) not in ("print", "println"):
        return False
    args = inner.child_by_field_name("arguments").named_children
    return all(a.type.endswith("literal") for a in args)


def _flag_write(bench: Benchmark, statement: Node) -> bool:
    """``flag = true;``, ``this.flag = 1;`` or ``flag.set(false);``: a literal written to a field."""
    if statement.type != "expression_statement" or not statement.named_children:
        return False
    inner = statement.named_children[0]
    if inner.type == "assignment_expression":
        value = inner.child_by_field_name("right")
    elif inner.type == "method_invocation" and inner.child_by_field_name("object") is not None \
            and bench.source.text(inner.child_by_field_name("name")) in _FLAG_SETTERS:
        args = inner.child_by_field_name("arguments").named_children
        value = args[0] if len(args) == 1 else None
    else:
        return False
    return value is not None and (value.type in ("true", "false") or value.type.endswith("literal"))


def _is_logger(bench: Benchmark, receiver: Node | None) -> bool:
    if receiver is None or receiver.type not in ("identifier", "field_access"):
        return False
    text = bench.source.text(receiver).rsplit(".", 1)[-1]
    declared = last_name_of(bench.type_of(receiver) or "")
    return text.lower() in _LOGGER_NAMES or declared in ("Logger", "Log")


def _output_kind(bench: Benchmark, node: Node) -> str:
    """``"prints"``, ``"logs"`` or ``""`` for a method invocation."""
    obj = node.child_by_field_name("object")
    receiver = bench.source.text(obj).removeprefix("java.lang.") if obj is not None else ""
    name = bench.source.text(node.child_by_field_name("name"))
    if receiver in ("System.out", "System.err") and name in _PRINTS:
        return "prints"
    return "logs" if name in _LOG_LEVELS and _is_logger(bench, obj) else ""


def output_is_subject(bench: Benchmark) -> bool:
    """Is output the whole work of the benchmark (a benchmark of a logger or of a stream)?

    True for a void benchmark whose every call is a log call, a call inside a log call's
    arguments or in a try-with-resources header (the message and the logging context are
    part of logging), a level check (``logger.isDebugEnabled()``), a call on a local that is
    then logged (a log record being prepared), or the collection a for-each loop over logged
    items walks.
    ``System.out``/``System.err`` printing is never the subject: a benchmark of the console is
    rare and a leftover debug print common. The labelled corpus (benchmarks/lint_corpus) has
    138 PRINT warnings on loggers of this shape in logging benchmarks, none a real problem."""
    if not bench.void or bench.body is None:
        return False
    calls = bench.source.within("method_invocation", bench.body)
    kinds = {c: _output_kind(bench, c) for c in calls}
    outputs = [c for c in calls if kinds[c]]
    if not outputs or "prints" in kinds.values():
        return False
    logged = {bench.source.text(n) for c in outputs
              for n in bench.source.within("identifier", c.child_by_field_name("arguments"))}
    for call in calls:
        if call in outputs or _inside_any(call, outputs) or _ancestor(call, "resource_specification"):
            continue
        obj = call.child_by_field_name("object")
        name = bench.source.text(call.child_by_field_name("name"))
        if name.startswith("is") and name.endswith("Enabled") and _is_logger(bench, obj):
            continue  # the level check guarding the log call is part of logging
        if _feeds_logged_loop(bench, call, logged):
            continue  # for (Triplet t : list.items()) logger.debug("..." + t.getA()): the items logged
        if obj is None or obj.type != "identifier" or bench.source.text(obj) not in logged:
            return False
    return True


def _feeds_logged_loop(bench: Benchmark, call: Node, logged: set[str]) -> bool:
    """Is ``call`` the collection of a for-each loop whose element is logged (heldout37's
    franck-benault logging benchmarks log each item of a list in three idioms)?"""
    up = call.parent
    while up is not None and up != bench.body:
        if up.type == "enhanced_for_statement":
            value, name = up.child_by_field_name("value"), up.child_by_field_name("name")
            return value is not None and value.start_byte <= call.start_byte < value.end_byte \
                and name is not None and bench.source.text(name) in logged
        up = up.parent
    return False


def _inside_any(node: Node, outer: list[Node]) -> bool:
    return any(o.start_byte <= node.start_byte and node.end_byte <= o.end_byte and o != node
               for o in outer)


def _ancestor(node: Node, kind: str) -> bool:
    up = node.parent
    while up is not None and up.type != "method_declaration":
        if up.type == kind:
            return True
        up = up.parent
    return False


def failure_path(bench: Benchmark, node: Node) -> str:
    """Where ``node`` runs only when something went wrong, as a phrase, or "".

    In a ``catch`` block, or in the then-branch of an ``if`` whose test is a failed check: a
    negation (``!done``), an inequality (``status != OK``) or a null or false test, and no
    ``%`` (``if (i % 1000 != 0)`` is a periodic report, not an error path). Output there runs
    when the measurement has already gone wrong (a timeout, an error response), not on the
    path a valid measurement times."""
    child, up = node, node.parent
    while up is not None and up != bench.body:
        if up.type == "catch_clause":
            return "in a catch block"
        if up.type == "if_statement" and child == up.child_by_field_name("consequence"):
            test = bench.source.text(up.child_by_field_name("condition")).strip("() ")
            failed = test.startswith("!") or "!=" in test \
                or re.search(r"==\s*(null|false)\b", test) is not None
            if failed and "%" not in test:
                return f"only when '{short(test, 30)}'"
        child, up = up, up.parent
    return ""


def _long_or_unseen(ctx: FileContext, bench: Benchmark, node: Node, skip: list[Node],
                    within: tuple[int, int] | None = None) -> str:
    """Why ``node`` (a line of output, a clock read) may be small beside the rest of one call
    of ``bench``, as a phrase, or "" when nothing says so. Only for a node that runs once per
    call (not inside a loop or a lambda of the body, where it runs per item) in a benchmark
    that does not report a time per call in ns or us (its author says the call is short):
    the call shows millisecond-scale work (INVO's :func:`cost_evidence`: it loops, waits, does
    I/O, ...), or it calls code whose cost lint cannot see (:func:`_unseen_work`; for hand
    timing, between the first and the last clock read: the timed work)."""
    up = node.parent
    while up is not None and up != bench.body:
        if up.type in LOOPS or up.type == "lambda_expression":
            return ""
        up = up.parent
    if short_unit(ctx, bench):
        return ""
    heavy = cost_evidence(ctx, bench)
    if heavy:
        return heavy
    unseen = _unseen_work(bench, skip, within)
    return f"calls {unseen}(), whose cost lint cannot see" if unseen else ""


def _unseen_work(bench: Benchmark, skip: list[Node], within: tuple[int, int] | None = None) -> str | None:
    """The name of the first call in the body (in the byte range ``within`` if given), outside
    the subtrees in ``skip``, whose cost lint cannot show to be short, or None. Short: a pure
    JDK call, a Blackhole call, a listed
    read-only accessor, or a project method that neither has an effect (:func:`effect_of`:
    it calls nothing lint cannot see, writes no field, takes no lock) nor shows
    millisecond-scale work. Anything else (a library call, an abstract method, a project method
    with effects) may take any time: the rule's harm, timer or output cost dominating the
    measurement, then has no evidence."""
    for node in walk(bench.body):
        if node.type != "method_invocation" or any(
                s.start_byte <= node.start_byte and node.end_byte <= s.end_byte for s in skip) \
                or within is not None and not within[0] <= node.start_byte < within[1]:
            continue
        if _is_clock(bench, node) or _output_kind(bench, node):
            continue    # the rules' own subjects: other clock reads and lines of output
        call = bench.call(node)
        if call.kind in ("pure", "blackhole") and call.method is None \
                or call.kind == "unknown" and read_only_accessor(bench, node):
            continue
        if call.kind == "project" and call.method is not None:
            inner = callee_context(bench, call.method)
            if inner is not None and inner.body is not None and effect_of(bench, call.method) is None \
                    and heavy_node(inner, inner.body) is None:
                continue
        return call.name
    return None


_WHOLE = re.compile(r"(List|Set|Map|Collection|Queue|Deque)$")


def _printed_collection(bench: Benchmark, node: Node) -> str | None:
    """The text of a collection printed whole (``"called " + model.getSearchList()``, or
    ``Arrays.toString(data)``) by the output call ``node``: its toString formats every element,
    so the line grows with the data the benchmark's work walks (heldout55's searches over a
    450-element list, each printing the list). An array concatenated as is prints only its
    identity, and is not one."""
    args = node.child_by_field_name("arguments")
    for n in walk(args) if args is not None else ():
        if n.type == "method_invocation" and bench.source.text(n.child_by_field_name("name")) in (
                "toString", "deepToString") and n.child_by_field_name("object") is not None \
                and bench.source.text(n.child_by_field_name("object")).rsplit(".", 1)[-1] == "Arrays":
            return bench.source.text(n)
        if n.type in ("identifier", "field_access", "method_invocation") and n.parent.type in (
                "binary_expression", "argument_list"):
            declared = bench.type_of(n)
            if declared is not None and _WHOLE.search(declared.split("<", 1)[0].strip()):
                return bench.source.text(n)
    return None


def check_print(ctx: FileContext) -> Iterator[Issue]:
    subject: dict[str, bool] = {}
    for bench, node, receiver, name in _calls(ctx):
        kind = _output_kind(bench, node)
        printing, logging = kind == "prints", kind == "logs"
        if (printing or logging) and bench.name not in subject:
            subject[bench.name] = output_is_subject(bench)
        if (printing or logging) and not subject[bench.name] and not is_subject(bench, node):
            what = "prints" if printing else "logs"
            once = single_shot(ctx, bench)
            failing = failure_path(bench, node)
            heavy = _long_or_unseen(ctx, bench, node, [node]) if not (once or failing) else ""
            whole = _printed_collection(bench, node) if heavy else None
            if whole is not None:
                heavy = ""   # the line is as long as the data the work walks: not small beside it
            if failing:
                reason = (f"it runs {failing}, an error path that a valid measurement does not "
                          "take")
            elif once:
                reason = ("in SingleShotTime it runs once per timed call, beside a call usually "
                          "far longer than one line of output")
            elif heavy:
                reason = (f"it {'prints' if printing else 'logs'} once per call, and {bench.name} "
                          f"{heavy}: one line of output is small beside such work")
            elif whole is not None:
                reason = (f"it {what} the whole of {whole} on every call, output as long as "
                          f"the data the benchmark walks: formatting and I/O can dominate")
            else:
                reason = "I/O can dominate the measured time"
            yield make_issue(ctx.source, node, "PRINT", "info" if once or failing or heavy else "warning",
                             f"{receiver}.{name}(...) {what} inside {bench.name}; {reason}",
                             benchmark=bench.name,
                             hint="remove it, or report once in @TearDown(Level.Trial)")
