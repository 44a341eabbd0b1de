"""The package's architecture, checked from its source: parts, their dependencies, front doors.

A *part* is a first-level subpackage of `polars_rankk` (``core``, ``stats``, ``time``,
``engines``, ``charts``, ``reports``, ``cli``) or a first-level module (``io``, ``tables``;
``spark`` and ``dask`` are documented import paths of ``engines``). Imports are read with
`ast`, so nothing here depends on what happens to be imported at run time.
"""

from __future__ import annotations

import ast
import importlib
import inspect
import pkgutil
import re
import subprocess
import sys
import warnings
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType

import pytest

import polars_rankk as rk

PACKAGE = Path(rk.__file__).parent
ROOT = PACKAGE.parent
#: Thin documented import paths that belong to another part.
ALIASES = {"spark": "engines", "dask": "engines"}
#: Which parts each part may import. The core imports none; every other part builds on it.
ALLOWED: dict[str, frozenset[str]] = {
    "core": frozenset(),
    "io": frozenset({"core"}),
    "stats": frozenset({"core"}),
    "time": frozenset({"core"}),
    "passages": frozenset({"core"}),
    "engines": frozenset({"core", "passages"}),
    "counterfactual": frozenset({"core", "stats"}),
    "charts": frozenset({"core", "stats", "time"}),
    "tables": frozenset({"core", "stats"}),
    "judges": frozenset({"core", "stats"}),
    "reports": frozenset(
        {"core", "stats", "time", "charts", "tables", "judges", "counterfactual", "passages"}
    ),
    "cli": frozenset(
        {"core", "io", "stats", "time", "charts", "tables", "reports", "counterfactual", "passages"}
    ),
}
#: Parts that must not be imported by `import polars_rankk` (optional, heavy dependencies).
OPTIONAL_LIBRARIES = (
    *("altair", "vl_convert", "typer", "rich", "pyspark", "dask", "scipy", "tqdm", "pyarrow"),
)


@dataclass(frozen=True)
class Import:
    """One name a module imports from the package: the dotted module and, for ``from``
    imports, the name taken from it."""

    module: str
    name: str | None
    line: int


def _modules() -> list[Path]:
    return sorted(path for path in PACKAGE.rglob("*.py") if "__pycache__" not in path.parts)


def _dotted(path: Path) -> str:
    parts = path.relative_to(ROOT).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _part_of(dotted: str) -> str | None:
    """The part a dotted module name belongs to (None: the package root itself)."""
    pieces = dotted.split(".")
    if len(pieces) < 2:
        return None
    return ALIASES.get(pieces[1], pieces[1])


def _imports(path: Path) -> Iterator[Import]:
    """Every import of a `polars_rankk` module in `path`, relative imports resolved."""
    package = _dotted(path) if path.name == "__init__.py" else _dotted(path).rsplit(".", 1)[0]
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name.split(".")[0] == "polars_rankk":
                    yield Import(alias.name, None, node.lineno)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")[: len(package.split(".")) - node.level + 1]
                module = ".".join([*base, *([node.module] if node.module else [])])
            else:
                module = node.module or ""
            if module.split(".")[0] != "polars_rankk":
                continue
            for alias in node.names:
                yield Import(module, alias.name, node.lineno)


def _is_module(dotted: str) -> bool:
    relative = Path(*dotted.split(".")[1:]) if "." in dotted else Path()
    return (PACKAGE / relative).with_suffix(".py").exists() or (
        PACKAGE / relative / "__init__.py"
    ).exists()


def _target(found: Import) -> tuple[str, str | None]:
    """The module an import reaches, and the name it takes from that module (if any)."""
    if found.name is not None and _is_module(f"{found.module}.{found.name}"):
        return f"{found.module}.{found.name}", None
    return found.module, found.name


def _dependencies() -> Iterator[tuple[str, str, str | None, str]]:
    """(importing part, imported module, imported name, where) for every import across parts
    or of the package root."""
    for path in _modules():
        part = _part_of(_dotted(path))
        if part is None:
            continue  # the package's front door may import every part
        for found in _imports(path):
            module, name = _target(found)
            where = f"{path.relative_to(ROOT)}:{found.line}"
            target = _part_of(module)
            if target != part:
                yield part, module, name, where


def _private(dotted: str, name: str | None) -> bool:
    pieces = [*dotted.split(".")[1:], *([name] if name else [])]
    return any(piece.startswith("_") and not piece.startswith("__") for piece in pieces)


def test_every_module_belongs_to_a_known_part() -> None:
    parts = {_part_of(_dotted(path)) for path in _modules()} - {None}
    assert parts <= set(ALLOWED), f"parts without a dependency rule: {parts - set(ALLOWED)}"


