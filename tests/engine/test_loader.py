"""The module loader: search path, standard modules, caching and located errors."""

from __future__ import annotations

from pathlib import Path

import pytest

from conformance.tla.loader import ModuleLoader
from conformance.tla.syntax import STANDARD_MODULES, Loc, ParseError, TlaError


def write(folder: Path, name: str, body: str, module_name: str | None = None) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"{name}.tla"
    path.write_text(f"---- MODULE {module_name or name} ----\n{body}\n====\n")
    return path


def test_load_file_parses_and_adds_its_folder_first(tmp_path: Path) -> None:
    lib = tmp_path / "lib"
    spec_dir = tmp_path / "spec"
    write(lib, "Helpers", "H == 1")
    spec = write(spec_dir, "Main", "EXTENDS Naturals, Helpers\nX == H")
    loader = ModuleLoader([lib])
    main = loader.load_file(spec)
    assert main.name == "Main" and main.file == str(spec)
    assert loader.search_path == [spec_dir.resolve(), lib.resolve()]
    helpers = loader.load("Helpers")
    assert helpers.name == "Helpers"
    assert helpers.file == str(lib.resolve() / "Helpers.tla")


def test_spec_folder_wins_over_library_folders(tmp_path: Path) -> None:
    write(tmp_path / "lib", "Util", 'Where == "lib"')
    write(tmp_path / "spec", "Util", 'Where == "spec"')
    spec = write(tmp_path / "spec", "Main", "EXTENDS Util")
    loader = ModuleLoader([tmp_path / "lib"])
    loader.load_file(spec)
    assert Path(loader.load("Util").file).parent == (tmp_path / "spec").resolve()


def test_modules_are_cached_by_name(tmp_path: Path) -> None:
    write(tmp_path, "Helpers", "H == 1")
    loader = ModuleLoader([tmp_path])
    first = loader.load("Helpers")
    (tmp_path / "Helpers.tla").write_text("this is no longer TLA+")
    assert loader.load("Helpers") is first
    assert loader.load_file(tmp_path / "Helpers.tla") is first


def test_standard_modules_are_never_read_from_disk(tmp_path: Path) -> None:
    # a broken Naturals.tla on the path must not matter
    (tmp_path / "Naturals.tla").write_text("garbage")
    spec = write(tmp_path, "Main", "EXTENDS Naturals, TLC")
    loader = ModuleLoader([tmp_path])
    assert loader.load_dependencies(loader.load_file(spec)) == {}
    for name in STANDARD_MODULES:
        assert loader.is_standard(name)
    assert not loader.is_standard("Helpers")
    with pytest.raises(TlaError, match="standard module"):
        loader.load("Naturals")


def test_missing_module_names_module_folders_and_the_extends_location(tmp_path: Path) -> None:
    spec = write(tmp_path / "spec", "Main", "EXTENDS Naturals,\n        Nowhere")
    other = tmp_path / "other"
    other.mkdir()
    loader = ModuleLoader([other])
    main = loader.load_file(spec)
    with pytest.raises(TlaError) as info:
        loader.load_dependencies(main)
    err = info.value
    assert err.loc == Loc(str(spec), 3, 9)
    assert "Nowhere" in err.message
    assert str((tmp_path / "spec").resolve()) in err.message
    assert str(other.resolve()) in err.message
    # asked for directly, the module is still reported where the spec named it
    with pytest.raises(TlaError) as again:
        loader.load("Nowhere")
    assert again.value.loc == Loc(str(spec), 3, 9)


def test_missing_instance_module_is_located_at_the_instance(tmp_path: Path) -> None:
    spec = write(tmp_path, "Main", "X == 1\nI == INSTANCE Absent WITH a <- X")
    loader = ModuleLoader([])
    with pytest.raises(TlaError, match="Absent") as info:
        loader.load_dependencies(loader.load_file(spec))
    assert info.value.loc == Loc(str(spec), 3, 1)


def test_unknown_module_without_a_requester_has_no_location(tmp_path: Path) -> None:
    loader = ModuleLoader([tmp_path])
    with pytest.raises(TlaError, match="cannot find module Ghost") as info:
        loader.load("Ghost")
    assert info.value.loc is None


def test_module_name_must_match_file_name(tmp_path: Path) -> None:
    path = write(tmp_path, "Spec", "X == 1", module_name="Other")
    with pytest.raises(TlaError, match="MODULE Other") as info:
        ModuleLoader([]).load_file(path)
    assert info.value.loc == Loc(str(path), 1, 1)
    assert "Spec" in info.value.message


