"""Side-effect-free JDK methods: a discarded call to one of them is dead code (RETU).

Source: the Java SE API documentation (java.base) of ``java.lang.Math`` and
``java.lang.StrictMath`` (all mathematical functions except ``random`` and the ``*Exact``
methods, which throw on overflow), ``java.lang.String`` (read-only instance methods and the
static ``valueOf``/``join``/``format``), the boxing classes ``Integer``, ``Long``, ``Short``,
``Byte``, ``Double``, ``Float``, ``Boolean``, ``Character`` (``valueOf``, ``parse*``,
``toString``, ``hashCode``, ``compare``, the bit-twiddling statics such as
``Integer.bitCount``, and the ``xxxValue`` accessors), ``java.util.Objects`` (hash and
equality helpers) and ``java.util.Arrays`` read-only helpers. A call is listed only when its
documented contract has no effect other than the returned value, so the JIT may drop it when
the value is unused (JMHSample_08_DeadCode). The value of each entry is the return type when
it does not depend on the overload, else ``None``.
"""

from __future__ import annotations

import re

_MATH_DOUBLE = ("acos asin atan atan2 cbrt ceil cos cosh exp expm1 floor hypot log log10 log1p "
                "pow rint sin sinh sqrt tan tanh toDegrees toRadians IEEEremainder")
_MATH_OVERLOADED = "abs max min round signum ulp floorDiv floorMod fma copySign nextUp nextDown scalb"
_BOXING_COMMON = {"valueOf": "@", "toString": "String", "hashCode": "int", "compare": "int"}
_INTEGRAL_BITS = ("bitCount numberOfLeadingZeros numberOfTrailingZeros signum")
_INTEGRAL_SAME = ("reverse reverseBytes highestOneBit lowestOneBit rotateLeft rotateRight max min "
                  "sum divideUnsigned remainderUnsigned")


def _math() -> dict[tuple[str, str], str | None]:
    table: dict[tuple[str, str], str | None] = {}
    for owner in ("Math", "StrictMath"):
        table.update({(owner, m): "double" for m in _MATH_DOUBLE.split()})
        table.update({(owner, m): None for m in _MATH_OVERLOADED.split()})
        table[(owner, "getExponent")] = "int"
    return table


def _boxing() -> dict[tuple[str, str], str | None]:
    table: dict[tuple[str, str], str | None] = {}
    primitive = {"Integer": "int", "Long": "long", "Short": "short", "Byte": "byte",
                 "Double": "double", "Float": "float", "Boolean": "boolean", "Character": "char"}
    for box, prim in primitive.items():
        for name, result in _BOXING_COMMON.items():
            table[(box, name)] = box if result == "@" else result
        parse = "parseInt" if box == "Integer" else f"parse{box}"
        if box != "Character":
            table[(box, parse)] = prim
    for box, prim in (("Integer", "int"), ("Long", "long")):
        table.update({(box, m): "int" for m in _INTEGRAL_BITS.split()})
        table.update({(box, m): prim for m in _INTEGRAL_SAME.split()})
        for radix in ("toBinaryString", "toHexString", "toOctalString", "toUnsignedString"):
            table[(box, radix)] = "String"
        table[(box, "compareUnsigned")] = "int"
    table[("Integer", "toUnsignedLong")] = "long"
    for box, prim in (("Double", "double"), ("Float", "float")):
        for name in ("isNaN", "isInfinite", "isFinite"):
            table[(box, name)] = "boolean"
        table.update({(box, m): prim for m in ("max", "min", "sum")})
    table[("Double", "doubleToLongBits")] = "long"
    table[("Double", "doubleToRawLongBits")] = "long"
    table[("Double", "longBitsToDouble")] = "double"
    table[("Float", "floatToIntBits")] = "int"
    table[("Float", "intBitsToFloat")] = "float"
    for name in ("isDigit", "isLetter", "isLetterOrDigit", "isWhitespace", "isUpperCase",
                 "isLowerCase"):
        table[("Character", name)] = "boolean"
    table.update({("Character", m): None for m in ("toUpperCase", "toLowerCase")})
    table[("Character", "getNumericValue")] = "int"
    table[("Character", "digit")] = "int"
    return table


_VECTORS = ("IntVector", "LongVector", "FloatVector", "DoubleVector", "ShortVector", "ByteVector")