def test_parts_depend_only_on_the_parts_below_them() -> None:
    """The core depends on no other part; statistics, time, engines, charts, reports, tables
    and the CLI build on it, in one direction. Importing the package root from inside a part
    would depend on every part."""
    wrong = []
    for part, module, name, where in _dependencies():
        target = _part_of(module)
        if target is None:
            what = "the package root" if name is None else f"{name!r} from the package root"
            wrong.append(f"{where}: {part} imports {what}")
        elif target not in ALLOWED[part]:
            wrong.append(f"{where}: {part} imports {module}{'.' + name if name else ''}")
    assert not wrong, "\n".join(wrong)


def _module_graph() -> dict[str, set[str]]:
    """Every module and the package modules it imports (at import time, inside functions or
    for type checking alike: each is a dependency)."""
    graph: dict[str, set[str]] = {}
    for path in _modules():
        own = _dotted(path)
        graph.setdefault(own, set())
        for found in _imports(path):
            module, _ = _target(found)
            if module != own:
                graph[own].add(module)
    return graph


def _cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected groups of more than one module (Tarjan), iteratively."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    for root in sorted(graph):
        if root in index:
            continue
        work = [(root, iter(sorted(graph.get(root, ()))))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = len(index)
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(graph.get(child, ())))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                group = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    group.append(member)
                    if member == node:
                        break
                if len(group) > 1:
                    found.append(sorted(group))
    return found


def test_no_import_cycle_between_modules() -> None:
    """Modules depend one way: declarations, then computation, then presentation; no two
    modules import each other, directly or around a loop."""
    cycles = _cycles(_module_graph())
    assert not cycles, "import cycles:\n" + "\n".join(" <-> ".join(c) for c in cycles)


def test_the_cycle_check_finds_a_cycle() -> None:
    assert _cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]


def test_nothing_but_the_package_face_imports_the_package_root() -> None:
    importers = sorted(
        _dotted(path)
        for path in _modules()
        if _dotted(path) != "polars_rankk"
        and any(_target(found)[0] == "polars_rankk" for found in _imports(path))
    )
    assert not importers, f"modules importing the package root: {importers}"


def test_an_evaluation_is_built_in_one_place() -> None:
    """Only `polars_rankk.core.evaluation.evaluation.assemble` calls ``Evaluation(...)``."""
    calls = []
    for path in _modules():
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if (
                isinstance(node, ast.Call)
                and isinstance(node.func, ast.Name)
                and node.func.id == "Evaluation"
            ):
                calls.append(f"{path.relative_to(ROOT)}:{node.lineno}")
    assert len(calls) == 1, calls
    assert calls[0].startswith("polars_rankk/core/evaluation/evaluation.py"), calls


#: The folders inside `core/`, in the order its imports run: each imports only the folders
#: before it (and itself). ``""`` is the leaves at the top of `core/` (policy, types, columns...).
CORE_FOLDERS = ("", "metrics", "names", "inputs", "kernel", "evaluation", "expressions")


def _core_folder(dotted: str) -> str | None:
    """The folder of `core/` a dotted module is in ("" for its leaves; None: outside `core`,
    or the core's front door `polars_rankk.core` itself)."""
    pieces = dotted.split(".")
    if pieces[:2] != ["polars_rankk", "core"] or len(pieces) < 3:
        return None
    folder = pieces[2]
    return folder if folder in CORE_FOLDERS else ""


def _core_arrows_up(graph: dict[str, set[str]]) -> list[str]:
    """Each import inside `core/` that goes to a later folder, or to the core's front door."""
    wrong = []
    for module, imported in sorted(graph.items()):
        folder = _core_folder(module)
        if folder is None:
            continue
        for target in sorted(imported):
            if target == "polars_rankk.core":
                wrong.append(f"{module} imports the core's front door")
                continue
            reached = _core_folder(target)
            if reached is not None and CORE_FOLDERS.index(reached) > CORE_FOLDERS.index(folder):
                wrong.append(f"{module} ({folder or 'leaf'}) imports {target} ({reached}/)")
    return wrong


def test_core_folders_depend_only_on_the_folders_before_them() -> None:
    """Inside `core/`: leaves, then metrics, names, inputs, kernel, evaluation, expressions.
    An arrow back up (e.g. `metrics/` importing `inputs/`) fails here."""
    wrong = _core_arrows_up(_module_graph())
    assert not wrong, "\n".join(wrong)