def test_dependencies_are_loaded_transitively_once(tmp_path: Path) -> None:
    write(tmp_path, "Base", "B == 1")
    write(tmp_path, "Middle", "EXTENDS Base\nM == B")
    write(tmp_path, "Chan", "EXTENDS Base\nC == 2")
    spec = write(
        tmp_path, "Top", "EXTENDS Middle, Naturals\nI == INSTANCE Chan\nLOCAL INSTANCE Base"
    )
    loader = ModuleLoader([])
    deps = loader.load_dependencies(loader.load_file(spec))
    assert sorted(deps) == ["Base", "Chan", "Middle"]
    assert deps["Base"] is loader.load("Base")


def test_syntax_errors_in_files_name_the_file(tmp_path: Path) -> None:
    path = write(tmp_path, "Broken", "X == (1 +")
    with pytest.raises(ParseError) as info:
        ModuleLoader([]).load_file(path)
    assert info.value.loc is not None and info.value.loc.file == str(path)


def test_unreadable_file_is_a_tla_error(tmp_path: Path) -> None:
    with pytest.raises(TlaError, match="cannot read"):
        ModuleLoader([]).load_file(tmp_path / "Missing.tla")


def test_circular_dependencies_are_reported_with_the_cycle(tmp_path: Path) -> None:
    a = write(tmp_path, "A", "EXTENDS B")
    write(tmp_path, "B", "X == 1\nI == INSTANCE C")
    write(tmp_path, "C", "EXTENDS A")
    spec = write(tmp_path, "Top", "EXTENDS A")
    loader = ModuleLoader([])
    with pytest.raises(TlaError, match="circular module dependency: A -> B -> C -> A"):
        loader.load_dependencies(loader.load_file(spec))
    with pytest.raises(TlaError) as info:
        loader.load_dependencies(loader.load("B"))
    assert info.value.loc == Loc(str(a.resolve()), 2, 9)  # the edge closing the cycle
    assert "B -> C -> A -> B" in info.value.message


def test_diamond_dependencies_are_not_circular(tmp_path: Path) -> None:
    write(tmp_path, "Base", "B == 1")
    write(tmp_path, "Left", "EXTENDS Base")
    write(tmp_path, "Right", "EXTENDS Base")
    spec = write(tmp_path, "Top", "EXTENDS Left, Right")
    loader = ModuleLoader([])
    assert sorted(loader.load_dependencies(loader.load_file(spec))) == ["Base", "Left", "Right"]


_TWO_MODULES = """---- MODULE Main ----
EXTENDS Naturals, Helper
VARIABLE x
I == INSTANCE Inst WITH c <- 5
Init == x = K
Next == x' = (x + I!D) % 3
====
Text after the first module that is not a module: ---- MODULE Junk ---- (((

---- MODULE Helper ----
K == 42
====
---- MODULE Inst ----
EXTENDS Naturals
CONSTANT c
D == c * 2
====
---- MODULE Broken ----
Bad == (((
====
"""


def test_modules_written_after_the_first_are_extended_and_instanced(tmp_path: Path) -> None:
    from conformance.tla.cfg import parse_config
    from conformance.tla.explorer import check
    from conformance.tla.model import Model

    (tmp_path / "Main.tla").write_text(_TWO_MODULES)
    m = Model.load(tmp_path / "Main.tla")
    assert m.eval_constant("K") == 42
    assert m.eval_constant("I!D") == 10  # c <- 5: D = 5 * 2
    # x starts at 42, then (42 + 10) % 3 = 1, (1 + 10) % 3 = 2, (2 + 10) % 3 = 0, and
    # (0 + 10) % 3 = 1 again: 4 distinct states, 5 generated (1 initial + 4 steps)
    r = check(m, parse_config("INIT Init\nNEXT Next\n"), progress=False)
    assert r.verdict == "ok"
    assert (r.distinct_states, r.states_generated) == (4, 5)
    helper = m.loader.load("Helper")
    assert helper.file == str(tmp_path / "Main.tla")
    assert helper.loc.line == 10  # positions are those of the file


def test_a_module_after_the_first_is_read_only_when_asked_for(tmp_path: Path) -> None:
    (tmp_path / "Main.tla").write_text(_TWO_MODULES)
    loader = ModuleLoader([])
    loader.load_file(tmp_path / "Main.tla")  # Broken (and the junk line) not read
    with pytest.raises(ParseError) as err:
        loader.load("Broken")
    assert err.value.loc is not None and err.value.loc.line == 19
    with pytest.raises(TlaError, match="cannot find module Junk"):
        loader.load("Junk")  # not a module: its header is not a line of its own


def test_the_check_command_reads_modules_after_the_first(tmp_path: Path) -> None:
    # the command's type-check pass collects the modules through the loader that read the
    # spec (a loader of its own did not know the modules written after Main's ====)
    from conformance.cli import main

    (tmp_path / "Main.tla").write_text(_TWO_MODULES)
    (tmp_path / "Main.cfg").write_text("INIT Init\nNEXT Next\n")
    assert main(["check", str(tmp_path / "Main.tla"), "--quiet"]) == 0
