"""Which Go expressions the compiler may delete when their result is unused.

The gc compiler removes dead code after inlining: an inlined call whose result is unused
and that has no side effect is gone, together with the work it stood for. It does not
reason about calls it does not inline, so a call to code with side effects is always kept.
Without type checking we cannot know what is inlined; the rules therefore count as
*removable* only what is side-effect free for sure:

* literals, names, field reads, arithmetic on removable operands, conversions to basic
  types, ``[]byte(s)`` / ``[]rune(s)``, composite literals of removable parts;
* the builtins len, cap, min, max, complex, real, imag, new and make;
* the functions of the table :data:`PURE` (math, math/bits, strings, bytes, strconv,
  unicode/utf8, ... without those that write into an argument or call a function value);
* package-level functions of the package itself whose bodies only assign their own
  locals and call removable functions (no method calls, goroutines, channels, defer,
  function literals or writes through pointers, slices, maps or fields), and that gc can
  inline: not marked ``//go:noinline`` and not calling themselves.

Everything else (method calls, index expressions that may panic, channel receives, calls
of function values, unknown packages) is kept, so the rules that use this stay quiet.
"""

from __future__ import annotations

from tree_sitter import Node

from rigorbench.lint.go.package import GoPackage, imports
from rigorbench.lint.go.parse import dotted

ALL = frozenset({"*"})
BUILTINS = frozenset({"len", "cap", "min", "max", "complex", "real", "imag", "new", "make"})
CONVERSIONS = frozenset({
    "int", "int8", "int16", "int32", "int64", "uint", "uint8", "uint16", "uint32", "uint64",
    "uintptr", "float32", "float64", "complex64", "complex128", "string", "byte", "rune", "bool",
})
LITERALS = frozenset({
    "identifier", "int_literal", "float_literal", "imaginary_literal", "rune_literal",
    "interpreted_string_literal", "raw_string_literal", "true", "false", "nil", "iota",
})
_ENDIAN = frozenset(f"{order}.{method}" for order in ("BigEndian", "LittleEndian", "NativeEndian")
                    for method in ("Uint16", "Uint32", "Uint64"))
_BASE64 = frozenset(f"{enc}.{method}" for enc in ("StdEncoding", "URLEncoding", "RawStdEncoding",
                                                  "RawURLEncoding")
                    for method in ("EncodeToString", "DecodeString", "EncodedLen", "DecodedLen"))
# Import path -> functions without side effects; ALL means every function of the package
# except those named in WRITERS (they write into an argument or call a function value).
PURE: dict[str, frozenset[str]] = {
    "math": ALL, "math/bits": ALL, "math/cmplx": ALL, "strings": ALL, "bytes": ALL,
    "strconv": ALL, "unicode": ALL, "unicode/utf8": ALL, "unicode/utf16": ALL, "path": ALL,
    "cmp": ALL, "unsafe": ALL,
    "path/filepath": frozenset({"Base", "Clean", "Dir", "Ext", "IsAbs", "IsLocal", "Join",
                                "Match", "Rel", "Split", "SplitList", "ToSlash", "FromSlash",
                                "VolumeName"}),
    "slices": frozenset({"BinarySearch", "Clone", "Compare", "Concat", "Contains", "Equal",
                         "Index", "IsSorted", "Max", "Min", "Repeat"}),
    "maps": frozenset({"Clone", "Equal"}),
    "sort": frozenset({"SearchInts", "SearchFloat64s", "SearchStrings", "IntsAreSorted",
                       "Float64sAreSorted", "StringsAreSorted"}),
    "errors": frozenset({"New", "Is"}),
    "fmt": frozenset({"Sprint", "Sprintf", "Sprintln", "Errorf"}),
    "hash/crc32": frozenset({"Checksum", "ChecksumIEEE", "Update"}),
    "hash/crc64": frozenset({"Checksum", "Update"}),
    "hash/adler32": frozenset({"Checksum"}),
    "crypto/md5": frozenset({"Sum"}), "crypto/sha1": frozenset({"Sum"}),
    "crypto/sha256": frozenset({"Sum256", "Sum224"}),
    "crypto/sha512": frozenset({"Sum512", "Sum384", "Sum512_224", "Sum512_256"}),
    "encoding/hex": frozenset({"EncodeToString", "DecodeString", "EncodedLen", "DecodedLen"}),
    "encoding/binary": _ENDIAN, "encoding/base64": _BASE64,
}
WRITERS = frozenset({"Map", "NewReader", "NewBuffer", "NewBufferString", "NewReplacer"})
_WRITER_PARTS = ("Func", "Append", "Encode", "Put")


def pure_library_function(path: str, name: str) -> bool:
    """``path.name`` is in the table of side-effect free library functions."""
    names = PURE.get(path)
    if names is None:
        return False
    if names is ALL:
        return name not in WRITERS and not any(part in name for part in _WRITER_PARTS)
    return name in names