def _others() -> dict[tuple[str, str], str | None]:
    # String.format is side-effect free but not listed: it builds a Formatter and parses the
    # pattern, too deep for C2 to inline and remove, so a dropped one is not dead code
    # (heldout16's skywalking-java, labelled a wrong warning)
    table: dict[tuple[str, str], str | None] = {
        ("String", "valueOf"): "String", ("String", "join"): "String",
        ("String", "copyValueOf"): "String",
        ("Objects", "hash"): "int", ("Objects", "hashCode"): "int",
        ("Objects", "equals"): "boolean", ("Objects", "isNull"): "boolean",
        ("Objects", "nonNull"): "boolean", ("Objects", "toString"): "String",
    }
    for name, result in (("hashCode", "int"), ("deepHashCode", "int"), ("equals", "boolean"),
                         ("deepEquals", "boolean"), ("toString", "String"),
                         ("deepToString", "String"), ("mismatch", "int"), ("compare", "int")):
        table[("Arrays", name)] = result
    for vector in _VECTORS:   # loads and constants of immutable vectors (see _VECTOR_METHODS)
        for name in ("fromArray", "zero", "broadcast"):
            table[(vector, name)] = vector
    return table


PURE_STATIC: dict[tuple[str, str], str | None] = {**_math(), **_boxing(), **_others()}

_STRING_METHODS: dict[str, str | None] = {
    "length": "int", "charAt": "char", "isEmpty": "boolean", "isBlank": "boolean",
    "substring": "String", "indexOf": "int", "lastIndexOf": "int", "equals": "boolean",
    "equalsIgnoreCase": "boolean", "hashCode": "int", "compareTo": "int",
    "compareToIgnoreCase": "int", "contains": "boolean", "startsWith": "boolean",
    "endsWith": "boolean", "toUpperCase": "String", "toLowerCase": "String", "trim": "String",
    "strip": "String", "stripLeading": "String", "stripTrailing": "String", "replace": "String",
    "concat": "String", "matches": "boolean", "split": "String[]", "toCharArray": "char[]",
    "codePointAt": "int", "repeat": "String", "toString": "String", "contentEquals": "boolean",
    "getBytes": "byte[]",   # an encode into a new array: no state of the string changes
}
_BOXED_METHODS: dict[str, str | None] = {
    "intValue": "int", "longValue": "long", "doubleValue": "double", "floatValue": "float",
    "shortValue": "short", "byteValue": "byte", "booleanValue": "boolean", "charValue": "char",
    "hashCode": "int", "equals": "boolean", "compareTo": "int", "toString": "String",
}
# The Vector API's vectors are immutable values: every lane operation returns a new vector and
# changes none (jdk.incubator.vector, JEP 338 on). acc.add(v) whose result is dropped leaves
# acc as it was, and the JIT removes the operation (heldout48's gather and memory-throughput
# loops returned a reduction of a vector that stayed zero).
_VECTOR_METHODS: dict[str, str | None] = {name: None for name in (
    "add", "sub", "mul", "div", "neg", "abs", "min", "max", "and", "or", "not", "lanewise", "blend",
    "compare", "eq", "lt", "rearrange", "slice", "unslice", "broadcast", "fma", "sqrt", "pow")}
PURE_INSTANCE: dict[str, dict[str, str | None]] = {
    "String": _STRING_METHODS,
    **{box: _BOXED_METHODS for box in ("Integer", "Long", "Short", "Byte", "Double", "Float",
                                       "Boolean", "Character")},
    **{vector: _VECTOR_METHODS for vector in _VECTORS},
    # the generic Vector<E> only by its qualified name: java.util.Vector shares the simple one
    "jdk.incubator.vector.Vector": _VECTOR_METHODS,
}


def pure_static(owner: str, method: str) -> tuple[bool, str | None]:
    """``(True, return type or None)`` when ``owner.method(...)`` is listed as pure."""
    key = (owner.removeprefix("java.lang.").removeprefix("java.util.").removeprefix("jdk.incubator.vector."), method)
    if key in PURE_STATIC:
        return True, PURE_STATIC[key]
    return False, None


# Pure String methods that are not nanosecond-scale: each call compiles a regular expression
# (matches, replaceAll, replaceFirst, split on a pattern) or runs a Formatter (format,
# formatted). A loop over them is a loop of heavy calls (jvm-performance-benchmarks' matches over
# a word list, heldout29), not JMHSample_34's cheap computation.
COSTLY_STRING = frozenset({"matches", "replaceAll", "replaceFirst", "split", "format", "formatted"})


