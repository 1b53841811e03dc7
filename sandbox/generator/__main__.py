"""``python -m sandbox.generator``: rewrite the committed suite files (``mobilepa tasks build`` does the same)."""

from sandbox.generator.suite import write_suite

if __name__ == "__main__":
    for path in write_suite().values():
        print(path)
