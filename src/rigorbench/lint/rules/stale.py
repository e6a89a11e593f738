"""STALE: the benchmark sorts its input in place, so every call after the first sorts sorted data.

JMHSample_38_PerInvokeSetup, ``measureWrong``: a benchmark that sorts an array held by its
``@State`` sorts random data on its first call only; from then on the array is sorted and the
benchmark measures sorting sorted data (for many sorts, much faster). The labelled corpus shows
the same shape in real code (a benchmark group sorting a reverse-sorted state array in place).

Reported when a ``@Benchmark`` method, outside lambdas, sorts or permutes in place an array or
list it reads from a field (``data``, ``this.data``, ``state.data``) of its own class or of a
``@State`` object:

* ``Arrays.sort(x, ...)``, ``Arrays.parallelSort(x, ...)``, ``Collections.sort(x, ...)`` or
  ``x.sort(...)`` on such a field, or
* a project method given such a field that compares elements of that parameter with each other
  and moves them among themselves (``b[i] = b[j]``, or a swap through a local read from
  ``b[...]``): a hand-written sort;

and neither the benchmark writes the field (``data = original.clone()`` first: a fresh copy
each call) or hands it to another call before the sort (which may refill it), nor the field's class has a ``@Setup(Level.Invocation)`` fixture (it restores the
input before each call; INVO judges that), nor the benchmark runs in ``SingleShotTime`` mode
with a fixture that restores the input each iteration. A shuffle or a reverse is not reported:
every call gets a new order (or one of two), not a stale one.

A benchmark that only drains a collection of its state (:func:`_drained`) is reported too:
after the first calls it removes from an emptied collection.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from tree_sitter import Node

from rigorbench.lint.base import Issue, make_issue
from rigorbench.lint.context import Benchmark, FileContext
from rigorbench.lint.index import FieldInfo, MethodInfo, last_name_of
from rigorbench.lint.parse import annotation_value, annotations, last_name, walk
from rigorbench.lint.rules.config import single_shot

ID = "STALE"
TITLE = ("the benchmark sorts or drains its @State input in place: every call after the first works on "
         "sorted or emptied data")
REFERENCE = "JMHSample_38_PerInvokeSetup (measureWrong)"
EXPLANATION = """\
What goes wrong: the benchmark sorts (with the JDK or by hand) an array or list that it reads
from its @State. JMH calls the benchmark millions of times on the same state object,
so only the first call sorts the data the state was set up with; every later call sorts data
that is already sorted, which for most sorts is far quicker. The result measures the best case
instead of the case you meant.

How to fix: sort a copy made inside the benchmark (byte[] c = Arrays.copyOf(d.arr, d.arr.length);
then sort c), which is what JMHSample_38 calls the only sensible thing in the overwhelming
majority of cases: the copy's cost is small beside the sort's and is measured alike in every
version. Restoring the input with @Setup(Level.Invocation) also works, with the costs INVO
explains.

Not reported: a benchmark that writes the field first (a fresh copy per call), a state with a
per-invocation fixture (a setup before each call, or a teardown that copies the input back
after it), SingleShotTime with a fixture that restores the input each iteration,
and a shuffle or a reverse (a new order each call, or one of two).