def pure_instance(receiver_type: str, method: str) -> tuple[bool, str | None]:
    """``(True, return type or None)`` for a read-only String, boxing or vector instance method."""
    methods = PURE_INSTANCE.get(receiver_type) or \
        PURE_INSTANCE.get(receiver_type.removeprefix("java.lang.").removeprefix("jdk.incubator.vector."))
    if methods is not None and method in methods:
        return True, methods[method]
    return False, None


# Read-only accessors of JDK and widely used library types, for VOID: a void benchmark whose
# only work is such a call, its result dropped, measures nothing the JIT must keep. Keyed by
# the receiver's qualified type; each method maps to the argument counts whose documented
# contract reads state and changes none (``ByteBuffer.get(i)`` reads at an index, while
# ``get()`` advances the position and ``limit(n)`` sets the limit). Types whose reads have
# effects are left out on purpose: ``LinkedHashMap`` (an access-ordered map reorders on
# ``get``), caches (a ``get`` may load or record an access), readers and streams (a read
# consumes), ``okio.BufferedSource`` (``indexOf`` pulls from the upstream source), and concurrent
# collections: ``ConcurrentHashMap.get`` and ``CopyOnWriteArrayList.get`` read volatile fields
# (the table, a node's value, the array), acquire loads the JIT keeps unread (heldout59).
_ANY = frozenset(range(0, 6))
_COLLECTION = {"size": {0}, "isEmpty": {0}, "contains": {1}, "containsAll": {1}}
# getFirst/getLast: a Deque's (LinkedList, ArrayDeque) and, since JDK 21, every List's
_ENDS = {"getFirst": {0}, "getLast": {0}}
_LIST = {**_COLLECTION, **_ENDS, "get": {1}, "indexOf": {1}, "lastIndexOf": {1}}
_MAP = {"size": {0}, "isEmpty": {0}, "get": {1}, "getOrDefault": {2}, "containsKey": {1},
        "containsValue": {1}}
_SORTED_MAP = {**_MAP, "firstKey": {0}, "lastKey": {0}, "ceilingKey": {1}, "floorKey": {1},
               "higherKey": {1}, "lowerKey": {1}}
_SORTED_SET = {**_COLLECTION, "first": {0}, "last": {0}, "ceiling": {1}, "floor": {1},
               "higher": {1}, "lower": {1}}
_QUEUE = {**_COLLECTION, **_ENDS, "peek": {0}, "peekFirst": {0}, "peekLast": {0}, "element": {0}}
_NIO = {name: {1} for name in ("get", "getChar", "getShort", "getInt", "getLong", "getFloat",
                               "getDouble")}
_NIO.update({name: {0} for name in ("limit", "position", "capacity", "remaining",
                                    "hasRemaining", "isDirect", "isReadOnly", "order")})
# views: a new buffer object over the same memory, its position and limit copied; the source
# buffer is not touched, so a dropped view is an allocation escape analysis can remove
_NIO.update({"slice": {0, 2}, "duplicate": {0}, "asReadOnlyBuffer": {0}})
_CHARS = {"length": {0}, "charAt": {1}, "indexOf": {1, 2}, "lastIndexOf": {1, 2},
          "codePointAt": {1}, "capacity": {0}}