class Purity:
    """Removability of expressions in one function, given its file's imports and its locals."""

    def __init__(self, package: GoPackage, imports: dict[str, str], local_names: set[str],
                 memo: dict[str, bool] | None = None) -> None:
        self.package = package
        self.imports = imports
        self.locals = local_names
        self.memo = memo if memo is not None else {}

    def removable(self, node: Node) -> bool:
        kind = node.type
        if kind in LITERALS:
            return True
        if kind == "parenthesized_expression":
            return all(self.removable(c) for c in node.named_children)
        if kind == "unary_expression":
            operator = node.child_by_field_name("operator").type
            return operator in ("-", "+", "!", "^", "*") and self.removable(node.child_by_field_name("operand"))
        if kind == "binary_expression":
            return all(self.removable(node.child_by_field_name(side)) for side in ("left", "right"))
        if kind == "selector_expression":
            return self.removable(node.child_by_field_name("operand"))
        if kind == "type_conversion_expression":
            return _basic_type(node.child_by_field_name("type")) and self.removable(node.child_by_field_name("operand"))
        if kind == "composite_literal":
            body = node.child_by_field_name("body")
            return body is None or all(self.removable(c) for c in _literal_values(body))
        if kind == "call_expression":
            args = node.child_by_field_name("arguments")
            return self.pure_call(node) and all(self.removable(a) for a in args.named_children
                                                if not _is_type(a))
        return False

    def pure_call(self, call: Node) -> bool:
        """The called function has no side effects (builtin, conversion, table, pure package func)."""
        function = call.child_by_field_name("function")
        if function.type == "identifier":
            name = function.text.decode()
            if name in self.locals:
                return False  # a function value: anything may happen
            if name in BUILTINS or name in CONVERSIONS:
                return True
            return self.pure_function(name)
        name = dotted(function)
        head, _, rest = name.partition(".")
        if not rest or head in self.locals or head not in self.imports:
            return False
        return pure_library_function(self.imports[head], rest)

    def pure_function(self, name: str) -> bool:
        """A package-level function of this package whose body has no side effects."""
        if name in self.memo:
            return self.memo[name]
        found = self.package.functions.get(name)
        if found is None:
            return False
        self.memo[name] = True  # assumed while its body is checked (recursion)
        source, declaration = found
        body = declaration.child_by_field_name("body")
        inner = Purity(self.package, imports(source), declared_names(declaration), self.memo)  # its file's imports
        inlinable = not _recursive(name, body) and not _noinline(declaration) if body is not None else False
        self.memo[name] = inlinable and inner.pure_body(body)
        return self.memo[name]

    def pure_body(self, body: Node) -> bool:
        stack = [body]
        while stack:
            node = stack.pop()
            kind = node.type
            if kind in ("go_statement", "defer_statement", "send_statement", "select_statement",
                        "func_literal", "goto_statement", "labeled_statement"):
                return False
            if kind == "unary_expression" and node.child_by_field_name("operator").type in ("<-", "&"):
                return False
            if kind == "assignment_statement":
                if not all(self._own(t) for t in node.child_by_field_name("left").named_children):
                    return False
            if kind in ("inc_statement", "dec_statement") and not self._own(node.named_children[0]):
                return False
            if kind == "call_expression" and not self.pure_call(node):
                return False
            stack.extend(node.named_children)
        return True

    def _own(self, target: Node) -> bool:
        return target.type == "identifier" and (target.text.decode() in self.locals or target.text == b"_")


def _noinline(declaration: Node) -> bool:
    """A ``//go:noinline`` directive in the comments right above the declaration."""
    comment = declaration.prev_sibling
    while comment is not None and comment.type == "comment":
        if comment.text.startswith(b"//go:noinline"):
            return True
        comment = comment.prev_sibling
    return False


def _recursive(name: str, body: Node) -> bool:
    """The body calls its own function: gc never inlines it, so it never deletes the call."""
    stack = [body]
    while stack:
        node = stack.pop()
        if node.type == "call_expression":
            function = node.child_by_field_name("function")
            if function.type == "identifier" and function.text.decode() == name:
                return True
        stack.extend(node.named_children)
    return False


def declared_names(function: Node) -> set[str]:
    """Parameters, named results and every name declared inside a function or func literal."""
    names = set()
    for part in ("receiver", "parameters", "result"):
        plist = function.child_by_field_name(part)
        if plist is not None and plist.type == "parameter_list":
            for declaration in plist.named_children:
                names.update(n.text.decode() for n in declaration.children_by_field_name("name"))
    stack = [function.child_by_field_name("body")] if function.child_by_field_name("body") else []
    while stack:
        node = stack.pop()
        if node.type in ("short_var_declaration", "range_clause") and node.child_by_field_name("left"):
            left = node.child_by_field_name("left")
            if node.type == "short_var_declaration" or any(c.type == ":=" for c in node.children):
                names.update(n.text.decode() for n in left.named_children if n.type == "identifier")
        elif node.type in ("var_spec", "const_spec"):
            names.update(n.text.decode() for n in node.children_by_field_name("name"))
        elif node.type == "parameter_declaration":
            names.update(n.text.decode() for n in node.children_by_field_name("name"))
        stack.extend(node.named_children)
    names.discard("_")
    return names


def _is_type(node: Node) -> bool:
    return node.type.endswith("_type") or node.type == "type_identifier"


def _basic_type(node: Node | None) -> bool:
    if node is None:
        return False
    if node.type == "type_identifier":
        return node.text.decode() in CONVERSIONS
    if node.type == "slice_type":
        element = node.child_by_field_name("element")
        return element is not None and element.text in (b"byte", b"rune")
    return False


def _literal_values(body: Node) -> list[Node]:
    values = []
    for element in body.named_children:
        if element.type == "keyed_element":
            values.extend(_unwrap(c) for c in element.named_children[1:])
        elif element.type == "literal_element":
            values.extend(_unwrap(c) for c in element.named_children)
        else:
            values.append(element)
    return values


def _unwrap(node: Node) -> Node:
    if node.type == "literal_element" and node.named_child_count == 1:
        return node.named_children[0]
    return node
