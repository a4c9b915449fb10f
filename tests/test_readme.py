"""The README's ``>>>`` examples run and print what the README says."""

import doctest
from pathlib import Path

README = Path(__file__).resolve().parents[1] / "README.md"


def test_readme_examples():
    result = doctest.testfile(
        str(README),
        module_relative=False,
        optionflags=doctest.NORMALIZE_WHITESPACE | doctest.ELLIPSIS,
        verbose=False,
        report=True,
    )
    assert result.attempted > 40, "the README's examples were not found"
    assert result.failed == 0, f"{result.failed} README example(s) failed (see the output above)"


def test_readme_starts_with_the_two_commands():
    text = README.read_text()
    first_block = text.split("```bash\n", 1)[1].split("```", 1)[0]
    assert 'pip install -e ".[image]" && tilecast demo' in first_block.splitlines()[0]
    assert 'pip install -e ".[test]" && python -m pytest' in first_block.splitlines()[1]
    ci = (README.parent / ".ci" / "run").read_text()
    assert 'pip install -e ".[test]" && python -m pytest' in ci


def test_docs_examples():
    docs = sorted((README.parent / "docs").glob("*.md"))
    attempted = 0
    for page in docs:
        result = doctest.testfile(
            str(page),
            module_relative=False,
            optionflags=doctest.NORMALIZE_WHITESPACE | doctest.ELLIPSIS,
            verbose=False,
            report=True,
        )
        assert result.failed == 0, f"{page.name}: {result.failed} example(s) failed"
        attempted += result.attempted
    assert attempted > 10, "the docs' examples were not found"