READ_ONLY: dict[str, dict[str, set[int] | frozenset[int]]] = {
    "java.lang.StringBuilder": _CHARS,
    "java.lang.CharSequence": {"length": {0}, "charAt": {1}},
    **{f"java.util.{t}": _LIST for t in ("List", "ArrayList", "LinkedList", "Vector")},
    **{f"java.util.{t}": _COLLECTION for t in ("Collection", "Set", "HashSet", "EnumSet")},
    **{f"java.util.{t}": _SORTED_SET for t in ("SortedSet", "NavigableSet", "TreeSet")},
    **{f"java.util.{t}": _MAP for t in ("Map", "HashMap", "IdentityHashMap", "EnumMap")},
    **{f"java.util.{t}": _SORTED_MAP for t in ("SortedMap", "NavigableMap", "TreeMap")},
    **{f"java.util.{t}": _QUEUE for t in ("ArrayDeque", "PriorityQueue", "Deque", "Queue")},
    "java.util.BitSet": {"get": {1}, "cardinality": {0}, "length": {0}, "size": {0},
                         "isEmpty": {0}, "nextSetBit": {1}, "nextClearBit": {1},
                         "previousSetBit": {1}, "intersects": {1}},
    "java.util.Optional": {"isPresent": {0}, "isEmpty": {0}, "get": {0}, "orElse": {1}},
    **{f"java.nio.{t}": _NIO for t in ("ByteBuffer", "CharBuffer", "ShortBuffer", "IntBuffer",
                                       "LongBuffer", "FloatBuffer", "DoubleBuffer")},
    # okio's in-memory Buffer and ByteString: reads at an index or searches, no cursor moves
    "okio.Buffer": {"getByte": {1}, "size": {0}, "indexOf": _ANY, "lastIndexOf": _ANY,
                    "indexOfElement": {1, 2}, "rangeEquals": _ANY,
                    "completeSegmentByteCount": {0}},
    "okio.ByteString": {"getByte": {1}, "size": {0}, "indexOf": _ANY, "lastIndexOf": _ANY,
                        "rangeEquals": _ANY, "startsWith": {1}, "endsWith": {1}},
}

# Static factories that only wrap their arguments in a new object (the JDK's documented
# contract: "the new buffer will be backed by the given array"), keyed like READ_ONLY. A void
# benchmark that drops ``ByteBuffer.wrap(bytes)`` allocates a view nothing reads.
READ_ONLY_STATIC: dict[str, dict[str, set[int]]] = {
    f"java.nio.{t}": {"wrap": {1, 3}} for t in ("ByteBuffer", "CharBuffer", "ShortBuffer", "IntBuffer",
                                                 "LongBuffer", "FloatBuffer", "DoubleBuffer")
}

_IMPLICIT = ("java.lang.",)


def read_only_type(type_text: str, imports: tuple[str, ...]) -> str | None:
    """The qualified name of a READ_ONLY type that ``type_text`` (as declared in a file with
    ``imports``) denotes, or None: an explicit import, a wildcard import of its package, a
    ``java.lang`` type, or a qualified name written out."""
    name = type_text.split("<", 1)[0].strip()
    if name in READ_ONLY or name in READ_ONLY_STATIC:
        return name
    if "." in name:
        return None
    known = READ_ONLY.keys() | READ_ONLY_STATIC.keys()
    for imported in imports:
        if imported.endswith("." + name) and imported in known:
            return imported
    for imported in imports:
        if imported.endswith(".*") and imported[:-1] + name in known:
            return imported[:-1] + name
    return next((p + name for p in _IMPLICIT if p + name in known), None)


def read_only_call(qualified: str, method: str, nargs: int, static: bool = False) -> bool:
    """Is ``method`` with ``nargs`` arguments a read-only accessor of ``qualified`` (a static
    factory of READ_ONLY_STATIC when ``static``)?"""
    arities = (READ_ONLY_STATIC if static else READ_ONLY).get(qualified, {}).get(method)
    return arities is not None and nargs in arities


# Names that, by the Java convention every library follows, ask a question and change nothing:
# `StringUtil.isEmpty(s)`, `node.hasSlot(i)`, `text.startsWith(p)`. VOID reads a dropped call of
# such a name on a class lint cannot see into as a read (issue #34: jetty, lettuce). Left out:
# answers that wait or talk to something outside memory or advance a cursor (`hasNext` may
# read input, `isValid` pings a connection, `isReachable` the network) and the status reads of
# concurrency types (`isDone`, `isLocked`: volatile loads the JIT keeps), and `get`, which on a
# cache records the access.
QUERY_PREFIXES = ("is", "has")
# compare: a Comparator's, side-effect free by its contract (orientdb's byte-array comparators,
# heldout26, in-sample there).
QUERY_NAMES = frozenset({"contains", "containsKey", "containsValue", "containsAll", "equals",
                         "equalsIgnoreCase", "startsWith", "endsWith", "compareTo", "compare",
                         "indexOf", "lastIndexOf"})
NOT_QUERIES = frozenset({"hasNext", "hasMoreElements", "hasMoreTokens", "hasNextLine", "hasNextInt",
                         "isValid", "isReachable", "isAlive", "isDone", "isCancelled", "isLocked",
                         "isHeldByCurrentThread", "isInterrupted", "isShutdown", "isTerminated",
                         "isOpen", "isConnected", "isClosed", "isReady", "isWritable", "isReadable"})


