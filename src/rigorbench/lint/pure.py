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


def _others() -> dict[tuple[str, str], str | None]:
    table: dict[tuple[str, str], str | None] = {
        ("String", "valueOf"): "String", ("String", "join"): "String",
        ("String", "format"): "String", ("String", "copyValueOf"): "String",
        ("Objects", "hash"): "int", ("Objects", "hashCode"): "int",
        ("Objects", "equals"): "boolean", ("Objects", "isNull"): "boolean",
        ("Objects", "nonNull"): "boolean", ("Objects", "toString"): "String",
    }
    for name, result in (("hashCode", "int"), ("deepHashCode", "int"), ("equals", "boolean"),
                         ("deepEquals", "boolean"), ("toString", "String"),
                         ("deepToString", "String"), ("mismatch", "int"), ("compare", "int")):
        table[("Arrays", name)] = result
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
}
_BOXED_METHODS: dict[str, str | None] = {
    "intValue": "int", "longValue": "long", "doubleValue": "double", "floatValue": "float",
    "shortValue": "short", "byteValue": "byte", "booleanValue": "boolean", "charValue": "char",
    "hashCode": "int", "equals": "boolean", "compareTo": "int", "toString": "String",
}
PURE_INSTANCE: dict[str, dict[str, str | None]] = {
    "String": _STRING_METHODS,
    **{box: _BOXED_METHODS for box in ("Integer", "Long", "Short", "Byte", "Double", "Float",
                                       "Boolean", "Character")},
}


def pure_static(owner: str, method: str) -> tuple[bool, str | None]:
    """``(True, return type or None)`` when ``owner.method(...)`` is listed as pure."""
    key = (owner.removeprefix("java.lang.").removeprefix("java.util."), method)
    if key in PURE_STATIC:
        return True, PURE_STATIC[key]
    return False, None


def pure_instance(receiver_type: str, method: str) -> tuple[bool, str | None]:
    """``(True, return type or None)`` for a read-only String/boxing instance method."""
    methods = PURE_INSTANCE.get(receiver_type.removeprefix("java.lang."))
    if methods is not None and method in methods:
        return True, methods[method]
    return False, None