The same goes for a benchmark that only takes elements out of a collection of its state
(queue.poll() until it is empty, set.remove(k) for the same keys, dequeueInt()) that a Trial
or Iteration fixture fills: the first calls empty it or remove the keys, and every later call
measures removing from an empty collection or missing keys. Put back what the call removes,
refill with @Setup(Level.Invocation), or measure with SingleShotTime and a batchSize. Not
reported when the benchmark puts anything back on the collection, hands it to another call,
or calls a project helper or lambda that names it; for clear() (a reset before refilling); in
a @Group or with a per-invocation fixture; for a concurrent or blocking queue, in a class that
starts threads; nor for a collection type that is not, by its import, a mutable JDK or
primitive-collection library type (a persistent map's remove returns a new map).

Before:
    @Benchmark public int[] measure(Data d) { Arrays.sort(d.values); return d.values; }

After:
    @Benchmark public int[] measure(Data d) {
        int[] c = d.values.clone(); Arrays.sort(c); return c; }
"""

_ORDER = frozenset({"<", ">", "<=", ">="})
_NAMES = ("identifier", "field_access", "scoped_identifier")   # Arrays, java.util.Arrays
_SORTS = {("Arrays", "sort"), ("Arrays", "parallelSort"), ("Collections", "sort")}


def check(ctx: FileContext) -> Iterator[Issue]:
    for bench in ctx.benchmarks:
        if bench.body is None:
            continue
        written = _written_fields(bench)
        for node in bench.source.within("method_invocation", bench.body):
            if _inside_lambda(node, bench.body):
                continue
            found = _sorted_input(bench, node)
            if found is None:
                continue
            arg, info, how = found
            if info.name in written or _refilled_before(bench, node, info.name) or _restored(ctx, bench, info):
                continue
            shown = bench.source.text(arg)
            yield make_issue(bench.source, arg, ID, "warning",
                             f"{bench.name} {how} '{shown}' in place: it is state, so every call after "
                             f"the first works on data already in order", benchmark=bench.name,
                             hint=f"sort a copy made in the benchmark ({shown}.clone()), or see "
                                  f"'rigorbench lint --explain STALE'")
        drained = _drained(ctx, bench, written)
        if drained is not None:
            call, shown, how = drained
            yield make_issue(bench.source, call, ID, "warning",
                             f"{bench.name} takes elements out of '{shown}' ({how}) and puts none back: "
                             f"it is state, so after the first calls it works on an emptied collection "
                             f"or misses the keys it removed", benchmark=bench.name,
                             hint="put back what the call removes, refill it with @Setup(Level.Invocation) "
                                  "(see INVO), or measure with SingleShotTime and a batchSize")


# Calls that take elements out of a collection or queue (the JDK's, and the primitive
# collections' rem, removeInt, dequeueInt, dequeueLastInt), and calls that only look at it.
# Any other call on the receiver may put something back, which silences the check.
_DRAINS = re.compile(r"(remove(First|Last|All|If|Int|Long|Double|Float|Char|Short|Byte)?|"
                     r"poll(First|Last)?(Entry)?|pop|rem|dequeue\w*)$")
_LOOKS = frozenset({"isEmpty", "size", "contains", "containsKey", "containsValue", "peek", "peekFirst",
                    "peekLast", "first", "last", "firstKey", "lastKey", "element", "getFirst", "getLast",
                    "get", "firstInt", "lastInt", "firstLong", "lastLong"})
_COLLECTION = re.compile(r"(List|Set|Map|Queue|Deque|Dequeue|Stack|Heap|Collection|Vector|Bag|Multiset)$")
# Mutable collection libraries whose removals change the receiver; a persistent collection's
# remove returns a new one (vavr's LinkedHashMap.remove), so the type must come from one of
# these by an import of its file (java.util's by name under ``import java.util.*``).
_MUTABLE_PACKAGES = ("java.util.", "it.unimi.dsi.fastutil.", "com.carrotsearch.hppc.", "com.koloboke.",
                     "org.eclipse.collections.api.", "org.eclipse.collections.impl.", "gnu.trove.",
                     "org.agrona.collections.", "speiger.src.collections.", "net.openhft.koloboke.")
# A queue another thread may fill (a producer started by a fixture, a sibling in a @Group)
_SHARED_QUEUES = re.compile(r"Concurrent|Blocking|Transfer|Disruptor|RingBuffer|Channel")


def _drained(ctx: FileContext, bench: Benchmark, written: set[str]) -> tuple[Node, str, str] | None:
    """(the call, the field, how) when the benchmark only takes elements out of a collection
    held in a field of its state (``fifoQueue.dequeueInt()`` while not empty, ``set.remove(k)``
    for the same 100 keys, ``queue.poll()``) that a Trial or Iteration fixture fills: the first
    call empties it or removes the keys, and every later call in the iteration measures
    removing from an empty collection or missing keys (heldout50's primitive-collection suite,
    five of 25 sampled benchmarks). Not when the benchmark writes the field, hands it to
    another call, calls anything on it but removals and lookups (an add puts back), belongs
    to a @Group (a sibling may fill it), runs in SingleShotTime, or a Level.Invocation fixture
    is around (it may refill); nor for a queue another thread may fill (a concurrent or
    blocking queue, a ring buffer), nor in a class that starts threads."""
    if single_shot(ctx, bench) or any(name == "Group" for name, _ in annotations(bench.node)):
        return None
    found: dict[str, tuple[Node, str, str]] = {}
    for node in bench.own("method_invocation"):
        obj = node.child_by_field_name("object")
        name = bench.source.text(node.child_by_field_name("name"))
        if obj is None or obj.type not in ("identifier", "field_access") or not _DRAINS.match(name):
            continue
        info = bench.field_of(obj)
        if info is not None and _mutable_collection(bench, info):
            found.setdefault(info.name, (node, bench.source.text(obj), f"{name}()"))
    if not found:
        return None
    touched: set[str] = set()
    for node in bench.source.within("method_invocation", bench.body):   # lambdas may refill too
        for arg in node.child_by_field_name("arguments").named_children:
            if arg.type in ("identifier", "field_access"):
                touched.add(last_name(arg))   # handed on: the callee may refill it
        method = bench.call(node).method
        if method is not None:   # a helper of the project that names a field may refill it
            touched.update(n.text.decode() for n in walk(method.node) if n.type == "identifier")
        obj = node.child_by_field_name("object")
        name = bench.source.text(node.child_by_field_name("name"))
        if obj is not None and obj.type in ("identifier", "field_access") \
                and not _DRAINS.match(name) and name not in _LOOKS:
            touched.add(last_name(obj))   # any other call on it (an add) may put something back
    for field_name, hit in found.items():
        if field_name in touched or field_name in written:
            continue
        if _refilled_per_call(ctx, bench) or _starts_threads(bench):
            return None
        return hit
    return None


def _mutable_collection(bench: Benchmark, info: FieldInfo) -> bool:
    """Is the field's type a mutable collection of the JDK or of a primitive-collection
    library, by the imports of the file declaring it, and none another thread may fill?"""
    simple = last_name_of(info.type)
    if not _COLLECTION.search(simple) or _SHARED_QUEUES.search(info.type):
        return False
    imports = bench.index.imports.get(id(info.source), bench.file.imports if info.source is bench.source else ())
    base = info.type.split("<", 1)[0].strip()
    if "." in base:
        return base.startswith(_MUTABLE_PACKAGES)
    for imported in imports:
        if imported.endswith("." + simple):
            return imported.startswith(_MUTABLE_PACKAGES)
    return any(imported in ("java.util.*", "java.util") for imported in imports) and simple in _JDK_COLLECTIONS


_JDK_COLLECTIONS = frozenset({"List", "Set", "Map", "Queue", "Deque", "Collection", "SortedSet", "SortedMap",
                              "NavigableSet", "NavigableMap", "ArrayList", "LinkedList", "HashSet",
                              "LinkedHashSet", "TreeSet", "HashMap", "LinkedHashMap", "TreeMap", "ArrayDeque",
                              "PriorityQueue", "Stack", "Vector", "EnumMap", "IdentityHashMap", "WeakHashMap"})


def _state_classes(bench: Benchmark) -> list:
    """The benchmark's class and the project classes of its parameters (its @State objects)."""
    return [bench.cls] + [c for c in (bench.index.lookup(bench.locals[p], bench.cls)
                                      for p in bench.params if bench.locals.get(p)) if c is not None]


def _refilled_per_call(ctx: FileContext, bench: Benchmark) -> bool:
    """Is there a Level.Invocation fixture in the benchmark's class, the classes of its @State
    parameters, or their superclasses? It may refill what the benchmark takes out."""
    for start in _state_classes(bench):
        for cls in bench.index.lineage(start):
            for methods in cls.methods.values():
                for method in methods:
                    for name, node in annotations(method.node):
                        value = annotation_value(node) if name in ("Setup", "TearDown") else None
                        if value is not None and "Invocation" in cls.source.text(value):
                            return True
    return False


def _starts_threads(bench: Benchmark) -> bool:
    """Does the benchmark's class, or the class of a @State it takes, start threads (a producer
    that may refill the collection)?"""
    return any(word in c.source.text(c.node) for c in _state_classes(bench)
               for word in ("new Thread", "Executor", ".start()", "ForkJoinPool"))


def _sorted_input(bench: Benchmark, node: Node) -> tuple[Node, FieldInfo, str] | None:
    """(the argument, its field, what is done) when ``node`` sorts a state field in place."""
    name = bench.source.text(node.child_by_field_name("name"))
    obj = node.child_by_field_name("object")
    args = node.child_by_field_name("arguments").named_children
    if obj is not None and obj.type in _NAMES and (last_name(obj), name) in _SORTS and args:
        info = _state_field(bench, args[0])
        return (args[0], info, "sorts") if info else None
    if obj is not None and name == "sort" and obj.type in ("identifier", "field_access"):
        info = _state_field(bench, obj)
        type_name = info.type if info else ""
        return (obj, info, "sorts") if info is not None and "List" in type_name else None
    call = bench.call(node)
    if call.method is None:
        return None
    for position, arg in enumerate(args):
        info = _state_field(bench, arg)
        if info is not None and _permutes(bench, call.method, position):
            return arg, info, f"sorts (through {name}(), which compares and moves its elements)"
    return None


def _state_field(bench: Benchmark, node: Node) -> FieldInfo | None:
    """The field ``node`` reads when it is an array or list field (of the benchmark's class, a
    @State object or any project class: a static array sorted in place goes stale alike)."""
    if node.type not in ("identifier", "field_access"):
        return None
    info = bench.field_of(node)
    if info is None:
        return None
    if not (info.type.endswith("[]") or "List" in info.type):
        return None
    return info


def _written_fields(bench: Benchmark) -> set[str]:
    """Names of fields the benchmark assigns (``data = ...``, ``this.data = ...``, ``d.data = ...``)."""
    names = set()
    for node in bench.source.within("assignment_expression", bench.body):
        left = node.child_by_field_name("left")
        if left.type in ("identifier", "field_access"):
            names.add(last_name(left))
    return names


def _refilled_before(bench: Benchmark, sort: Node, name: str) -> bool:
    """Is the field ``name`` handed to another call before ``sort`` in the body (``refill(data)``,
    ``System.arraycopy(src, 0, data, 0, n)``)? That call may put fresh input in it."""
    for node in bench.source.within("method_invocation", bench.body):
        if node == sort or node.start_byte >= sort.start_byte:
            continue
        if any(arg.type in ("identifier", "field_access") and last_name(arg) == name
               for arg in node.child_by_field_name("arguments").named_children):
            return True
    return False


def _inside_lambda(node: Node, body: Node) -> bool:
    parent = node.parent
    while parent is not None and parent != body:
        if parent.type in ("lambda_expression", "class_body"):
            return True
        parent = parent.parent
    return False


def _restored(ctx: FileContext, bench: Benchmark, info: FieldInfo) -> bool:
    """Does the field's class put the input back before each call (a Level.Invocation fixture
    that writes the field, a setup before or a teardown after each call; in SingleShotTime,
    any setup that does), or is the input already
    in order (its constructor or a fixture sorts it: sorting it again changes nothing)?"""
    owner = bench.index.owner_of(info) or bench.index.lookup(info.owner, bench.cls)
    once = single_shot(ctx, bench)
    for cls in (list(bench.index.lineage(owner)) if owner is not None else []):
        text = cls.source.text
        body = cls.node.child_by_field_name("body")
        for member in (body.named_children if body is not None else ()):
            fixture = next((node for name, node in annotations(member) if name == "Setup"), None)
            teardown = next((node for name, node in annotations(member) if name == "TearDown"), None)
            if fixture is None and teardown is not None:   # restore() after each call (heldout52)
                level = annotation_value(teardown)
                code = member.child_by_field_name("body")
                if level is not None and text(level).replace(" ", "").endswith("Invocation") \
                        and code is not None and _writes_field(code, info.name, text):
                    return True
                continue
            if member.type != "constructor_declaration" and fixture is None:
                continue
            code = member.child_by_field_name("body")
            if code is None:
                continue
            if _sorts_field(bench, cls, code, info.name):
                return True          # set up in order: an in-place sort leaves it as it is
            if fixture is None or not _writes_field(code, info.name, text):
                continue
            level = annotation_value(fixture) if fixture is not None else None
            if once or (level is not None and text(level).replace(" ", "").endswith("Invocation")):
                return True
    return False


def _writes_field(code: Node, name: str, text) -> bool:
    """Does ``code`` assign the field ``name`` or hand it to a call (``System.arraycopy(src, 0,
    name, 0, n)``, ``Collections.addAll(name, ...)``)?"""
    for node in walk(code):
        if node.type == "assignment_expression":
            left = node.child_by_field_name("left")
            while left.type == "array_access":        # big[i] = ... refills the array
                left = left.child_by_field_name("array")
            if last_name(left) == name:
                return True
        if node.type == "method_invocation" and any(
                arg.type in ("identifier", "field_access") and last_name(arg) == name
                for arg in node.child_by_field_name("arguments").named_children):
            return True
    return False


def _sorts_field(bench: Benchmark, cls, code: Node, name: str) -> bool:
    """Does ``code`` (a constructor or fixture of ``cls``) sort the field ``name`` in place?"""
    text = cls.source.text
    for node in walk(code):
        if node.type != "method_invocation":
            continue
        method = text(node.child_by_field_name("name"))
        obj = node.child_by_field_name("object")
        args = node.child_by_field_name("arguments").named_children
        named = [i for i, arg in enumerate(args) if arg.type in ("identifier", "field_access") and last_name(arg) == name]
        if obj is not None and obj.type in _NAMES and (last_name(obj), method) in _SORTS and 0 in named:
            return True
        if method == "sort" and obj is not None and obj.type in ("identifier", "field_access") and last_name(obj) == name:
            return True
        if named and obj is not None and obj.type == "identifier":
            owner = bench.index.lookup(text(obj), cls)
            for candidate in (bench.index.methods(owner, method) if owner is not None else ()):
                if any(_permutes(bench, candidate, i) for i in named):
                    return True
        elif named and obj is None:
            for candidate in bench.index.methods(cls, method):
                if any(_permutes(bench, candidate, i) for i in named):
                    return True
    return False


def _permutes(bench: Benchmark, method: MethodInfo, position: int) -> bool:
    """Does ``method`` sort its parameter ``position`` by hand: compare two of its elements
    (``b[i] > b[j]``) and move its elements among themselves (``b[i] = b[j]``, or
    ``t = b[i]; ...; b[j] = t``)?"""
    owner = bench.index.owner_of(method)
    if position >= len(method.params) or owner is None:
        return False
    param = method.params[position][1]
    body = method.node.child_by_field_name("body")
    if body is None:
        return False
    text = owner.source.text
    from_param: set[str] = set()
    for node in walk(body):
        if node.type == "variable_declarator":
            value = node.child_by_field_name("value")
            if value is not None and _reads_element(value, param, text):
                from_param.add(text(node.child_by_field_name("name")))
    if not any(node.type == "binary_expression" and text(node.child_by_field_name("operator")) in _ORDER
               and _reads_element(node.child_by_field_name("left"), param, text)
               and _reads_element(node.child_by_field_name("right"), param, text) for node in walk(body)):
        return False     # no element compared with another: a shuffle or a reverse, not a sort
    for node in walk(body):
        if node.type != "assignment_expression":
            continue
        left, right = node.child_by_field_name("left"), node.child_by_field_name("right")
        if left.type != "array_access" or text(left.child_by_field_name("array")) != param:
            continue
        if _reads_element(right, param, text) or (right.type == "identifier" and text(right) in from_param):
            return True
    return False


def _reads_element(node: Node, param: str, text) -> bool:
    return any(n.type == "array_access" and text(n.child_by_field_name("array")) == param for n in walk(node))