def test_every_core_module_is_in_a_known_folder() -> None:
    core = PACKAGE / "core"
    folders = {
        path.relative_to(core).parts[0]
        for path in _modules()
        if path.is_relative_to(core) and len(path.relative_to(core).parts) > 1
    }
    unknown = folders - set(CORE_FOLDERS)
    assert not unknown, f"core folders without a place in CORE_FOLDERS: {unknown}"


def test_the_folder_order_check_finds_an_arrow_back_up() -> None:
    graph = {
        "polars_rankk.core.metrics.registry": {"polars_rankk.core.inputs.spec"},
        "polars_rankk.core.inputs.spec": {"polars_rankk.core.metrics.registry"},
        "polars_rankk.core.policy": {"polars_rankk.core.types"},
        "polars_rankk.core.types": {"polars_rankk.core"},
    }
    assert _core_arrows_up(graph) == [
        "polars_rankk.core.metrics.registry (metrics) imports polars_rankk.core.inputs.spec"
        " (inputs/)",
        "polars_rankk.core.types imports the core's front door",
    ]


def test_core_imports_no_other_part() -> None:
    outward = [
        f"{where}: {module}"
        for part, module, _, where in _dependencies()
        if part == "core" and _part_of(module) != "core"
    ]
    assert not outward, "\n".join(outward)


def test_no_part_imports_another_parts_private_names() -> None:
    """Parts meet through public names: no ``_private`` function, constant or module."""
    private = [
        f"{where}: {part} imports {module}{'.' + name if name else ''}"
        for part, module, name, where in _dependencies()
        if _private(module, name)
    ]
    assert not private, "\n".join(private)


def _private_attributes(path: Path) -> set[str]:
    """Underscore names a module defines: functions, methods, and attributes it assigns."""
    names = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            names.add(node.name)
        elif isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Store):
            names.add(node.attr)
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
            names.add(node.target.id)
    return {name for name in names if name.startswith("_") and not name.startswith("__")}


def test_no_part_reads_another_parts_private_attributes() -> None:
    """E.g. an engine calling ``Evaluation._dropped_queries()`` instead of ``.dropped``."""
    defined: dict[str, set[str]] = {}
    for path in _modules():
        part = _part_of(_dotted(path))
        if part is not None:
            defined.setdefault(part, set()).update(_private_attributes(path))
    wrong = []
    for path in _modules():
        part = _part_of(_dotted(path))
        if part is None:
            continue
        others = set().union(*(names for owner, names in defined.items() if owner != part))
        own = defined.get(part, set())
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if (
                isinstance(node, ast.Attribute)
                and node.attr in others - own
                and not (isinstance(node.value, ast.Name) and node.value.id in {"self", "cls"})
            ):
                wrong.append(f"{path.relative_to(ROOT)}:{node.lineno}: {part} reads .{node.attr}")
    assert not wrong, "\n".join(wrong)


def _all_modules() -> list[ModuleType]:
    names = [rk.__name__] + [
        info.name
        for info in pkgutil.walk_packages(rk.__path__, prefix="polars_rankk.")
        if not info.name.endswith("__main__")  # running it would start the CLI
    ]
    return [importlib.import_module(name) for name in names]


def test_no_module_shares_its_name_with_a_function_it_exports() -> None:
    """``import polars_rankk.x.evaluate as m`` must give the module, never a function of the
    same name that the package re-exports over it."""
    clashes = []
    for module in _all_modules():
        short = module.__name__.rsplit(".", 1)[-1]
        exported = set(getattr(module, "__all__", ())) | {
            name
            for name, value in vars(module).items()
            if getattr(value, "__module__", None) == module.__name__
        }
        value = getattr(module, short, None)
        if short in exported and (inspect.isfunction(value) or inspect.isclass(value)):
            clashes.append(f"{module.__name__} exports a function or class {short!r}")
        parent = sys.modules.get(module.__name__.rsplit(".", 1)[0])
        if parent is not None and parent is not module:
            shadow = getattr(parent, short, module)
            if shadow is not module:
                clashes.append(f"{parent.__name__}.{short} is {shadow!r}, not the module")
    assert not clashes, "\n".join(clashes)


def _constant_documented(name: str) -> bool:
    """A ``#:`` comment on the constant's definition, or a mention in the user docs."""
    pattern = re.compile(rf"^#:.*\n(?:#:.*\n)*{re.escape(name)}\b\s*[:=]", re.MULTILINE)
    if any(pattern.search(path.read_text(encoding="utf-8")) for path in _modules()):
        return True
    docs = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
    return any(re.search(rf"\b{name}\b", path.read_text(encoding="utf-8")) for path in docs)


