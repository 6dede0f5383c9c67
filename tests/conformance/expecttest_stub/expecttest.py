"""Stand-in for the `expecttest` package, which Debian does not ship.

torch.testing._internal.common_utils imports it for its TestCase; the
conformance suite only needs op_db's sample inputs, so ACCEPT and a
TestCase subclass of unittest.TestCase are enough.
"""
import unittest

ACCEPT = False


class TestCase(unittest.TestCase):
    pass
