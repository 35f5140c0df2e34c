import pytest

# The contract base's checks are asserts in a package of helpers: rewritten, their failures show the values.
pytest.register_assert_rewrite("tests.contract")