@pytest.mark.parametrize("name", rk.__all__)
def test_every_public_name_is_importable_and_documented(name: str) -> None:
    namespace: dict[str, object] = {}
    with warnings.catch_warnings():  # a deprecated name warns (tests/test_deprecated_names.py)
        warnings.simplefilter("ignore", DeprecationWarning)
        exec(f"from polars_rankk import {name}", namespace)  # the documented import works
    value = namespace[name]
    if callable(value):
        assert (inspect.getdoc(value) or "").strip(), f"rk.{name} has no docstring"
    else:
        assert _constant_documented(name), f"rk.{name} is documented nowhere"


def test_public_names_are_unique_and_sorted_into_all() -> None:
    assert len(set(rk.__all__)) == len(rk.__all__)
    public = {name for name in vars(rk) if not name.startswith("_")}
    modules = {name for name in public if inspect.ismodule(getattr(rk, name))}
    missing = sorted(public - modules - set(rk.__all__))
    assert not missing, f"public names missing from polars_rankk.__all__: {missing}"


def test_importing_the_package_loads_no_optional_library() -> None:
    """The core and the default front door never pull in charts, CLI or engine libraries."""
    code = (
        "import sys, polars_rankk\n"
        f"heavy = [m for m in {OPTIONAL_LIBRARIES!r} if m in sys.modules]\n"
        "assert not heavy, heavy\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True, cwd=ROOT)


def test_evaluate_needs_only_the_required_dependencies() -> None:
    """`rk.evaluate` and its summaries run on the required dependencies (pyproject.toml)."""
    code = (
        "import sys, polars as pl, polars_rankk as rk\n"
        "c = pl.DataFrame({'q': [1, 1, 2], 'item': [1, 2, 3], 'score': [0.9, 0.5, 0.3]})\n"
        "t = pl.DataFrame({'q': [1, 2], 'item': [2, 3]})\n"
        "res = rk.evaluate(c, t, k=[1, 2], group_by='q')\n"
        "res.summary(), res.summary(average='micro'), repr(res), res.diagnostics\n"
        "rk.evaluate(c.lazy(), t.lazy(), k=2, group_by='q').collect().summary()\n"
        f"heavy = [m for m in {OPTIONAL_LIBRARIES!r} if m in sys.modules]\n"
        "assert not heavy, heavy\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True, cwd=ROOT)


#: Files whose text the reference check reads.
TEXT_SUFFIXES = {".py", ".md", ".txt", ".html", ".css", ".js", ".json", ".toml", ".cfg"}


def _text_files() -> Iterator[Path]:
    yield ROOT / "README.md"
    for folder in (PACKAGE, ROOT / "docs"):
        for path in sorted(folder.rglob("*")):
            if path.suffix in TEXT_SUFFIXES and "__pycache__" not in path.parts:
                yield path


def _repository_files() -> set[str]:
    listed = subprocess.run(
        ["git", "ls-files", "--cached", "--others", "--exclude-standard"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=False,
    )
    files = set(listed.stdout.split()) if listed.returncode == 0 else set()
    if not files:
        files = {str(path.relative_to(ROOT)) for path in ROOT.rglob("*") if path.is_file()}
    return files | {Path(name).name for name in files}


def test_spec_and_seed_references_point_inside_the_repository() -> None:
    """``grep -rn "SPEC\\|seed 0" polars_rankk docs README.md`` finds only references to files
    in the repository: the definitions live in docs/definitions.md, not in documents readers
    cannot open."""
    files = _repository_files()
    token = re.compile(r"[\w./-]*(?:SPEC|seed 0)[\w./-]*")
    outside = []
    for path in _text_files():
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            for match in token.finditer(line):
                reference = match.group().strip("./")
                if not reference or reference not in files:
                    where = f"{path.relative_to(ROOT)}:{number}"
                    outside.append(f"{where}: {line.strip()}")
                    break
    assert not outside, "references to documents outside the repository:\n" + "\n".join(outside)


def test_parts_are_imported_by_their_own_path_never_through_the_package_root() -> None:
    """``from polars_rankk import charts`` runs the package's front door (every part, its
    re-exports) to reach one part; inside the package, import the part itself
    (``from polars_rankk.charts import plot_k_curve``)."""
    through_root = [
        f"{path.relative_to(ROOT)}:{found.line}: from polars_rankk import {found.name}"
        for path in _modules()
        if _dotted(path) != "polars_rankk"
        for found in _imports(path)
        if found.module == "polars_rankk" and found.name is not None
    ]
    assert not through_root, "\n".join(through_root)


# --- sizes: rooms you can read in one sitting ---------------------------------------------------

#: The most lines a module may have (generated modules excepted).
MAX_MODULE_LINES = 500
#: The most code lines a function may have: not blank, not a comment, not its docstring.
MAX_FUNCTION_LINES = 100
#: The most modules (``__init__.py`` aside) one folder of the package may hold.
MAX_FOLDER_MODULES = 15
#: Modules and functions still over a size limit while their split is under way in another
#: branch. Each entry must still be over (the test says when one is no longer: take it out),
#: so the set can only shrink to empty and never goes stale.
KNOWN_OVER_SIZE: frozenset[str] = frozenset()
#: What a generated module says in its first lines (`scripts/expression_api.py` writes it).
GENERATED = re.compile(r"generated .*do not edit by hand", re.IGNORECASE | re.DOTALL)


def _relative(path: Path) -> str:
    return path.relative_to(ROOT).as_posix()


def _generated(path: Path) -> bool:
    return bool(GENERATED.search("\n".join(path.read_text(encoding="utf-8").splitlines()[:6])))


def _code_lines(node: ast.AST, lines: list[str]) -> int:
    """Lines of `node` that are code: not blank, not a comment, not a docstring (its own or a
    nested function's or class's)."""
    docstrings: set[int] = set()
    for inner in ast.walk(node):
        body = getattr(inner, "body", None)
        if (
            isinstance(inner, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Module))
            and body
            and isinstance(body[0], ast.Expr)
            and isinstance(body[0].value, ast.Constant)
            and isinstance(body[0].value.value, str)
        ):
            end = body[0].end_lineno or body[0].lineno
            docstrings.update(range(body[0].lineno, end + 1))
    first, last = getattr(node, "lineno", 1), getattr(node, "end_lineno", None) or len(lines)
    return sum(
        1
        for number in range(first, last + 1)
        if number not in docstrings
        and lines[number - 1].strip()
        and not lines[number - 1].strip().startswith("#")
    )


def _over_size() -> dict[str, str]:
    """Every module, function and folder over its limit, by path (``path::function``)."""
    over: dict[str, str] = {}
    for path in _modules():
        text = path.read_text(encoding="utf-8")
        lines = text.splitlines()
        if len(lines) > MAX_MODULE_LINES and not _generated(path):
            over[_relative(path)] = f"module of {len(lines)} lines (at most {MAX_MODULE_LINES})"
        for node in ast.walk(ast.parse(text)):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                code = _code_lines(node, lines)
                if code > MAX_FUNCTION_LINES:
                    where = f"{_relative(path)}::{node.name}"
                    over[where] = f"function of {code} code lines (at most {MAX_FUNCTION_LINES})"
    folders: dict[Path, int] = {}
    for path in _modules():
        if path.name != "__init__.py":
            folders[path.parent] = folders.get(path.parent, 0) + 1
    for folder, count in folders.items():
        if count > MAX_FOLDER_MODULES:
            over[_relative(folder)] = f"folder of {count} modules (at most {MAX_FOLDER_MODULES})"
    return over


def _new_offenders(kind: str) -> list[str]:
    return [
        f"{where}: {why}"
        for where, why in sorted(_over_size().items())
        if why.startswith(kind) and where not in KNOWN_OVER_SIZE
    ]


def test_no_module_is_over_500_lines() -> None:
    """A module is read in one sitting; a generated one (which says so in its first lines) is
    not read but regenerated."""
    assert not _new_offenders("module"), "\n".join(_new_offenders("module"))


def test_no_function_is_over_100_code_lines() -> None:
    assert not _new_offenders("function"), "\n".join(_new_offenders("function"))


def test_no_folder_holds_over_15_modules() -> None:
    assert not _new_offenders("folder"), "\n".join(_new_offenders("folder"))


def test_the_known_over_size_entries_are_still_over() -> None:
    """`KNOWN_OVER_SIZE` lists splits under way: once one lands, its entry goes."""
    over = _over_size()
    stale = sorted(KNOWN_OVER_SIZE - set(over))
    assert not stale, f"no longer over a size limit, take out of KNOWN_OVER_SIZE: {stale}"


def test_the_size_checks_count_code_lines_only() -> None:
    source = (
        'def f():\n    """Doc.\n\n    More.\n    """\n    # a comment\n\n    x = 1\n    return x\n'
    )
    tree = ast.parse(source)
    assert _code_lines(tree.body[0], source.splitlines()) == 3
    assert _generated(PACKAGE / "core" / "expressions" / "generated.py")
    assert not _generated(PACKAGE / "core" / "expressions" / "expressions.py")