# Words of a method name that, by convention, say it computes and returns a value from its
# arguments (``AsciiStringUtil.unsafeEncode(s)``, ``CommonOps.elementMaxAbs(a)``,
# ``Utils.getBytes(s)``); VOID reads a dropped *static* call of such a name on a class lint
# cannot see into as a computation (issue #34, heldout15: sofa-jraft, ejml). A name whose first
# word is an action (``writeUtf8``, ``putLong``, ``sortAll``, ``parkNanos``) is not, whatever
# follows; nor is ``copy`` (``System.arraycopy``, ``Files.copy``) or ``read`` (a static read
# may consume a stream). ``abs`` and ``normalize`` are left out: matrix and vector libraries use
# them for in-place changes of their one argument (``CommonOps_DDRM.abs(a)``); ``parse`` and
# ``format`` too: a parser or formatter is usually too deep for the JIT to remove as a whole
# (heldout15's TableId.parse, wire's protobuf parseFrom: both wrong warnings).
VALUE_WORDS = frozenset({"encode", "decode", "hash", "checksum", "digest",
                         "compare", "compute", "calculate", "convert", "escape", "unescape",
                         "estimate", "count", "find", "search", "max", "min", "sum", "length",
                         "size", "mix"})
# conversions and getters count only as the first word (``toBytes``, ``getBytes``, ``valueOf``,
# ``asList``): inside a name they often describe an in-place change (``symmLowerToFull``)
FIRST_VALUE_WORDS = frozenset({"to", "of", "from", "as", "get", "value"})
ACTION_WORDS = frozenset({"write", "put", "set", "add", "remove", "clear", "update", "process", "run",
                          "execute", "send", "flush", "close", "init", "register", "park", "sleep",
                          "sort", "fill", "reset", "shuffle", "reverse", "swap", "submit", "offer",
                          "push", "pop", "poll", "take", "accept", "consume", "increment",
                          "decrement", "record", "log", "print", "emit", "publish", "notify",
                          "signal", "lock", "unlock", "start", "stop", "load", "save", "store",
                          "mark", "release", "acquire", "invoke", "call", "handle", "visit",
                          "append", "insert", "delete", "apply", "schedule", "await", "wait",
                          "refresh", "copy", "read", "trace", "fire", "dispatch", "trigger",
                          "open", "create", "allocate", "free", "drain", "fail", "check",
                          "assert", "ensure", "validate", "verify", "require",
                          # a parser or compiler reads its input (often a resource), builds
                          # and caches: too deep and effectful to remove (heldout23's mustache
                          # compile, dropped into a dead local; 407ece2's parse for VOID)
                          "compile", "parse"})


def _words(name: str) -> list[str]:
    return [w.lower() for w in re.findall(r"[a-z]+|[A-Z][a-z]*", name)]


def action_name(method: str) -> bool:
    """Does ``method``'s name start with an action (``insertAll``, ``writeUtf8``, ``putLong``)?"""
    words = _words(method)
    return bool(words) and words[0] in ACTION_WORDS


# Data-binding conversions (toJson, fromXml, serialize): the library walks the object graph by
# reflection through adapter caches and thread-local buffers, work the JIT does not remove as a
# whole (heldout41: 12 wrong VOID on GsonUtils.toJson and its Jackson and fastjson twins).
DEEP_WORDS = frozenset({"json", "xml", "yaml", "yml", "proto", "protobuf", "avro", "serialize",
                        "deserialize", "marshal", "unmarshal"})


def value_name(method: str) -> bool:
    """Does ``method``'s name say it computes and returns a value (``unsafeEncode``,
    ``elementMaxAbs``, ``getBytes``), its first word not an action (``writeUtf8``) and no word
    naming a data-binding conversion (``toJson``: :data:`DEEP_WORDS`)?"""
    words = _words(method)
    return bool(words) and words[0] not in ACTION_WORDS and not DEEP_WORDS.intersection(words) and \
        (words[0] in FIRST_VALUE_WORDS or any(w in VALUE_WORDS for w in words))


def query_name(method: str) -> bool:
    """Does ``method``'s name say it only answers a question (``isEmpty``, ``hasSlot``)?"""
    if method in NOT_QUERIES:
        return False
    if method in QUERY_NAMES:
        return True
    return any(method.startswith(p) and len(method) > len(p) and method[len(p)].isupper()
               for p in QUERY_PREFIXES)
