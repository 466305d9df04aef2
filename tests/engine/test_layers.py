"""The engine never imports Qt (DESIGN.md "Layout"; STYLE.md point 1)."""

from __future__ import annotations

import subprocess
import sys
import textwrap


def test_engine_imports_and_runs_with_qt_unimportable():
    """With PySide6 and pyqtgraph made unimportable, the whole engine still imports and runs."""
    code = textwrap.dedent(
        """
        import importlib, pkgutil, sys
        class Block:
            def find_spec(self, name, path=None, target=None):
                if name.split('.')[0] in ('PySide6', 'shiboken6', 'pyqtgraph'):
                    raise ImportError('Qt is forbidden in the engine: ' + name)
        sys.meta_path.insert(0, Block())
        import workbench.engine, workbench.lab, workbench.session
        for pkg in (workbench.engine, workbench.lab, workbench.session):
            for mod in pkgutil.walk_packages(pkg.__path__, pkg.__name__ + '.'):
                importlib.import_module(mod.name)
        from workbench.engine import registry
        from workbench.engine.generate import generate
        assert registry.run(generate('vo24', 1), 'CoP').windows
        assert not [m for m in sys.modules if m.split('.')[0] in ('PySide6', 'pyqtgraph')]
        print('ok')
        """
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "ok"
